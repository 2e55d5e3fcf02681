"""How long the server takes for the moves at its tables, as counts per bucket of time.

Two figures of every move (a player's or a computer opponent's):

* ``move``: from the table's task taking the move to its update handed to the
  sockets: the engine, the commit, the views and their frames;
* ``commit``: the part of it spent on the commit: waiting for the group of moves
  being written when it came, then for its own group (docs/store.md, "Group
  commit").

They are counts per bucket, not a list of samples: a few integers, which never
grow, and two readings subtract, so that a benchmark reads the percentiles of
exactly the moves of its window (``/healthz`` reports them as ``move_ms``;
``bench/bench_server.py`` reads them before and after its window). A bucket's
upper bound is a quarter above the one before, so a percentile read from the
buckets is its bucket's bound: at most 25 % above the true value.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

__all__ = ["BOUNDS_MS", "STAGES", "MoveTimes", "percentile"]

BOUNDS_MS: tuple[float, ...] = tuple(round(0.1 * 1.25**i, 3) for i in range(53))
"""The buckets' upper bounds in milliseconds, from 0.1 ms to about 11 s; one more
bucket, the last, counts what took longer than the last bound."""

STAGES = ("move", "commit")


class MoveTimes:
    """The moves' durations, per stage, counted in the buckets of :data:`BOUNDS_MS`."""

    def __init__(self) -> None:
        self._counts = {stage: [0] * (len(BOUNDS_MS) + 1) for stage in STAGES}

    def record(self, stage: str, seconds: float) -> None:
        """One move took ``seconds`` in ``stage`` (one of :data:`STAGES`)."""
        self._counts[stage][bisect.bisect_left(BOUNDS_MS, seconds * 1000)] += 1

    def snapshot(self) -> dict[str, Any]:
        """The bounds and each stage's counts so far (what ``/healthz`` shows)."""
        return {"bounds": list(BOUNDS_MS), **{s: list(c) for s, c in self._counts.items()}}


def percentile(counts: Sequence[int], fraction: float) -> float | None:
    """The upper bound (ms) of the bucket that holds the ``fraction`` percentile
    of ``counts`` (``None`` if they count nothing; ``inf`` in the last bucket)."""
    total = sum(counts)
    if total == 0:
        return None
    rank = fraction * total
    seen = 0
    for index, count in enumerate(counts):
        seen += count
        if seen >= rank and count:
            return BOUNDS_MS[index] if index < len(BOUNDS_MS) else float("inf")
    return float("inf")
