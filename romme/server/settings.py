"""A table's settings: checked when a table is created, read back as stored when
it is rebuilt after a restart."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from romme.bots import LEVELS_HELP, is_level
from romme.engine.rules import Rules
from romme.server.errors import ProtocolError
from romme.store.chip_policy import STAKE_MAX

__all__ = ["TableSettings", "parse_settings", "settings_from_json"]


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
    stake: int = 0
    """Chips every seat pays into the pot when the game starts (0: a free game)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "access": self.access,
            "seats": self.seats,
            "bots": {str(k): v for k, v in sorted(self.bots.items())},
            "point_limit": self.point_limit,
            "hand_rummy": self.hand_rummy,
            "knock": self.knock,
            "turn_seconds": self.turn_seconds,
            "stake": self.stake,
        }

    def rules(self) -> Rules:
        """The engine's rules for these settings."""
        if self.preset == "classic":
            return Rules.classic(
                point_limit=self.point_limit,
                hand_rummy=self.hand_rummy,
                knock=self.knock,
                turn_seconds=self.turn_seconds,
            )
        return Rules.three_rounds(turn_seconds=self.turn_seconds)


_SETTINGS_KEYS = {
    "preset",
    "access",
    "seats",
    "bots",
    "point_limit",
    "hand_rummy",
    "knock",
    "turn_seconds",
    "stake",
}


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
        raise _bad('bots must map seat numbers to levels, e.g. {"1": "casual"}')
    bots: dict[int, str] = {}
    for key, level in raw_bots.items():
        try:
            seat = int(key)
        except (TypeError, ValueError):
            raise _bad(f"bots: {key!r} is not a seat number") from None
        if not 1 <= seat < seats:
            raise _bad(f"bots: seat {seat} must be from 1 to {seats - 1} (seat 0 is the host)")
        if not is_level(level):
            raise _bad(f"bots: the level must be {LEVELS_HELP}")
        bots[seat] = level
    point_limit = _int_in(data, "point_limit", 100, 1, 100_000)
    hand_rummy = _bool(data, "hand_rummy", True)
    knock = _bool(data, "knock", False)
    turn_seconds = _int_in(data, "turn_seconds", 30, 15, 120)
    stake = _int_in(data, "stake", 0, 0, STAKE_MAX)
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
    return TableSettings(
        preset, access, seats, bots, point_limit, hand_rummy, knock, turn_seconds, stake
    )


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
        stake=int(data.get("stake", default.stake)),
    )
