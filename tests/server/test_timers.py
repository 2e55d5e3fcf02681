"""Turn timers, the away takeover and the knock race, with fast clocks."""

from __future__ import annotations

import asyncio
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
    table = await create_table(a, seats=2, bots={"1": "beginner"}, point_limit=100, turn_seconds=15)
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


async def test_the_first_knock_wins_and_the_next_draw_waits(make_server: ServerFactory) -> None:
    # Knock window 3 s at scale 1: time enough for both knocks, even on a busy machine.
    clients, table = await _four_at_a_knock_table(1, make_server)
    s0, s1, s2, s3 = clients
    await s0.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    card = s0.tables[table]["view"]["hand"][0]
    start = [len(c.messages) for c in clients]
    discarded = await s0.request(
        {"type": "action", "table": table, "action": {"type": "discard", "card": card}}
    )
    assert discarded["timer"]["knock"]["seats"] == [2, 3]
    opened_at = time.monotonic()
    # Seat 1 draws at once: held until the window closes (or a knock takes the turn).
    await s1.send(
        {
            "type": "action",
            "table": table,
            "id": "held",
            "action": {"type": "draw", "source": "stock"},
        }
    )
    await asyncio.sleep(0.05)
    # Seats 2 and 3 knock at the same moment: exactly one wins.
    await asyncio.gather(
        s2.send({"type": "action", "table": table, "id": "k2", "action": {"type": "knock"}}),
        s3.send({"type": "action", "table": table, "id": "k3", "action": {"type": "knock"}}),
    )
    answers = [
        await s2.expect(None, lambda m: m.get("id") == "k2", start=start[2]),
        await s3.expect(None, lambda m: m.get("id") == "k3", start=start[3]),
    ]
    kinds = sorted(a["type"] for a in answers)
    assert kinds == ["error", "update"], answers
    winner = 2 if answers[0]["type"] == "update" else 3
    loser_error = answers[1] if winner == 2 else answers[0]
    assert loser_error["code"] == "no_knock_window"
    knocked = next(e for e in answers[winner - 2]["events"] if e["type"] == "knocked")
    assert knocked["seat"] == winner and knocked["card"] == card
    assert len(knocked["drawn"]) == 2
    assert time.monotonic() - opened_at < 3.0
    # The others see the knock without the two stock cards.
    for index, client in enumerate(clients):
        if index == winner:
            continue
        update = await client.expect(
            "update", lambda m: any(e["type"] == "knocked" for e in m["events"]), start=start[index]
        )
        event = next(e for e in update["events"] if e["type"] == "knocked")
        assert event["drawn"] is None
    # The held draw of seat 1 lost the race.
    held = await s1.expect(None, lambda m: m.get("id") == "held", start=start[1])
    assert held["type"] == "error" and held["code"] == "not_your_turn"
    for client in clients:
        await client.close()


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


async def test_a_draw_during_the_knock_window_is_held_not_refused(
    make_server: ServerFactory,
) -> None:
    clients, table = await _four_at_a_knock_table(2, make_server)  # window: 1.5 s
    s0, s1 = clients[0], clients[1]
    await open_knock_window(s0, table)
    sent = time.monotonic()
    drew = await s1.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    waited = time.monotonic() - sent
    assert drew["type"] == "update" and drew["events"][0]["type"] == "drew"
    assert 0.3 <= waited <= 5.0
    # Too late to knock now.
    late = await clients[2].request({"type": "action", "table": table, "action": {"type": "knock"}})
    assert late["type"] == "error" and late["code"] in ("no_knock_window", "knock_closed")
    for client in clients:
        await client.close()
