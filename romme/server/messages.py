"""Every message the server sends, built here (``docs/protocol.md``, "Server to
client").

A builder returns the message as a dict; :func:`dumps` makes the text that goes
on the wire. A reply to a request carries the request's ``id``: it is attached by
:func:`with_id` and nowhere else, always as the last field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import orjson

from romme.bots import LEVELS
from romme.server import PROTOCOL_VERSION
from romme.server.protocol import CHAT_MAX

__all__ = [
    "chat_entry",
    "dumps",
    "error",
    "friend_online",
    "friends",
    "game_over",
    "hint",
    "invitation",
    "invitation_update",
    "left_table",
    "lobby",
    "lobby_chat",
    "lobby_update",
    "next_round",
    "ok",
    "player_info",
    "pong",
    "seat_update",
    "shutdown",
    "table",
    "table_chat",
    "table_closed",
    "update",
    "welcome",
    "with_id",
    "with_id_text",
]


def dumps(data: Any) -> str:
    """Compact JSON text of a server message.

    orjson writes the same compact UTF-8 text as the standard library about ten
    times faster (``bench/bench_json.py``: the updates of a move are most of what
    the server encodes); what it refuses (an integer beyond 64 bits, a key that is
    not a string) goes to the standard library. Messages key their objects by
    strings, so orjson is not asked to convert keys: with that option it took
    half as long again on the real updates."""
    try:
        return orjson.dumps(data).decode()
    except orjson.JSONEncodeError:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def with_id(data: dict[str, Any], msg_id: Any) -> dict[str, Any]:
    """The message as the reply to the request ``msg_id`` (unchanged without one)."""
    if msg_id is None:
        return data
    return {**data, "id": msg_id}


def with_id_text(text: str, msg_id: Any) -> str:
    """``dumps(with_id(data, msg_id))`` from ``text = dumps(data)`` (a message
    without an ``id``), without encoding ``data`` again: the id goes last."""
    if msg_id is None:
        return text
    return f'{text[:-1]},"id":{dumps(msg_id)}}}'


def ms(value: Any) -> int | None:
    """Milliseconds since the epoch from a datetime or a number."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return int(value)
    timestamp = getattr(value, "timestamp", None)
    return int(timestamp() * 1000) if timestamp is not None else None


def as_json(value: Any) -> dict[str, Any]:
    """A store record (or a dict already) as its JSON object."""
    if isinstance(value, dict):
        return value
    to_json = getattr(value, "to_json", None)
    if to_json is not None:
        data: dict[str, Any] = to_json()
        return data
    raise TypeError(f"cannot send {type(value).__name__}")


def chat_entry(message: Any) -> dict[str, Any]:
    """A stored chat message as the lobby and the tables keep it: what they show
    (:func:`public_chat`) and the sender's id, which the block filter compares
    (a nickname changes when a guest registers; the id stays)."""
    data = as_json(message)
    return {
        "id": data.get("id"),
        "from": data.get("from"),
        "text": data.get("text"),
        "at": ms(data.get("at")),
        "player_id": data.get("player_id"),
    }


def public_chat(entry: dict[str, Any]) -> dict[str, Any]:
    """A kept chat line as it is sent: without the sender's id (the protocol never
    tells one player another's id)."""
    return {k: v for k, v in entry.items() if k != "player_id"}


# ------------------------------------------------------------ connection


def error(code: str, message: str, msg_id: Any = None) -> dict[str, Any]:
    return with_id({"type": "error", "code": code, "message": message}, msg_id)


def welcome(player: dict[str, Any], server_time: int) -> dict[str, Any]:
    return {
        "type": "welcome",
        "protocol": PROTOCOL_VERSION,
        "player": player,
        "server_time": server_time,
        "bot_levels": list(LEVELS),
        "chat_max": CHAT_MAX,
    }


def pong(server_time: int) -> dict[str, Any]:
    return {"type": "pong", "server_time": server_time}


def ok() -> dict[str, Any]:
    return {"type": "ok"}


def shutdown() -> dict[str, Any]:
    return {
        "type": "shutdown",
        "message": "the server is restarting; reconnect in a moment",
        "retry_ms": 2000,
    }


def player_info(info: dict[str, Any]) -> dict[str, Any]:
    return {"type": "player_info", "info": info}


# ----------------------------------------------------------------- lobby


def lobby(
    tables: list[dict[str, Any]],
    playing: int,
    online: int,
    players: list[dict[str, Any]],
    chat: list[dict[str, Any]],
    invitations: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "type": "lobby",
        "tables": tables,
        "playing": playing,
        "online": online,
        "players": players,
        "chat": chat,
        "invitations": invitations,
    }


def lobby_update(
    tables: list[dict[str, Any]], playing: int, online: int, players: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "type": "lobby_update",
        "tables": tables,
        "playing": playing,
        "online": online,
        "players": players,
    }


def lobby_chat(message: dict[str, Any]) -> dict[str, Any]:
    return {"type": "lobby_chat", "message": message}


def invitation(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "invitation", "invitation": data}


def invitation_update(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "invitation_update", "invitation": data}


def left_table(table_id: int) -> dict[str, Any]:
    return {"type": "left_table", "table": table_id}


# ----------------------------------------------------------------- table


def table(snapshot: dict[str, Any]) -> dict[str, Any]:
    return {"type": "table", "table": snapshot}


def rematch(table_id: int, state: dict[str, Any]) -> dict[str, Any]:
    """The rematch offer of a finished table (``Rematch`` of the protocol)."""
    return {"type": "rematch", "table": table_id, "rematch": state}


def update(
    table_id: int,
    version: int,
    events: Iterable[dict[str, Any]],
    view: dict[str, Any] | None,
    timer: dict[str, Any] | None,
    round_summary: dict[str, Any] | bool | None = False,
    by: str | None = None,
) -> dict[str, Any]:
    """An ``update``; ``round_summary`` (``next_round``) is included only when it is
    not ``False`` (a view at a round summary); ``"by": "timeout"`` only when the
    turn clock made the move for a seat whose time ran out."""
    data: dict[str, Any] = {
        "type": "update",
        "table": table_id,
        "version": version,
        "events": list(events),
        "view": view,
        "timer": timer,
    }
    if round_summary is not False:
        data["next_round"] = round_summary
    if by == "timeout":
        data["by"] = "timeout"
    return data


def seat_update(table_id: int, seats: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "seat_update", "table": table_id, "seats": seats}


def table_chat(table_id: int, message: dict[str, Any]) -> dict[str, Any]:
    return {"type": "table_chat", "table": table_id, "message": message}


def next_round(table_id: int, state: dict[str, Any] | None) -> dict[str, Any]:
    return {"type": "next_round", "table": table_id, "next_round": state}


def table_closed(table_id: int, reason: str) -> dict[str, Any]:
    return {"type": "table_closed", "table": table_id, "reason": reason}


def game_over(
    table_id: int, winners: list[int], totals: list[int], ratings: dict[str, Any]
) -> dict[str, Any]:
    return {
        "type": "game_over",
        "table": table_id,
        "winners": winners,
        "totals": totals,
        "ratings": ratings,
    }


def hint(table_id: int, action: dict[str, Any] | None, reason: str) -> dict[str, Any]:
    return {"type": "hint", "table": table_id, "action": action, "reason": reason}


# ---------------------------------------------------------------- friends


def friends(
    friends: list[dict[str, Any]], incoming: list[str], outgoing: list[str], blocked: list[str]
) -> dict[str, Any]:
    return {
        "type": "friends",
        "friends": friends,
        "incoming": incoming,
        "outgoing": outgoing,
        "blocked": blocked,
    }


def friend_online(nickname: str, online: bool) -> dict[str, Any]:
    return {"type": "friend_online", "nickname": nickname, "online": online}
