"""Resync after missed updates, and a table rebuilt from its log after a restart,
driven in-process: the missed updates come back exactly, a rebuilt table's turn
deadline resumes from the last stored action and its timeouts are counted again."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from romme.server.config import ServerOptions
from romme.server.table import TableActor
from romme.server.timers import ManualClock
from romme.store import Store

from .harness import TableBench, bench_options, draw_and_discard, play_turns

pytestmark = pytest.mark.asyncio


async def _two_players(bench: TableBench) -> TableActor:
    table = await bench.open(2, seats=2, turn_seconds=15)
    await bench.start()
    return table


async def _resync(table: TableActor, conn: Any, since: int | None) -> list[dict[str, Any]]:
    count = len(conn.messages)
    await table.call(table.resync, conn, since, "again")
    sent: list[dict[str, Any]] = conn.messages[count:]
    return sent


async def test_resync_sends_exactly_the_missed_updates(bench: TableBench) -> None:
    table = await _two_players(bench)
    await play_turns(bench, 3)
    ben = bench.players[1]
    since = table.version - 4
    sent = await _resync(table, ben, since)
    assert [m["type"] for m in sent] == ["update"] * 4
    assert [m["version"] for m in sent] == list(range(since + 1, table.version + 1))
    # The same events as the first time; the view and the id only on the last one.
    first_time = {m["version"]: m for m in ben.of_type("update")[: -len(sent)]}
    for again in sent:
        assert again["events"] == first_time[again["version"]]["events"]
    assert all(m["view"] is None and "id" not in m for m in sent[:-1])
    assert sent[-1]["id"] == "again" and sent[-1]["view"]["seat"] == 1
    assert sent[-1]["view"] == first_time[table.version]["view"]
    # Seat 1 still does not see the card seat 0 drew from the stock.
    drawn = [e for m in sent for e in m["events"] if e["type"] == "drew" and e["seat"] == 0]
    assert drawn and all(e["card"] is None for e in drawn)


async def test_resync_sends_the_table_when_updates_are_gone(
    store: Store, clock: ManualClock
) -> None:
    bench = TableBench(store, clock, bench_options(resync_buffer=2))
    try:
        table = await _two_players(bench)
        await play_turns(bench, 2)
        ben = bench.players[1]
        for since in (table.version - 3, None, table.version + 1):
            sent = await _resync(table, ben, since)
            assert [m["type"] for m in sent] == ["table"], since
            assert sent[0]["id"] == "again" and sent[0]["table"]["version"] == table.version
        # Within the buffer, the updates; nothing missed: the table.
        assert [m["type"] for m in await _resync(table, ben, table.version - 2)] == ["update"] * 2
        assert [m["type"] for m in await _resync(table, ben, table.version)] == ["table"]
    finally:
        await bench.close()


async def test_a_rebuilt_table_resumes_its_deadline_and_timeouts(bench: TableBench) -> None:
    table = await _two_players(bench)
    turn_ms = 15_000
    for count in (1, 2):
        game = table.game
        assert game is not None
        if game.current != 0:
            await draw_and_discard(bench, game.current)
        await bench.advance(turn_ms / 1000)
        assert table.seats[0].timeouts == count
    game = table.game
    assert game is not None
    if game.current != 0:
        await draw_and_discard(bench, game.current)
    last_action_ms = bench.clock.now_ms()
    # The server stops 4 s into seat 0's turn and comes back 10 s later.
    await bench.advance(4)
    await table.stop()
    bench.clock.advance(10_000)
    record = await bench.store.get_table(table.id)
    assert record is not None
    rebuilt = TableActor.from_record(bench.host, record, table.host)
    bench.table = rebuilt
    rebuilt.start()
    await rebuilt.call(rebuilt.resume)
    assert rebuilt.version == table.version
    assert [s.timeouts for s in rebuilt.seats] == [2, 0]
    assert not rebuilt.seats[0].away
    timer = rebuilt.timer_json()
    assert timer is not None and timer["seat"] == 0
    assert timer["start"] == last_action_ms and timer["deadline"] == last_action_ms + turn_ms
    # One second is left of the turn: then the third timeout makes seat 0 away.
    await bench.advance(0.999)
    assert rebuilt.version == table.version
    await bench.advance(0.001)
    assert rebuilt.seats[0].away and rebuilt.seats[0].timeouts == 3


async def test_the_next_round_waits_for_the_players_or_the_deadline(
    store: Store, clock: ManualClock
) -> None:
    options: ServerOptions = bench_options()
    bench = TableBench(store, clock, options)
    try:
        table = await bench.open(1, seats=2, bots={"1": "beginner"}, point_limit=1000)
        await bench.start()
        # The player draws and discards until the computer opponent goes out.
        for _ in range(200):
            game = table.game
            assert game is not None
            if not game.in_round:
                break
            await draw_and_discard(bench, 0)
        game = table.game
        assert game is not None and not game.in_round and not game.is_over
        summary = table.next_round_json()
        assert summary is not None and summary["waiting_for"] == [0]
        assert summary["deadline"] == clock.now_ms() + int(options.next_round_seconds * 1000)
        round_no, version = game.round_no, table.version
        await bench.advance(options.next_round_seconds - 0.001)
        assert table.game is not None and table.game.round_no == round_no
        await bench.advance(0.001)
        assert table.game is not None and table.game.round_no == round_no + 1
        assert table.actions[version] == {"type": "next_round", "by": "table"}
    finally:
        await bench.close()


async def test_a_log_that_does_not_replay_is_an_alarm(bench: TableBench) -> None:
    """A restored table replays its log in its own task (lazily, after the node
    answers): a log it cannot replay takes the table out of memory, reported to
    its host, and stores nothing."""
    table = await _two_players(bench)
    await play_turns(bench, 2)
    await table.stop()
    record = await bench.store.get_table(table.id)
    assert record is not None
    bogus = dataclasses.replace(record, actions=[*record.actions, record.actions[-1]])
    rebuilt = TableActor.from_record(bench.host, bogus, table.host)
    assert not rebuilt.replayed and rebuilt.version == len(bogus.actions)
    rebuilt.start(on_first_use=True)
    rebuilt.post(rebuilt.resume)
    await rebuilt.call(asyncio.sleep, 0)  # the first use wakes the table
    assert bench.host.gone == [table.id] and rebuilt.game is None
    assert (await bench.store.get_table(table.id)) == record
    await rebuilt.stop()
