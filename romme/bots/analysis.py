"""The analysis of a finished game: where a human player's decision differed from
the expert level's, and what the difference cost.

A finished game's log (rules, match seed, actions) replays exactly, so every
decision a seat took can be looked at again with the seat's own view at that
moment (never more: the expert sees what the player saw). Three kinds of
decision are analysed: where to draw from (``draw``), whether and what to lay
(``lay``) and which card to throw (``discard``). For each, the expert level
(:class:`~romme.bots.expert.ExpertBot`) chooses its move; where the two differ,
both moves are played to the end of the round on the same sampled deals
(:mod:`romme.bots.sampler`, :mod:`romme.bots.rollout`), and a :class:`Mark` is
made only if the expert's move did better on average. The mark says how much:
the expected penalty points saved and the chance of going out gained.

The work per decision is bounded by counts, not by time, so that a repeated
analysis gives the same marks on any machine: the expert plays its own move
without search (as at a table), the comparison has ``COMPARE_DEALS`` deals per
move, and every playout at most a fixed number of actions
(:func:`~romme.bots.rollout.playout`). All randomness is derived from the match
seed and the decision's position.

>>> from romme.engine.rules import Rules
>>> log = bot_game(Rules.classic(point_limit=1), ("beginner", "casual"), seed=3)
>>> indices = decisions(log, {0})
>>> all(log.actions[i]["seat"] == 0 for i in indices)
True
>>> marks = analyse_game(log, {0})
>>> marks == analyse_game(log, {0})   # the same game, the same marks
True
>>> all(m.move in indices and m.played == log.actions[m.move] for m in marks)
True
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, Literal

from romme.bots import make_bot
from romme.bots.base import Bot
from romme.bots.evaluate import arrangement
from romme.bots.expert import ExpertBot
from romme.bots.rollout import playout, utility
from romme.bots.sampler import sample_game
from romme.bots.strong import make_context
from romme.engine.actions import (
    Action,
    Discard,
    Draw,
    ExchangeJoker,
    Lay,
    LayOff,
    NextRound,
    action_from_json,
)
from romme.engine.cards import Card
from romme.engine.errors import IllegalAction, InvalidMeld
from romme.engine.game import Game, Phase
from romme.engine.rules import Rules
from romme.engine.view import SeatView

__all__ = [
    "COMPARE_DEALS",
    "REASONS",
    "AnalysisInput",
    "Mark",
    "analyse_decision",
    "analyse_game",
    "bot_game",
    "decisions",
]

COMPARE_DEALS = 12
"""Sampled deals on which the player's and the expert's move are both played out."""

REASONS = (
    "take_completes",
    "take_card",
    "draw_stock",
    "keep_completes",
    "keep_card",
    "lay_first",
    "lay_fewer",
    "lay_off_first",
    "exchange_joker",
    "hold_back",
    "other",
)
"""Every reason code a mark may carry (docs/protocol.md, "Analysis")."""

Kind = Literal["draw", "lay", "discard"]
Severity = Literal["inaccuracy", "mistake", "blunder"]

_KINDS: dict[str, Kind] = {"draw": "draw", "lay": "lay", "discard": "discard"}


@dataclass(frozen=True, slots=True)
class AnalysisInput:
    """What the analysis reads of a finished game (the ``GameLog`` of the protocol)."""

    rules: dict[str, Any]
    seats: int
    match_seed: str
    """Hex, as the game log shows it."""
    actions: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_log(cls, log: dict[str, Any]) -> AnalysisInput:
        return cls(log["rules"], len(log["seats"]), log["match_seed"], list(log["actions"]))


@dataclass(frozen=True, slots=True)
class Mark:
    """One decision where the expert would have played otherwise, and better."""

    move: int
    """Index of the player's action in the game log's ``actions``."""
    seat: int
    kind: Kind
    played: dict[str, Any]
    better: dict[str, Any]
    """The expert's action (JSON of an engine action)."""
    severity: Severity
    penalty: float
    """Expected penalty points the expert's move saved (negative: it cost some,
    for a better chance of going out)."""
    win_chance: float
    """Chance of going out that the expert's move gained, 0 to 1."""
    reason: str
    """A code the client phrases (see docs/protocol.md, "Analysis")."""
    params: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "seat": self.seat,
            "kind": self.kind,
            "played": self.played,
            "better": self.better,
            "severity": self.severity,
            "penalty": self.penalty,
            "win_chance": self.win_chance,
            "reason": self.reason,
            "params": self.params,
        }


def bot_game(rules: Rules, levels: tuple[str, ...], seed: int) -> AnalysisInput:
    """A game played to its end by computer opponents of these levels (one per
    seat), as the analysis reads it: for examples, tests and the benchmark."""
    match_seed = seed.to_bytes(32, "big")
    game = Game(rules, len(levels), match_seed)
    bots: list[Bot] = [make_bot(level, seed=seed + i) for i, level in enumerate(levels)]
    actions: list[Action] = [NextRound()]
    game.apply(actions[0])
    while game.phase in (Phase.DRAW, Phase.PLAY, Phase.ROUND_OVER):
        if game.phase is Phase.ROUND_OVER:
            action: Action | None = NextRound()
        else:
            action = bots[game.current].decide(game.view_for(game.current))
        if action is None:  # pragma: no cover - the seat to move always acts
            raise RuntimeError("a computer opponent did not move")
        game.apply(action)
        actions.append(action)
    return AnalysisInput(
        rules.to_json(), len(levels), match_seed.hex(), [a.to_json() for a in actions]
    )


def decisions(log: AnalysisInput, seats: set[int]) -> list[int]:
    """Indices of the actions the analysis looks at: the draws, lay-downs and
    discards of these seats, except those the server played for a seat (``by``:
    a turn that ran out), which the player never chose."""
    return [
        i
        for i, a in enumerate(log.actions)
        if a.get("type") in _KINDS and a.get("seat") in seats and "by" not in a
    ]


def _derived(log: AnalysisInput, index: int, purpose: str) -> int:
    digest = hashlib.sha256(f"analysis|{log.match_seed}|{index}|{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _game_before(log: AnalysisInput, index: int) -> Game:
    game = Game(Rules.from_json(log.rules), log.seats, bytes.fromhex(log.match_seed))
    for data in log.actions[:index]:
        game.apply(action_from_json(data))
    return game


def analyse_game(log: AnalysisInput, seats: set[int]) -> list[Mark]:
    """Every mark of these seats' decisions, in the order of the game (replays
    the game once)."""
    wanted = set(decisions(log, seats))
    game = Game(Rules.from_json(log.rules), log.seats, bytes.fromhex(log.match_seed))
    marks: list[Mark] = []
    for index, data in enumerate(log.actions):
        action = action_from_json(data)
        if index in wanted:
            mark = _judge(log, index, game, action)
            if mark is not None:
                marks.append(mark)
        game.apply(action)
    return marks


def analyse_decision(log: AnalysisInput, index: int) -> Mark | None:
    """The mark of the decision at ``index``, or ``None`` where the player's move
    was the expert's or did as well (replays the game up to it)."""
    data = log.actions[index]
    if data.get("type") not in _KINDS:
        return None
    return _judge(log, index, _game_before(log, index), action_from_json(data))


def _judge(log: AnalysisInput, index: int, game: Game, played: Action) -> Mark | None:
    seat = getattr(played, "seat", None)
    if seat is None or game.phase not in (Phase.DRAW, Phase.PLAY) or game.current != seat:
        return None
    view = game.view_for(seat)
    expert = ExpertBot(_derived(log, index, "expert"))
    suggestion = expert.suggest(view)
    if suggestion is None or _agrees(played, suggestion.action):
        return None
    better = suggestion.action
    outcome = _compare(log, index, view, played, better)
    if outcome is None:
        return None
    gain, penalty, win = outcome
    if gain <= 0:
        return None
    reason, params = _reason(view, played, better)
    return Mark(
        move=index,
        seat=seat,
        kind=_KINDS[played.type],
        played=played.to_json(),
        better=better.to_json(),
        severity=_severity(penalty, win),
        penalty=round(penalty, 1),
        win_chance=round(win, 2),
        reason=reason,
        params=params,
    )


def _agrees(played: Action, better: Action) -> bool:
    """The same decision: the same action, or two lay-downs (which melds exactly
    is a matter of taste, not a mistake)."""
    return played == better or (isinstance(played, Lay) and isinstance(better, Lay))


def _compare(
    log: AnalysisInput, index: int, view: SeatView, played: Action, better: Action
) -> tuple[float, float, float] | None:
    """(utility gained, penalty saved, going-out chance gained) of ``better`` over
    ``played``, both played out on the same ``COMPARE_DEALS`` sampled deals."""
    seat = view.seat
    assert seat is not None
    ctx = make_context(view)
    holders = frozenset({seat}) if ctx.single_round else frozenset()
    rng = random.Random(_derived(log, index, "compare"))
    sums = [0.0, 0.0, 0.0]
    deals = 0
    for _ in range(COMPARE_DEALS):
        base = sample_game(view, ctx.know, random.Random(rng.getrandbits(64)))
        if base is None:
            break
        results = []
        for action in (played, better):
            game = base.clone()
            try:
                game.apply(action)
            except (IllegalAction, InvalidMeld):
                return None
            playout(game, holders=holders)
            results.append(_outcome(game, seat, ctx.single_round))
        deals += 1
        for i in range(3):
            sums[i] += results[1][i] - results[0][i]
    if deals == 0:
        return None
    gain, own_penalty, won = (s / deals for s in sums)
    return gain, -own_penalty, won


def _outcome(game: Game, seat: int, single_round: bool) -> tuple[float, float, float]:
    """(utility, own penalty, went out) of a played-out round."""
    value = utility(game, seat, single_round)
    if game.phase in (Phase.DRAW, Phase.PLAY) or not game.results:
        return value, float(arrangement(game.hands[seat], game.rules).penalty), 0.0
    result = game.results[-1]
    return value, float(result.penalties[seat]), 1.0 if result.winner == seat else 0.0


def _severity(penalty: float, win: float) -> Severity:
    if win >= 0.2 or penalty >= 25:
        return "blunder"
    if win >= 0.08 or penalty >= 10:
        return "mistake"
    return "inaccuracy"


def _meld_with(hand: list[Card], card: Card, rules: Rules) -> list[str] | None:
    """The meld ``card`` is part of in the best arrangement of ``hand``."""
    for meld in arrangement(hand, rules).melds:
        if card in meld.cards:
            return [str(c) for c in meld.cards]
    return None


def _reason(view: SeatView, played: Action, better: Action) -> tuple[str, dict[str, Any]]:
    """The reason code and its parameters (cards as codes) for the client's text."""
    hand = list(view.hand)
    rules = view.rules
    top = view.discard_top
    if isinstance(played, Draw) and isinstance(better, Draw):
        if better.source == "discard" and top is not None:
            meld = _meld_with([*hand, top], top, rules)
            if meld is not None:
                return "take_completes", {"card": str(top), "meld": meld}
            return "take_card", {"card": str(top)}
        return "draw_stock", {"card": str(top) if top is not None else None}
    if isinstance(better, Discard) and isinstance(played, Discard):
        meld = _meld_with(hand, played.card, rules)
        if meld is not None:
            return "keep_completes", {
                "card": str(played.card),
                "meld": meld,
                "instead": str(better.card),
            }
        return "keep_card", {"card": str(played.card), "instead": str(better.card)}
    if isinstance(better, Lay):
        melds = {"melds": [[str(c) for c in m] for m in better.melds]}
        if isinstance(played, Lay) and set(better.melds) < set(played.melds):
            return "lay_fewer", melds
        return "lay_first", melds
    if isinstance(better, LayOff):
        return "lay_off_first", {"card": str(better.card)}
    if isinstance(better, ExchangeJoker):
        return "exchange_joker", {"card": str(better.card)}
    if isinstance(played, Lay) and isinstance(better, Discard):
        return "hold_back", {"instead": str(better.card)}
    return "other", {}
