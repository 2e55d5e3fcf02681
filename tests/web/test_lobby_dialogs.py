"""The lobby's dialogs do only what the player does: moving the focus through
"New game" changes no setting, and player info shows only real parts."""

from __future__ import annotations

from typing import Any

from tests.web.ui import login_guest, new_game


def checked_limit(page: Any) -> str:
    return str(page.eval_on_selector("#new-game-form input[name=limit]:checked", "e => e.value"))


def test_tabbing_through_new_game_changes_no_setting(server: str, new_context: Any) -> None:
    page = new_context("newgame-tab")
    login_guest(page, server, "Tabea")
    page.click("#new-game")
    page.wait_for_selector("#new-game-form")
    assert checked_limit(page) == "1"
    before = page.evaluate(
        "() => [...document.querySelectorAll('#new-game-form input, #new-game-form select')]"
        ".map(e => e.type === 'radio' || e.type === 'checkbox' ? e.checked : e.value)"
    )
    passed = set()
    for _ in range(25):
        page.keyboard.press("Tab")
        passed.add(page.evaluate("document.activeElement.id"))
    assert "ng-custom-limit" in passed  # the focus went through the "Other" field
    assert checked_limit(page) == "1"
    after = page.evaluate(
        "() => [...document.querySelectorAll('#new-game-form input, #new-game-form select')]"
        ".map(e => e.type === 'radio' || e.type === 'checkbox' ? e.checked : e.value)"
    )
    assert after == before
    # Typing a number into "Other" does choose it.
    page.fill("#ng-custom-limit", "250")
    assert checked_limit(page) == "custom"


def test_player_info_never_shows_null(server: str, new_context: Any) -> None:
    page = new_context("info-null")
    login_guest(page, server, "Nullo")
    # Oneself in the list of players online (no invite button: nothing to invite to).
    page.click("#player-list .player-link:has-text('Nullo')")
    page.wait_for_selector(".info-stats")
    assert "null" not in page.inner_text(".player-info")
    page.keyboard.press("Escape")
    # At the table: anyone seated.
    new_game(page)
    page.click("#player-info")
    page.click(".pick-list .player-link")
    page.wait_for_selector(".info-stats")
    assert "null" not in page.inner_text(".player-info")
