"""Determinisation: deal the cards a seat cannot see in one way that agrees with
everything it knows, and build a :class:`~romme.engine.game.Game` from it.

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
from romme.engine.game import Game, KnockWindow, Phase, TurnInfo
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
    game = Game.__new__(Game)
    game.rules = view.rules
    game.seats = view.seats
    game.seed = rng.randbytes(32)
    game.first_dealer = view.dealer
    game.version = view.version
    game.phase = Phase(view.phase)
    game.round_no = view.round_no
    game.dealer = view.dealer
    game.current = view.current
    game.hands = hands
    game.stock = pool
    game.discard = pile
    game.melds = list(view.melds)
    game.meld_owners = list(view.meld_owners)
    game.opened = list(view.opened)
    game.totals = list(view.totals)
    game.active = list(view.active)
    game.turn = TurnInfo(view.drew_from_discard, view.opened_before, view.pending_jokers)
    game.knock = None
    if view.knock_seats and view.history and view.phase == "draw":
        game.knock = KnockWindow(view.history[-1].seat, view.current, view.knock_seats)
    game.restocks = view.restocks
    game.stall = view.stall
    game.round_seed = rng.randbytes(32)
    game.commitment = view.commitment
    game.history = list(view.history)
    game.results = list(view.results)
    game.winners = tuple(view.winners)
    return game
