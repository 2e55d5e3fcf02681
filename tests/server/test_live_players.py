"""The players online show their rating and level of now (docs/protocol.md,
`lobby_update`): after a game, everyone's lobby lists the players of that game
with what the game gave them, without anyone connecting again; on SQLite with a
real server, and across the two nodes of a cluster (the other node's list)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, create_table, play_out
from .redis_server import RedisServer
from .test_cluster_people import _two_nodes

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]


def _entry(message: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((p for p in message.get("players", []) if p["nickname"] == name), None)


async def _play_against_a_bot(player: Client) -> None:
    table = await create_table(player, seats=2, point_limit=1, turn_seconds=120)
    started = await player.request({"type": "start_game", "table": table, "fill": "beginner"})
    assert started.get("type") != "error", started
    await play_out([Autoplayer(player, table)], 180)


async def test_a_game_shows_in_the_lobby_lists_of_everyone(make_server: ServerFactory) -> None:
    server = make_server("sqlite", time_scale=10, extra=["--accounts-per-hour", "0"])
    watcher = await (await Client(server, nickname("w")).guest()).connect()
    player = await (await Client(server, nickname("pl")).register("password123")).connect()
    before = await watcher.expect("lobby_update", lambda m: _entry(m, player.nickname) is not None)
    assert _entry(before, player.nickname) == {**player.player, "rating": 1500, "level": 1}

    await _play_against_a_bot(player)
    profile = (await watcher.http.get(f"/api/players/{player.nickname}")).json()
    assert profile["rating"] != 1500
    shown = {"rating": profile["rating"], "level": profile["level"]["number"]}
    update = await watcher.expect(
        "lobby_update",
        lambda m: (e := _entry(m, player.nickname)) is not None and e["rating"] != 1500,
        timeout=20,
    )
    entry = _entry(update, player.nickname)
    assert entry is not None and {k: entry[k] for k in shown} == shown
    for client in (watcher, player):
        await client.close()


async def test_a_game_shows_in_the_lists_of_another_node(
    make_server: ServerFactory, redis: RedisServer
) -> None:
    nodes = await _two_nodes(make_server, redis)
    player = await (await Client(nodes[0], nickname("pl")).register("password123")).connect()
    watcher = await (await Client(nodes[1], nickname("w")).guest()).connect()
    await watcher.expect(
        "lobby_update", lambda m: _entry(m, player.nickname) is not None, timeout=20
    )
    await _play_against_a_bot(player)
    rating = (await watcher.http.get(f"/api/players/{player.nickname}")).json()["rating"]
    assert rating != 1500
    await watcher.expect(
        "lobby_update",
        lambda m: (e := _entry(m, player.nickname)) is not None and e["rating"] == rating,
        timeout=20,
    )
    for client in (watcher, player):
        await client.close()
