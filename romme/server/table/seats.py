"""Who sits where at a table, and the table's statuses.

A seat is taken by a player or by a computer opponent; a player's seat may be
played by a computer opponent for a while (the player left, or timed out too
often: ``away``). Only who sits where is stored; ``away`` and the timeouts come
back from the action log after a restart.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from romme.store.records import CLOSED, FINISHED, PLAYING, WAITING, TableStatus

__all__ = [
    "CLOSED",
    "FINISHED",
    "PLAYING",
    "WAITING",
    "SeatState",
    "TableStatus",
    "bot_seed",
]


@dataclass(slots=True)
class SeatState:
    """Who sits at a seat, and how it is played right now."""

    player_id: int | None = None
    nickname: str | None = None
    bot: str | None = None
    """A computer opponent's seat: its level."""
    left: bool = False
    """The player left during the game: a computer opponent plays on."""
    left_turns: int | None = None
    """The turns the player had played at the table when leaving (whether the
    game is void: ``romme.store.outcome``)."""
    away: bool = False
    """The player timed out too often: a computer opponent plays until they are back."""
    timeouts: int = 0
    level: int | None = None
    """The player's level as its connection knew it when it sat down (shown
    beside the nickname)."""

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.player_id is not None

    @property
    def human(self) -> bool:
        return self.bot is None and self.player_id is not None

    @property
    def bot_controlled(self) -> bool:
        """Whether a computer opponent plays the seat now."""
        return self.bot is not None or self.left or self.away

    def to_store(self) -> dict[str, Any]:
        return {
            "player": self.player_id,
            "nickname": self.nickname,
            "bot": self.bot,
            "left": self.left,
            "left_turns": self.left_turns,
            "level": self.level,
        }

    @classmethod
    def from_store(cls, data: Any) -> SeatState:
        if not isinstance(data, dict):
            return cls()
        return cls(
            player_id=data.get("player"),
            nickname=data.get("nickname"),
            bot=data.get("bot"),
            left=bool(data.get("left", False)),
            left_turns=_count_or_none(data.get("left_turns")),
            level=data.get("level") if isinstance(data.get("level"), int) else None,
        )


def _count_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def bot_seed(match_seed: bytes, seat: int) -> int:
    """The seed of the computer opponent at ``seat`` (derived from the match seed)."""
    digest = hashlib.sha256(match_seed + f"romme-bot:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
