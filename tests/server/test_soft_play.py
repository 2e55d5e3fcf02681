"""Soft play among the moderators' signals (docs/chips.md, "For moderators"),
against a real server: at a staked table one player holds back every way out it
sees (twice) while the other waits for it; the finished game, checked when a
moderator asks, lists the held-back turns as the player's ``missed_outs``, and
the pair's signal counts them. An ordinary player never sees the signals."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bots.holding_back import HOLDS, HoldingBack

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, admin, create_table, play_out

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

OPTIONS = ["--accounts-per-hour", "0", "--chip-accounts-per-address", "0"]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_turns_held_back_from_going_out_are_signalled(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, time_scale=10, extra=OPTIONS)
    holder = await (await Client(server, nickname("soft")).guest()).connect()
    winner = await (await Client(server, nickname("gain")).guest()).connect()
    table = await create_table(holder, stake=100, point_limit=1, turn_seconds=120)
    assert (await winner.request({"type": "join_table", "table": table}))["type"] == "table"
    started = await holder.request({"type": "start_game", "table": table})
    assert started["type"] != "error", started
    holding = HoldingBack()

    await play_out(
        [Autoplayer(holder, table, holding), Autoplayer(winner, table, holding.waiting)], 240
    )
    assert holding.held == HOLDS, "the deal never let the holder go out"

    moderator = await Client(server, nickname("mod")).register("password123")
    assert admin(server, "grant-moderator", moderator.nickname).returncode == 0
    refused = await holder.http.get("/api/economy/games")
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "not_moderator")

    games = (await moderator.http.get("/api/economy/games?days=1")).json()["games"]
    [game] = [g for g in games if g["game"] == table]
    assert game["checked"] is True
    by_name: dict[str, Any] = {p["nickname"]: p for p in game["players"]}
    held = by_name[holder.nickname]["missed_outs"]
    assert len(held) >= 1, game
    log = (await moderator.http.get(f"/api/games/{table}")).json()
    seat = by_name[holder.nickname]["seat"]
    assert all(log["actions"][i]["type"] == "draw" for i in held)
    assert all(log["actions"][i]["seat"] == seat for i in held)
    assert game["score"] >= 2 * len(held)
    [pair] = (await moderator.http.get("/api/economy/signals?days=1")).json()["pairs"]
    assert pair["soft_play"] == sum(len(p["missed_outs"]) for p in game["players"])
    assert set(pair["players"]) == {holder.nickname, winner.nickname}
    bad = await moderator.http.get("/api/economy/games?days=0")
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "bad_message")
    for client in (holder, winner, moderator):
        await client.close()
