"""The chat filter: the worst words of the five languages masked whole, ordinary
words that contain them left alone, a replacement list from a file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from romme.server.chatfilter import DEFAULT_WORDS, ChatFilter

FILTER = ChatFilter.from_file()


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("you FUCKING idiot", "you ******* idiot"),
        ("what a cunt.", "what a ****."),
        ("du Arschloch!", "du *********!"),
        ("Scheiße, schon wieder", "*******, schon wieder"),
        ("hijo de puta", "hijo de ****"),
        ("eres un CABRÓN", "eres un ******"),
        ("kut spel, klootzak", "*** spel, ********"),
        ("godverdomme nog aan toe", "*********** nog aan toe"),
        ("vai, seu filho da puta", "vai, seu *************"),
        ("porra, caralho!", "*****, *******!"),
    ],
)
def test_the_worst_words_are_masked_in_each_language(text: str, masked: str) -> None:
    assert FILTER.mask(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "Scunthorpe is a class act, assassin",  # en
        "Shitake? No: Dickens, Hancock and cocktails",  # en
        "Fotografie, Schlampigkeit und Spastik",  # de
        "la computadora, la disputa y el putamen",  # es
        "een kutter is een schip; kuttel",  # nl
        "cuidado com o computador, merdalhão é palavra?",  # pt
    ],
)
def test_words_that_only_contain_a_listed_word_are_left_alone(text: str) -> None:
    assert FILTER.mask(text) == text


def test_a_prefix_entry_masks_the_words_it_begins() -> None:
    assert FILTER.mask("fuckers and motherfucking") == "******* and *************"


def test_a_replacement_list_from_a_file(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("# our list\nbanana\nrotten apple\n", encoding="utf-8")
    custom = ChatFilter.from_file(words)
    assert custom.mask("a Banana and a rotten  apple, fuck") == "a ****** and a *************, fuck"
    assert ChatFilter.from_file(_empty(tmp_path)).mask("fuck") == "fuck"


def test_the_server_refuses_an_unreadable_list(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "romme", "serve", "--chat-filter", str(tmp_path / "none.txt")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "--chat-filter" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_built_in_list_names_its_source() -> None:
    text = DEFAULT_WORDS.read_text(encoding="utf-8")
    assert "LDNOOBW" in text and "CC-BY-4.0" in text


def _empty(tmp_path: Path) -> Path:
    path = tmp_path / "empty.txt"
    path.write_text("", encoding="utf-8")
    return path
