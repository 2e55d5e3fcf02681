"""A simple reference player and the server's move for a seat whose time ran out.

The reference player is used by tests, benchmarks and ``romme play``: it lays
what the solver finds once it can open, lays off what fits, and discards its
costliest loose card. It decides from a :class:`~romme.engine.view.SeatView`
alone, one action per call. The computer opponents proper live in
:mod:`romme.bots`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from romme.engine.actions import Action, Discard, Draw, Knock, Lay, LayOff, NextRound
from romme.engine.cards import JOKER, Card
from romme.engine.game import Game, Phase
from romme.engine.legal import discardable_cards, legal_actions
from romme.engine.melds import Meld
from romme.engine.rules import Rules
from romme.engine.scoring import card_penalty
from romme.engine.solver import Arrangement, solve, solve_opening
from romme.engine.view import SeatView

__all__ = [
    "Policy",
    "cheapest_discard",
    "play_game",
    "reference_action",
    "timeout_action",
    "uses_card",
]


def _without(cards: Sequence[Card], card: Card) -> list[Card]:
    rest = list(cards)
    rest.remove(card)
    return rest


def uses_card(hand: Sequence[Card], card: Card, rules: Rules) -> bool:
    """Whether the best arrangement of ``hand + [card]`` puts ``card`` in a meld."""
    arrangement = solve([*hand, card], rules)
    return arrangement.left.count(card) < [*hand, card].count(card)


def cheapest_discard(view: SeatView) -> Card:
    """The card whose loss costs least: the one that leaves the best hand
    (least penalty after solving), never a joker when another card will do;
    among equals the costliest card goes. The seat must have a card it may
    discard (see :func:`~romme.engine.legal.discardable_cards`)."""
    rules = view.rules
    options = discardable_cards(view)
    naturals = [c for c in options if not c.is_joker]
    if naturals:
        options = naturals
    return min(
        options,
        key=lambda c: (
            solve(_without(view.hand, c), rules).penalty,
            -card_penalty(c, rules),
            c.code,
        ),
    )


def timeout_action(view: SeatView) -> Action | None:
    """What the server plays for a seat whose turn time ran out: draw from the
    stock if not drawn yet, then discard the card whose loss costs least.

    It is a legal action whenever it is the seat's turn (``None`` otherwise): the
    server relies on it to move a table on. Should an obligation of the turn block
    every discard, it meets the obligation first (one of the listed legal actions).
    """
    seat = view.seat
    if seat is None or not view.my_turn:
        return None
    if view.phase == "draw":
        return Draw(seat, "stock")
    if discardable_cards(view):
        return Discard(seat, cheapest_discard(view))
    return next(iter(legal_actions(view)), None)


def _lay_action(view: SeatView, arrangement: Arrangement | None) -> Lay | None:
    seat = view.seat
    if arrangement is None or not arrangement.melds or seat is None:
        return None
    melds: list[Meld] = list(arrangement.melds)
    if view.rules.must_discard_to_go_out:
        # Keep a card to discard: leave out the cheapest meld if needed.
        while melds and sum(len(m.cards) for m in melds) >= len(view.hand):
            melds.remove(min(melds, key=lambda m: (m.value, len(m.cards))))
        if not view.opened[seat]:
            total = sum(m.value for m in melds)
            best = max((m.value for m in melds), default=0)
            need = view.rules.opening_points
            if (best if view.rules.opening_single_meld else total) < need:
                return None
    if not melds:
        return None
    return Lay(seat, tuple(m.cards for m in melds))


def _lay_off_action(view: SeatView, loose: Sequence[Card]) -> LayOff | None:
    seat = view.seat
    if seat is None or not view.opened[seat]:
        return None
    if view.rules.must_discard_to_go_out and len(view.hand) <= 1:
        return None
    free_jokers = view.hand.count(JOKER) - view.pending_jokers
    for card in sorted(set(loose), key=lambda c: -card_penalty(c, view.rules)):
        if card.is_joker and free_jokers <= 0:
            continue
        for index, meld in enumerate(view.melds):
            ends = meld.lay_off_ends(card, view.rules)
            if ends:
                return LayOff(seat, card, index, ends[0])
    return None


def reference_action(view: SeatView) -> Action | None:
    """The reference player's next action, or ``None`` if it has nothing to do."""
    seat = view.seat
    if seat is None or view.phase not in ("draw", "play") or not view.active[seat]:
        return None
    rules = view.rules
    hand = view.hand
    if view.phase == "draw":
        top = view.discard_top
        wants_top = top is not None and uses_card(hand, top, rules)
        if seat == view.current:
            return Draw(seat, "discard" if wants_top else "stock")
        if seat in view.knock_seats and wants_top:
            return Knock(seat)
        return None
    if seat != view.current:
        return None
    if view.opened[seat]:
        lay = _lay_action(view, solve(hand, rules))
    else:
        lay = _lay_action(view, solve_opening(hand, rules))
    if lay is not None:
        return lay
    arrangement = solve(hand, rules)
    lay_off = _lay_off_action(view, arrangement.left)
    if lay_off is not None:
        return lay_off
    options = discardable_cards(view)
    loose = [c for c in arrangement.left if c in options and not c.is_joker]
    if loose:
        card = max(loose, key=lambda c: (card_penalty(c, rules), c.code))
        return Discard(seat, card)
    return Discard(seat, cheapest_discard(view))


Policy = Callable[[SeatView], "Action | None"]


def play_game(
    game: Game,
    policies: Sequence[Policy] | Policy = reference_action,
    max_actions: int = 100_000,
    on_action: Callable[[Game, Action], None] | None = None,
) -> list[Action]:
    """Play ``game`` to its end with one policy per seat (or one for all);
    return the actions applied. Between rounds the table deals the next round.
    After each discard, seats that may knock are asked first, in turn order; a
    seat asked out of turn may only knock or pass (``None``). ``on_action`` is
    called after each action is applied."""
    if callable(policies):
        policies = [policies] * game.seats
    applied: list[Action] = []
    while not game.is_over:
        if len(applied) >= max_actions:
            raise RuntimeError("the game did not end")
        action: Action | None = None
        if game.phase in (Phase.NOT_STARTED, Phase.ROUND_OVER):
            action = NextRound()
        else:
            for seat in game.knock_seats():
                wish = policies[seat](game.view_for(seat))
                if isinstance(wish, Knock):
                    action = wish
                    break
                if wish is not None:
                    raise RuntimeError(f"seat {seat} answered {wish!r} out of turn")
            if action is None:
                action = policies[game.current](game.view_for(game.current))
            if action is None:
                raise RuntimeError(f"seat {game.current} did not move")
        game.apply(action)
        applied.append(action)
        if on_action is not None:
            on_action(game, action)
    return applied
