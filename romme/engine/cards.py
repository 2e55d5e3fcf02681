"""Cards, their text notation and the 110-card shoe.

A card is a value: two physical cards of the same rank and suit are equal and
interchangeable, so hands and piles are lists of :class:`Card` and the shoe holds
each natural card twice and the joker six times.

Notation: rank ``A 2 3 4 5 6 7 8 9 T J Q K`` (``10`` accepted), suit ``C D H S``
(``♣ ♦ ♥ ♠`` accepted), joker ``XX`` (``*`` and ``🃏`` accepted). Parsing is
case-insensitive.

>>> Card.parse("10d")
Card.parse('TD')
>>> str(Card.parse("♠q"))
'QS'
>>> parse_cards("7H 8H XX")
(Card.parse('7H'), Card.parse('8H'), Card.parse('XX'))
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from functools import total_ordering
from typing import ClassVar

from romme.engine.errors import CardParseError

__all__ = [
    "JOKER",
    "RANK_NAMES",
    "Card",
    "Suit",
    "all_naturals",
    "format_cards",
    "parse_cards",
    "shoe",
    "shoe_counter",
]


class Suit(enum.IntEnum):
    """The four suits, in the order used for sorting and card codes."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]


RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
"""Rank letters indexed by ``rank - 1`` (ace is rank 1, king is 13)."""

_RANK_INPUT = {name: i + 1 for i, name in enumerate(RANK_NAMES)} | {"10": 10}
_SUIT_INPUT = {
    "C": Suit.CLUBS,
    "D": Suit.DIAMONDS,
    "H": Suit.HEARTS,
    "S": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♠": Suit.SPADES,
    "♧": Suit.CLUBS,
    "♢": Suit.DIAMONDS,
    "♡": Suit.HEARTS,
    "♤": Suit.SPADES,
}
_JOKER_INPUT = {"XX", "*", "🃏", "JOKER"}
_VARIATION_SELECTOR = "\ufe0f"

JOKER_CODE = 52


@total_ordering
class Card:
    """One card: a natural card (rank 1..13 and a suit) or the joker.

    Cards are interned: there are exactly 53 distinct card values, and
    ``Card.parse`` / ``Card.natural`` / ``Card.joker`` always return the same
    object for the same value. ``code`` is ``suit * 13 + rank - 1`` for natural
    cards and 52 for the joker; it orders cards by suit, then rank.
    """

    __slots__ = ("rank", "suit", "code")
    _interned: ClassVar[list[Card]] = []

    rank: int
    suit: Suit | None
    code: int

    def __new__(cls, rank: int, suit: Suit | None) -> Card:
        if suit is None:
            if rank != 0:
                raise ValueError("a joker has rank 0 and no suit")
            code = JOKER_CODE
        else:
            if not 1 <= rank <= 13:
                raise ValueError(f"rank must be 1..13, not {rank!r}")
            code = int(suit) * 13 + rank - 1
        if len(cls._interned) == 53:
            return cls._interned[code]
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", None if suit is None else Suit(suit))
        object.__setattr__(card, "code", code)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Card.from_code, (self.code,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    @classmethod
    def natural(cls, rank: int, suit: Suit) -> Card:
        """The natural card of this rank (1..13) and suit."""
        return cls(rank, suit)

    @classmethod
    def joker(cls) -> Card:
        return JOKER

    @classmethod
    def from_code(cls, code: int) -> Card:
        """The card with this code (0..52)."""
        if not 0 <= code <= JOKER_CODE:
            raise ValueError(f"card code must be 0..52, not {code!r}")
        return cls._interned[code]

    @classmethod
    def parse(cls, token: str) -> Card:
        """Parse one card in the text notation; raise :class:`CardParseError`."""
        if not isinstance(token, str):
            raise CardParseError(repr(token), "a card is written as text, like 7H or XX")
        card = _BY_NOTATION.get(token)
        if card is not None:  # as the engine writes it: most of what is parsed
            return card
        text = token.strip().replace(_VARIATION_SELECTOR, "").upper()
        if text in _JOKER_INPUT:
            return JOKER
        if len(text) < 2 or len(text) > 3:
            raise CardParseError(token, "expected a rank and a suit, like 7H, TD or XX")
        # The suit may come first ("♠Q") or last ("QS").
        for rank_text, suit_text in ((text[:-1], text[-1]), (text[1:], text[0])):
            rank = _RANK_INPUT.get(rank_text)
            suit = _SUIT_INPUT.get(suit_text)
            if rank is not None and suit is not None:
                return cls._interned[int(suit) * 13 + rank - 1]
        raise CardParseError(
            token, "unknown rank or suit (ranks A 2-9 T/10 J Q K, suits C D H S, joker XX)"
        )

    @property
    def is_joker(self) -> bool:
        return self.code == JOKER_CODE

    def __str__(self) -> str:
        if self.suit is None:
            return "XX"
        return RANK_NAMES[self.rank - 1] + self.suit.letter

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __hash__(self) -> int:
        return self.code

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.code == other.code
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.code < other.code
        return NotImplemented

    @property
    def penalty_rank_value(self) -> int:
        """Face value used by both meld values and penalties for 2..K."""
        return 10 if self.rank >= 10 else self.rank


def _intern_all() -> None:
    cards: list[Card] = []
    for suit in Suit:
        for rank in range(1, 14):
            cards.append(Card(rank, suit))
    cards.append(Card(0, None))
    Card._interned.extend(cards)


_intern_all()

_BY_NOTATION: dict[str, Card] = {str(card): card for card in Card._interned}
"""Each card by the notation ``str(card)`` writes."""

JOKER = Card._interned[JOKER_CODE]
"""The joker."""


def all_naturals() -> tuple[Card, ...]:
    """The 52 distinct natural cards, ordered by code."""
    return tuple(Card._interned[:52])


def shoe() -> list[Card]:
    """The unshuffled 110-card shoe: every natural card twice and six jokers."""
    naturals = Card._interned[:52]
    return [*naturals, *naturals, *([JOKER] * 6)]


def shoe_counter() -> Counter[Card]:
    """How many of each card the shoe holds."""
    return Counter(shoe())


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse cards separated by spaces or commas, or an iterable of tokens."""
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
    else:
        tokens = list(text)
    return tuple(Card.parse(token) for token in tokens)


def format_cards(cards: Iterable[Card]) -> str:
    """The cards in text notation, separated by spaces."""
    return " ".join(str(card) for card in cards)
