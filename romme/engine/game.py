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

import enum
from collections import Counter
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
from romme.engine.cards import JOKER, Card, parse_cards, shoe_counter
from romme.engine.codec import decode_value, restore_meld
from romme.engine.discards import discard_refusal
from romme.engine.errors import IllegalAction, InvalidMeld, NotationError
from romme.engine.events import (
    Discarded,
    Drew,
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
from romme.engine.melds import Meld
from romme.engine.rules import Rules
from romme.engine.scoring import hand_penalty

__all__ = ["Game", "HistoryEntry", "KnockWindow", "Phase", "TurnInfo"]


class Phase(str, enum.Enum):
    NOT_STARTED = "not_started"
    DRAW = "draw"
    """The current seat must draw (or, with the knock, someone may knock)."""
    PLAY = "play"
    """The current seat has drawn: it may lay, lay off, exchange, and must discard."""
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


@dataclass(slots=True)
class TurnInfo:
    """What the current turn has done so far."""

    drew_from_discard: Card | None = None
    opened_before: bool = False
    """Had the seat opened when this turn began? (for hand rummy)"""
    pending_jokers: int = 0
    """Exchanged jokers that must still be laid in a new meld or discarded."""

    def copy(self) -> TurnInfo:
        return TurnInfo(self.drew_from_discard, self.opened_before, self.pending_jokers)


@dataclass(frozen=True, slots=True)
class KnockWindow:
    """Open after a discard until the next player draws."""

    discarder: int
    next_seat: int
    seats: tuple[int, ...]
    """Who may knock."""


def _remove(hand: list[Card], cards: Iterable[Card]) -> None:
    for card in cards:
        hand.remove(card)


def _holds(hand: Sequence[Card], cards: Sequence[Card]) -> Card | None:
    """The first card of ``cards`` that ``hand`` does not hold often enough."""
    need = Counter(cards)
    have = Counter(hand)
    for card, count in need.items():
        if have[card] < count:
            return card
    return None


class Game:
    """A match of Rommé for 2 to 4 seats. Seats are numbered 0..n-1 in turn
    order (the next seat is to the left)."""

    def __init__(
        self, rules: Rules, seats: int, seed: bytes, first_dealer: int | None = None
    ) -> None:
        if not rules.min_seats <= seats <= rules.max_seats:
            raise ValueError(f"this table plays with {rules.min_seats} to {rules.max_seats} seats")
        if not isinstance(seed, bytes) or len(seed) < 16:
            raise ValueError("the match seed must be at least 16 bytes")
        self.rules = rules
        self.seats = seats
        self.seed = seed
        self.first_dealer = seats - 1 if first_dealer is None else first_dealer
        if not 0 <= self.first_dealer < seats:
            raise ValueError("first_dealer must be a seat")
        self.version = 0
        self.phase = Phase.NOT_STARTED
        self.round_no = 0
        self.dealer = self.first_dealer
        self.current = 0
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.stock: list[Card] = []
        """The stock; the next card drawn is the last one."""
        self.discard: list[Card] = []
        """The discard pile; its top is the last card."""
        self.melds: list[Meld] = []
        self.meld_owners: list[int] = []
        self.opened = [False] * seats
        self.totals = [0] * seats
        self.active = [True] * seats
        """Seats still in the game (not eliminated)."""
        self.turn = TurnInfo()
        self.knock: KnockWindow | None = None
        self.restocks = 0
        self.stall = 0
        """Turns in a row, this round, whose draw did not take a card from the stock."""
        self.round_seed = b""
        self.commitment = ""
        self.history: list[HistoryEntry] = []
        self.results: list[RoundResult] = []
        self.winners: tuple[int, ...] = ()

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

    def clone(self) -> Game:
        """An independent copy."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.discard = list(self.discard)
        other.melds = list(self.melds)
        other.meld_owners = list(self.meld_owners)
        other.opened = list(self.opened)
        other.totals = list(self.totals)
        other.active = list(self.active)
        other.turn = self.turn.copy()
        other.history = list(self.history)
        other.results = list(self.results)
        return other

    # -------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def in_round(self) -> bool:
        return self.phase in (Phase.DRAW, Phase.PLAY)

    def active_seats(self) -> list[int]:
        return [s for s in range(self.seats) if self.active[s]]

    def next_active(self, seat: int) -> int:
        """The next seat still in the game to the left of ``seat``."""
        for step in range(1, self.seats + 1):
            candidate = (seat + step) % self.seats
            if self.active[candidate]:
                return candidate
        raise IllegalAction("nobody is left at the table", "game_over")

    def scores(self) -> tuple[int, ...]:
        """Elimination: the penalty totals. Rounds scoring: minus the totals."""
        if self.rules.scoring == "rounds":
            return tuple(-t for t in self.totals)
        return tuple(self.totals)

    def knock_seats(self) -> tuple[int, ...]:
        if self.knock is None or self.phase is not Phase.DRAW or len(self.stock) < 2:
            return ()
        return self.knock.seats

    def view_for(self, seat: int | None) -> Any:
        """What ``seat`` (or a spectator, ``None``) may see: see :mod:`romme.engine.view`."""
        from romme.engine.view import view_for

        return view_for(self, seat)

    def legal_actions(self, seat: int | None) -> list[Action]:
        """The actions ``seat`` may take now (see :func:`romme.engine.view.legal_actions`)."""
        from romme.engine.view import legal_actions

        actions = legal_actions(self.view_for(seat))
        if seat is None and self.phase in (Phase.NOT_STARTED, Phase.ROUND_OVER):
            actions.append(NextRound())
        return actions

    def is_legal(self, action: Action) -> bool:
        try:
            self.clone().apply(action)
        except (IllegalAction, InvalidMeld):
            return False
        return True

    def card_count(self) -> Counter[Card]:
        """Every card in the round, wherever it lies (for invariant checks)."""
        total: Counter[Card] = Counter(self.stock)
        total.update(self.discard)
        for hand in self.hands:
            total.update(hand)
        for meld in self.melds:
            total.update(meld.cards)
        return total

    # ---------------------------------------------------------------- apply

    def apply(self, action: Action) -> list[Event]:
        """Apply one action; return its events (unfiltered: use
        ``event.for_seat`` before telling anyone)."""
        if isinstance(action, NextRound):
            events = self._next_round()
        else:
            seat = action.seat
            if not isinstance(seat, int) or not 0 <= seat < self.seats:
                raise IllegalAction(f"there is no seat {seat!r} at this table", "bad_seat")
            if isinstance(action, Arrange):
                events = self._arrange(action)
            elif isinstance(action, Knock):
                events = self._knock(action)
            else:
                self._check_turn(seat)
                if isinstance(action, Draw):
                    events = self._draw(action)
                elif self.phase is not Phase.PLAY:
                    raise IllegalAction("draw a card first", "must_draw")
                elif isinstance(action, Lay):
                    events = self._lay(action)
                elif isinstance(action, LayOff):
                    events = self._lay_off(action)
                elif isinstance(action, ExchangeJoker):
                    events = self._exchange(action)
                elif isinstance(action, Discard):
                    events = self._discard(action)
                else:
                    raise IllegalAction(f"unknown action {action!r}", "unknown_action")
        self.version += 1
        return events

    def _check_turn(self, seat: int) -> None:
        if self.phase is Phase.GAME_OVER:
            raise IllegalAction("the game is over", "game_over")
        if not self.in_round:
            raise IllegalAction("the round is over; wait for the next deal", "round_over")
        if not self.active[seat]:
            raise IllegalAction("this seat is out of the game", "eliminated")
        if seat != self.current:
            raise IllegalAction(f"it is seat {self.current}'s turn", "not_your_turn")

    # ---------------------------------------------------------------- round

    def _next_round(self) -> list[Event]:
        if self.phase is Phase.GAME_OVER:
            raise IllegalAction("the game is over", "game_over")
        if self.in_round:
            raise IllegalAction("a round is in progress", "round_in_progress")
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

    def _end_round(self, winner: int | None, hand_rummy: bool, ended: str = "out") -> list[Event]:
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
        if self.phase is not Phase.DRAW:
            raise IllegalAction("you have already drawn this turn", "already_drew")
        if action.source == "discard":
            if not self.discard:
                raise IllegalAction("the discard pile is empty", "discard_empty")
            card = self.discard.pop()
            self.turn.drew_from_discard = card
            self.stall += 1
            self.history.append(HistoryEntry(seat, "draw_discard", (card,)))
        elif action.source == "stock":
            card = self.stock.pop()
            self.stall = 0
            self.history.append(HistoryEntry(seat, "draw_stock"))
        else:
            raise IllegalAction("draw from 'stock' or 'discard'", "bad_source")
        self.hands[seat].append(card)
        self.phase = Phase.PLAY
        self.knock = None
        return [Drew(seat, action.source, card)]

    def _check_hand(self, seat: int, cards: Sequence[Card]) -> None:
        missing = _holds(self.hands[seat], cards)
        if missing is not None:
            raise IllegalAction(f"you do not hold {missing}", "card_not_in_hand")

    def _check_keeps_discard(self, seat: int, laying: int) -> None:
        if self.rules.must_discard_to_go_out and laying >= len(self.hands[seat]):
            raise IllegalAction("keep one card: you must discard to go out", "must_keep_discard")

    def _lay(self, action: Lay) -> list[Event]:
        seat = action.seat
        if not action.melds:
            raise IllegalAction("lay at least one meld", "empty_lay")
        all_cards = [card for meld in action.melds for card in meld]
        self._check_hand(seat, all_cards)
        melds = [Meld.check(cards, self.rules) for cards in action.melds]
        opening = not self.opened[seat]
        if opening:
            need = self.rules.opening_points
            if self.rules.opening_single_meld:
                if max(m.value for m in melds) < need:
                    raise IllegalAction(
                        f"your first lay-down needs one meld worth {need} points", "opening_too_low"
                    )
            else:
                total = sum(m.value for m in melds)
                if total < need:
                    raise IllegalAction(
                        f"your first lay-down is worth {total}; it needs {need} points",
                        "opening_too_low",
                    )
        self._check_keeps_discard(seat, len(all_cards))
        _remove(self.hands[seat], all_cards)
        first = len(self.melds)
        self.melds.extend(melds)
        self.meld_owners.extend([seat] * len(melds))
        self.opened[seat] = True
        laid_jokers = sum(m.jokers for m in melds)
        self.turn.pending_jokers = max(0, self.turn.pending_jokers - laid_jokers)
        self.history.append(HistoryEntry(seat, "lay", tuple(all_cards)))
        events: list[Event] = [Laid(seat, tuple(melds), first, opening)]
        if not self.hands[seat]:
            events.extend(self._went_out(seat))
        return events

    def _table_meld(self, index: int) -> Meld:
        if not isinstance(index, int) or not 0 <= index < len(self.melds):
            raise IllegalAction(f"there is no meld {index!r} on the table", "no_such_meld")
        return self.melds[index]

    def _check_opened(self, seat: int, what: str) -> None:
        if not self.opened[seat]:
            raise IllegalAction(f"you must open before you {what}", "not_opened")

    def _lay_off(self, action: LayOff) -> list[Event]:
        seat, card = action.seat, action.card
        self._check_opened(seat, "lay off")
        meld = self._table_meld(action.meld)
        self._check_hand(seat, [card])
        if card.is_joker and self.hands[seat].count(JOKER) <= self.turn.pending_jokers:
            raise IllegalAction(
                "an exchanged joker must go into a new meld or be discarded", "joker_must_be_played"
            )
        try:
            new = meld.with_card(card, action.end, self.rules)
        except InvalidMeld as exc:
            raise IllegalAction(exc.message, "does_not_fit") from exc
        self._check_keeps_discard(seat, 1)
        end = action.end
        if new.kind.value == "sequence" and end is None:
            end = "low" if new.start < meld.start else "high"
        self.melds[action.meld] = new
        self.hands[seat].remove(card)
        self.history.append(HistoryEntry(seat, "lay_off", (card,)))
        events: list[Event] = [LaidOff(seat, card, action.meld, end, new)]
        if not self.hands[seat]:
            events.extend(self._went_out(seat))
        return events

    def _exchange(self, action: ExchangeJoker) -> list[Event]:
        seat, card = action.seat, action.card
        self._check_opened(seat, "exchange a joker")
        meld = self._table_meld(action.meld)
        if card.is_joker:
            raise IllegalAction(
                "exchange a joker for the natural card it stands for", "no_joker_there"
            )
        self._check_hand(seat, [card])
        if self.turn.pending_jokers and not self.rules.joker_exchange_to_hand:
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
        new = meld.with_joker_exchanged(card, index)
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
        self._check_hand(seat, [card])
        refusal = discard_refusal(
            hand,
            card,
            drew_from_discard=self.turn.drew_from_discard,
            pending_jokers=self.turn.pending_jokers,
            rules=self.rules,
        )
        if refusal is not None:
            raise refusal
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
        if self.phase is Phase.GAME_OVER:
            raise IllegalAction("the game is over", "game_over")
        if self.knock is None or self.phase is not Phase.DRAW:
            raise IllegalAction("there is nothing to knock on now", "no_knock_window")
        if seat not in self.knock.seats:
            raise IllegalAction(
                "only a player who neither discarded nor is next may knock", "may_not_knock"
            )
        if len(self.stock) < 2:
            raise IllegalAction("the stock has too few cards to knock", "stock_too_small")
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
        if not self.in_round:
            raise IllegalAction("there is no hand to arrange now", "round_over")
        hand = self.hands[action.seat]
        if Counter(action.cards) != Counter(hand):
            raise IllegalAction(
                "an arrangement must hold exactly the cards of your hand", "not_your_hand"
            )
        self.hands[action.seat] = list(action.cards)
        return [HandArranged(action.seat, tuple(action.cards))]

    # ----------------------------------------------------------------- JSON

    def to_json(self) -> dict[str, Any]:
        """The whole state, secrets included (for the server's own storage only)."""
        return {
            "rules": self.rules.to_json(),
            "seats": self.seats,
            "seed": self.seed.hex(),
            "first_dealer": self.first_dealer,
            "version": self.version,
            "phase": self.phase.value,
            "round_no": self.round_no,
            "dealer": self.dealer,
            "current": self.current,
            "hands": [[str(c) for c in h] for h in self.hands],
            "stock": [str(c) for c in self.stock],
            "discard": [str(c) for c in self.discard],
            "melds": [m.to_json() for m in self.melds],
            "meld_owners": list(self.meld_owners),
            "opened": list(self.opened),
            "totals": list(self.totals),
            "active": list(self.active),
            "turn": {
                "drew_from_discard": (
                    None
                    if self.turn.drew_from_discard is None
                    else str(self.turn.drew_from_discard)
                ),
                "opened_before": self.turn.opened_before,
                "pending_jokers": self.turn.pending_jokers,
            },
            "knock": None
            if self.knock is None
            else {
                "discarder": self.knock.discarder,
                "next_seat": self.knock.next_seat,
                "seats": list(self.knock.seats),
            },
            "restocks": self.restocks,
            "stall": self.stall,
            "round_seed": self.round_seed.hex(),
            "commitment": self.commitment,
            "history": [
                {"seat": h.seat, "move": h.move, "cards": [str(c) for c in h.cards]}
                for h in self.history
            ],
            "results": [r.to_json() for r in self.results],
            "winners": list(self.winners),
        }

    @classmethod
    def from_json(cls, data: Any) -> Game:
        """A state written by :meth:`to_json`; checks that all 110 cards are there."""
        if not isinstance(data, dict):
            raise NotationError("a game state is a JSON object")
        try:
            rules = Rules.from_json(data["rules"])
            game = cls(
                rules, int(data["seats"]), bytes.fromhex(data["seed"]), int(data["first_dealer"])
            )
            game.version = int(data["version"])
            game.phase = Phase(data["phase"])
            game.round_no = int(data["round_no"])
            game.dealer = int(data["dealer"])
            game.current = int(data["current"])
            game.hands = [list(parse_cards(h)) for h in data["hands"]]
            game.stock = list(parse_cards(data["stock"]))
            game.discard = list(parse_cards(data["discard"]))
            game.melds = [restore_meld(m) for m in data["melds"]]
            game.meld_owners = [int(s) for s in data["meld_owners"]]
            game.opened = [bool(x) for x in data["opened"]]
            game.totals = [int(x) for x in data["totals"]]
            game.active = [bool(x) for x in data["active"]]
            turn = data["turn"]
            game.turn = TurnInfo(
                None
                if turn["drew_from_discard"] is None
                else Card.parse(turn["drew_from_discard"]),
                bool(turn["opened_before"]),
                int(turn["pending_jokers"]),
            )
            knock = data["knock"]
            game.knock = (
                None
                if knock is None
                else KnockWindow(
                    int(knock["discarder"]),
                    int(knock["next_seat"]),
                    tuple(int(s) for s in knock["seats"]),
                )
            )
            game.restocks = int(data["restocks"])
            game.stall = int(data.get("stall", 0))
            game.round_seed = bytes.fromhex(data["round_seed"])
            game.commitment = str(data["commitment"])
            game.history = [
                HistoryEntry(int(h["seat"]), str(h["move"]), parse_cards(h["cards"]))
                for h in data["history"]
            ]
            game.results = [RoundResult.from_json(r) for r in data["results"]]
            game.winners = decode_value(tuple[int, ...], data["winners"])
        except NotationError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"bad game state: {exc!r}") from exc
        if game.round_no and game.card_count() != shoe_counter():
            raise NotationError("bad game state: the cards do not add up to the shoe")
        return game

    @staticmethod
    def actions_from_json(data: Any) -> list[Action]:
        if not isinstance(data, list):
            raise NotationError("actions are a JSON list")
        return [action_from_json(a) for a in data]
