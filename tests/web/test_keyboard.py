"""Every action also by keyboard, accessible names on cards and piles, and the
hint button showing the suggested move."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.web.ui import hand_in_dom, login_guest, view, wait_for


def test_keyboard_play_and_hint(server: str, new_context: Any) -> None:
    page = new_context("keys")
    login_guest(page, server, "Tastatur")
    page.click("#new-game")
    page.select_option("#ng-seat-1", "beginner")
    page.select_option("#ng-turn", "120")
    page.click("#ng-create")
    page.wait_for_selector("#hand .hand-card")
    v = view(page)
    assert v is not None and v["current"] == 0 and v["phase"] == "draw"

    # Accessible names: every card and both piles say what they are.
    labels = page.eval_on_selector_all(
        "#hand .hand-card", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert all(labels) and len(labels) == 13
    assert "Stock" in (page.get_attribute("#stock", "aria-label") or "")
    assert "Discard pile" in (page.get_attribute("#discard", "aria-label") or "")

    # The hint says what the strong player would do, and marks it.
    page.click("#hint")
    page.wait_for_selector(".toast.hint")
    page.wait_for_selector(".hinted")

    # S draws from the stock.
    page.locator("body").focus()
    page.keyboard.press("s")
    wait_for(page, lambda: (view(page) or {}).get("phase") == "play", what="the draw by keyboard")

    # Shift + arrow moves the focused card one place; the order reaches the server.
    before = hand_in_dom(page)
    page.focus("#hand-0")
    page.keyboard.press("Shift+ArrowRight")
    after = hand_in_dom(page)
    assert after == [before[1], before[0], *before[2:]]
    wait_for(page, lambda: (view(page) or {}).get("hand") == after, what="the arranged hand")
    assert page.evaluate("document.activeElement.id") == "hand-1"

    # Space picks a card up (the drop targets light up), Escape puts it back.
    page.keyboard.press("Space")
    assert page.get_attribute("#hand-1", "aria-pressed") == "true"
    assert page.locator("#discard[data-drop]").count() == 1
    page.keyboard.press("Escape")
    assert page.locator("#discard[data-drop]").count() == 0

    # Enter on a card discards it.
    hand = hand_in_dom(page)
    index = next(i for i, c in enumerate(hand) if c != "XX")
    page.focus(f"#hand-{index}")
    page.keyboard.press("Enter")
    wait_for(
        page,
        lambda: (
            (view(page) or {}).get("current") == 1
            or (view(page) or {}).get("discard_count", 0) > v["discard_count"]
        ),
        what="the discard by keyboard",
    )
    # The card that had the focus left the hand (the opponent may have taken it
    # from the pile already, so the pile's top says nothing for sure).
    assert Counter(hand) - Counter(hand_in_dom(page)) == Counter({hand[index]: 1})
