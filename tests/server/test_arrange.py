"""Sorting one's hand (``arrange``) is coalesced, on a real server over SQLite and
PostgreSQL (docs/protocol.md): a seat that sorts again and again before anyone
moves keeps one stored arrange, its latest order, and nobody else hears of the
sorts after the first; the log still rebuilds the game exactly after a crash.
Before, each of 1,000 arranges was stored and sent to the opponent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .fuzz import SERVER_OPTIONS
from .helpers import Client, create_table

pytestmark = pytest.mark.asyncio

SORTS = 300


async def _arrange_burst(client: Client, table: int, orders: list[list[str]], tag: str) -> Any:
    """Send every order as fast as the socket takes them, then wait for the
    replies; the last reply."""
    assert client.ws is not None
    start = len(client.messages)
    for index, order in enumerate(orders):
        message = {
            "type": "action",
            "table": table,
            "id": f"{tag}{index}",
            "action": {"type": "arrange", "cards": order},
        }
        await client.ws.send(json.dumps(message))
    ids = [f"{tag}{index}" for index in range(len(orders))]
    await client.expect(None, lambda m: m.get("id") == ids[-1], start=start, timeout=60)
    by_id = {m.get("id"): m for m in client.messages[start:] if m.get("id") in ids}
    replies = [by_id[msg_id] for msg_id in ids]
    assert all(r["type"] == "update" for r in replies), [
        r for r in replies if r["type"] != "update"
    ]
    return replies[-1]


async def _settled(client: Client) -> int:
    """How many messages the client has once a ping sent now is answered (the
    server sends in order: nothing sent before is still on its way)."""
    pong = await client.request({"type": "ping"}, timeout=20)
    assert pong["type"] == "pong"
    return len(client.messages)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_arranges_are_coalesced_and_survive_a_crash(
    make_server: ServerFactory, backend: str
) -> None:
    first = make_server(backend, time_scale=1, extra=SERVER_OPTIONS)
    a = await (await Client(first, nickname("aa")).guest()).connect()
    b = await (await Client(first, nickname("ab")).guest()).connect()
    table = await create_table(a, seats=2, turn_seconds=120)
    await b.request({"type": "join_table", "table": table})
    await a.request({"type": "start_game", "table": table})
    for client in (a, b):
        await client.expect("update", lambda m: m["table"] == table and m["version"] == 1)
    hand = a.tables[table]["view"]["hand"]
    b_hand = b.tables[table]["view"]["hand"]
    orders = [hand[::-1] if i % 2 else hand[1:] + hand[:1] for i in range(SORTS)]

    b_seen, b_bytes = await _settled(b), sum(map(len, b.raw))
    last = await _arrange_burst(a, table, orders, "s")
    assert last["version"] == 2, last
    assert last["view"]["hand"] == orders[-1]
    assert a.tables[table]["version"] == 2
    assert a.tables[table]["view"]["hand"] == orders[-1]
    # The opponent heard of the first sort only (an update without events).
    told = [m for m in b.messages[b_seen : await _settled(b)] if m.get("type") == "update"]
    assert [(m["version"], m["events"]) for m in told] == [(2, [])], told
    assert sum(map(len, b.raw)) - b_bytes < 20_000
    # An order that is not the hand is refused and replaces nothing.
    refused = await a.request(
        {"type": "action", "table": table, "action": {"type": "arrange", "cards": hand[:-1]}}
    )
    assert refused["type"] == "error" and refused["code"] == "not_your_hand", refused

    # Both seats sort before anyone moves: one stored arrange each, the latest.
    b_orders = [b_hand[::-1], b_hand, b_hand[::-1]]
    assert (await _arrange_burst(b, table, b_orders[:1], "b"))["version"] == 3
    assert (await _arrange_burst(a, table, [hand], "t"))["version"] == 3
    assert (await _arrange_burst(b, table, b_orders[1:], "c"))["version"] == 3
    await _settled(a)
    before = {c.nickname: dict(c.tables[table]) for c in (a, b)}
    assert before[a.nickname]["view"]["hand"] == hand
    assert before[b.nickname]["view"]["hand"] == b_orders[-1]
    assert before[a.nickname]["version"] == before[b.nickname]["version"] == 3

    # A crash: the new server rebuilds the game from the log, the latest orders in it.
    first.kill()
    second = make_server(db_url=first.db_url, time_scale=1, extra=SERVER_OPTIONS)
    for client in (a, b):
        client.server = second
        client.http = httpx.AsyncClient(base_url=second.base, cookies=client.http.cookies)
        start = len(client.messages)
        await client.connect()
        after = (await client.expect("table", start=start))["table"]
        old = before[client.nickname]
        assert after["version"] == old["version"] == 3
        assert after["view"] == old["view"]

    # After a move, the next sort is a new version again, told to the other seat.
    mover = a if a.tables[table]["view"]["current"] == 0 else b
    other = b if mover is a else a
    drew = await mover.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    assert drew["type"] == "update" and drew["version"] == 4, drew
    drawn = mover.tables[table]["view"]["hand"]
    seen = await _settled(other)
    last = await _arrange_burst(mover, table, [drawn[::-1], drawn, drawn[::-1]], "m")
    assert last["version"] == 5 and last["view"]["hand"] == drawn[::-1]
    told = [m for m in other.messages[seen : await _settled(other)] if m.get("type") == "update"]
    assert [m["version"] for m in told] == [5], told
    for client in (a, b):
        await client.close()
    assert "Traceback" not in second.logs()
    await asyncio.sleep(0)
