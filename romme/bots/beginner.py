"""The beginner level: legal, sensible moves with a newcomer's mistakes.

It plays like the casual level, but it overlooks things: it misses a lay-off or
a card on the discard pile now and then, it holds on to loose cards it likes
(low cards, cards of a suit it collects), throws a card at random sometimes, and
it is shy to open: it waits for a bigger opening or until the round is well on.
It never exchanges jokers and never knocks. A new player can beat it.
"""

from __future__ import annotations

import random

from romme.bots.base import Decision, discardable
from romme.bots.casual import CasualBot
from romme.bots.evaluate import arrangement, without
from romme.engine.actions import Discard
from romme.engine.cards import Card
from romme.engine.scoring import card_penalty
from romme.engine.view import SeatView

__all__ = ["BeginnerBot"]

MISS_DISCARD_PILE = 0.4
"""How often it does not notice that the top card completes a meld."""
MISS_LAY_OFF = 0.5
"""How often it overlooks a lay-off."""
MISS_JOKER_LAY_OFF = 0.5
"""How often it overlooks that laying off its joker lets it go out (it holds on
to the joker as a newcomer does; each turn it may see it anew)."""
RANDOM_DISCARD = 0.3
"""How often it throws a loose card at random."""
SHY_OPENING = 0.6
"""How often it waits with an opening worth less than 40 points."""

MISSES = {
    "discard_pile": MISS_DISCARD_PILE,
    "lay_off": MISS_LAY_OFF,
    "joker_lay_off": MISS_JOKER_LAY_OFF,
}


class BeginnerBot(CasualBot):
    level = "beginner"

    def knock(self, view: SeatView, rng: random.Random) -> Decision | None:
        return None

    def notices(self, rng: random.Random, what: str) -> bool:
        return rng.random() >= MISSES[what]

    def opens_now(self, view: SeatView, points: int, rng: random.Random) -> bool:
        seat = view.seat
        turns = sum(1 for e in view.history if e.seat == seat and e.move == "discard")
        return points >= 40 or turns >= 6 or rng.random() >= SHY_OPENING

    def discard(self, view: SeatView, rng: random.Random) -> Decision:
        seat = view.seat
        assert seat is not None
        rules = view.rules
        options = discardable(view)
        arr = arrangement(view.hand, rules)
        loose = [c for c in arr.left if c in options and not c.is_joker]
        if loose:
            if rng.random() < RANDOM_DISCARD:
                card = rng.choice(sorted(loose))
                return Decision(Discard(seat, card), f"throw {card}")

            # A newcomer keeps the cards that look nice: low ones, and court cards
            # of a suit it already holds two of.
            def liking(c: Card) -> tuple[float, int]:
                same_suit = sum(1 for h in view.hand if h.suit == c.suit)
                return (card_penalty(c, rules) - 3 * min(same_suit, 3) * rng.random(), c.code)

            card = max(loose, key=liking)
            return Decision(Discard(seat, card), f"throw {card}")
        naturals = [c for c in options if not c.is_joker] or options
        card = min(
            naturals, key=lambda c: (arrangement(without(view.hand, c), rules).penalty, c.code)
        )
        return Decision(Discard(seat, card), f"throw {card}")
