"""One lobby over every node of a cluster: each node's open tables, its invite-only
tables (for the players seated or invited there only), running games and players
online (also for friends' presence), and the lobby chat.

Each node sends the other nodes the changes of what its lobby shows, not the
whole lists: every :data:`SHARE_SECONDS`, when its lists changed, it publishes a
``lobby`` delta on ``romme:all`` (the tables, private tables and players that
came or changed, the keys of those that went, its running-game count, and a
version) and, in the same transaction, writes the same changes to its lists in
Redis (the hash ``romme:lobby:<node>``, one field per item, with a time to live
that it renews while nothing changes). Another node applies a delta of the
version after the one it has; one it cannot apply (it missed one, or it does not
know the node yet) makes it read that node's whole hash. A node whose key
expired (it died) leaves the lobby.
The other nodes' lists are :class:`~romme.server.lobby.OtherNodes`; when they
change, the lobby sends its update (and its own deltas to its clients).

A table of another node is joined or watched like any other: the message goes
to the node that runs it (:mod:`romme.server.relay`). A lobby chat line is
published on ``romme:all`` and every node sends it to its connections.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis

from romme.server.lobby import LOBBY_PLAYERS, Lobby, OtherNodes
from romme.server.table import WAITING

__all__ = ["SHARE_SECONDS", "LobbyShare"]

log = logging.getLogger("romme.server.cluster")

SHARE_SECONDS = 1.0
KEY = "romme:lobby:"
TTL = 6
"""Seconds a node's lobby lives in Redis without renewal (a dead node's tables leave
the other lobbies by then)."""

LISTS: dict[str, Callable[[Any], Any]] = {
    "tables": lambda table: table["id"],
    "private": lambda entry: entry["table"]["id"],
    "players": lambda player: player["nickname"],
    "online": lambda player_id: player_id,
}
"""The lists a node shares, each with the key of an item: its open tables, its
other waiting tables with the players seated or invited there (``for``), its
players online as the lobby lists them (at most ``LOBBY_PLAYERS``), and the ids
of all its players online (for friends' presence)."""

Lists = dict[str, dict[Any, Any]]


class NodeLobby:
    """One node's shared lobby: its lists by key, its running games, its version."""

    def __init__(self, version: int = 0, lists: Lists | None = None, playing: int = 0) -> None:
        self.version = version
        self.lists: Lists = lists or {name: {} for name in LISTS}
        self.playing = playing

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NodeLobby:
        lists = {name: {key(i): i for i in data[name]} for name, key in LISTS.items()}
        return cls(int(data["version"]), lists, int(data["playing"]))

    @classmethod
    def from_hash(cls, fields: dict[Any, Any]) -> NodeLobby:
        """A node's lobby as its Redis hash holds it (see :meth:`write`)."""
        lobby = cls()
        for field, value in fields.items():
            name, _, _ = _text(field).partition(":")
            item = json.loads(value)
            if name in LISTS:
                lobby.lists[name][LISTS[name](item)] = item
            elif name == "version":
                lobby.version = int(item)
            elif name == "playing":
                lobby.playing = int(item)
        return lobby

    def write(self, pipe: Any, key: str, delta: dict[str, Any]) -> None:
        """Queue a delta's writes to the node's Redis hash: one field per item
        (``tables:12``, ``players:Anna``, ...), set or deleted, and the version
        and count."""
        changed = {
            f"{name}:{LISTS[name](item)}": json.dumps(item)
            for name, items in delta["changed"].items()
            for item in items
        }
        changed |= {"version": str(self.version), "playing": str(self.playing)}
        removed = [f"{name}:{k}" for name, keys in delta["removed"].items() for k in keys]
        pipe.hset(key, mapping=changed)
        if removed:
            pipe.hdel(key, *removed)
        pipe.expire(key, TTL)

    def delta_to(self, new: NodeLobby) -> dict[str, Any] | None:
        """What changed from this to ``new`` (``None``: nothing)."""
        changed = {
            name: [i for k, i in new.lists[name].items() if self.lists[name].get(k) != i]
            for name in LISTS
        }
        removed = {
            name: [k for k in self.lists[name] if k not in new.lists[name]] for name in LISTS
        }
        if not any(changed.values()) and not any(removed.values()) and self.playing == new.playing:
            return None
        return {"changed": changed, "removed": removed, "playing": new.playing}

    def apply(self, delta: dict[str, Any]) -> None:
        for name, key in LISTS.items():
            items = self.lists[name]
            for item in delta["changed"][name]:
                items[key(item)] = item
            for gone in delta["removed"][name]:
                items.pop(gone, None)
        self.playing = int(delta["playing"])
        self.version = int(delta["version"])


class LobbyShare:
    """This node's lobby in Redis and the other nodes' lobbies here."""

    def __init__(self, redis: Redis, node: str, lobby: Lobby) -> None:
        self.redis = redis
        self.node = node
        self.lobby = lobby
        self._own = NodeLobby(int(time.time() * 1000))
        """What the other nodes were last told. Its version starts at the clock's
        milliseconds, so that a node restarted under the same name continues
        above its former versions (it changes its lobby at most once a second)."""
        self._written = False
        """Whether this node wrote its hash since it started (a former run's goes)."""
        self._others: dict[str, NodeLobby] = {}
        self._stale: set[str] = set()
        """Nodes whose delta could not be applied: their whole lists are read."""

    async def run(self) -> None:
        while True:
            await asyncio.sleep(SHARE_SECONDS)
            try:
                await self._share()
            except Exception as exc:  # Redis away: the lobby shows this node only
                log.debug("lobby_share_failed", extra={"error": repr(exc)})
                self._others.clear()
                self._update()
                self._rewrite()

    def _rewrite(self) -> None:
        """Write the whole hash anew at the next round, two versions on: a write
        that may or may not have happened leaves nobody a wrong copy (the others
        see a missing version and read the hash)."""
        self._own = NodeLobby(self._own.version + 1)
        self._written = False

    def own_lists(self) -> NodeLobby:
        """What this node's lobby shows the players of other nodes."""
        lobby = self.lobby
        public = lobby.public_tables()
        listed = {t.id for t in public}
        now = lobby.clock.now_ms()
        private = []
        for table in lobby.registry.tables.values():
            if table.status != WAITING or table.id in listed:
                continue
            players = [s.player_id for s in table.seats if s.player_id is not None and not s.bot]
            players += [p for p, until in table.invited.items() if until > now]
            if players:
                private.append({"table": table.summary(), "for": sorted(set(players))})
        # As this node lists them: with the rating and level of their last game.
        players_online = lobby.here.first(LOBBY_PLAYERS)
        data = {
            "version": self._own.version,
            "tables": [t.summary() for t in public],
            "private": private,
            "players": players_online,
            "online": list(lobby.registry.by_player),
            "playing": lobby.local_playing(),
        }
        return NodeLobby.from_json(data)

    async def _share(self) -> None:
        own = self.own_lists()
        key = KEY + self.node
        delta = self._own.delta_to(own)
        if delta is None and not await self.redis.expire(key, TTL):
            self._rewrite()  # Redis lost the hash (a restart)
            delta = self._own.delta_to(own)
        if delta is not None:
            own.version = self._own.version + 1
            message = {"lobby": self.node, "version": own.version, **delta}
            async with self.redis.pipeline(transaction=True) as pipe:
                if not self._written:
                    pipe.delete(key)
                own.write(pipe, key, delta)
                pipe.publish("romme:all", json.dumps(message))
                await pipe.execute()
            self._written = True
        self._own = own
        live = {
            _text(k).removeprefix(KEY)
            async for k in self.redis.scan_iter(match=KEY + "*", count=1000)
        }
        live.discard(self.node)
        changed = False
        for node in set(self._others) - live:
            del self._others[node]
            changed = True
        wanted = sorted((live - set(self._others)) | (self._stale & live))
        if wanted:
            async with self.redis.pipeline(transaction=False) as pipe:
                for node in wanted:
                    pipe.hgetall(KEY + node)
                hashes = await pipe.execute()
            for node, fields in zip(wanted, hashes, strict=True):
                if fields:
                    self._others[node] = NodeLobby.from_hash(fields)
                    self._stale.discard(node)
                    changed = True
        if changed:
            self._update()

    def received(self, delta: dict[str, Any]) -> None:
        """Another node's delta (from ``romme:all``)."""
        node = delta["lobby"]
        if node == self.node:
            return
        known = self._others.get(node)
        if known is None or delta["version"] != known.version + 1:
            if known is None or delta["version"] > known.version:
                self._stale.add(node)  # read its whole lists at the next round
            return
        known.apply(delta)
        self._update()

    def _update(self) -> None:
        self.lobby.registry.online_elsewhere = frozenset(
            player_id for lists in self._others.values() for player_id in lists.lists["online"]
        )
        others = OtherNodes()
        for node in sorted(self._others):
            lists = self._others[node].lists
            others.tables.extend(lists["tables"].values())
            others.private.extend(lists["private"].values())
            others.players.extend(lists["players"].values())
            others.playing += self._others[node].playing
        if others != self.lobby.others:
            self.lobby.others = others
            self.lobby.players_changed()
            self.lobby.changed()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
