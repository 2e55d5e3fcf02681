"""A turn that runs out is not told as the player's own move: the last seconds are
warned of (the own area and the status line turn red and count down), the toast and
the table's log say that the time ran out. Play now and "New game" give a newcomer a
minute a move. On a real server, against a computer opponent, with a 15 s turn."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import shot
from tests.web.ui import login_guest, new_game, view, wait_for


def test_a_timeout_is_told_as_such(server: str, new_context: Any) -> None:
    page = new_context("timeout")
    login_guest(page, server, "Slowpoke")
    new_game(page, opponents=1, level="beginner", turn=15)
    wait_for(
        page,
        lambda: (
            (v := view(page) or {}).get("current") == v.get("seat") and v.get("phase") == "draw"
        ),
        30,
        "my turn",
    )
    # Early in the turn: no warning yet.
    assert page.locator(".me-area.time-low").count() == 0
    assert page.locator("#time-warning").count() == 0
    # The last seconds: red, and the seconds left in the status line.
    page.wait_for_selector(".me-area.time-low", timeout=20000)
    warning = page.inner_text("#time-warning")
    assert "seconds left" in warning or "second left" in warning, warning
    shot(page, "timeout-warning")
    # The clock plays for the seat: the toast and the log say so.
    page.wait_for_selector(".toast:has-text('Your time ran out')", timeout=20000)
    toast = page.inner_text(".toast:has-text('Your time ran out')")
    assert "discarded" in toast, toast
    page.wait_for_selector(".chat-log .note:has-text('(time ran out)')", timeout=10000)
    lines = page.eval_on_selector_all(".chat-log .note", "els => els.map((e) => e.textContent)")
    timed = [line for line in lines if "(time ran out)" in line]
    assert any("Slowpoke discarded" in line for line in timed), lines
    # The opponent's own moves are not marked.
    assert not any("Beginner" in line for line in timed), lines
    page.wait_for_selector(".me-area.time-low", state="detached", timeout=10000)


def test_play_now_and_new_game_give_a_minute(server: str, new_context: Any) -> None:
    page = new_context("play-now-time")
    login_guest(page, server, "Newcomer")
    page.click("#new-game")
    assert page.input_value("#ng-turn") == "60"
    page.keyboard.press("Escape")
    # Play now finds no waiting table here and opens one: its settings as sent.
    page.evaluate("""() => { const a = window.__romme; a.lobby.tables = [];
        const request = a.request.bind(a); a.created = [];
        a.request = (m) => { if (m.type === 'create_table') a.created.push(m.settings); return request(m); }; }""")
    page.click("#play-now")
    page.wait_for_selector("#hand .hand-card")
    created = page.evaluate("window.__romme.created")
    assert [s["turn_seconds"] for s in created] == [60]
    assert (view(page) or {}).get("rules", {}).get("turn_seconds") == 60
