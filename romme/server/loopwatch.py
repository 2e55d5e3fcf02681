"""A watch on the event loop's lateness: how long the loop kept a ready task waiting.

Every table, connection and timer of the server shares one event loop, so a
callback that holds it (a long computation, a synchronous call, a collection of
the garbage collector) delays every move of every table. The watch wakes every
``every`` seconds (20 ms) and measures how late it woke: a stall of the loop
longer than ``every`` is seen within ``every`` of its length. It keeps the worst
lateness of each of the last ``SECONDS`` seconds (``/healthz`` reports them as
``loop_lag_ms``, what ``bench/bench_server.py`` reads) and logs an
``event_loop_lag`` warning for a stall over ``late`` seconds. Its own cost is a
few microseconds per wake.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque

__all__ = ["SECONDS", "LoopWatch"]

log = logging.getLogger("romme.server.lobby")

SECONDS = 60
"""How many seconds of per-second worst lateness are kept."""


class LoopWatch:
    """The event loop's worst lateness, second by second."""

    def __init__(self, every: float = 0.02, late: float = 0.1) -> None:
        self.every = every
        self.late = late
        self._seconds: deque[tuple[int, float]] = deque(maxlen=SECONDS)
        """(second of the loop's clock, worst lateness in it), oldest first."""

    def lag_ms(self, now: float | None = None) -> list[int]:
        """The worst lateness in milliseconds of each of the last ``SECONDS``
        seconds, the oldest first and the current second last (0: on time or
        not yet watched)."""
        if now is None:
            now = asyncio.get_running_loop().time()
        current = math.floor(now)
        worst = dict(self._seconds)
        return [
            round(worst.get(second, 0.0) * 1000)
            for second in range(current - SECONDS + 1, current + 1)
        ]

    def record(self, woke: float, lag: float) -> None:
        """One wake of the watch at ``woke`` (the loop's clock), ``lag`` late."""
        second = math.floor(woke)
        if self._seconds and self._seconds[-1][0] == second:
            if lag > self._seconds[-1][1]:
                self._seconds[-1] = (second, lag)
        else:
            self._seconds.append((second, lag))
        if lag > self.late:
            log.warning("event_loop_lag", extra={"ms": round(lag * 1000)})

    async def run(self) -> None:
        """Watch until cancelled."""
        loop = asyncio.get_running_loop()
        while True:
            planned = loop.time() + self.every
            await asyncio.sleep(self.every)
            woke = loop.time()
            self.record(woke, max(0.0, woke - planned))
