"""Seat views: the only way a state is shown to anyone, and the legal actions a
seat can work out from its view alone.

A :class:`SeatView` holds the seat's own hand, the table melds, the top of the
discard pile, the counts of the other hands and of the stock, the public moves of
the round and the results of finished rounds (with their revealed seeds). It
never holds another seat's cards or the stock order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

from romme.engine.actions import Action, Discard, Draw, ExchangeJoker, Knock, Lay, LayOff
from romme.engine.cards import JOKER, Card, Suit
from romme.engine.codec import from_json_fields, to_json_fields
from romme.engine.discards import discard_refusal
from romme.engine.errors import InvalidMeld
from romme.engine.events import HistoryEntry, RoundResult
from romme.engine.melds import Meld, position_card
from romme.engine.rules import Rules

if TYPE_CHECKING:
    from romme.engine.game import Game

__all__ = ["SeatView", "candidate_melds", "discardable_cards", "legal_actions", "view_for"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat (or a spectator, ``seat=None``) may see of a game."""

    seat: int | None
    rules: Rules
    seats: int
    version: int
    phase: str
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


def view_for(game: Game, seat: int | None) -> SeatView:
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


# ----------------------------------------------------------- candidate melds


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


# ------------------------------------------------------------- legal actions


def legal_actions(view: SeatView) -> list[Action]:
    """The actions this seat may take now, worked out from its view alone.

    Draws, knocks, discards, lay-offs and joker exchanges are listed completely.
    Lay-downs are represented by every single candidate meld once the seat has
    opened, and before that by the solver's best opening plus every single meld
    that opens alone. (Rearranging the hand is always allowed and not listed.)
    """
    seat = view.seat
    if seat is None or view.phase not in ("draw", "play") or not view.active[seat]:
        return []
    rules = view.rules
    actions: list[Action] = []
    if view.phase == "draw":
        if seat == view.current:
            actions.append(Draw(seat, "stock"))
            if view.discard_count:
                actions.append(Draw(seat, "discard"))
        if seat in view.knock_seats and view.stock_count >= 2:
            actions.append(Knock(seat))
        return actions
    if seat != view.current:
        return actions
    hand = view.hand
    distinct = sorted(set(hand))
    jokers_free = hand.count(JOKER) - view.pending_jokers
    keep_one = rules.must_discard_to_go_out
    opened = view.opened[seat]

    def may_lay(count: int) -> bool:
        return not (keep_one and count >= len(hand))

    # Lay-downs.
    melds = candidate_melds(hand, rules)
    if opened:
        actions.extend(Lay(seat, (m.cards,)) for m in melds if may_lay(len(m.cards)))
    else:
        from romme.engine.solver import solve_opening

        opening = solve_opening(hand, rules)
        if opening is not None:
            count = sum(len(m.cards) for m in opening.melds)
            if may_lay(count):
                actions.append(Lay(seat, tuple(m.cards for m in opening.melds)))
        for meld in melds:
            if meld.value >= rules.opening_points and may_lay(len(meld.cards)):
                lay = Lay(seat, (meld.cards,))
                if lay not in actions:
                    actions.append(lay)
    # Lay-offs and joker exchanges.
    if opened and may_lay(1):
        for card in distinct:
            if card.is_joker and jokers_free <= 0:
                continue
            for index, meld in enumerate(view.melds):
                for end in meld.lay_off_ends(card, rules):
                    actions.append(LayOff(seat, card, index, end))
    if opened and not (view.pending_jokers and not rules.joker_exchange_to_hand):
        for card in distinct:
            for index, meld in enumerate(view.melds):
                for position in meld.exchange_positions(card):
                    actions.append(ExchangeJoker(seat, card, index, position))
    actions.extend(Discard(seat, card) for card in discardable_cards(view))
    return actions


def discardable_cards(view: SeatView) -> list[Card]:
    """The distinct cards this seat may discard now, ordered by code (the rule is
    :func:`romme.engine.discards.discard_refusal`)."""
    hand = view.hand
    return [
        card
        for card in sorted(set(hand))
        if discard_refusal(
            hand,
            card,
            drew_from_discard=view.drew_from_discard,
            pending_jokers=view.pending_jokers,
            rules=view.rules,
        )
        is None
    ]
