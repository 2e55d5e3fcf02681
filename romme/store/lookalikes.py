"""Look-alike nicknames: the scripts a nickname mixes, and its skeleton.

Two nicknames that look the same must not both exist, or a player could pass as
another ("Аnna" with a Cyrillic А beside "Anna"). The data is Unicode's own, as
packaged by ``confusable_homoglyphs`` (pinned in pyproject.toml): the script of
every character (Scripts.txt) and the pairs of characters that look alike
(confusables.txt of Unicode Technical Standard #39).

* :func:`mixed_scripts` finds a nickname that mixes scripts, the way UTS #39's
  "highly restrictive" level does: one script, or Latin with the scripts that
  Chinese, Japanese and Korean names combine (Han with Hiragana and Katakana,
  Bopomofo or Hangul). Digits and ``_ - .`` belong to every script.
* :func:`skeleton` maps each character to one representative of all the
  characters it may be confused with (after NFKC), then folds the case; two
  nicknames with equal skeletons are look-alikes: ``Anna``, ``Аnna``,
  ``ＡＮＮＡ`` and ``ΑΝΝΑ`` (Greek), ``Ilse`` and ``lIse``; not ``Ånna``, for
  marks are kept. Case is folded last, so that ``I`` still looks like ``l``.

>>> skeleton("Anna") == skeleton("Аnna") == skeleton("ＡＮＮＡ") == skeleton("ΑΝΝΑ")
True
>>> skeleton("Anna") == skeleton("Ånna")
False
>>> skeleton("Ilse") == skeleton("lIse")
True
>>> mixed_scripts("Аnna")
['CYRILLIC', 'LATIN']
>>> [mixed_scripts(name) for name in ("Anna_2", "山田たろう", "Мария")]
[None, None, None]
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs import categories, confusables

__all__ = ["mixed_scripts", "skeleton"]

_NO_SCRIPT = frozenset({"COMMON", "INHERITED"})
"""Characters of every script: digits, punctuation, combining marks."""
_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
"""The sets of scripts that a name may combine (UTS #39, "highly restrictive")."""


def mixed_scripts(nickname: str) -> list[str] | None:
    """The scripts of a nickname that mixes them (sorted), else ``None``."""
    scripts = {categories.alias(char) for char in nickname} - _NO_SCRIPT
    if len(scripts) <= 1 or any(scripts <= allowed for allowed in _MIXES):
        return None
    return sorted(scripts)


@cache
def _representatives() -> dict[str, str]:
    """Each character that looks like another, mapped to the smallest character of
    all that look alike with it (the pairs are joined transitively, so that ``l``,
    ``I`` and ``1`` share one representative)."""
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.get(char, char) != char:
            parent[char] = parent.get(parent[char], parent[char])
            char = parent[char]
        return char

    for char, entries in confusables.confusables_data.items():
        if len(char) != 1:
            continue
        for entry in entries:
            other = entry["c"]
            if len(other) != 1:
                continue
            a, b = root(char), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {char: root(char) for char in parent}


def skeleton(nickname: str) -> str:
    """The form in which look-alike nicknames are equal: NFKC, decomposed, each
    character replaced by its representative, decomposed again, case-folded."""
    table = _representatives()
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", nickname))
    mapped = unicodedata.normalize("NFD", "".join(table.get(char, char) for char in decomposed))
    return mapped.casefold()
