"""Random legal games that look for a turn with no way on.

A dead end is a state of a turn in which the player to move has no legal action,
or in which the server's timeout move (:func:`~romme.engine.reference.timeout_action`)
is refused: the server could not move the table on. :func:`walk_game` plays one game
of random legal actions and checks every state it reaches; the property test and
``bench/bench_dead_ends.py`` run it over many games.

The random player favours the moves that lead to rare states: it takes the discard
pile often (a joker on it nearly always), lays and lays off whatever it may, exchanges
jokers whenever it can, knocks where the table allows it, and now and then lets its
time run out. It mostly discards what the timeout move would (its cheapest card),
otherwise a random card.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from romme.engine.actions import (
    Action,
    Discard,
    Draw,
    ExchangeJoker,
    Knock,
    Lay,
    LayOff,
    NextRound,
)
from romme.engine.game import Game, Phase
from romme.engine.reference import timeout_action
from romme.engine.rules import DEFAULT_SEATS, Rules

__all__ = ["DeadEnd", "Walk", "table_for", "walk_game"]

MAX_ACTIONS = 20_000
"""No game of the walk comes near this; it only keeps a broken engine from looping."""


class DeadEnd(AssertionError):
    """A state of a turn that the table cannot leave. The message says how to replay it."""


@dataclass(frozen=True, slots=True)
class Walk:
    """What one random game checked."""

    actions: int
    states: int
    """States of a turn checked (the player to move and the timeout move)."""
    rounds: int
    exchanges: int
    """Joker exchanges played."""
    pending_joker_states: int
    """States checked in which an exchanged joker had still to be played (three-rounds)."""


def table_for(preset: str, rng: random.Random) -> tuple[Rules, int]:
    """A table of ``preset`` with options and seats drawn at random.

    Classic: 2 to 4 seats, the knock at 3 or 4 seats half the time, a point limit
    of 1 (one round) or, a third of the time, 25 (a few rounds, in which players
    are eliminated and the others play on). Three-rounds: mostly its 4 seats, one round per game: which
    actions are legal in a turn never depends on the round number or the scores,
    so a game's later rounds would only repeat the first at three times the cost.
    """
    if preset == "classic":
        seats = rng.choice([2, 3, 4])
        knock = seats >= 3 and rng.random() < 0.5
        limit = 25 if rng.random() < 1 / 3 else 1
        return Rules.classic(point_limit=limit, knock=knock), seats
    seats = DEFAULT_SEATS[preset] if rng.random() < 0.7 else rng.choice([2, 3])
    return Rules.preset(preset, rounds=1), seats


def _replay(game: Game, actions: list[Action]) -> str:
    return (
        f"replay: Game.replay(Rules.from_json({game.rules.to_json()}), {game.seats}, "
        f"bytes.fromhex({game.seed.hex()!r}), "
        f"Game.actions_from_json({[a.to_json() for a in actions]}))"
    )


def _check(game: Game, seat: int, actions: list[Action]) -> tuple[list[Action], Action]:
    """The legal actions of ``seat`` and its timeout move, after checking that it
    has a legal action and that the timeout move is accepted."""
    legal = game.legal_actions(seat)
    if not legal:
        raise DeadEnd(f"seat {seat} has no legal action; {_replay(game, actions)}")
    try:
        timeout = timeout_action(game.view_for(seat))
    except Exception as exc:
        raise DeadEnd(
            f"seat {seat}'s timeout move failed: {exc!r}; {_replay(game, actions)}"
        ) from exc
    if timeout is None or not game.is_legal(timeout):
        raise DeadEnd(
            f"seat {seat}'s timeout move {timeout!r} is refused; {_replay(game, actions)}"
        )
    return legal, timeout


def _choose(legal: list[Action], timeout: Action, game: Game, rng: random.Random) -> Action:
    """A random legal action, weighted towards the moves that make rare states. The
    discard is mostly the timeout move's (the card that costs least), so that hands
    keep their melds and rounds end by someone going out."""
    if game.phase is Phase.DRAW:
        top = game.discard[-1] if game.discard else None
        take_pile = 0.9 if top is not None and top.is_joker else 0.4
        draws = [a for a in legal if isinstance(a, Draw)]
        pile = [a for a in draws if a.source == "discard"]
        return pile[0] if pile and rng.random() < take_pile else draws[0]
    for kind, chance in ((ExchangeJoker, 0.6), (Lay, 0.7), (LayOff, 0.6)):
        moves = [a for a in legal if isinstance(a, kind)]
        if moves and rng.random() < chance:
            return rng.choice(moves)
    if rng.random() < 0.7:
        return timeout
    discards = [a for a in legal if isinstance(a, Discard)]
    return rng.choice(discards or legal)


def walk_game(rules: Rules, seats: int, seed: bytes, rng: random.Random) -> Walk:
    """Play one game of random legal actions to its end, checking every state of a
    turn; raise :class:`DeadEnd` (with the actions so far) at the first dead end."""
    game = Game(rules, seats, seed)
    actions: list[Action] = []
    states = exchanges = pending = 0
    while not game.is_over:
        if len(actions) >= MAX_ACTIONS:
            raise DeadEnd(f"the game did not end after {MAX_ACTIONS} actions")
        action: Action | None = None
        if game.phase in (Phase.NOT_STARTED, Phase.ROUND_OVER):
            action = NextRound()
        else:
            for seat in game.knock_seats():
                if rng.random() < 0.15 and Knock(seat) in game.legal_actions(seat):
                    action = Knock(seat)
                    break
            if action is None:
                legal, timeout = _check(game, game.current, actions)
                states += 1
                pending += game.turn.pending_jokers > 0
                action = timeout if rng.random() < 0.05 else _choose(legal, timeout, game, rng)
        assert action is not None
        game.apply(action)
        actions.append(action)
        exchanges += isinstance(action, ExchangeJoker)
    return Walk(len(actions), states, game.round_no, exchanges, pending)
