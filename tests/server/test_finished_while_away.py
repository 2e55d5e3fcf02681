"""A game that ends while a player's page is disconnected: when the page comes
back, the server brings it the finished table (the final view and results), so
that it does not stay on the last position it saw."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, create_table

pytestmark = pytest.mark.asyncio


async def test_a_page_that_reconnects_after_its_game_ended_gets_the_finished_table(
    make_server: ServerFactory,
) -> None:
    server = make_server(time_scale=30)  # a 15 s turn lasts half a second
    client = await (await Client(server, nickname("fw")).guest()).connect()
    table = await create_table(
        client, seats=2, bots={"1": "beginner"}, point_limit=1, turn_seconds=15
    )
    assert (await client.request({"type": "start_game", "table": table}))["type"] == "ok"
    cookies = client.http.cookies
    await client.close()

    # Nobody is at the screen: the seat times out, goes away, a computer opponent
    # plays for it, and the one-round game ends.
    async with httpx.AsyncClient(base_url=server.base) as http:
        for _ in range(240):
            info = (await http.get(f"/api/players/{client.nickname}")).json()
            if info["games_played"] >= 1:
                break
            await asyncio.sleep(0.25)
        else:
            raise AssertionError("the game did not end")

    again = Client(server, client.nickname)
    again.http = httpx.AsyncClient(base_url=server.base, cookies=cookies)
    await again.connect()
    finished = await again.expect("table", lambda m: m["table"]["id"] == table, timeout=10)
    assert finished["table"]["status"] == "finished"
    assert finished["table"]["view"]["phase"] == "game_over"
    await again.close()
