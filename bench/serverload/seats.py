"""Scripted players of real tables, for the server benchmarks.

A :class:`Seat` is one WebSocket client sitting at a four-seat table: it plays the
reference player's moves after a jittered think time and records, for every move
of its table, the time from the move being sent to this client receiving the
resulting update (move-to-broadcast latency), and counts the moves it sends by
their kind. The seats of a process share one :class:`Pace`: before the measured
window it can make them think a twentieth of the time, so that the tables race
into their rounds. The functions below set them up quickly and politely: guests
created over a small pool of kept-alive HTTP connections, sockets opened a
bounded number at a time (each slot free again once the server has greeted its
client), tables opened a few at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from http.cookiejar import DefaultCookiePolicy
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect

from bench.serverload.arrivals import Arrivals
from romme.engine.reference import reference_action
from romme.engine.view import SeatView

LOBBY = '{"type":"lobby'
"""How every lobby message begins (``lobby``, ``lobby_update``, ``lobby_delta``,
``lobby_chat``)."""


FAST = 20
"""How many times faster the scripted players think while advancing."""


@dataclass
class Pace:
    """How long the seats of a process think before a move: ``think`` seconds
    (jittered 0.5x..1.5x, like a person), a ``FAST``-th of that until the
    wall-clock time ``fast_until``. Racing ahead first lets a window measured
    from a fresh start see the moves of every part of a round (lay-offs, round
    ends, the larger views late in a round), not only round 1's first moves."""

    think: float
    fast_until: float = 0.0

    def seconds(self) -> float:
        """The next think time."""
        fast = time.time() < self.fast_until
        return self.think / (FAST if fast else 1) * random.uniform(0.5, 1.5)


@dataclass
class Stats:
    """What one load generator (or one of its worker processes) measured; plain
    data, so that a worker can send it to the parent, which merges them."""

    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    """Moves sent while measured."""
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
    """The load generator's own CPU use while measured (all its processes)."""
    client_lag: float = 0.0
    """The worst lateness of the load generator's event loops while measured, in
    seconds: a latency this long may be the load generator's, not the server's.
    Taken from the timers the clients wait on anyway (their think times, see
    :meth:`think`), not from a timer of its own: on this machine a wake-up of a
    process costs about a quarter of a millisecond of CPU, and a timer every
    10 ms cost an otherwise idle process 2.2 to 2.7 % of a core, taken from the
    server measured (docs/server.md, "The load generator")."""
    cpu_per_move: float = 0.0
    """The server's CPU seconds while measured per move measured."""
    server_stall: float = float("nan")
    """The worst lateness of the server's event loop while measured, in seconds
    (NaN: the server does not report it)."""
    server_times: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    """The server's own figures of the moves of the window, by stage (``move``,
    ``commit``): p50, p99 and p99.9 in ms, from ``/healthz``'s ``move_ms``
    (each a bucket's upper bound; NaN when the server does not report them)."""
    received: int = 0
    """Bytes the clients received while measured (off their sockets)."""
    sent_kinds: dict[str, int] = field(default_factory=dict)
    """Moves sent while measured by their kind: the action's type (``draw``,
    ``discard``, ``lay``, ``lay_off`` ...) and ``next_round``."""
    rounds: dict[int, int] = field(default_factory=dict)
    """The round each table was in when last seen while measured, by its id:
    how far ``--advance`` took the tables."""

    async def think(self, seconds: float) -> None:
        """Sleep ``seconds``; while measured, how late the sleep ended counts
        towards :attr:`client_lag`."""
        loop = asyncio.get_running_loop()
        planned = loop.time() + seconds
        await asyncio.sleep(seconds)
        if self.measuring:
            self.client_lag = max(self.client_lag, loop.time() - planned)

    def add(self, other: Stats) -> None:
        """Take in what another worker measured over the same window: samples and
        counts added up, the generator's CPU summed, its worst lag kept."""
        self.latencies += other.latencies
        self.moves += other.moves
        self.games += other.games
        self.errors += other.errors
        self.received += other.received
        for counts, theirs in ((self.codes, other.codes), (self.sent_kinds, other.sent_kinds)):
            for key, count in theirs.items():
                counts[key] = counts.get(key, 0) + count
        pairs = ((self.by_kind, other.by_kind), (self.ends_by_kind, other.ends_by_kind))
        for durations, their_durations in pairs:
            for kind, values in their_durations.items():
                durations.setdefault(kind, []).extend(values)
        self.rounds.update(other.rounds)
        self.client_cpu += other.client_cpu
        self.client_lag = max(self.client_lag, other.client_lag)


class Seat:
    """One scripted client at a real table; reads its socket from the moment it opens."""

    def __init__(
        self, ws: ClientConnection, stats: Stats, pace: Pace, sent: dict[tuple[int, int], float]
    ) -> None:
        self.ws = ws
        self.arrivals = Arrivals(ws, self.count_read)
        self.table = -1
        self.stats = stats
        self.pace = pace
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
        """The server's reply to ``data``; an error reply raises."""
        future = self.replies[msg_id] = asyncio.get_running_loop().create_future()
        await self.ws.send(json.dumps({**data, "id": msg_id}))
        reply = await asyncio.wait_for(future, 60)
        if reply.get("type") == "error":
            raise RuntimeError(f"the server refused {data}: {reply}")
        return reply

    async def run(self) -> None:
        try:
            # Like the web client: the lobby's changes, not its whole lists after
            # each change (while 2,000 clients sit down, the whole lists starved a
            # loaded machine).
            await self.ws.send('{"type": "lobby_subscribe", "deltas": true}')
            async for text in self.ws:
                now = self.arrivals.pop()
                if now > self.stop_at:
                    break
                if not isinstance(text, str) or text.startswith(LOBBY):
                    # The lobby's lists: many and large while the tables are set
                    # up, and nothing a seat needs (parsing them starved the load
                    # generator on a loaded machine). The server sends no binary
                    # frames.
                    continue
                data = orjson.loads(text)
                kind = data.get("type")
                future = self.replies.pop(data.get("id"), None) if "id" in data else None
                if future is not None and not future.done():
                    future.set_result(data)
                if kind == "update":
                    started = self.sent.get((self.table, data["version"]))
                    if self.stats.measuring:
                        self.stats.rounds[self.table] = data["view"]["round_no"]
                        if started is not None:
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
                    count(self.stats.codes, data.get("code", "?"))
        except Exception:
            pass

    def count_read(self, size: int) -> None:
        """Bytes came off the socket: counted while measured."""
        if self.stats.measuring:
            self.stats.received += size

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
                if self.stats.measuring:
                    count(self.stats.sent_kinds, "next_round")
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
        await self.stats.think(self.pace.seconds())
        # In a thread: the hand solver takes up to tens of milliseconds on a hard
        # hand, which would hold every other client of this process back (the
        # event loop gets the interpreter back after the switch interval).
        data = await asyncio.to_thread(decide, view_json)
        if data is None or time.perf_counter() > self.stop_at:
            return
        self.sent[(self.table, version + 1)] = time.perf_counter()
        if self.stats.measuring:
            self.stats.moves += 1
            count(self.stats.sent_kinds, data["type"])
        with contextlib.suppress(Exception):
            await self.ws.send(json.dumps({"type": "action", "table": self.table, "action": data}))


def count(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def decide(view_json: dict[str, Any]) -> dict[str, Any] | None:
    """The reference player's action for this view of its seat, as a client
    sends it (without the seat), or ``None``."""
    action = reference_action(SeatView.from_json(view_json))
    if action is None:
        return None
    return {k: v for k, v in action.to_json().items() if k != "seat"}


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


async def create_guests(base: str, names: list[str], parallel: int) -> list[str]:
    """The session cookies of new guests of these names, in order, created over
    ``parallel`` kept-alive HTTP connections."""
    limits = httpx.Limits(max_connections=parallel, keepalive_expiry=2.0)
    # At most as many requests under way as the pool has connections: httpx's
    # pool scans its whole queue for each request (thousands queued at once cost
    # the load generator minutes of CPU).
    pending = asyncio.Semaphore(parallel)

    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        # The client keeps no cookie: a request with the previous guest's session
        # would end that session (a new guest replaces the one logged in).
        http.cookies.jar.set_policy(DefaultCookiePolicy(allowed_domains=[]))

        async def one(name: str) -> str:
            async with pending:
                return await guest(http, name)

        return list(await asyncio.gather(*(one(name) for name in names)))


async def connect_seats(
    url: str,
    cookies: list[str],
    stats: Stats,
    pace: Pace,
    sent: dict[tuple[int, int], float],
    parallel: int,
) -> list[Seat]:
    """A seat for each cookie, in order, at most ``parallel`` of them connecting
    at once: a slot is free again when the server has greeted its client (each
    greeting reads the player's friends and tables from the database: too many
    at once overran the store's pool on a loaded machine)."""
    pending = asyncio.Semaphore(parallel)

    async def one(cookie: str) -> Seat:
        async with pending:
            ws = await connect(
                url,
                additional_headers={"Cookie": cookie},
                max_size=2**22,
                ping_interval=None,
                max_queue=None,
            )
            seat = Seat(ws, stats, pace, sent)
            await asyncio.wait_for(seat.greeted.wait(), 300)
            return seat

    return list(await asyncio.gather(*(one(cookie) for cookie in cookies)))


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
    seats: list[Seat],
    settings: dict[str, Any],
    tag: str,
    mixed_stake: int = 0,
    first: int = 0,
    parallel: int = 1,
) -> None:
    """A started table for each four seats, ``parallel`` of them opened at once.

    With a mixed stake every other table is staked (counted from ``first``, the
    number of the first of these tables among all of the run's), so that staked
    and free tables share the same load.
    """
    pending = asyncio.Semaphore(parallel)

    async def one(t: int) -> None:
        group = seats[4 * t : 4 * t + 4]
        number = first + t
        staked = mixed_stake and number % 2
        table_settings = {**settings, "stake": mixed_stake} if staked else settings
        for seat in group:
            seat.group = group
            seat.settings = table_settings
        async with pending:
            await open_table(group, table_settings, f"{tag}{number}")

    await asyncio.gather(*(one(t) for t in range(len(seats) // 4)))


async def close_seats(seats: list[Seat]) -> None:
    """Stop the clients: their sockets closed, their readers ended."""
    for seat in seats:
        seat.stop_at = 0
    await asyncio.gather(*(seat.ws.close() for seat in seats), return_exceptions=True)
    for seat in seats:
        seat.reader.cancel()
    await asyncio.gather(*(seat.reader for seat in seats), return_exceptions=True)
