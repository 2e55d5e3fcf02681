"""Locale catalogs: every catalog has the same keys and placeholders, every key
the code asks for exists, and every screen renders in every language without a
missing key."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import shot
from tests.web.ui import login_guest

WEB = Path(__file__).resolve().parents[2] / "romme" / "web"
LANGS = ["en", "de", "pt", "es", "nl"]


def catalog(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "locales" / f"{lang}.json").read_text("utf-8"))
    return data


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("lang", LANGS[1:])
def test_catalog_has_the_same_keys_and_placeholders(lang: str) -> None:
    en, other = catalog("en"), catalog(lang)
    assert sorted(set(en) - set(other)) == [], f"{lang} lacks keys"
    assert sorted(set(other) - set(en)) == [], f"{lang} has extra keys"
    for key, text in en.items():
        assert other[key].strip(), f"{lang}: {key} is empty"
        assert placeholders(other[key]) == placeholders(text), f"{lang}: {key} placeholders differ"


def test_every_key_the_code_uses_exists() -> None:
    en = catalog("en")
    source = "\n".join(p.read_text("utf-8") for p in (WEB / "js").glob("*.js"))
    used = set(re.findall(r"\bt\(\s*'([a-z_]+\.[a-z0-9_.]+)'", source))
    used |= set(re.findall(r"'data-i18n(?:-[a-z]+)?': '([a-z_]+\.[a-z0-9_.]+)'", source))
    assert len(used) > 150
    for key in sorted(used):
        assert key in en or f"{key}.other" in en, f"missing key {key}"
    dynamic = {
        "bot": ["beginner", "casual", "strong", "expert"],
        "status": ["waiting", "playing", "finished"],
        "rank": [str(n) for n in range(1, 14)],
        "suit": ["C", "D", "H", "S"],
        "entry": ["tab_guest", "tab_login", "tab_register", "submit_guest", "submit_login",
                  "submit_register"],
        "invite": ["status_open", "status_accepted", "status_declined", "status_expired"],
    }
    for prefix, names in dynamic.items():
        for name in names:
            assert f"{prefix}.{name}" in en


def switch(page: Any, lang: str) -> None:
    page.select_option("#lang-select", lang)
    page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
    page.wait_for_timeout(30)


def missing(page: Any) -> list[str]:
    return sorted(page.evaluate("[...window.__rommeMissingKeys]"))


def every_language(page: Any, screen: str, check: Any = None) -> None:
    for lang in LANGS:
        switch(page, lang)
        if check:
            check(lang)
        assert missing(page) == [], f"{screen} in {lang}"


def test_every_screen_in_every_language(server: str, new_context: Any) -> None:
    page = new_context("lingo", locale="de-DE")
    page.goto(server)
    # The browser's language is the default.
    page.wait_for_selector("#entry-submit")
    assert page.inner_text("#entry-submit") == catalog("de")["entry.submit_guest"]
    every_language(page, "entry", lambda lang: page.click("#entry-tab-register"))
    switch(page, "de")
    page.click("#entry-tab-guest")
    login_guest(page, server, "Lingo")
    every_language(page, "lobby", lambda lang: page.wait_for_function(
        "t => document.querySelector('#new-game').textContent === t",
        arg=catalog(lang)["lobby.new_game"]))

    def new_game_dialog(lang: str) -> None:
        page.click("#new-game")
        page.check("#new-game-form input[name=preset][value=three-rounds]")
        page.check("#new-game-form input[name=preset][value=classic]")
        page.keyboard.press("Escape")

    every_language(page, "new game", new_game_dialog)

    def player_info(lang: str) -> None:
        page.click("#player-list .player-link")
        page.wait_for_selector(".info-stats")
        page.keyboard.press("Escape")

    every_language(page, "player info", player_info)

    # The waiting room of a table for two people.
    page.click("#new-game")
    page.select_option("#ng-seat-1", "human")
    page.click("#ng-create")
    page.wait_for_selector("#waiting:visible")
    every_language(page, "waiting room")
    page.click("#waiting button.ghost")
    page.wait_for_selector("#new-game")

    # A game against the computer, with its dialogs.
    page.click("#new-game")
    page.select_option("#ng-turn", "120")
    page.click("#ng-create")
    page.wait_for_selector("#hand .hand-card")

    def table_dialogs(lang: str) -> None:
        page.click("#hand-0")
        page.wait_for_timeout(50)
        page.keyboard.press("?")
        page.wait_for_selector(".keys")
        page.keyboard.press("Escape")
        page.click("#invite") if page.locator("#invite").is_enabled() else None
        page.click("#player-info")
        page.keyboard.press("Escape")

    every_language(page, "table", table_dialogs)
    switch(page, "de")
    shot(page, "table-german")
    switch(page, "en")
