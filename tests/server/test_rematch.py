"""The rematch at game over: everyone who played says yes and a new table starts
with the same seats and settings; a no (or the time running out) ends the offer."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out

pytestmark = pytest.mark.asyncio


async def _finished_game(server: ServerProcess, **settings: Any) -> tuple[Client, Client, int]:
    a = await Client(server, nickname("ra")).guest()
    b = await Client(server, nickname("rb")).guest()
    await a.connect()
    await b.connect()
    table = await create_table(a, point_limit=1, **settings)
    await b.request({"type": "join_table", "table": table})
    await a.request({"type": "start_game", "table": table})
    await play_out([Autoplayer(a, table), Autoplayer(b, table)], timeout=90)
    await a.expect("game_over")
    await b.expect("game_over")
    return a, b, table


async def test_rematch_accepted_by_all_starts_the_same_table_again(
    make_server: ServerFactory,
) -> None:
    server = make_server(time_scale=10, extra=["--accounts-per-hour", "0"])
    a, b, old = await _finished_game(server, seats=3, bots={"2": "strong"}, turn_seconds=45)

    early = await a.request({"type": "rematch", "table": old, "accept": False})
    assert early["code"] == "nothing_to_do"
    offer = await b.request({"type": "rematch", "table": old, "accept": True})
    assert offer["type"] == "ok"
    seen = await a.expect("rematch", lambda m: m["table"] == old)
    assert seen["rematch"]["status"] == "open"
    assert seen["rematch"]["accepted"] == [1] and seen["rematch"]["waiting_for"] == [0]
    resync = await a.request({"type": "resync", "table": old})
    assert resync["table"]["rematch"]["status"] == "open"

    await a.request({"type": "rematch", "table": old, "accept": True})
    started = await a.expect("rematch", lambda m: m["rematch"]["table"] is not None)
    new = started["rematch"]["table"]
    assert new != old and started["rematch"]["status"] == "accepted"
    for client, seat in ((a, 0), (b, 1)):
        table = await client.expect("table", lambda m: m["table"]["id"] == new)
        data = table["table"]
        assert data["status"] == "playing" and data["my_seat"] == seat
        assert data["settings"]["turn_seconds"] == 45 and data["settings"]["point_limit"] == 1
        assert [s["nickname"] for s in data["seats"][:2]] == [a.nickname, b.nickname]
        assert data["seats"][2]["bot"] == "strong"
        assert data["host"] == a.nickname
    closed = await b.request({"type": "rematch", "table": old, "accept": True})
    assert closed["code"] == "rematch_closed"
    await play_out([Autoplayer(a, new), Autoplayer(b, new)], timeout=90)
    for client in (a, b):
        await client.close()


async def test_a_declined_rematch_starts_nothing(shared_server: ServerProcess) -> None:
    a, b, old = await _finished_game(shared_server, seats=2)
    watcher = await Client(shared_server, nickname("rw")).guest()
    await watcher.connect()
    await watcher.request({"type": "watch_table", "table": old})
    refused = await watcher.request({"type": "rematch", "table": old, "accept": True})
    assert refused["code"] == "not_seated"

    await a.request({"type": "rematch", "table": old, "accept": True})
    await b.request({"type": "rematch", "table": old, "accept": False})
    declined = await a.expect("rematch", lambda m: m["rematch"]["status"] == "declined")
    assert declined["rematch"]["declined"] == [1] and declined["rematch"]["table"] is None
    await watcher.expect("rematch", lambda m: m["rematch"]["status"] == "declined")
    again = await a.request({"type": "rematch", "table": old, "accept": True})
    assert again["code"] == "rematch_closed"
    assert {m["table"]["id"] for m in a.messages if m.get("type") == "table"} == {old}
    for client in (a, b, watcher):
        await client.close()


async def test_no_rematch_before_the_end(shared_server: ServerProcess) -> None:
    a = await Client(shared_server, nickname("rn")).guest()
    await a.connect()
    table = await create_table(a, seats=2, bots={"1": "casual"})
    refused = await a.request({"type": "rematch", "table": table, "accept": True})
    assert refused["code"] == "not_finished"
    bad = await a.request({"type": "rematch", "table": table, "accept": "yes"})
    assert bad["code"] == "bad_message"
    await a.close()


async def test_an_unanswered_rematch_expires(shared_server: ServerProcess) -> None:
    a, b, old = await _finished_game(shared_server, seats=2)
    await a.request({"type": "rematch", "table": old, "accept": True})
    offer = await b.expect("rematch", lambda m: m["rematch"]["status"] == "open")
    # 60 s of game time; the shared server runs ten times faster.
    expired = await b.expect("rematch", lambda m: m["rematch"]["status"] == "expired", timeout=15)
    assert expired["rematch"]["waiting_for"] == [1]
    assert expired["rematch"]["deadline"] == offer["rematch"]["deadline"]
    late = await b.request({"type": "rematch", "table": old, "accept": True})
    assert late["code"] == "rematch_closed"
    for client in (a, b):
        await client.close()
