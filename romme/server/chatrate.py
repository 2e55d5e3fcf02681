"""How much chat a player, and the players of one network address, may say.

Every connection's messages are limited by its own token bucket
(``--rate-per-second``), but a player may hold ten connections and an address a
hundred: one guest with ten sockets sent 840 lobby lines in 3 s and pushed the
whole lobby history out in under a second. Chat lines (lobby and table alike) are
therefore also counted per player and per address, in token buckets shared by
all of the player's (or address's) connections to this node: ``chat_per_second``
sustained with bursts of ``chat_burst`` per player, and more per address (many
people may share one, behind a NAT). The numbers are far above what a person
types; a line over either is refused (``rate_limited``) and takes nothing from
the other bucket.

On a single server the buckets live in its memory and are checked and taken from
without an await in between, so parallel lines of one player are counted in turn.
In a cluster (``--redis``) the node a socket is connected to also asks Redis,
where one Lua script refills, checks and takes from the player's and the
address's shared buckets at once (atomic, on Redis's clock): the limits hold over
every node, and a table's chat line is counted before it is relayed to the
table's node. While Redis cannot be reached the node's own buckets decide alone.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

__all__ = ["ChatRate"]

log = logging.getLogger("romme.server.cluster")

_SHARED_BUCKETS = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local found = {}
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local kept = redis.call('HMGET', key, 'tokens', 'stamp')
  local tokens = tonumber(kept[1]) or burst
  local stamp = tonumber(kept[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
  if tokens < 1 then return 0 end
  found[i] = tokens
end
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  redis.call('HSET', key, 'tokens', tostring(found[i] - 1), 'stamp', tostring(now))
  redis.call('EXPIRE', key, math.ceil(burst / rate) + 1)
end
return 1
"""
"""Refill, check and take from every bucket of ``KEYS`` (``ARGV``: the rate and
burst of each) at once: 1 if each had a token, else 0 and nothing is taken."""

PRUNE_AT = 4096
"""Buckets kept before the full ones (whose owners have been quiet) are dropped."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


class _Buckets:
    """Token buckets by key: ``rate`` lines a second sustained, bursts of ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[object, _Bucket] = {}

    def has_token(self, key: object, now: float) -> bool:
        """Whether ``key`` may say a line now (refilling its bucket first)."""
        if self.rate <= 0:
            return True
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= PRUNE_AT:
                self._prune(now)
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        bucket.tokens = min(self.burst, bucket.tokens + max(0.0, now - bucket.stamp) * self.rate)
        bucket.stamp = max(bucket.stamp, now)
        return bucket.tokens >= 1

    def take(self, key: object) -> None:
        """Take the token :meth:`has_token` found."""
        if self.rate > 0:
            self._buckets[key].tokens -= 1

    def _prune(self, now: float) -> None:
        """Forget the buckets that have refilled: a new one would be the same."""
        full = [
            key
            for key, bucket in self._buckets.items()
            if bucket.tokens + (now - bucket.stamp) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]


class ChatRate:
    """The chat limits of the players and addresses connected to this node (and,
    with ``redis_url``, to every node of the cluster)."""

    def __init__(
        self,
        per_second: float,
        burst: int,
        per_second_per_address: float,
        burst_per_address: int,
        redis_url: str | None = None,
    ) -> None:
        self.per_second = per_second
        self.burst = burst
        self._players = _Buckets(per_second, burst)
        self._addresses = _Buckets(per_second_per_address, burst_per_address)
        self._redis: Redis | None = None
        self._script: AsyncScript | None = None
        self._redis_failed = False
        if redis_url:
            # Counted in Redis too, over every node of the cluster.
            self._redis = Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
            self._script = self._redis.register_script(_SHARED_BUCKETS)

    async def close(self) -> None:
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()

    async def allow(self, player_id: int, address: str | None) -> bool:
        """Whether the player (connected from ``address``; ``None``: unknown) may
        say a chat line now; if so it is counted against both, here and (in a
        cluster) in Redis."""
        if not self.allow_here(player_id, address):
            return False
        return await self._allow_shared(player_id, address)

    async def _allow_shared(self, player_id: int, address: str | None) -> bool:
        if self._redis is None or self._script is None:
            return True
        keys: list[str] = []
        args: list[float] = []
        if self._players.rate > 0:
            keys.append(f"romme:chat:player:{player_id}")
            args += [self._players.rate, self._players.burst]
        if address is not None and self._addresses.rate > 0:
            keys.append(f"romme:chat:address:{address}")
            args += [self._addresses.rate, self._addresses.burst]
        if not keys:
            return True
        try:
            allowed = await self._script(keys=keys, args=args)
        except Exception as exc:
            # Redis is away: this node's own buckets decided.
            if not self._redis_failed:
                log.warning("chat_rate_unshared", extra={"error": repr(exc)})
            self._redis_failed = True
            return True
        self._redis_failed = False
        return bool(allowed)

    def allow_here(self, player_id: int, address: str | None, now: float | None = None) -> bool:
        """Whether the player (connected from ``address``; ``None``: unknown) may
        say a chat line now by this node's own buckets; if so it is counted
        against both."""
        now = time.monotonic() if now is None else now
        if not self._players.has_token(player_id, now):
            return False
        if address is not None:
            if not self._addresses.has_token(address, now):
                return False
            self._addresses.take(address)
        self._players.take(player_id)
        return True
