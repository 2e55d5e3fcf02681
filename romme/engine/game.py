"""The state machine of a whole match: deal, turns, opening, laying off, joker
exchange, knock, going out, scoring, elimination and the end of the game.

A :class:`Game` changes only through :meth:`Game.apply`, which checks the action
completely before it changes anything: an illegal action raises an
:class:`~romme.engine.errors.IllegalAction` (or :class:`~romme.engine.errors.InvalidMeld`)
with a stable code, and leaves the game as it was. A game is fully described by
its rules, its seat count, its match seed and the actions applied, so
:meth:`Game.replay` rebuilds it exactly.

>>> from romme.engine.rules import Rules
>>> game = Game.start(Rules.classic(), seats=2, seed=bytes(32))
>>> game.phase, game.current, len(game.hands[0])
(<Phase.DRAW: 'draw'>, 0, 13)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

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
    action_from_json,
)
from romme.engine.cards import JOKER, Card
from romme.engine.errors import IllegalAction, InvalidMeld, NotationError
from romme.engine.events import (
    Discarded,
    Drew,
    Ended,
    Event,
    GameEnded,
    HandArranged,
    HandDealt,
    HistoryEntry,
    JokerExchanged,
    Knocked,
    Laid,
    LaidOff,
    Restocked,
    RoundEnded,
    RoundResult,
    RoundStarted,
    TurnStarted,
)
from romme.engine.fairness import (
    commitment_of,
    deal_from_seed,
    restock_seed,
    round_seed,
    shuffled,
)
from romme.engine.legal import check, legal_actions
from romme.engine.melds import End, Meld
from romme.engine.rules import Rules
from romme.engine.scoring import hand_penalty
from romme.engine.state import GameState, KnockWindow, Phase, TurnInfo
from romme.engine.view import SeatView, view_for

__all__ = ["Game", "HiddenCards", "HistoryEntry", "KnockWindow", "Phase", "TurnInfo"]


@dataclass(frozen=True, slots=True)
class HiddenCards:
    """One placing of the cards a seat's view does not show, for
    :meth:`Game.determinise`: every hand (the viewing seat's as the view shows
    it), the stock (the next card drawn last), the discard pile (its top last),
    and the two seeds that stand in for the unknown shuffles."""

    hands: list[list[Card]]
    stock: list[Card]
    discard: list[Card]
    seed: bytes
    """The match seed of the sampled game."""
    round_seed: bytes
    """The round seed of the sampled game (it shuffles a stock rebuild)."""


class Game(GameState):
    """A match of Rommé for 2 to 4 seats. Seats are numbered 0..n-1 in turn
    order (the next seat is to the left). Its fields are those of
    :class:`~romme.engine.state.GameState`."""

    def __init__(
        self, rules: Rules, seats: int, seed: bytes, first_dealer: int | None = None
    ) -> None:
        self._adopt(GameState.fresh(rules, seats, seed, first_dealer))

    def _adopt(self, state: GameState) -> None:
        """Take every field of ``state`` (which must not be used any more)."""
        self.__dict__.update(vars(state))

    @classmethod
    def from_state(cls, state: GameState) -> Game:
        """The game in ``state`` (which becomes the game's own: copy it first
        with :meth:`~romme.engine.state.GameState.copy_state` to keep it)."""
        game = cls.__new__(cls)
        game._adopt(state)
        return game

    # ------------------------------------------------------------- creation

    @classmethod
    def start(cls, rules: Rules, seats: int, seed: bytes, first_dealer: int | None = None) -> Game:
        """A new game with its first round dealt."""
        game = cls(rules, seats, seed, first_dealer)
        game.apply(NextRound())
        return game

    @classmethod
    def replay(
        cls,
        rules: Rules,
        seats: int,
        seed: bytes,
        actions: Iterable[Action],
        first_dealer: int | None = None,
    ) -> Game:
        """The game these actions make from a new table (``NextRound`` first)."""
        game = cls(rules, seats, seed, first_dealer)
        for action in actions:
            game.apply(action)
        return game

    @classmethod
    def determinise(cls, view: SeatView, hidden: HiddenCards) -> Game:
        """A game that agrees with everything ``view`` shows, its hidden cards
        placed as ``hidden`` says (the computer opponents search such games; a
        test can build an exact position this way). Refuses a spectator's view,
        a view outside a round, and hands or a stock whose sizes the view
        contradicts."""
        seat = view.seat
        if seat is None or view.phase not in ("draw", "play"):
            raise ValueError("only a seat's view during a round can be determinised")
        if [len(h) for h in hidden.hands] != list(view.hand_counts):
            raise ValueError("the hands do not have the sizes the view shows")
        if tuple(hidden.hands[seat]) != view.hand:
            raise ValueError("the seat's own hand must be the one the view shows")
        if len(hidden.stock) != view.stock_count:
            raise ValueError("the stock does not have the size the view shows")
        knock = None
        if view.knock_seats and view.history and view.phase == "draw":
            knock = KnockWindow(view.history[-1].seat, view.current, view.knock_seats)
        return cls.from_state(
            GameState(
                rules=view.rules,
                seats=view.seats,
                seed=hidden.seed,
                first_dealer=view.dealer,
                version=view.version,
                phase=Phase(view.phase),
                round_no=view.round_no,
                dealer=view.dealer,
                current=view.current,
                hands=hidden.hands,
                stock=hidden.stock,
                discard=hidden.discard,
                melds=list(view.melds),
                meld_owners=list(view.meld_owners),
                opened=list(view.opened),
                totals=list(view.totals),
                active=list(view.active),
                turn=TurnInfo(view.drew_from_discard, view.opened_before, view.pending_jokers),
                knock=knock,
                restocks=view.restocks,
                stall=view.stall,
                round_seed=hidden.round_seed,
                commitment=view.commitment,
                history=list(view.history),
                results=list(view.results),
                winners=tuple(view.winners),
            )
        )

    def clone(self) -> Game:
        """An independent copy."""
        return Game.from_state(self.copy_state())

    # -------------------------------------------------------------- queries

    def scores(self) -> tuple[int, ...]:
        """Elimination: the penalty totals. Rounds scoring: minus the totals."""
        if self.rules.scoring == "rounds":
            return tuple(-t for t in self.totals)
        return tuple(self.totals)

    def view_for(self, seat: int | None) -> SeatView:
        """What ``seat`` (or a spectator, ``None``) may see: see :mod:`romme.engine.view`."""
        return view_for(self, seat)

    def legal_actions(self, seat: int | None) -> list[Action]:
        """The actions ``seat`` may take now (see :func:`romme.engine.legal.legal_actions`);
        for ``None``, the table's ``NextRound`` between rounds."""
        actions = legal_actions(self.view_for(seat))
        if seat is None and self.phase in (Phase.NOT_STARTED, Phase.ROUND_OVER):
            actions.append(NextRound())
        return actions

    def is_legal(self, action: Action) -> bool:
        """Whether :meth:`apply` would take ``action`` now (it changes nothing:
        see :func:`romme.engine.legal.check`)."""
        try:
            check(self, action)
        except (IllegalAction, InvalidMeld):
            return False
        return True

    # ---------------------------------------------------------------- apply

    def apply(self, action: Action) -> list[Event]:
        """Apply one action; return its events (unfiltered: use
        ``event.for_seat`` before telling anyone). An action that
        :func:`~romme.engine.legal.check` refuses raises and changes nothing."""
        approval = check(self, action)
        if isinstance(action, NextRound):
            events = self._next_round()
        elif isinstance(action, Arrange):
            events = self._arrange(action)
        elif isinstance(action, Knock):
            events = self._knock(action)
        elif isinstance(action, Draw):
            events = self._draw(action)
        elif isinstance(action, Lay):
            events = self._lay(action, approval.melds)
        elif isinstance(action, LayOff):
            events = self._lay_off(action, approval.melds[0], approval.end)
        elif isinstance(action, ExchangeJoker):
            events = self._exchange(action, approval.melds[0], approval.index)
        else:
            events = self._discard(action)
        self.version += 1
        return events

    # ---------------------------------------------------------------- round

    def _next_round(self) -> list[Event]:
        if self.round_no > 0 or not self.active[self.dealer]:
            self.dealer = self.next_active(self.dealer)
        self.round_no += 1
        self.round_seed = round_seed(self.seed, self.round_no)
        self.commitment = commitment_of(self.round_seed)
        order = []
        seat = self.dealer
        for _ in range(len(self.active_seats())):
            seat = self.next_active(seat)
            order.append(seat)
        deal = deal_from_seed(self.round_seed, len(order), self.rules.hand_size)
        self.hands = [[] for _ in range(self.seats)]
        for seat, cards in zip(order, deal.hands, strict=True):
            self.hands[seat] = list(cards)
        self.discard = [deal.upcard]
        self.stock = list(reversed(deal.stock))
        self.melds = []
        self.meld_owners = []
        self.opened = [False] * self.seats
        self.restocks = 0
        self.stall = 0
        self.knock = None
        self.history = []
        self.current = order[0]
        self.phase = Phase.DRAW
        self.turn = TurnInfo(opened_before=False)
        events: list[Event] = [
            RoundStarted(
                round_no=self.round_no,
                dealer=self.dealer,
                first=self.current,
                commitment=self.commitment,
                hand_sizes=tuple(len(h) for h in self.hands),
                upcard=deal.upcard,
                stock_count=len(self.stock),
            )
        ]
        events.extend(HandDealt(seat, tuple(self.hands[seat])) for seat in order)
        events.append(TurnStarted(self.current))
        return events

    def _begin_turn(self, seat: int) -> list[Event]:
        """Hand the turn to ``seat``; rebuild the stock or end the round if it is empty."""
        self.current = seat
        self.phase = Phase.DRAW
        self.turn = TurnInfo(opened_before=self.opened[seat])
        events: list[Event] = []
        if self.rules.stall_turns and self.stall >= self.rules.stall_turns:
            return self._end_round(winner=None, hand_rummy=False, ended="stall")
        if not self.stock:
            if self.restocks < self.rules.max_restocks and len(self.discard) > 1:
                self.restocks += 1
                top = self.discard[-1]
                self.stock = shuffled(
                    self.discard[:-1], restock_seed(self.round_seed, self.restocks)
                )
                self.discard = [top]
                events.append(Restocked(self.restocks, len(self.stock)))
            else:
                return events + self._end_round(winner=None, hand_rummy=False, ended="stock")
        events.append(TurnStarted(seat))
        return events

    def _end_round(self, winner: int | None, hand_rummy: bool, ended: Ended = "out") -> list[Event]:
        multiplier = self.rules.hand_rummy_multiplier if hand_rummy else 1
        penalties = [0] * self.seats
        if winner is not None:
            for seat in self.active_seats():
                if seat != winner:
                    penalties[seat] = hand_penalty(self.hands[seat], self.rules) * multiplier
        in_round = self.active_seats()
        for seat in in_round:
            self.totals[seat] += penalties[seat]
        eliminated: tuple[int, ...] = ()
        winners: tuple[int, ...] = ()
        if self.rules.scoring == "elimination":
            over = [s for s in in_round if self.totals[s] > self.rules.point_limit]
            remaining = [s for s in in_round if s not in over]
            eliminated = tuple(over)
            if len(remaining) == 1:
                winners = (remaining[0],)
            elif not remaining:
                best = min(self.totals[s] for s in in_round)
                winners = tuple(s for s in in_round if self.totals[s] == best)
            else:
                for seat in over:
                    self.active[seat] = False
        elif self.round_no >= self.rules.rounds:
            best = min(self.totals[s] for s in in_round)
            winners = tuple(s for s in in_round if self.totals[s] == best)
        result = RoundResult(
            round_no=self.round_no,
            winner=winner,
            hand_rummy=hand_rummy,
            penalties=tuple(penalties),
            totals=tuple(self.totals),
            hands=tuple(tuple(h) for h in self.hands),
            eliminated=eliminated,
            seed=self.round_seed.hex(),
            commitment=self.commitment,
            ended=ended,
        )
        self.results.append(result)
        self.knock = None
        events: list[Event] = [RoundEnded(result)]
        if winners:
            self.winners = winners
            self.phase = Phase.GAME_OVER
            events.append(GameEnded(winners, tuple(self.totals)))
        else:
            self.phase = Phase.ROUND_OVER
        return events

    def _went_out(self, seat: int) -> list[Event]:
        hand_rummy = self.rules.hand_rummy and not self.turn.opened_before
        return self._end_round(winner=seat, hand_rummy=hand_rummy)

    # ---------------------------------------------------------------- moves

    def _draw(self, action: Draw) -> list[Event]:
        seat = action.seat
        if action.source == "discard":
            card = self.discard.pop()
            self.turn.drew_from_discard = card
            self.stall += 1
            self.history.append(HistoryEntry(seat, "draw_discard", (card,)))
        else:
            card = self.stock.pop()
            self.stall = 0
            self.history.append(HistoryEntry(seat, "draw_stock"))
        self.hands[seat].append(card)
        self.phase = Phase.PLAY
        self.knock = None
        return [Drew(seat, action.source, card)]

    def _lay(self, action: Lay, melds: Sequence[Meld]) -> list[Event]:
        seat = action.seat
        all_cards = [card for meld in action.melds for card in meld]
        opening = not self.opened[seat]
        hand = self.hands[seat]
        for card in all_cards:
            hand.remove(card)
        first = len(self.melds)
        self.melds.extend(melds)
        self.meld_owners.extend([seat] * len(melds))
        self.opened[seat] = True
        laid_jokers = sum(m.jokers for m in melds)
        self.turn.pending_jokers = max(0, self.turn.pending_jokers - laid_jokers)
        self.history.append(HistoryEntry(seat, "lay", tuple(all_cards)))
        events: list[Event] = [Laid(seat, tuple(melds), first, opening)]
        if not hand:
            events.extend(self._went_out(seat))
        return events

    def _lay_off(self, action: LayOff, new: Meld, end: End | None) -> list[Event]:
        seat, card = action.seat, action.card
        self.melds[action.meld] = new
        self.hands[seat].remove(card)
        self.history.append(HistoryEntry(seat, "lay_off", (card,)))
        events: list[Event] = [LaidOff(seat, card, action.meld, end, new)]
        if not self.hands[seat]:
            events.extend(self._went_out(seat))
        return events

    def _exchange(self, action: ExchangeJoker, new: Meld, index: int) -> list[Event]:
        seat, card = action.seat, action.card
        self.melds[action.meld] = new
        hand = self.hands[seat]
        hand.remove(card)
        hand.append(JOKER)
        if not self.rules.joker_exchange_to_hand:
            self.turn.pending_jokers += 1
        self.history.append(HistoryEntry(seat, "exchange_joker", (card,)))
        return [JokerExchanged(seat, card, action.meld, index, new)]

    def _discard(self, action: Discard) -> list[Event]:
        seat, card = action.seat, action.card
        hand = self.hands[seat]
        hand.remove(card)
        self.discard.append(card)
        self.history.append(HistoryEntry(seat, "discard", (card,)))
        if not hand:
            return [Discarded(seat, card, ()), *self._went_out(seat)]
        next_seat = self.next_active(seat)
        self.knock = None
        turn_events = self._begin_turn(next_seat)
        knock_seats: tuple[int, ...] = ()
        if (
            self.phase is Phase.DRAW
            and len(self.stock) >= 2
            and self.rules.knock_possible(len(self.active_seats()))
        ):
            knock_seats = tuple(s for s in self.active_seats() if s not in (seat, next_seat))
            self.knock = KnockWindow(seat, next_seat, knock_seats)
        return [Discarded(seat, card, knock_seats), *turn_events]

    def _knock(self, action: Knock) -> list[Event]:
        seat = action.seat
        assert self.knock is not None  # checked
        card = self.discard.pop()
        drawn = (self.stock.pop(), self.stock.pop())
        self.stall = 0
        self.hands[seat].extend((card, *drawn))
        skipped = []
        step = self.knock.next_seat
        while step != seat:
            skipped.append(step)
            step = self.next_active(step)
        self.knock = None
        self.current = seat
        self.phase = Phase.PLAY
        self.turn = TurnInfo(drew_from_discard=card, opened_before=self.opened[seat])
        self.history.append(HistoryEntry(seat, "knock", (card,)))
        return [Knocked(seat, card, drawn, tuple(skipped))]

    def _arrange(self, action: Arrange) -> list[Event]:
        self.hands[action.seat] = list(action.cards)
        return [HandArranged(action.seat, tuple(action.cards))]

    # ----------------------------------------------------------------- JSON

    @classmethod
    def from_json(cls, data: Any) -> Game:
        """A state written by :meth:`~romme.engine.state.GameState.to_json`;
        checks that all 110 cards are there."""
        return cls.from_state(GameState.state_from_json(data))

    @staticmethod
    def actions_from_json(data: Any) -> list[Action]:
        if not isinstance(data, list):
            raise NotationError("actions are a JSON list")
        return [action_from_json(a) for a in data]
