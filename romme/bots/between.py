"""Strengths between the named levels: ``casual+40`` plays 40% of its turns like
the strong level and the rest like the casual one.

The four named levels are far apart (each wins about two games in three against
the one below), too far for a player who stands between two of them to meet an
even game. A level between two named ones, written ``<level>+<percent>``
(``beginner+1`` to ``strong+99``), mixes the two: each turn is played by the
level above with ``percent`` per cent chance, else by the named level, and the
whole turn (draw, lay-downs, lay-offs, discard) by the same one, so that a turn's
moves make one plan. Which of the two plays a turn is drawn from the bot's seed
and public facts of the view (the round's commitment, the seat, how many turns
the seat has played this round), so a decision stays a pure function of the view
and the seed, like every level's.

How strong a mixture plays is close to the straight line between its two levels
on the rating scale (``romme.bots.rating``); ``bench/bench_bots.py`` measures it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from romme.bots.base import Bot, Suggestion
from romme.engine.actions import Action
from romme.engine.view import SeatView

__all__ = ["BetweenBot", "between_level", "split_level"]

_BETWEEN = re.compile(r"([a-z]+)\+([1-9][0-9]?)\Z")


def split_level(level: str, named: tuple[str, ...]) -> tuple[str, str, int] | None:
    """``(lower, upper, percent)`` of a level between two named ones
    (``"casual+40"`` gives ``("casual", "strong", 40)``), or ``None`` if ``level``
    is not one: the named level must have one above it (``named`` lists them,
    weakest first) and the percent must be 1 to 99."""
    match = _BETWEEN.match(level) if isinstance(level, str) else None
    if match is None:
        return None
    lower, percent = match.group(1), int(match.group(2))
    if lower not in named[:-1]:
        return None
    return (lower, named[named.index(lower) + 1], percent)


def between_level(lower: str, percent: int) -> str:
    """The name of the level ``percent`` of the way from ``lower`` to the next:
    the named level itself at 0."""
    return lower if percent <= 0 else f"{lower}+{percent}"


class BetweenBot:
    """Plays each turn as ``upper`` with ``percent`` per cent chance, else as
    ``lower`` (see the module docstring). ``options`` tune the level above (only
    the expert takes any, and it is never the level below)."""

    def __init__(
        self,
        level: str,
        seed: int,
        lower: str,
        upper: str,
        percent: int,
        make: Callable[..., Bot],
        **options: Any,
    ) -> None:
        self.level = level
        self.seed = seed
        self.percent = percent
        self.lower = make(lower, seed)
        self.upper = make(upper, seed, **options)

    def plays_upper(self, view: SeatView) -> bool:
        """Whether the level above plays this seat's current turn."""
        seat = view.seat
        turn = sum(1 for e in view.history if e.seat == seat and e.move == "discard")
        key = f"between|{self.level}|{self.seed}|{seat}|{view.round_no}|{view.commitment}|{turn}"
        draw = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % 100
        return draw < self.percent

    def _bot(self, view: SeatView) -> Bot:
        return self.upper if self.plays_upper(view) else self.lower

    def decide(self, view: SeatView) -> Action | None:
        return self._bot(view).decide(view)

    def suggest(self, view: SeatView) -> Suggestion | None:
        return self._bot(view).suggest(view)
