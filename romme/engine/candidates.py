"""Candidate melds: the distinct melds a hand could lay, for the legal-action
list and the computer opponents.

>>> from romme.engine.cards import parse_cards
>>> from romme.engine.rules import Rules
>>> [str(m) for m in candidate_melds(parse_cards("7H 7S 7D 8H"), Rules.classic())]
['7D 7H 7S']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

from romme.engine.cards import JOKER, Card, Suit
from romme.engine.errors import InvalidMeld
from romme.engine.melds import Meld, position_card
from romme.engine.rules import Rules

__all__ = ["candidate_melds"]


def _group_candidates(hand: Counter[Card], rules: Rules) -> Iterator[tuple[Card, ...]]:
    jokers = hand[JOKER]
    max_jokers = (
        jokers if rules.max_jokers_per_meld is None else min(jokers, rules.max_jokers_per_meld)
    )
    for rank in range(1, 14):
        present = [Card.natural(rank, s) for s in Suit if hand[Card.natural(rank, s)]]
        for size in range(rules.min_natural_cards, len(present) + 1):
            for naturals in combinations(present, size):
                for k in range(max(0, 3 - size), min(max_jokers, 4 - size) + 1):
                    yield (*naturals, *([JOKER] * k))


def _sequence_candidates(hand: Counter[Card], rules: Rules) -> Iterator[tuple[Card, ...]]:
    jokers = hand[JOKER]
    max_jokers = (
        jokers if rules.max_jokers_per_meld is None else min(jokers, rules.max_jokers_per_meld)
    )
    for suit in Suit:
        present = {p for p in range(1, 15) if hand[position_card(p, suit)]}
        for low in sorted(present):
            for high in sorted(present):
                if high <= low or high - low > 12:
                    continue
                span = range(low, high + 1)
                naturals = sum(1 for p in span if p in present)
                gaps = len(span) - naturals
                if naturals < rules.min_natural_cards or gaps > max_jokers:
                    continue
                cards = tuple(position_card(p, suit) if p in present else JOKER for p in span)
                if len(cards) >= 3:
                    yield cards
                elif gaps < max_jokers:  # two naturals side by side: one joker makes three
                    if high < 14:
                        yield (*cards, JOKER)
                    if low > 1:
                        yield (JOKER, *cards)


def candidate_melds(hand: Sequence[Card], rules: Rules) -> list[Meld]:
    """Distinct melds the hand can lay: every group, and every sequence between
    two natural cards, with jokers only where they are needed."""
    counts = Counter(hand)
    found: dict[tuple[Card, ...], Meld] = {}
    for cards in (*_group_candidates(counts, rules), *_sequence_candidates(counts, rules)):
        if cards in found:
            continue
        try:
            found[cards] = Meld.parse(cards, rules)
        except InvalidMeld:
            continue
    return list(found.values())
