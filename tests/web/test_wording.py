"""Wording a player stumbles on: a computer opponent is named in the history and
the replay as the table names it, in the reader's language ("Anfänger", "Anfänger 2" in a game's
seats), never by its account's name ("Bot beginner"); the catalogs speak of a deleted
player by the history's own words, and the help points to nothing outside the game."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.web.conftest import DESKTOP, NICKNAME, ROOT, Played, login, shot
from tests.web.test_i18n import LANGS, switch

LOCALES = ROOT / "romme" / "web" / "locales"


def catalog(lang: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((LOCALES / f"{lang}.json").read_text())
    return result


def test_computer_opponents_are_named_as_at_the_table(played: Played, new_context: Any) -> None:
    # The rankings list people only (docs/protocol.md "Rankings").
    rankings = httpx.get(f"{played.server.base}/api/rankings").json()["rankings"]
    assert rankings and not any(r["bot"] for r in rankings), rankings
    page = new_context("wording", viewport=DESKTOP, locale="de-DE")
    login(page, played.base)
    page.wait_for_selector("#new-game")
    switch(page, "de")
    beginner = catalog("de")["bot.beginner"]
    # The game history: the seat as the table named it.
    page.goto(f"{played.base}#/history/{NICKNAME}")
    page.wait_for_selector(".history-game")
    players = page.inner_text(".history-players")
    assert "Bot " not in players and f"{beginner} 2" in players, players
    shot(page, "wording-history-de")
    # The replay's seats too.
    page.click(".history-game .history-link")
    page.wait_for_selector(".replay-seat-head")
    seats = page.inner_text(".replay-seats")
    assert "Bot " not in seats and beginner in seats, seats


def test_no_catalog_speaks_of_the_source_or_in_english_of_deleted_players() -> None:
    for lang in LANGS:
        texts = catalog(lang)
        deleted = texts["replay.deleted_player"]
        assert deleted in texts["account.delete_text"], lang
        assert "deleted player" not in texts["account.delete_text"] or lang == "en", lang
        assert "docs/" not in texts["help.more"] and ".md" not in texts["help.more"], lang
