"""Determinisation: deal the cards a seat cannot see in one way that agrees with
everything it knows, and build a :class:`~romme.engine.game.Game` from it
with :meth:`~romme.engine.game.Game.determinise`.

The sample respects the known facts: the own hand, the table, the discard pile as
far as it is known, the hand counts and the stock count, and the cards another
seat is known to hold (taken from the discard pile or by a joker exchange and not
played since). The remaining unseen cards are shuffled into the other hands, the
stock and the unknown cards of the discard pile. Nothing else is read: the
sampled game is built from the view alone, so searching it cannot leak a hidden
card.
"""

from __future__ import annotations

import random

from romme.bots.knowledge import Knowledge
from romme.engine.cards import Card
from romme.engine.game import Game, HiddenCards
from romme.engine.view import SeatView

__all__ = ["sample_game"]


def sample_game(view: SeatView, know: Knowledge, rng: random.Random) -> Game | None:
    """One game consistent with ``view``, or ``None`` if the view's history could
    not be followed well enough to sample from it."""
    seat = view.seat
    if seat is None or not know.consistent or view.phase not in ("draw", "play"):
        return None
    pool = list(know.unseen.elements())
    rng.shuffle(pool)
    hands: list[list[Card]] = []
    for s in range(view.seats):
        if s == seat:
            hands.append(list(view.hand))
            continue
        known = list(know.known[s].elements())
        need = view.hand_counts[s] - len(known)
        if need < 0 or need > len(pool):
            return None
        hands.append(known + [pool.pop() for _ in range(need)])
    pile: list[Card] = []
    for card in know.pile:
        if card is None:
            if not pool:
                return None
            pile.append(pool.pop())
        else:
            pile.append(card)
    if len(pool) != view.stock_count:
        return None
    seed = rng.randbytes(32)
    hidden = HiddenCards(hands, pool, pile, seed=seed, round_seed=rng.randbytes(32))
    return Game.determinise(view, hidden)
