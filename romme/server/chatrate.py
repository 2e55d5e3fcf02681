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

The buckets are checked and taken from without an await in between, so parallel
lines of one player are counted in turn. They live in the memory of the node the
sockets are connected to (a table's chat line is counted there before it is
relayed to the table's node): a player connected to several nodes of a cluster
has a bucket on each.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["ChatRate"]

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
    """The chat limits of the players and addresses connected to this node."""

    def __init__(
        self,
        per_second: float,
        burst: int,
        per_second_per_address: float,
        burst_per_address: int,
    ) -> None:
        self.per_second = per_second
        self.burst = burst
        self._players = _Buckets(per_second, burst)
        self._addresses = _Buckets(per_second_per_address, burst_per_address)

    def allow(self, player_id: int, address: str | None, now: float | None = None) -> bool:
        """Whether the player (connected from ``address``; ``None``: unknown) may
        say a chat line now; if so it is counted against both."""
        now = time.monotonic() if now is None else now
        if not self._players.has_token(player_id, now):
            return False
        if address is not None:
            if not self._addresses.has_token(address, now):
                return False
            self._addresses.take(address)
        self._players.take(player_id)
        return True
