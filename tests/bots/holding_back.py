"""A player that holds back from going out: the soft play the moderators' signals
look for (romme.bots.soft_play), for the tests of the check and of the server."""

from __future__ import annotations

from romme.engine.actions import Action, Discard
from romme.engine.legal import discardable_cards
from romme.engine.reference import cheapest_discard, reference_action
from romme.engine.scoring import card_penalty
from romme.engine.solver import solve, solve_opening
from romme.engine.view import SeatView

__all__ = ["HOLDS", "HoldingBack"]

HOLDS = 2


class HoldingBack:
    """Never lays: keeps its melds in hand and throws its costliest loose card;
    counts the turns on which it could have opened and gone out at once, and
    plays like the reference player after ``HOLDS`` of them."""

    def __init__(self) -> None:
        self.draws_held: list[int] = []
        self.held = 0

    def __call__(self, view: SeatView) -> Action | None:
        seat = view.seat
        if self.held >= HOLDS or view.phase != "play" or seat != view.current or seat is None:
            return reference_action(view)
        opener = solve_opening(view.hand, view.rules)
        if opener is not None and len(opener.left) <= 1:
            self.held += 1
        options = discardable_cards(view)
        loose = [c for c in solve(view.hand, view.rules).left if c in options and not c.is_joker]
        if loose:
            return Discard(seat, max(loose, key=lambda c: (card_penalty(c, view.rules), c.code)))
        return Discard(seat, cheapest_discard(view))

    def waiting(self, view: SeatView) -> Action | None:
        """The other seat's policy: throws a card each turn until this player has
        held back ``HOLDS`` times (so that the round lasts), then plays."""
        if self.held < HOLDS and view.phase == "play" and view.seat == view.current:
            assert view.seat is not None
            return Discard(view.seat, cheapest_discard(view))
        return reference_action(view)
