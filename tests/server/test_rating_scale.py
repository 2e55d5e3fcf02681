"""Ratings on one scale everywhere: a new player has 1500, and after a game the
numbers of ``game_over``, ``welcome``, player info and the rankings agree."""

from __future__ import annotations

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, create_table, play_out

pytestmark = pytest.mark.asyncio


async def registered(client: Client) -> Client:
    answer = await client.http.post(
        "/api/register", json={"nickname": client.nickname, "password": "lang-genug-1"}
    )
    assert answer.status_code == 200, answer.text
    client.player = answer.json()["player"]
    return client


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_ratings_are_on_the_1500_scale_everywhere(
    make_server: ServerFactory, backend: str
) -> None:
    # Ranked from the first game (docs/chips.md: established accounts).
    server = make_server(
        backend,
        time_scale=10,
        extra=["--chip-established-games", "1", "--chip-established-hours", "0"],
    )
    player = await registered(Client(server, nickname("rs")))
    assert player.player["rating"] == 1500
    await player.connect()
    table = await create_table(player, seats=2, bots={"1": "casual"}, point_limit=1)
    await player.request({"type": "start_game", "table": table})
    await play_out([Autoplayer(player, table)])
    over = player.tables[table]["game_over"]
    mine = over["ratings"]["0"]
    assert mine["before"] == 1500
    assert isinstance(mine["after"], int) and 1400 < mine["after"] < 1600
    assert mine["after"] != 1500
    bot = over["ratings"]["1"]
    assert (mine["after"] > 1500) == (0 in over["winners"]) != (bot["after"] > bot["before"])

    info = (await player.http.get(f"/api/players/{player.nickname}")).json()
    assert info["rating"] == mine["after"]
    me = (await player.http.get("/api/me")).json()["player"]
    assert me["rating"] == mine["after"]
    rankings = (await player.http.get("/api/rankings")).json()["rankings"]
    assert next(r for r in rankings if r["nickname"] == player.nickname)["rating"] == mine["after"]
    # A new connection says the same in its welcome.
    assert player.ws is not None
    await player.ws.close()
    count = len(player.messages)
    await player.connect()
    welcome = await player.expect("welcome", start=count)
    assert welcome["player"]["rating"] == mine["after"]
    await player.close()
