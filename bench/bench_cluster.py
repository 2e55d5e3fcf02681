"""A cluster of ``romme serve --redis`` nodes on this machine: latency across nodes,
failover after SIGKILL, and taking over (or starting with) many running tables.

    python bench/bench_cluster.py [--parts latency,failover,takeover,start]
        [--tables 100] [--think 4] [--duration 20] [--repeats 3] [--kills 10]
        [--takeover-tables 500] [--start-tables 300]

Needs a PostgreSQL server (``$ROMME_TEST_PG_URL``, as the tests; each part uses a
database of its own, dropped at the end) and Debian's ``redis-server``; every node,
Redis and the load generator run on loopback.

- **latency**: ``--tables`` four-seat tables of scripted clients (as
  ``bench/bench_server.py``), first on one server without Redis, then on three
  nodes, each client connected to a node chosen at random (the tables go where
  the cluster puts them). Moves per second and the move-to-broadcast latency
  (p50, p99), on the cluster split by whether the client that receives the update
  is connected to the table's own node or to another one. Repeated ``--repeats``
  times, single server and cluster alternately, at the same load.
- **failover**: three nodes; a two-player table (one round) is played by two
  clients on two different nodes; the owner of the table is killed (SIGKILL)
  between two moves, and the time from the kill to the first move accepted by
  the table's new owner is measured; the client that was connected to the dead
  node reconnects to a live one, the game is played to its end, and every message
  each player got and the stored log are checked against the replayed game
  (nothing lost or doubled). ``--kills`` times, a fresh node replacing each dead
  one.
- **takeover**: ``--takeover-tables`` running tables (four seats, 30 to 150
  actions of real play in their logs) held by a node that is gone; a node takes
  them all: the time from its claim to the last table replayed (its
  ``tables_restored`` log line), and from the start of the process to ``/healthz``
  reporting them all running.
- **start**: a single server started on a database with ``--start-tables`` running
  tables: the time from the start of the process to ``/healthz`` answering, and
  to every table replayed (``replaying_tables`` 0), against the same start on an
  empty database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
from websockets.asyncio.client import connect

from bench.bench_server import percentile, spread
from bench.serverload.seats import Seat, Stats, close_seats, guest, open_tables
from romme.engine.game import Game
from romme.engine.reference import play_game
from romme.engine.rules import Rules
from romme.server.settings import parse_settings
from romme.store import Store
from tests.server.helpers import Autoplayer, Client, ServerProcess, play_out
from tests.server.test_cluster import RedisServer
from tests.server.test_recovery import _play_until
from tests.server.verify import check_log, check_messages
from tests.store.helpers import create_pg_database, drop_pg_database

SETTINGS = {"seats": 4, "point_limit": 10_000, "turn_seconds": 120}
"""Tables whose game does not end while measured."""


def node(db: str, workdir: Path, redis: RedisServer | None, name: str) -> ServerProcess:
    """A node of the cluster (a single server without ``redis``), not started."""
    extra = ["--log-level", "info", "--max-connections-per-address", "0"]
    extra += ["--accounts-per-hour", "0"]
    if redis is not None:
        extra += ["--redis", redis.url, "--node-id", name]
    return ServerProcess(db, workdir, extra=extra)


def health(server: ServerProcess) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(server.base + "/healthz", timeout=5).json()
    return answer


def log_events(server: ServerProcess, event: str) -> list[dict[str, Any]]:
    """The JSON log lines of ``server`` about ``event``."""
    found = []
    for line in server.logs().splitlines():
        if f'"{event}"' in line:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("event") == event:
                found.append(entry)
    return found


# --------------------------------------------------------------- latency


async def latency_run(servers: list[ServerProcess], tables: int, think: float, duration: float,
                      tag: str) -> dict[str, Stats]:  # fmt: skip
    """``tables`` tables of four clients, each connected to one of ``servers`` at
    random; the updates each client gets are counted as ``local`` (it is connected
    to the table's node) or ``remote``."""
    local, remote = Stats(), Stats()
    sent: dict[tuple[int, int], float] = {}
    homes = [random.randrange(len(servers)) for _ in range(4 * tables)]
    cookies: list[str] = []
    for start in range(0, 4 * tables, 50):
        cookies += await asyncio.gather(
            *(
                guest_at(servers[homes[i]], f"c{tag}x{i}")
                for i in range(start, min(start + 50, 4 * tables))
            )
        )
    sockets = []
    for start in range(0, len(cookies), 50):
        sockets += await asyncio.gather(
            *(
                connect(
                    servers[homes[i]].ws_url,
                    additional_headers={"Cookie": cookies[i]},
                    max_size=2**22,
                    ping_interval=None,
                    max_queue=None,
                )
                for i in range(start, min(start + 50, len(cookies)))
            )
        )
    seats = [Seat(ws, local, think, sent) for ws in sockets]
    await open_tables(seats, SETTINGS, f"{tag}t")
    owners: dict[int, int] = {}
    for index, server in enumerate(servers):
        for table_id in health(server)["owned_tables"]:
            owners[table_id] = index
    for i, seat in enumerate(seats):
        if len(servers) > 1 and owners.get(seat.table) != homes[i]:
            seat.stats = remote
    await asyncio.sleep(min(5.0, think * 3))
    gc.collect()  # the load generator's own pauses are not the servers' latency
    gc.freeze()
    gc.disable()
    for stats in (local, remote):
        stats.measuring = True
    began = time.perf_counter()
    await asyncio.sleep(duration)
    elapsed = time.perf_counter() - began
    for stats in (local, remote):
        stats.measuring = False
        stats.moves = int(stats.moves / elapsed * 1000)
    gc.enable()
    gc.unfreeze()
    await close_seats(seats)
    return {"local": local, "remote": remote}


async def guest_at(server: ServerProcess, name: str) -> str:
    """A new guest's cookie, from a client of its own (a shared cookie jar would
    send one guest's cookie with the next guest's request)."""
    async with httpx.AsyncClient(base_url=server.base, timeout=60) as http:
        return await guest(http, name)


def bench_latency(args: argparse.Namespace, workdir: Path) -> list[str]:
    rows: dict[str, list[tuple[float, float, float]]] = {"single": [], "local": [], "remote": []}
    errors: dict[str, int] = {}
    for repeat in range(args.repeats):
        for cluster in (False, True):
            db = create_pg_database("romme_bench_cluster")
            redis = RedisServer(workdir) if cluster else None
            servers: list[ServerProcess] = []
            try:
                if redis is not None:
                    redis.start()
                for n in range(3 if cluster else 1):
                    servers.append(node(db, workdir, redis, f"node-{n}").start(60))
                tag = f"{repeat}{'c' if cluster else 's'}{os.getpid()}"
                result = asyncio.run(
                    latency_run(servers, args.tables, args.think, args.duration, tag)
                )
            finally:
                for server in servers:
                    server.stop()
                if redis is not None:
                    redis.stop()
                drop_pg_database(db)
            kinds = ("local", "remote") if cluster else ("local",)
            for kind in kinds:
                stats = result[kind]
                name = kind if cluster else "single"
                for code, count in stats.codes.items():
                    errors[code] = errors.get(code, 0) + count
                rows[name].append(
                    (
                        sum(s.moves for s in result.values()) / 1000,
                        percentile(stats.latencies, 0.5) * 1000,
                        percentile(stats.latencies, 0.99) * 1000,
                    )
                )
                print(f"latency repeat {repeat + 1} {name}: {rows[name][-1]}", flush=True)
    lines = [
        f"latency: {args.tables} tables x 4 clients, think {args.think} s, "
        f"{args.duration:.0f} s measured, {args.repeats} repeats (median and min..max)"
    ]
    labels = {
        "single": "single server",
        "local": "3 nodes, client on the table's node",
        "remote": "3 nodes, client on another node",
    }
    for name, label in labels.items():
        cols = list(zip(*rows[name], strict=True))
        lines.append(
            f"  {label}: {spread(list(cols[0]), ' moves/s')}  p50 "
            f"{spread(list(cols[1]), ' ms', 2)}  p99 {spread(list(cols[2]), ' ms', 2)}"
        )
    ratios = [r[2] / s[2] for r, s in zip(rows["remote"], rows["single"], strict=True)]
    lines.append(f"  cross-node p99 / single-server p99: {spread(ratios, 'x', 2)}; errors {errors}")
    return lines


# --------------------------------------------------------------- failover


async def failover_round(nodes: list[ServerProcess], tag: str) -> tuple[float, ServerProcess]:
    """One table, one kill of its owner; returns the seconds from the kill to the
    first move accepted at the new owner, and the dead node."""
    a = await (await Client(nodes[0], f"fa{tag}").guest()).connect()
    b = await (await Client(nodes[1], f"fb{tag}").guest()).connect()
    created = await a.request(
        {"type": "create_table", "settings": {"seats": 2, "point_limit": 1, "turn_seconds": 120}}
    )
    table = int(created["table"]["id"])
    await b.request({"type": "join_table", "table": table})
    await a.request({"type": "start_game", "table": table})
    players = [Autoplayer(a, table), Autoplayer(b, table)]
    await _play_until(players, 6, {0, 1})
    await asyncio.sleep(0.3)
    [owner] = [n for n in nodes if table in health(n)["owned_tables"]]
    live = [n for n in nodes if n is not owner]
    version = a.tables[table]["version"]
    starts = {c.nickname: len(c.messages) for c in (a, b)}
    killed = time.monotonic()
    owner.kill()
    for client in (a, b):
        if client.server is owner:
            await reconnect(client, live[0], table)
        else:
            await client.expect(
                "table",
                lambda m: m["table"]["id"] == table,
                start=starts[client.nickname],
                timeout=30,
            )
    players = [
        Autoplayer(a, table),
        Autoplayer(b, table),
    ]  # a move lost with the node is sent again
    accepted = await until(players, lambda: a.tables[table]["version"] > version, 60)
    took = accepted - killed
    await play_out(players, timeout=120)
    over = a.tables[table]["game_over"]
    log = httpx.get(live[0].base + f"/api/games/{table}").json()
    check_log(log, over["winners"])  # every version once, in order
    for client in (a, b):
        check_messages(client.messages, table, log)
        await client.close()
    return took, owner


async def reconnect(client: Client, server: ServerProcess, table: int) -> None:
    """The client connects to ``server`` (retrying while its table is taken over)."""
    client.server = server
    client.http = httpx.AsyncClient(base_url=server.base, cookies=client.http.cookies)
    start = len(client.messages)
    await client.connect()
    await client.expect("table", lambda m: m["table"]["id"] == table, start=start, timeout=30)


async def until(players: list[Autoplayer], done: Callable[[], bool], limit: float) -> float:
    """Step the players until ``done()``; the monotonic time it became true."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        for player in players:
            await player.step()
        if done():
            return time.monotonic()
        await asyncio.sleep(0.005)
    raise RuntimeError("no move was accepted after the failover")


def bench_failover(args: argparse.Namespace, workdir: Path) -> list[str]:
    db = create_pg_database("romme_bench_cluster")
    redis = RedisServer(workdir)
    redis.start()
    nodes = [node(db, workdir, redis, f"node-{n}").start(60) for n in range(3)]
    times: list[float] = []
    try:
        for kill in range(args.kills):
            took, dead = asyncio.run(failover_round(nodes, f"{kill}x{os.getpid() % 10_000}"))
            times.append(took)
            print(f"failover {kill + 1}: {took:.2f} s", flush=True)
            nodes.remove(dead)
            nodes.append(node(db, workdir, redis, f"node-{3 + kill}").start(60))
            time.sleep(2.5)  # its first heartbeat
    finally:
        for server in nodes:
            server.stop()
        redis.stop()
        drop_pg_database(db)
    return [
        f"failover over {len(times)} kills: SIGKILL to the first move accepted at the new "
        f"owner {spread(times, ' s', 2)}, max {max(times):.2f} s; every game checked "
        "against its stored log: nothing lost or doubled"
    ]


# ------------------------------------------------------- takeover and start


def sample_logs(count: int, rules: Rules) -> list[tuple[bytes, list[dict[str, Any]]]]:
    """``count`` match seeds with the first 30 to 150 actions of a real four-seat
    game under ``rules``."""

    class Enough(Exception):
        pass

    logs = []
    for _ in range(count):
        seed = secrets.token_bytes(32)
        played: list[dict[str, Any]] = []
        wanted = random.randint(30, 150)

        def keep(game: Game, action: Any, played: list[dict[str, Any]] = played,
                 wanted: int = wanted) -> None:  # fmt: skip
            played.append(action.to_json())
            if len(played) >= wanted:
                raise Enough

        with contextlib.suppress(Enough):
            play_game(Game(rules, 4, seed), on_action=keep)
        logs.append((seed, played))
    return logs


async def seed_tables(db: str, count: int, owner: str | None) -> None:
    """``count`` running tables of four guests with real logs, their leases held by
    ``owner`` and expired (or nobody's)."""
    store = await Store.open(db)
    try:
        players = [await store.create_guest(f"Seat{n}x{secrets.token_hex(3)}") for n in range(8)]
        settings = parse_settings(SETTINGS)
        logs = sample_logs(20, settings.rules())
        rules = settings.rules().to_json()

        async def one(n: int) -> None:
            seed, actions = logs[n % len(logs)]
            seats = [
                {
                    "player": players[(n + s) % 8].id,
                    "nickname": players[(n + s) % 8].nickname,
                    "bot": None,
                    "left": False,
                    "level": 1,
                }
                for s in range(4)
            ]
            table = await store.create_table(
                seats[0]["player"], settings.to_json(), rules, seats, seed, owner, 0.0
            )
            await store.update_table(table, status="playing")
            await store.append_actions(table, 1, actions)

        for start in range(0, count, 10):
            await asyncio.gather(*(one(n) for n in range(start, min(start + 10, count))))
    finally:
        await store.close()


def wait_for(check: Callable[[], bool], limit: float, step: float = 0.02) -> float:
    """Poll ``check`` until true; the monotonic time it was."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if check():
                return time.monotonic()
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(step)
    raise RuntimeError("timed out")


def all_running(server: ServerProcess, count: int) -> Callable[[], bool]:
    def check() -> bool:
        state = health(server)
        return len(state["owned_tables"]) >= count and state["replaying_tables"] == 0

    return check


def bench_takeover(args: argparse.Namespace, workdir: Path) -> list[str]:
    answering: list[float] = []
    claims: list[float] = []
    total: list[float] = []
    for repeat in range(args.repeats):
        db = create_pg_database("romme_bench_cluster")
        redis = RedisServer(workdir)
        try:
            asyncio.run(seed_tables(db, args.takeover_tables, "node-gone"))
            redis.start()
            taker = node(db, workdir, redis, f"taker-{repeat}")
            began = time.monotonic()
            taker.start(60)
            done = wait_for(all_running(taker, args.takeover_tables), 120)
            [restored] = log_events(taker, "tables_restored")
            assert restored["tables"] == args.takeover_tables, restored
            claims.append(restored["ms"] / 1000)
            answering.append(restored["answering_ms"] / 1000)
            total.append(done - began)
            print(f"takeover {repeat + 1}: {restored}", flush=True)
            taker.stop()
        finally:
            redis.stop()
            drop_pg_database(db)
    return [
        f"takeover of {args.takeover_tables} running tables by one node: from the claim to all "
        f"of them answering {spread(answering, ' s', 2)}, to the last one replayed "
        f"{spread(claims, ' s', 2)}; from the start of the process to "
        f"/healthz reporting them all running {spread(total, ' s', 2)}"
    ]


def bench_start(args: argparse.Namespace, workdir: Path) -> list[str]:
    answer: dict[int, list[float]] = {0: [], args.start_tables: []}
    running: list[float] = []
    for repeat in range(args.repeats):
        for count in (0, args.start_tables):
            db = create_pg_database("romme_bench_cluster")
            try:
                asyncio.run(seed_tables(db, count, None))
                server = node(db, workdir, None, "")
                began = time.monotonic()
                server.start(120)
                answer[count].append(time.monotonic() - began)
                if count:
                    running.append(wait_for(all_running(server, count), 120) - began)
                server.stop()
            finally:
                drop_pg_database(db)
        print(f"start {repeat + 1}: {answer}", flush=True)
    return [
        f"start of a single server: /healthz answers after {spread(answer[0], ' s', 2)} on an "
        f"empty database, {spread(answer[args.start_tables], ' s', 2)} with "
        f"{args.start_tables} running tables, all of them replayed after "
        f"{spread(running, ' s', 2)}"
    ]


PARTS: dict[str, Callable[[argparse.Namespace, Path], list[str]]] = {
    "takeover": bench_takeover,
    "start": bench_start,
    "failover": bench_failover,
    "latency": bench_latency,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--think", type=float, default=4.0)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--takeover-tables", type=int, default=500)
    parser.add_argument("--start-tables", type=int, default=300)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="romme-bench-cluster-"))
    report: list[str] = []
    try:
        for part in args.parts.split(","):
            report += PARTS[part](args, workdir)
            print("\n".join(report), flush=True)
    except BaseException:
        print(f"failed; the logs are in {workdir}", file=sys.stderr)
        raise
    print("\n" + "\n".join(report))
    if not os.environ.get("ROMME_BENCH_KEEP"):
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
