"""Seat views: the only way a state is shown to anyone.

A :class:`SeatView` holds the seat's own hand, the table melds, the top of the
discard pile, the counts of the other hands and of the stock, the public moves of
the round and the results of finished rounds (with their revealed seeds). It
never holds another seat's cards or the stock order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from romme.engine.cards import Card
from romme.engine.codec import from_json_fields, to_json_fields
from romme.engine.events import HistoryEntry, RoundResult
from romme.engine.melds import Meld
from romme.engine.rules import Rules
from romme.engine.state import GameState, PhaseName

__all__ = ["SeatView", "view_for"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat (or a spectator, ``seat=None``) may see of a game."""

    seat: int | None
    rules: Rules
    seats: int
    version: int
    phase: PhaseName
    round_no: int
    dealer: int
    current: int
    hand: tuple[Card, ...]
    """This seat's hand in the order the player arranged it (empty for spectators)."""
    hand_counts: tuple[int, ...]
    stock_count: int
    discard_top: Card | None
    discard_count: int
    melds: tuple[Meld, ...]
    meld_owners: tuple[int, ...]
    opened: tuple[bool, ...]
    totals: tuple[int, ...]
    active: tuple[bool, ...]
    drew_from_discard: Card | None
    """The card the current seat took from the discard pile this turn, if any."""
    opened_before: bool
    pending_jokers: int
    knock_seats: tuple[int, ...]
    """Who may knock right now."""
    restocks: int
    commitment: str
    history: tuple[HistoryEntry, ...]
    results: tuple[RoundResult, ...]
    winners: tuple[int, ...]
    stall: int = 0
    """Turns in a row whose draw took no card from the stock (``Rules.stall_turns``)."""

    @property
    def my_turn(self) -> bool:
        return (
            self.seat is not None and self.seat == self.current and self.phase in ("draw", "play")
        )

    def to_json(self) -> dict[str, Any]:
        return to_json_fields(self)

    @classmethod
    def from_json(cls, data: Any) -> SeatView:
        view: SeatView = from_json_fields(cls, data)
        return view


def view_for(game: GameState, seat: int | None) -> SeatView:
    """The view of ``seat`` (``None``: a spectator, who sees no hand)."""
    if seat is not None and not 0 <= seat < game.seats:
        raise ValueError(f"there is no seat {seat}")
    return SeatView(
        seat=seat,
        rules=game.rules,
        seats=game.seats,
        version=game.version,
        phase=game.phase.value,
        round_no=game.round_no,
        dealer=game.dealer,
        current=game.current,
        hand=() if seat is None else tuple(game.hands[seat]),
        hand_counts=tuple(len(h) for h in game.hands),
        stock_count=len(game.stock),
        discard_top=game.discard[-1] if game.discard else None,
        discard_count=len(game.discard),
        melds=tuple(game.melds),
        meld_owners=tuple(game.meld_owners),
        opened=tuple(game.opened),
        totals=tuple(game.totals),
        active=tuple(game.active),
        drew_from_discard=game.turn.drew_from_discard if game.in_round else None,
        opened_before=game.turn.opened_before,
        pending_jokers=game.turn.pending_jokers,
        knock_seats=game.knock_seats(),
        restocks=game.restocks,
        commitment=game.commitment,
        history=tuple(game.history),
        results=tuple(game.results),
        winners=tuple(game.winners),
        stall=game.stall,
    )
