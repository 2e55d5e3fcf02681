"""Turn deadlines, timeouts, the away takeover and coming back, driven
in-process on a manual clock: every deadline is checked to the millisecond."""

from __future__ import annotations

import pytest

from romme.engine.game import Game

from .harness import TableBench, draw_and_discard

pytestmark = pytest.mark.asyncio

TURN_MS = 15_000


def _game(bench: TableBench) -> Game:
    game = bench.actor.game
    assert game is not None
    return game


async def _until_turn_of(bench: TableBench, seat: int) -> None:
    """The other player moves (by hand) until it is ``seat``'s turn."""
    game = _game(bench)
    for _ in range(4):
        if game.current == seat:
            return
        await draw_and_discard(bench, game.current)
    raise AssertionError("the turn never came")


def _moves_of(bench: TableBench, seat: int, by: str | None) -> int:
    return sum(1 for r in bench.actor.actions if r.get("seat") == seat and r.get("by") == by)


async def test_a_turn_times_out_exactly_at_its_deadline(bench: TableBench) -> None:
    table = await bench.open(2, seats=2, turn_seconds=15)
    await bench.start()
    await _until_turn_of(bench, 0)
    timer = table.timer_json()
    assert timer is not None and timer["seat"] == 0 and timer["seconds"] == 15
    assert timer["deadline"] == timer["start"] + TURN_MS
    version = table.version
    bench.clock.advance(timer["deadline"] - bench.clock.now_ms() - 1)
    await bench.settle()
    assert table.version == version  # one millisecond before: nothing
    await bench.advance(0.001)
    # The server drew and discarded for seat 0, marked as a timeout.
    assert [r["type"] for r in table.actions[version:]] == ["draw", "discard"]
    assert all(r["by"] == "timeout" for r in table.actions[version:])
    assert table.seats[0].timeouts == 1 and not table.seats[0].away
    assert _game(bench).current == 1


async def test_three_timeouts_hand_the_seat_to_a_bot_until_the_player_is_back(
    bench: TableBench,
) -> None:
    table = await bench.open(2, seats=2, turn_seconds=15)
    await bench.start()
    away_at = table.rules.timeouts_before_away
    for count in range(1, away_at + 1):
        await _until_turn_of(bench, 0)
        await bench.advance(TURN_MS / 1000)
        assert table.seats[0].timeouts == count
    assert table.seats[0].away
    ana = bench.players[0]
    away = [m for m in ana.of_type("seat_update") if m["seats"][0]["away"]]
    assert len(away) == 1
    # A computer opponent plays seat 0 now, at once: no deadline passes.
    await _until_turn_of(bench, 1)
    before = _moves_of(bench, 0, "bot")
    await draw_and_discard(bench, 1)
    assert _moves_of(bench, 0, "bot") > before
    assert _game(bench).current == 1
    # The player says it is back: the seat is its own again.
    count = len(ana.messages)
    await table.call(table.back, ana)
    assert not table.seats[0].away and table.seats[0].timeouts == 0
    back = [m for m in ana.messages[count:] if m["type"] == "seat_update"]
    assert back and not back[-1]["seats"][0]["away"] and back[-1]["seats"][0]["connected"]
    played = _moves_of(bench, 0, "bot")
    await draw_and_discard(bench, 1)
    assert _game(bench).current == 0  # the player's turn again, and no bot moves
    assert _moves_of(bench, 0, "bot") == played


async def test_a_move_of_the_player_resets_its_timeouts(bench: TableBench) -> None:
    table = await bench.open(2, seats=2, turn_seconds=15)
    await bench.start()
    await _until_turn_of(bench, 0)
    await bench.advance(TURN_MS / 1000)
    assert table.seats[0].timeouts == 1
    await _until_turn_of(bench, 0)
    await draw_and_discard(bench, 0)
    assert table.seats[0].timeouts == 0


async def test_a_level_between_two_named_ones_plays_and_is_rated(bench: TableBench) -> None:
    """A seat of ``casual+50`` (Play now's kind of opponent) plays its turns
    and the game is rated for its own account."""
    table = await bench.open(1, seats=2, bots={"1": "casual+50"}, point_limit=1)
    assert table.seats[1].bot == "casual+50"
    await bench.start()
    game = _game(bench)
    for _ in range(200):
        if game.is_over:
            break
        await draw_and_discard(bench, 0)
    assert game.is_over and _moves_of(bench, 1, "bot") > 2
    info = await bench.store.player_info("Bot casual+50")
    assert info is not None and info["games_played"] == 1
