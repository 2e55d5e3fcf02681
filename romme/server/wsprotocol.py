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
