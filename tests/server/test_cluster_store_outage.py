"""PostgreSQL goes away under a cluster of two real nodes (``romme serve --redis``)
and comes back: moves are refused with ``server_busy`` meanwhile, nothing is lost,
and play resumes where it stopped, on the same node, once the database is back,
even after every lease ran out. The nodes reach PostgreSQL through a TCP proxy the
test cuts (the machine's PostgreSQL itself is shared and stays up)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Coroutine
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import make_url

from romme.engine.reference import reference_action
from romme.engine.view import SeatView
from romme.server.ownership import LEASE_SECONDS

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, free_port, play_out
from .redis_server import RedisServer
from .test_cluster import _node
from .test_recovery import _play_until
from .verify import check_log, check_messages

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]


class CuttableProxy:
    """A TCP proxy to a server, in a thread of its own (the test's own loop blocks
    now and then), that can be cut (every connection dropped, new ones refused,
    as when the database goes away) and opened again."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._server: asyncio.Server | None = None
        self._streams: set[asyncio.StreamWriter] = set()

    def _run(self, coro: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    def open(self) -> None:
        self._run(self._open())

    def cut(self) -> None:
        self._run(self._cut())

    def close(self) -> None:
        self._run(self._cut())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _open(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._streams |= {writer, upstream}
        await asyncio.gather(
            _pipe(reader, upstream), _pipe(upstream_reader, writer), return_exceptions=True
        )

    async def _cut(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for stream in self._streams:
            stream.transport.abort()
        self._streams.clear()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.transport.abort()


async def _db_state(nodes: list[ServerProcess], up: bool, limit: float = 20) -> None:
    """Wait until every node's ``/healthz`` says the database is ``up`` (or not)."""
    deadline = time.monotonic() + limit
    async with httpx.AsyncClient(timeout=10) as http:
        while time.monotonic() < deadline:
            answers = [await http.get(n.base + "/healthz") for n in nodes]
            if all(a.json()["db"] is up and (a.status_code == 200) is up for a in answers):
                return
            await asyncio.sleep(0.2)
    raise AssertionError(f"the database is not {'up' if up else 'down'} for every node")


def _move(client: Client, table: int) -> dict[str, object]:
    view = SeatView.from_json(client.tables[table]["view"])
    action = reference_action(view)
    assert action is not None
    data = {k: v for k, v in action.to_json().items() if k != "seat"}
    return {"type": "action", "table": table, "action": data}


async def test_moves_wait_for_the_database_and_nothing_is_lost(
    make_server: ServerFactory, tmp_path_factory: pytest.TempPathFactory
) -> None:
    redis = RedisServer(tmp_path_factory.mktemp("redis"))
    redis.start()
    db_url = make_url(make_server("postgresql", start=False).db_url)
    proxy = CuttableProxy(db_url.host or "127.0.0.1", db_url.port or 5432)
    proxy.open()
    via_proxy = db_url.set(host="127.0.0.1", port=proxy.port)
    try:
        url = via_proxy.render_as_string(hide_password=False)
        nodes = [_node(make_server, url, redis.url, f"node-{n}") for n in "ab"]
        a = await (await Client(nodes[0], nickname("pa")).guest()).connect()
        b = await (await Client(nodes[1], nickname("pb")).guest()).connect()
        table = await create_table(a, seats=2, point_limit=1, turn_seconds=120)
        joined = await b.request({"type": "join_table", "table": table})
        assert joined["type"] == "table", joined
        await a.request({"type": "start_game", "table": table})
        players = [Autoplayer(a, table), Autoplayer(b, table)]
        await _play_until(players, 4, {0, 1})
        await asyncio.sleep(0.3)
        version = a.tables[table]["version"]
        mover = a if a.tables[table]["view"]["current"] == a.tables[table]["my_seat"] else b
        move = _move(mover, table)

        # The database goes away for longer than a lease lasts.
        proxy.cut()
        cut_at = time.monotonic()
        await _db_state(nodes, up=False)
        refused = await mover.request(move, timeout=20)
        assert (refused["type"], refused.get("code")) == ("error", "server_busy"), refused
        chat = await a.request({"type": "table_chat", "table": table, "text": "hallo"})
        assert (chat["type"], chat.get("code")) == ("error", "server_busy"), chat
        await asyncio.sleep(max(0.0, LEASE_SECONDS + 1 - (time.monotonic() - cut_at)))
        proxy.open()
        await _db_state(nodes, up=True)

        # Play resumes where it stopped: the same move goes through, at the same
        # node, and the game is played to its end with nothing lost or doubled.
        accepted = await mover.request(move, timeout=20)
        assert accepted["type"] == "update" and accepted["version"] == version + 1, accepted
        await asyncio.sleep(2 * 2.0 + 0.5)  # two ticks: nobody takes the table
        async with httpx.AsyncClient() as http:
            owned = (await http.get(nodes[0].base + "/healthz")).json()["owned_tables"]
        assert table in owned
        players = [Autoplayer(a, table), Autoplayer(b, table)]
        await play_out(players, timeout=120)
        over = a.tables[table]["game_over"]
        log = httpx.get(nodes[0].base + f"/api/games/{table}").json()
        check_log(log, over["winners"])
        for client in (a, b):
            check_messages(client.messages, table, log)
            await client.close()
    finally:
        proxy.close()
        redis.stop()
