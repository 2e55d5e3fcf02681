"""The server's WebSocket protocol (romme/server/wsprotocol.py).

A connection writes a frame at once when the socket takes it, and queues it
behind the writer task when it does not (romme/server/connection.py): messages
leave in order across both ways. A client's socket is read ahead of the
application by a few messages, no more. The keepalive pings only a client that
has been silent for a whole interval.

A real uvicorn server with the server's WebSocket protocol runs in the test's
event loop, and a real WebSocket client connects to it over loopback."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from romme.server.connection import Connection
from romme.server.wsprotocol import READ_AHEAD, SEND_NOW, WebSocketProtocol
from romme.store import PlayerRecord

pytestmark = pytest.mark.asyncio

COUNT = 400
FLOOD = 200
"""Messages of 4 KiB a client sends without waiting: 800 KiB, more than the
event loop reads from a socket at once (256 KiB)."""
LATER = 3000
"""Small ones sent one by one while the client reads: each must wait behind what
is still queued, even when the socket would take it."""
PAD = 32_768
"""Each message carries this many random hex digits: 400 of them are far more
than loopback's socket buffers hold, so a client that does not read makes the
server queue."""


def _player() -> PlayerRecord:
    return PlayerRecord(
        id=1, nickname="Anna", guest=True, is_bot=False, rating=0.0, mu=25.0,
        sigma=8.3, games_played=0, games_won=0,
    )  # fmt: skip


class Probe:
    """What the server's side saw."""

    def __init__(self) -> None:
        self.before_accept: Any = "unset"
        self.queued_after_burst = -1
        self.sent_now_after_drain: bool | None = None
        self.drained = asyncio.Event()
        self.done = asyncio.Event()


@contextlib.asynccontextmanager
async def _serving(
    endpoint: Callable[[WebSocket], Awaitable[None]], ping_interval: float | None = None
) -> AsyncIterator[int]:
    """A real uvicorn server with the server's protocol, in this event loop; its port."""
    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app,
        ws=WebSocketProtocol,
        log_level="warning",
        lifespan="off",
        ws_ping_interval=ping_interval,
        ws_ping_timeout=ping_interval,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await task


def _server(probe: Probe) -> contextlib.AbstractAsyncContextManager[int]:
    async def endpoint(websocket: WebSocket) -> None:
        send_now = websocket.scope["extensions"][SEND_NOW]
        probe.before_accept = send_now("too early")
        await websocket.accept()
        conn = Connection(websocket, _player(), queue_limit=COUNT + LATER)
        writer = asyncio.create_task(conn.writer())
        for n in range(COUNT):
            conn.send(json.dumps({"n": n, "pad": os.urandom(PAD // 2).hex()}))
        probe.queued_after_burst = conn.queue.qsize()
        for n in range(COUNT, COUNT + LATER):
            await asyncio.sleep(0)
            conn.send(json.dumps({"n": n}))
        await websocket.receive()  # the client read everything
        probe.sent_now_after_drain = conn.queue.empty() and conn._sent_now('{"n": "last"}')
        await websocket.receive()
        conn.close()
        await writer
        probe.done.set()

    return _serving(endpoint)


async def test_frames_leave_in_order_whether_sent_at_once_or_queued() -> None:
    probe = Probe()
    # A small read-ahead: the client stops reading its socket after two messages.
    async with (
        _server(probe) as port,
        connect(
            f"ws://127.0.0.1:{port}/ws", compression=None, max_queue=2, max_size=None
        ) as client,
    ):
        while probe.queued_after_burst < 0:
            await asyncio.sleep(0.01)
        received = [json.loads(await client.recv())["n"] for _ in range(COUNT + LATER)]
        await client.send("read")
        last = json.loads(await client.recv())
        await client.send("bye")
        await asyncio.wait_for(probe.done.wait(), 10)
    assert probe.before_accept is False, "nothing is written before the handshake is accepted"
    # Some went at once, the rest waited for the writer task, none was lost or reordered.
    assert 0 < probe.queued_after_burst < COUNT
    assert received == list(range(COUNT + LATER))
    assert probe.sent_now_after_drain is True
    assert last == {"n": "last"}


async def test_a_client_is_read_ahead_of_the_application_by_a_few_messages_only() -> None:
    seen: dict[str, Any] = {}

    async def endpoint(websocket: WebSocket) -> None:
        protocol = websocket.scope["extensions"][SEND_NOW].__self__
        await websocket.accept()
        while protocol.queue.qsize() < 1:
            await asyncio.sleep(0.01)
        # One message waiting: the socket is still read (uvicorn pauses here).
        seen["paused_after_one"] = protocol.read_paused
        first = await websocket.receive_text()
        await websocket.send_text(first)
        await asyncio.sleep(0.5)  # the application falls behind a flood
        seen["waiting"] = protocol.queue.qsize()
        seen["paused_when_behind"] = protocol.read_paused
        seen["flood"] = [(await websocket.receive_text())[:8] for _ in range(FLOOD)]
        seen["paused_after_catching_up"] = protocol.read_paused
        await websocket.send_text("done")

    async with (
        _serving(endpoint) as port,
        connect(f"ws://127.0.0.1:{port}/ws", compression=None) as client,
    ):
        await client.send("one")
        assert await client.recv() == "one"
        for n in range(FLOOD):
            await client.send(f"{n:08d}" + os.urandom(2048).hex())
        assert await asyncio.wait_for(client.recv(), 10) == "done"
    assert seen["paused_after_one"] is False
    # Reading paused once READ_AHEAD were waiting (the frames of the chunk read
    # last are taken all the same): far from the whole flood.
    assert READ_AHEAD <= seen["waiting"] < FLOOD // 2
    assert seen["paused_when_behind"] is True
    assert seen["flood"] == [f"{n:08d}" for n in range(FLOOD)]
    assert seen["paused_after_catching_up"] is False


PING_INTERVAL = 0.4


class RawClient:
    """A WebSocket client that sees every frame, pings included (the sans-I/O
    protocol of the websockets library over a plain socket); it answers pings
    as any client does."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/ws"))
        self.pings: list[float] = []
        """When each ping arrived (the loop's clock)."""
        self.closed = asyncio.Event()

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.protocol.send_request(self.protocol.connect())
        self._flush()
        while self.protocol.state is State.CONNECTING:
            self.protocol.receive_data(await self.reader.read(65536))
        assert self.protocol.state is State.OPEN
        self._task = asyncio.create_task(self._read())

    def send(self, text: str) -> None:
        self.protocol.send_text(text.encode())
        self._flush()

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self.writer.close()

    def _flush(self) -> None:
        self.writer.write(b"".join(self.protocol.data_to_send()))

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        while data := await self.reader.read(65536):
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                if isinstance(event, Frame) and event.opcode is Opcode.PING:
                    self.pings.append(loop.time())
            self._flush()  # the pong
        self.closed.set()


def _silent_server() -> contextlib.AbstractAsyncContextManager[int]:
    """A server whose application only reads, with a short keepalive interval."""

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass

    return _serving(endpoint, ping_interval=PING_INTERVAL)


async def test_the_keepalive_pings_a_silent_client_and_spares_a_talking_one() -> None:
    loop = asyncio.get_running_loop()
    async with _silent_server() as port:
        silent, talking = RawClient(port), RawClient(port)
        await silent.open()
        await talking.open()
        # The talking client sends something three times an interval, for five intervals.
        for _ in range(15):
            talking.send("still here")
            await asyncio.sleep(PING_INTERVAL / 3)
        pinged_while_talking = list(talking.pings)
        stopped = loop.time()
        # Now it is silent too: it gets a ping about an interval after its last message.
        await asyncio.sleep(PING_INTERVAL * 2.5)
        await silent.close()
        await talking.close()
    assert pinged_while_talking == []
    assert talking.pings, "a client that fell silent is pinged again"
    assert talking.pings[0] - stopped < PING_INTERVAL * 2
    # The silent one was pinged about once an interval all along (and answered).
    assert len(silent.pings) >= 5
    assert not silent.closed.is_set()
