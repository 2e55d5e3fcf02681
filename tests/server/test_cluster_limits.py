"""The limits of one player held over a cluster of real nodes (``romme serve
--redis``, one PostgreSQL database, one redis-server): parallel creates of one
player's sockets on two nodes stop at the waiting-table limit, a declined
invitee's watch of an invite-only table of another node ends, and the chat limit
per player counts its lines on every node together."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess
from .redis_server import RedisServer
from .test_cluster import _node, _owner

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]


async def _on(node: ServerProcess, first: Client) -> Client:
    """Another connection of ``first``'s player, to ``node``."""
    other = Client(node, first.nickname)
    other.http.cookies = first.http.cookies
    other.player = first.player
    return await other.connect()


async def test_the_waiting_table_limit_and_an_ended_watch_hold_over_nodes(
    make_server: ServerFactory,
    redis: RedisServer,
) -> None:
    db_url = make_server("postgresql", start=False).db_url
    nodes = [_node(make_server, db_url, redis.url, name) for name in ("node-a", "node-b")]
    host = await (await Client(nodes[0], nickname("ch")).guest()).connect()
    sockets = [host, *[await _on(nodes[i % 2], host) for i in range(1, 10)]]
    owners: set[str] = set()
    for round_no in range(10):
        replies = await asyncio.gather(
            *(c.request({"type": "create_table", "settings": {"seats": 2}}) for c in sockets)
        )
        made = [(c, r) for c, r in zip(sockets, replies, strict=True) if r["type"] == "table"]
        refused = {(r["type"], r.get("code")) for r in replies if r["type"] != "table"}
        assert len(made) == 3, (round_no, replies)
        assert refused == {("error", "too_many_tables")}, replies
        for client, reply in made:
            table = reply["table"]["id"]
            owners.add(str((await _owner(nodes, table, 5))[0].port))
            left = await client.request({"type": "leave_table", "table": table})
            assert left["type"] == "left_table", left
    assert len(owners) == 2  # the tables were made on both nodes

    # Ben, connected to the other node than the table's, watches an invite-only
    # table while invited, declines, and no longer follows it.
    table = await host.request(
        {"type": "create_table", "settings": {"seats": 3, "access": "invite"}}
    )
    table_id = table["table"]["id"]
    runs_on, _ = await _owner(nodes, table_id, 5)
    elsewhere = nodes[1] if runs_on is nodes[0] else nodes[0]
    ben = await (await Client(elsewhere, nickname("cb")).guest()).connect()
    await host.request({"type": "invite", "table": table_id, "nickname": ben.nickname})
    invitation: dict[str, Any] = (await ben.expect("invitation"))["invitation"]
    watched = await ben.request({"type": "watch_table", "table": table_id})
    assert watched["type"] == "table", watched
    answer = {"type": "answer_invitation", "invitation": invitation["id"], "accept": False}
    assert (await ben.request(answer))["invitation"]["status"] == "declined"
    closed = await ben.expect("table_closed", lambda m: m["table"] == table_id)
    assert closed["reason"] == "you declined the invitation"
    start = len(ben.messages)
    said = await host.request({"type": "table_chat", "table": table_id, "text": "gone?"})
    assert said["type"] == "ok"
    refused_chat = await ben.request({"type": "table_chat", "table": table_id, "text": "no"})
    assert refused_chat["code"] == "not_seated", refused_chat
    assert not [m for m in ben.messages[start:] if m.get("table") == table_id]

    # The host floods lobby and table chat from its sockets on both nodes: the
    # player's limit (2 lines a second, bursts of 8) holds over the nodes.
    lines = []
    for index in range(20):
        for number, socket in enumerate(sockets):
            if number % 2:
                lines.append(
                    (socket, {"type": "table_chat", "table": table_id, "text": f"t{index}"})
                )
            else:
                lines.append((socket, {"type": "lobby_chat", "text": f"l{index}"}))
    began = asyncio.get_running_loop().time()
    replies = await asyncio.gather(*(c.request(line, timeout=30) for c, line in lines))
    seconds = asyncio.get_running_loop().time() - began
    assert {(r["type"], r.get("code")) for r in replies} <= {
        ("ok", None),
        ("error", "rate_limited"),
    }
    lines_said = sum(1 for r in replies if r["type"] == "ok")
    # The burst (less the line said above, if not refilled yet) and what the
    # rate gave back meanwhile, one line of slack, of 200.
    assert 7 <= lines_said <= 8 + 2 * seconds + 1, (lines_said, seconds)
    for node in nodes:
        logs = node.logs()
        assert "Traceback" not in logs and '"level": "error"' not in logs, logs[-3000:]
    for client in (*sockets, ben):
        await client.close()
