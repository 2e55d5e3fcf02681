"""The chat filter: the worst words of the five languages masked in chat.

The words come from a plain text file (``romme/server/data/chat_filter.txt``,
replaceable with ``romme serve --chat-filter FILE``): one word or phrase a line,
``#`` comments, a trailing ``*`` for the words it begins. A word matches only whole,
never inside a longer word (so "Scunthorpe", "class" and "computadora" are left
alone), without regard to case. A matched word is masked with as many ``*`` as it
has characters; the rest of the message goes out unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

__all__ = ["DEFAULT_WORDS", "ChatFilter"]

DEFAULT_WORDS = Path(__file__).resolve().parent / "data" / "chat_filter.txt"


class ChatFilter:
    """Masks listed words in chat text."""

    def __init__(self, words: list[str]) -> None:
        patterns = sorted({_pattern(w) for w in words if w}, key=len, reverse=True)
        self._regex = (
            re.compile(r"(?<!\w)(?:" + "|".join(patterns) + r")(?!\w)", re.IGNORECASE)
            if patterns
            else None
        )

    @classmethod
    def from_file(cls, path: Path | None = None) -> ChatFilter:
        """The filter of a word file (default: the built-in list); raises
        ``OSError`` or ``UnicodeDecodeError`` for a file that cannot be read."""
        text = (path or DEFAULT_WORDS).read_text(encoding="utf-8")
        return cls(
            [
                line.strip()
                for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("#")
            ]
        )

    def mask(self, text: str) -> str:
        """``text`` with each listed word replaced by asterisks."""
        if self._regex is None:
            return text
        normal = unicodedata.normalize("NFC", text)
        return self._regex.sub(lambda m: "*" * len(m.group(0)), normal)


def _pattern(word: str) -> str:
    """The regular expression of one list entry (spaces match any whitespace)."""
    word = unicodedata.normalize("NFC", word.lower())
    prefix = word.endswith("*")
    parts = [re.escape(part) for part in word.rstrip("*").split()]
    return r"\s+".join(parts) + (r"\w*" if prefix else "")
