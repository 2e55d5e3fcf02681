"""What the WebSocket keepalive costs the server, and what pinging only silent clients saves.

    python bench/bench_keepalive.py [--clients 1000] [--interval 1] [--duration 10]
                                    [--repeats 3]

Starts a bare server process (uvicorn with the server's WebSocket protocol,
romme/server/wsprotocol.py, or uvicorn's own, and an application that only reads
what it receives), connects ``--clients`` WebSocket clients (the websockets
library, which answers pings by itself) and reads the server's CPU time (user +
system, psutil) over ``--duration`` seconds, in four cases:

* ``silent, no keepalive``: the clients send nothing, the server never pings
  (what idle connections cost);
* ``silent, keepalive``: the server pings every client every ``--interval``
  seconds; the difference from the case before, over the pings sent, is the
  server's CPU per ping (the timers, the ping frame out, the pong frame in);
* ``talking, uvicorn's keepalive`` and ``talking, silent-only keepalive``: every
  client also sends a small message every three quarters of an interval (as the
  web client sends a ``ping`` message every 15 s against a keepalive of 20 s):
  uvicorn's protocol pings them all the same, the server's pings none of them.

A short interval stands for many clients at the real one: 1,000 clients pinged
every second are as many pings as 20,000 every 20 s. The figures are the median
and min..max over ``--repeats``, the four cases alternated in each repeat.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_server import free_port

CASES = (
    ("silent, no keepalive", "romme", False, False),
    ("silent, keepalive", "romme", True, False),
    ("talking, uvicorn's keepalive", "uvicorn", True, True),
    ("talking, silent-only keepalive", "romme", True, True),
)
"""Name, WebSocket protocol, keepalive on, clients talking."""
TALK_EVERY = 0.75
"""A talking client sends a message every this many keepalive intervals."""


def serve(port: int, protocol: str, interval: float | None) -> None:
    """The server process: an application that reads every message and answers none."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    from romme.server.wsprotocol import WebSocketProtocol

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass

    uvicorn.run(
        Starlette(routes=[WebSocketRoute("/ws", endpoint)]),
        host="127.0.0.1",
        port=port,
        ws=WebSocketProtocol if protocol == "romme" else WebSocketsSansIOProtocol,
        ws_ping_interval=interval,
        ws_ping_timeout=interval,
        log_level="warning",
        lifespan="off",
    )


async def measure(
    port: int, server: psutil.Process, clients: int, interval: float, duration: float, talk: bool
) -> float:
    """The server's CPU seconds over ``duration`` with ``clients`` connected."""
    pending = asyncio.Semaphore(50)

    async def one() -> ClientConnection:
        async with pending:
            return await connect(f"ws://127.0.0.1:{port}/ws", ping_interval=None)

    sockets = await asyncio.gather(*(one() for _ in range(clients)))
    stop = asyncio.Event()

    async def talker(ws: ClientConnection, offset: float) -> None:
        await asyncio.sleep(offset)
        while not stop.is_set():
            await ws.send('{"type": "ping"}')
            await asyncio.sleep(interval * TALK_EVERY)

    talkers = (
        [
            asyncio.create_task(talker(ws, n * interval * TALK_EVERY / clients))
            for n, ws in enumerate(sockets)
        ]
        if talk
        else []
    )
    await asyncio.sleep(interval * 2)  # every client's keepalive under way
    before = server.cpu_times()
    await asyncio.sleep(duration)
    after = server.cpu_times()
    stop.set()
    await asyncio.gather(*talkers)
    await asyncio.gather(*(ws.close() for ws in sockets))
    return (after.user - before.user) + (after.system - before.system)


def run_case(protocol: str, keepalive: bool, talk: bool, args: argparse.Namespace) -> float:
    port = free_port()
    command = [sys.executable, __file__, "--serve", str(port), protocol]
    command += [str(args.interval if keepalive else 0)]
    proc = subprocess.Popen(command)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        server = psutil.Process(proc.pid)
        return asyncio.run(measure(port, server, args.clients, args.interval, args.duration, talk))
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        interval = float(sys.argv[4])
        serve(int(sys.argv[2]), sys.argv[3], interval or None)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cpu: dict[str, list[float]] = {name: [] for name, *_ in CASES}
    for repeat in range(args.repeats):
        for name, protocol, keepalive, talk in CASES:
            cpu[name].append(run_case(protocol, keepalive, talk, args) / args.duration)
            print(f"repeat {repeat + 1}: {name}: {cpu[name][-1] * 100:.1f} % of a core", flush=True)
    pings = args.clients / args.interval
    print(
        f"\n{args.clients} clients, keepalive every {args.interval} s ({pings:.0f} pings/s), "
        f"{args.duration} s measured, {args.repeats} repeats (median and min..max)"
    )
    for name, values in cpu.items():
        print(
            f"{name:32} server CPU {statistics.median(values) * 100:5.1f} % of a core "
            f"({min(values) * 100:.1f}..{max(values) * 100:.1f})"
        )
    per_ping = [
        (on - off) / pings * 1e6
        for on, off in zip(cpu["silent, keepalive"], cpu["silent, no keepalive"], strict=True)
    ]
    saved = [
        (a - b) / pings * 1e6
        for a, b in zip(
            cpu["talking, uvicorn's keepalive"], cpu["talking, silent-only keepalive"], strict=True
        )
    ]
    print(
        f"server CPU per ping: {statistics.median(per_ping):.0f} us "
        f"({min(per_ping):.0f}..{max(per_ping):.0f}); saved per talking client's interval: "
        f"{statistics.median(saved):.0f} us ({min(saved):.0f}..{max(saved):.0f})"
    )


if __name__ == "__main__":
    main()
