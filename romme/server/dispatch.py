"""What each client message does: one handler per message type (``HANDLERS``).

A handler runs with the hub, the sender's connection, the parsed message and the
request's ``id``. Whatever changes a table runs in the table's own task
(``table.call``). A refused request is answered with an ``error`` to its sender
only and changes nothing (:func:`handle`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from romme.engine.errors import EngineError
from romme.server import messages
from romme.server.connection import Connection
from romme.server.errors import ProtocolError
from romme.server.hub import Hub
from romme.server.moderation import Muted
from romme.server.protocol import (
    ActionMsg,
    AnswerFriend,
    AnswerInvitation,
    Back,
    BlockPlayer,
    ClientMessage,
    CreateTable,
    FriendRequest,
    Hint,
    Invite,
    JoinTable,
    LeaveTable,
    LobbyChat,
    LobbySubscribe,
    NextRoundMsg,
    Ping,
    PlayerInfoMsg,
    Rematch,
    RemoveFriend,
    Resync,
    SetSeat,
    StartGame,
    TableChat,
    UnblockPlayer,
    WatchTable,
)
from romme.server.table import TableActor
from romme.store import StoreError

__all__ = ["HANDLERS", "handle"]

log = logging.getLogger("romme.server.lobby")

Handler = Callable[[Hub, Connection, Any, Any], Awaitable[None]]


async def handle(hub: Hub, conn: Connection, message: ClientMessage, msg_id: Any) -> None:
    """Do what a client asked; errors go back to that client only."""
    if hub.shutting_down and not isinstance(message, Ping):
        conn.error(ProtocolError("shutting_down"), msg_id)
        return
    try:
        await HANDLERS[type(message)](hub, conn, message, msg_id)
    except (ProtocolError, EngineError, StoreError) as exc:
        conn.error(exc, msg_id)
    except (SQLAlchemyError, OSError) as exc:
        # The database cannot be reached (down, or this node is cut off from it):
        # nothing was stored; the client may try again shortly.
        log.warning(
            "request_store_unreachable",
            extra={"player": conn.nickname, "kind": type(message).__name__, "error": repr(exc)},
        )
        conn.error(
            ProtocolError("server_busy", "the database cannot be reached: try again shortly"),
            msg_id,
        )
    except Exception:
        # A fault of the server, not of the message: logged with its traceback,
        # answered, and the connection stays usable.
        log.exception(
            "request_failed", extra={"player": conn.nickname, "kind": type(message).__name__}
        )
        conn.error(ProtocolError("server_error"), msg_id)


def _ok(conn: Connection, msg_id: Any) -> None:
    """``ok`` answers a request that has an id and no other answer."""
    if msg_id is not None:
        conn.reply(messages.ok(), msg_id)


# ----------------------------------------------------------------- lobby


async def _ping(hub: Hub, conn: Connection, message: Ping, msg_id: Any) -> None:
    conn.reply(messages.pong(hub.clock.now_ms()), msg_id)


async def _lobby_subscribe(
    hub: Hub, conn: Connection, message: LobbySubscribe, msg_id: Any
) -> None:
    hub.lobby.subscribe(conn, message.deltas, msg_id)


async def _screened(hub: Hub, conn: Connection, text: str, msg_id: Any) -> str | None:
    """Chat text with the filter's words masked; ``None`` (answered ``muted``) for a
    muted player."""
    try:
        return await hub.chat_guard.screen(conn.player_id, text)
    except Muted as exc:
        hub.chat_guard.refuse(conn, exc, msg_id)
        return None


async def _lobby_chat(hub: Hub, conn: Connection, message: LobbyChat, msg_id: Any) -> None:
    text = await _screened(hub, conn, message.text, msg_id)
    if text is not None:
        await hub.lobby.say(conn, text)
        _ok(conn, msg_id)


async def _table_chat(hub: Hub, conn: Connection, message: TableChat, msg_id: Any) -> None:
    text = await _screened(hub, conn, message.text, msg_id)
    if text is not None:
        table = hub.registry.table(message.table)
        await table.call(table.chat_message, conn, text)
        _ok(conn, msg_id)


async def _create_table(hub: Hub, conn: Connection, message: CreateTable, msg_id: Any) -> None:
    await hub.create_table(conn, message.settings, msg_id)


async def _player_info(hub: Hub, conn: Connection, message: PlayerInfoMsg, msg_id: Any) -> None:
    info = await hub.store.player_info(message.nickname)
    if info is None:
        raise ProtocolError("no_such_player", f"there is no player {message.nickname!r}")
    conn.reply(messages.player_info(info), msg_id)


async def _invite(hub: Hub, conn: Connection, message: Invite, msg_id: Any) -> None:
    await hub.invitations.invite(conn, message, msg_id)


async def _answer(hub: Hub, conn: Connection, message: AnswerInvitation, msg_id: Any) -> None:
    await hub.invitations.answer(conn, message, msg_id)


# ----------------------------------------------------------------- table


def _at_table(
    work: Callable[[TableActor, Connection, Any, Any], Awaitable[Any]], answer_ok: bool = False
) -> Handler:
    """The handler of a message to a table: ``work(table, conn, message, msg_id)``
    runs in the table's task; ``answer_ok``: then ``ok`` answers (the other
    requests are answered by the table itself)."""

    async def handler(hub: Hub, conn: Connection, message: Any, msg_id: Any) -> None:
        table = hub.registry.table(message.table)
        await table.call(work, table, conn, message, msg_id)
        if answer_ok:
            _ok(conn, msg_id)

    return handler


async def _leave(hub: Hub, conn: Connection, message: LeaveTable, msg_id: Any) -> None:
    table = hub.registry.table(message.table)
    await table.call(table.leave, conn)
    conn.reply(messages.left_table(table.id), msg_id)
    conn.send_json(await hub.lobby.message(conn))


async def _hint(hub: Hub, conn: Connection, message: Hint, msg_id: Any) -> None:
    table = hub.registry.table(message.table)
    view = await table.call(table.view_json, conn)
    action, reason = await hub.botpool.suggest(view)
    if action is not None:
        action = {k: v for k, v in action.items() if k != "seat"}
    conn.reply(messages.hint(table.id, action, reason), msg_id)


async def _rematch(hub: Hub, conn: Connection, message: Rematch, msg_id: Any) -> None:
    await hub.rematches.answer(conn, message.table, message.accept)
    _ok(conn, msg_id)


HANDLERS: dict[type[Any], Handler] = {
    Ping: _ping,
    LobbyChat: _lobby_chat,
    LobbySubscribe: _lobby_subscribe,
    CreateTable: _create_table,
    PlayerInfoMsg: _player_info,
    Invite: _invite,
    AnswerInvitation: _answer,
    ActionMsg: _at_table(
        lambda table, conn, m, msg_id: table.client_action(conn, m.action, msg_id)
    ),
    JoinTable: _at_table(lambda table, conn, m, msg_id: table.join(conn, msg_id)),
    WatchTable: _at_table(lambda table, conn, m, msg_id: table.watch(conn, msg_id)),
    LeaveTable: _leave,
    SetSeat: _at_table(lambda table, conn, m, _: table.set_seat(conn, m.seat, m.bot), True),
    StartGame: _at_table(lambda table, conn, m, _: table.start_game(conn, m.fill), True),
    NextRoundMsg: _at_table(lambda table, conn, m, _: table.next_round(conn), True),
    TableChat: _table_chat,
    Resync: _at_table(lambda table, conn, m, msg_id: table.resync(conn, m.since, msg_id)),
    Back: _at_table(lambda table, conn, m, _: table.back(conn), True),
    Hint: _hint,
    FriendRequest: lambda hub, conn, m, msg_id: hub.social.request(conn, m.nickname, msg_id),
    AnswerFriend: lambda hub, conn, m, msg_id: hub.social.answer(
        conn, m.nickname, m.accept, msg_id
    ),
    RemoveFriend: lambda hub, conn, m, msg_id: hub.social.remove(conn, m.nickname, msg_id),
    BlockPlayer: lambda hub, conn, m, msg_id: hub.social.block(conn, m.nickname, msg_id),
    UnblockPlayer: lambda hub, conn, m, msg_id: hub.social.unblock(conn, m.nickname, msg_id),
    Rematch: _rematch,
}
"""The handler of each client message type (every type of ``protocol.MESSAGES``)."""
