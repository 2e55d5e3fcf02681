"""The strong level: a player who counts cards and watches the others.

* It counts what it has not seen (its hand, the table, the discard pile as it
  went, the cards others took from the pile) and values a loose card by how many
  cards that would meld it are still out there (:mod:`romme.bots.evaluate`).
* It remembers what each opponent took from and threw on the discard pile, and
  avoids throwing what the next player wants: cards that fit the table once that
  player has opened, or that join the cards it is known to hold.
* It takes the top of the discard pile when that improves its hand clearly.
* It times its opening: it holds a complete hand back for a hand rummy when it
  is one card away, nobody is close to going out and the stock is deep.
* It exchanges jokers, and knocks (tables with knock) on a card it can use. A
  card that can take a joker off the table (classic) is worth keeping, and
  worth taking from the discard pile.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from romme.bots.base import BaseBot, Decision, discardable
from romme.bots.evaluate import (
    Style,
    arrangement,
    expected_draws,
    fits_table,
    hand_score,
    opening,
    without,
)
from romme.bots.knowledge import Knowledge, read_knowledge
from romme.bots.playbook import (
    can_lay_all,
    exchange_options,
    feed_risk,
    lay_melds,
    lay_off_options,
    next_seat,
    takes_a_joker,
)
from romme.engine.actions import Discard, Draw, Knock
from romme.engine.cards import JOKER, Card
from romme.engine.melds import Meld
from romme.engine.scoring import card_penalty
from romme.engine.solver import Arrangement
from romme.engine.view import SeatView

__all__ = ["Context", "StrongBot", "rank_discards"]

EXCHANGE_VALUE = 1.0
"""A loose natural card that can take a joker off the table, where the joker goes
to the hand (classic): worth this much, in loose cards, once the seat has opened
(half before). The joker it brings home fits almost any pair and is laid off to
go out, so a card that frees one is the best card a seat can hold."""


@dataclass(frozen=True, slots=True)
class Context:
    """What the strong level works out once per decision."""

    know: Knowledge
    style: Style
    single_round: bool
    """Only going out counts (a one-round table): penalties matter little."""
    others: tuple[int, ...]
    """The hand counts of the other seats still in the round."""


def make_context(view: SeatView, base: Style | None = None) -> Context:
    seat = view.seat
    assert seat is not None
    know = read_knowledge(view)
    active = max(1, sum(1 for a in view.active if a))
    others = tuple(view.hand_counts[s] for s in range(view.seats) if s != seat and view.active[s])
    nearest = min(others, default=13)
    draws = expected_draws(view.stock_count, active, nearest)
    single_round = view.rules.single_round()
    style = base or Style()
    weight = 0.004 if single_round else style.penalty_weight
    # Late in the round the cards in hand are what will be counted.
    if not single_round and nearest <= 4:
        weight *= 2.5
    style = replace(style, draws_left=draws, penalty_weight=weight)
    return Context(know, style, single_round, others)


def score_hand(
    view: SeatView, ctx: Context, hand: Sequence[Card], arr: Arrangement | None = None
) -> float:
    seat = view.seat
    assert seat is not None
    rules = view.rules
    arr = arr if arr is not None else arrangement(hand, rules)
    value = hand_score(hand, rules, ctx.know.unseen, view.melds, view.opened[seat], ctx.style, arr)
    if rules.joker_exchange_to_hand and view.melds:
        value += exchange_bonus(view, arr.left)
    return value


def frees_joker(card: Card, view: SeatView) -> bool:
    """Whether the natural ``card`` can replace a joker in a meld on the table."""
    return takes_a_joker(card, view.melds)


def exchange_bonus(view: SeatView, loose: Sequence[Card]) -> float:
    """What the loose cards that can take a joker off the table add to a hand
    (:data:`EXCHANGE_VALUE` each, distinct cards; half before the seat has opened)."""
    seat = view.seat
    assert seat is not None
    weight = EXCHANGE_VALUE if view.opened[seat] else EXCHANGE_VALUE / 2
    return weight * sum(1 for card in set(loose) if frees_joker(card, view))


def rank_discards(view: SeatView, ctx: Context) -> list[tuple[float, Card]]:
    """The cards the seat may discard, best first, with their value (the hand
    left behind, less the risk of feeding the next player)."""
    options = discardable(view)
    naturals = [c for c in options if not c.is_joker]
    if naturals:
        options = naturals
    rules = view.rules
    ranked: list[tuple[float, Card]] = []
    for card in options:
        rest = without(view.hand, card)
        value = score_hand(view, ctx, rest, arrangement(rest, rules))
        value -= ctx.style.risk_weight * feed_risk(view, ctx.know, card)
        ranked.append((value, card))
    ranked.sort(key=lambda item: (-item[0], -card_penalty(item[1], rules), item[1].code))
    return ranked


class StrongBot(BaseBot):
    level = "strong"
    style = Style()

    def context(self, view: SeatView) -> Context:
        return make_context(view, self.style)

    # ------------------------------------------------------------------ knock

    def knock(self, view: SeatView, rng: random.Random) -> Decision | None:
        seat = view.seat
        top = view.discard_top
        if seat is None or top is None:
            return None
        ctx = self.context(view)
        gain = self.take_gain(view, ctx, top)
        if top.is_joker or gain > ctx.style.take_margin + 0.4:
            return Decision(Knock(seat), f"knock: {top} is worth a free turn")
        return None

    # ------------------------------------------------------------------- draw

    def take_gain(self, view: SeatView, ctx: Context, top: Card) -> float:
        """How much better the hand gets by taking ``top`` (after the best discard)
        than it is now."""
        rules = view.rules
        hand = list(view.hand)
        now = score_hand(view, ctx, hand)
        with_top = [*hand, top]
        best = -1e9
        for card in sorted(set(hand)):
            if card == top and with_top.count(card) == 1:
                continue
            if card.is_joker:
                continue
            rest = without(with_top, card)
            value = score_hand(view, ctx, rest, arrangement(rest, rules))
            best = max(best, value - ctx.style.risk_weight * feed_risk(view, ctx.know, card))
        return best - now

    def draw(self, view: SeatView, rng: random.Random) -> Decision:
        seat = view.seat
        assert seat is not None
        top = view.discard_top
        if top is None:
            return Decision(Draw(seat, "stock"), "draw from the stock")
        if top.is_joker and any(not c.is_joker for c in view.hand):
            return Decision(Draw(seat, "discard"), "take the joker")
        ctx = self.context(view)
        gain = self.take_gain(view, ctx, top)
        if gain > ctx.style.take_margin:
            if _melds(view.hand, top, view):
                why = "it completes a meld"
            elif view.rules.joker_exchange_to_hand and frees_joker(top, view):
                why = "it takes a joker off the table"
            elif fits_table(top, view.melds, view.rules):
                why = "it fits the table"
            else:
                why = "it makes a good pair"
            return Decision(Draw(seat, "discard"), f"take {top}: {why}")
        return Decision(Draw(seat, "stock"), f"draw from the stock: {top} does not help")

    # ------------------------------------------------------------------- play

    def should_hold(self, view: SeatView, ctx: Context, opener: Arrangement) -> bool:
        """Hold an opening back for a hand rummy? Only when the hand is one card
        from going out in one turn and nobody looks close."""
        seat = view.seat
        assert seat is not None
        rules = view.rules
        if not rules.hand_rummy:
            return False
        arr = arrangement(view.hand, rules)
        loose = len(arr.left)
        # Going out now is a hand rummy anyway: do it.
        if loose <= 1 or can_lay_all(view, arr):
            return False
        if loose > 2:
            return False
        if view.stock_count < 12:
            return False
        for s in range(view.seats):
            if s == seat or not view.active[s]:
                continue
            if view.hand_counts[s] <= 7 or (view.opened[s] and view.hand_counts[s] <= 9):
                return False
        # One card to throw, one to wait for: wait only if it has enough outs.
        ranked = rank_discards(view, ctx)
        return bool(ranked) and ranked[0][0] > -0.75

    def play(self, view: SeatView, rng: random.Random) -> Decision:
        seat = view.seat
        assert seat is not None
        rules = view.rules
        hand = view.hand
        ctx = self.context(view)
        if not view.opened[seat]:
            opener = opening(hand, rules)
            if opener is not None and not self.should_hold(view, ctx, opener):
                melds = self.opening_melds(view, ctx, opener)
                lay = lay_melds(view, melds)
                if lay is not None:
                    return Decision(lay, f"open with {sum(m.value for m in melds)} points")
        else:
            arr = arrangement(hand, rules)
            swaps = exchange_options(view, arr.left)
            if swaps:
                swap = swaps[0]
                return Decision(swap, f"take the joker for {swap.card}")
            lay = None if self.keeps_new_melds(view, ctx, arr) else lay_melds(view, arr.melds)
            if lay is not None:
                return Decision(lay, "lay the melds")
        arr = arrangement(hand, rules)
        offs = lay_off_options(view, arr.left)
        if offs:
            why = " to go out" if offs[0].card.is_joker else ""
            return Decision(offs[0], f"lay off {offs[0].card}{why}")
        return self.discard(view, ctx, rng)

    def opening_melds(self, view: SeatView, ctx: Context, opener: Arrangement) -> Sequence[Meld]:
        """The melds of the opening ``opener`` to lay when the seat opens: the
        strong level lays them all."""
        return opener.melds

    def keeps_new_melds(self, view: SeatView, ctx: Context, arr: Arrangement) -> bool:
        """Once opened, keep the new melds of the arrangement ``arr`` in hand this
        turn? The strong level never does: melds laid count nothing against it."""
        return False

    def discard(self, view: SeatView, ctx: Context, rng: random.Random) -> Decision:
        seat = view.seat
        assert seat is not None
        ranked = rank_discards(view, ctx)
        card = ranked[0][1]
        return Decision(Discard(seat, card), _discard_reason(view, ctx, card))


def _melds(hand: Sequence[Card], card: Card, view: SeatView) -> bool:
    with_card = [*hand, card]
    arr = arrangement(with_card, view.rules)
    return arr.left.count(card) < with_card.count(card)


def _discard_reason(view: SeatView, ctx: Context, card: Card) -> str:
    seat = view.seat
    assert seat is not None
    arr = arrangement(view.hand, view.rules)
    if card.is_joker:
        return "throw the joker: it must go"
    if card not in arr.left:
        return f"throw {card}: breaking that meld costs least"
    target = next_seat(view, seat)
    if ctx.know.unseen[card] == 0 and all(ctx.know.unseen[c] == 0 for c in _same_rank(card)):
        return f"throw {card}: the cards it needs are gone"
    if view.opened[target] and not fits_table(card, view.melds, view.rules):
        return f"throw {card}: it is loose and the next player cannot lay it off"
    return f"throw {card}: the loosest card ({card_penalty(card, view.rules)} points)"


def _same_rank(card: Card) -> list[Card]:
    if card.is_joker:
        return [JOKER]
    from romme.engine.cards import Suit

    return [Card.natural(card.rank, s) for s in Suit if s != card.suit]
