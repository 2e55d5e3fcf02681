"""The nodes of a cluster as Redis sees them: who is alive, how many tables each
runs, and a channel on which a node says it released tables.

Each node writes its heartbeat, ``romme:node:<id>`` = ``{"tables": n}``, with a
time to live of :data:`HEARTBEAT_TTL` seconds and renews it every
:data:`~romme.server.ownership.TICK` seconds: a node whose key is gone is dead (or
cut off), and its tables may be taken without waiting for their leases to
expire. A node that drains publishes ``released`` on ``romme:cluster`` so that
the others take its tables at once. Redis holds nothing else here: the leases and
the tables themselves are in the database, so losing Redis loses no table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from redis.asyncio import Redis

__all__ = ["HEARTBEAT_TTL", "Presence"]

log = logging.getLogger("romme.server.cluster")

HEARTBEAT_TTL = 6
"""Seconds a node's heartbeat lives without renewal."""
KEY = "romme:node:"
CHANNEL = "romme:cluster"


class Presence:
    """This node's heartbeat and its view of the other nodes, over Redis."""

    def __init__(self, url: str, node: str) -> None:
        self.node = node
        self._url = url
        self.redis: Redis = Redis.from_url(
            url, socket_timeout=2, socket_connect_timeout=2, decode_responses=True
        )
        self.up = False
        """Whether Redis answered the last heartbeat."""
        self.woken = asyncio.Event()
        """Set when another node released tables (take them now, not at the next tick)."""
        self._listener: asyncio.Task[None] | None = None

    async def start(self, tables: int) -> None:
        await self.beat(tables)
        self._listener = asyncio.create_task(self._listen())

    async def beat(self, tables: int) -> bool:
        """Renew the heartbeat; whether Redis answered."""
        try:
            await self.redis.set(KEY + self.node, json.dumps({"tables": tables}), ex=HEARTBEAT_TTL)
        except Exception as exc:
            if self.up:
                log.warning("redis_down", extra={"error": repr(exc)})
            self.up = False
            return False
        if not self.up:
            log.info("redis_up", extra={"node": self.node})
        self.up = True
        return True

    async def live_nodes(self) -> dict[str, int] | None:
        """Each live node's table count; ``None`` if Redis does not answer."""
        try:
            keys = [key async for key in self.redis.scan_iter(match=KEY + "*", count=1000)]
            values = await self.redis.mget(keys) if keys else []
        except Exception:
            self.up = False
            return None
        nodes = {}
        for key, value in zip(keys, values, strict=True):
            if value is not None:
                nodes[key.removeprefix(KEY)] = int(json.loads(value).get("tables", 0))
        return nodes

    async def leave(self) -> None:
        """This node drains: it is no longer alive, and the others look for its tables."""
        with contextlib.suppress(Exception):
            await self.redis.delete(KEY + self.node)
            await self.redis.publish(CHANNEL, json.dumps({"released": self.node}))

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def _listen(self) -> None:
        """Wake the takeover when another node released tables (reconnecting after
        Redis was away)."""
        # A connection of its own, without a read timeout: it waits for messages.
        listening: Redis = Redis.from_url(self._url, socket_connect_timeout=2)
        while True:
            try:
                async with listening.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self.woken.set()
            except asyncio.CancelledError:
                raise
            except Exception:
                await asyncio.sleep(1)
