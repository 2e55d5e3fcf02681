"""The WebSocket at ``/ws``: one client's connection from handshake to close.

The read loop checks each frame's rate, kind and size and parses it
(:func:`~romme.server.protocol.parse_message`); a refused frame is answered with
an ``error`` right there (and too many refusals in a minute close the connection
with 4429). A parsed message goes to :func:`romme.server.dispatch.handle`.
``/bench/echo`` is the benchmark's bare baseline on the same stack.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from romme.server import dispatch, messages
from romme.server.chatrate import ChatRate
from romme.server.connection import Connection, ConnectionRefused
from romme.server.errors import ProtocolError
from romme.server.httpguard import foreign_origin
from romme.server.protocol import LobbyChat, RateLimiter, TableChat, parse_message, request_id
from romme.server.state import server_state

__all__ = ["echo", "websocket_endpoint"]

log = logging.getLogger("romme.server")

CHAT_MESSAGES = (LobbyChat, TableChat)
"""The messages counted by the chat limits per player and address."""


async def websocket_endpoint(websocket: WebSocket) -> None:
    if foreign_origin(websocket.headers, websocket.url.scheme):
        # Accepted and closed at once, so that the client sees 4403 (a refused
        # handshake would only be an HTTP 403). The session is never looked at.
        await websocket.accept()
        await websocket.close(code=4403)
        return
    await websocket.accept()
    state = server_state(websocket)
    options = state.options
    player = await state.session_player(websocket)
    if player is None or state.hub is None or state.hub.shutting_down:
        if player is None:
            refusal = messages.error(
                "not_authenticated", "log in first (POST /api/guest or /api/login)"
            )
        else:
            refusal = messages.error("shutting_down", "the server is restarting")
        with contextlib.suppress(Exception):
            await websocket.send_text(messages.dumps(refusal))
            await websocket.close(code=4401 if player is None else 1012)
        return
    hub = state.hub
    address = websocket.client.host if websocket.client is not None else None
    conn = Connection(websocket, player, address, options.send_queue_limit)
    cookie = state.session_cookie(websocket)
    conn.session_token = None if cookie is None else cookie[1]
    writer = asyncio.create_task(conn.writer())
    limiter = RateLimiter(options.rate_per_second, options.rate_burst)
    max_bytes = options.max_message_bytes
    try:
        await hub.connect(conn)
        if await state.session_player(websocket) is None:
            # The session ended while the socket was being registered: its end may
            # have closed the player's connections before this one was among them.
            conn.close(4401)
        while not conn.closed:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if not limiter.allow():
                if _refuse(conn, options.max_refused_per_minute):
                    break
                conn.send_json(
                    messages.error(
                        "rate_limited",
                        "too many messages; slow down",
                        _frame_id(message, max_bytes),
                    )
                )
                continue
            if text is None:
                if _refuse(conn, options.max_refused_per_minute):
                    break
                conn.send_json(
                    messages.error(
                        "bad_json", "send JSON in text frames", _frame_id(message, max_bytes)
                    )
                )
                continue
            try:
                parsed, msg_id = parse_message(text, max_bytes)
            except ProtocolError as exc:
                if _refuse(conn, options.max_refused_per_minute):
                    break
                conn.send_json(messages.error(exc.code, exc.message, getattr(exc, "msg_id", None)))
                continue
            if isinstance(parsed, CHAT_MESSAGES) and not await hub.chat_rate.allow(
                conn.player_id, conn.address
            ):
                # Counted by the socket's node (and Redis, in a cluster) before a
                # table's chat line is relayed to the table's node
                # (romme.server.chatrate).
                if _refuse(conn, options.max_refused_per_minute):
                    break
                conn.error(_chat_refusal(hub.chat_rate), msg_id)
                continue
            if hub.relay is not None and hub.relay.is_remote(parsed):
                # Another node may run the table (docs/cluster.md).
                try:
                    if await hub.relay.forward(conn, parsed, text):
                        continue
                except ProtocolError as exc:
                    conn.error(exc, msg_id)
                    continue
            await dispatch.handle(hub, conn, parsed, msg_id)
    except ConnectionRefused as exc:
        conn.error(exc.error)
        conn.close(exc.close_code)
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("connection_failed", extra={"player": conn.nickname})
    finally:
        await hub.disconnect(conn)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=2)


def _frame_id(message: Mapping[str, Any], max_bytes: int) -> Any:
    """The id of a received frame that is refused unread (text or binary)."""
    text = message.get("text")
    payload = text if text is not None else message.get("bytes") or b""
    return request_id(payload, max_bytes)


def _chat_refusal(rate: ChatRate) -> ProtocolError:
    return ProtocolError(
        "rate_limited",
        f"too much chat, slow down: a player may say {rate.per_second:g} lines a second "
        f"(bursts of {rate.burst}), the players of one address a few more",
    )


def _refuse(conn: Connection, limit: int) -> bool:
    """Count a refused message; True when the connection must be closed."""
    if not limit:
        return False
    now = time.monotonic()
    conn.refused = [t for t in conn.refused if now - t < 60]
    conn.refused.append(now)
    if len(conn.refused) > limit:
        conn.send_json(messages.error("rate_limited", "too many bad messages: goodbye"))
        conn.close(4429)
        return True
    return False


async def echo(websocket: WebSocket) -> None:
    """A bare broadcast echo: every message goes to every member of its group
    (the benchmark's baseline for the same stack)."""
    await websocket.accept()
    group = websocket.query_params.get("group", "")
    members = server_state(websocket).echo_groups.setdefault(group, set())
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
