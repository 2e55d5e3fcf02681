"""What idle lobby clients cost while the lobby's tables change: whole lists
(``lobby_update``) against changes (``lobby_delta``, after ``lobby_subscribe``).

    python bench/bench_lobby.py [--clients 1000] [--tables 40] [--changes 2]
                                [--duration 10] [--repeats 3] [--db URL]

Starts ``romme serve`` (SQLite in a temporary folder unless ``--db``), opens
``--tables`` waiting tables (three seats, one of them a computer opponent) and
connects ``--clients`` guests that sit in the lobby and do nothing, so that the
lobby is as large as a busy one (the tables, and 200 players online). While
measured, a host changes one table ``--changes`` times a second (a computer
opponent sits down in a free seat or stands up), as players joining and leaving
do. The same connections measure both modes, one after the other, switched with
``lobby_subscribe`` (the whole lists that answers it are not counted). For each
mode it counts the bytes and messages all idle clients receive per second (what
the server sent while measured: a ping after the measurement, answered after
everything before it, makes sure a load generator that reads behind counts it
all) and the server's CPU use, as the median and spread (min..max) over the
repeats.

Only loopback addresses are used; every loop is bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.bench_server import Server
from bench.serverload.seats import guest


@dataclass
class Counts:
    bytes: int = 0
    messages: int = 0
    measuring: bool = False
    pongs: int = 0
    clients: int = 0
    caught_up: asyncio.Event = field(default_factory=asyncio.Event)


async def idle_reader(ws: ClientConnection, counts: Counts) -> None:
    """A client in the lobby that reads what it gets and does nothing."""
    with contextlib.suppress(Exception):
        async for text in ws:
            if str(text).startswith('{"type":"pong"'):
                counts.pongs += 1
                if counts.pongs == counts.clients:
                    counts.caught_up.set()
            elif counts.measuring:
                counts.bytes += len(text.encode() if isinstance(text, str) else text)
                counts.messages += 1


async def catch_up(clients: list[ClientConnection], counts: Counts) -> None:
    """Wait until every client has read all the server sent it so far (the load
    generator may read behind: each answers a ping after what came before it)."""
    counts.pongs, counts.clients = 0, len(clients)
    counts.caught_up.clear()
    ping = json.dumps({"type": "ping"})
    for start in range(0, len(clients), 50):
        await asyncio.gather(*(ws.send(ping) for ws in clients[start : start + 50]))
    await asyncio.wait_for(counts.caught_up.wait(), 600)


async def idle_clients(
    server: Server, cookies: list[str], counts: Counts, readers: list[asyncio.Task[None]]
) -> list[ClientConnection]:
    """Connect the idle clients (50 at a time), each with its reader (in ``readers``)."""
    clients: list[ClientConnection] = []
    for start in range(0, len(cookies), 50):
        clients += await asyncio.gather(
            *(
                connect(
                    server_url(server),
                    additional_headers={"Cookie": c},
                    max_size=2**22,
                    ping_interval=None,
                )
                for c in cookies[start : start + 50]
            )
        )
    readers.extend(asyncio.create_task(idle_reader(ws, counts)) for ws in clients)
    return clients


async def host_tables(
    server: Server, http: httpx.AsyncClient, tables: int
) -> tuple[ClientConnection, list[int]]:
    """One host with ``tables`` waiting tables (the server allows it any number)."""
    cookie = await fresh_guest(server, "benchhost")
    ws = await connect(
        server_url(server),
        additional_headers={"Cookie": cookie},
        max_size=2**22,
        ping_interval=None,
    )
    ids = []
    for n in range(tables):
        settings = {"seats": 3, "bots": {"2": "casual"}}
        await ws.send(json.dumps({"type": "create_table", "settings": settings, "id": f"t{n}"}))
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("id") == f"t{n}":
                ids.append(reply["table"]["id"])
                break
    return ws, ids


async def fresh_guest(server: Server, name: str) -> str:
    """A new guest's session cookie (a client of its own: a session cookie sent along
    would end the session of the guest before)."""
    for attempt in range(3):
        base = f"http://127.0.0.1:{server.port}"
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            try:
                return await guest(http, f"{name}{'x' * attempt}")
            except httpx.HTTPStatusError as exc:  # a retried request took the name
                if exc.response.status_code != 409:
                    raise
    raise RuntimeError(f"no guest named like {name}")


def server_url(server: Server) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


async def drain(ws: ClientConnection, stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ws.recv(), 0.5)


async def measure(
    server: Server,
    clients: list[ClientConnection],
    counts: Counts,
    host: ClientConnection,
    tables: list[int],
    deltas: bool,
    changes: float,
    duration: float,
    seated: dict[int, bool],
) -> tuple[float, float, float]:
    """Bytes/s and messages/s the idle clients receive, and the server's CPU use
    (``tables`` turns: the next change is at its first table; ``seated``: where a
    computer opponent sits in seat 1 now)."""
    subscribe = json.dumps({"type": "lobby_subscribe", "deltas": deltas})
    for start in range(0, len(clients), 50):
        await asyncio.gather(*(ws.send(subscribe) for ws in clients[start : start + 50]))
    await catch_up(clients, counts)  # the replies (whole lists) are not measured
    counts.bytes = counts.messages = 0
    counts.measuring = True
    cpu = server.cpu_seconds()
    started = time.monotonic()
    while time.monotonic() - started < duration:
        table = tables.pop(0)
        tables.append(table)
        seated[table] = not seated.get(table, False)
        bot = "casual" if seated[table] else None
        await host.send(json.dumps({"type": "set_seat", "table": table, "seat": 1, "bot": bot}))
        await asyncio.sleep(1 / changes)
    elapsed = time.monotonic() - started
    await asyncio.sleep(1.5)  # the update of the last changes goes out
    cpu = (server.cpu_seconds() - cpu) / (elapsed + 1.5)
    await catch_up(clients, counts)  # counted however late the clients read it
    counts.measuring = False
    return counts.bytes / elapsed, counts.messages / elapsed, cpu


def spread(values: list[float], scale: float = 1.0, digits: int = 1) -> str:
    scaled = [v / scale for v in values]
    low, middle, high = min(scaled), statistics.median(scaled), max(scaled)
    return f"{middle:.{digits}f} ({low:.{digits}f}..{high:.{digits}f})"


async def run(args: argparse.Namespace, server: Server) -> dict[str, dict[str, list[float]]]:
    results: dict[str, dict[str, list[float]]] = {}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", timeout=30) as http:
        host, tables = await host_tables(server, http, args.tables)
        stop_host = asyncio.Event()
        drainer = asyncio.create_task(drain(host, stop_host))
        cookies: list[str] = []
        for start in range(0, args.clients, 50):
            batch = range(start, min(args.clients, start + 50))
            cookies += await asyncio.gather(*(fresh_guest(server, f"idle{n:05d}") for n in batch))
        counts = Counts()
        readers: list[asyncio.Task[None]] = []
        clients = await idle_clients(server, cookies, counts, readers)
        seated: dict[int, bool] = {}
        for _ in range(args.repeats):
            for mode in ("whole", "deltas"):
                figures = await measure(
                    server,
                    clients,
                    counts,
                    host,
                    tables,
                    mode == "deltas",
                    args.changes,
                    args.duration,
                    seated,
                )
                entry = results.setdefault(mode, {"bytes": [], "messages": [], "cpu": []})
                for key, value in zip(("bytes", "messages", "cpu"), figures, strict=True):
                    entry[key].append(value)
                print(mode, [round(v, 2) for v in figures], flush=True)
        for ws in clients:
            await ws.close()
        await asyncio.gather(*readers)
        stop_host.set()
        await drainer
        await host.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--changes", type=float, default=2.0, help="table changes a second")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--db")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(args.db, Path(folder), ["--max-waiting-tables", "0"])
        server.start()
        try:
            results = asyncio.run(run(args, server))
        finally:
            server.stop()
    print(
        f"{args.clients} idle lobby clients, {args.tables} waiting tables, "
        f"{args.changes:g} table changes/s, {args.duration:g} s x {args.repeats}"
    )
    for mode, entry in results.items():
        print(
            f"  {mode:7s} {spread(entry['bytes'], 2**20, 2)} MiB/s, "
            f"{spread(entry['messages'], 1, 0)} messages/s, "
            f"server CPU {spread(entry['cpu'], 0.01, 0)} %"
        )


if __name__ == "__main__":
    main()
