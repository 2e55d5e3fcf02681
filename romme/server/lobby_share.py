"""One lobby over every node of a cluster: each node's open tables, running games
and players online, and the lobby chat.

Every :data:`SHARE_SECONDS` each node writes what its lobby shows everyone
(``romme:lobby:<node>`` = its open waiting and running tables, its players online
and its running-game count, with a time to live) and reads the other nodes'
(:class:`~romme.server.lobby.OtherNodes`); when that changed, its lobby sends an
update. A table of another node is joined or watched like any other: the
message goes to the node that runs it (:mod:`romme.server.relay`). A lobby chat
line is published on ``romme:all`` and every node sends it to its connections.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from redis.asyncio import Redis

from romme.server.lobby import LOBBY_PLAYERS, Lobby, OtherNodes

__all__ = ["SHARE_SECONDS", "LobbyShare"]

log = logging.getLogger("romme.server.cluster")

SHARE_SECONDS = 1.0
KEY = "romme:lobby:"
TTL = 6
"""Seconds a node's lobby lives in Redis without renewal (a dead node's tables leave
the other lobbies by then)."""


class LobbyShare:
    """This node's lobby in Redis and the other nodes' lobbies here."""

    def __init__(self, redis: Redis, node: str, lobby: Lobby) -> None:
        self.redis = redis
        self.node = node
        self.lobby = lobby

    async def run(self) -> None:
        while True:
            await asyncio.sleep(SHARE_SECONDS)
            try:
                await self._share()
            except Exception as exc:  # Redis away: the lobby shows this node only
                log.debug("lobby_share_failed", extra={"error": repr(exc)})
                self._update(OtherNodes())

    async def _share(self) -> None:
        lobby = self.lobby
        own = {
            "tables": [t.summary() for t in lobby.public_tables()],
            "players": [
                next(iter(conns)).player.to_json() for conns in lobby.registry.by_player.values()
            ][:LOBBY_PLAYERS],
            "playing": lobby.local_playing(),
        }
        await self.redis.set(KEY + self.node, json.dumps(own), ex=TTL)
        keys = [k async for k in self.redis.scan_iter(match=KEY + "*", count=1000)]
        others = OtherNodes()
        for key, value in zip(keys, await self.redis.mget(keys) if keys else [], strict=True):
            if value is None or _text(key) == KEY + self.node:
                continue
            data = json.loads(value)
            others.tables.extend(data["tables"])
            others.players.extend(data["players"])
            others.playing += int(data["playing"])
        self._update(others)

    def _update(self, others: OtherNodes) -> None:
        if others != self.lobby.others:
            self.lobby.others = others
            self.lobby.players_changed()
            self.lobby.changed()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
