"""The casual level: a solid, unhurried player who trusts the solver.

It takes the top of the discard pile when the card goes straight into a meld,
opens as soon as it can, lays everything it can lay, lays off what fits (a
loose joker when that lets it go out), and throws its costliest loose card. It
does not count cards, does not watch what the others collect, and knocks only
on a card that completes a meld.
"""

from __future__ import annotations

import random

from romme.bots.base import BaseBot, Decision, discardable
from romme.bots.evaluate import arrangement, opening, without
from romme.bots.playbook import lay_melds, lay_off_options
from romme.engine.actions import Discard, Draw, Knock
from romme.engine.cards import Card
from romme.engine.scoring import card_penalty
from romme.engine.view import SeatView

__all__ = ["CasualBot"]


def completes_meld(hand: tuple[Card, ...] | list[Card], card: Card, view: SeatView) -> bool:
    """Whether ``card`` would stand in a meld of the best arrangement of the hand."""
    rules = view.rules
    with_card = [*hand, card]
    arr = arrangement(with_card, rules)
    return arr.left.count(card) < with_card.count(card)


class CasualBot(BaseBot):
    level = "casual"

    def knock(self, view: SeatView, rng: random.Random) -> Decision | None:
        top = view.discard_top
        seat = view.seat
        if top is None or seat is None:
            return None
        if completes_meld(view.hand, top, view):
            return Decision(Knock(seat), f"knock: {top} completes a meld")
        return None

    def draw(self, view: SeatView, rng: random.Random) -> Decision:
        seat = view.seat
        assert seat is not None
        top = view.discard_top
        if (
            top is not None
            and self.notices(rng, "discard_pile")
            and completes_meld(view.hand, top, view)
        ):
            return Decision(Draw(seat, "discard"), f"take {top}: it completes a meld")
        return Decision(Draw(seat, "stock"), "draw from the stock")

    def play(self, view: SeatView, rng: random.Random) -> Decision:
        seat = view.seat
        assert seat is not None
        rules = view.rules
        hand = view.hand
        if view.opened[seat]:
            arr = arrangement(hand, rules)
            lay = lay_melds(view, arr.melds)
            if lay is not None:
                return Decision(lay, "lay what melds")
        else:
            opener = opening(hand, rules)
            if opener is not None and self.opens_now(view, opener.points, rng):
                lay = lay_melds(view, opener.melds)
                if lay is not None:
                    return Decision(lay, f"open with {opener.points} points")
        arr = arrangement(hand, rules)
        offs = lay_off_options(view, arr.left)
        if offs and self.notices(rng, "joker_lay_off" if offs[0].card.is_joker else "lay_off"):
            why = " to go out" if offs[0].card.is_joker else ""
            return Decision(offs[0], f"lay off {offs[0].card}{why}")
        return self.discard(view, rng)

    def notices(self, rng: random.Random, what: str) -> bool:
        """Whether it sees a chance (``discard_pile``: the top card completes a
        meld; ``lay_off``; ``joker_lay_off``: laying off a joker lets it go
        out): always; the beginner overlooks some."""
        return True

    def opens_now(self, view: SeatView, points: int, rng: random.Random) -> bool:
        """Whether it opens with an opening worth ``points`` now: always."""
        return True

    def discard(self, view: SeatView, rng: random.Random) -> Decision:
        seat = view.seat
        assert seat is not None
        rules = view.rules
        options = discardable(view)
        arr = arrangement(view.hand, rules)
        loose = [c for c in arr.left if c in options and not c.is_joker]
        if loose:
            card = max(loose, key=lambda c: (card_penalty(c, rules), c.code))
            return Decision(Discard(seat, card), f"throw {card}, the costliest loose card")
        naturals = [c for c in options if not c.is_joker] or options
        card = min(
            naturals,
            key=lambda c: (
                arrangement(without(view.hand, c), rules).penalty,
                -card_penalty(c, rules),
                c.code,
            ),
        )
        return Decision(Discard(seat, card), f"throw {card}: it costs least to give up")
