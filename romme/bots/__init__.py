"""Computer opponents: four strengths that play like people.

>>> from romme.bots import LEVELS, make_bot
>>> LEVELS
('beginner', 'casual', 'strong', 'expert')
>>> bot = make_bot("strong", seed=7)
>>> bot.level
'strong'

A bot is handed a :class:`~romme.engine.view.SeatView` (never a game) and answers
one engine action, or ``None`` when it has nothing to do. Bots are synchronous,
keep no state between decisions (everything comes from the view and the bot's
seed), and import nothing but the engine, so a server can run them in a worker
process. See ``docs/bots.md``.
"""

from __future__ import annotations

from typing import Any

from romme.bots.base import Bot, Suggestion
from romme.bots.beginner import BeginnerBot
from romme.bots.casual import CasualBot
from romme.bots.expert import ExpertBot
from romme.bots.hint import suggest
from romme.bots.strong import StrongBot

__all__ = ["LEVELS", "Bot", "Suggestion", "make_bot", "suggest"]

LEVELS: tuple[str, ...] = ("beginner", "casual", "strong", "expert")
"""The strengths, weakest first."""

_CLASSES: dict[str, type[BeginnerBot | CasualBot | StrongBot | ExpertBot]] = {
    "beginner": BeginnerBot,
    "casual": CasualBot,
    "strong": StrongBot,
    "expert": ExpertBot,
}


def make_bot(level: str, seed: int = 0, **options: Any) -> Bot:
    """A computer opponent of this strength; its moves depend only on the views
    it is shown and on ``seed``. ``options`` tune a level (the expert takes
    ``playouts`` and ``time_cap``)."""
    try:
        cls = _CLASSES[level]
    except KeyError:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}") from None
    return cls(seed, **options)
