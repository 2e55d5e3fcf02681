"""Melds: groups and sequences, jokers, opening values, laying off, joker exchange.

Positions in a sequence run from 1 (ace low) to 14 (ace high); a natural card at
position ``p`` has rank ``p`` (position 14 is the ace). A sequence stores its
cards from low to high and the position of its first card; a joker stands for
the card at its position. A group stores its rank; its jokers stand for the
suits its natural cards leave open.

>>> from romme.engine.cards import parse_cards
>>> from romme.engine.rules import Rules
>>> meld = Meld.parse(parse_cards("QH KH AH"), Rules.classic())
>>> meld.kind, meld.value
(<MeldKind.SEQUENCE: 'sequence'>, 31)
>>> Meld.check(parse_cards("7C 7D 7H"), Rules.classic()).value
21
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from romme.engine.cards import RANK_NAMES, Card, Suit, format_cards
from romme.engine.errors import InvalidMeld, NotationError
from romme.engine.rules import Rules

__all__ = ["End", "Meld", "MeldKind", "meld_value_of_position", "position_card"]

End = Literal["low", "high"]
"""Where a card joins a sequence. Groups take ``None``."""


class MeldKind(str, enum.Enum):
    GROUP = "group"
    SEQUENCE = "sequence"


def meld_value_of_position(position: int) -> int:
    """The opening value of the card at a sequence position (1..14)."""
    if position == 1:
        return 1
    if position == 14:
        return 11
    return 10 if position >= 10 else position


def _rank_value_in_group(rank: int) -> int:
    return 11 if rank == 1 else (10 if rank >= 10 else rank)


def position_card(position: int, suit: Suit) -> Card:
    """The natural card at a sequence position (1..14) of a suit."""
    return Card.natural(1 if position == 14 else position, suit)


def _sort_rank(ace_rank: int, card: Card) -> int:
    return ace_rank if card.rank == 1 else card.rank


def _matches_position(card: Card, position: int) -> bool:
    return card.rank == position or (card.rank == 1 and position == 14)


@dataclass(frozen=True, slots=True)
class Meld:
    """A valid group or sequence. Build one with :meth:`parse` or :meth:`check`."""

    kind: MeldKind
    cards: tuple[Card, ...]
    """Sequences: low to high. Groups: in the order laid."""
    start: int
    """Sequences: position (1..14) of ``cards[0]``. Groups: the rank (1..13)."""
    suit: Suit | None = None
    """Sequences only: their suit."""

    # ----------------------------------------------------------------- building

    @classmethod
    def parse(cls, cards: Sequence[Card], rules: Rules) -> Meld:
        """The meld these cards form in the order given (a sequence may also be
        given high to low); raise :class:`InvalidMeld` saying why not."""
        cards = tuple(cards)
        reason = _basic_reason(cards, rules)
        if reason:
            raise InvalidMeld(reason)
        naturals = [c for c in cards if not c.is_joker]
        if len({c.rank for c in naturals}) == 1:
            return _group(cards)
        meld = _sequence(cards) or _sequence(cards[::-1])
        if meld is None:
            raise InvalidMeld(_sequence_reason(cards))
        return meld

    @classmethod
    def check(cls, cards: Sequence[Card], rules: Rules) -> Meld:
        """Like :meth:`parse`, but natural cards may come in any order: a
        sequence without jokers is sorted first. Jokers keep their places."""
        cards = tuple(cards)
        try:
            return cls.parse(cards, rules)
        except InvalidMeld:
            if any(c.is_joker for c in cards):
                raise
            for ace_rank in (1, 14):
                ordered = sorted(cards, key=partial(_sort_rank, ace_rank))
                try:
                    return cls.parse(ordered, rules)
                except InvalidMeld:
                    pass
            raise

    @classmethod
    def is_valid(cls, cards: Sequence[Card], rules: Rules) -> bool:
        try:
            cls.parse(cards, rules)
        except InvalidMeld:
            return False
        return True

    # --------------------------------------------------------------- properties

    @property
    def jokers(self) -> int:
        return sum(1 for c in self.cards if c.is_joker)

    @property
    def naturals(self) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if not c.is_joker)

    @property
    def end(self) -> int:
        """Sequences: the position (1..14) of the last card."""
        return self.start + len(self.cards) - 1

    @property
    def value(self) -> int:
        """The opening value: face values, ace 1 low or 11 high / in a group,
        a joker the value of the card it stands for."""
        if self.kind is MeldKind.GROUP:
            return _rank_value_in_group(self.start) * len(self.cards)
        return sum(meld_value_of_position(p) for p in range(self.start, self.end + 1))

    def open_suits(self) -> tuple[Suit, ...]:
        """Groups: the suits no natural card holds (what a joker may stand for)."""
        taken = {c.suit for c in self.cards if not c.is_joker}
        return tuple(s for s in Suit if s not in taken)

    def stands_for(self, index: int) -> str:
        """What the card at ``index`` stands for, e.g. ``9H`` or ``7C/7D``."""
        card = self.cards[index]
        if self.kind is MeldKind.SEQUENCE:
            assert self.suit is not None
            return str(position_card(self.start + index, self.suit))
        if not card.is_joker:
            return str(card)
        return "/".join(RANK_NAMES[self.start - 1] + s.letter for s in self.open_suits())

    def describe(self) -> str:
        """One line: kind, value and what each joker stands for."""
        jokers = [f"XX={self.stands_for(i)}" for i, c in enumerate(self.cards) if c.is_joker]
        extra = f" ({', '.join(jokers)})" if jokers else ""
        return f"{self.kind.value}, {self.value} points{extra}"

    def __str__(self) -> str:
        return format_cards(self.cards)

    # -------------------------------------------------------------- laying off

    def _joker_allowed(self, rules: Rules) -> bool:
        limit = rules.max_jokers_per_meld
        return limit is None or self.jokers < limit

    def lay_off_ends(self, card: Card, rules: Rules) -> tuple[End | None, ...]:
        """Where ``card`` can join this meld: ``("low",)``, ``("high",)``, both,
        ``(None,)`` for a group, or ``()`` if it does not fit."""
        if card.is_joker and not self._joker_allowed(rules):
            return ()
        if self.kind is MeldKind.GROUP:
            if len(self.cards) >= 4:
                return ()
            if card.is_joker or (card.rank == self.start and card.suit in self.open_suits()):
                return (None,)
            return ()
        if len(self.cards) >= 13:
            return ()
        ends: list[End | None] = []
        if self.start > 1 and (
            card.is_joker or (card.suit == self.suit and _matches_position(card, self.start - 1))
        ):
            ends.append("low")
        if self.end < 14 and (
            card.is_joker or (card.suit == self.suit and _matches_position(card, self.end + 1))
        ):
            ends.append("high")
        return tuple(ends)

    def with_card(self, card: Card, end: End | None, rules: Rules) -> Meld:
        """This meld with ``card`` laid off at ``end``; raise :class:`InvalidMeld`."""
        ends = self.lay_off_ends(card, rules)
        if not ends:
            raise InvalidMeld(f"{card} does not fit {self}")
        if self.kind is MeldKind.GROUP:
            return Meld(self.kind, (*self.cards, card), self.start)
        if end is None:
            if len(ends) > 1:
                raise InvalidMeld(f"say at which end of {self} the {card} goes (low or high)")
            end = ends[0]
        if end not in ends:
            raise InvalidMeld(f"{card} does not fit at the {end} end of {self}")
        if end == "low":
            return Meld(self.kind, (card, *self.cards), self.start - 1, self.suit)
        return Meld(self.kind, (*self.cards, card), self.start, self.suit)

    # ---------------------------------------------------------- joker exchange

    def exchange_positions(self, card: Card) -> tuple[int, ...]:
        """Indices of jokers that ``card`` (a natural card) can replace."""
        if card.is_joker:
            return ()
        found: list[int] = []
        for i, c in enumerate(self.cards):
            if not c.is_joker:
                continue
            if self.kind is MeldKind.SEQUENCE:
                if card.suit == self.suit and _matches_position(card, self.start + i):
                    found.append(i)
            elif card.rank == self.start and card.suit in self.open_suits():
                found.append(i)
        return tuple(found)

    def with_joker_exchanged(self, card: Card, index: int | None = None) -> Meld:
        """This meld with the joker at ``index`` replaced by ``card``."""
        positions = self.exchange_positions(card)
        if not positions:
            raise InvalidMeld(f"{card} cannot replace a joker in {self}")
        if index is None:
            index = positions[0]
        if index not in positions:
            raise InvalidMeld(f"{card} cannot replace the card at place {index} of {self}")
        cards = list(self.cards)
        cards[index] = card
        return Meld(self.kind, tuple(cards), self.start, self.suit)

    # -------------------------------------------------------------------- JSON

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "cards": [str(c) for c in self.cards], "start": self.start}

    @classmethod
    def from_json(cls, data: Any, rules: Rules) -> Meld:
        if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
            raise NotationError("a meld is an object with a list of cards")
        cards = tuple(Card.parse(t) for t in data["cards"])
        try:
            meld = cls.parse(cards, rules)
        except InvalidMeld as exc:
            raise NotationError(f"invalid meld in JSON: {exc}") from exc
        if "start" in data and data["start"] != meld.start:
            # A group's jokers or an all-but-two-jokers sequence could be read
            # another way only with fewer naturals than the rules allow.
            raise NotationError(f"meld {meld} does not start at {data['start']!r}")
        return meld


# --------------------------------------------------------------------- helpers


def _basic_reason(cards: tuple[Card, ...], rules: Rules) -> str | None:
    if len(cards) < 3:
        return "a meld needs at least 3 cards"
    naturals = [c for c in cards if not c.is_joker]
    jokers = len(cards) - len(naturals)
    if len(naturals) < rules.min_natural_cards:
        return (
            f"a meld needs at least {rules.min_natural_cards} natural cards "
            "(otherwise nobody can tell a group from a sequence)"
        )
    if rules.max_jokers_per_meld is not None and jokers > rules.max_jokers_per_meld:
        return f"at most {rules.max_jokers_per_meld} joker(s) per meld"
    if len({c.rank for c in naturals}) == 1:
        if len(cards) > 4:
            return "a group has 3 or 4 cards"
        suits = [c.suit for c in naturals]
        for card in naturals:
            if suits.count(card.suit) > 1:
                return f"a group may not hold the same card twice ({card} twice)"
        return None
    if len({c.suit for c in naturals}) > 1:
        return "cards of different ranks must all be of one suit to form a sequence"
    if len(cards) > 13:
        return "a sequence has at most 13 cards"
    return None


def _group(cards: tuple[Card, ...]) -> Meld:
    rank = next(c.rank for c in cards if not c.is_joker)
    return Meld(MeldKind.GROUP, cards, rank)


def _sequence(cards: tuple[Card, ...]) -> Meld | None:
    """The sequence these cards form low to high, if any."""
    index, first = next((i, c) for i, c in enumerate(cards) if not c.is_joker)
    assert first.suit is not None
    candidates = [first.rank - index]
    if first.rank == 1:
        candidates.append(14 - index)
    for start in candidates:
        if start < 1 or start + len(cards) - 1 > 14:
            continue
        if all(c.is_joker or _matches_position(c, start + i) for i, c in enumerate(cards)):
            return Meld(MeldKind.SEQUENCE, cards, start, first.suit)
    return None


def _sequence_reason(cards: tuple[Card, ...]) -> str:
    ranks = {c.rank for c in cards if not c.is_joker}
    if {13, 1, 2} <= ranks:
        return (
            "K-A-2 is no sequence: the ace is low (A-2-3) or high (Q-K-A), "
            "never both ('around the corner')"
        )
    if len(ranks) < len([c for c in cards if not c.is_joker]):
        return "a sequence may not hold the same rank twice"
    return "the cards are not in consecutive order (a joker stands for the card at its place)"
