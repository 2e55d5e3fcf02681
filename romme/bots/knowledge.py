"""What a seat can know about the cards it cannot see, worked out from its view.

Everything here is read from the public history of the round, the table and the
seat's own hand, exactly as an attentive player at the table would remember it:

* the **discard pile**, card by card (the card turned up at the deal is known only
  once it has been on top when a history entry names it; before that it is unknown),
  including the stock rebuilds that shuffle it back;
* for every other seat, the cards it **must still hold**: those it took from the
  discard pile (or knocked on) and jokers it took by exchange, less what it has
  laid, laid off or discarded since;
* what each seat **took** from the discard pile and **threw** on it this round;
* the **unseen** cards: the shoe less the own hand, the table, the known part of
  the discard pile and the cards known to be in other hands. They lie in the
  other hands, the stock or the unknown bottom of the pile, in some order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from romme.engine.cards import JOKER, Card, shoe_counter
from romme.engine.view import SeatView

__all__ = ["Knowledge", "read_knowledge"]

_SHOE = shoe_counter()


@dataclass(slots=True)
class Knowledge:
    seat: int
    pile: list[Card | None]
    """The discard pile bottom to top; ``None`` where the card is not known."""
    known: list[Counter[Card]]
    """Per seat: cards it is known to hold (empty for this seat: it sees its hand)."""
    taken: list[list[Card]] = field(default_factory=list)
    """Per seat: cards taken from the discard pile this round (knocks included)."""
    thrown: list[list[Card]] = field(default_factory=list)
    """Per seat: cards discarded this round."""
    unseen: Counter[Card] = field(default_factory=Counter)
    """Cards whose place this seat does not know, with their counts."""
    hidden_pile: int = 0
    """How many cards of the discard pile are not known."""
    consistent: bool = True
    """False if the history could not be followed (then the pile is taken as unknown)."""

    @property
    def unseen_total(self) -> int:
        return sum(self.unseen.values())

    def live(self, card: Card) -> int:
        """How many copies of ``card`` could still be drawn or taken by someone."""
        return self.unseen[card]


def read_knowledge(view: SeatView) -> Knowledge:
    """Follow the round's history and count the cards (see the module docstring)."""
    seat = view.seat if view.seat is not None else -1
    seats = view.seats
    known: list[Counter[Card]] = [Counter() for _ in range(seats)]
    taken: list[list[Card]] = [[] for _ in range(seats)]
    thrown: list[list[Card]] = [[] for _ in range(seats)]
    rules = view.rules
    in_round = sum(1 for a in view.active if a)
    stock = 110 - rules.hand_size * in_round - 1
    pile: list[Card | None] = [None]
    restocks = 0
    consistent = True

    def forget(s: int, card: Card) -> None:
        if known[s][card] > 0:
            known[s][card] -= 1
            if not known[s][card]:
                del known[s][card]

    for entry in view.history:
        s, move, cards = entry.seat, entry.move, entry.cards
        if move == "draw_stock":
            stock -= 1
        elif move in ("draw_discard", "knock"):
            if not pile:
                consistent = False
                break
            pile.pop()
            card = cards[0] if cards else None
            if card is not None:
                taken[s].append(card)
                if s != seat:
                    known[s][card] += 1
            if move == "knock":
                stock -= 2
        elif move == "discard":
            card = cards[0]
            thrown[s].append(card)
            forget(s, card)
            pile.append(card)
            if stock <= 0 and restocks < rules.max_restocks and len(pile) > 1:
                restocks += 1
                stock = len(pile) - 1
                pile = [pile[-1]]
        elif move in ("lay", "lay_off"):
            for card in cards:
                forget(s, card)
        elif move == "exchange_joker":
            for card in cards:
                forget(s, card)
            if s != seat:
                known[s][JOKER] += 1
    if view.discard_top is not None and pile and pile[-1] is None:
        pile[-1] = view.discard_top
    if (
        not consistent
        or len(pile) != view.discard_count
        or stock != view.stock_count
        or (pile and pile[-1] != view.discard_top)
    ):
        consistent = False
        pile = [None] * view.discard_count
        if view.discard_top is not None and pile:
            pile[-1] = view.discard_top

    visible: Counter[Card] = Counter(view.hand)
    for meld in view.melds:
        visible.update(meld.cards)
    visible.update(c for c in pile if c is not None)
    # Known cards of another hand can never outnumber that hand.
    for s in range(seats):
        if s == seat:
            known[s] = Counter()
            continue
        while sum(known[s].values()) > view.hand_counts[s]:
            consistent = False
            known[s].subtract([next(iter(known[s]))])
            known[s] = +known[s]
        visible.update(known[s])
    unseen = _SHOE - visible
    # Keep the counts consistent if the history was not followed exactly.
    slots = (
        sum(view.hand_counts[s] - sum(known[s].values()) for s in range(seats) if s != seat)
        + view.stock_count
        + sum(1 for c in pile if c is None)
    )
    if sum(unseen.values()) != slots:
        consistent = False
    return Knowledge(
        seat=seat,
        pile=pile,
        known=known,
        taken=taken,
        thrown=thrown,
        unseen=unseen,
        hidden_pile=sum(1 for c in pile if c is None),
        consistent=consistent,
    )
