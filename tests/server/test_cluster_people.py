"""Blocks and deletions over a cluster of real nodes (``romme serve --redis``, one
PostgreSQL database, one redis-server). A player connected to one node, at a
table another node runs, gets no table chat of a player it blocked, neither live
nor in the table's history, from the block's reply on and after a reload, and
gets it again after it unblocks. An account deleted through one node leaves the
waiting tables, the table chat and the lobby chat of the other nodes too."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from .conftest import ServerFactory
from .helpers import Client, ServerProcess, create_table
from .redis_server import RedisServer, redis_up
from .test_cluster import _node, _owner
from .test_cluster_limits import _on
from .test_matches import registered

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

PASSWORD = "secret-pass"
"""The password :func:`registered` gives."""


async def _member(node: ServerProcess, prefix: str) -> Client:
    client = await registered(node, prefix)
    await client.expect("friends")
    return client


async def _lines_from(client: Client, table: int, start: int, sender: str) -> list[str]:
    return [
        m["message"]["text"]
        for m in client.messages[start:]
        if m["type"] == "table_chat" and m["table"] == table and m["message"]["from"] == sender
    ]


async def _said(speaker: Client, table: int, text: str) -> None:
    reply = await speaker.request({"type": "table_chat", "table": table, "text": text})
    assert reply["type"] == "ok", reply


async def _table_of(client: Client, table: int) -> dict[str, Any]:
    snapshot: dict[str, Any] = await client.request({"type": "resync", "table": table})
    assert snapshot["type"] == "table", snapshot
    table_view: dict[str, Any] = snapshot["table"]
    return table_view


async def _two_nodes(make_server: ServerFactory, redis: RedisServer) -> list[ServerProcess]:
    db_url = make_server("postgresql", start=False).db_url
    nodes = [_node(make_server, db_url, redis.url, name) for name in ("node-a", "node-b")]
    await redis_up(nodes)
    return nodes


async def _history(client: Client, table: int) -> list[str]:
    return [line["text"] for line in (await _table_of(client, table))["chat"]]


async def test_a_block_holds_at_a_table_of_another_node(
    make_server: ServerFactory, redis: RedisServer
) -> None:
    nodes = await _two_nodes(make_server, redis)
    cleo = await _member(nodes[0], "cc")  # the host, a bystander
    table = await create_table(cleo, seats=3)
    owner, _ = await _owner(nodes, table, 10)
    elsewhere = nodes[1] if owner is nodes[0] else nodes[0]
    anna = await _member(elsewhere, "ca")  # blocks Max, on the other node
    max_ = await _member(owner, "cm")  # the blocked player, on the table's node
    for client in (anna, max_):
        assert (await client.request({"type": "join_table", "table": table}))["type"] == "table"

    # Blocked while seated: the next line of Max's does not reach Anna, Cleo's does.
    blocked = await anna.request({"type": "block", "nickname": max_.nickname})
    assert blocked["blocked"] == [max_.nickname]
    start = len(anna.messages)
    await _said(max_, table, "psst")
    await cleo.expect("table_chat", lambda m: m["message"]["text"] == "psst")
    await _said(cleo, table, "hi all")
    await anna.expect("table_chat", lambda m: m["message"]["text"] == "hi all", start=start)
    assert await _lines_from(anna, table, start, max_.nickname) == []
    history = await _history(anna, table)
    assert "hi all" in history and "psst" not in history

    # A new socket (a reload) on the other node: blocked from its first message on.
    await anna.close()
    reload = await _on(elsewhere, anna)
    seated = await reload.expect("table", lambda m: m["table"]["id"] == table)
    assert "psst" not in [line["text"] for line in seated["table"]["chat"]]
    start = len(reload.messages)
    await _said(max_, table, "again")
    await _said(cleo, table, "later")
    await reload.expect("table_chat", lambda m: m["message"]["text"] == "later", start=start)
    assert await _lines_from(reload, table, start, max_.nickname) == []

    # Unblocked: Max's lines reach Anna again.
    unblocked = await reload.request({"type": "unblock", "nickname": max_.nickname})
    assert unblocked["blocked"] == []
    start = len(reload.messages)
    await _said(max_, table, "sorry")
    await reload.expect("table_chat", lambda m: m["message"]["text"] == "sorry", start=start)
    assert "sorry" in await _history(reload, table)
    for client in (cleo, max_, reload):
        await client.close()


async def test_a_deletion_reaches_the_tables_and_chat_of_every_node(
    make_server: ServerFactory, redis: RedisServer
) -> None:
    nodes = await _two_nodes(make_server, redis)
    cleo = await _member(nodes[0], "dc")
    table = await create_table(cleo, seats=3)
    owner, _ = await _owner(nodes, table, 10)
    elsewhere = nodes[1] if owner is nodes[0] else nodes[0]
    if cleo.server is not owner:  # Cleo follows the table from its own node
        cleo = await _member(owner, "dc")
        assert (await cleo.request({"type": "join_table", "table": table}))["type"] == "table"
    dana = await _member(elsewhere, "dd")  # deletes her account through the other node
    assert (await dana.request({"type": "join_table", "table": table}))["type"] == "table"
    await _said(dana, table, "hello table")
    assert (await dana.request({"type": "lobby_chat", "text": "bye all"}))["type"] == "ok"
    await cleo.expect("lobby_chat", lambda m: m["message"]["text"] == "bye all")
    assert "hello table" in await _history(cleo, table)

    deleted = await dana.http.post("/api/account/delete", json={"password": PASSWORD})
    assert deleted.status_code == 200, deleted.text

    # The table's node gives up her waiting seat (not merely renamed) and forgets
    # her lines.
    placeholder = deleted.json()["nickname"]
    deadline = time.monotonic() + 10
    while True:
        now = await _table_of(cleo, table)
        seated = {s["nickname"] for s in now["seats"] if s.get("nickname")}
        lines = [line["text"] for line in now["chat"]]
        if not seated & {dana.nickname, placeholder} and "hello table" not in lines:
            break
        assert time.monotonic() < deadline, f"the deleted player is still there: {now}"
        await asyncio.sleep(0.1)
    reload = await _on(owner, cleo)
    lobby = await reload.expect("lobby")
    assert "bye all" not in [line["text"] for line in lobby["chat"]]
    for client in (cleo, reload):
        await client.close()
