"""Chips over the protocol with a real server on PostgreSQL: two players at a staked
table play to the end and their balances change exactly as docs/protocol.md
says; the bonus, the ledger and ``insufficient_chips``; and a server killed
(SIGKILL) after a game's last move but before its settlement settles it once
after the restart."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, create_table, play_out

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

GRANT = 150
STAKE = 100
"""Two seats: a pot of 200, an operating cost of 10 (5 %), 190 to the winner."""


async def _chips(client: Client) -> int:
    return int((await client.http.get("/api/me")).json()["chips"])


async def _start(a: Client, b: Client, stake: int) -> int:
    table = await create_table(a, stake=stake, point_limit=1, turn_seconds=120)
    summary = (await b.request({"type": "join_table", "table": table}))["table"]
    assert summary["settings"]["stake"] == stake
    cost = stake * 2 * 5 // 100
    assert summary["operating_cost"] == {"percent": 5, "amount": cost}
    await a.request({"type": "start_game", "table": table})
    return table


async def _play_to_last_move(players: list[Autoplayer], table: int) -> None:
    """Play until the game is over as the players see it (the result not told)."""
    for _ in range(4000):
        views = [p.client.tables.get(table, {}).get("view") or {} for p in players]
        if all(v.get("phase") == "game_over" for v in views):
            return
        for p in players:
            await p.step()
        await asyncio.sleep(0.01)
    raise AssertionError("the game did not get to its end")


def _reasons(ledger: dict[str, Any]) -> list[tuple[str, int]]:
    return [(m["reason"], m["amount"]) for m in ledger["movements"]]


async def test_staked_games_settle_once_even_across_a_crash(make_server: ServerFactory) -> None:
    options = ["--chip-grant", str(GRANT), "--chip-bonus", "30", "--chip-bonus-below", "100"]
    options += ["--chip-accounts-per-address", "0"]  # every test client is 127.0.0.1
    first = make_server("postgresql", time_scale=10, extra=options)
    a = await (await Client(first, nickname("ca")).guest()).connect()
    b = await (await Client(first, nickname("cb")).guest()).connect()
    assert await _chips(a) == GRANT and await _chips(b) == GRANT

    # A staked game played to the end.
    table = await _start(a, b, STAKE)
    assert await _chips(a) == GRANT - STAKE == await _chips(b)
    await play_out([Autoplayer(a, table), Autoplayer(b, table)])
    (winner,) = a.tables[table]["game_over"]["winners"]
    won, lost = (a, b) if winner == 0 else (b, a)
    assert await _chips(won) == GRANT + 90 and await _chips(lost) == GRANT - STAKE
    ledger = (await won.http.get(f"/api/players/{won.nickname}/ledger")).json()
    assert _reasons(ledger) == [("payout", 190), ("stake", -100), ("grant", GRANT)]
    assert [m["balance"] for m in ledger["movements"]] == [240, 50, 150]
    assert {m["game"] for m in ledger["movements"][:2]} == {table}
    other = await won.http.get(f"/api/players/{lost.nickname}/ledger")
    assert other.status_code == 403 and other.json()["error"]["code"] == "not_your_ledger"
    info = (await won.http.get(f"/api/players/{lost.nickname}")).json()
    assert info["chips"] == GRANT - STAKE
    assert (info["stats"]["chips_won"], info["stats"]["chips_lost"]) == (0, STAKE)
    mine = (await won.http.get("/api/me")).json()["stats"]
    assert (mine["chips_won"], mine["chips_lost"]) == (90, 0)
    ranking = (await won.http.get("/api/rankings?by=chips_month")).json()
    assert ranking == {"rankings": [], "me": None}  # guests are not ranked

    # Who cannot pay a stake cannot create (or join) such a table.
    refused = await lost.request({"type": "create_table", "settings": {"stake": STAKE}})
    assert refused["type"] == "error" and refused["code"] == "insufficient_chips"
    bad = await lost.request({"type": "create_table", "settings": {"stake": -5}})
    assert bad["type"] == "error" and bad["code"] == "bad_settings"

    # The bonus: for a low balance, then not again at once.
    claimed = await lost.http.post("/api/bonus", json={})
    assert claimed.status_code == 200 and claimed.json()["chips"] == 80
    assert (await lost.http.post("/api/bonus", json={})).json()["error"]["code"] == "rate_limited"
    await asyncio.sleep(1.1)
    again = (await lost.http.post("/api/bonus", json={})).json()["error"]
    assert again["code"] == "bonus_not_due" and again["next_at"]
    rich = (await won.http.post("/api/bonus", json={})).json()["error"]
    assert rich["code"] == "bonus_not_needed"

    # The next game: the database holds the settlement back, the last move is
    # stored, and the server is killed before it could settle.
    balances = {c.nickname: await _chips(c) for c in (a, b)}
    table = await _start(a, b, 50)
    engine = create_async_engine(first.db_url)
    async with engine.connect() as blocker:
        await blocker.execute(text("LOCK TABLE game_results IN ACCESS EXCLUSIVE MODE"))
        await _play_to_last_move([Autoplayer(a, table), Autoplayer(b, table)], table)
        await asyncio.sleep(0.5)
        assert "game_over" not in a.tables[table]
        first.kill()
        await blocker.rollback()
    await engine.dispose()

    second = make_server(db_url=first.db_url, time_scale=10, extra=options)
    for client in (a, b):
        client.server = second
        client.http = httpx.AsyncClient(base_url=second.base, cookies=client.http.cookies)
    for _ in range(100):  # the restored table finishes its game in its own task
        response = httpx.get(second.base + f"/api/games/{table}")
        if response.status_code == 200:
            break
        await asyncio.sleep(0.1)
    result = response.json()
    (winner,) = result["winners"]
    won, lost = (a, b) if winner == 0 else (b, a)
    assert await _chips(won) == balances[won.nickname] + 45
    assert await _chips(lost) == balances[lost.nickname] - 50
    ledger = (await won.http.get(f"/api/players/{won.nickname}/ledger?limit=1")).json()
    assert _reasons(ledger) == [("payout", 95)] and ledger["next"] is not None
    for client in (a, b):
        await client.close()
