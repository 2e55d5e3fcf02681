"""Sorting the hand again and again before anyone moves, in Chromium against a
real server: the server keeps one stored order, the latest, without a new
version (docs/protocol.md, ``arrange``), and the page still holds the server's
view of it, also after a reload."""

from __future__ import annotations

from typing import Any

from tests.web.ui import hand_in_dom, login_guest, table_state, view, wait_for


def _wait_for_hand(page: Any, order: list[str], what: str) -> None:
    """Until the page holds the server's view with the hand in ``order``."""
    wait_for(page, lambda: (view(page) or {}).get("hand") == order, what=what)


def test_sorting_twice_before_a_move_keeps_the_latest_order(server: str, new_context: Any) -> None:
    page = new_context("sorting")
    login_guest(page, server, "Sortierer")
    page.click("#new-game")
    page.select_option("#ng-seat-1", "beginner")
    page.select_option("#ng-turn", "120")
    page.click("#ng-create")
    page.wait_for_selector("#hand .hand-card")
    v = view(page)
    assert v is not None and v["current"] == 0 and v["phase"] == "draw"
    # The page sorts the new deal by suit and tells the server: one stored order.
    dealt = hand_in_dom(page)
    wait_for(page, lambda: (view(page) or {}).get("hand") == dealt, what="the sorted deal")
    state = table_state(page)
    assert state is not None
    version = state["version"]

    # Two more sorts before anyone moves: each takes the last one's place.
    after = dealt
    for _ in range(2):
        before = hand_in_dom(page)
        # A card unlike its right neighbour (a hand may hold a card twice).
        card = next(i for i in range(len(before) - 1) if before[i] != before[i + 1])
        page.focus(f"#hand-{card}")
        page.keyboard.press("Shift+ArrowRight")
        after = hand_in_dom(page)
        assert after != before
        _wait_for_hand(page, after, "the new order")
        assert (table_state(page) or {}).get("version") == version

    # The server holds that order: a reload shows it.
    page.reload()
    page.wait_for_selector("#hand .hand-card")
    _wait_for_hand(page, after, "the order after a reload")
    assert (table_state(page) or {}).get("version") == version
