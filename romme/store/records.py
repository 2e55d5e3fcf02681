"""The values the store hands out: plain frozen dataclasses, detached from the
database, safe to keep and pass around."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

from romme.store.levels import level_of
from romme.store.ratings import shown

TableStatus = Literal["waiting", "playing", "finished", "closed"]
"""A table's statuses, in the order a table goes through them (a waiting table may
also close without a game; ``closed``: a table given up before its game ended, e.g.
the host left)."""
WAITING: Final = "waiting"
PLAYING: Final = "playing"
FINISHED: Final = "finished"
CLOSED: Final = "closed"

__all__ = ["PlayerRecord", "TableRecord"]


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player as the store knows it.

    >>> anna = PlayerRecord(id=7, nickname="Anna", guest=False, is_bot=False, rating=25.04,
    ...                     mu=40.0, sigma=4.99, games_played=12, games_won=7)
    >>> anna.to_json()
    {'id': 7, 'nickname': 'Anna', 'guest': False, 'rating': 2001, 'level': 1}
    """

    id: int
    nickname: str
    guest: bool
    is_bot: bool
    rating: float
    """The openskill ordinal ``mu - 3 sigma`` (0 for a new player and for guests);
    players see it as :func:`romme.store.ratings.shown` (1500 for 0)."""
    mu: float
    sigma: float
    games_played: int
    games_won: int
    xp: int = 0
    """Experience points; the protocol shows the level they reach."""
    released: bool = False
    """A guest who logged out or whose session expired: its nickname is free and
    it is no longer a session."""

    def to_json(self) -> dict[str, Any]:
        """``Player`` of the wire protocol."""
        return {
            "id": self.id,
            "nickname": self.nickname,
            "guest": self.guest,
            "rating": shown(self.rating),
            "level": self.level,
        }

    @property
    def level(self) -> int:
        """The level number ``xp`` reaches."""
        return int(level_of(self.xp)["number"])


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table with its game's action log, as needed to rebuild it after a restart."""

    id: int
    host_id: int
    settings: dict[str, Any]
    rules: dict[str, Any]
    seats: list[Any]
    match_seed: bytes
    status: TableStatus
    created_at: datetime
    actions: list[dict[str, Any]] = field(default_factory=list)
    """The actions in version order."""
    last_action_at: datetime | None = None
    first_version: int | None = None
    """The version of ``actions[0]`` (``None`` without actions); the last action's
    version is ``first_version + len(actions) - 1``."""
