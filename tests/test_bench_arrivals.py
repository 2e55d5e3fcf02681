"""The load generator times a message when its bytes come off the socket, not when
the client gets round to reading it (``bench/serverload/arrivals.py``): checked
against a real WebSocket server that sends with pauses to a client that reads
late, compressed (as the game server sends) and not."""

from __future__ import annotations

import asyncio
import time

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from bench.serverload.arrivals import Arrivals

pytestmark = pytest.mark.asyncio

PAUSE = 0.1
"""Seconds between the server's messages."""


async def send_with_pauses(ws: ServerConnection) -> None:
    await ws.recv()  # the client's hook is in
    await ws.send("first")
    await asyncio.sleep(PAUSE)
    await ws.send("x" * 20_000)  # larger than a socket read, and compressible
    await asyncio.sleep(PAUSE)
    await ws.send(b"third, binary")
    await ws.wait_closed()


@pytest.mark.parametrize("compression", ["deflate", None])
async def test_each_message_gets_the_time_its_last_bytes_were_read(
    compression: str | None,
) -> None:
    async with serve(send_with_pauses, "127.0.0.1", 0, compression=compression) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=compression) as ws:
            sizes: list[int] = []
            arrivals = Arrivals(ws, sizes.append)
            hooked = time.perf_counter()
            await ws.send("go")
            # The client reads nothing until the three messages are there.
            await asyncio.sleep(3 * PAUSE)
            read = []
            for _ in range(3):
                message = await ws.recv()
                read.append((message, time.perf_counter(), arrivals.pop()))

    assert [m for m, _, _ in read] == ["first", "x" * 20_000, b"third, binary"]
    times = [arrived for _, _, arrived in read]
    first_read = read[0][1]
    assert hooked <= times[0] < times[1] < times[2] <= first_read
    # The pauses between the sends, not the moment the client read them.
    assert times[1] - times[0] >= 0.8 * PAUSE
    assert times[2] - times[1] >= 0.8 * PAUSE
    assert first_read - times[2] > 0
    assert sum(sizes) > 0
    if compression is None:
        assert sum(sizes) > 20_000


async def test_a_message_read_before_the_hook_is_timed_when_read() -> None:
    async def greet(ws: ServerConnection) -> None:
        await ws.send("hello")
        await ws.recv()  # the client's hook is in
        await asyncio.sleep(PAUSE)
        await ws.send("later")
        await ws.wait_closed()

    async with serve(greet, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}") as ws:
            await asyncio.sleep(PAUSE)  # "hello" is in, not yet read
            arrivals = Arrivals(ws)
            hooked = time.perf_counter()
            await ws.send("go")
            await asyncio.sleep(4 * PAUSE)  # "later" is in too
            assert await ws.recv() == "hello"
            before = time.perf_counter()
            assert arrivals.pop() >= before
            # The next message gets its own time, not the one of the message after it.
            assert await ws.recv() == "later"
            arrived = arrivals.pop()
            assert hooked + 0.8 * PAUSE <= arrived < before - PAUSE
