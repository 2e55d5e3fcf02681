"""The explicit state of a match: every field a :class:`~romme.engine.game.Game`
is made of, in one place.

Copying a game, writing it to JSON, reading it back and building one from a
seat's view (:meth:`~romme.engine.game.Game.determinise`) all go through
:class:`GameState`, so a field added here is copied, stored and sampled
everywhere or the type checker says where it is missing.

>>> from romme.engine.rules import Rules
>>> state = GameState.fresh(Rules.classic(), seats=2, seed=bytes(32))
>>> state.phase, state.dealer, state.hands
(<Phase.NOT_STARTED: 'not_started'>, 1, [[], []])
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from romme.engine.cards import Card, parse_cards, shoe_counter
from romme.engine.codec import decode_value, restore_meld
from romme.engine.errors import IllegalAction, NotationError
from romme.engine.events import HistoryEntry, Move, RoundResult
from romme.engine.melds import Meld
from romme.engine.rules import Rules

__all__ = ["GameState", "KnockWindow", "Phase", "PhaseName", "TurnInfo"]


class Phase(str, enum.Enum):
    NOT_STARTED = "not_started"
    DRAW = "draw"
    """The current seat must draw (or, with the knock, someone may knock)."""
    PLAY = "play"
    """The current seat has drawn: it may lay, lay off, exchange, and must discard."""
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


PhaseName = Literal["not_started", "draw", "play", "round_over", "game_over"]
"""A :class:`Phase` as a seat view and the wire spell it."""


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


@dataclass(kw_only=True, eq=False, repr=False)
class GameState:
    """Everything a match is at one moment, secrets included. Every field is
    required: whoever builds a state names all of them."""

    rules: Rules
    seats: int
    seed: bytes
    """The match seed; each round's shuffle is derived from it."""
    first_dealer: int
    version: int
    """How many actions have been applied."""
    phase: Phase
    round_no: int
    dealer: int
    current: int
    hands: list[list[Card]]
    stock: list[Card]
    """The stock; the next card drawn is the last one."""
    discard: list[Card]
    """The discard pile; its top is the last card."""
    melds: list[Meld]
    meld_owners: list[int]
    opened: list[bool]
    totals: list[int]
    active: list[bool]
    """Seats still in the game (not eliminated)."""
    turn: TurnInfo
    knock: KnockWindow | None
    restocks: int
    stall: int
    """Turns in a row, this round, whose draw did not take a card from the stock."""
    round_seed: bytes
    commitment: str
    history: list[HistoryEntry]
    results: list[RoundResult]
    winners: tuple[int, ...]

    @classmethod
    def fresh(
        cls, rules: Rules, seats: int, seed: bytes, first_dealer: int | None = None
    ) -> GameState:
        """The state of a new table before its first deal; refuses a seat count
        the rules do not allow, a short seed or a dealer who is not a seat."""
        if not rules.min_seats <= seats <= rules.max_seats:
            raise ValueError(f"this table plays with {rules.min_seats} to {rules.max_seats} seats")
        if not isinstance(seed, bytes) or len(seed) < 16:
            raise ValueError("the match seed must be at least 16 bytes")
        dealer = seats - 1 if first_dealer is None else first_dealer
        if not 0 <= dealer < seats:
            raise ValueError("first_dealer must be a seat")
        return GameState(
            rules=rules,
            seats=seats,
            seed=seed,
            first_dealer=dealer,
            version=0,
            phase=Phase.NOT_STARTED,
            round_no=0,
            dealer=dealer,
            current=0,
            hands=[[] for _ in range(seats)],
            stock=[],
            discard=[],
            melds=[],
            meld_owners=[],
            opened=[False] * seats,
            totals=[0] * seats,
            active=[True] * seats,
            turn=TurnInfo(),
            knock=None,
            restocks=0,
            stall=0,
            round_seed=b"",
            commitment="",
            history=[],
            results=[],
            winners=(),
        )

    def copy_state(self) -> GameState:
        """An independent copy (cards, melds and results are values and shared)."""
        return GameState(
            rules=self.rules,
            seats=self.seats,
            seed=self.seed,
            first_dealer=self.first_dealer,
            version=self.version,
            phase=self.phase,
            round_no=self.round_no,
            dealer=self.dealer,
            current=self.current,
            hands=[list(h) for h in self.hands],
            stock=list(self.stock),
            discard=list(self.discard),
            melds=list(self.melds),
            meld_owners=list(self.meld_owners),
            opened=list(self.opened),
            totals=list(self.totals),
            active=list(self.active),
            turn=self.turn.copy(),
            knock=self.knock,
            restocks=self.restocks,
            stall=self.stall,
            round_seed=self.round_seed,
            commitment=self.commitment,
            history=list(self.history),
            results=list(self.results),
            winners=self.winners,
        )

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

    def knock_seats(self) -> tuple[int, ...]:
        """Who may knock right now."""
        if self.knock is None or self.phase is not Phase.DRAW or len(self.stock) < 2:
            return ()
        return self.knock.seats

    def card_count(self) -> Counter[Card]:
        """Every card in the round, wherever it lies (for invariant checks)."""
        total: Counter[Card] = Counter(self.stock)
        total.update(self.discard)
        for hand in self.hands:
            total.update(hand)
        for meld in self.melds:
            total.update(meld.cards)
        return total

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

    @staticmethod
    def state_from_json(data: Any) -> GameState:
        """A state written by :meth:`to_json`; checks that all 110 cards are there."""
        if not isinstance(data, dict):
            raise NotationError("a game state is a JSON object")
        try:
            turn = data["turn"]
            knock = data["knock"]
            state = GameState.fresh(
                Rules.from_json(data["rules"]),
                int(data["seats"]),
                bytes.fromhex(data["seed"]),
                int(data["first_dealer"]),
            )
            state = GameState(
                rules=state.rules,
                seats=state.seats,
                seed=state.seed,
                first_dealer=state.first_dealer,
                version=int(data["version"]),
                phase=Phase(data["phase"]),
                round_no=int(data["round_no"]),
                dealer=int(data["dealer"]),
                current=int(data["current"]),
                hands=[list(parse_cards(h)) for h in data["hands"]],
                stock=list(parse_cards(data["stock"])),
                discard=list(parse_cards(data["discard"])),
                melds=[restore_meld(m) for m in data["melds"]],
                meld_owners=[int(s) for s in data["meld_owners"]],
                opened=[bool(x) for x in data["opened"]],
                totals=[int(x) for x in data["totals"]],
                active=[bool(x) for x in data["active"]],
                turn=TurnInfo(
                    None
                    if turn["drew_from_discard"] is None
                    else Card.parse(turn["drew_from_discard"]),
                    bool(turn["opened_before"]),
                    int(turn["pending_jokers"]),
                ),
                knock=None
                if knock is None
                else KnockWindow(
                    int(knock["discarder"]),
                    int(knock["next_seat"]),
                    tuple(int(s) for s in knock["seats"]),
                ),
                restocks=int(data["restocks"]),
                stall=int(data.get("stall", 0)),
                round_seed=bytes.fromhex(data["round_seed"]),
                commitment=str(data["commitment"]),
                history=[
                    HistoryEntry(
                        int(h["seat"]), decode_value(Move, h["move"]), parse_cards(h["cards"])
                    )
                    for h in data["history"]
                ],
                results=[RoundResult.from_json(r) for r in data["results"]],
                winners=decode_value(tuple[int, ...], data["winners"]),
            )
        except NotationError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"bad game state: {exc!r}") from exc
        if state.round_no and state.card_count() != shoe_counter():
            raise NotationError("bad game state: the cards do not add up to the shoe")
        return state
