"""The one place the server asks the computer opponents (``romme.bots``).

Until ``romme.bots`` provides ``make_bot`` and ``suggest``, the engine's
reference player stands in for every level: switching is this module only.
"""

from __future__ import annotations

from typing import Any

from romme.engine.actions import Action
from romme.engine.reference import reference_action, timeout_action
from romme.engine.view import SeatView

__all__ = ["HAVE_BOTS", "decide", "suggest"]

try:
    from romme.bots import make_bot as _make_bot
    from romme.bots import suggest as _suggest

    HAVE_BOTS = True
except ImportError:  # the computer opponents are not there yet
    HAVE_BOTS = False

_bots: dict[tuple[str, int], Any] = {}


def decide(level: str, seed: int, view: SeatView) -> Action | None:
    """The move of a computer opponent of ``level`` for this view."""
    if not HAVE_BOTS:
        return reference_action(view)
    bot = _bots.get((level, seed))
    if bot is None:
        if len(_bots) > 4096:
            _bots.clear()
        bot = _bots[(level, seed)] = _make_bot(level, seed)
    action: Action | None = bot.decide(view)
    return action


def suggest(view: SeatView) -> tuple[Action | None, str]:
    """A hint for this view: a move and a one-line reason."""
    if HAVE_BOTS:
        hint = _suggest(view)
        if hint is None:
            return None, "nothing to do now"
        return hint.action, str(hint.reason)
    action = reference_action(view) or timeout_action(view)
    return action, "" if action is None else "the reference player's move"
