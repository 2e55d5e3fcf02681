"""Stepping through a replay: a sort of the hand is no step of its own (it is folded
into the move before it, whose step shows the sorted hand), and the analysis lists its
marked moves with jumps to the previous and the next one. The replay of a real game,
with sorts put into it on its way to the page, and an analysis with two marks."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.web.conftest import DESKTOP, Played, login, shot
from tests.web.test_replay import hands_in_dom


def with_sorts(replay: dict[str, Any]) -> dict[str, Any]:
    """The replay with a sort after position 2 and two after position 5 (each reverses
    the hand of the seat that moved)."""
    forged = copy.deepcopy(replay)
    positions = forged["positions"]
    for after, count in ((5, 2), (2, 1)):
        for _ in range(count):
            before = positions[after]
            seat = (before["action"] or {}).get("seat", 0)
            sorted_ = copy.deepcopy(before)
            sorted_["hands"][seat] = list(reversed(before["hands"][seat]))
            sorted_["action"] = {"type": "arrange", "seat": seat, "cards": sorted_["hands"][seat]}
            positions.insert(after + 1, sorted_)
            after += 1
    return forged


def answer(body: dict[str, Any]) -> Any:
    """A route handler that answers with ``body`` as JSON."""

    def fulfill(route: Any) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    return fulfill


def mark(move: int, severity: str) -> dict[str, Any]:
    return {
        "move": move,
        "seat": 0,
        "kind": "discard",
        "played": {"type": "discard"},
        "better": {"type": "discard"},
        "severity": severity,
        "penalty": 0,
        "win_chance": 0,
        "reason": "other",
        "params": {},
    }


def test_sorts_are_folded_and_marked_moves_are_listed(played: Played, new_context: Any) -> None:
    page = new_context("replay-steps", viewport=DESKTOP)
    forged = with_sorts(played.replay)
    positions = forged["positions"]
    # P0 P1 P2 sort(3) P3(4) P4(5) P5(6) sort(7) sort(8) P6(9) ...
    assert [p["action"]["type"] if p["action"] else None for p in positions][3:10:5] == [
        "arrange",
        "arrange",
    ]
    analysis = {
        "game": played.table,
        "status": "done",
        "seats": [0],
        "decisions": 9,
        "marks": [mark(3, "mistake"), mark(8, "blunder")],
    }
    for path, body in (("replay", forged), ("analysis", analysis)):
        page.route(f"**/api/games/{played.table}/{path}", answer(body))
    login(page, played.base, f"#/replay/{played.table}/2")
    page.wait_for_selector("#replay-slider")
    # One step fewer per sort.
    assert (
        page.eval_on_selector("#replay-slider", "(el) => Number(el.max)") == len(positions) - 1 - 3
    )
    # The step of the move before the sort shows the hand as sorted after it.
    assert hands_in_dom(page) == positions[3]["hands"]
    page.click("#replay-next")
    page.wait_for_function("() => location.hash.endsWith('/4')")
    assert hands_in_dom(page) == positions[4]["hands"]
    page.click("#replay-next")
    page.click("#replay-next")
    page.wait_for_function("() => location.hash.endsWith('/6')")
    assert hands_in_dom(page) == positions[8]["hands"]
    page.click("#replay-next")
    page.wait_for_function("() => location.hash.endsWith('/9')")
    assert "sorted" not in page.inner_text("#replay-move")
    # The computer opponent is named as at the table, not by its account.
    assert "Bot " not in page.inner_text(".replay"), page.inner_text("#replay-sheet")

    # The marked moves: from the start, the next one, the next, then none further.
    page.click("#replay-first")
    page.wait_for_function("() => location.hash.endsWith('/0')")
    assert page.is_disabled("#mark-prev")
    page.click("#mark-next")
    page.wait_for_function("() => location.hash.endsWith('/4')")
    page.wait_for_selector(".analysis-mark[data-move='3']")
    page.click("#mark-next")
    page.wait_for_function("() => location.hash.endsWith('/9')")
    assert page.is_disabled("#mark-next")
    page.click("#mark-prev")
    page.wait_for_function("() => location.hash.endsWith('/4')")
    # The list of every marked move, each a link to it, numbered as the steps are.
    page.click("#marked-moves summary")
    items = page.eval_on_selector_all("#marked-moves li", "(ls) => ls.map((l) => l.textContent)")
    assert (
        len(items) == 2 and items[0].startswith("Mistake 3.") and items[1].startswith("Blunder 6.")
    ), items
    shot(page, "replay-marked-moves")
    page.click("#marked-moves li:nth-child(2) button")
    page.wait_for_function("() => location.hash.endsWith('/9')")
    assert page.locator("#marked-moves[open] li.current button[data-move='8']").count() == 1
