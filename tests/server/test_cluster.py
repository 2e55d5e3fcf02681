"""A cluster of real nodes (``romme serve --redis``) on one PostgreSQL database and
one redis-server: SIGKILL the node that owns a running table, and another node
takes it over within 15 s; the players reconnect there and finish the match with
nothing lost or doubled. SIGTERM drains a node: its table moves to another node
at once."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, free_port, play_out
from .test_recovery import _play_until
from .verify import check_log, check_messages

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

TAKEOVER_LIMIT = 15.0
"""Seconds within which another node runs a dead node's tables."""


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A redis-server of this test only, on a free port, persisting nothing."""
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--daemonize", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while (
            subprocess.run(
                ["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True
            ).stdout.strip()
            != "PONG"
        ):
            assert proc.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def _node(make_server: ServerFactory, db_url: str, redis_url: str, name: str) -> ServerProcess:
    return make_server(db_url=db_url, time_scale=1, extra=["--redis", redis_url, "--node-id", name])


async def _owned_by(node: ServerProcess, table: int, limit: float) -> float:
    """Seconds until ``node`` reports that it runs ``table`` (fails after ``limit``)."""
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=node.base) as http:
        while time.monotonic() - started < limit:
            health = (await http.get("/healthz")).json()
            if table in health["owned_tables"]:
                return time.monotonic() - started
            await asyncio.sleep(0.1)
    raise AssertionError(f"{node.base} did not take table {table} within {limit} s")


async def _move_to(client: Client, node: ServerProcess, table: int) -> dict[str, object]:
    """The client reconnects to ``node`` and gets its table back."""
    client.server = node
    client.http = httpx.AsyncClient(base_url=node.base, cookies=client.http.cookies)
    start = len(client.messages)
    await client.connect()
    message = await client.expect("table", lambda m: m["table"]["id"] == table, start=start)
    table_json: dict[str, object] = message["table"]
    return table_json


async def test_sigkill_owner_then_sigterm_drain(make_server: ServerFactory, redis_url: str) -> None:
    first = make_server("postgresql", time_scale=1, start=False)
    db_url = first.db_url
    node_a = _node(make_server, db_url, redis_url, "node-a")
    node_b = _node(make_server, db_url, redis_url, "node-b")
    health = httpx.get(node_a.base + "/healthz").json()
    assert (health["node"], health["redis"], health["db"]) == ("node-a", True, True)

    a = await (await Client(node_a, nickname("ka")).guest()).connect()
    b = await (await Client(node_a, nickname("kb")).guest()).connect()
    table = await create_table(a, seats=3, bots={"2": "casual"}, point_limit=1, turn_seconds=120)
    await b.request({"type": "join_table", "table": table})
    await a.request({"type": "start_game", "table": table})
    players = [Autoplayer(a, table), Autoplayer(b, table)]
    assert table in httpx.get(node_a.base + "/healthz").json()["owned_tables"]
    assert table not in httpx.get(node_b.base + "/healthz").json()["owned_tables"]

    # SIGKILL the owner mid-round: node-b takes the table within 15 s.
    await _play_until(players, 5, {0, 1})
    await asyncio.sleep(0.3)
    before = {c.nickname: dict(c.tables[table]) for c in (a, b)}
    node_a.kill()
    failover = await _owned_by(node_b, table, TAKEOVER_LIMIT)
    for client in (a, b):
        after = await _move_to(client, node_b, table)
        old = before[client.nickname]
        assert (after["version"], after["view"]) == (old["version"], old["view"])
        assert after["status"] == "playing"

    # A third node joins; SIGTERM on node-b hands the table over at once.
    node_c = _node(make_server, db_url, redis_url, "node-c")
    await _play_until(players, before[a.nickname]["version"] + 2, {0, 1})
    await asyncio.sleep(0.3)
    version = a.tables[table]["version"]
    assert node_b.stop() == 0
    took = await _owned_by(node_c, table, 5)
    for client in (a, b):
        after = await _move_to(client, node_c, table)
        assert after["version"] == version

    await play_out(players, timeout=120)
    over = a.tables[table]["game_over"]
    log = httpx.get(node_c.base + f"/api/games/{table}").json()
    check_log(log, over["winners"])  # every version once, in order: nothing lost or doubled
    for client in (a, b):
        check_messages(client.messages, table, log)
        await client.close()
    print(f"takeover after SIGKILL {failover:.1f} s, after SIGTERM {took:.1f} s")
