"""Time on the server: an injectable clock that can run faster than real time.

Every game clock (the turn timer, the knock window, the wait between rounds,
invitations) is set through a :class:`Clock`. Deadlines sent to clients are in
milliseconds since the Unix epoch on the real clock, so with ``time_scale`` 10 a
30 s turn has a deadline 3 s away. Tests can use :class:`ManualClock`, which only
moves when told.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["Clock", "ManualClock", "RealClock", "Timer"]


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    scale: float

    def now_ms(self) -> int:
        """Real time, milliseconds since the Unix epoch."""
        ...

    def call_later(self, game_seconds: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` (in the event loop) after this much game time."""
        ...

    def deadline_ms(self, game_seconds: float, start_ms: int | None = None) -> int:
        """The real time at which this much game time from ``start_ms`` (now) ends."""
        ...


class RealClock:
    """The wall clock, with game time running ``scale`` times faster."""

    def __init__(self, scale: float = 1.0) -> None:
        if scale <= 0:
            raise ValueError("time scale must be positive")
        self.scale = scale

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def call_later(self, game_seconds: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, game_seconds / self.scale), callback)

    def deadline_ms(self, game_seconds: float, start_ms: int | None = None) -> int:
        start = self.now_ms() if start_ms is None else start_ms
        return start + int(game_seconds * 1000 / self.scale)


class _ManualTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock for tests: time stands still until :meth:`advance`."""

    def __init__(self, start_ms: int = 1_800_000_000_000, scale: float = 1.0) -> None:
        self.scale = scale
        self._now = start_ms
        self._queue: list[tuple[int, int, _ManualTimer, Callable[[], None]]] = []
        self._order = itertools.count()

    def now_ms(self) -> int:
        return self._now

    def call_later(self, game_seconds: float, callback: Callable[[], None]) -> Timer:
        timer = _ManualTimer()
        heapq.heappush(
            self._queue, (self.deadline_ms(game_seconds), next(self._order), timer, callback)
        )
        return timer

    def deadline_ms(self, game_seconds: float, start_ms: int | None = None) -> int:
        start = self._now if start_ms is None else start_ms
        return start + int(game_seconds * 1000 / self.scale)

    def advance(self, ms: int) -> int:
        """Move time on and run the callbacks due; return how many ran."""
        target = self._now + ms
        ran = 0
        while self._queue and self._queue[0][0] <= target:
            due, _, timer, callback = heapq.heappop(self._queue)
            self._now = max(self._now, due)
            if not timer.cancelled:
                callback()
                ran += 1
        self._now = target
        return ran
