"""The protocol's records as typed values: players, seats, table summaries,
timers, the lobby and the end of a game (docs/protocol.md names each).

The seat's view itself is the engine's :class:`romme.engine.view.SeatView`; these
are the parts of the wire around it. Each ``from_json`` reads the documented fields
and ignores any others, so a newer server that adds a field does not break an
older client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict

__all__ = [
    "GameOver",
    "KnockWindow",
    "Lobby",
    "NextRound",
    "Player",
    "SeatInfo",
    "Settings",
    "TableSummary",
    "Timer",
]


class Settings(TypedDict, total=False):
    """A table's settings as ``create_table`` takes them (every key optional; the
    server fills in the defaults and refuses anything else with ``bad_settings``)."""

    preset: Literal["classic", "three-rounds"]
    access: Literal["open", "invite"]
    seats: int
    bots: dict[str, str]
    point_limit: int
    hand_rummy: bool
    knock: bool
    turn_seconds: int


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    nickname: str
    guest: bool
    rating: int

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Player:
        return cls(int(data["id"]), str(data["nickname"]), bool(data["guest"]), int(data["rating"]))


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits at a seat: a person (``nickname``) or a computer opponent (``bot``)."""

    seat: int
    nickname: str | None
    bot: str | None
    connected: bool
    away: bool
    left: bool

    @property
    def taken(self) -> bool:
        return self.nickname is not None or self.bot is not None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatInfo:
        return cls(
            seat=int(data["seat"]),
            nickname=data.get("nickname"),
            bot=data.get("bot"),
            connected=bool(data.get("connected", False)),
            away=bool(data.get("away", False)),
            left=bool(data.get("left", False)),
        )

    @classmethod
    def many(cls, data: list[dict[str, Any]]) -> tuple[SeatInfo, ...]:
        return tuple(cls.from_json(seat) for seat in data)


@dataclass(frozen=True, slots=True)
class TableSummary:
    """A table as the lobby and ``GET /api/tables`` list it."""

    id: int
    host: str
    settings: Settings
    status: str
    seats: tuple[SeatInfo, ...]
    free_seats: int

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableSummary:
        return cls(
            id=int(data["id"]),
            host=str(data["host"]),
            settings=data.get("settings", {}),
            status=str(data["status"]),
            seats=SeatInfo.many(data.get("seats", [])),
            free_seats=int(data.get("free_seats", 0)),
        )


@dataclass(frozen=True, slots=True)
class KnockWindow:
    seats: tuple[int, ...]
    deadline: int
    """Server time in milliseconds since the epoch."""


@dataclass(frozen=True, slots=True)
class Timer:
    """The turn clock (server times, milliseconds since the epoch): ``seat`` must
    move before ``deadline``; its own time starts at ``start`` (later than now while
    a knock window is open)."""

    seat: int
    deadline: int
    start: int
    seconds: int
    knock: KnockWindow | None

    def seconds_left(self, now_ms: int) -> float:
        """The seat's own time left at server time ``now_ms`` (see
        :meth:`romme.client.Client.server_now_ms`): the full turn while a knock window is open."""
        return max(0, self.deadline - max(now_ms, self.start)) / 1000

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Timer | None:
        if data is None:
            return None
        knock = data.get("knock")
        window = None
        if knock is not None:
            window = KnockWindow(tuple(knock["seats"]), int(knock["deadline"]))
        deadline = int(data["deadline"])
        start = data.get("start")
        if start is None:  # a server older than the `start` field
            start = window.deadline if window is not None else deadline - 1000 * data["seconds"]
        return cls(int(data["seat"]), deadline, int(start), int(data["seconds"]), window)


@dataclass(frozen=True, slots=True)
class NextRound:
    """Between rounds: the seats the server waits for and when it deals anyway."""

    waiting_for: tuple[int, ...]
    deadline: int

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> NextRound | None:
        if data is None:
            return None
        return cls(tuple(data["waiting_for"]), int(data["deadline"]))


@dataclass(frozen=True, slots=True)
class GameOver:
    """How a game ended: the winning seats, each seat's penalty total, and the
    rating changes of the rated seats (registered players and computer opponents)."""

    table: int
    winners: tuple[int, ...]
    totals: tuple[int, ...]
    ratings: dict[int, tuple[int, int]]
    """Seat to (rating before, rating after)."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameOver:
        return cls(
            int(data["table"]),
            tuple(data["winners"]),
            tuple(data["totals"]),
            cls.ratings_from(data.get("ratings")),
        )

    @staticmethod
    def ratings_from(data: dict[str, Any] | None) -> dict[int, tuple[int, int]]:
        """``Ratings`` (``{"<seat>": {"before", "after"}}``) by seat number."""
        return {int(s): (int(c["before"]), int(c["after"])) for s, c in (data or {}).items()}


@dataclass(frozen=True, slots=True)
class Lobby:
    """The lobby as last sent: the tables, the players online, the counts."""

    tables: tuple[TableSummary, ...]
    players: tuple[Player, ...]
    playing: int
    online: int

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Lobby:
        return cls(
            tables=tuple(TableSummary.from_json(t) for t in data.get("tables", [])),
            players=tuple(Player.from_json(p) for p in data.get("players", [])),
            playing=int(data.get("playing", 0)),
            online=int(data.get("online", 0)),
        )
