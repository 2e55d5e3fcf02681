"""Load on one server process: N tables x 4 scripted WebSocket clients on loopback.

    python bench/bench_server.py [--tables 500] [--think 10] [--duration 20]
                                 [--advance 60] [--repeats 3] [--workers N] [--db URL]
                                 [--skip-echo] [--point-limit 10000] [--stake 0]
                                 [--mixed-stake N] [--serve-args "..."]

Starts ``romme serve`` (SQLite in a temporary folder unless ``--db``), creates N
four-seat tables of guests, and lets every table play full rounds: the player to
move waits ``--think`` seconds (jittered 0.5x..1.5x, like a person), then sends
the reference player's move; everybody says "Next" after a round. For each move
it measures the time from sending it to each of the four clients receiving the
resulting update (move-to-broadcast latency: until the update's last bytes come
off the client's socket, before the client decodes it; the echo's messages
alike, see bench/serverload/arrivals.py). It reports moves per second,
latency p50 / p99 / p99.9, the server's CPU time per move (the server process's
user + system time while measured, from psutil, divided by the moves measured:
everything it did for them, the WebSocket frames included), the worst stall of
the server's event loop while measured (``/healthz``'s ``loop_lag_ms``, see
romme/server/loopwatch.py), the bytes the clients received per move (read off
their sockets: what went over the wire, compressed or not), and the server's
memory (resident set of the server process; its bot worker separately), as the
median and spread (min..max) over the repeats. Beside the clients' latencies it
gives the server's own figures of the same window (``/healthz``'s ``move_ms``,
read before and after it, see romme/server/movetimes.py): p50 / p99 / p99.9 of a
move from the table taking it to its frames handed to the sockets, and of the
part of it spent waiting for the commit; what the clients measure beyond that
is the way in and out (sockets, the load generator's own loop). ``--serve-args`` passes more
options to ``romme serve`` (e.g. ``"--no-ws-deflate"``).

The tables all start when they are opened, so a window measured at once would
see only round 1's first moves (draws, discards and the first lays, with the
small views of a round's start; no lay-off, no round's end). First, for
``--advance`` seconds (default 60; 0 measures from the start), every
scripted player thinks a twentieth of ``--think`` (jittered alike): the tables
race into their rounds, and since rounds differ in length (a few moves to over
a hundred) they spread out over every part of a round. Then the normal pace
resumes, a short warm-up (``min(5, 3 x think)`` seconds) passes and the window
is measured. The report says what the CPU per move is an average of: the moves
measured by kind, summed over the repeats (the action's type, ``draw``,
``discard``, ``lay``, ``lay_off`` ..., and the players' ``next_round``; the
moves per second and the CPU per move count the actions only), and the round
the tables had reached by the window's end (median and min..max over the tables
of all repeats). At 500 tables the fast phase is bound by what the server can
do (on one core, 250 to 500 moves a second at 2 to 4 ms of CPU a move; a round
is about 75 moves of a table), so 60 s takes the tables about half a round in
(enough for lay-offs and the ends of the short rounds) at the cost of a minute
per repeat; 20 tables at a move every 5 s go through several rounds. The echo
endpoint's clients are not advanced.

Beside it, the same clients against ``/bench/echo``, a bare broadcast-echo
WebSocket of the same stack (Starlette on uvicorn): each "move" is a message of
the size of a real action, sent back to the four members of the table. The ratio
of the two is the cost of the game server itself. The echo's CPU per message is
reported too: what the stack costs (uvicorn, the WebSocket frames) without the
game.

The clients are driven by ``--workers`` processes (``bench/serverload/``; by
default one per 100 tables, at most two per core), each with its own event loop
and its share of the tables: one process cannot drive thousands of clients
without falling behind itself. Every worker measures over the same window
(wall-clock deadlines the parent sets once all clients are seated); the parent
merges their raw latency samples and reads the server's CPU time and event-loop
stall over that window. Each worker also measures how late its own event loop
wakes up while measured: the report gives the worst of them (a figure over
20 ms means the latencies are partly the load generator's, not the server's,
and says so), the load generator's CPU (all its processes) and the time it took
to seat the clients (guests created over kept-alive HTTP connections, sockets
and tables opened a bounded number at a time).

With a small ``--point-limit`` (1: one round a game) games end while measured:
the host of a finished table opens a new one with the same seats at once, so the
load stays the same and each game's result (and, with ``--stake``, the settlement
of its chips) is part of what is measured.

``--mixed-stake N`` (with a small ``--point-limit``) measures what settling
costs against a baseline of the same run: every other table is staked at N
chips, the rest are free, under the same load at the same time. It reports the
latency of each kind apart, for every move and for the moves that end a game
(those whose transaction stores the result and, at a staked table, settles the
chips), and the staked minus the free figure at p50 and p99, as the median and
spread (min..max) over the repeats.

Only loopback addresses are used; every loop is bounded in time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import psutil

from bench.serverload import worker
from bench.serverload.seats import Stats
from bench.serverload.worker import Share
from romme.server.movetimes import STAGES
from romme.server.movetimes import percentile as bucket_percentile

TABLES_PER_WORKER = 100
"""The default number of load generator processes is one per this many tables
(at most ``WORKERS_PER_CORE`` per core)."""
WORKERS_PER_CORE = 2
"""Each process wakes up for its own sockets: at 1,000 tables, four processes
took less of the machine than eight and the server's tail was shorter
(docs/server.md, "The load generator")."""
AT_ONCE = 24
"""Guests created, sockets connecting and tables opening at once, over all the
workers (each greeting reads the player's friends and tables from the database:
many more at once overran the store's pool on a loaded machine)."""
ADVANCE = 60.0
"""Seconds of fast play before measuring, by default."""
LAGGING = 0.020
"""A load generator whose event loop was this late (seconds) measured itself."""


def log_warnings(path: Path) -> dict[str, object]:
    """How often each warning was logged (JSON lines), and the worst ``ms`` of each."""
    found: dict[str, list[float]] = {}
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if isinstance(entry, dict) and entry.get("level") in ("warning", "error"):
                    found.setdefault(str(entry.get("event")), []).append(float(entry.get("ms", 0)))
    return {msg: f"{len(ms)}x, worst {max(ms):.0f} ms" for msg, ms in found.items()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def worst_in_window(lag_ms: list[int], current: int, start: float, end: float) -> float:
    """The worst of the seconds from ``start`` to ``end`` (those the window
    touches) of ``lag_ms``, the worst lateness in milliseconds of each second, the
    last that of the second ``current``; in seconds, NaN if none is known."""
    first = current - len(lag_ms) + 1
    inside = [ms for i, ms in enumerate(lag_ms) if math.floor(start) <= first + i < end]
    return max(inside, default=float("nan")) / 1000


class Server:
    def __init__(self, db: str | None, workdir: Path, extra: list[str] | None = None) -> None:
        self.port = free_port()
        self.extra = extra or []
        """More options of ``romme serve``."""
        self.workdir = workdir
        self.db = db or f"sqlite+aiosqlite:///{workdir / 'bench.db'}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "ROMME_SECRET": "bench"}
        command = os.environ.get("ROMME_BENCH_SERVER", "-m romme").split()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                *command,
                "serve",
                "--port",
                str(self.port),
                "--db",
                self.db,
                "--bot-delay",
                "0",
                "--bench-echo",
                "--log-level",
                "warning",
                # Every simulated player connects from this one address.
                "--max-connections-per-address",
                "0",
                "--accounts-per-hour",
                "0",
                # Guests from one address at staked tables, again and again: the
                # economy's limits (docs/chips.md) are not what this measures.
                "--chip-accounts-per-address",
                "0",
                "--chip-pair-staked-games",
                "0",
                "--chip-guest-stake-max",
                "1000000",
                *self.extra,
            ],
            cwd=self.workdir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.workdir / "server.log", "ab"),  # noqa: SIM115
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).is_success:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def memory(self) -> tuple[float, float]:
        """Resident memory in MiB: the server process, and its children (bot workers)."""
        assert self.proc is not None
        process = psutil.Process(self.proc.pid)
        children = sum(c.memory_info().rss for c in process.children(recursive=True))
        return process.memory_info().rss / 2**20, children / 2**20

    def cpu_seconds(self) -> float:
        assert self.proc is not None
        times = psutil.Process(self.proc.pid).cpu_times()
        return float(times.user + times.system)

    def loop_stall(self, start: float, end: float) -> float:
        """The worst lateness of the server's event loop in the seconds from
        ``start`` to ``end`` (``time.monotonic()``, the clock of the server's
        event loop, at most 60 s ago), in seconds; NaN if the server does not
        report it."""
        for _ in range(3):  # until the answer is known to be of this second
            asked = time.monotonic()
            health = httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=10).json()
            current = math.floor(time.monotonic())
            if math.floor(asked) == current:
                break
        return worst_in_window(health.get("loop_lag_ms") or [], current, start, end)

    def move_times(self) -> dict[str, list[int]]:
        """``/healthz``'s counts of the moves' durations so far, by stage (empty if
        the server does not report them)."""
        health = httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=10).json()
        found = health.get("move_ms") or {}
        return {stage: found[stage] for stage in STAGES if stage in found}

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def default_workers(tables: int) -> int:
    """One load generator process per ``TABLES_PER_WORKER`` tables, at most
    ``WORKERS_PER_CORE`` per core (beyond that they cost more than they share)."""
    cap = WORKERS_PER_CORE * (os.cpu_count() or 1)
    return max(1, min(math.ceil(tables / TABLES_PER_WORKER), cap))


def shares(
    tables: int, workers: int, port: int, think: float, settings: dict[str, Any], **more: Any
) -> list[Share]:
    """The tables split as evenly as they go over ``workers`` processes."""
    workers = max(1, min(workers, tables))
    each, rest = divmod(tables, workers)
    found, first = [], 0
    for w in range(workers):
        count = each + (w < rest)
        found.append(Share(port, first, count, think, settings, **more))
        first += count
    return found


class LoadGenerator:
    """The worker processes of one repeat (``bench/serverload/worker.py``) and the
    window they all measure over."""

    def __init__(self) -> None:
        self.pipes: list[Connection] = []
        self.processes: list[BaseProcess] = []

    def start(self, work: list[Share]) -> None:
        """A worker process for each share, started afresh (``spawn``: nothing of
        this process's state comes along)."""
        context = multiprocessing.get_context("spawn")
        for share in work:
            mine, theirs = context.Pipe()
            process = context.Process(target=worker.main, args=(theirs, share), daemon=True)
            process.start()
            theirs.close()
            self.pipes.append(mine)
            self.processes.append(process)

    def answers(self, expected: str, timeout: float) -> list[Any]:
        """Each worker's next message, which must be ``expected``; a worker that
        failed, ended or did not answer in time raises."""
        deadline = time.monotonic() + timeout
        found = []
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            while not pipe.poll(0.2):
                if not process.is_alive():
                    raise RuntimeError(f"a load generator process ended ({process.exitcode})")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no {expected!r} from a load generator in {timeout:.0f} s")
            kind, *rest = pipe.recv()
            if kind != expected:
                raise RuntimeError(f"a load generator process {kind}:\n{rest[0] if rest else ''}")
            found.append(rest)
        return found

    def ready(self, timeout: float) -> dict[str, float]:
        """Wait until every worker is set up; the seconds each step of the setup
        took, the slowest worker's at each step."""
        found: dict[str, float] = {}
        for (steps,) in self.answers("ready", timeout):
            for step, seconds in steps.items():
                found[step] = max(found.get(step, 0.0), seconds)
        return found

    def measure(self, server: Server, advance: float, warmup: float, duration: float) -> Stats:
        """Once every worker is seated: ``advance`` seconds of fast play, then the
        same window for all, starting after ``warmup`` more seconds; their samples
        merged, the server's CPU and event-loop stall read over the same window."""
        # The window begins on a whole second of the monotonic clock, the clock of
        # the server's event loop, whose lateness it reports second by second: those
        # seconds are then the window's (with a whole number of seconds measured).
        now, monotonic = time.time(), time.monotonic()
        began = math.ceil(monotonic + advance + warmup)
        start = now + began - monotonic
        end = start + duration
        for pipe in self.pipes:
            pipe.send((now + advance, start, end))
        time.sleep(max(0.0, start - time.time()))
        cpu = server.cpu_seconds()
        times = server.move_times()
        time.sleep(max(0.0, end - time.time()))
        cpu = server.cpu_seconds() - cpu
        merged = Stats(
            server_stall=server.loop_stall(began, began + duration),
            server_times=window_times(times, server.move_times()),
        )
        for (stats,) in self.answers("measured", 60 + duration):
            merged.add(stats)
        merged.cpu = cpu / duration
        merged.cpu_per_move = cpu / max(1, merged.moves)
        return merged

    def tell(self, command: str) -> None:
        for pipe in self.pipes:
            pipe.send(command)

    def stop(self) -> None:
        """The workers ended (those that do not end by themselves within 10 s,
        terminated)."""
        for pipe in self.pipes:
            pipe.close()
        for process in self.processes:
            process.join(10)
            if process.is_alive():
                process.terminate()
                process.join(10)


def measured_row(stats: Stats, duration: float) -> tuple[float, float, float, float]:
    """Moves per second, and p50 / p99 / p99.9 in ms."""
    lat = stats.latencies
    return (
        stats.moves / duration,
        percentile(lat, 0.5) * 1000,
        percentile(lat, 0.99) * 1000,
        percentile(lat, 0.999) * 1000,
    )


STAGE_TEXT = {
    "move": "from the table taking the move to its frames handed to the sockets",
    "commit": "of which waiting for its commit",
}


def window_times(
    before: dict[str, list[int]], after: dict[str, list[int]]
) -> dict[str, tuple[float, float, float]]:
    """p50, p99 and p99.9 in ms of each stage over the moves between two readings
    of ``/healthz``'s ``move_ms`` (NaN for a stage without moves)."""

    def at(counts: list[int], q: float) -> float:
        ms = bucket_percentile(counts, q)
        return math.nan if ms is None else ms

    found = {}
    for stage in STAGES:
        if stage in before and stage in after:
            counts = [b - a for a, b in zip(before[stage], after[stage], strict=True)]
            found[stage] = (at(counts, 0.5), at(counts, 0.99), at(counts, 0.999))
    return found


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def spread(values: Sequence[float], unit: str = "", digits: int = 1) -> str:
    med = statistics.median(values)
    return f"{med:.{digits}f}{unit} ({min(values):.{digits}f}..{max(values):.{digits}f})"


def stakes_apart(stats: Stats) -> dict[str, tuple[float, float]]:
    """p50 and p99 in ms of each kind of table, every move and game-ending moves."""
    found = {}
    for suffix, lists in (("", stats.by_kind), (" end", stats.ends_by_kind)):
        for kind in ("free", "staked"):
            lat = lists.get(kind, [])
            found[kind + suffix] = (percentile(lat, 0.5) * 1000, percentile(lat, 0.99) * 1000)
    return found


def print_stakes_apart(kinds: dict[str, list[tuple[float, float]]]) -> None:
    """Each kind's p50 and p99, and staked minus free, over the repeats."""
    for name, values in kinds.items():
        print(
            f"{name:>10}: p50 {spread([v[0] for v in values], ' ms', 2)}"
            f"  p99 {spread([v[1] for v in values], ' ms', 2)}"
        )
    for suffix, what in (("", "every move"), (" end", "game-ending moves")):
        free, staked = kinds["free" + suffix], kinds["staked" + suffix]
        for i, q in enumerate(("p50", "p99")):
            extra = [s[i] - f[i] for s, f in zip(staked, free, strict=True)]
            print(f"staked - free {q}, {what}: {spread(extra, ' ms', 2)}")


def kinds_line(counts: dict[str, int]) -> str:
    """The share of each kind of move measured, the commonest first: what the
    CPU per move is an average of."""
    total = sum(counts.values())
    shares = [
        f"{kind} {100 * n / total:.0f} %" for kind, n in sorted(counts.items(), key=lambda c: -c[1])
    ]
    return f"moves measured by kind: {', '.join(shares) or 'none'} (of {total})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument(
        "--think",
        type=float,
        default=10.0,
        help="seconds a player waits before each move (jittered; default 10)",
    )
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured")
    parser.add_argument(
        "--advance",
        type=float,
        default=ADVANCE,
        help="seconds of play at a twentieth of the think time before measuring, so that "
        f"the tables are well into their rounds (default {ADVANCE:.0f}; 0: measure from the start)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="load generator processes (0, the default: one per 100 tables, at most 2 per core)",
    )
    parser.add_argument("--db", default=None, help="database URL (default: SQLite, temporary)")
    parser.add_argument("--skip-echo", action="store_true")
    parser.add_argument(
        "--point-limit",
        type=int,
        default=10_000,
        help="the tables' point limit (default 10000: no game ends while measured)",
    )
    parser.add_argument("--stake", type=int, default=0, help="the tables' stake in chips")
    parser.add_argument(
        "--mixed-stake",
        type=int,
        default=0,
        help="every other table staked at this many chips, the rest free, measured apart",
    )
    parser.add_argument(
        "--serve-args", default="", help='more options of "romme serve", e.g. "--no-ws-deflate"'
    )
    args = parser.parse_args()
    if args.tables < 1 or args.workers < 0 or args.advance < 0:
        parser.error("--tables must be at least 1, --workers and --advance at least 0")
    settings = {"seats": 4, "point_limit": args.point_limit, "turn_seconds": 120}
    if args.stake:
        settings["stake"] = args.stake
    workers = min(args.tables, args.workers or default_workers(args.tables))
    warmup = min(5.0, args.think * 3)
    setup_limit = 120 + 2 * args.tables  # seconds the workers may take to seat their clients

    rows: dict[str, list[tuple[float, float, float, float]]] = {"server": [], "echo": []}
    memory: list[tuple[float, float]] = []
    cpu: list[float] = []
    client_cpu: list[float] = []
    client_lag: dict[str, list[float]] = {"server": [], "echo": []}
    """The load generator's worst event-loop lag in ms while measured, each repeat."""
    seating: list[float] = []
    """Seconds from starting the load generator to every table playing, each repeat."""
    per_move: dict[str, list[float]] = {"server": [], "echo": []}
    """CPU ms per move (per echoed message) of each repeat."""
    stalls: dict[str, list[float]] = {"server": [], "echo": []}
    """The server's worst event-loop stall in ms while measured, each repeat."""
    server_times: dict[str, list[tuple[float, float, float]]] = {}
    """The server's own p50, p99 and p99.9 of each stage of a move, each repeat."""
    wire: list[float] = []
    """Bytes the clients received per move, each repeat."""
    loads: list[float] = []
    """The machine's load average (1 minute) at the end of each repeat."""
    errors = 0
    games: list[float] = []
    codes: dict[str, int] = {}
    sent_kinds: dict[str, int] = {}
    """Moves measured by kind, over all repeats."""
    rounds: list[int] = []
    """The round each table was in at the end of the window, over all repeats."""
    # Per kind ("free", "staked", "free end", "staked end"): (p50, p99) in ms of each repeat.
    kinds: dict[str, list[tuple[float, float]]] = {}
    for repeat in range(args.repeats):
        tmp = tempfile.mkdtemp(prefix="romme-bench-")
        server = Server(args.db, Path(tmp), args.serve_args.split())
        server.start()
        work = shares(
            args.tables,
            workers,
            server.port,
            args.think,
            settings,
            mixed_stake=args.mixed_stake,
            tag=f"{repeat}x{os.getpid()}",
            at_once=max(2, AT_ONCE // workers),
        )
        generator = LoadGenerator()
        began = time.monotonic()
        try:
            generator.start(work)
            setup_steps = generator.ready(setup_limit)
            seating.append(time.monotonic() - began)
            print(
                f"repeat {repeat + 1}: seated in {seating[-1]:.0f} s; the window opens in "
                f"{args.advance + warmup:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            stats = generator.measure(server, args.advance, warmup, args.duration)
            generator.tell("stop" if args.skip_echo else "echo")
            if args.mixed_stake:
                for name, values in stakes_apart(stats).items():
                    kinds.setdefault(name, []).append(values)
            cpu.append(stats.cpu * 100)
            per_move["server"].append(stats.cpu_per_move * 1000)
            stalls["server"].append(stats.server_stall * 1000)
            for stage, figures in stats.server_times.items():
                server_times.setdefault(stage, []).append(figures)
            wire.append(stats.received / max(1, stats.moves))
            client_cpu.append(stats.client_cpu * 100)
            client_lag["server"].append(stats.client_lag * 1000)
            memory.append(server.memory())
            errors += stats.errors
            games.append(stats.games)
            for code, count in stats.codes.items():
                codes[code] = codes.get(code, 0) + count
            for kind, count in stats.sent_kinds.items():
                sent_kinds[kind] = sent_kinds.get(kind, 0) + count
            rounds += stats.rounds.values()
            rows["server"].append(measured_row(stats, args.duration))
            if not args.skip_echo:
                generator.ready(setup_limit)
                echo = generator.measure(server, 0.0, warmup, args.duration)
                per_move["echo"].append(echo.cpu_per_move * 1000)
                stalls["echo"].append(echo.server_stall * 1000)
                client_lag["echo"].append(echo.client_lag * 1000)
                rows["echo"].append(measured_row(echo, args.duration))
        except BaseException:
            print(f"failed; the server's log is in {tmp}", file=sys.stderr)
            raise
        finally:
            generator.stop()
            server.stop()
        warnings = log_warnings(Path(tmp) / "server.log")
        if warnings:
            print(f"repeat {repeat + 1}: the server logged {warnings}")
        if not os.environ.get("ROMME_BENCH_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
        loads.append(os.getloadavg()[0])
        lag = max(client_lag["server"][-1:] + client_lag["echo"][-1:])
        print(
            f"repeat {repeat + 1}: server {rows['server'][-1]}"
            + (f" echo {rows['echo'][-1]}" if rows["echo"] else "")
            + f" CPU/move {per_move['server'][-1]:.2f} ms, worst loop stall "
            f"{stalls['server'][-1]:.0f} ms, load {loads[-1]:.1f}, seated in "
            f"{seating[-1]:.1f} s (slowest worker: "
            f"{', '.join(f'{k} {v:.1f} s' for k, v in setup_steps.items())}), "
            f"load generator lag {lag:.0f} ms"
            + (" (OVER 20 ms: it measured itself)" if lag > LAGGING * 1000 else ""),
            flush=True,
        )

    print(
        f"\n{args.tables} tables x 4 clients, think {args.think} s, "
        f"point limit {args.point_limit}, stake {args.stake}, mixed stake {args.mixed_stake}, "
        f"advanced {args.advance:.0f} s, {args.duration:.0f} s measured, "
        f"{args.repeats} repeats (median and min..max)"
    )
    print(
        kinds_line(sent_kinds)
        + (f"; the tables' round while measured: {spread(rounds, '', 0)}" if rounds else "")
    )
    for name in ("server", "echo"):
        if not rows[name]:
            continue
        cols = list(zip(*rows[name], strict=True))
        print(
            f"{name:>6}: {spread(list(cols[0]), ' moves/s')}  "
            f"p50 {spread(list(cols[1]), ' ms', 2)}  p99 {spread(list(cols[2]), ' ms', 2)}  "
            f"p99.9 {spread(list(cols[3]), ' ms', 2)}"
        )
    for name in ("server", "echo"):
        if per_move[name]:
            print(
                f"{name:>6}: CPU per move {spread(per_move[name], ' ms', 2)}, "
                f"worst event-loop stall {spread(stalls[name], ' ms', 0)}"
            )
    for stage, repeats in server_times.items():
        cols = list(zip(*repeats, strict=True))
        print(
            f"  inside the server, {stage} ({STAGE_TEXT[stage]}): "
            f"p50 {spread(list(cols[0]), ' ms', 2)}  p99 {spread(list(cols[1]), ' ms', 2)}  "
            f"p99.9 {spread(list(cols[2]), ' ms', 2)}"
        )
    print(
        f"bytes received per move (all clients of a table): {spread(wire, ' B', 0)}; "
        f"machine load (1 min): {spread(loads, '')}"
    )
    print(
        f"server memory: {spread([m[0] for m in memory], ' MiB')} "
        f"(+ bot worker {spread([m[1] for m in memory], ' MiB')}); "
        f"server CPU while measured: {spread(cpu, ' % of a core')}; errors: {errors} {codes}; "
        f"games ended while measured: {spread(games, '', 0)}"
    )
    print(
        f"load generator: {workers} process{'es' if workers > 1 else ''}, "
        f"seated the clients in {spread(seating, ' s')}, "
        f"CPU {spread(client_cpu, ' % of a core')}, worst event-loop lag "
        f"{spread(client_lag['server'], ' ms')}"
        + (f" (echo {spread(client_lag['echo'], ' ms')})" if client_lag["echo"] else "")
    )
    if max(client_lag["server"] + client_lag["echo"]) > LAGGING * 1000:
        print(
            f"  over {LAGGING * 1000:.0f} ms: the latencies are partly the load generator's, "
            "not the server's (more --workers, or a machine of its own)"
        )
    if kinds:
        print_stakes_apart(kinds)
    if rows["echo"]:
        s = [statistics.median(c) for c in zip(*rows["server"], strict=True)]
        e = [statistics.median(c) for c in zip(*rows["echo"], strict=True)]
        print(
            f" ratio: p50 x{s[1] / e[1]:.1f}, p99 x{s[2] / e[2]:.1f}, "
            f"p99.9 x{s[3] / e[3]:.1f} (server / echo)"
        )


if __name__ == "__main__":
    main()
