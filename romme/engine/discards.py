"""Which card may end a turn: the one discard rule that the game enforces and that
the seat views list, so that the two can never disagree.

Two rules limit the discard:

* the card just taken from the discard pile may not go straight back (unless
  ``Rules.may_return_discard``), except when it is the last card in hand or the
  hand holds its twin;
* a joker exchanged from the table that must still be played (three-rounds) leaves
  two ways on: lay it in a new meld, or discard it.

Cards are values, so a joker taken from the discard pile and an exchanged joker
look alike. When a joker is pending, a joker discarded is the exchanged one: a
pending exchanged joker may always be discarded, which keeps a legal discard in
every turn (say the joker from the pile was laid in a new meld and then another
was exchanged: the joker in hand is the exchanged one).

>>> from romme.engine.cards import JOKER, parse_cards
>>> from romme.engine.rules import Rules
>>> hand = list(parse_cards("2S 9D XX"))
>>> discard_refusal(hand, JOKER, drew_from_discard=JOKER, pending_jokers=1,
...                 rules=Rules.three_rounds()) is None
True
>>> discard_refusal(hand, JOKER, drew_from_discard=JOKER, pending_jokers=0,
...                 rules=Rules.three_rounds()).code
'cannot_return_discard'
"""

from __future__ import annotations

from collections.abc import Sequence

from romme.engine.cards import Card
from romme.engine.errors import IllegalAction
from romme.engine.rules import Rules

__all__ = ["discard_refusal"]


def discard_refusal(
    hand: Sequence[Card],
    card: Card,
    *,
    drew_from_discard: Card | None,
    pending_jokers: int,
    rules: Rules,
) -> IllegalAction | None:
    """Why ``card`` may not be discarded from ``hand`` now, or ``None`` if it may.
    (That the hand holds the card is checked elsewhere.)"""
    plays_pending_joker = card.is_joker and pending_jokers > 0
    if (
        not rules.may_return_discard
        and card == drew_from_discard
        and not plays_pending_joker
        and hand.count(card) == 1
        and len(hand) > 1
    ):
        return IllegalAction(
            "you may not discard the card you took from the discard pile", "cannot_return_discard"
        )
    if pending_jokers - (1 if card.is_joker else 0) > 0:
        return IllegalAction(
            "the exchanged joker must be laid in a new meld or discarded", "joker_must_be_played"
        )
    return None
