"""Computer opponents: four strengths that play like people, and every strength
between them.

>>> from romme.bots import LEVELS, is_level, make_bot
>>> LEVELS
('beginner', 'casual', 'strong', 'expert')
>>> bot = make_bot("strong", seed=7)
>>> bot.level
'strong'
>>> make_bot("casual+40", seed=7).level  # 40% of its turns like strong
'casual+40'
>>> is_level("expert+10"), is_level("casual+0"), is_level("strong+99")
(False, False, True)

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
from romme.bots.between import BetweenBot, split_level
from romme.bots.casual import CasualBot
from romme.bots.expert import ExpertBot
from romme.bots.hint import suggest
from romme.bots.strong import StrongBot

__all__ = ["LEVELS", "LEVELS_HELP", "Bot", "Suggestion", "is_level", "make_bot", "suggest"]

LEVELS: tuple[str, ...] = ("beginner", "casual", "strong", "expert")
"""The named strengths, weakest first."""

LEVELS_HELP = f"{', '.join(LEVELS)}, or one of the first three followed by +1 to +99"
"""The levels :func:`make_bot` takes, in words (for error messages)."""

_CLASSES: dict[str, type[BeginnerBot | CasualBot | StrongBot | ExpertBot]] = {
    "beginner": BeginnerBot,
    "casual": CasualBot,
    "strong": StrongBot,
    "expert": ExpertBot,
}


def is_level(level: object) -> bool:
    """Whether :func:`make_bot` takes ``level``: a named level, or one between
    two named ones (``casual+40``, see :mod:`romme.bots.between`)."""
    return isinstance(level, str) and (level in _CLASSES or split_level(level, LEVELS) is not None)


def make_bot(level: str, seed: int = 0, **options: Any) -> Bot:
    """A computer opponent of this strength; its moves depend only on the views
    it is shown and on ``seed``. ``options`` tune a level (the expert takes
    ``search_close``, ``playouts``, ``time_cap`` and ``horizon``; a level between two named ones
    passes them to the one above)."""
    cls = _CLASSES.get(level)
    if cls is not None:
        return cls(seed, **options)
    between = split_level(level, LEVELS)
    if between is None:
        raise ValueError(f"unknown level {level!r}; choose {LEVELS_HELP}")
    lower, upper, percent = between
    return BetweenBot(level, seed, lower, upper, percent, make_bot, **options)
