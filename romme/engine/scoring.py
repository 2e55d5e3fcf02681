"""Penalty points of cards left in hand at the end of a round.

>>> from romme.engine.cards import parse_cards
>>> from romme.engine.rules import Rules
>>> hand_penalty(parse_cards("AS KH 7D XX"), Rules.classic())
62
>>> hand_penalty(parse_cards("AS KH 7D XX"), Rules.three_rounds())
52
"""

from __future__ import annotations

from collections.abc import Iterable

from romme.engine.cards import Card
from romme.engine.rules import Rules

__all__ = ["card_penalty", "hand_penalty", "penalty_table"]


def penalty_table(rules: Rules) -> tuple[int, ...]:
    """Penalty of each card code (0..52): 2..10 face value, J Q K 10, ace and
    joker as the rules say."""
    table = []
    for code in range(52):
        rank = code % 13 + 1
        table.append(rules.ace_penalty if rank == 1 else min(rank, 10))
    table.append(rules.joker_penalty)
    return tuple(table)


def card_penalty(card: Card, rules: Rules) -> int:
    """What one card left in hand costs."""
    if card.is_joker:
        return rules.joker_penalty
    if card.rank == 1:
        return rules.ace_penalty
    return min(card.rank, 10)


def hand_penalty(cards: Iterable[Card], rules: Rules) -> int:
    """What the cards left in hand cost together (before any hand-rummy doubling)."""
    return sum(card_penalty(card, rules) for card in cards)
