"""Lobby deltas (``lobby_subscribe``): a client that takes changes sees the same
lobby as one that takes whole lists, and a missed version leads to the whole
lists again."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from .conftest import nickname
from .helpers import Client, ServerProcess, create_table

pytestmark = pytest.mark.asyncio


class Lists:
    """A client's lobby lists kept as docs/protocol.md says: whole lists set them,
    a ``lobby_delta`` of the next version changes them."""

    def __init__(self) -> None:
        self.tables: dict[int, dict[str, Any]] = {}
        self.players: dict[str, dict[str, Any]] = {}
        self.counts: tuple[int, int] = (0, 0)
        self.version: int | None = None
        self.deltas = 0

    def whole(self, message: dict[str, Any]) -> None:
        self.tables = {t["id"]: t for t in message["tables"]}
        self.players = {p["nickname"]: p for p in message["players"]}
        self.counts = (message["playing"], message["online"])
        self.version = message.get("version")

    def apply(self, delta: dict[str, Any]) -> bool:
        """Apply a delta; False (nothing applied) if a version is missing."""
        assert self.version is not None
        if delta["version"] != self.version + 1:
            return False
        before = (dict(self.tables), dict(self.players), self.counts)
        for table in delta["tables"]:
            self.tables[table["id"]] = table
        for table_id in delta["removed"]:
            del self.tables[table_id]
        for player in delta["players"]:
            self.players[player["nickname"]] = player
        for name in delta["left"]:
            del self.players[name]
        self.counts = (delta["playing"], delta["online"])
        self.version = delta["version"]
        self.deltas += 1
        # Nothing is sent when nothing changed.
        assert (self.tables, self.players, self.counts) != before, delta
        return True

    def same_as(self, message: dict[str, Any]) -> bool:
        other = Lists()
        other.whole(message)
        return (self.tables, self.players, self.counts) == (
            other.tables,
            other.players,
            other.counts,
        )


def _latest_whole(client: Client) -> dict[str, Any]:
    return next(m for m in reversed(client.messages) if m["type"] in ("lobby", "lobby_update"))


async def _follow(deltas: Client, lists: Lists, start: int, plain: Client) -> int:
    """Apply the subscribed client's messages until its lists are the plain
    client's latest; the index read up to."""
    deadline = time.monotonic() + 15
    while True:
        while start < len(deltas.messages):
            message = deltas.messages[start]
            start += 1
            if message["type"] == "lobby_delta":
                assert lists.apply(message), (lists.version, message["version"])
            elif message["type"] in ("lobby", "lobby_update"):
                lists.whole(message)
        if lists.same_as(_latest_whole(plain)):
            return start
        assert time.monotonic() < deadline, (lists.tables.keys(), _latest_whole(plain)["tables"])
        await asyncio.sleep(0.05)


async def test_deltas_give_the_same_lobby_and_a_gap_the_whole_lists(
    shared_server: ServerProcess,
) -> None:
    host = await (await Client(shared_server, nickname("dh")).guest()).connect()
    plain = await (await Client(shared_server, nickname("dp")).guest()).connect()
    # The same player's second tab takes deltas: it lists what the first one lists.
    subscribed = Client(shared_server, plain.nickname)
    subscribed.http.cookies.update(plain.http.cookies)
    await subscribed.connect()
    assert (await subscribed.request({"type": "lobby_subscribe"}))["code"] == "bad_message"
    base = await subscribed.request({"type": "lobby_subscribe", "deltas": True})
    assert base["type"] == "lobby_update" and isinstance(base["version"], int)
    lists = Lists()
    lists.whole(base)
    read = len(subscribed.messages)

    # A series of changes: tables come, change, start and go, a player comes and
    # goes, an invite-only table is shown to its invitee only.
    first = await create_table(host, seats=3)
    secret = await create_table(host, seats=2, access="invite")
    await host.request({"type": "invite", "table": secret, "nickname": plain.nickname})
    await host.request({"type": "set_seat", "table": first, "seat": 2, "bot": "casual"})
    visitor = await (await Client(shared_server, nickname("dv")).guest()).connect()
    await plain.expect("lobby_update", lambda m: visitor.nickname in str(m["players"]))
    read = await _follow(subscribed, lists, read, plain)
    assert secret in lists.tables and lists.tables[first]["seats"][2]["bot"] == "casual"
    await visitor.close()
    await host.request({"type": "leave_table", "table": secret})
    await host.request({"type": "start_game", "table": first, "fill": "casual"})
    await plain.expect(
        "lobby_update",
        lambda m: (
            all(t["id"] != secret for t in m["tables"])
            and visitor.nickname not in str(m["players"])
            and any(t["id"] == first and t["status"] == "playing" for t in m["tables"])
        ),
    )
    read = await _follow(subscribed, lists, read, plain)
    assert lists.deltas >= 2 and lists.tables[first]["status"] == "playing"

    # A delta gets lost: the next one is a version too far, and the client asks
    # for the whole lists again.
    again = await create_table(host, seats=2)
    lost = await subscribed.expect("lobby_delta", start=read)
    read = subscribed.messages.index(lost) + 1
    await host.request({"type": "leave_table", "table": again})
    after = await subscribed.expect("lobby_delta", start=read)
    assert not lists.apply(after)
    resent = await subscribed.request({"type": "lobby_subscribe", "deltas": True})
    assert resent["type"] == "lobby_update" and resent["version"] > after["version"]
    lists.whole(resent)
    read = subscribed.messages.index(resent) + 1
    last = await create_table(host, seats=4)
    await plain.expect("lobby_update", lambda m: any(t["id"] == last for t in m["tables"]))
    await _follow(subscribed, lists, read, plain)
    # The whole lists go only to the clients that did not ask for deltas.
    assert not [m for m in subscribed.messages[read:] if m["type"] == "lobby_update"]
    for client in (host, plain, subscribed):
        await client.close()
