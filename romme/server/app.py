"""The ASGI app: HTTP routes, the WebSocket, and the web client's files.

:func:`create_app` builds it; its lifespan opens the store (creating and
migrating the database), starts the bot workers, rebuilds the unfinished tables
and, on the way out, lets the tables finish their writes before it closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from romme.server.auth import COOKIE_NAME, SESSION_MAX_AGE, Sessions, load_secret
from romme.server.botpool import BotPool
from romme.server.config import DEFAULT_DB_URL, ServerOptions
from romme.server.httpguard import HttpGuard, foreign_origin
from romme.server.lobby import Connection, ConnectionRefused, Hub
from romme.server.protocol import (
    ProtocolError,
    RateLimiter,
    dumps,
    error_message,
    parse_message,
    request_id,
)
from romme.server.timers import Clock, RealClock
from romme.store import PlayerRecord, Store, StoreError
from romme.store.limits import LimitReached

__all__ = ["ServerState", "create_app"]

log = logging.getLogger("romme.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
MAX_BODY = 16 * 1024

_STATUS = {
    "nickname_taken": 409,
    "nickname_confusable": 409,
    "bad_credentials": 401,
    "not_authenticated": 401,
    "no_such_player": 404,
    "no_such_game": 404,
    "no_such_session": 404,
    "too_large": 413,
}
"""HTTP status per error code (400 for the others; limits answer 429, see
``_limit_reached``)."""
_GAME_ID = re.compile(r"[0-9]{1,10}\Z")


class ServerState:
    """What the routes share: options, store, sessions, the hub."""

    def __init__(self, db_url: str, options: ServerOptions, clock: Clock) -> None:
        self.db_url = db_url
        self.options = options
        self.clock = clock
        self.sessions = Sessions(load_secret(options.secret, options.secret_file))
        self.store: Store | None = None
        self.hub: Hub | None = None
        self.botpool = BotPool(options.bot_workers)
        self.echo_groups: dict[str, set[WebSocket]] = {}

    async def open(self) -> None:
        self.store = await Store.open(self.db_url, accounts_per_hour=self.options.accounts_per_hour)
        await self.botpool.start()
        self.hub = Hub(self.store, self.options, self.clock, self.botpool)
        await self.hub.start()

    async def close(self) -> None:
        if self.hub is not None:
            await self.hub.close()
        await self.botpool.close()
        if self.store is not None:
            await self.store.close()
        log.info("server_stopped")


def _error(code: str, message: str, status: int | None = None) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status or _STATUS.get(code, 400)
    )


def _limit_reached(exc: LimitReached) -> JSONResponse:
    """429 with the seconds to wait, in the body and in ``Retry-After``."""
    return JSONResponse(
        {"error": {"code": exc.code, "message": exc.message, "retry_after": exc.retry_after}},
        status_code=429,
        headers={"Retry-After": str(exc.retry_after)},
    )


def client_address(request: Request) -> str:
    """The client's address as the limits count it: an IPv4 address, or the /64
    network of an IPv6 address (one subscriber's usual share). Behind a trusted
    proxy, uvicorn has put the address from ``X-Forwarded-For`` here."""
    host = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64] or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


async def _body(request: Request) -> dict[str, Any]:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise ProtocolError("too_large", f"a request body may hold at most {MAX_BODY} bytes")
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        raise ProtocolError("bad_json", "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "the body must be a JSON object")
    return data


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise ProtocolError("bad_message", f"{key!r} must be a string")
    return value


def create_app(
    db_url: str | None = None, options: ServerOptions | None = None, clock: Clock | None = None
) -> Starlette:
    """The romme server as an ASGI app (``db_url``: SQLAlchemy URL; default SQLite
    in ``./var``)."""
    options = options or ServerOptions()
    state = ServerState(db_url or DEFAULT_DB_URL, options, clock or RealClock(options.time_scale))

    def store() -> Store:
        assert state.store is not None
        return state.store

    def hub() -> Hub:
        assert state.hub is not None
        return state.hub

    def session_cookie(request: Request | WebSocket) -> tuple[int, str] | None:
        return state.sessions.read(request.cookies.get(COOKIE_NAME))

    async def session_player(request: Request | WebSocket) -> PlayerRecord | None:
        """The player of the request's session: a live session record (not revoked,
        not expired) of a player who is not a released guest."""
        cookie = session_cookie(request)
        if cookie is None or state.store is None:
            return None
        return await store().session_player(*cookie)

    def secure(request: Request) -> bool:
        return options.cookie_secure or request.url.scheme == "https"

    async def signed_in(request: Request, player: PlayerRecord) -> Response:
        """The answer to a login, registration or new guest: a new session (the one
        the client had is revoked: a session id never outlives a login) in the cookie."""
        cookie = session_cookie(request)
        token = await store().create_session(
            player.id,
            client_address(request),
            request.headers.get("user-agent", ""),
            replacing=None if cookie is None else cookie[1],
        )
        response = JSONResponse({"player": player.to_json()})
        response.set_cookie(
            COOKIE_NAME,
            state.sessions.cookie(player.id, token),
            max_age=SESSION_MAX_AGE,
            path="/",
            httponly=True,
            samesite="lax",
            secure=secure(request),
        )
        return response

    def signed_out(request: Request, response: Response) -> Response:
        response.delete_cookie(
            COOKIE_NAME, path="/", httponly=True, samesite="lax", secure=secure(request)
        )
        return response

    async def api(request: Request, handler: Any) -> Response:
        try:
            response: Response = await handler(request)
            return response
        except LimitReached as exc:
            return _limit_reached(exc)
        except (ProtocolError, StoreError) as exc:
            return _error(exc.code, exc.message)

    # ------------------------------------------------------------- routes

    async def healthz(request: Request) -> Response:
        db_ok = False
        if state.store is not None:
            try:
                await asyncio.wait_for(state.store.ping(), timeout=2)
                db_ok = True
            except Exception:
                db_ok = False
        counts = (
            state.hub.health()
            if state.hub is not None
            else {"tables": 0, "connections": 0, "unrestored_tables": []}
        )
        ok = db_ok and state.hub is not None and not state.hub.shutting_down
        return JSONResponse({"ok": ok, "db": db_ok, **counts}, status_code=200 if ok else 503)

    async def guest(request: Request) -> Response:
        async def run(request: Request) -> Response:
            body = await _body(request)
            player = await hub().guests.sign_in(
                await session_player(request),
                _text(body, "nickname"),
                address=client_address(request),
            )
            return await signed_in(request, player)

        return await api(request, run)

    async def register(request: Request) -> Response:
        async def run(request: Request) -> Response:
            body = await _body(request)
            me = await session_player(request)
            guest_id = me.id if me is not None and me.guest else None
            player = await store().register(
                _text(body, "nickname"),
                _text(body, "password"),
                guest_id=guest_id,
                address=client_address(request),
            )
            return await signed_in(request, player)

        return await api(request, run)

    async def login(request: Request) -> Response:
        async def run(request: Request) -> Response:
            body = await _body(request)
            player = await store().login(
                _text(body, "nickname"), _text(body, "password"), address=client_address(request)
            )
            return await signed_in(request, player)

        return await api(request, run)

    async def logout(request: Request) -> Response:
        async def run(request: Request) -> Response:
            everywhere = (await _body(request)).get("everywhere", False)
            if not isinstance(everywhere, bool):
                raise ProtocolError("bad_message", "'everywhere' must be true or false")
            me = await session_player(request)
            cookie = session_cookie(request)
            if me is not None and cookie is not None:
                # A guest has no password and cannot come back: its nickname is freed.
                if me.guest or everywhere:
                    await store().revoke_sessions(me.id)
                    if me.guest:
                        await store().release_guest(me.id)
                    if state.hub is not None:
                        state.hub.disconnect_player(me.id, 4401)
                else:
                    await store().revoke_sessions(me.id, token=cookie[1])
            return signed_out(request, JSONResponse({"ok": True}))

        return await api(request, run)

    async def sessions(request: Request) -> Response:
        me = await session_player(request)
        cookie = session_cookie(request)
        if me is None or cookie is None:
            return _error("not_authenticated", "log in first")
        return JSONResponse({"sessions": await store().sessions(me.id, cookie[1])})

    async def revoke_session(request: Request) -> Response:
        async def run(request: Request) -> Response:
            session_id = (await _body(request)).get("id")
            if not isinstance(session_id, int) or isinstance(session_id, bool):
                raise ProtocolError("bad_message", "'id' must be a session's id")
            me = await session_player(request)
            cookie = session_cookie(request)
            if me is None or cookie is None:
                return _error("not_authenticated", "log in first")
            current = any(
                s["current"] and s["id"] == session_id
                for s in await store().sessions(me.id, cookie[1])
            )
            if not await store().revoke_sessions(me.id, session_id=session_id):
                return _error("no_such_session", "you have no such session")
            response = JSONResponse({"ok": True})
            return signed_out(request, response) if current else response

        return await api(request, run)

    async def me(request: Request) -> Response:
        player = await session_player(request)
        if player is None:
            return _error("not_authenticated", "log in first")
        return JSONResponse({"player": player.to_json()})

    async def player_info(request: Request) -> Response:
        info = await store().player_info(request.path_params["nickname"])
        if info is None:
            return _error("no_such_player", "there is no such player")
        return JSONResponse(info)

    async def game_log(request: Request) -> Response:
        text = request.path_params["game_id"]
        if not _GAME_ID.match(text):
            return _error("no_such_game", "there is no such game")
        data = await store().game_log(int(text))
        if data is None:
            return _error("no_such_game", "no finished game has this id")
        return JSONResponse(data)

    async def rankings(request: Request) -> Response:
        try:
            limit = max(1, min(100, int(request.query_params.get("limit", "50"))))
        except ValueError:
            return _error("bad_message", "limit must be a number from 1 to 100")
        return JSONResponse({"rankings": await store().rankings(limit)})

    async def tables(request: Request) -> Response:
        return JSONResponse({"tables": hub().running_tables()})

    async def no_client(request: Request) -> Response:
        return HTMLResponse(
            "<!doctype html><title>romme</title><p>romme server is running. "
            "The web client is not installed.</p>"
        )

    # ---------------------------------------------------------- websocket

    async def ws(websocket: WebSocket) -> None:
        if foreign_origin(websocket.headers, websocket.url.scheme):
            # Accepted and closed at once, so that the client sees 4403 (a refused
            # handshake would only be an HTTP 403). The session is never looked at.
            await websocket.accept()
            await websocket.close(code=4403)
            return
        await websocket.accept()
        player = await session_player(websocket)
        if player is None or state.hub is None or state.hub.shutting_down:
            code = "not_authenticated" if player is None else "shutting_down"
            with contextlib.suppress(Exception):
                await websocket.send_text(
                    dumps(
                        error_message(
                            code,
                            "log in first (POST /api/guest or /api/login)"
                            if code == "not_authenticated"
                            else "the server is restarting",
                        )
                    )
                )
                await websocket.close(code=4401 if player is None else 1012)
            return
        the_hub = hub()
        address = websocket.client.host if websocket.client is not None else None
        conn = Connection(the_hub, websocket, player, address)
        writer = asyncio.create_task(conn.writer())
        limiter = RateLimiter(options.rate_per_second, options.rate_burst)
        try:
            await the_hub.connect(conn)
            while not conn.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if not limiter.allow():
                    if refuse(conn):
                        break
                    conn.send_json(
                        error_message(
                            "rate_limited", "too many messages; slow down", frame_id(message)
                        )
                    )
                    continue
                if text is None:
                    if refuse(conn):
                        break
                    conn.send_json(
                        error_message("bad_json", "send JSON in text frames", frame_id(message))
                    )
                    continue
                try:
                    parsed, msg_id = parse_message(text, options.max_message_bytes)
                except ProtocolError as exc:
                    if refuse(conn):
                        break
                    conn.send_json(
                        error_message(exc.code, exc.message, getattr(exc, "msg_id", None))
                    )
                    continue
                await the_hub.handle(conn, parsed, msg_id)
        except ConnectionRefused as exc:
            conn.error(exc.error)
            conn.close(exc.close_code)
        except WebSocketDisconnect:
            pass
        except Exception:
            log.exception("connection_failed", extra={"player": conn.nickname})
        finally:
            await the_hub.disconnect(conn)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, timeout=2)

    def frame_id(message: Mapping[str, Any]) -> Any:
        """The id of a received frame that is refused unread (text or binary)."""
        text = message.get("text")
        payload = text if text is not None else message.get("bytes") or b""
        return request_id(payload, options.max_message_bytes)

    def refuse(conn: Connection) -> bool:
        """Count a refused message; True when the connection must be closed."""
        limit = options.max_refused_per_minute
        if not limit:
            return False
        now = time.monotonic()
        conn.refused = [t for t in conn.refused if now - t < 60]
        conn.refused.append(now)
        if len(conn.refused) > limit:
            conn.send_json(error_message("rate_limited", "too many bad messages: goodbye"))
            conn.close(4429)
            return True
        return False

    async def echo(websocket: WebSocket) -> None:
        """A bare broadcast echo: every message goes to every member of its group
        (the benchmark's baseline for the same stack)."""
        await websocket.accept()
        group = websocket.query_params.get("group", "")
        members = state.echo_groups.setdefault(group, set())
        members.add(websocket)
        try:
            while True:
                text = await websocket.receive_text()
                for member in list(members):
                    with contextlib.suppress(Exception):
                        await member.send_text(text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            members.discard(websocket)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await state.open()
        log.info(
            "server_started",
            extra={"db": _safe_url(state.db_url), "time_scale": options.time_scale},
        )
        try:
            yield
        finally:
            await state.close()

    routes: list[Any] = [
        Route("/healthz", healthz),
        Route("/api/guest", guest, methods=["POST"]),
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/sessions", sessions),
        Route("/api/sessions/revoke", revoke_session, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/players/{nickname}", player_info),
        Route("/api/games/{game_id}", game_log),
        Route("/api/rankings", rankings),
        Route("/api/tables", tables),
        WebSocketRoute("/ws", ws),
    ]
    if options.bench_echo:
        routes.append(WebSocketRoute("/bench/echo", echo))
    static = options.static_dir or WEB_DIR
    if static.is_dir() and (static / "index.html").exists():
        routes.append(Mount("/", app=StaticFiles(directory=static, html=True), name="web"))
    else:
        routes.append(Route("/", no_client))
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
