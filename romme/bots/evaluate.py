"""How good a hand is, as the bots judge it: the solver's arrangement plus how
likely the loose cards are to find partners among the cards still unseen.

The solver (:func:`romme.engine.solver.solve`) is exact but says nothing about
the future. A loose card next to another one (``7H 7S`` or ``7H 8H`` or
``7H 9H``) waits for one of a few cards; how many of those are still unseen, and
how many draws are left, tells how likely it is to be melded before the round
ends. A loose card that fits a meld on the table is as good as laid once the
seat has opened. :func:`hand_score` turns this into one number per hand (higher
is better); :func:`rank_discards` ranks the cards a seat may discard.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from romme.engine.cards import JOKER, Card, Suit
from romme.engine.melds import Meld, position_card
from romme.engine.rules import Rules
from romme.engine.scoring import card_penalty
from romme.engine.solver import Arrangement, solve, solve_opening

__all__ = [
    "Style",
    "arrangement",
    "expected_draws",
    "fits_table",
    "hand_score",
    "opening",
    "partners_outs",
    "without",
]


@lru_cache(maxsize=1 << 16)
def _solve_key(codes: tuple[int, ...], rules: Rules) -> Arrangement:
    return solve([Card.from_code(c) for c in codes], rules)


@lru_cache(maxsize=1 << 14)
def _opening_key(codes: tuple[int, ...], rules: Rules) -> Arrangement | None:
    return solve_opening([Card.from_code(c) for c in codes], rules)


def arrangement(hand: Iterable[Card], rules: Rules) -> Arrangement:
    """The solver's best arrangement of ``hand`` (cached: hands repeat a lot)."""
    return _solve_key(tuple(sorted(c.code for c in hand)), rules)


def opening(hand: Iterable[Card], rules: Rules) -> Arrangement | None:
    """The solver's best arrangement that opens, if any (cached)."""
    return _opening_key(tuple(sorted(c.code for c in hand)), rules)


def without(cards: Sequence[Card], *removed: Card) -> list[Card]:
    """``cards`` less one copy of each removed card."""
    rest = list(cards)
    for card in removed:
        rest.remove(card)
    return rest


def fits_table(card: Card, melds: Sequence[Meld], rules: Rules) -> bool:
    """Whether ``card`` could be laid off on some meld on the table."""
    return any(meld.lay_off_ends(card, rules) for meld in melds)


def partners_outs(
    card: Card, loose: Sequence[Card], unseen: Counter[Card], jokers_live: int
) -> tuple[int, int]:
    """``(pair outs, single outs)`` of a loose card: how many unseen cards would
    make a meld of it with another loose card, and how many would make it a
    pair (one step towards a meld) on its own."""
    if card.is_joker or card.suit is None:
        return (0, 0)
    rank, suit = card.rank, card.suit
    pair_outs = 0
    partnered = False
    seen_partner: set[Card] = set()
    for other in loose:
        if other is card or other.is_joker or other in seen_partner:
            continue
        if other.rank == rank and other.suit != suit:
            seen_partner.add(other)
            partnered = True
            for s in Suit:
                if s != suit and s != other.suit:
                    pair_outs += unseen[Card.natural(rank, s)]
        elif other.suit == suit and other.rank != rank:
            positions = sorted(_positions_pair(rank, other.rank))
            if not positions:
                continue
            seen_partner.add(other)
            partnered = True
            for p in positions:
                pair_outs += unseen[position_card(p, suit)]
    if partnered:
        pair_outs += jokers_live
    single = 0
    for s in Suit:
        if s != suit:
            single += unseen[Card.natural(rank, s)]
    neighbours: set[Card] = set()
    for own in (1, 14) if rank == 1 else (rank,):
        for step in (-2, -1, 1, 2):
            if 1 <= own + step <= 14:
                neighbours.add(position_card(own + step, suit))
    neighbours.discard(card)
    single += sum(unseen[c] for c in neighbours)
    return (pair_outs, single)


def _positions_pair(a: int, b: int) -> list[int]:
    """Positions that complete a sequence of two cards of one suit (rank a, b)."""
    found: list[int] = []
    for pa in (1, 14) if a == 1 else (a,):
        for pb in (1, 14) if b == 1 else (b,):
            low, high = min(pa, pb), max(pa, pb)
            if high - low == 1:
                found.extend(p for p in (low - 1, high + 1) if 1 <= p <= 14)
            elif high - low == 2:
                found.append(low + 1)
    return found


def expected_draws(stock: int, active: int, nearest: int) -> float:
    """How many more draws a seat may expect: no more than the stock allows
    each of the ``active`` seats, and fewer when some hand is down to
    ``nearest`` cards (the round will not last long)."""
    return min(8.0, max(1.5, stock / max(1, active)), 1.0 + nearest * 0.7)


@dataclass(frozen=True, slots=True)
class Style:
    """The weights of one level's judgement of a hand."""

    draws_left: float = 8.0
    """How many more draws the seat expects (shortens as the round goes on)."""
    penalty_weight: float = 0.01
    """What one penalty point in hand is worth, in loose cards."""
    single_weight: float = 0.25
    """A lone card's chance of joining a meld, relative to a pair's."""
    table_fit: float = 0.9
    """A loose card that fits a table meld, once opened: this much melded."""
    table_fit_closed: float = 0.45
    """The same before the seat has opened."""
    joker_keep: float = 3.0
    """Holding a joker loose is worth this much (jokers are never thrown lightly)."""
    risk_weight: float = 0.6
    """What feeding the next player costs, in loose cards, for a card it surely
    uses (:func:`romme.bots.playbook.feed_risk` gives how sure)."""
    take_margin: float = 0.3
    """How much better the hand must get before the seat shows interest in the
    top card of the discard pile."""


def hand_score(
    hand: Sequence[Card],
    rules: Rules,
    unseen: Counter[Card],
    table: Sequence[Meld],
    opened: bool,
    style: Style,
    arranged: Arrangement | None = None,
) -> float:
    """How good ``hand`` is: minus the loose cards (each discounted by its chance
    of being melded before the round ends) minus their penalty, weighted."""
    arr = arranged if arranged is not None else arrangement(hand, rules)
    loose = [c for c in arr.left]
    if not loose:
        return 2.0
    unseen_total = max(1, sum(unseen.values()))
    jokers_live = unseen[JOKER]
    draws = max(1.0, style.draws_left)
    score = 0.0
    for card in loose:
        if card.is_joker:
            score += style.joker_keep
            continue
        chance = 0.0
        if table and fits_table(card, table, rules):
            chance = style.table_fit if opened else style.table_fit_closed
        pair_outs, single_outs = partners_outs(card, loose, unseen, jokers_live)
        if pair_outs:
            chance = max(chance, 1.0 - (1.0 - pair_outs / unseen_total) ** draws)
        if single_outs:
            p_single = 1.0 - (1.0 - single_outs / unseen_total) ** draws
            chance = max(chance, style.single_weight * p_single)
        score -= 1.0 - chance
        score -= style.penalty_weight * card_penalty(card, rules)
    return score
