"""A cluster of real nodes (``romme serve --redis``) on one PostgreSQL database and
one redis-server, a player on another node than the table's (who sees it in her
lobby, the lobby chat of the other node and an invitation), a new table on the least loaded node: Redis restarts and
play goes on; SIGKILL the node that owns a running table, and another node takes
it over within 15 s; the players reconnect there and finish the match with nothing
lost or doubled, and a spectator on a third node follows it. SIGTERM drains a node: its table moves to another node at once."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out
from .redis_server import RedisServer
from .test_matches import registered
from .test_recovery import _play_until
from .verify import check_log, check_messages

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

TAKEOVER_LIMIT = 15.0
"""Seconds within which another node runs a dead node's tables."""


def _node(make_server: ServerFactory, db_url: str, redis_url: str, name: str) -> ServerProcess:
    return make_server(db_url=db_url, time_scale=1, extra=["--redis", redis_url, "--node-id", name])


async def _owner(
    nodes: list[ServerProcess], table: int, limit: float
) -> tuple[ServerProcess, float]:
    """The node that runs ``table`` and the seconds until one did (fails after ``limit``)."""
    started = time.monotonic()
    async with httpx.AsyncClient() as http:
        while time.monotonic() - started < limit:
            for node in nodes:
                health = (await http.get(node.base + "/healthz")).json()
                if table in health["owned_tables"]:
                    return node, time.monotonic() - started
            await asyncio.sleep(0.1)
    raise AssertionError(f"no node took table {table} within {limit} s")


async def _move_to(client: Client, node: ServerProcess, table: int) -> dict[str, object]:
    """The client reconnects to ``node`` and gets its table back."""
    client.server = node
    client.http = httpx.AsyncClient(base_url=node.base, cookies=client.http.cookies)
    start = len(client.messages)
    await client.connect()
    message = await client.expect("table", lambda m: m["table"]["id"] == table, start=start)
    table_json: dict[str, object] = message["table"]
    return table_json


async def _redis_state(nodes: list[ServerProcess], up: bool, limit: float = 10) -> None:
    """Wait until every node reports Redis ``up`` (or down) in ``/healthz``."""
    deadline = time.monotonic() + limit
    async with httpx.AsyncClient() as http:
        while time.monotonic() < deadline:
            states = [(await http.get(n.base + "/healthz")).json()["redis"] for n in nodes]
            if states == [up] * len(nodes):
                return
            await asyncio.sleep(0.1)
    raise AssertionError(f"Redis is not {'up' if up else 'down'} for every node: {states}")


def _listed(message: dict[str, Any]) -> set[int]:
    return {t["id"] for t in message["tables"]}


async def _lobby_over_nodes(nodes: list[ServerProcess], a: Client, b: Client, c: Client) -> None:
    """The rest of one lobby over the nodes (``a`` on node-a hosts one waiting
    table there, ``b`` on node-b, ``c`` on node-c)."""
    node_a = nodes[0]
    # The waiting tables a player hosts are counted over every node: two more of
    # hers go to the other nodes, and a fourth is refused wherever it would go.
    extra = []
    for _ in range(2):
        made = await a.request({"type": "create_table", "settings": {"seats": 2}})
        assert made["type"] == "table", made
        extra.append(made["table"]["id"])
    assert {(await _owner(nodes, t, 1))[0] for t in extra} != {node_a}
    for client in (a, b, c):
        await client.expect("lobby_update", lambda m: set(extra) <= _listed(m))
    refused = await a.request({"type": "create_table", "settings": {"seats": 2}})
    assert refused.get("code") == "too_many_tables", refused

    # An invite-only table of another node is shown to the player invited to it
    # (``a`` on node-a, or ``c`` on node-c should the table land on node-a); the
    # answer reaches the invitee's other connection, on the third node.
    secret = await create_table(b, seats=2, access="invite")
    where, _ = await _owner(nodes, secret, 1)
    invitee, bystander = (a, c) if where is not node_a else (c, a)
    home = node_a if invitee is a else nodes[2]
    assert where is not home
    a2 = Client(next(n for n in nodes if n not in (home, where)), invitee.nickname)
    a2.http.cookies.update(invitee.http.cookies)
    await a2.connect()
    start = len(invitee.messages)
    sent = await b.request({"type": "invite", "table": secret, "nickname": invitee.nickname})
    invitation = sent["invitation"]["id"]
    await invitee.expect("lobby_update", lambda m: secret in _listed(m), start=start)
    assert all(secret not in _listed(m) for m in bystander.messages if "tables" in m)
    declined = await invitee.request(
        {"type": "answer_invitation", "invitation": invitation, "accept": False}
    )
    assert declined["invitation"]["status"] == "declined", declined
    await a2.expect(
        "invitation_update",
        lambda m: m["invitation"]["id"] == invitation and m["invitation"]["status"] == "declined",
    )
    for host, table in ((b, secret), (a, extra[0]), (a, extra[1])):
        assert (await host.request({"type": "leave_table", "table": table}))["type"] == "left_table"

    # Friends on different nodes see each other online.
    f1 = await registered(node_a, "kf")
    f2 = await registered(nodes[1], "kg")
    # What a node knows of the others' players is up to about a second old: node-c
    # lists the first friend before the second one connects there.
    await c.expect(
        "lobby_update", lambda m: f1.nickname in {p["nickname"] for p in m.get("players", [])}
    )
    await f1.request({"type": "friend_request", "nickname": f2.nickname})
    await f2.request({"type": "answer_friend", "nickname": f1.nickname, "accept": True})
    await f1.expect(
        "friends", lambda m: m["friends"] == [{"nickname": f2.nickname, "online": True}]
    )
    start = len(f1.messages)
    await f2.close()
    gone = await f1.expect("friend_online", start=start)
    assert gone["online"] is False and gone["nickname"] == f2.nickname
    again = Client(nodes[2], f2.nickname)
    again.http.cookies.update(f2.http.cookies)
    await again.connect()
    back = await f1.expect("friend_online", lambda m: m["online"], start=start)
    assert back["nickname"] == f2.nickname
    welcome = await again.expect("welcome")
    assert welcome["player"]["nickname"] == f2.nickname, welcome
    lists = await again.expect("friends")
    assert lists["friends"] == [{"nickname": f1.nickname, "online": True}], again.messages[:4]
    for client in (a2, f1, again):
        await client.close()


async def test_cross_node_play_redis_restart_sigkill_and_sigterm(
    make_server: ServerFactory, redis: RedisServer
) -> None:
    redis_url = redis.url
    db_url = make_server("postgresql", start=False).db_url
    nodes = [_node(make_server, db_url, redis_url, f"node-{n}") for n in "abc"]
    node_a, node_b, node_c = nodes
    health = httpx.get(node_a.base + "/healthz").json()
    assert (health["node"], health["redis"], health["db"]) == ("node-a", True, True)

    # The table runs on node-a; its second player is connected to node-b: every
    # message of hers travels over Redis to node-a, and back.
    a = await (await Client(node_a, nickname("ka")).guest()).connect()
    b = await (await Client(node_b, nickname("kb")).guest()).connect()
    table = await create_table(a, seats=3, bots={"2": "casual"}, point_limit=1, turn_seconds=120)
    # A new table goes to the least loaded live node: node-a runs one already.
    other = await a.request({"type": "create_table", "settings": {"seats": 2}})
    assert other["type"] == "table" and other["table"]["my_seat"] == 0, other
    placed, _ = await _owner(nodes, other["table"]["id"], 1)
    assert placed is not node_a
    left = await a.request({"type": "leave_table", "table": other["table"]["id"]})
    assert left["type"] == "left_table", left
    # The fresh lobby after it comes from her own node.
    await a.expect("lobby", start=a.messages.index(left))

    # One lobby over the nodes: node-b lists the table and the player of node-a,
    # and a lobby chat line said on node-a reaches node-b.
    listed = await b.expect(
        "lobby_update", lambda m: any(t["id"] == table for t in m["tables"]), timeout=10
    )
    assert {a.nickname, b.nickname} <= {p["nickname"] for p in listed["players"]}
    assert listed["online"] >= 2
    await a.request({"type": "lobby_chat", "text": "hallo"})
    heard = await b.expect("lobby_chat", lambda m: m["message"]["from"] == a.nickname)
    assert heard["message"]["text"] == "hallo"
    # An invitation crosses nodes both ways: she accepts it from node-b and sits down.
    sent = await a.request({"type": "invite", "table": table, "nickname": b.nickname})
    invitation = sent["invitation"]["id"]
    await b.expect("invitation", lambda m: m["invitation"]["id"] == invitation)
    joined = await b.request(
        {"type": "answer_invitation", "invitation": invitation, "accept": True}
    )
    assert joined["type"] == "table" and joined["table"]["my_seat"] == 1, joined
    await a.expect("invitation_update", lambda m: m["invitation"]["status"] == "accepted")
    c = await (await Client(node_c, nickname("kc")).guest()).connect()
    await _lobby_over_nodes(nodes, a, b, c)
    await a.request({"type": "start_game", "table": table})
    players = [Autoplayer(a, table), Autoplayer(b, table)]
    # A spectator on node-c.
    watched = await c.request({"type": "watch_table", "table": table})
    assert watched["type"] == "table" and watched["table"]["my_seat"] is None, watched
    assert (await _owner(nodes, table, 10))[0] is node_a

    # Redis restarts mid-round: each node keeps its tables; what crosses nodes
    # pauses, and once Redis is back a resync fetches what the player missed.
    await _play_until(players, 4, {0, 1})
    await asyncio.sleep(0.3)
    redis.stop()
    await _redis_state(nodes, up=False)
    redis.start()
    await _redis_state(nodes, up=True)
    await asyncio.sleep(1.5)  # the relays subscribe again
    version = a.tables[table]["version"]
    since = b.tables[table]["version"]
    resync = await b.request({"type": "resync", "table": table, "since": since})
    assert resync["type"] in ("update", "table"), resync
    assert b.tables[table]["version"] == version
    assert (await _owner(nodes, table, 10))[0] is node_a

    # SIGKILL the owner mid-round: another node takes the table within 15 s. The
    # player on node-b stays connected and gets the table back from its new node;
    # the one on node-a reconnects to node-b.
    await _play_until(players, version + 2, {0, 1})
    await asyncio.sleep(0.3)
    before = {c.nickname: dict(c.tables[table]) for c in (a, b)}
    assert before[a.nickname]["version"] == before[b.nickname]["version"]
    start_b, start_c = len(b.messages), len(c.messages)
    node_a.kill()
    owner, failover = await _owner([node_b, node_c], table, TAKEOVER_LIMIT)
    back = await b.expect("table", lambda m: m["table"]["id"] == table, start=start_b)
    # The spectator, still on node-c, watches the table at its new node.
    seen = await c.expect("table", lambda m: m["table"]["id"] == table, start=start_c)
    assert seen["table"]["my_seat"] is None and seen["table"]["view"]["hand"] == []
    after = {a.nickname: await _move_to(a, node_b, table), b.nickname: back["table"]}
    for client in (a, b):
        old, new = before[client.nickname], after[client.nickname]
        assert (new["version"], new["view"], new["status"]) == (
            old["version"],
            old["view"],
            "playing",
        )

    # SIGTERM on the new owner drains it: the last node takes the table at once.
    await _play_until(players, int(before[a.nickname]["version"]) + 2, {0, 1})
    # The spectator goes on getting the moves from the new owner.
    await c.expect(
        "update", lambda m: m["table"] == table and m["version"] > seen["table"]["version"]
    )
    await c.close()
    await asyncio.sleep(0.3)
    version = a.tables[table]["version"]
    assert owner.stop() == 0
    last = node_c if owner is node_b else node_b
    _, handover = await _owner([last], table, 5)
    for client in (a, b):
        if client.server is owner:
            assert (await _move_to(client, last, table))["version"] == version

    await play_out(players, timeout=120)
    over = a.tables[table]["game_over"]
    log = httpx.get(last.base + f"/api/games/{table}").json()
    check_log(log, over["winners"])  # every version once, in order: nothing lost or doubled
    for client in (a, b):
        check_messages(client.messages, table, log)
        await client.close()
    print(f"takeover after SIGKILL {failover:.1f} s, after SIGTERM {handover:.1f} s")
