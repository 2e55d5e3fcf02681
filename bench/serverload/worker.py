"""One process of the load generator: its share of the tables, measured over a
window the parent sets for all of them.

One Python process cannot drive thousands of clients without its own event loop
falling behind (at 500 tables of four it lagged by up to 114 ms: latencies of the
load generator, not of the server). The parent (``bench/bench_server.py``) starts
several of these, each with its own event loop and its own tables (all four seats
of a table in the same process, so that a move's send and receive times come from
the same clock), and talks to each over a pipe:

1. the worker seats its clients and opens its tables, then sends
   ``("ready", seconds)``, the seconds each step of that took;
2. the parent sends the window, ``(fast_until, start, end)`` in wall-clock
   seconds, the same for every worker, after all of them are ready: until
   ``fast_until`` the scripted players think a twentieth of the time (the tables
   race into their rounds; see ``Pace``), then the window is measured from
   ``start`` to ``end``;
3. the worker measures from ``start`` to ``end`` (its own event loop's lateness
   too, from its clients' think times) and sends ``("measured", stats)``: its
   raw latency samples and counts, which the parent merges;
4. the parent sends ``"echo"`` (the same for the same tables on ``/bench/echo``,
   steps 1 to 3 again) or ``"stop"``.

A failure is sent as ``("failed", traceback)``, and the worker ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from bench.serverload.echo import EchoTables
from bench.serverload.seats import (
    Pace,
    Stats,
    close_seats,
    connect_seats,
    create_guests,
    open_tables,
)

SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the interpreter when another wants it (Python's default
is 0.005): the event loop waits at most this long for a move being computed."""
GC_AHEAD = 1.0
"""Seconds before the window at which the worker collects its garbage and stops
its collector: a collection of 2,000 clients' state pauses a process for up to
0.2 s, a pause that is not the server's latency."""


@dataclass(frozen=True)
class Share:
    """What one worker drives."""

    port: int
    first: int
    """The number of its first table among all of the run's (tables are numbered
    from 0 across the workers: guests' names, echo groups, mixed stakes)."""
    tables: int
    think: float
    settings: dict[str, Any] = field(default_factory=dict)
    mixed_stake: int = 0
    tag: str = ""
    """Part of every guest's name, unique to the run."""
    at_once: int = 8
    """Guests created, sockets connecting and tables opening at once."""


def main(conn: Connection, share: Share) -> None:
    """The worker process's entry point."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        asyncio.run(work(conn, share))
    except BaseException:
        with contextlib.suppress(OSError):  # the parent may be gone
            conn.send(("failed", traceback.format_exc()))
    finally:
        conn.close()


async def work(conn: Connection, share: Share) -> None:
    stats = Stats()
    sent: dict[tuple[int, int], float] = {}
    numbers = range(share.first, share.first + share.tables)
    names = [f"b{share.tag}{t}s{s}" for t in numbers for s in range(4)]
    url = f"ws://127.0.0.1:{share.port}"
    took = Stopwatch()
    cookies = await create_guests(f"http://127.0.0.1:{share.port}", names, share.at_once)
    took.lap("guests")
    pace = Pace(share.think)
    seats = await connect_seats(f"{url}/ws", cookies, stats, pace, sent, share.at_once)
    took.lap("sockets")
    await open_tables(
        seats, share.settings, "", share.mixed_stake, share.first, parallel=share.at_once
    )
    took.lap("tables")
    await measure(conn, stats, took.laps, pace)
    # The players stay until the parent has read the server's figures of the
    # window: thousands of them leaving at once keep the server busy for a while.
    command = await asyncio.to_thread(conn.recv)
    await close_seats(seats)
    if command != "echo":
        return
    echo = EchoTables(Stats(), share.think)
    try:
        took = Stopwatch()
        await echo.connect(f"{url}/bench/echo", numbers, share.at_once)
        took.lap("sockets")
        echo.start()
        await measure(conn, echo.stats, took.laps)
    finally:
        await echo.close()


class Stopwatch:
    """Seconds taken by each step of the setup, in order."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self.last = time.monotonic()

    def lap(self, step: str) -> None:
        now = time.monotonic()
        self.laps[step] = now - self.last
        self.last = now


async def measure(
    conn: Connection, stats: Stats, setup: dict[str, float], pace: Pace | None = None
) -> None:
    """Tell the parent this worker is ready (and how long each step of its
    ``setup`` took), let ``pace`` (the scripted players', if any) race until the
    time the parent sends, measure over the window it sends, and send it what
    was measured."""
    conn.send(("ready", setup))
    fast_until, start, end = await asyncio.to_thread(conn.recv)
    if pace is not None:
        pace.fast_until = fast_until
    await asyncio.sleep(start - GC_AHEAD - time.time())
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        await asyncio.sleep(start - time.time())
        stats.measuring = True
        cpu = time.process_time()
        # How late the event loop is comes from the clients' own timers
        # (Stats.think): a watch of its own would cost the CPU it measures.
        await asyncio.sleep(end - time.time())
        stats.measuring = False
        stats.client_cpu = (time.process_time() - cpu) / (end - start)
    finally:
        gc.enable()
        gc.unfreeze()
    conn.send(("measured", stats))
