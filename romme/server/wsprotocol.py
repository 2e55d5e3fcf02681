"""The WebSocket protocol under uvicorn, with a compression window that holds an update.

uvicorn's sans-I/O WebSocket protocol compresses with permessage-deflate over a
4 KiB window (``server_max_window_bits=12``). A seat's ``update`` carries the
seat's whole view (4.7 KB median), so that window never reaches back to the
previous update, which is nearly the same text: zlib finds few matches, works
longer and sends more. With an 8 KiB window the previous update is in reach:
on the real updates of whole games about a third of the CPU time and an eighth
of the bytes (``bench/bench_deflate.py``; figures in docs/server.md), for 16 KiB
more of zlib's memory per connection (48 KiB instead of 32 KiB).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

__all__ = ["SERVER_WINDOW_BITS", "WebSocketProtocol"]

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
