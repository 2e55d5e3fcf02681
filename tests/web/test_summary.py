"""The round summary between rounds, from views the engine makes: "Next" for a
player still in, a red cross and "Exit" for one who went over the limit."""

from __future__ import annotations

import copy
import json
from typing import Any

from romme.engine.actions import Discard, Draw, NextRound
from romme.engine.game import Game, Phase
from romme.engine.reference import reference_action
from romme.engine.rules import Rules
from romme.server.app import WEB_DIR
from tests.web.conftest import PHONE, shot
from tests.web.ui import login_guest, register


def round_over_view() -> dict[str, Any]:
    game = Game.start(Rules.classic(point_limit=50), seats=3, seed=bytes(32))
    while game.phase in (Phase.DRAW, Phase.PLAY):
        action = reference_action(game.view_for(game.current))
        assert action is not None
        game.apply(action)
    assert game.phase is Phase.ROUND_OVER
    view: dict[str, Any] = game.view_for(0).to_json()
    return view


def over_the_limit(view: dict[str, Any]) -> dict[str, Any]:
    """The same round over, with seat 0 over the limit of 50 and out of the game."""
    out = copy.deepcopy(view)
    out["active"][0] = False
    out["results"][-1]["eliminated"] = [0]
    out["results"][-1]["totals"][0] = 61
    return out


def show(
    page: Any,
    view: dict[str, Any],
    table_id: int,
    settings: dict[str, Any] | None = None,
    seats: list[dict[str, Any]] | None = None,
    my_seat: int | None = 0,
    waiting_for: tuple[int, ...] = (0,),
) -> None:
    table = {
        "id": table_id,
        "host": "Sam",
        "status": "playing",
        "my_seat": my_seat,
        "version": 5,
        "settings": settings
        or {"preset": "classic", "point_limit": 50, "seats": 3, "turn_seconds": 30},
        "seats": seats
        or [
            {"seat": 0, "nickname": "Sam", "bot": None, "connected": True, "away": False},
            {"seat": 1, "nickname": None, "bot": "casual", "connected": True, "away": False},
            {"seat": 2, "nickname": None, "bot": "strong", "connected": True, "away": False},
        ],
        "view": view,
        "timer": None,
        "next_round": {"waiting_for": list(waiting_for), "deadline": 0},
        "chat": [],
    }
    page.evaluate(
        "(t) => { window.__romme.tables.set(t.id, t); window.__romme.openTable(t.id); }", table
    )
    page.wait_for_selector("#summary")


def test_next_and_exit_between_rounds(server: str, new_context: Any) -> None:
    page = new_context("summary")
    login_guest(page, server, "Sam")
    view = round_over_view()
    result = view["results"][-1]

    show(page, view, 9001)
    rows = page.locator("#summary tbody tr")
    assert rows.count() == 3
    for seat in range(3):
        assert str(result["totals"][seat]) in rows.nth(seat).inner_text()
    assert page.locator("#summary-next").is_enabled()
    assert page.locator("#summary-exit").count() == 0
    shot(page, "summary-next")

    # Seat 0 went over the limit: a red cross over the name, and "Exit".
    page.evaluate("window.__romme.openLobby()")
    page.wait_for_selector("#new-game")
    show(page, over_the_limit(view), 9002)
    assert page.locator("#summary tbody tr").first.locator(".red-cross").count() == 1
    assert page.locator("#summary-next").count() == 0
    page.set_viewport_size(PHONE)
    shot(page, "summary-eliminated-phone")
    page.click("#summary-exit")
    page.wait_for_selector("#new-game")


def stalled_view() -> dict[str, Any]:
    """A round the engine ended because nobody drew from the stock for 4 turns."""
    game = Game.start(Rules.classic(point_limit=50, stall_turns=4), seats=3, seed=bytes(32))
    while game.phase is not Phase.ROUND_OVER:
        seat = game.current
        game.apply(Draw(seat, "discard"))
        taken = game.turn.drew_from_discard
        game.apply(Discard(seat, next(c for c in game.hands[seat] if c != taken)))
    view: dict[str, Any] = game.view_for(0).to_json()
    assert view["results"][-1]["ended"] == "stall"
    return view


def test_a_stalled_round_says_why_nobody_scores(server: str, new_context: Any) -> None:
    page = new_context("summary-stalled")
    login_guest(page, server, "Stella")
    show(page, stalled_view(), 9003)
    text = page.locator(".summary-sub").inner_text()
    catalog = json.loads((WEB_DIR / "locales" / "en.json").read_text())
    assert text == catalog["summary.stalled"]["other"].replace("{n}", "4")
    assert page.locator("#summary-next").is_enabled()


def three_rounds_view() -> dict[str, Any]:
    """The second round over in three-rounds: scores are minus the penalties."""
    game = Game.start(Rules.three_rounds(), seats=4, seed=bytes(32))
    while len(game.results) < 2 or game.phase is not Phase.ROUND_OVER:
        if game.phase is Phase.ROUND_OVER:
            game.apply(NextRound())
            continue
        action = reference_action(game.view_for(game.current))
        assert action is not None
        game.apply(action)
    view: dict[str, Any] = game.view_for(0).to_json()
    return view


def cells(page: Any, seat: int) -> tuple[str, str]:
    row = page.locator("#summary tbody tr").nth(seat)
    return row.locator("td.penalty").inner_text(), row.locator("td.total").inner_text()


def test_one_sign_convention_in_seats_and_summary(server: str, new_context: Any) -> None:
    page = new_context("summary-signs")
    login_guest(page, server, "Signe")
    # Classic: penalty points count up; the penalty and the total carry no minus.
    view = round_over_view()
    show(page, view, 9004)
    result = view["results"][-1]
    loser = next(s for s in range(3) if result["penalties"][s])
    assert cells(page, loser) == (str(result["penalties"][loser]), str(result["totals"][loser]))
    page.evaluate("window.__romme.openLobby()")
    page.wait_for_selector("#new-game")
    # Three rounds: a score is minus the penalties, the same in the seats and the summary.
    view = three_rounds_view()
    seats = [
        {"seat": s, "nickname": None, "bot": "casual", "connected": True, "away": False}
        for s in range(4)
    ]
    seats[0] = {"seat": 0, "nickname": "Signe", "bot": None, "connected": True, "away": False}
    show(
        page,
        view,
        9005,
        settings={"preset": "three-rounds", "seats": 4, "turn_seconds": 30},
        seats=seats,
    )
    result = view["results"][-1]
    for seat in range(1, 4):
        penalty, score = cells(page, seat)
        total = result["totals"][seat]
        assert penalty == str(result["penalties"][seat])
        assert score == (f"−{total}" if total else "0")
        assert page.inner_text(f"#seat-{seat} .points").startswith(score)
    assert page.inner_text("#me-label .points").startswith(cells(page, 0)[1])


def test_a_new_player_is_rated_1500(server: str, new_context: Any) -> None:
    page = new_context("rating-new")
    register(page, server, "Neuling", "ein-langes-passwort")
    assert page.inner_text("#me-rating") == "★ 1500"
    assert page.inner_text("#player-list li:has-text('Neuling') .rating") == "★ 1500"
    page.click("#player-list .player-link:has-text('Neuling')")
    assert page.inner_text("#info-rating") == "1500"
