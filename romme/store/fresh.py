"""A figure computed from the database and kept for a while: recomputed when it
is older than its maximum age, or at once when what it is computed from has
changed in this process (a version number the caller keeps and raises on each
change). Another process's changes (a second server node) show after at most the
maximum age.

A change made while the figure is being computed is not lost: the figure is kept
under the version read before computing, so the next call computes it again."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["Fresh"]

T = TypeVar("T")


class Fresh(Generic[T]):
    """``await fresh.get(version, compute)``: the kept figure if it was computed
    for ``version`` less than ``max_age`` seconds ago, else ``compute()``'s."""

    def __init__(self, max_age: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_age = max_age
        self._clock = clock
        self._kept: tuple[int, float, T] | None = None

    async def get(self, version: int, compute: Callable[[], Awaitable[T]]) -> T:
        now = self._clock()
        if self._kept is not None:
            kept_version, computed_at, value = self._kept
            if kept_version == version and now - computed_at < self.max_age:
                return value
        value = await compute()
        self._kept = (version, now, value)
        return value
