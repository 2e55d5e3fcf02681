"""A whole single-round game against a computer opponent, played through the
page only: draws by click, discards by drag, lays through "Lay cards", lays off
by dragging onto a blue arrow, sorts by drag during the opponent's turn."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.web.conftest import DESKTOP, PHONE, shot
from tests.web.test_i18n import switch
from tests.web.ui import Tally, hand_in_dom, login_guest, play_my_move, reorder, view, wait_for


def create_game(page: Any, opponents: int = 1, level: str = "beginner", turn: int = 60) -> None:
    page.click("#new-game")
    page.select_option("#ng-opponents", str(opponents))
    for i in range(1, opponents + 1):
        page.select_option(f"#ng-seat-{i}", level)
    page.check("#new-game-form input[name=limit][value='1']")
    page.select_option("#ng-turn", str(turn))
    page.click("#ng-create")
    page.wait_for_selector("#hand .hand-card")


def play_round(
    page: Any, tally: Tally, shots: dict[str, bool], limit: float = 300, until: str = "game_over"
) -> dict[str, Any]:
    """Play through the page until the game is over (or, with until="round_over",
    until the first round summary). A round that ends without a winner (the stock
    ran out) is followed by "Next"."""
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline:
            v = view(page)
            if v is None:  # between screens for a moment
                page.wait_for_timeout(60)
                continue
            if v["phase"] == "game_over" or (v["phase"] == "round_over" and until == "round_over"):
                return v
            if v["phase"] == "round_over":
                page.click("#summary-next")
                wait_for(
                    page,
                    lambda: (view(page) or {}).get("phase") != "round_over",
                    40,
                    "the next round",
                )
                continue
            mine = v["current"] == v["seat"]
            if v["phase"] in ("draw", "play") and mine and tally["sort_drag"] == 0:
                # On the player's own turn: nothing but the player changes the hand
                # under the drag (an opponent's move could end the round meanwhile).
                sort_by_drag(page)
                tally.add("sort_drag")
            elif v["phase"] in ("draw", "play") and mine:
                play_my_move(page, v, tally)
                if v["melds"] and not shots.get("table"):
                    take_table_shots(page)
                    shots["table"] = True
            else:
                page.wait_for_timeout(60)
        raise AssertionError("the round did not end in time")
    except AssertionError as exc:
        shot(page, "failure")
        toasts = page.eval_on_selector_all(".toast", "els => els.map(e => e.textContent)")
        raise AssertionError(f"{exc}; moves {tally.counts}; toasts {toasts}") from exc


def sort_by_drag(page: Any) -> None:
    """Drag the hand's first card to its end, and see the order reach the server
    and survive in its view."""
    before = hand_in_dom(page)
    reorder(page, 0, len(before) - 1)
    order = hand_in_dom(page)
    wait_for(page, lambda: (view(page) or {}).get("hand") == order, 10, "the arranged hand")


def summary_in_every_language(page: Any) -> None:
    for lang in ("de", "pt", "es", "nl", "en"):
        switch(page, lang)
        page.wait_for_selector("#summary")
        assert page.evaluate("[...window.__rommeMissingKeys]") == [], lang


def take_table_shots(page: Any) -> None:
    shot(page, "table-desktop")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(250)
    shot(page, "table-phone")
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(250)


@pytest.mark.timeout(900)
def test_single_round_against_the_computer(server: str, new_context: Any) -> None:
    page = new_context("anna")
    login_guest(page, server, "Anna")
    shot(page, "lobby-desktop")
    page.set_viewport_size(PHONE)
    shot(page, "lobby-phone")
    page.set_viewport_size(DESKTOP)

    tally = Tally()
    shots: dict[str, bool] = {}
    games = 0
    started = time.monotonic()
    # Deals are random: play single-round games until every kind of move was
    # made at least once (a lay-off needs melds on the table), within a budget.
    while True:
        games += 1
        if games > 1:
            page.click("#summary-lobby")
            page.wait_for_selector("#new-game")
        create_game(page)
        final = play_round(page, tally, shots)
        # A locator, not a handle: the dialog is drawn again when the game's end
        # follows the round's (a handle would then point at the one replaced).
        summary = page.locator("#summary")
        summary.wait_for(state="visible")
        assert summary.is_visible()
        assert final["results"], "a finished round has a result"
        rows = page.locator("#summary tbody tr")
        assert rows.count() == 2
        if not shots.get("summary"):
            shot(page, "summary-desktop")
            page.set_viewport_size(PHONE)
            page.wait_for_timeout(200)
            shot(page, "summary-phone")
            page.set_viewport_size(DESKTOP)
            shots["summary"] = True
            summary_in_every_language(page)
        if (
            tally["lay"] and tally["lay_off"] and tally["sort_drag"]
        ) or time.monotonic() - started > 200:
            break
    assert tally["draw_stock"] >= 1, tally.counts
    assert tally["discard_drag"] >= 1, tally.counts
    assert tally["sort_drag"] >= 1, tally.counts
    assert tally["lay"] >= 1, tally.counts
    assert tally["lay_off"] >= 1, tally.counts


@pytest.mark.timeout(900)
def test_next_deals_the_second_round(server: str, new_context: Any) -> None:
    page = new_context("bruno")
    login_guest(page, server, "Bruno")
    tally = Tally()
    for _ in range(3):
        page.click("#new-game")
        page.select_option("#ng-seat-1", "beginner")
        page.check("#new-game-form input[name=limit][value='100']")
        page.select_option("#ng-turn", "60")
        page.click("#ng-create")
        page.wait_for_selector("#hand .hand-card")
        final = play_round(
            page, tally, {"table": True, "summary": True}, limit=300, until="round_over"
        )
        if final["phase"] == "round_over":
            break
        # Rarely a doubled hand-rummy penalty passes 100 at once: play another game.
        page.click("#summary-lobby")
        page.wait_for_selector("#new-game")
    assert final["phase"] == "round_over"
    page.click("#summary-next")
    wait_for(page, lambda: (view(page) or {}).get("round_no") == 2, 40, "the second round")
    page.wait_for_selector("#summary", state="hidden")
    page.wait_for_function("() => document.querySelectorAll('#hand .hand-card').length >= 13")
