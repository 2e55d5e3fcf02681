"""The turn timer shows the player's own time: on a table with the knock, the knock
window after a discard is shown apart and not added to the next player's clock."""

from __future__ import annotations

import time
from typing import Any

from tests.web.ui import draw_and_discard, login_guest, new_game, view, wait_for


def test_the_knock_window_is_not_added_to_the_turn(server: str, new_context: Any) -> None:
    page = new_context("timer-knock")
    login_guest(page, server, "Klopfer")
    new_game(page, opponents=2, turn=45, knock=True)
    seen_window = False
    for _ in range(4):
        wait_for(
            page,
            lambda: (
                (view(page) or {}).get("current") == 0 and (view(page) or {}).get("phase") == "draw"
            ),
            60,
            "my turn",
        )
        draw_and_discard(page)
        # Through the knock window (3 s) the next player's clock stands at 45.
        end = time.monotonic() + 4
        while time.monotonic() < end:
            sample = page.evaluate("""() => {
                const a = window.__romme, knock = a.tables.get(a.tableId).timer?.knock;
                return { open: !!knock && knock.deadline > a.now() + 300,
                         seconds: Number(document.querySelector('#timer strong').textContent),
                         ring: document.querySelector('#timer').textContent,
                         window: document.querySelector('#knock-window')?.textContent ?? null }; }""")
            # No left-out part of the ring shows as the text "null".
            assert "null" not in sample["ring"], sample
            if sample["open"]:
                seen_window = True
                assert sample["seconds"] <= 45, sample
                assert (sample["window"] or "").startswith("Knock window: "), sample
            elif seen_window:
                break
            page.wait_for_timeout(50)
        if seen_window:
            # The window closed: the ring shows the seat's time, and no left-out
            # part of it as the text "null".
            page.wait_for_timeout(600)
            ring = page.inner_text("#timer")
            assert "null" not in ring, ring
            return
    raise AssertionError("the knock window was never shown")
