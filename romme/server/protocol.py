"""The wire protocol (``docs/protocol.md``): client messages parsed into typed
values, error codes, and the limits on size and rate (the table settings are
:mod:`romme.server.settings`; the server's messages :mod:`romme.server.messages`).

Parsing never trusts the client: a message that is not what the protocol says
raises :class:`ProtocolError` with a stable code and a message that names the
problem; nothing has changed anywhere when it does.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from romme.bots import LEVELS_HELP, is_level
from romme.engine.actions import Action, action_from_json
from romme.engine.errors import NotationError
from romme.server.errors import CHAT_MAX, ERROR_CODES, ProtocolError
from romme.server.settings import TableSettings, parse_settings

__all__ = [
    "CHAT_MAX",
    "DB_INT_MAX",
    "ERROR_CODES",
    "MESSAGES",
    "MESSAGE_TYPES",
    "AboutPlayer",
    "ActionMsg",
    "AnswerFriend",
    "AnswerInvitation",
    "Back",
    "BlockPlayer",
    "ClientMessage",
    "CreateTable",
    "FieldSpec",
    "FriendRequest",
    "Hint",
    "Invite",
    "JoinTable",
    "LeaveTable",
    "LobbyChat",
    "LobbySubscribe",
    "NextRoundMsg",
    "Ping",
    "PlayerInfoMsg",
    "ProtocolError",
    "RateLimiter",
    "Rematch",
    "RemoveFriend",
    "Resync",
    "SetSeat",
    "StartGame",
    "TableChat",
    "UnblockPlayer",
    "WatchTable",
    "check_body_strings",
    "edge_id",
    "parse_message",
    "request_id",
    "table_action",
]

# ------------------------------------------------------------------ messages


@dataclass(frozen=True, slots=True)
class LobbyChat:
    text: str


@dataclass(frozen=True, slots=True)
class LobbySubscribe:
    deltas: bool


@dataclass(frozen=True, slots=True)
class CreateTable:
    settings: TableSettings


@dataclass(frozen=True, slots=True)
class JoinTable:
    table: int


@dataclass(frozen=True, slots=True)
class WatchTable:
    table: int


@dataclass(frozen=True, slots=True)
class LeaveTable:
    table: int


@dataclass(frozen=True, slots=True)
class SetSeat:
    table: int
    seat: int
    bot: str | None


@dataclass(frozen=True, slots=True)
class StartGame:
    table: int
    fill: str | None
    """Put a computer opponent of this level in every free seat first."""


@dataclass(frozen=True, slots=True)
class Invite:
    table: int
    nickname: str


@dataclass(frozen=True, slots=True)
class AnswerInvitation:
    invitation: int
    accept: bool


@dataclass(frozen=True, slots=True)
class PlayerInfoMsg:
    nickname: str


@dataclass(frozen=True, slots=True)
class ActionMsg:
    table: int
    action: dict[str, Any]
    """The engine action as sent, without ``seat`` (checked by :func:`table_action`)."""


@dataclass(frozen=True, slots=True)
class NextRoundMsg:
    table: int


@dataclass(frozen=True, slots=True)
class TableChat:
    table: int
    text: str


@dataclass(frozen=True, slots=True)
class Hint:
    table: int


@dataclass(frozen=True, slots=True)
class Resync:
    table: int
    since: int | None


@dataclass(frozen=True, slots=True)
class Back:
    table: int


@dataclass(frozen=True, slots=True)
class Rematch:
    table: int
    accept: bool


@dataclass(frozen=True, slots=True)
class Ping:
    pass


@dataclass(frozen=True, slots=True)
class AboutPlayer:
    """A request about another player, named by nickname (the friends and blocks
    messages: one subclass each, so that each has its handler)."""

    nickname: str


class FriendRequest(AboutPlayer):
    __slots__ = ()


class RemoveFriend(AboutPlayer):
    __slots__ = ()


class BlockPlayer(AboutPlayer):
    __slots__ = ()


class UnblockPlayer(AboutPlayer):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class AnswerFriend:
    nickname: str
    accept: bool


ClientMessage = (
    LobbyChat
    | LobbySubscribe
    | CreateTable
    | JoinTable
    | WatchTable
    | LeaveTable
    | SetSeat
    | StartGame
    | Invite
    | AnswerInvitation
    | PlayerInfoMsg
    | ActionMsg
    | NextRoundMsg
    | TableChat
    | Hint
    | Resync
    | Back
    | Ping
    | FriendRequest
    | AnswerFriend
    | RemoveFriend
    | BlockPlayer
    | UnblockPlayer
)


DB_INT_MAX = 2**31 - 1
"""The largest id the databases hold (a 32-bit ``INTEGER`` on PostgreSQL): a table
or invitation id above it cannot exist, and is refused before it reaches a query."""

VERSION_MAX = 2**53 - 1
"""The largest version or message id (exact in every JSON reader)."""

ID_MAX_CHARS = 64


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a client message: its kind (how it is checked, see
    ``_KIND_PARSERS``) and whether it may be left out."""

    kind: str
    optional: bool = False


def _int_field(data: dict[str, Any], key: str, optional: bool, high: int) -> int | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= high:
        raise ProtocolError("bad_message", f"{key!r} must be a whole number from 0 to {high}")
    return value


def _text_field(data: dict[str, Any], key: str, optional: bool, limit: int = 100) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ProtocolError("bad_message", f"{key!r} must be a string")
    if len(value) > limit:
        raise ProtocolError("bad_message", f"{key!r} is longer than {limit} characters")
    if any(ch < " " or ch == "\x7f" for ch in value):
        raise ProtocolError("bad_message", f"{key!r} must not hold control characters")
    return value


def _chat_field(data: dict[str, Any], key: str, optional: bool) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ProtocolError("bad_message", f"{key!r} must be a string")
    return clean_chat(value)


def _flag_field(data: dict[str, Any], key: str, optional: bool) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise ProtocolError("bad_message", f"{key!r} must be true or false")
    return value


def _level_field(data: dict[str, Any], key: str, optional: bool) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not is_level(value):
        raise ProtocolError("bad_message", f"{key!r} must be {LEVELS_HELP}")
    return str(value)


def _action_field(data: dict[str, Any], key: str, optional: bool) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise ProtocolError("bad_message", f"{key!r} must be an object")
    return value


_KIND_PARSERS: dict[str, Callable[[dict[str, Any], str, bool], Any]] = {
    "id": lambda d, k, o: _int_field(d, k, o, DB_INT_MAX),
    "seat": lambda d, k, o: _int_field(d, k, o, DB_INT_MAX),
    "version": lambda d, k, o: _int_field(d, k, o, VERSION_MAX),
    "name": _text_field,
    "chat": _chat_field,
    "flag": _flag_field,
    "level": _level_field,
    "settings": lambda d, k, o: parse_settings(d.get(k)),
    "action": _action_field,
}
"""How each kind of field is checked: ``(message, key, optional) -> value``."""


def _spec(**fields: str) -> dict[str, FieldSpec]:
    """Field specs from ``name="kind"`` (a trailing ``?`` marks an optional field)."""
    return {name: FieldSpec(kind.rstrip("?"), kind.endswith("?")) for name, kind in fields.items()}


MESSAGES: dict[str, tuple[type[Any], dict[str, FieldSpec]]] = {
    "lobby_chat": (LobbyChat, _spec(text="chat")),
    "lobby_subscribe": (LobbySubscribe, _spec(deltas="flag")),
    "create_table": (CreateTable, _spec(settings="settings?")),
    "join_table": (JoinTable, _spec(table="id")),
    "watch_table": (WatchTable, _spec(table="id")),
    "leave_table": (LeaveTable, _spec(table="id")),
    "set_seat": (SetSeat, _spec(table="id", seat="seat", bot="level?")),
    "start_game": (StartGame, _spec(table="id", fill="level?")),
    "invite": (Invite, _spec(table="id", nickname="name")),
    "answer_invitation": (AnswerInvitation, _spec(invitation="id", accept="flag")),
    "player_info": (PlayerInfoMsg, _spec(nickname="name")),
    "action": (ActionMsg, _spec(table="id", action="action")),
    "next_round": (NextRoundMsg, _spec(table="id")),
    "table_chat": (TableChat, _spec(table="id", text="chat")),
    "hint": (Hint, _spec(table="id")),
    "resync": (Resync, _spec(table="id", since="version?")),
    "back": (Back, _spec(table="id")),
    "rematch": (Rematch, _spec(table="id", accept="flag")),
    "ping": (Ping, {}),
    "friend_request": (FriendRequest, _spec(nickname="name")),
    "answer_friend": (AnswerFriend, _spec(nickname="name", accept="flag")),
    "remove_friend": (RemoveFriend, _spec(nickname="name")),
    "block": (BlockPlayer, _spec(nickname="name")),
    "unblock": (UnblockPlayer, _spec(nickname="name")),
}
"""Every client message: its type, its value class and its fields, in the order of
the class's fields. The parser reads this table, and so do the fuzz tests."""

MESSAGE_TYPES = tuple(sorted(MESSAGES))


def clean_chat(text: str) -> str:
    """Chat text as stored: control characters (but line breaks) removed,
    surrounding space stripped; ``chat_empty`` / ``chat_too_long``."""
    text = "".join(ch for ch in text if ch == "\n" or (ch >= " " and ch != "\x7f"))
    text = text.strip()
    if not text:
        raise ProtocolError("chat_empty")
    if len(text) > CHAT_MAX:
        raise ProtocolError("chat_too_long", f"at most {CHAT_MAX} characters")
    return text


def _encodable(text: str) -> bool:
    """Whether a string is valid Unicode (a JSON ``\\ud800`` escape alone is not:
    it can be neither stored nor sent)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

LONE_SURROGATE = "a string holds a lone surrogate (\\ud800-\\udfff): it is not valid Unicode"


def _strings(data: Any) -> Iterator[str]:
    """Every string of a parsed JSON value, keys included (without recursion: the
    value may be nested as deep as the parser allows)."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def _check_unicode(text: str, data: Any) -> None:
    """``bad_message`` if a string or key of the message holds a lone surrogate."""
    if not _SURROGATE_ESCAPE.search(text):
        return
    if not all(_encodable(value) for value in _strings(data)):
        raise ProtocolError("bad_message", LONE_SURROGATE)


def check_body_strings(data: Any) -> None:
    """The check of every string of an HTTP request's JSON body, keys included,
    before any route reads it: ``bad_message`` for a lone surrogate (not valid
    Unicode: it can be neither stored nor sent, as on the WebSocket) and for a
    NUL (no database text holds one: PostgreSQL refuses it). Other control
    characters are each field's concern, as on the WebSocket: a nickname refuses
    them, free text keeps them as text."""
    for value in _strings(data):
        if not _encodable(value):
            raise ProtocolError("bad_message", LONE_SURROGATE)
        if "\x00" in value:
            raise ProtocolError("bad_message", "a string holds a NUL character")


def _message_id(data: dict[str, Any]) -> Any:
    """The client's ``id``: ``None`` if absent; ``bad_message`` if it is not one the
    server can echo (a string of at most 64 characters of valid Unicode, or an
    integer of at most 2**53 - 1 either way)."""
    value = data.get("id")
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= VERSION_MAX:
        return value
    if isinstance(value, str) and len(value) <= ID_MAX_CHARS and _encodable(value):
        return value
    raise ProtocolError(
        "bad_message",
        f"'id' must be a string of at most {ID_MAX_CHARS} characters or a whole number",
    )


_ID_NEAR_EDGE = re.compile(r'[{,]\s*"id"\s*:\s*("(?:[^"\\]|\\.){0,64}"|-?\d{1,16})\s*[,}]')
EDGE_CHARS = 512
"""How far from either end of an oversized message its ``id`` is looked for."""


def edge_id(text: str) -> Any:
    """The ``id`` of a message that is not parsed whole (too big) or cannot be
    (nested deeper than the parser goes, a number of more digits than Python
    reads, broken JSON), found among its first or last ``EDGE_CHARS`` characters,
    where clients put it; ``None`` if it has none the server can echo."""
    found = _ID_NEAR_EDGE.search(text[:EDGE_CHARS]) or _ID_NEAR_EDGE.search(text[-EDGE_CHARS:])
    if found is None:
        return None
    try:
        return _message_id({"id": json.loads(found.group(1))})
    except (ValueError, ProtocolError):
        return None


def request_id(text: str | bytes, max_bytes: int) -> Any:
    """The ``id`` of a message that is refused before it is parsed (``too_large``,
    ``rate_limited``, a binary frame), so that the refusal can carry it; ``None``
    if it has none the server can echo. A message within ``max_bytes`` is parsed;
    a bigger one is not (parsing a megabyte of JSON costs up to a tenth of a
    second), nor one the parser refuses: their id is looked for by
    :func:`edge_id`."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if len(text) > max_bytes:
        return edge_id(text)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return edge_id(text)
    try:
        return _message_id(data) if isinstance(data, dict) else None
    except ProtocolError:
        return None


def parse_message(text: str, max_bytes: int) -> tuple[ClientMessage, Any]:
    """A client message and its ``id``; raise :class:`ProtocolError` (with the
    ``msg_id`` to answer with, when the message has one)."""
    if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise _with_id(
            ProtocolError("too_large", f"a message may hold at most {max_bytes} bytes"),
            request_id(text, max_bytes),
        )
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        # Nested too deep, a number of too many digits, broken JSON: the id is
        # looked for where clients put it, so that the refusal still answers it.
        raise _with_id(
            ProtocolError("bad_json", "the message is not valid JSON"), edge_id(text)
        ) from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message is a JSON object")
    msg_id = _message_id(data)
    try:
        _check_unicode(text, data)
        kind = data.get("type")
        entry = MESSAGES.get(kind) if isinstance(kind, str) else None
        if entry is None:
            raise ProtocolError("unknown_type", f"unknown message type {kind!r}")
        cls, fields = entry
        values = [
            _KIND_PARSERS[spec.kind](data, name, spec.optional) for name, spec in fields.items()
        ]
        return cls(*values), msg_id
    except ProtocolError as exc:
        raise _with_id(exc, msg_id) from None


def _with_id(exc: ProtocolError, msg_id: Any) -> ProtocolError:
    exc.msg_id = msg_id  # type: ignore[attr-defined]
    return exc


def table_action(data: dict[str, Any], seat: int) -> Action:
    """The engine action a client sent, for its seat (``bad_message`` if malformed).
    ``next_round`` is the table's, not a seat's: it is its own message."""
    if "seat" in data:
        raise ProtocolError("bad_message", "'seat' is filled in by the server; leave it out")
    if data.get("type") == "next_round":
        raise ProtocolError("bad_message", 'send {"type": "next_round"} as a message')
    try:
        return action_from_json({**data, "seat": seat})
    except NotationError as exc:
        raise ProtocolError("bad_message", exc.message) from None


# ----------------------------------------------------------------- rate limit


class RateLimiter:
    """A token bucket: ``rate`` messages per second sustained, bursts of ``burst``."""

    __slots__ = ("rate", "burst", "_tokens", "_stamp")

    def __init__(self, rate: float, burst: int, now: float | None = None) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._stamp = time.monotonic() if now is None else now

    def allow(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self._tokens = min(self.burst, self._tokens + max(0.0, now - self._stamp) * self.rate)
        self._stamp = max(self._stamp, now)
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False
