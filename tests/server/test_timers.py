"""Turn timers and the away takeover on a real server with a fast clock, and the
helpers that open a knock window there. The knock race and the held draw are shown
exactly, on a manual clock, in ``tests/server/table/test_knock.py``."""

from __future__ import annotations

import time

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, create_table

pytestmark = pytest.mark.asyncio


async def test_timeouts_autoplay_then_a_bot_takes_over_until_back(
    make_server: ServerFactory,
) -> None:
    server = make_server(time_scale=30)  # a 15 s turn lasts half a second
    a = await (await Client(server, nickname("ta")).guest()).connect()
    # A high limit: the beginner may go out before the third timeout, and the
    # doubled penalty of a hand rummy could otherwise end the match there.
    table = await create_table(
        a, seats=2, bots={"1": "beginner"}, point_limit=1000, turn_seconds=15
    )
    sent_ms = int(time.time() * 1000)
    await a.request({"type": "start_game", "table": table})
    first = await a.expect("update", lambda m: m["version"] == 1)
    received_ms = int(time.time() * 1000)
    timer = first["timer"]
    assert timer["seat"] == 0 and timer["seconds"] == 15
    # 15 s of game time at scale 30: the deadline is half a second after the deal.
    assert sent_ms + 450 <= timer["deadline"] <= received_ms + 550
    # Nobody moves: the server draws and discards for seat 0, three times in a row ...
    away = await a.expect("seat_update", lambda m: m["seats"][0]["away"], timeout=15)
    assert away["seats"][0]["nickname"] == a.nickname

    def discards() -> int:
        return sum(
            1
            for m in a.messages
            if m["type"] == "update"
            for e in m["events"]
            if e["type"] == "discarded" and e["seat"] == 0
        )

    # The third timeout is played out, then a computer opponent plays seat 0.
    await a.expect("update", lambda m: discards() >= 4, timeout=10)
    count = len(a.messages)
    # The player is back: the seat is theirs again.
    assert (await a.request({"type": "back", "table": table}))["type"] == "ok"
    seats = await a.expect("seat_update", lambda m: not m["seats"][0]["away"], start=count)
    assert seats["seats"][0]["connected"] is True
    await a.close()


async def _four_at_a_knock_table(
    server_scale: float, make_server: ServerFactory
) -> tuple[list[Client], int]:
    server = make_server(time_scale=server_scale)
    clients = [await (await Client(server, nickname(f"k{i}")).guest()).connect() for i in range(4)]
    table = await create_table(clients[0], seats=4, knock=True, point_limit=100, turn_seconds=60)
    for client in clients[1:]:
        await client.request({"type": "join_table", "table": table})
    await clients[0].request({"type": "start_game", "table": table})
    for client in clients:
        await client.expect("update", lambda m: m["version"] == 1)
    return clients, table


async def open_knock_window(first: Client, table: int) -> None:
    """Seat 0 draws and discards: the knock window opens for seats 2 and 3, and
    seat 1 is next."""
    await first.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    card = first.tables[table]["view"]["hand"][0]
    await first.request(
        {"type": "action", "table": table, "action": {"type": "discard", "card": card}}
    )
