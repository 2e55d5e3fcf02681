"""Events: what an action did, told to each seat as that seat may see it.

An event is a small frozen value. :meth:`for_seat` gives the form a seat (or a
spectator, ``None``) may see: a card drawn from the stock is hidden from the
others, a dealt hand is shown to its owner only. Events round-trip through JSON
with :func:`event_from_json`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from romme.engine.actions import Source
from romme.engine.cards import Card
from romme.engine.codec import from_json_fields, to_json_fields
from romme.engine.errors import NotationError
from romme.engine.melds import End, Meld

__all__ = [
    "Discarded",
    "Drew",
    "Ended",
    "Event",
    "GameEnded",
    "HandArranged",
    "HandDealt",
    "HistoryEntry",
    "JokerExchanged",
    "Knocked",
    "Laid",
    "LaidOff",
    "Move",
    "Restocked",
    "RoundEnded",
    "RoundResult",
    "RoundStarted",
    "TurnStarted",
    "event_from_json",
]

Move = Literal["draw_stock", "draw_discard", "discard", "knock", "lay", "lay_off", "exchange_joker"]
"""The public moves a round's history records."""

Ended = Literal["out", "stock", "stall"]
"""How a round ended: a player went out, the stock ran out for good, or the round
stalled (``Rules.stall_turns``)."""


class _EventBase:
    __slots__ = ()
    type: ClassVar[str]
    private_to: ClassVar[str | None] = None
    """Name of the seat field whose owner alone may see this event."""

    def for_seat(self, viewer: int | None) -> Self | None:
        """The event as ``viewer`` (a seat, or ``None`` for a spectator) may
        see it, or ``None`` if it is not for them."""
        if self.private_to is not None and getattr(self, self.private_to) != viewer:
            return None
        return self

    def to_json(self) -> dict[str, Any]:
        return to_json_fields(self)


@dataclass(frozen=True, slots=True)
class RoundStarted(_EventBase):
    type: ClassVar[str] = "round_started"
    round_no: int
    dealer: int
    first: int
    commitment: str
    hand_sizes: tuple[int, ...]
    upcard: Card
    stock_count: int


@dataclass(frozen=True, slots=True)
class HandDealt(_EventBase):
    type: ClassVar[str] = "hand_dealt"
    private_to: ClassVar[str | None] = "seat"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Drew(_EventBase):
    type: ClassVar[str] = "drew"
    seat: int
    source: Source
    card: Card | None
    """Hidden (``None``) from the others when drawn from the stock."""

    def for_seat(self, viewer: int | None) -> Drew:
        if self.source == "stock" and viewer != self.seat:
            return dataclasses.replace(self, card=None)
        return self


@dataclass(frozen=True, slots=True)
class Restocked(_EventBase):
    type: ClassVar[str] = "restocked"
    restock_no: int
    stock_count: int


@dataclass(frozen=True, slots=True)
class Laid(_EventBase):
    type: ClassVar[str] = "laid"
    seat: int
    melds: tuple[Meld, ...]
    first_index: int
    """Table index of the first of these melds."""
    opened: bool
    """Whether this lay-down was the seat's opening."""


@dataclass(frozen=True, slots=True)
class LaidOff(_EventBase):
    type: ClassVar[str] = "laid_off"
    seat: int
    card: Card
    meld_index: int
    end: End | None
    meld: Meld


@dataclass(frozen=True, slots=True)
class JokerExchanged(_EventBase):
    type: ClassVar[str] = "joker_exchanged"
    seat: int
    card: Card
    meld_index: int
    index: int
    meld: Meld


@dataclass(frozen=True, slots=True)
class Discarded(_EventBase):
    type: ClassVar[str] = "discarded"
    seat: int
    card: Card
    knock_seats: tuple[int, ...]
    """Who may knock on this discard (empty without the knock)."""


@dataclass(frozen=True, slots=True)
class Knocked(_EventBase):
    type: ClassVar[str] = "knocked"
    seat: int
    card: Card
    drawn: tuple[Card, ...] | None
    """The two stock cards, shown to the knocker only."""
    skipped: tuple[int, ...]

    def for_seat(self, viewer: int | None) -> Knocked:
        if viewer != self.seat:
            return dataclasses.replace(self, drawn=None)
        return self


@dataclass(frozen=True, slots=True)
class TurnStarted(_EventBase):
    type: ClassVar[str] = "turn_started"
    seat: int


@dataclass(frozen=True, slots=True)
class HandArranged(_EventBase):
    type: ClassVar[str] = "hand_arranged"
    private_to: ClassVar[str | None] = "seat"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One public move of the current round, as every seat saw it."""

    seat: int
    move: Move
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended: penalties, totals and the revealed shuffle seed."""

    round_no: int
    winner: int | None
    """Who went out; ``None`` if the stock ran out and nobody scores."""
    hand_rummy: bool
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    """The cards each seat held at the end (public once the round is over)."""
    eliminated: tuple[int, ...]
    """Seats that went over the limit in this round."""
    seed: str
    commitment: str
    ended: Ended = "out"
    """How: ``"out"`` (a player went out), ``"stock"`` (the stock ran out for good)
    or ``"stall"`` (``Rules.stall_turns`` turns in a row without a stock card)."""

    def to_json(self) -> dict[str, Any]:
        return to_json_fields(self)

    @classmethod
    def from_json(cls, data: Any) -> RoundResult:
        result: RoundResult = from_json_fields(cls, data)
        return result


@dataclass(frozen=True, slots=True)
class RoundEnded(_EventBase):
    type: ClassVar[str] = "round_ended"
    result: RoundResult


@dataclass(frozen=True, slots=True)
class GameEnded(_EventBase):
    type: ClassVar[str] = "game_ended"
    winners: tuple[int, ...]
    totals: tuple[int, ...]


Event = (
    RoundStarted
    | HandDealt
    | Drew
    | Restocked
    | Laid
    | LaidOff
    | JokerExchanged
    | Discarded
    | Knocked
    | TurnStarted
    | HandArranged
    | RoundEnded
    | GameEnded
)

_EVENT_TYPES: dict[str, type[Any]] = {
    cls.type: cls
    for cls in (
        RoundStarted,
        HandDealt,
        Drew,
        Restocked,
        Laid,
        LaidOff,
        JokerExchanged,
        Discarded,
        Knocked,
        TurnStarted,
        HandArranged,
        RoundEnded,
        GameEnded,
    )
}


def event_from_json(data: Any) -> Event:
    """The event a JSON object (from ``to_json``) describes."""
    if not isinstance(data, dict) or data.get("type") not in _EVENT_TYPES:
        raise NotationError("not an event")
    fields = {k: v for k, v in data.items() if k != "type"}
    event: Event = from_json_fields(_EVENT_TYPES[data["type"]], fields)
    return event
