"""The ASGI app: the routes, the middleware and the lifespan.

:func:`create_app` builds it, with its :class:`~romme.server.state.ServerState` on
``app.state.romme``; its lifespan opens the store (creating and migrating the
database), starts the bot workers, rebuilds the unfinished tables and, on the way
out, lets the tables finish their writes before it closes. The HTTP routes are
:mod:`romme.server.api`, the WebSocket :mod:`romme.server.websocket`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from romme.server import (
    api,
    api_account,
    api_analysis,
    api_chips,
    api_moderation,
    api_replay,
    api_stats,
)
from romme.server.config import DEFAULT_DB_URL, ServerOptions
from romme.server.httpguard import HttpGuard
from romme.server.state import ServerState
from romme.server.timers import Clock, RealClock
from romme.server.websocket import echo, websocket_endpoint

__all__ = ["WEB_DIR", "ServerState", "create_app"]

log = logging.getLogger("romme.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    state: ServerState = app.state.romme
    await state.open()
    log.info(
        "server_started",
        extra={"db": _safe_url(state.db_url), "time_scale": state.options.time_scale},
    )
    try:
        yield
    finally:
        await state.close()


def create_app(
    db_url: str | None = None, options: ServerOptions | None = None, clock: Clock | None = None
) -> Starlette:
    """The romme server as an ASGI app (``db_url``: SQLAlchemy URL; default SQLite
    in ``./var``)."""
    options = options or ServerOptions()
    state = ServerState(db_url or DEFAULT_DB_URL, options, clock or RealClock(options.time_scale))
    routes: list[Any] = [
        Route("/healthz", api.healthz),
        Route("/api/guest", api.guest, methods=["POST"]),
        Route("/api/register", api.register, methods=["POST"]),
        Route("/api/login", api.login, methods=["POST"]),
        Route("/api/logout", api.logout, methods=["POST"]),
        Route("/api/sessions", api.sessions),
        Route("/api/sessions/revoke", api.revoke_session, methods=["POST"]),
        Route("/api/me", api.me),
        Route("/api/players/{nickname}", api.player_info),
        Route("/api/games/{game_id}", api.game_log),
        Route("/api/rankings", api.rankings),
        Route("/api/tables", api.tables),
        Route("/api/players/{nickname}/games", api_replay.game_history),
        Route("/api/games/{game_id}/replay", api_replay.game_replay),
        Route("/api/reports", api_moderation.report, methods=["POST"]),
        Route("/api/moderation", api_moderation.moderation),
        Route("/api/moderation/resolve", api_moderation.resolve, methods=["POST"]),
        Route("/api/moderation/mute", api_moderation.mute, methods=["POST"]),
        Route("/api/moderation/ban", api_moderation.ban, methods=["POST"]),
        Route("/api/moderation/lift", api_moderation.lift, methods=["POST"]),
        Route("/api/games/{game_id}/analysis", api_analysis.read_analysis),
        Route("/api/games/{game_id}/analysis", api_analysis.request_analysis, methods=["POST"]),
        Route("/api/account/password", api_account.change_password, methods=["POST"]),
        Route("/api/account/delete", api_account.delete_account, methods=["POST"]),
        Route("/api/me/export", api_account.export_data),
        Route("/api/stats/cards", api_stats.card_luck),
        Route("/api/players/{nickname}/ledger", api_chips.ledger),
        Route("/api/bonus", api_chips.bonus_state),
        Route("/api/bonus", api_chips.claim_bonus, methods=["POST"]),
        Route("/api/house", api_chips.house),
        Route("/api/economy/signals", api_chips.economy_signals),
        Route("/api/economy/games", api_chips.game_signals),
        Route("/api/economy/void", api_chips.void_game, methods=["POST"]),
        WebSocketRoute("/ws", websocket_endpoint),
    ]
    if options.bench_echo:
        routes.append(WebSocketRoute("/bench/echo", echo))
    static = options.static_dir or WEB_DIR
    if static.is_dir() and (static / "index.html").exists():
        routes.append(Mount("/", app=StaticFiles(directory=static, html=True), name="web"))
    else:
        routes.append(Route("/", api.no_client))
    # Text (scripts, styles, SVG cards, JSON) goes out compressed when the client
    # accepts it; WebSockets pass through untouched.
    # Every HTTP request first passes the guard (cross-site refusals, security headers).
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(HttpGuard),
            Middleware(GZipMiddleware, minimum_size=1024, compresslevel=6),
        ],
    )
    app.state.romme = state
    return app


def _safe_url(url: str) -> str:
    """The database URL without its password (for logs)."""
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url
