"""The WebSocket protocol under uvicorn, with a compression window that holds an update.

uvicorn's sans-I/O WebSocket protocol compresses with permessage-deflate over a
4 KiB window (``server_max_window_bits=12``). A seat's ``update`` carries the
seat's whole view (4.7 KB median), so that window never reaches back to the
previous update, which is nearly the same text: zlib finds few matches, works
longer and sends more. With an 8 KiB window the previous update is in reach:
on the real updates of whole games about a third of the CPU time and an eighth
of the bytes (``bench/bench_deflate.py``; figures in docs/server.md), for 16 KiB
more of zlib's memory per connection (48 KiB instead of 32 KiB).

It also lets the application send a text frame without the ASGI way
(:meth:`WebSocketProtocol.send_now`, found in the scope's extensions under
:data:`SEND_NOW`). A message sent through ASGI passes a queue, the connection's
writer task and the framework's send wrappers before it is framed: several
task switches and coroutines per frame, and a move sends one frame to every
seat. When the socket takes the frame at once (it is writable and nothing is
queued before it), none of that buys anything.

And it stops reading a client's socket only when the application falls behind
that client (:data:`READ_AHEAD` messages waiting), not after every message as
uvicorn does: pausing and resuming costs two system calls per message received.

Its keepalive pings only a connection that has been silent for the whole ping
interval. A ping asks "are you there?"; a client that sent something within the
interval has answered already (the web client sends a ``ping`` message every
15 s). uvicorn pings every connection every interval, and each ping costs the
server two timers, a frame out and a frame in, about 0.17 ms of CPU
(``bench/bench_keepalive.py``): at 2,000 connections and a ping every 20 s, 17 ms
of every second. A client that goes away is found as soon as before: at most one
interval after the last thing it sent, plus the ping's timeout.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.exceptions import InvalidState
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.http11 import Request
from websockets.server import ServerProtocol

__all__ = ["READ_AHEAD", "SEND_NOW", "SERVER_WINDOW_BITS", "WebSocketProtocol"]

READ_AHEAD = 8
"""Messages received and not yet taken by the application before the socket is
no longer read (a client sends one message at a time and waits for the answer,
and the server's rate limit refuses floods; this bounds what one client can
make the server hold)."""
SEND_NOW = "romme.send_now"
"""The scope extension that holds the connection's :meth:`WebSocketProtocol.send_now`."""

SERVER_WINDOW_BITS = 13
"""The server's compression window, 2**13 = 8 KiB (uvicorn's own: 2**12)."""


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with the server's window widened."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.heard_at = self.loop.time()
        """When the client's last bytes arrived (the loop's clock)."""
        if config.ws_per_message_deflate:
            self.conn = ServerProtocol(
                extensions=[
                    ServerPerMessageDeflateFactory(
                        server_max_window_bits=SERVER_WINDOW_BITS,
                        client_max_window_bits=12,
                        compress_settings={"memLevel": 5},
                    )
                ],
                max_size=config.ws_max_size,
                logger=self.logger,
            )

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the handshake is going ahead: the app runs next
            scope["extensions"][SEND_NOW] = self.send_now

    def data_received(self, data: bytes) -> None:
        self.heard_at = self.loop.time()
        super().data_received(data)

    def send_keepalive_ping(self) -> None:
        """Ping only if nothing came from the client for a whole interval; else
        look again one interval after the last thing it sent."""
        interval = self.ping_interval
        assert interval is not None
        silent_for = self.loop.time() - self.heard_at
        if silent_for < interval:
            self.ping_timer = self.loop.call_later(interval - silent_for, self.send_keepalive_ping)
            return
        super().send_keepalive_ping()

    def send_receive_event_to_app(self) -> None:
        """Hand a received message to the application; reading pauses only when
        :data:`READ_AHEAD` are waiting (uvicorn's method pauses unless it is
        told reading is paused already)."""
        if self.read_paused or self.queue.qsize() >= READ_AHEAD:
            super().send_receive_event_to_app()
            return
        self.read_paused = True
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False

    def send_now(self, text: str) -> bool:
        """Frame ``text`` and hand it to the socket now, if the socket takes it
        without waiting. ``False`` (nothing sent) when the caller must take the
        ASGI way instead: before the handshake is accepted, once the close is
        under way, or while the transport's buffer is full (the ASGI send waits
        for it to drain)."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        try:
            self.conn.send_text(text.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True
