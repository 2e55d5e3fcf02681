"""What the routes share, kept on the app as ``app.state.romme``: the options, the
store, the sessions and the hub."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from romme.server.analysis import AnalysisRunner
from romme.server.auth import COOKIE_NAME, Sessions, load_secret
from romme.server.botpool import BotPool
from romme.server.config import ServerOptions
from romme.server.hub import Hub
from romme.server.relay import Relay
from romme.server.timers import Clock
from romme.store import PlayerRecord, Store

if TYPE_CHECKING:
    from starlette.requests import HTTPConnection
    from starlette.websockets import WebSocket

__all__ = ["ServerState", "server_state"]

log = logging.getLogger("romme.server")


class ServerState:
    """What the routes share: options, store, sessions, the hub, the analyses."""

    def __init__(self, db_url: str, options: ServerOptions, clock: Clock) -> None:
        self.db_url = db_url
        self.options = options
        self.clock = clock
        self.sessions = Sessions(load_secret(options.secret, options.secret_file))
        self.store: Store | None = None
        self.hub: Hub | None = None
        self.analyses: AnalysisRunner | None = None
        self.botpool = BotPool(options.bot_workers)
        self.echo_groups: dict[str, set[WebSocket]] = {}

    async def open(self) -> None:
        self.store = await Store.open(
            self.db_url,
            accounts_per_hour=self.options.accounts_per_hour,
            sqlite_synchronous=self.options.sqlite_synchronous,
        )
        self.store.chip_policy = self.options.chip_policy()
        await self.botpool.start()
        self.hub = Hub(self.store, self.options, self.clock, self.botpool)
        if self.options.redis_url:
            self.hub.relay = Relay(self.hub, self.options.redis_url, self.hub.ownership.node)
        await self.hub.start()
        self.analyses = AnalysisRunner(self.store, self.botpool)

    async def close(self) -> None:
        if self.hub is not None:
            await self.hub.close()
        if self.analyses is not None:
            await self.analyses.close()
        await self.botpool.close()
        if self.store is not None:
            await self.store.close()
        log.info("server_stopped")

    def open_store(self) -> Store:
        """The store (the routes run only while it is open)."""
        assert self.store is not None
        return self.store

    def open_hub(self) -> Hub:
        assert self.hub is not None
        return self.hub

    def session_cookie(self, request: HTTPConnection) -> tuple[int, str] | None:
        """The player id and session token of the request's signed cookie."""
        return self.sessions.read(request.cookies.get(COOKIE_NAME))

    async def session_player(self, request: HTTPConnection) -> PlayerRecord | None:
        """The player of the request's session: a live session record (not revoked,
        not expired) of a player who is not a released guest."""
        cookie = self.session_cookie(request)
        if cookie is None or self.store is None:
            return None
        return await self.store.session_player(*cookie)


def server_state(request: HTTPConnection) -> ServerState:
    """The state of the app that serves this request or WebSocket."""
    state: ServerState = request.app.state.romme
    return state
