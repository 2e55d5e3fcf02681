"""The knock window, driven in-process on a manual clock: the first knock wins, a
draw made while the window is open waits for it to close (or loses to a knock).
No wall-clock time passes: the window stays open until the test moves the clock."""

from __future__ import annotations

import asyncio

import pytest

from romme.engine.errors import EngineError
from romme.server.errors import ProtocolError

from .harness import TableBench, draw_and_discard

pytestmark = pytest.mark.asyncio


async def open_window(bench: TableBench) -> tuple[int, tuple[int, ...]]:
    """A four-seat knock game in which the first player drew and discarded: the
    knock window is open. Returns the seat to move next and the seats that may knock."""
    table = await bench.open(4, seats=4, knock=True, turn_seconds=60)
    await bench.start()
    game = table.game
    assert game is not None
    first = game.current
    await bench.act(first, {"type": "draw", "source": "stock"})
    card = str(game.view_for(first).hand[0])
    await bench.act(first, {"type": "discard", "card": card})
    knockers = game.knock_seats()
    assert len(knockers) >= 2
    timer = table.timer_json()
    assert timer is not None and timer["knock"] is not None
    assert timer["knock"]["seats"] == list(knockers)
    # The window ends after the rules' seconds; the next turn begins then.
    window_ms = int(table.rules.knock_window_seconds * 1000)
    assert timer["knock"]["deadline"] == bench.clock.now_ms() + window_ms
    assert timer["start"] == timer["knock"]["deadline"]
    return game.current, knockers


async def test_the_first_knock_wins_and_the_held_draw_loses(bench: TableBench) -> None:
    following, knockers = await open_window(bench)
    players = bench.players
    # The next player draws at once: held, unanswered, while the window is open.
    await bench.act(following, {"type": "draw", "source": "stock"}, "held")
    assert not [m for m in players[following].messages if m.get("id") == "held"]
    # Two knocks arrive together: the table takes them one after the other.
    first, second = knockers[0], knockers[1]
    results = await asyncio.gather(
        bench.act(first, {"type": "knock"}, "k1"),
        bench.act(second, {"type": "knock"}, "k2"),
        return_exceptions=True,
    )
    assert results[0] is None
    assert isinstance(results[1], EngineError) and results[1].code == "no_knock_window"
    won = players[first].reply("k1")
    knocked = next(e for e in won["events"] if e["type"] == "knocked")
    assert knocked["seat"] == first and len(knocked["drawn"]) == 2
    # The others see the knock, but not the two stock cards it took.
    for seat, conn in enumerate(players):
        if seat != first:
            seen = [
                e for m in conn.of_type("update") for e in m["events"] if e["type"] == "knocked"
            ]
            assert len(seen) == 1 and seen[0]["drawn"] is None
    # The held draw lost the race to the knock.
    held = players[following].reply("held")
    assert held["type"] == "error" and held["code"] == "not_your_turn"
    game = bench.actor.game
    assert game is not None and game.current == first
    assert bench.clock.now_ms() == 1_800_000_000_000  # no time passed at all


async def test_a_draw_in_the_window_is_played_when_it_closes(bench: TableBench) -> None:
    following, knockers = await open_window(bench)
    conn = bench.players[following]
    version = bench.actor.version
    await bench.act(following, {"type": "draw", "source": "stock"}, "held")
    window_ms = int(bench.actor.rules.knock_window_seconds * 1000)
    bench.clock.advance(window_ms - 1)
    await bench.settle()
    assert not [m for m in conn.messages if m.get("id") == "held"]
    assert bench.actor.version == version
    await bench.advance(0.001)
    drew = conn.reply("held")
    assert drew["type"] == "update" and drew["version"] == version + 1
    assert drew["events"][0]["type"] == "drew" and drew["events"][0]["seat"] == following
    # The turn began when the window closed; the discard is no longer there to take.
    assert drew["timer"]["knock"] is None and drew["timer"]["seat"] == following
    assert drew["timer"]["start"] == bench.clock.now_ms()
    with pytest.raises(EngineError) as late:
        await bench.act(knockers[0], {"type": "knock"})
    assert late.value.code == "no_knock_window"


async def test_a_knock_after_the_window_closed_is_too_late(bench: TableBench) -> None:
    _, knockers = await open_window(bench)
    await bench.advance(bench.actor.rules.knock_window_seconds)
    with pytest.raises(ProtocolError) as late:
        await bench.act(knockers[0], {"type": "knock"}, "late")
    assert late.value.code == "knock_closed"


async def test_a_second_held_draw_is_refused(bench: TableBench) -> None:
    following, _ = await open_window(bench)
    await bench.act(following, {"type": "draw", "source": "stock"}, "first")
    with pytest.raises(ProtocolError) as again:
        await bench.act(following, {"type": "draw", "source": "stock"}, "second")
    assert again.value.code == "draw_pending"


async def test_a_window_only_computer_opponents_may_knock_in_closes_once_they_pass(
    bench: TableBench,
) -> None:
    # Two people at seats 0 and 1, two computer opponents that do not knock here.
    table = await bench.open(
        2, seats=4, knock=True, turn_seconds=60, bots={"2": "beginner", "3": "beginner"}
    )
    await bench.start()
    game = table.game
    assert game is not None
    for _ in range(12):  # on to a turn of seat 0, whose next player is seat 1
        if game.current == 0:
            break
        await draw_and_discard(bench, game.current) if game.current == 1 else await bench.settle()
    assert game.current == 0
    started = bench.clock.now_ms()
    await bench.act(0, {"type": "draw", "source": "stock"})
    await bench.act(0, {"type": "discard", "card": str(game.view_for(0).hand[0])})
    assert set(game.knock_seats()) == {2, 3}
    await bench.settle()  # the two computer opponents pass at once
    assert not table.knock_window.running
    await bench.act(1, {"type": "draw", "source": "stock"}, "at once")
    reply = bench.players[1].reply("at once")
    assert reply["type"] == "update" and game.current == 1 and game.phase.value == "play"
    assert bench.clock.now_ms() == started  # no time passed: nothing waited for the window
