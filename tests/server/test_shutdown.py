"""Graceful shutdown on SIGTERM: writes finish, clients are told, the process exits 0,
and everything is there after a restart."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, create_table

pytestmark = pytest.mark.asyncio


async def test_sigterm_tells_clients_and_keeps_every_move(make_server: ServerFactory) -> None:
    server = make_server(time_scale=1)
    a = await (await Client(server, nickname("sd")).guest()).connect()
    table = await create_table(a, seats=2, bots={"1": "beginner"}, turn_seconds=120)
    await a.request({"type": "start_game", "table": table})
    await a.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    version = a.tables[table]["version"]
    view = a.tables[table]["view"]
    await asyncio.get_running_loop().run_in_executor(None, server.stop)
    assert server.proc is not None and server.proc.returncode == 0
    notice = await a.expect("shutdown", timeout=5)
    assert notice["retry_ms"] > 0
    for _ in range(50):
        if a.closed is not None:
            break
        await asyncio.sleep(0.05)
    assert a.closed == 1012
    assert '"event": "server_stopped"' in server.logs()

    again = make_server(db_url=server.db_url, time_scale=1)
    a.server = again
    a.http = httpx.AsyncClient(base_url=again.base, cookies=a.http.cookies)
    start = len(a.messages)
    await a.connect()
    restored = (await a.expect("table", start=start))["table"]
    assert restored["version"] == version and restored["view"] == view
    await a.close()
