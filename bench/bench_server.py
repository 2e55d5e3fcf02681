"""Load on one server process: N tables x 4 scripted WebSocket clients on loopback.

    python bench/bench_server.py [--tables 500] [--think 10] [--duration 20]
                                 [--repeats 3] [--db URL] [--skip-echo]
                                 [--point-limit 10000] [--stake 0]
                                 [--mixed-stake N] [--serve-args "..."]

Starts ``romme serve`` (SQLite in a temporary folder unless ``--db``), creates N
four-seat tables of guests, and lets every table play full rounds: the player to
move waits ``--think`` seconds (jittered 0.5x..1.5x, like a person), then sends
the reference player's move; everybody says "Next" after a round. For each move
it measures the time from sending it to each of the four clients receiving the
resulting update (move-to-broadcast latency). It reports moves per second,
latency p50 / p99 / p99.9, the server's CPU time per move (the server process's
user + system time while measured, from psutil, divided by the moves measured:
everything it did for them, the WebSocket frames included), the worst stall of
the server's event loop while measured (``/healthz``'s ``loop_lag_ms``, see
romme/server/loopwatch.py), the bytes the clients received per move (read off
their sockets: what went over the wire, compressed or not), and the server's
memory (resident set of the server process; its bot worker separately), as the
median and spread (min..max) over the repeats. ``--serve-args`` passes more
options to ``romme serve`` (e.g. ``"--no-ws-deflate"``).

Beside it, the same clients against ``/bench/echo``, a bare broadcast-echo
WebSocket of the same stack (Starlette on uvicorn): each "move" is a message of
the size of a real action, sent back to the four members of the table. The ratio
of the two is the cost of the game server itself. The echo's CPU per message is
reported too: what the stack costs (uvicorn, the WebSocket frames) without the
game.

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
import asyncio
import contextlib
import gc
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from http.cookiejar import DefaultCookiePolicy
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import psutil
from websockets.asyncio.client import ClientConnection, connect

from romme.engine.reference import reference_action
from romme.engine.view import SeatView

CONNECTING = 25
"""WebSockets opened at once while setting up, each batch after the server has
greeted the one before (each greeting reads the player's friends and tables from
the database: more at once overran the store's pool on a loaded machine)."""
LOBBY = '{"type":"lobby'
"""How every lobby message begins (``lobby``, ``lobby_update``, ``lobby_delta``,
``lobby_chat``)."""


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


def count_received(ws: ClientConnection, stats: Stats) -> None:
    """Add what arrives on ``ws``'s socket, as it came over the wire, to
    ``stats.received`` while measured."""
    receive = ws.data_received

    def counted(data: bytes) -> None:
        if stats.measuring:
            stats.received += len(data)
        receive(data)

    ws.data_received = counted  # type: ignore[method-assign]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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

    def loop_stall(self, seconds: float) -> float:
        """The worst lateness of the server's event loop in the last ``seconds``
        (at most 60), in seconds; NaN if the server does not report it."""
        data = httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=10).json()
        lag = data.get("loop_lag_ms")
        if not lag:
            return float("nan")
        return max(lag[-min(len(lag), int(seconds) + 1) :]) / 1000

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    games: int = 0
    """Games that ended while measured."""
    errors: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    """Latencies by the kind of table ("free", "staked"), every move."""
    ends_by_kind: dict[str, list[float]] = field(default_factory=dict)
    """Latencies by the kind of table of the moves that ended a game."""
    measuring: bool = False
    cpu: float = 0.0
    """The server's CPU use while measured (1.0 = one core busy)."""
    client_cpu: float = 0.0
    """The load generator's own CPU use while measured (this process)."""
    client_lag: float = 0.0
    """The worst lateness of the load generator's event loop while measured: a
    latency this long may be the load generator's, not the server's."""
    cpu_per_move: float = 0.0
    """The server's CPU seconds while measured per move measured."""
    server_stall: float = float("nan")
    """The worst lateness of the server's event loop while measured, in seconds
    (NaN: the server does not report it)."""
    received: int = 0
    """Bytes the clients received while measured (off their sockets)."""
    moved: int = 0
    """The moves measured (``moves`` becomes their rate at the end)."""


class Seat:
    """One scripted client at a real table; reads its socket from the moment it opens."""

    def __init__(
        self, ws: ClientConnection, stats: Stats, think: float, sent: dict[tuple[int, int], float]
    ) -> None:
        self.ws = ws
        count_received(ws, stats)
        self.table = -1
        self.stats = stats
        self.think = think
        self.sent = sent
        self.acted: set[Any] = set()
        self.group: list[Seat] = []
        """The four seats of the table, the host first."""
        self.settings: dict[str, Any] = {}
        self.games = 0
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.stop_at = time.perf_counter() + 3600
        self.greeted = asyncio.Event()
        """Set when the server's greeting (``welcome`` .. ``friends``) has arrived."""
        self.reader = asyncio.get_running_loop().create_task(self.run())

    async def request(self, data: dict[str, Any], msg_id: str) -> dict[str, Any]:
        future = self.replies[msg_id] = asyncio.get_running_loop().create_future()
        await self.ws.send(json.dumps({**data, "id": msg_id}))
        return await asyncio.wait_for(future, 60)

    async def run(self) -> None:
        try:
            # Like the web client: the lobby's changes, not its whole lists after
            # each change (while 2,000 clients sit down, the whole lists starved a
            # loaded machine).
            await self.ws.send('{"type": "lobby_subscribe", "deltas": true}')
            async for text in self.ws:
                now = time.perf_counter()
                if now > self.stop_at:
                    break
                if text.startswith(LOBBY):
                    # The lobby's lists: many and large while the tables are set
                    # up, and nothing a seat needs (parsing them starved the load
                    # generator on a loaded machine).
                    continue
                data = json.loads(text)
                kind = data.get("type")
                future = self.replies.pop(data.get("id"), None) if "id" in data else None
                if future is not None and not future.done():
                    future.set_result(data)
                if kind == "update":
                    started = self.sent.get((self.table, data["version"]))
                    if started is not None and self.stats.measuring:
                        self.record(now - started, data["view"]["phase"] == "game_over")
                    self.maybe_act(data["view"], data["version"])
                elif kind == "table" and data["table"]["view"] is not None:
                    if data["table"]["id"] == self.table:
                        self.maybe_act(data["table"]["view"], data["table"]["version"])
                elif kind == "game_over" and data["table"] == self.table and self is self.group[0]:
                    if self.stats.measuring:
                        self.stats.games += 1
                    asyncio.get_running_loop().create_task(self.next_game())
                elif kind == "friends":
                    self.greeted.set()
                elif kind == "error":
                    self.stats.errors += 1
                    self.stats.codes[data.get("code", "?")] = (
                        self.stats.codes.get(data.get("code", "?"), 0) + 1
                    )
        except Exception:
            pass

    def record(self, latency: float, game_over: bool) -> None:
        self.stats.latencies.append(latency)
        kind = "staked" if self.settings.get("stake") else "free"
        self.stats.by_kind.setdefault(kind, []).append(latency)
        if game_over:
            self.stats.ends_by_kind.setdefault(kind, []).append(latency)

    def maybe_act(self, view_json: dict[str, Any], version: int) -> None:
        phase = view_json["phase"]
        if phase == "round_over":
            key = ("next", view_json["round_no"])
            if key not in self.acted:
                self.acted.add(key)
                asyncio.get_running_loop().create_task(
                    self.ws.send(json.dumps({"type": "next_round", "table": self.table}))
                )
            return
        if phase not in ("draw", "play") or view_json["current"] != view_json["seat"]:
            return
        if ("act", version) in self.acted:
            return
        self.acted.add(("act", version))
        asyncio.get_running_loop().create_task(self.act(view_json, version))

    async def next_game(self) -> None:
        """The host opens a new table for the same four and starts it."""
        self.games += 1
        with contextlib.suppress(Exception):
            await open_table(self.group, self.settings, f"{id(self)}g{self.games}")

    async def act(self, view_json: dict[str, Any], version: int) -> None:
        await asyncio.sleep(self.think * random.uniform(0.5, 1.5))
        action = reference_action(SeatView.from_json(view_json))
        if action is None or time.perf_counter() > self.stop_at:
            return
        data = {k: v for k, v in action.to_json().items() if k != "seat"}
        self.sent[(self.table, version + 1)] = time.perf_counter()
        if self.stats.measuring:
            self.stats.moves += 1
        with contextlib.suppress(Exception):
            await self.ws.send(json.dumps({"type": "action", "table": self.table, "action": data}))


async def watch_lag(stats: Stats, duration: float, every: float = 0.01) -> None:
    """Record how late this process's event loop wakes up, for ``duration`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + duration
    while loop.time() < end:
        planned = loop.time() + every
        await asyncio.sleep(every)
        stats.client_lag = max(stats.client_lag, loop.time() - planned)


async def guest(http: httpx.AsyncClient, name: str) -> str:
    for attempt in range(5):
        try:
            answer = await http.post("/api/guest", json={"nickname": name})
        except httpx.TransportError:  # a kept-alive connection the server had closed
            await asyncio.sleep(0.1 * (attempt + 1))
            continue
        answer.raise_for_status()
        return "; ".join(f"{k}={v}" for k, v in answer.cookies.items())
    raise RuntimeError(f"could not create the guest {name}")


async def open_table(group: list[Seat], settings: dict[str, Any], tag: str) -> None:
    """A new table of the four seats (the first hosts), started."""
    reply = await group[0].request({"type": "create_table", "settings": settings}, f"c{tag}")
    table = reply["table"]["id"]
    for seat in group:
        seat.table = table
        seat.acted.clear()
    for seat in group[1:]:
        await seat.request({"type": "join_table", "table": table}, f"j{tag}")
    await group[0].request({"type": "start_game", "table": table}, f"s{tag}")


async def open_tables(
    seats: list[Seat], settings: dict[str, Any], tag: str, mixed_stake: int = 0
) -> None:
    """A started table for each four seats in turn.

    With a mixed stake every other table is staked, so that staked and free
    tables share the same load.
    """
    for t in range(len(seats) // 4):
        group = seats[4 * t : 4 * t + 4]
        table_settings = {**settings, "stake": mixed_stake} if mixed_stake and t % 2 else settings
        for seat in group:
            seat.group = group
            seat.settings = table_settings
        await open_table(group, table_settings, f"{tag}{t}")


async def close_seats(seats: list[Seat]) -> None:
    """Stop the clients: their sockets closed, their readers ended."""
    for seat in seats:
        seat.stop_at = 0
    await asyncio.gather(*(seat.ws.close() for seat in seats), return_exceptions=True)
    for seat in seats:
        seat.reader.cancel()
    await asyncio.gather(*(seat.reader for seat in seats), return_exceptions=True)


async def run_server_load(
    server: Server,
    tables: int,
    think: float,
    duration: float,
    tag: str,
    settings: dict[str, Any],
    mixed_stake: int = 0,
) -> Stats:
    port = server.port
    stats = Stats()
    sent: dict[tuple[int, int], float] = {}
    base = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws"
    limits = httpx.Limits(max_connections=20, keepalive_expiry=2.0)
    # At most as many requests under way as the pool has connections: httpx's
    # pool scans its whole queue for each request (thousands queued at once cost
    # the load generator minutes of CPU).
    pending = asyncio.Semaphore(20)

    async def one_guest(name: str) -> str:
        async with pending:
            return await guest(http, name)

    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        # The client keeps no cookie: a request with the previous guest's session
        # would end that session (a new guest replaces the one logged in).
        http.cookies.jar.set_policy(DefaultCookiePolicy(allowed_domains=[]))
        cookies = await asyncio.gather(
            *(one_guest(f"b{tag}{t}s{s}") for t in range(tables) for s in range(4))
        )
    seats: list[Seat] = []
    for start in range(0, len(cookies), CONNECTING):
        sockets = await asyncio.gather(
            *(
                connect(
                    url,
                    additional_headers={"Cookie": c},
                    max_size=2**22,
                    ping_interval=None,
                    max_queue=None,
                )
                for c in cookies[start : start + CONNECTING]
            )
        )
        batch = [Seat(ws, stats, think, sent) for ws in sockets]
        # The server has welcomed them (its last greeting is the friends list)
        # before the next ones come.
        await asyncio.wait_for(asyncio.gather(*(seat.greeted.wait() for seat in batch)), 300)
        seats += batch
    await open_tables(seats, settings, "", mixed_stake)
    await asyncio.sleep(min(5.0, think * 3))
    # The load generator's garbage collector would pause it for up to ~0.2 s with
    # 2,000 clients' state in memory: a pause that is not the server's latency.
    gc.collect()
    gc.freeze()
    gc.disable()
    stats.measuring = True
    began = time.perf_counter()
    cpu_start = server.cpu_seconds()
    client_start = time.process_time()
    watcher = asyncio.get_running_loop().create_task(watch_lag(stats, duration))
    await asyncio.sleep(duration)
    await watcher
    stats.measuring = False
    elapsed = time.perf_counter() - began
    server_cpu = server.cpu_seconds() - cpu_start
    stats.server_stall = await asyncio.to_thread(server.loop_stall, elapsed)
    stats.cpu = server_cpu / elapsed
    stats.cpu_per_move = server_cpu / max(1, stats.moves)
    stats.client_cpu = (time.process_time() - client_start) / elapsed
    gc.enable()
    gc.unfreeze()
    stats.moved = stats.moves
    stats.moves = int(stats.moves / elapsed * 1000)  # moves per 1000 s -> per s below
    await close_seats(seats)
    return stats


async def run_echo_load(server: Server, tables: int, think: float, duration: float) -> Stats:
    """The same clients on /bench/echo: one 'move' at a time per group of four."""
    stats = Stats()
    url = f"ws://127.0.0.1:{server.port}/bench/echo"
    payload = json.dumps(
        {"type": "action", "table": 1, "action": {"type": "discard", "card": "7H"}}
    )
    sockets: list[ClientConnection] = []
    for start in range(0, tables * 4, 100):
        sockets += await asyncio.gather(
            *(
                connect(f"{url}?group={i // 4}", ping_interval=None)
                for i in range(start, min(start + 100, tables * 4))
            )
        )
    sent: dict[tuple[int, int], float] = {}
    stop_at = time.perf_counter() + duration + 10

    async def reader(ws: ClientConnection, group: int) -> None:
        async for text in ws:
            now = time.perf_counter()
            if now > stop_at:
                break
            seq = int(json.loads(text)["seq"])
            started = sent.get((group, seq))
            if started is not None and stats.measuring:
                stats.latencies.append(now - started)

    async def mover(group: int) -> None:
        seq = 0
        members = sockets[4 * group : 4 * group + 4]
        while time.perf_counter() < stop_at - 10:
            await asyncio.sleep(think * random.uniform(0.5, 1.5))
            seq += 1
            sent[(group, seq)] = time.perf_counter()
            if stats.measuring:
                stats.moves += 1
            await members[seq % 4].send(payload[:-1] + f',"seq":{seq}}}')

    readers = [asyncio.create_task(reader(ws, i // 4)) for i, ws in enumerate(sockets)]
    movers = [asyncio.create_task(mover(g)) for g in range(tables)]
    await asyncio.sleep(min(5.0, think * 3))
    # The load generator's garbage collector would pause it for up to ~0.2 s with
    # 2,000 clients' state in memory: a pause that is not the server's latency.
    gc.collect()
    gc.freeze()
    gc.disable()
    stats.measuring = True
    began = time.perf_counter()
    cpu_start = server.cpu_seconds()
    await asyncio.sleep(duration)
    stats.measuring = False
    elapsed = time.perf_counter() - began
    stats.cpu_per_move = (server.cpu_seconds() - cpu_start) / max(1, stats.moves)
    stats.server_stall = await asyncio.to_thread(server.loop_stall, elapsed)
    stats.moves = int(stats.moves / elapsed * 1000)
    for task in movers:
        task.cancel()
    for ws in sockets:
        await ws.close()
    for task in readers:
        task.cancel()
    await asyncio.gather(*movers, *readers, return_exceptions=True)
    return stats


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def spread(values: list[float], unit: str = "", digits: int = 1) -> str:
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
    parser.add_argument("--repeats", type=int, default=3)
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
    settings = {"seats": 4, "point_limit": args.point_limit, "turn_seconds": 120}
    if args.stake:
        settings["stake"] = args.stake

    rows: dict[str, list[tuple[float, float, float, float]]] = {"server": [], "echo": []}
    memory: list[tuple[float, float]] = []
    cpu: list[float] = []
    client_cpu: list[float] = []
    client_lag: list[float] = []
    per_move: dict[str, list[float]] = {"server": [], "echo": []}
    """CPU ms per move (per echoed message) of each repeat."""
    stalls: dict[str, list[float]] = {"server": [], "echo": []}
    """The server's worst event-loop stall in ms while measured, each repeat."""
    wire: list[float] = []
    """Bytes the clients received per move, each repeat."""
    loads: list[float] = []
    """The machine's load average (1 minute) at the end of each repeat."""
    errors = 0
    games: list[float] = []
    codes: dict[str, int] = {}
    # Per kind ("free", "staked", "free end", "staked end"): (p50, p99) in ms of each repeat.
    kinds: dict[str, list[tuple[float, float]]] = {}
    for repeat in range(args.repeats):
        tmp = tempfile.mkdtemp(prefix="romme-bench-")
        server = Server(args.db, Path(tmp), args.serve_args.split())
        server.start()
        try:
            stats = asyncio.run(
                run_server_load(
                    server,
                    args.tables,
                    args.think,
                    args.duration,
                    f"{repeat}x{os.getpid()}",
                    settings,
                    args.mixed_stake,
                )
            )
            if args.mixed_stake:
                for name, values in stakes_apart(stats).items():
                    kinds.setdefault(name, []).append(values)
            cpu.append(stats.cpu * 100)
            per_move["server"].append(stats.cpu_per_move * 1000)
            stalls["server"].append(stats.server_stall * 1000)
            wire.append(stats.received / max(1, stats.moved))
            client_cpu.append(stats.client_cpu * 100)
            client_lag.append(stats.client_lag * 1000)
            memory.append(server.memory())
            errors += stats.errors
            games.append(stats.games)
            for code, count in stats.codes.items():
                codes[code] = codes.get(code, 0) + count
            lat = stats.latencies
            rows["server"].append(
                (
                    stats.moves / 1000,
                    percentile(lat, 0.5) * 1000,
                    percentile(lat, 0.99) * 1000,
                    percentile(lat, 0.999) * 1000,
                )
            )
            if not args.skip_echo:
                echo = asyncio.run(run_echo_load(server, args.tables, args.think, args.duration))
                per_move["echo"].append(echo.cpu_per_move * 1000)
                stalls["echo"].append(echo.server_stall * 1000)
                lat = echo.latencies
                rows["echo"].append(
                    (
                        echo.moves / 1000,
                        percentile(lat, 0.5) * 1000,
                        percentile(lat, 0.99) * 1000,
                        percentile(lat, 0.999) * 1000,
                    )
                )
        except BaseException:
            print(f"failed; the server's log is in {tmp}", file=sys.stderr)
            raise
        finally:
            server.stop()
        warnings = log_warnings(Path(tmp) / "server.log")
        if warnings:
            print(f"repeat {repeat + 1}: the server logged {warnings}")
        if not os.environ.get("ROMME_BENCH_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
        loads.append(os.getloadavg()[0])
        print(
            f"repeat {repeat + 1}: server {rows['server'][-1]}"
            + (f" echo {rows['echo'][-1]}" if rows["echo"] else "")
            + f" CPU/move {per_move['server'][-1]:.2f} ms, worst loop stall "
            f"{stalls['server'][-1]:.0f} ms, load {loads[-1]:.1f}",
            flush=True,
        )

    print(
        f"\n{args.tables} tables x 4 clients, think {args.think} s, "
        f"point limit {args.point_limit}, stake {args.stake}, mixed stake {args.mixed_stake}, "
        f"{args.duration:.0f} s measured, {args.repeats} repeats (median and min..max)"
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
    print(
        f"bytes received per move (all clients of a table): {spread(wire, ' B', 0)}; "
        f"machine load (1 min): {spread(loads, '')}"
    )
    print(
        f"server memory: {spread([m[0] for m in memory], ' MiB')} "
        f"(+ bot worker {spread([m[1] for m in memory], ' MiB')}); "
        f"server CPU while measured: {spread(cpu, ' % of a core')}; load generator CPU: "
        f"{spread(client_cpu, ' % of a core')}, its worst event-loop lag "
        f"{spread(client_lag, ' ms')}; errors: {errors} {codes}; "
        f"games ended while measured: {spread(games, '', 0)}"
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
