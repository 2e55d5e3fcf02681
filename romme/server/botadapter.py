"""The one place the server asks the computer opponents (``romme.bots``) for a
move or a hint; it runs in the bot pool's worker processes
(:mod:`romme.server.botpool`)."""

from __future__ import annotations

from romme.bots import Bot, make_bot
from romme.bots import suggest as bot_suggest
from romme.engine.actions import Action
from romme.engine.view import SeatView

__all__ = ["decide", "suggest"]

_bots: dict[tuple[str, int], Bot] = {}
"""The bots made so far, by level and seed (a bot keeps no state between moves,
so one serves every move of its seat)."""


def decide(level: str, seed: int, view: SeatView) -> Action | None:
    """The move of a computer opponent of ``level`` for this view."""
    bot = _bots.get((level, seed))
    if bot is None:
        if len(_bots) > 4096:
            _bots.clear()
        bot = _bots[(level, seed)] = make_bot(level, seed)
    action: Action | None = bot.decide(view)
    return action


def suggest(view: SeatView) -> tuple[Action | None, str]:
    """A hint for this view: a move and a one-line reason."""
    hint = bot_suggest(view)
    if hint is None:
        return None, "nothing to do now"
    return hint.action, str(hint.reason)
