"""The HTTP routes: ``/healthz`` and the JSON API under ``/api`` (accounts,
sessions, players, finished games, rankings, open tables).

Each route is a plain handler; what they share is the app's
:class:`~romme.server.state.ServerState` (:func:`~romme.server.state.server_state`).
A refused request answers ``{"error": {"code", "message"}}`` with its HTTP status.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from romme.server.auth import COOKIE_NAME, SESSION_MAX_AGE
from romme.server.errors import ProtocolError
from romme.server.moderation import (
    browser_mark,
    follow_sanctions,
    refuse_banned,
    set_browser_mark,
)
from romme.server.protocol import check_body_strings
from romme.server.state import server_state
from romme.store import PlayerRecord, StoreError
from romme.store.limits import LimitReached
from romme.store.sessions import VerifiedLogin, token_hash

__all__ = [
    "client_address",
    "game_log",
    "guest",
    "healthz",
    "login",
    "logout",
    "me",
    "no_client",
    "player_info",
    "rankings",
    "register",
    "revoke_session",
    "sessions",
    "tables",
]

MAX_BODY = 16 * 1024

_STATUS = {
    "nickname_taken": 409,
    "nickname_confusable": 409,
    "bad_credentials": 401,
    "not_authenticated": 401,
    "no_such_player": 404,
    "no_such_game": 404,
    "no_such_session": 404,
    "no_such_report": 404,
    "banned": 403,
    "not_moderator": 403,
    "already_reported": 409,
    "report_resolved": 409,
    "already_void": 409,
    "wrong_password": 403,
    "in_game": 409,
    "too_large": 413,
}
"""HTTP status per error code (400 for the others; limits answer 429, see
``_limit_reached``)."""
_GAME_ID = re.compile(r"[0-9]{1,10}\Z")


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


def _refusals(
    handler: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """The route answering its refusals (a limit, a protocol or store error) as
    JSON errors."""

    async def route(request: Request) -> Response:
        try:
            return await handler(request)
        except LimitReached as exc:
            return _limit_reached(exc)
        except (ProtocolError, StoreError) as exc:
            return _error(exc.code, exc.message)

    route.__name__ = handler.__name__
    route.__doc__ = handler.__doc__
    return route


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
    """The request's JSON body, the one reader of every route that has one: at
    most ``MAX_BODY`` bytes (``too_large``), a JSON object (``bad_json``) whose
    strings and keys hold no lone surrogate and no NUL (``bad_message``,
    :func:`~romme.server.protocol.check_body_strings`), checked before the route
    looks at any field."""
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
    check_body_strings(data)
    return data


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise ProtocolError("bad_message", f"{key!r} must be a string")
    return value


def _secure(request: Request) -> bool:
    return server_state(request).options.cookie_secure or request.url.scheme == "https"


async def _signed_in(
    request: Request, player: PlayerRecord, login: VerifiedLogin | None = None
) -> Response:
    """The answer to a login, registration or new guest: a new session (the one
    the client had is revoked, and its sockets closed: a session id never outlives
    a login) in the cookie. First the player's sanctions follow this address and
    browser (a new account may take one linked to them), and a banned player gets
    no session. ``login``: the login's checked password, which must still be the
    player's when the session is made (``Store.create_session``)."""
    state = server_state(request)
    mark, new_mark = browser_mark(request)
    await follow_sanctions(state.open_store(), player, client_address(request), mark)
    cookie = state.session_cookie(request)
    token = await state.open_store().create_session(
        player.id,
        client_address(request),
        request.headers.get("user-agent", ""),
        replacing=None if cookie is None else cookie[1],
        login=login,
    )
    if cookie is not None and state.hub is not None:
        state.hub.registry.disconnect_player(cookie[0], 4401, only=token_hash(cookie[1]))
    response = JSONResponse({"player": player.to_json()})
    response.set_cookie(
        COOKIE_NAME,
        state.sessions.cookie(player.id, token),
        max_age=SESSION_MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=_secure(request),
    )
    if new_mark:
        set_browser_mark(response, mark, _secure(request))
    return response


def _signed_out(request: Request, response: Response) -> Response:
    response.delete_cookie(
        COOKIE_NAME, path="/", httponly=True, samesite="lax", secure=_secure(request)
    )
    return response


# ----------------------------------------------------------------- routes


async def healthz(request: Request) -> Response:
    state = server_state(request)
    db_ok = False
    if state.store is not None:
        try:
            db_ok = await asyncio.wait_for(state.store.ping(), timeout=2)
        except Exception:
            db_ok = False
    counts = (
        state.hub.health()
        if state.hub is not None
        else {
            "tables": 0,
            "connections": 0,
            "unrestored_tables": [],
            "replaying_tables": 0,
            "loop_lag_ms": [],
            "move_ms": None,
            "node": None,
            "owned_tables": [],
            "redis": None,
        }
    )
    ok = db_ok and state.hub is not None and not state.hub.shutting_down
    return JSONResponse({"ok": ok, "db": db_ok, **counts}, status_code=200 if ok else 503)


@_refusals
async def guest(request: Request) -> Response:
    state = server_state(request)
    body = await _body(request)
    player = await state.open_hub().guests.sign_in(
        await state.session_player(request),
        _text(body, "nickname"),
        address=client_address(request),
    )
    return await _signed_in(request, player)


@_refusals
async def register(request: Request) -> Response:
    state = server_state(request)
    body = await _body(request)
    me = await state.session_player(request)
    guest_id = me.id if me is not None and me.guest else None
    player = await state.open_store().register(
        _text(body, "nickname"),
        _text(body, "password"),
        guest_id=guest_id,
        address=client_address(request),
    )
    return await _signed_in(request, player)


@_refusals
async def login(request: Request) -> Response:
    state = server_state(request)
    body = await _body(request)
    login = await state.open_store().checked_login(
        _text(body, "nickname"), _text(body, "password"), address=client_address(request)
    )
    await refuse_banned(state.open_store(), login.player.id)
    return await _signed_in(request, login.player, login)


@_refusals
async def logout(request: Request) -> Response:
    state = server_state(request)
    everywhere = (await _body(request)).get("everywhere", False)
    if not isinstance(everywhere, bool):
        raise ProtocolError("bad_message", "'everywhere' must be true or false")
    me = await state.session_player(request)
    cookie = state.session_cookie(request)
    if me is not None and cookie is not None:
        store = state.open_store()
        # A guest has no password and cannot come back: its nickname is freed.
        if me.guest or everywhere:
            await store.revoke_sessions(me.id)
            if me.guest:
                await store.release_guest(me.id)
            if state.hub is not None:
                state.hub.registry.disconnect_player(me.id, 4401)
        else:
            await store.revoke_sessions(me.id, token=cookie[1])
            if state.hub is not None:
                state.hub.registry.disconnect_player(me.id, 4401, only=token_hash(cookie[1]))
    return _signed_out(request, JSONResponse({"ok": True}))


async def sessions(request: Request) -> Response:
    state = server_state(request)
    me = await state.session_player(request)
    cookie = state.session_cookie(request)
    if me is None or cookie is None:
        return _error("not_authenticated", "log in first")
    return JSONResponse({"sessions": await state.open_store().sessions(me.id, cookie[1])})


@_refusals
async def revoke_session(request: Request) -> Response:
    state = server_state(request)
    session_id = (await _body(request)).get("id")
    if not isinstance(session_id, int) or isinstance(session_id, bool):
        raise ProtocolError("bad_message", "'id' must be a session's id")
    me = await state.session_player(request)
    cookie = state.session_cookie(request)
    if me is None or cookie is None:
        return _error("not_authenticated", "log in first")
    store = state.open_store()
    ended = await store.revoke_session(me.id, session_id)
    if ended is None:
        return _error("no_such_session", "you have no such session")
    if state.hub is not None:
        state.hub.registry.disconnect_player(me.id, 4401, only=ended)
    current = ended == token_hash(cookie[1])
    response = JSONResponse({"ok": True})
    return _signed_out(request, response) if current else response


async def me(request: Request) -> Response:
    state = server_state(request)
    player = await state.session_player(request)
    if player is None:
        return _error("not_authenticated", "log in first")
    store = state.open_store()
    moderator = await store.is_moderator(player.id)
    progress = await store.player_statistics(player.id)
    chips = await store.chips(player.id)
    return JSONResponse(
        {"player": player.to_json(), "moderator": moderator, "chips": chips, **progress}
    )


async def player_info(request: Request) -> Response:
    store = server_state(request).open_store()
    info = await store.player_info(request.path_params["nickname"])
    if info is None:
        return _error("no_such_player", "there is no such player")
    info["chips"] = await store.chips_of(info["nickname"])
    return JSONResponse(info)


async def game_log(request: Request) -> Response:
    text = request.path_params["game_id"]
    if not _GAME_ID.match(text):
        return _error("no_such_game", "there is no such game")
    data = await server_state(request).open_store().game_log(int(text))
    if data is None:
        return _error("no_such_game", "no finished game has this id")
    return JSONResponse(data)


RANKINGS = ("rating", "level", "chips_month")
"""The orders ``/api/rankings?by=`` knows (``rating`` without ``by``)."""


async def rankings(request: Request) -> Response:
    try:
        limit = max(1, min(100, int(request.query_params.get("limit", "50"))))
    except ValueError:
        return _error("bad_message", "limit must be a number from 1 to 100")
    by = request.query_params.get("by", "rating")
    if by not in RANKINGS:
        return _error("no_such_ranking", f"rankings are by {', '.join(RANKINGS)}")
    state = server_state(request)
    store = state.open_store()
    me = await state.session_player(request)
    if by == "level":
        return JSONResponse(await store.level_ranking(limit, None if me is None else me.id))
    if by == "chips_month":
        rows, mine = await store.chips_month_ranking(limit, None if me is None else me.id)
        return JSONResponse({"rankings": rows, "me": mine})
    mine = None if me is None else await store.rating_position(me.id)
    return JSONResponse({"rankings": await store.rankings(limit), "me": mine})


async def tables(request: Request) -> Response:
    return JSONResponse({"tables": server_state(request).open_hub().lobby.running_tables()})


async def no_client(request: Request) -> Response:
    return HTMLResponse(
        "<!doctype html><title>romme</title><p>romme server is running. "
        "The web client is not installed.</p>"
    )
