"""The wire protocol (``docs/protocol.md``): client messages parsed into typed
values, table settings, error codes, and the limits on size and rate.

Parsing never trusts the client: a message that is not what the protocol says
raises :class:`ProtocolError` with a stable code and a message that names the
problem; nothing has changed anywhere when it does.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from romme.engine.actions import Action, action_from_json
from romme.engine.errors import NotationError
from romme.engine.rules import Rules

__all__ = [
    "BOT_LEVELS",
    "ERROR_CODES",
    "ActionMsg",
    "AnswerInvitation",
    "Back",
    "ClientMessage",
    "CreateTable",
    "Hint",
    "Invite",
    "JoinTable",
    "LeaveTable",
    "LobbyChat",
    "NextRoundMsg",
    "Ping",
    "PlayerInfoMsg",
    "ProtocolError",
    "RateLimiter",
    "Resync",
    "SetSeat",
    "StartGame",
    "TableChat",
    "TableSettings",
    "WatchTable",
    "dumps",
    "error_message",
    "parse_message",
    "parse_settings",
]

BOT_LEVELS = ("beginner", "casual", "strong", "expert")

CHAT_MAX = 500

ERROR_CODES = {
    "bad_json": "the message is not a JSON object",
    "too_large": "the message is too large",
    "unknown_type": "unknown message type",
    "bad_message": "a field is missing or malformed",
    "rate_limited": "too many messages",
    "not_authenticated": "log in first",
    "no_such_table": "there is no such table",
    "no_such_player": "there is no such player",
    "not_seated": "you do not sit at this table",
    "table_full": "the table has no free seat",
    "not_host": "only the host may do that",
    "already_started": "the game has started",
    "not_started": "the game has not started",
    "seats_not_filled": "every seat must be taken",
    "invite_only": "only invited players may sit at this table",
    "no_such_invitation": "there is no such invitation",
    "invitation_expired": "the invitation has expired",
    "cannot_invite": "this player cannot be invited",
    "chat_empty": "say something",
    "chat_too_long": "at most 500 characters",
    "bad_settings": "these settings are not possible",
    "knock_closed": "the knock window has closed",
    "nothing_to_do": "there is nothing to do now",
    "server_busy": "the server could not store the move; try again",
    "shutting_down": "the server is restarting",
}
"""Every error code of the protocol layer with a default message (engine codes
come through unchanged)."""


class ProtocolError(Exception):
    """A bad client message: a stable code and a message for the player."""

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(message or ERROR_CODES.get(code, code))
        self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


def dumps(data: Any) -> str:
    """Compact JSON text of a server message."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def error_message(code: str, message: str, msg_id: Any = None) -> dict[str, Any]:
    data: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if msg_id is not None:
        data["id"] = msg_id
    return data


# ------------------------------------------------------------------ settings


@dataclass(frozen=True, slots=True)
class TableSettings:
    """A table's settings, checked and completed with defaults."""

    preset: str = "classic"
    access: str = "open"
    seats: int = 2
    bots: dict[int, str] = field(default_factory=dict)
    point_limit: int = 100
    hand_rummy: bool = True
    knock: bool = False
    turn_seconds: int = 30

    def to_json(self) -> dict[str, Any]:
        return {
            "preset": self.preset, "access": self.access, "seats": self.seats,
            "bots": {str(k): v for k, v in sorted(self.bots.items())},
            "point_limit": self.point_limit, "hand_rummy": self.hand_rummy,
            "knock": self.knock, "turn_seconds": self.turn_seconds,
        }

    def rules(self) -> Rules:
        """The engine's rules for these settings."""
        if self.preset == "classic":
            return Rules.classic(point_limit=self.point_limit, hand_rummy=self.hand_rummy,
                                 knock=self.knock, turn_seconds=self.turn_seconds)
        return Rules.three_rounds(turn_seconds=self.turn_seconds)


_SETTINGS_KEYS = {"preset", "access", "seats", "bots", "point_limit", "hand_rummy", "knock",
                  "turn_seconds"}


def _bad(reason: str) -> ProtocolError:
    return ProtocolError("bad_settings", reason)


def _int_in(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _bad(f"{key} must be a whole number from {low} to {high}")
    return value


def _bool(data: dict[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise _bad(f"{key} must be true or false")
    return value


def parse_settings(data: Any) -> TableSettings:
    """Check the settings of a new table (``bad_settings`` with the reason)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise _bad("settings must be an object")
    unknown = sorted(set(data) - _SETTINGS_KEYS)
    if unknown:
        raise _bad(f"unknown setting(s): {', '.join(unknown)}")
    preset = data.get("preset", "classic")
    if preset not in ("classic", "three-rounds"):
        raise _bad("preset must be 'classic' or 'three-rounds'")
    access = data.get("access", "open")
    if access not in ("open", "invite"):
        raise _bad("access must be 'open' or 'invite'")
    seats = _int_in(data, "seats", 4 if preset == "three-rounds" else 2, 2, 4)
    raw_bots = data.get("bots", {})
    if not isinstance(raw_bots, dict):
        raise _bad("bots must map seat numbers to levels, e.g. {\"1\": \"casual\"}")
    bots: dict[int, str] = {}
    for key, level in raw_bots.items():
        try:
            seat = int(key)
        except (TypeError, ValueError):
            raise _bad(f"bots: {key!r} is not a seat number") from None
        if not 1 <= seat < seats:
            raise _bad(f"bots: seat {seat} must be from 1 to {seats - 1} (seat 0 is the host)")
        if level not in BOT_LEVELS:
            raise _bad(f"bots: the level must be one of {', '.join(BOT_LEVELS)}")
        bots[seat] = level
    point_limit = _int_in(data, "point_limit", 100, 1, 100_000)
    hand_rummy = _bool(data, "hand_rummy", True)
    knock = _bool(data, "knock", False)
    turn_seconds = _int_in(data, "turn_seconds", 30, 15, 120)
    if preset == "three-rounds":
        if "point_limit" in data:
            raise _bad("three-rounds plays three rounds: it has no point limit")
        if data.get("hand_rummy") is False:
            raise _bad("three-rounds always plays with hand rummy")
        if knock:
            raise _bad("the knock is played in the classic preset only")
        hand_rummy = True
    if knock and seats < 3:
        raise _bad("the knock needs 3 or 4 seats")
    return TableSettings(preset, access, seats, bots, point_limit, hand_rummy, knock,
                         turn_seconds)


def settings_from_json(data: Any) -> TableSettings:
    """Settings the server stored itself when it accepted the table (to restore it).

    They are read as stored, not checked again with :func:`parse_settings`: the
    checks for new tables may refuse what the server wrote (a three-rounds table
    stores the point limit it does not use) or grow stricter in a later version,
    and a game once accepted must come back after every restart."""
    if not isinstance(data, dict):
        raise ValueError("stored table settings must be an object")
    default = TableSettings()
    bots = data.get("bots") or {}
    return TableSettings(
        preset=str(data.get("preset", default.preset)),
        access=str(data.get("access", default.access)),
        seats=int(data.get("seats", default.seats)),
        bots={int(seat): str(level) for seat, level in bots.items()},
        point_limit=int(data.get("point_limit", default.point_limit)),
        hand_rummy=bool(data.get("hand_rummy", default.hand_rummy)),
        knock=bool(data.get("knock", default.knock)),
        turn_seconds=int(data.get("turn_seconds", default.turn_seconds)),
    )


# ------------------------------------------------------------------ messages


@dataclass(frozen=True, slots=True)
class LobbyChat:
    text: str


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
class Ping:
    pass


ClientMessage = (
    LobbyChat | CreateTable | JoinTable | WatchTable | LeaveTable | SetSeat | StartGame
    | Invite | AnswerInvitation | PlayerInfoMsg | ActionMsg | NextRoundMsg | TableChat | Hint
    | Resync | Back | Ping
)


def _field_int(data: dict[str, Any], key: str, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**53:
        raise ProtocolError("bad_message", f"{key!r} must be a non-negative integer")
    return value


def _field_str(data: dict[str, Any], key: str, limit: int = 100) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ProtocolError("bad_message", f"{key!r} must be a string")
    if len(value) > limit:
        raise ProtocolError("bad_message", f"{key!r} is longer than {limit} characters")
    return value


def _chat_text(data: dict[str, Any]) -> str:
    value = data.get("text")
    if not isinstance(value, str):
        raise ProtocolError("bad_message", "'text' must be a string")
    return clean_chat(value)


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


def _level(value: Any, key: str) -> str | None:
    if value is None:
        return None
    if value not in BOT_LEVELS:
        raise ProtocolError("bad_message", f"{key!r} must be one of {', '.join(BOT_LEVELS)}")
    return str(value)


def message_id(data: Any) -> Any:
    """The client's ``id`` if it is an acceptable one (string or integer, short)."""
    if not isinstance(data, dict):
        return None
    value = data.get("id")
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) < 2**53:
        return value
    if isinstance(value, str) and len(value) <= 64:
        return value
    return None


def parse_message(text: str, max_bytes: int) -> tuple[ClientMessage, Any]:
    """A client message and its ``id``; raise :class:`ProtocolError`."""
    if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise ProtocolError("too_large", f"a message may hold at most {max_bytes} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message is a JSON object")
    msg_id = message_id(data)
    kind = data.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise _with_id(ProtocolError("unknown_type", f"unknown message type {kind!r}"), msg_id)
    try:
        return parser(data), msg_id
    except ProtocolError as exc:
        raise _with_id(exc, msg_id) from None


def _with_id(exc: ProtocolError, msg_id: Any) -> ProtocolError:
    exc.msg_id = msg_id  # type: ignore[attr-defined]
    return exc


def _parse_action(data: dict[str, Any]) -> ActionMsg:
    action = data.get("action")
    if not isinstance(action, dict):
        raise ProtocolError("bad_message", "'action' must be an object")
    return ActionMsg(_field_int(data, "table"), action)


def _parse_set_seat(data: dict[str, Any]) -> SetSeat:
    return SetSeat(_field_int(data, "table"), _field_int(data, "seat"),
                   _level(data.get("bot"), "bot"))


def _parse_answer(data: dict[str, Any]) -> AnswerInvitation:
    accept = data.get("accept")
    if not isinstance(accept, bool):
        raise ProtocolError("bad_message", "'accept' must be true or false")
    return AnswerInvitation(_field_int(data, "invitation"), accept)


_PARSERS: dict[str, Any] = {
    "lobby_chat": lambda d: LobbyChat(_chat_text(d)),
    "create_table": lambda d: CreateTable(parse_settings(d.get("settings"))),
    "join_table": lambda d: JoinTable(_field_int(d, "table")),
    "watch_table": lambda d: WatchTable(_field_int(d, "table")),
    "leave_table": lambda d: LeaveTable(_field_int(d, "table")),
    "set_seat": _parse_set_seat,
    "start_game": lambda d: StartGame(_field_int(d, "table"), _level(d.get("fill"), "fill")),
    "invite": lambda d: Invite(_field_int(d, "table"), _field_str(d, "nickname")),
    "answer_invitation": _parse_answer,
    "player_info": lambda d: PlayerInfoMsg(_field_str(d, "nickname")),
    "action": _parse_action,
    "next_round": lambda d: NextRoundMsg(_field_int(d, "table")),
    "table_chat": lambda d: TableChat(_field_int(d, "table"), _chat_text(d)),
    "hint": lambda d: Hint(_field_int(d, "table")),
    "resync": lambda d: Resync(_field_int(d, "table"), _field_int(d, "since", optional=True)),
    "back": lambda d: Back(_field_int(d, "table")),
    "ping": lambda d: Ping(),
}

MESSAGE_TYPES = tuple(sorted(_PARSERS))


def table_action(data: dict[str, Any], seat: int) -> Action:
    """The engine action a client sent, for its seat (``bad_message`` if malformed).
    ``next_round`` is the table's, not a seat's: it is its own message."""
    if "seat" in data and data["seat"] != seat:
        raise ProtocolError("bad_message", "'seat' is filled in by the server; leave it out")
    if data.get("type") == "next_round":
        raise ProtocolError("bad_message", "send {\"type\": \"next_round\"} as a message")
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
