"""The positions of a finished game, replayed from its log by the engine.

A replay page shows every position of a game with every hand open. Rather than a
second implementation of the rules in the browser, the server replays the stored
actions with :class:`romme.engine.Game` (the one source of truth) and serves each
position. The browser still checks each round's deal against its revealed seed
itself, with its own port of the shuffle (``romme/web/js/fairness.js``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from romme.engine.actions import action_from_json
from romme.engine.cards import JOKER, Card, all_naturals
from romme.engine.game import Game
from romme.engine.rules import Rules
from romme.engine.state import GameState

__all__ = ["position_of", "replay_positions"]

_TEXT: dict[int, str] = {card.code: str(card) for card in [*all_naturals(), JOKER]}
"""Each card's notation by its code, written once: a long game's replay writes some
40,000 cards."""


def _texts(cards: Iterable[Card]) -> list[str]:
    return [_TEXT[card.code] for card in cards]


def position_of(game: GameState, action: dict[str, Any] | None) -> dict[str, Any]:
    """``Position`` of the protocol: the game after ``action`` (``None``: before
    the first), every hand open and the whole discard pile (bottom first). Built
    from the fields it shows only: :meth:`GameState.to_json` writes the whole state
    (stock, history, results) and would take most of a long game's replay."""
    return {
        "version": game.version,
        "action": action,
        "round_no": game.round_no,
        "phase": game.phase.value,
        "dealer": game.dealer,
        "current": game.current,
        "hands": [_texts(hand) for hand in game.hands],
        "stock_count": len(game.stock),
        "discard": _texts(game.discard),
        "melds": [
            {"kind": meld.kind.value, "cards": _texts(meld.cards), "start": meld.start}
            for meld in game.melds
        ],
        "meld_owners": list(game.meld_owners),
        "opened": list(game.opened),
        "totals": list(game.totals),
        "active": list(game.active),
        "results": len(game.results),
    }


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
