"""Limits that one player with many sockets, or a change of mind, must not get
past, against a real server: the waiting tables one player hosts, a watch of a
private table after the invitation ended, a rematch whose table cannot be made,
and chat per player and per address."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess

pytestmark = pytest.mark.asyncio

BACKENDS = ["sqlite", "postgresql"]


async def _guest(server: ServerProcess, prefix: str) -> Client:
    return await (await Client(server, nickname(prefix)).guest()).connect()


async def _sockets(first: Client, count: int) -> list[Client]:
    """``first`` and ``count - 1`` more connections of its player (its cookie)."""
    clients = [first]
    for _ in range(count - 1):
        other = Client(first.server, first.nickname)
        other.http.cookies = first.http.cookies
        other.player = first.player
        clients.append(await other.connect())
    return clients


async def _open_tables(server: ServerProcess) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=server.base) as http:
        tables: list[dict[str, Any]] = (await http.get("/api/tables")).json()["tables"]
    return tables


def _no_traceback(server: ServerProcess) -> None:
    logs = server.logs()
    assert "Traceback" not in logs and '"level": "error"' not in logs, logs[-3000:]


# ------------------------------------------------------------ waiting tables


@pytest.mark.parametrize("backend", BACKENDS)
async def test_parallel_creates_of_one_player_stop_at_the_waiting_table_limit(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend)  # at most 3 waiting tables per host
    sockets = await _sockets(await _guest(server, "tr"), 10)
    for round_no in range(12):
        replies = await asyncio.gather(
            *(c.request({"type": "create_table", "settings": {"seats": 2}}) for c in sockets)
        )
        made = [(c, r) for c, r in zip(sockets, replies, strict=True) if r["type"] == "table"]
        refused = [r for r in replies if r["type"] != "table"]
        assert len(made) == 3, (round_no, replies)
        assert {(r["type"], r.get("code")) for r in refused} == {("error", "too_many_tables")}
        hosted = [
            t
            for t in await _open_tables(server)
            if t["host"] == sockets[0].nickname and t["status"] == "waiting"
        ]
        assert len(hosted) == 3, hosted
        # The host leaving closes each: the next round starts from none.
        for client, reply in made:
            left = await client.request({"type": "leave_table", "table": reply["table"]["id"]})
            assert left["type"] == "left_table"
    assert not await _open_tables(server)
    _no_traceback(server)
    for client in sockets:
        await client.close()
