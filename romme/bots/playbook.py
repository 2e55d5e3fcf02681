"""Moves every level builds its turn from: which melds to lay, which cards to
lay off, which jokers to take, and which cards the next player would love to get.

These helpers only propose; each level decides whether and when to use them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from romme.bots.evaluate import arrangement, fits_table, without
from romme.bots.knowledge import Knowledge
from romme.engine.actions import ExchangeJoker, Lay, LayOff
from romme.engine.cards import JOKER, Card
from romme.engine.errors import InvalidMeld
from romme.engine.melds import End, Meld, MeldKind
from romme.engine.rules import Rules
from romme.engine.solver import Arrangement
from romme.engine.view import SeatView

__all__ = [
    "HEADS_UP",
    "MATCH",
    "SEVERAL",
    "HoldingPlan",
    "can_lay_all",
    "exchange_options",
    "feed_risk",
    "goes_out_by_laying_off",
    "holding_plan",
    "keeps_melds_back",
    "lay_melds",
    "lay_off_options",
    "lay_off_plan",
    "lay_offs_worth_making",
    "least_opening",
    "next_seat",
    "opens",
    "takes_a_joker",
    "trim_for_discard",
]


def next_seat(view: SeatView, seat: int) -> int:
    """The next seat still in the game to the left of ``seat``."""
    for step in range(1, view.seats + 1):
        candidate = (seat + step) % view.seats
        if view.active[candidate]:
            return candidate
    return seat


def trim_for_discard(
    melds: Sequence[Meld], hand_size: int, view: SeatView
) -> tuple[list[tuple[Card, ...]], Card | None]:
    """The melds to lay when the rules say the last card must be discarded:
    if they would take every card, take one card off a meld of four or more
    (which then goes out as the discard), else leave out the cheapest meld.
    Returns the melds' cards and the card kept back for the discard, if any."""
    laid = [m.cards for m in melds]
    if not view.rules.must_discard_to_go_out:
        return laid, None
    if sum(len(c) for c in laid) < hand_size:
        return laid, None
    rules = view.rules
    for i, meld in enumerate(melds):
        if len(meld.cards) < 4:
            continue
        ends = (
            (0, len(meld.cards) - 1) if meld.kind is MeldKind.SEQUENCE else range(len(meld.cards))
        )
        for index in ends:
            rest = meld.cards[:index] + meld.cards[index + 1 :]
            if meld.cards[index].is_joker:
                continue
            try:
                Meld.parse(rest, rules)
            except InvalidMeld:
                continue
            trimmed = list(laid)
            trimmed[i] = rest
            return trimmed, meld.cards[index]
    ordered = sorted(range(len(melds)), key=lambda i: (melds[i].value, len(melds[i].cards)))
    kept = [laid[i] for i in range(len(laid)) if i != ordered[0]]
    return kept, None


def lay_melds(view: SeatView, melds: Sequence[Meld]) -> Lay | None:
    """A ``Lay`` of these melds that the engine accepts now, or ``None``."""
    seat = view.seat
    if seat is None or not melds:
        return None
    laid, _ = trim_for_discard(melds, len(view.hand), view)
    if not laid:
        return None
    if not view.opened[seat]:
        rules = view.rules
        if not opens([Meld.check(cards, rules).value for cards in laid], rules):
            return None
    return Lay(seat, tuple(laid))


def opens(values: Sequence[int], rules: Rules) -> bool:
    """Whether melds of these opening values, laid together, open: their sum
    (or, with ``opening_single_meld``, the best of them) reaches the opening."""
    reach = max(values) if rules.opening_single_meld else sum(values)
    return reach >= rules.opening_points


def lay_off_plan(
    rules: Rules, table: Sequence[Meld], loose: Sequence[Card]
) -> list[tuple[Card, int, End | None]]:
    """The lay-offs of as many ``loose`` cards as the table takes, in the order
    to play them, each on the table as the ones before left it: natural cards
    first (costliest first), jokers last, because a joker fits almost anywhere
    and, laid first, could take the place a natural card needed.
    Each entry is ``(card, meld index, end)``."""
    melds = list(table)
    plan: list[tuple[Card, int, End | None]] = []
    for card in sorted(loose, key=lambda c: (c.is_joker, -_penalty_order(c), c.code)):
        for index, meld in enumerate(melds):
            ends = meld.lay_off_ends(card, rules)
            if ends:
                melds[index] = meld.with_card(card, ends[0], rules)
                plan.append((card, index, ends[0]))
                break
    return plan


def goes_out_by_laying_off(rules: Rules, table: Sequence[Meld], loose: Sequence[Card]) -> bool:
    """Whether laying off what fits leaves at most one of the ``loose`` cards:
    the discard, so the seat can go out this turn."""
    return len(loose) - len(lay_off_plan(rules, table, loose)) <= 1


CLOSE_CARDS = 3
"""A seat holding its melds back opens once an opponent is down to this many
cards: at a one-round table of three or four seats, and heads-up in a match
over several rounds (:func:`keeps_melds_back`)."""


@dataclass(frozen=True, slots=True)
class HoldingPlan:
    """When a seat that holds its melds back opens after all, besides going out
    at once (:func:`keeps_melds_back`), and how much it lays then."""

    close: int
    """Once an opponent is down to this many cards (0: never for that)."""
    fits: int
    """Once this many of its loose natural cards fit the table (0: never for that)."""
    jokers: bool = False
    """Once a loose natural card can take a joker off the table, where the joker
    then goes to the hand (classic): opening is what lets the seat exchange it."""
    keep_new: bool = False
    """Once opened, lay no new meld until that lets the seat go out
    (:meth:`keeps_new_melds`)."""
    least: bool = False
    """Open with the least that opens (:func:`least_opening`) when not going
    out; the other melds stay in hand (:meth:`opens_with_least`)."""
    open_up: bool = False
    """In a match over several rounds, where the cards left in hand are counted:
    once an opponent is down to ``close`` cards, lay every meld, at the opening
    and after it, whatever ``least`` and ``keep_new`` say (:meth:`lays_all`)."""

    def opponent_close(self, others: Sequence[int]) -> bool:
        """Whether an opponent (``others``: the hand counts of the other seats
        still in the round) is down to ``close`` cards (never with 0)."""
        return bool(self.close) and any(count <= self.close for count in others)

    def lays_all(self, others: Sequence[int]) -> bool:
        """Whether the seat now lays every meld it has: with ``open_up``, once
        an opponent is close (:meth:`opponent_close`), so that little is left
        to count when that opponent goes out."""
        return self.open_up and self.opponent_close(others)

    def keeps_new_melds(
        self, rules: Rules, table: Sequence[Meld], loose: Sequence[Card], others: Sequence[int]
    ) -> bool:
        """Whether a seat that holds its melds back by this plan, and has opened,
        keeps the new melds of its hand there this turn (``loose``: its cards
        outside them): until laying them lets it go out, or :meth:`lays_all`."""
        return self._keeps_some(self.keep_new, rules, table, loose, others)

    def opens_with_least(
        self, rules: Rules, table: Sequence[Meld], loose: Sequence[Card], others: Sequence[int]
    ) -> bool:
        """Whether a seat that holds its melds back by this plan, and opens now,
        lays only the :func:`least_opening`: unless it is going out, or
        :meth:`lays_all`."""
        return self._keeps_some(self.least, rules, table, loose, others)

    def _keeps_some(
        self,
        option: bool,
        rules: Rules,
        table: Sequence[Meld],
        loose: Sequence[Card],
        others: Sequence[int],
    ) -> bool:
        """Whether ``option`` (of keeping melds in hand) holds this turn."""
        return (
            option and not self.lays_all(others) and not goes_out_by_laying_off(rules, table, loose)
        )


HEADS_UP = HoldingPlan(close=0, fits=0, jokers=True, keep_new=True, least=True)
"""Heads-up at a one-round table: to go out, or to bring a joker home. The one
opponent goes out or not whatever the seat shows, and melds on the table would
only give it lay-offs and jokers; but a joker taken from its melds makes a meld
of any pair in the seat's hand, and is one the opponent no longer has. Opening
for a joker, the seat lays the least that opens and keeps its other melds in
hand for the same reasons."""
SEVERAL = HoldingPlan(close=CLOSE_CARDS, fits=2, keep_new=True, least=True)
"""Against several opponents at a one-round table the race is won by laying
off onto their melds: also on two lay-offs, or an opponent at
:data:`CLOSE_CARDS` cards. Even then it lays the least that opens and keeps its
other melds in hand: each meld on the table is a place for every opponent to
lay off on."""
MATCH = HoldingPlan(close=CLOSE_CARDS, fits=0, jokers=True, keep_new=True, least=True, open_up=True)
"""In a match over several rounds, at any number of seats: the melds stay in
hand for a hand rummy, which doubles every opponent's penalty, and the seat
opens, as at a one-round table heads-up, to go out or to bring a joker home; but
once an opponent is down to :data:`CLOSE_CARDS` cards that opponent's going out
is near, and the seat lays every meld it has, so that little is left in its hand
to count."""


def holding_plan(opponents: int, single_round: bool = True) -> HoldingPlan:
    """The expert's plan for this many opponents still in the round, at a
    one-round table or in a match over several rounds (the probes behind it are
    in docs/bots.md, "Probes of the plan" and "Full matches")."""
    if not single_round:
        return MATCH
    return HEADS_UP if opponents < 2 else SEVERAL


def keeps_melds_back(
    rules: Rules,
    table: Sequence[Meld],
    loose: Sequence[Card],
    others: Sequence[int],
    plan: HoldingPlan,
) -> bool:
    """The plan of holding back (the expert's, and its own seat's in its
    playouts): whether a seat that could open keeps its melds in hand this
    turn. ``loose`` are its cards outside its melds, ``others`` the hand counts
    of the other seats still in the round, ``plan`` the triggers
    (:func:`holding_plan`).

    It opens when it can go out at once (every loose card but the discard
    fits the table, which includes a hand of melds only), else when a trigger
    of the plan fires."""
    if goes_out_by_laying_off(rules, table, loose):
        return False
    exchanges = plan.jokers and rules.joker_exchange_to_hand
    if exchanges and any(takes_a_joker(card, table) for card in loose):
        return False
    if plan.fits:
        fits = sum(1 for c in loose if not c.is_joker and fits_table(c, table, rules))
        if fits >= plan.fits:
            return False
    return not plan.opponent_close(others)


def least_opening(melds: Sequence[Meld], rules: Rules) -> list[Meld]:
    """The fewest of ``melds`` (an opening) that still open, those with the
    fewest jokers first, then the fewest cards: what a seat that keeps its melds
    in hand lays when it opens without going out. The others stay in hand, and
    a joker in hand cannot be taken by anyone."""
    for size in range(1, len(melds)):
        ways = [list(c) for c in combinations(melds, size) if opens([m.value for m in c], rules)]
        if ways:
            return min(
                ways,
                key=lambda c: (sum(m.jokers for m in c), sum(len(m.cards) for m in c)),
            )
    return list(melds)


def takes_a_joker(card: Card, table: Sequence[Meld]) -> bool:
    """Whether the natural ``card`` can replace a joker in a meld on the table."""
    return not card.is_joker and any(meld.exchange_positions(card) for meld in table)


def lay_off_options(view: SeatView, loose: Sequence[Card]) -> list[LayOff]:
    """Lay-offs of loose cards that fit the table, in the order to play them
    (each after the ones before). A loose joker is laid off only when that lets
    the seat go out this turn (every loose card but the discard fits): until
    then it is worth more in hand, where any pair makes a meld with it."""
    seat = view.seat
    if seat is None or not view.opened[seat]:
        return []
    if view.rules.must_discard_to_go_out and len(view.hand) <= 1:
        return []
    # An exchanged joker that must go into a new meld cannot be laid off.
    free_jokers = view.hand.count(JOKER) - view.pending_jokers
    plan = lay_offs_worth_making(view.rules, view.melds, loose, free_jokers)
    return [LayOff(seat, card, index, end) for card, index, end in plan]


def lay_offs_worth_making(
    rules: Rules, table: Sequence[Meld], loose: Sequence[Card], free_jokers: int
) -> list[tuple[Card, int, End | None]]:
    """The :func:`lay_off_plan` of the natural cards, and of up to
    ``free_jokers`` loose jokers when that lets the seat go out this turn."""
    naturals = [c for c in loose if not c.is_joker]
    jokers = [c for c in loose if c.is_joker][: max(0, free_jokers)]
    plan = lay_off_plan(rules, table, [*naturals, *jokers])
    if len(loose) - len(plan) > 1:
        plan = [step for step in plan if not step[0].is_joker]
    return plan


def _penalty_order(card: Card) -> int:
    if card.is_joker:
        return 30
    if card.rank == 1:
        return 15
    return min(card.rank, 10)


def can_lay_all(view: SeatView, arr: Arrangement) -> bool:
    """Whether the seat can go out this turn with this arrangement: every loose
    card but at most one (the discard) fits the table (after opening), a loose
    joker included."""
    rules = view.rules
    loose = list(arr.left)
    if not loose:
        return not rules.must_discard_to_go_out or sum(len(m.cards) for m in arr.melds) > 3
    return goes_out_by_laying_off(rules, view.melds, loose)


def exchange_options(view: SeatView, loose: Sequence[Card]) -> list[ExchangeJoker]:
    """Joker exchanges worth making: a natural card the seat can spare takes a
    joker from the table. Classic: the joker goes to the hand, so any loose card
    that fits is worth it. Otherwise the joker must be laid at once, so only if
    the hand can then lay it in a new meld."""
    seat = view.seat
    if seat is None or not view.opened[seat]:
        return []
    if view.pending_jokers and not view.rules.joker_exchange_to_hand:
        return []
    rules = view.rules
    found: list[ExchangeJoker] = []
    hand = list(view.hand)
    for card in sorted(set(hand)):
        if card.is_joker:
            continue
        for index, meld in enumerate(view.melds):
            positions = meld.exchange_positions(card)
            if not positions:
                continue
            after = [*without(hand, card), JOKER]
            arr_after = arrangement(after, rules)
            if rules.joker_exchange_to_hand:
                if card in loose or len(arr_after.left) <= len(loose):
                    found.append(ExchangeJoker(seat, card, index, positions[0]))
            else:
                uses_joker = JOKER not in arr_after.left
                if uses_joker and len(arr_after.left) < len(loose) + (card not in loose):
                    found.append(ExchangeJoker(seat, card, index, positions[0]))
            break
    return found


def feed_risk(view: SeatView, know: Knowledge, card: Card) -> float:
    """How likely the next player (or a knocker) is to take ``card`` and use it:
    it fits a table meld once they have opened, it joins cards they are known to
    hold, or it is of a kind they have been throwing away (less likely)."""
    seat = view.seat
    if seat is None:
        return 0.0
    rules = view.rules
    target = next_seat(view, seat)
    risk = 0.12
    if card.is_joker:
        return 1.0
    if any(m.lay_off_ends(card, rules) for m in view.melds):
        risk = 0.9 if view.opened[target] else 0.3
    known = list(know.known[target].elements()) if target < len(know.known) else []
    if known:
        arr = arrangement([*known, card], rules)
        if card not in arr.left:
            risk = max(risk, 0.9)
        elif any(_related(card, k) for k in known):
            risk = max(risk, 0.45)
    taken = know.taken[target] if target < len(know.taken) else []
    if any(_related(card, k) for k in taken):
        risk = max(risk, 0.3)
    thrown = know.thrown[target] if target < len(know.thrown) else []
    if any(t.rank == card.rank for t in thrown) and risk < 0.5:
        risk *= 0.4
    # Whoever is about to go out takes anything that helps.
    if view.hand_counts[target] <= 3:
        risk = min(1.0, risk * 1.5)
    return risk


def _related(a: Card, b: Card) -> bool:
    """Could ``a`` and ``b`` stand in one meld (same rank, or same suit and close)?"""
    if a.is_joker or b.is_joker:
        return True
    if a.rank == b.rank:
        return a.suit != b.suit
    if a.suit != b.suit:
        return False
    gap = abs(a.rank - b.rank)
    return gap <= 2 or (1 in (a.rank, b.rank) and gap >= 11)
