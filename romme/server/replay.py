"""The positions of a finished game, replayed from its log by the engine.

A replay page shows every position of a game with every hand open. Rather than a
second implementation of the rules in the browser, the server replays the stored
actions with :class:`romme.engine.Game` (the one source of truth) and serves each
position. The browser still checks each round's deal against its revealed seed
itself, with its own port of the shuffle (``romme/web/js/fairness.js``)."""

from __future__ import annotations

from typing import Any

from romme.engine.actions import action_from_json
from romme.engine.game import Game
from romme.engine.rules import Rules
from romme.engine.state import GameState

__all__ = ["SHOWN", "position_of", "replay_positions"]


SHOWN = (
    "version",
    "round_no",
    "phase",
    "dealer",
    "current",
    "hands",
    "discard",
    "melds",
    "meld_owners",
    "opened",
    "totals",
    "active",
)
"""The fields of the engine's state (:meth:`GameState.to_json`) a position shows as
they are; of the stock only its size, of the results only their number."""


def position_of(game: GameState, action: dict[str, Any] | None) -> dict[str, Any]:
    """``Position`` of the protocol: the game after ``action`` (``None``: before
    the first), every hand open and the whole discard pile (bottom first)."""
    state = game.to_json()
    position = {"action": action, **{key: state[key] for key in SHOWN}}
    position["stock_count"] = len(game.stock)
    position["results"] = len(game.results)
    return position


def replay_positions(log: dict[str, Any]) -> dict[str, Any]:
    """``Replay`` of the protocol for a ``GameLog``: the position before the first
    action and after each one, and every round's result."""
    rules = Rules.from_json(log["rules"])
    game = Game(rules, len(log["seats"]), bytes.fromhex(log["match_seed"]))
    positions = [position_of(game, None)]
    for data in log["actions"]:
        game.apply(action_from_json(data))
        positions.append(position_of(game, data))
    return {
        "id": log["id"],
        "rules": log["rules"],
        "seats": log["seats"],
        "winners": log["winners"],
        "match_seed": log["match_seed"],
        "rounds": log["rounds"],
        "results": [result.to_json() for result in game.results],
        "positions": positions,
    }
