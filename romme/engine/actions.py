"""Actions: every change to a game is one of these small values.

Each action names the seat that takes it (``NextRound`` is the table's, not a
seat's). Actions round-trip through JSON:

>>> from romme.engine.cards import Card
>>> action = Discard(seat=1, card=Card.parse("7H"))
>>> action.to_json()
{'type': 'discard', 'seat': 1, 'card': '7H'}
>>> action_from_json(action.to_json()) == action
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, get_args

from romme.engine.cards import Card, parse_cards
from romme.engine.errors import EngineError, NotationError
from romme.engine.melds import End

__all__ = [
    "Action",
    "Arrange",
    "Discard",
    "Draw",
    "ExchangeJoker",
    "Knock",
    "Lay",
    "LayOff",
    "NextRound",
    "Source",
    "action_from_json",
]

Source = Literal["stock", "discard"]


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top card of the stock or of the discard pile."""

    type: ClassVar[str] = "draw"
    seat: int
    source: Source = "stock"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "source": self.source}


@dataclass(frozen=True, slots=True)
class Lay:
    """Lay one or more melds from the hand. A first lay-down must reach the
    opening value with all its melds together."""

    type: ClassVar[str] = "lay"
    seat: int
    melds: tuple[tuple[Card, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "seat": self.seat,
            "melds": [[str(c) for c in meld] for meld in self.melds],
        }


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add one card from the hand to a meld on the table (index into the
    table's melds); ``end`` says which end of a sequence, if both fit."""

    type: ClassVar[str] = "lay_off"
    seat: int
    card: Card
    meld: int
    end: End | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "seat": self.seat,
            "card": str(self.card),
            "meld": self.meld,
            "end": self.end,
        }


@dataclass(frozen=True, slots=True)
class ExchangeJoker:
    """Put ``card`` in a table meld in place of the joker it stands for
    (``index``: the joker's place in the meld; ``None``: the first that fits)."""

    type: ClassVar[str] = "exchange_joker"
    seat: int
    card: Card
    meld: int
    index: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "seat": self.seat,
            "card": str(self.card),
            "meld": self.meld,
            "index": self.index,
        }


@dataclass(frozen=True, slots=True)
class Discard:
    """Put one card from the hand on the discard pile; ends the turn."""

    type: ClassVar[str] = "discard"
    seat: int
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "card": str(self.card)}


@dataclass(frozen=True, slots=True)
class Knock:
    """Take the card just discarded plus two from the stock, and play at once."""

    type: ClassVar[str] = "knock"
    seat: int

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Arrange:
    """Put one's own hand in this order (allowed at any time during a round)."""

    type: ClassVar[str] = "arrange"
    seat: int
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class NextRound:
    """Deal the next round after a round has ended (the table's action)."""

    type: ClassVar[str] = "next_round"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}


Action = Draw | Lay | LayOff | ExchangeJoker | Discard | Knock | Arrange | NextRound

_ACTION_TYPES: dict[str, type[Any]] = {
    cls.type: cls for cls in (Draw, Lay, LayOff, ExchangeJoker, Discard, Knock, Arrange, NextRound)
}


def _int(data: dict[str, Any], key: str, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise NotationError(f"{key!r} must be an integer")
    if not 0 <= value < 1000:
        raise NotationError(f"{key!r} is out of range")
    return value


def _card(data: dict[str, Any], key: str) -> Card:
    value = data.get(key)
    if not isinstance(value, str):
        raise NotationError(f'{key!r} must be a card such as "7H"')
    return Card.parse(value)


def _cards(value: Any, what: str, limit: int = 110) -> tuple[Card, ...]:
    if not isinstance(value, list) or len(value) > limit:
        raise NotationError(f"{what} must be a list of at most {limit} cards")
    if not all(isinstance(v, str) for v in value):
        raise NotationError(f'{what} must be a list of cards such as "7H"')
    return parse_cards(value)


def action_from_json(data: Any) -> Action:
    """The action a JSON object describes; raise :class:`NotationError`."""
    if not isinstance(data, dict):
        raise NotationError("an action is a JSON object")
    kind = data.get("type")
    cls = _ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise NotationError(
            f"unknown action type {kind!r}; expected one of {', '.join(sorted(_ACTION_TYPES))}"
        )
    try:
        if cls is NextRound:
            return NextRound()
        seat = _int(data, "seat")
        if cls is Draw:
            source = data.get("source", "stock")
            if source not in get_args(Source):
                raise NotationError("'source' must be 'stock' or 'discard'")
            return Draw(seat, source)
        if cls is Lay:
            melds = data.get("melds")
            if not isinstance(melds, list) or not melds or len(melds) > 20:
                raise NotationError("'melds' must be a non-empty list of melds")
            return Lay(seat, tuple(_cards(m, "a meld", 13) for m in melds))
        if cls is LayOff:
            end = data.get("end")
            if end not in (None, "low", "high"):
                raise NotationError("'end' must be 'low', 'high' or null")
            return LayOff(seat, _card(data, "card"), _int(data, "meld"), end)
        if cls is ExchangeJoker:
            return ExchangeJoker(
                seat, _card(data, "card"), _int(data, "meld"), _int(data, "index", optional=True)
            )
        if cls is Discard:
            return Discard(seat, _card(data, "card"))
        if cls is Knock:
            return Knock(seat)
        return Arrange(seat, _cards(data.get("cards"), "'cards'", 30))
    except NotationError:
        raise
    except EngineError as exc:  # a card that does not parse
        raise NotationError(exc.message) from exc
