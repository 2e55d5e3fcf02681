"""The table's log and status line tell what happened when it happened: the round's
earlier moves carry the times the table gave them (``history_meta``), not the moment
the page came (a spectator who joins late, a reload), a move the clock made says so,
and the status line tells only the move of the player whose turn it is."""

from __future__ import annotations

import time
from typing import Any

from romme.engine.game import Game
from romme.engine.rules import Rules
from tests.web.ui import login_guest, open_table, wait_for


def crafted_view() -> dict[str, Any]:
    view: dict[str, Any] = (
        Game.start(Rules.classic(), seats=3, seed=bytes(32)).view_for(0).to_json()
    )
    view.update(
        {
            "phase": "draw",
            "current": 2,
            "discard_top": "9S",
            "discard_count": 2,
            "history": [
                {"seat": 1, "move": "draw_stock", "cards": []},
                {"seat": 1, "move": "discard", "cards": ["9S"]},
            ],
        }
    )
    return view


def test_earlier_moves_keep_their_times(server: str, new_context: Any) -> None:
    page = new_context("log-times")
    login_guest(page, server, "Late")
    now = int(time.time() * 1000)
    chat = [{"at": now - 90_000, "from": "Late", "text": "hello"}]
    meta = [{"at": now - 120_000}, {"at": now - 60_000, "by": "timeout"}]
    open_table(
        page,
        crafted_view(),
        ["Late", "casual", "strong"],
        table_id=9301,
        extra={"chat": chat, "history_meta": meta},
    )
    lines = page.eval_on_selector_all("#table-chat-log li", "els => els.map((e) => e.textContent)")
    # In the order they happened: the round, the draw, the chat message, the discard
    # (the clock's), each with its own time.
    assert [
        "Round 1" in lines[0],
        "drew from the stock" in lines[1],
        "hello" in lines[2],
        "discarded" in lines[3] and "(time ran out)" in lines[3],
    ] == [True] * 4, lines
    stamps = page.eval_on_selector_all(
        "#table-chat-log li time", "els => els.map((e) => e.textContent)"
    )
    assert stamps[1] != stamps[3], stamps


def test_the_status_line_tells_the_current_turn_only(server: str, new_context: Any) -> None:
    page = new_context("status-now")
    login_guest(page, server, "Now")
    view = crafted_view()
    view.update(
        {"current": 1, "phase": "play", "history": [{"seat": 1, "move": "draw_stock", "cards": []}]}
    )
    open_table(page, view, ["Now", "casual", "strong"], table_id=9302)

    def step(events: list[dict[str, Any]], **changes: Any) -> None:
        page.evaluate(
            """([events, changes]) => { const a = window.__romme; const t = a.tables.get(a.tableId);
            t.version += 1; t.view = {...t.view, ...changes}; window.__rommeTable.setTable(t, events); }""",
            [events, changes],
        )

    # Seat 1 discards; the turn passes to seat 2: its discard is on the pile and in the
    # log, not in the status line, which tells whose turn it is.
    step(
        [{"type": "discarded", "seat": 1, "card": "9S"}, {"type": "turn_started", "seat": 2}],
        current=2,
        phase="draw",
        discard_top="9S",
    )
    wait_for(page, lambda: "Strong 3" in page.inner_text("#turn-status"), 5, "seat 2's turn")
    assert page.locator("#turn-status .last-move").count() == 0, page.inner_text("#turn-status")
    # Seat 2 draws: that is told.
    step([{"type": "drew", "seat": 2, "source": "stock", "card": None}], phase="play")
    page.wait_for_selector("#turn-status .last-move")
    assert "Strong 3 drew from the stock" in page.inner_text("#turn-status .last-move")
