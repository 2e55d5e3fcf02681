"""What every computer opponent shares: the :class:`Bot` interface, the
:class:`Suggestion` value, a decision's seeded randomness, and a base class that
turns a seat's view into one engine action.

A bot is handed a :class:`~romme.engine.view.SeatView` and nothing else: its own
hand, the table, the top of the discard pile, the counts, and the public history
of the round. It never sees a :class:`~romme.engine.game.Game`, so it cannot read
another hand or the stock. Every decision is a pure function of the view and the
bot's seed (the randomness of one decision is derived from both), so a bot
process may be restarted at any time and a match replays exactly.

A bot answers one engine action at a time: in its draw phase the draw (or, when
it may knock on someone else's discard, a knock or ``None``), in its play phase
one lay-down, lay-off, joker exchange or the discard that ends its turn. The
engine checks that action like a human's.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from romme.engine.actions import Action, Draw
from romme.engine.cards import Card
from romme.engine.errors import IllegalAction, InvalidMeld
from romme.engine.legal import check, discardable_cards
from romme.engine.melds import Meld
from romme.engine.reference import timeout_action
from romme.engine.view import SeatView

__all__ = [
    "BaseBot",
    "Bot",
    "Decision",
    "Suggestion",
    "decision_rng",
    "discardable",
    "is_acceptable",
    "stalled",
]


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A move and a one-line reason a player can read, e.g. for a "hint" button."""

    action: Action
    reason: str


Decision = Suggestion
"""What a bot's policy works out internally: the action and why."""


@runtime_checkable
class Bot(Protocol):
    """A computer opponent for one seat.

    ``decide`` returns the seat's next engine action, or ``None`` when the seat
    has nothing to do (not its turn, and it does not knock). ``suggest`` returns
    the same move with a one-line reason.
    """

    level: str
    seed: int

    def decide(self, view: SeatView) -> Action | None: ...

    def suggest(self, view: SeatView) -> Suggestion | None: ...


def decision_rng(seed: int, level: str, view: SeatView) -> random.Random:
    """The randomness of one decision: derived from the bot's seed and public
    facts of the view only (the round's commitment, the seat, how far the round
    has gone), so the same view always gets the same decision."""
    key = (
        f"{level}|{seed}|{view.seat}|{view.round_no}|{view.commitment}|"
        f"{len(view.history)}|{view.phase}|{len(view.hand)}|{view.pending_jokers}"
    )
    digest = hashlib.sha256(key.encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def discardable(view: SeatView) -> list[Card]:
    """The cards this seat may discard now (distinct, ordered by code)."""
    return discardable_cards(view)


def stalled(view: SeatView) -> bool:
    """Whether the round has stopped moving: every draw of the last two rounds
    of turns came from the discard pile, so the stock does not shrink (two
    players passing the same cards back and forth). Then draw from the stock."""
    active = max(2, sum(1 for a in view.active if a))
    count = 0
    for entry in reversed(view.history):
        if entry.move == "draw_stock":
            return False
        if entry.move in ("draw_discard", "knock"):
            count += 1
            if count >= 2 * active:
                return True
    return False


def is_acceptable(view: SeatView, action: Action) -> bool:
    """Whether the engine would take ``action`` from this seat now, judged from
    the view alone (a safety net under every policy; see
    :func:`romme.engine.legal.check`)."""
    try:
        check(view, action)
    except (IllegalAction, InvalidMeld):
        return False
    return True


class BaseBot:
    """Turns a view into one action through four policy hooks; subclasses
    implement them. Every answer is checked against the view, and a policy that
    ever proposes something the engine would refuse falls back to the server's
    timeout move (and, for a knock, to not knocking)."""

    level = "base"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    # ------------------------------------------------------------ the protocol

    def decide(self, view: SeatView) -> Action | None:
        suggestion = self.suggest(view)
        return None if suggestion is None else suggestion.action

    def suggest(self, view: SeatView) -> Suggestion | None:
        seat = view.seat
        if seat is None or view.phase not in ("draw", "play") or not view.active[seat]:
            return None
        decision: Decision | None
        if view.phase == "draw" and seat != view.current:
            if seat not in view.knock_seats or view.stock_count < 2:
                return None
            decision = self.knock(view, decision_rng(self.seed, self.level, view))
            if decision is None or not is_acceptable(view, decision.action):
                return None
            return decision
        if seat != view.current:
            return None
        rng = decision_rng(self.seed, self.level, view)
        if view.phase == "draw":
            if stalled(view):
                decision = Decision(Draw(seat, "stock"), "draw from the stock")
            else:
                decision = self.draw(view, rng)
        else:
            decision = self.play(view, rng)
        if decision is not None and is_acceptable(view, decision.action):
            return decision
        fallback = timeout_action(view)
        if fallback is None:  # pragma: no cover - my_turn holds here
            return None
        return Suggestion(fallback, "play it safe")

    # ------------------------------------------------------------------- hooks

    def knock(self, view: SeatView, rng: random.Random) -> Decision | None:
        """Knock on the card just discarded? ``None``: let it go."""
        return None

    def draw(self, view: SeatView, rng: random.Random) -> Decision:
        """Draw from the stock or from the discard pile."""
        raise NotImplementedError

    def play(self, view: SeatView, rng: random.Random) -> Decision:
        """One move of the play phase: lay, lay off, exchange a joker, or discard."""
        raise NotImplementedError


def lay_cards(melds: Sequence[Meld]) -> tuple[tuple[Card, ...], ...]:
    """The cards of these melds as a ``Lay`` action takes them."""
    return tuple(m.cards for m in melds)
