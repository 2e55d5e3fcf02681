"""``romme serve``: run the server under uvicorn, with JSON logs and a graceful
SIGTERM (stop taking moves, finish the writes, tell the clients, exit)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn

from romme.server.app import ServerState, create_app
from romme.server.config import DEFAULT_DB_URL, options_from_args
from romme.server.logs import configure_logging, uvicorn_log_config
from romme.server.wsprotocol import WebSocketProtocol

__all__ = ["serve"]

log = logging.getLogger("romme.server")

WS_MAX_SIZE = 1024 * 1024
"""Frames up to this size reach the protocol layer, which refuses anything over
16 KiB with a ``too_large`` error; bigger frames close the connection (1009)."""


class _Server(uvicorn.Server):
    """uvicorn's server, draining the tables before it closes the sockets."""

    def __init__(self, config: uvicorn.Config, state: ServerState) -> None:
        super().__init__(config)
        self._state = state
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drain: asyncio.Future[Any] | None = None

    async def serve(self, sockets: Any = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        hub = self._state.hub
        if self._drain is None and hub is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._start_drain, sig, frame)
            return
        super().handle_exit(sig, frame)

    def _start_drain(self, sig: int, frame: FrameType | None) -> None:
        hub = self._state.hub
        assert hub is not None
        grace = self._state.options.shutdown_grace

        async def drain() -> None:
            try:
                await asyncio.wait_for(hub.begin_shutdown(), timeout=grace)
                await asyncio.sleep(0.1)  # let the writers send the notice
            except Exception:
                log.exception("drain_failed")
            finally:
                uvicorn.Server.handle_exit(self, sig, frame)
                # A drained shutdown is a clean exit (status 0), not death by signal.
                self._captured_signals.clear()

        self._drain = asyncio.ensure_future(drain())


def serve(args: argparse.Namespace) -> int:
    configure_logging(args.log_level)
    options = options_from_args(args)
    db = args.db or os.environ.get("ROMME_DB_URL") or DEFAULT_DB_URL
    if db.startswith("sqlite") and ":///./var/" in db:
        Path("var").mkdir(mode=0o700, exist_ok=True)
    app = create_app(db, options)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_config=uvicorn_log_config(args.log_level),
        access_log=args.access_log,
        ws_max_size=WS_MAX_SIZE,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        ws=WebSocketProtocol,
        ws_per_message_deflate=args.ws_deflate,
        lifespan="on",
        timeout_graceful_shutdown=int(options.shutdown_grace) + 1,
        proxy_headers=True,
        forwarded_allow_ips=options.forwarded_allow_ips,
    )
    server = _Server(config, app.state.romme)
    server.run()
    return 0 if server.started else 1
