"""The words of the catalogs follow docs/glossary.md: no catalog uses a word the glossary
replaced, and no catalog text is left in English unless its words are loanwords."""

from __future__ import annotations

import re

import pytest

from tests.web.test_i18n import LANGS, WEB, catalog
from tests.web.test_i18n_plurals import forms_of

GLOSSARY = WEB.parents[1] / "docs" / "glossary.md"
COLUMNS = {
    "en": "English",
    "de": "Deutsch",
    "es": "Español",
    "nl": "Nederlands",
    "pt": "Português (Brasil)",
}


def section(title: str) -> str:
    text = GLOSSARY.read_text("utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def word_lists(title: str) -> dict[str, list[str]]:
    """The "- xx: word, word" lines of a section of the glossary."""
    found = re.findall(r"^- (\w\w): (.+)$", section(title), re.MULTILINE)
    return {
        lang: [w.strip() for w in re.sub(r"\([^)]*\)", "", words).split(",")]
        for lang, words in found
    }


def glossary_terms(lang: str) -> list[str]:
    """The terms of the glossary's tables in a language's column ("monte de descarte")."""
    text = GLOSSARY.read_text("utf-8")
    terms: list[str] = []
    column = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| concept |"):
            column = cells.index(COLUMNS[lang])
        elif line.startswith("| ") and column is not None and not line.startswith("|---"):
            cell = re.sub(r"\([^)]*\)", ",", cells[column])
            terms += [t.strip(' "') for t in re.split(r"[,;]", cell) if t.strip(' "')]
    return terms


def texts(lang: str) -> list[tuple[str, str]]:
    return [(key, form) for key, value in catalog(lang).items() for form in forms_of(value)]


def english_of(key: str, form: str | None) -> str:
    """The English text of a key (of one plural form: the same form, else "other")."""
    value = catalog("en")[key]
    if isinstance(value, dict):
        return str(value.get(form or "", value["other"]))
    return str(value)


@pytest.mark.parametrize("lang", LANGS)
def test_every_catalog_uses_the_glossary_terms(lang: str) -> None:
    """Each term of the language's column appears in its catalog (as the start of a
    word, so that "baraja" is found in "barajas")."""
    terms = glossary_terms(lang)
    assert len(terms) > 60
    catalog_text = "\n".join(text for _, text in texts(lang))
    unused = [
        term
        for term in terms
        if not re.search(rf"(?<!\w){re.escape(term)}", catalog_text, re.IGNORECASE)
    ]
    assert unused == []


@pytest.mark.parametrize("lang", LANGS[1:])
def test_no_catalog_uses_a_word_the_glossary_replaced(lang: str) -> None:
    banned = word_lists("Words a catalog does not use")[lang]
    assert len(banned) >= 5
    # The glossary's own terms are taken out first: "monte" is found only where it
    # stands alone, not in "monte de descarte".
    terms = sorted(glossary_terms(lang), key=len, reverse=True)
    assert "Ablagestapel" in glossary_terms("de") and "monte de descarte" in glossary_terms("pt")
    found = []
    for key, text in texts(lang):
        rest = text
        for term in terms:
            rest = re.sub(rf"(?<!\w){re.escape(term)}(?!\w)", " ", rest, flags=re.IGNORECASE)
        for word in banned:
            if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", rest, re.IGNORECASE):
                found.append(f"{key}: {word!r} in {text!r}")
    assert found == []


@pytest.mark.parametrize("lang", LANGS[1:])
def test_no_text_is_left_in_english_unless_its_words_are_loanwords(lang: str) -> None:
    loanwords = {w.lower() for w in word_lists("Loanwords")[lang]}
    same = []
    for key, value in catalog(lang).items():
        forms = value.items() if isinstance(value, dict) else [(None, value)]
        for form, text in forms:
            if text != english_of(key, form):
                continue
            words = re.findall(r"[^\W\d_]+", re.sub(r"\{\w+\}", "", text))
            if any(w.lower() not in loanwords for w in words):
                same.append(f"{key}: {text!r}")
    assert same == []


def test_the_glossary_names_every_language_and_the_catalogs_use_its_terms() -> None:
    """Spot checks that the catalogs speak the glossary's words where the manuals do."""
    assert set(word_lists("Loanwords")) == set(LANGS[1:])
    expected = {
        "pt": {
            "table.lay_cards": "Baixar cartas",
            "table.knock": "Bater!",
            "summary.winner": "{name} fechou.",
            "card.joker": "Curinga",
            "table.player_info": "Info do jogador",
            "table.invite": "Convidar",
            "info.guest": "Visitante",
            "entry.nickname": "Nickname",
        },
        "es": {"table.lay_cards": "Bajar cartas", "settings.hand_rummy": "Cierre de mano"},
        "de": {"summary.exit": "Verlassen", "entry.nickname": "Nickname"},
        "nl": {"entry.nickname": "Gebruikersnaam", "table.lay_cards": "Neerleggen"},
    }
    for lang, keys in expected.items():
        texts = catalog(lang)
        for key, text in keys.items():
            assert texts[key] == text, f"{lang}: {key}"
    for lang in LANGS[1:]:
        discard_pile = {"de": "Ablagestapel", "es": "montón de descartes", "nl": "aflegstapel"}
        discard_pile["pt"] = "monte de descarte"
        assert discard_pile[lang] in catalog(lang)["table.joker_drag"], lang
