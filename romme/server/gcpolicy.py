"""Keeping the garbage collector's pauses short.

CPython's collector stops the process while it scans; a full collection scans
every container object, and a busy server holds hundreds of thousands of them
(each WebSocket connection alone keeps a couple of hundred: tasks, coroutines,
buffers). On the development machine, with 500 tables of four players, a full
collection stopped the event loop for up to 0.3 s, several times a minute, and
every move in flight waited for it.

So the objects that have lived a while are frozen (``gc.freeze``): they stay in
memory, are freed as usual when nothing refers to them, but the collector no
longer scans them, so its collections stay short. Only reference cycles among
frozen objects cannot be reclaimed while frozen; so now and then everything is
unfrozen and collected once (one longer pause, at a known, rare moment), then
frozen again.
"""

from __future__ import annotations

import gc
import logging
import time
from dataclasses import dataclass

__all__ = ["GcPolicy"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class GcPolicy:
    """``tick(now)`` every few seconds: it freezes every ``freeze_every`` seconds
    and does a full collection every ``full_every`` seconds (0: never)."""

    freeze_every: float = 2.0
    full_every: float = 900.0
    _last_freeze: float | None = None
    _last_full: float | None = None

    def start(self, now: float | None = None) -> None:
        """After start-up: collect what start-up left behind, freeze the rest."""
        now = time.monotonic() if now is None else now
        gc.collect()
        gc.freeze()
        self._last_freeze = self._last_full = now

    def tick(self, now: float | None = None) -> str | None:
        """Do what is due; returns ``"full"``, ``"freeze"`` or ``None``."""
        now = time.monotonic() if now is None else now
        if self._last_freeze is None or self._last_full is None:
            self.start(now)
            return "freeze"
        if self.full_every and now - self._last_full >= self.full_every:
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
            self._last_full = self._last_freeze = now
            log.info(
                "gc_full",
                extra={
                    "ms": round((time.perf_counter() - started) * 1000, 1),
                    "collected": found,
                    "frozen": gc.get_freeze_count(),
                },
            )
            return "full"
        if self.freeze_every and now - self._last_freeze >= self.freeze_every:
            gc.freeze()
            self._last_freeze = now
            return "freeze"
        return None

    @staticmethod
    def stop() -> None:
        """Hand every object back to the collector (tests, shutdown)."""
        gc.unfreeze()
