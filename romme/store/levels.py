"""Experience points and levels.

A finished game gives every seat experience (XP) by this table (docs/protocol.md,
"Statistics, experience and levels", repeats it):

=========================================  =====
each round played to its end                  10
each round the player went out               +20
... by hand rummy                            +20
the game, played to its end                   20
the game won (a tie for first counts)        +50
=========================================  =====

A level is reached at a number of XP and never lost; the names are keys that
clients translate (``level.<name>`` in the web client's catalogues).

>>> level_of(0)["number"], level_of(299)["name"], level_of(300)["name"]
(1, 'beginner', 'apprentice')
>>> level_of(10**9)["next_at"] is None
True
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "GAME_PLAYED_XP",
    "GAME_WON_XP",
    "HAND_RUMMY_XP",
    "LEVELS",
    "ROUND_PLAYED_XP",
    "ROUND_WON_XP",
    "level_of",
]

ROUND_PLAYED_XP = 10
ROUND_WON_XP = 20
HAND_RUMMY_XP = 20
GAME_PLAYED_XP = 20
GAME_WON_XP = 50

LEVELS: tuple[tuple[int, str], ...] = (
    (0, "newcomer"),
    (100, "beginner"),
    (300, "apprentice"),
    (700, "regular"),
    (1_500, "skilled"),
    (3_000, "experienced"),
    (6_000, "expert"),
    (10_000, "master"),
    (16_000, "grandmaster"),
    (25_000, "legend"),
)
"""``(XP needed, name)`` of levels 1, 2, ... in order."""


def level_of(xp: int) -> dict[str, Any]:
    """``Level`` of the protocol: ``{"number", "name", "xp_from", "next_at"}``
    (``next_at``: the XP of the next level, ``None`` at the last)."""
    number = max(i for i, (needed, _) in enumerate(LEVELS) if xp >= needed)
    following = LEVELS[number + 1][0] if number + 1 < len(LEVELS) else None
    return {
        "number": number + 1,
        "name": LEVELS[number][1],
        "xp_from": LEVELS[number][0],
        "next_at": following,
    }
