"""The hint for human players: the move the strong level would make, and why.

>>> from romme.engine.game import Game
>>> from romme.engine.rules import Rules
>>> game = Game.start(Rules.classic(), seats=2, seed=bytes(32))
>>> hint = suggest(game.view_for(0))
>>> hint.action.type, bool(hint.reason)
('draw', True)
>>> suggest(game.view_for(1)) is None   # not seat 1's turn: nothing to suggest
True
"""

from __future__ import annotations

from romme.bots.base import Suggestion
from romme.bots.strong import StrongBot
from romme.engine.view import SeatView

__all__ = ["suggest"]

_ADVISER = StrongBot(seed=0)


def suggest(view: SeatView) -> Suggestion | None:
    """The strong level's next move for this seat with a one-line reason, or
    ``None`` when the seat has nothing to do (not its turn and no knock worth it)."""
    return _ADVISER.suggest(view)
