"""Legality: the one place that says whether an action may be taken now.

:func:`check` judges an action against a :class:`~romme.engine.state.GameState`
exactly as :meth:`Game.apply <romme.engine.game.Game.apply>` does (``apply``
calls it before it changes anything), or against a
:class:`~romme.engine.view.SeatView` from what that seat can see. It never
changes what it is given. :func:`legal_actions` lists what a seat may do from
its view alone, and :func:`opening_value` is the opening rule that both use.

>>> from romme.engine.actions import Draw
>>> from romme.engine.game import Game
>>> from romme.engine.rules import Rules
>>> game = Game.start(Rules.classic(), seats=2, seed=bytes(32))
>>> check(game, Draw(1, "stock"))
Traceback (most recent call last):
romme.engine.errors.IllegalAction: it is seat 0's turn
>>> Draw(0, "stock") in legal_actions(game.view_for(0))
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from romme.engine.actions import (
    Action,
    Arrange,
    Discard,
    Draw,
    ExchangeJoker,
    Knock,
    Lay,
    LayOff,
    NextRound,
)
from romme.engine.candidates import candidate_melds
from romme.engine.cards import JOKER, Card
from romme.engine.discards import discard_refusal
from romme.engine.errors import IllegalAction, InvalidMeld
from romme.engine.melds import End, Meld
from romme.engine.rules import Rules
from romme.engine.solver import solve_opening
from romme.engine.state import GameState, Phase
from romme.engine.view import SeatView

__all__ = [
    "Approval",
    "check",
    "discardable_cards",
    "legal_actions",
    "opening_value",
    "opens",
]


@dataclass(frozen=True, slots=True)
class Approval:
    """What checking an action worked out, so that applying it need not work it
    out again: the melds a lay-down makes, or the one meld a lay-off or joker
    exchange leaves, with the end laid off at and the place of the joker."""

    melds: tuple[Meld, ...] = ()
    end: End | None = None
    index: int = 0


_APPROVED = Approval()


# ------------------------------------------------------------------ opening


def opening_value(melds: Sequence[Meld], rules: Rules) -> int:
    """What a first lay-down of these melds counts toward ``rules.opening_points``:
    the best single meld with ``opening_single_meld``, else all of them together."""
    if rules.opening_single_meld:
        return max((m.value for m in melds), default=0)
    return sum(m.value for m in melds)


def opens(melds: Sequence[Meld], rules: Rules) -> bool:
    """Whether laying these melds is enough to open."""
    return opening_value(melds, rules) >= rules.opening_points


# ------------------------------------------------------------------- checks


def check(subject: GameState | SeatView, action: Action) -> Approval:
    """Raise :class:`IllegalAction` (or :class:`InvalidMeld`) if ``action`` may
    not be taken now; otherwise say what it does. Changes nothing.

    Against a game every rule is checked, in the order ``apply`` reports them.
    Against a seat view only that seat's actions are judged: a lay-down
    completely (from the hand, the table and the opening rule), anything else by
    whether :func:`legal_actions` lists it."""
    if isinstance(subject, SeatView):
        return _check_from_view(subject, action)
    return _check_game(subject, action)


def _check_game(state: GameState, action: Action) -> Approval:
    if isinstance(action, NextRound):
        if state.phase is Phase.GAME_OVER:
            raise IllegalAction("the game is over", "game_over")
        if state.in_round:
            raise IllegalAction("a round is in progress", "round_in_progress")
        return _APPROVED
    seat = action.seat
    if not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise IllegalAction(f"there is no seat {seat!r} at this table", "bad_seat")
    if isinstance(action, Arrange):
        if not state.in_round:
            raise IllegalAction("there is no hand to arrange now", "round_over")
        if Counter(action.cards) != Counter(state.hands[seat]):
            raise IllegalAction(
                "an arrangement must hold exactly the cards of your hand", "not_your_hand"
            )
        return _APPROVED
    if isinstance(action, Knock):
        _check_knock(state, seat)
        return _APPROVED
    _check_turn(state.phase, state.active, state.current, seat)
    if isinstance(action, Draw):
        if state.phase is not Phase.DRAW:
            raise IllegalAction("you have already drawn this turn", "already_drew")
        if action.source == "discard":
            if not state.discard:
                raise IllegalAction("the discard pile is empty", "discard_empty")
        elif action.source != "stock":
            raise IllegalAction("draw from 'stock' or 'discard'", "bad_source")
        return _APPROVED
    if state.phase is not Phase.PLAY:
        raise IllegalAction("draw a card first", "must_draw")
    hand = state.hands[seat]
    opened = state.opened[seat]
    rules = state.rules
    pending = state.turn.pending_jokers
    if isinstance(action, Lay):
        return Approval(tuple(_check_lay(hand, opened, rules, action)))
    if isinstance(action, LayOff):
        return _check_lay_off(hand, opened, state.melds, pending, rules, action)
    if isinstance(action, ExchangeJoker):
        return _check_exchange(hand, opened, state.melds, pending, rules, action)
    if isinstance(action, Discard):
        _check_holds(hand, [action.card])
        refusal = discard_refusal(
            hand,
            action.card,
            drew_from_discard=state.turn.drew_from_discard,
            pending_jokers=pending,
            rules=rules,
        )
        if refusal is not None:
            raise refusal
        return _APPROVED
    raise IllegalAction(f"unknown action {action!r}", "unknown_action")


def _check_from_view(view: SeatView, action: Action) -> Approval:
    seat = view.seat
    if seat is None or isinstance(action, NextRound) or action.seat != seat:
        raise IllegalAction("a seat's view judges that seat's own actions only", "bad_seat")
    if isinstance(action, Lay):
        _check_turn(view.phase, view.active, view.current, seat)
        if view.phase != "play":
            raise IllegalAction("draw a card first", "must_draw")
        return Approval(tuple(_check_lay(view.hand, view.opened[seat], view.rules, action)))
    if action not in legal_actions(view):
        raise IllegalAction(f"{action} is not among this seat's legal actions", "illegal_action")
    return _APPROVED


def _check_turn(phase: str, active: Sequence[bool], current: int, seat: int) -> None:
    if phase == Phase.GAME_OVER:
        raise IllegalAction("the game is over", "game_over")
    if phase not in (Phase.DRAW, Phase.PLAY):
        raise IllegalAction("the round is over; wait for the next deal", "round_over")
    if not active[seat]:
        raise IllegalAction("this seat is out of the game", "eliminated")
    if seat != current:
        raise IllegalAction(f"it is seat {current}'s turn", "not_your_turn")


def _check_knock(state: GameState, seat: int) -> None:
    if state.phase is Phase.GAME_OVER:
        raise IllegalAction("the game is over", "game_over")
    if state.knock is None or state.phase is not Phase.DRAW:
        raise IllegalAction("there is nothing to knock on now", "no_knock_window")
    if seat not in state.knock.seats:
        raise IllegalAction(
            "only a player who neither discarded nor is next may knock", "may_not_knock"
        )
    if len(state.stock) < 2:
        raise IllegalAction("the stock has too few cards to knock", "stock_too_small")


def _check_holds(hand: Sequence[Card], cards: Sequence[Card]) -> None:
    have = Counter(hand)
    for card, count in Counter(cards).items():
        if have[card] < count:
            raise IllegalAction(f"you do not hold {card}", "card_not_in_hand")


def _check_keeps_discard(hand: Sequence[Card], laying: int, rules: Rules) -> None:
    if rules.must_discard_to_go_out and laying >= len(hand):
        raise IllegalAction("keep one card: you must discard to go out", "must_keep_discard")


def _check_opened(opened: bool, what: str) -> None:
    if not opened:
        raise IllegalAction(f"you must open before you {what}", "not_opened")


def _table_meld(melds: Sequence[Meld], index: int) -> Meld:
    if not isinstance(index, int) or not 0 <= index < len(melds):
        raise IllegalAction(f"there is no meld {index!r} on the table", "no_such_meld")
    return melds[index]


def _check_lay(hand: Sequence[Card], opened: bool, rules: Rules, action: Lay) -> list[Meld]:
    if not action.melds:
        raise IllegalAction("lay at least one meld", "empty_lay")
    all_cards = [card for meld in action.melds for card in meld]
    _check_holds(hand, all_cards)
    melds = [Meld.check(cards, rules) for cards in action.melds]
    if not opened and not opens(melds, rules):
        need = rules.opening_points
        if rules.opening_single_meld:
            raise IllegalAction(
                f"your first lay-down needs one meld worth {need} points", "opening_too_low"
            )
        raise IllegalAction(
            f"your first lay-down is worth {opening_value(melds, rules)}; it needs {need} points",
            "opening_too_low",
        )
    _check_keeps_discard(hand, len(all_cards), rules)
    return melds


def _check_lay_off(
    hand: Sequence[Card],
    opened: bool,
    melds: Sequence[Meld],
    pending_jokers: int,
    rules: Rules,
    action: LayOff,
) -> Approval:
    card = action.card
    _check_opened(opened, "lay off")
    meld = _table_meld(melds, action.meld)
    _check_holds(hand, [card])
    if card.is_joker and hand.count(JOKER) <= pending_jokers:
        raise IllegalAction(
            "an exchanged joker must go into a new meld or be discarded", "joker_must_be_played"
        )
    try:
        new = meld.with_card(card, action.end, rules)
    except InvalidMeld as exc:
        raise IllegalAction(exc.message, "does_not_fit") from exc
    _check_keeps_discard(hand, 1, rules)
    end = action.end
    if new.kind.value == "sequence" and end is None:
        end = "low" if new.start < meld.start else "high"
    return Approval((new,), end)


def _check_exchange(
    hand: Sequence[Card],
    opened: bool,
    melds: Sequence[Meld],
    pending_jokers: int,
    rules: Rules,
    action: ExchangeJoker,
) -> Approval:
    card = action.card
    _check_opened(opened, "exchange a joker")
    meld = _table_meld(melds, action.meld)
    if card.is_joker:
        raise IllegalAction("exchange a joker for the natural card it stands for", "no_joker_there")
    _check_holds(hand, [card])
    if pending_jokers and not rules.joker_exchange_to_hand:
        raise IllegalAction(
            "play the joker you exchanged before you take another", "joker_must_be_played"
        )
    positions = meld.exchange_positions(card)
    if not positions:
        raise IllegalAction(f"{card} does not replace a joker in {meld}", "no_joker_there")
    index = positions[0] if action.index is None else action.index
    if index not in positions:
        raise IllegalAction(
            f"{card} cannot replace the card at place {index} of {meld}", "no_joker_there"
        )
    return Approval((meld.with_joker_exchanged(card, index),), None, index)


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
        opening = solve_opening(hand, rules)
        if opening is not None:
            count = sum(len(m.cards) for m in opening.melds)
            if may_lay(count):
                actions.append(Lay(seat, tuple(m.cards for m in opening.melds)))
        for meld in melds:
            if opens((meld,), rules) and may_lay(len(meld.cards)):
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
