"""The moves the turn clock makes are marked as such, and a client that comes to the
table later gets the real time of each of the round's earlier moves: on a real server
with a fast clock, a player who does not move and a spectator who joins afterwards."""

from __future__ import annotations

import time

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, create_table

pytestmark = pytest.mark.asyncio


async def test_the_clocks_moves_are_marked_and_timed(make_server: ServerFactory) -> None:
    server = make_server(time_scale=30)  # a 15 s turn lasts half a second
    a = await (await Client(server, nickname("tm")).guest()).connect()
    table = await create_table(
        a, seats=2, bots={"1": "beginner"}, point_limit=1000, turn_seconds=15
    )
    await a.request({"type": "start_game", "table": table})
    # Seat 0 does not move: the clock draws and discards for it, and says so.
    timed = await a.expect("update", lambda m: m.get("by") == "timeout", timeout=15)
    timed_ms = int(time.time() * 1000)
    assert timed["events"] and timed["events"][0]["seat"] == 0
    discard = await a.expect(
        "update",
        lambda m: any(e["type"] == "discarded" and e["seat"] == 0 for e in m["events"]),
        timeout=15,
    )
    assert discard.get("by") == "timeout"
    # The computer opponent's moves are its own: no mark.
    bot = await a.expect(
        "update",
        lambda m: any(e["type"] == "discarded" and e["seat"] == 1 for e in m["events"]),
        timeout=15,
    )
    assert "by" not in bot
    assert all(
        "by" not in m
        for m in a.messages
        if m["type"] == "update" and any(e.get("seat") == 1 for e in m["events"][:1])
    )

    # A spectator who comes now gets each earlier move of the round with its time.
    w = await (await Client(server, nickname("tw")).guest()).connect()
    reply = await w.request({"type": "watch_table", "table": table})
    # The game plays on meanwhile (half a second a turn): moves made while the
    # request travelled are in the answer too, so the bound is the answer's arrival.
    joined_ms = int(time.time() * 1000)
    assert reply["type"] == "table", reply
    seen = reply["table"]
    history, meta = seen["view"]["history"], seen["history_meta"]
    assert len(meta) == len(history) >= 4, (history, meta)
    assert all(isinstance(m["at"], int) and m["at"] <= joined_ms for m in meta), meta
    assert [m["at"] for m in meta] == sorted(m["at"] for m in meta)
    # The clock's draw came at about the time its update arrived, well before the join.
    first = meta[0]
    assert history[0]["seat"] == 0 and first.get("by") == "timeout"
    assert timed_ms - 2000 <= first["at"] <= timed_ms + 50
    marked = [h["seat"] for h, m in zip(history, meta, strict=True) if m.get("by") == "timeout"]
    assert marked and set(marked) == {0}
    assert all("by" not in m for h, m in zip(history, meta, strict=True) if h["seat"] == 1)
    await w.close()
    await a.close()
