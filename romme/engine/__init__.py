"""The rules of Rommé: pure, typed, without I/O.

The names a program needs are importable from here (as ``import chess;
chess.Board()``); the modules they live in stay importable too.

>>> import romme.engine as engine
>>> game = engine.Game.start(engine.Rules.classic(), seats=2, seed=bytes(32))
>>> engine.Draw(0, "stock") in engine.legal_actions(game.view_for(0))
True
>>> engine.check(game, engine.Draw(1, "stock"))
Traceback (most recent call last):
romme.engine.errors.IllegalAction: it is seat 0's turn
"""

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
from romme.engine.cards import JOKER, Card, Suit, format_cards, parse_cards
from romme.engine.errors import (
    ERROR_CODES,
    CardParseError,
    EngineError,
    ErrorCode,
    IllegalAction,
    InvalidMeld,
    NotationError,
)
from romme.engine.events import Event, HistoryEntry, RoundResult, event_from_json
from romme.engine.game import Game, HiddenCards
from romme.engine.legal import check, legal_actions, opening_value
from romme.engine.melds import Meld, MeldKind
from romme.engine.rules import PRESETS, Rules
from romme.engine.solver import Arrangement, solve, solve_opening
from romme.engine.state import GameState, Phase
from romme.engine.view import SeatView

__all__ = [
    "ERROR_CODES",
    "JOKER",
    "PRESETS",
    "Action",
    "Arrange",
    "Arrangement",
    "Card",
    "CardParseError",
    "Discard",
    "Draw",
    "EngineError",
    "ErrorCode",
    "Event",
    "ExchangeJoker",
    "Game",
    "GameState",
    "HiddenCards",
    "HistoryEntry",
    "IllegalAction",
    "InvalidMeld",
    "Knock",
    "Lay",
    "LayOff",
    "Meld",
    "MeldKind",
    "NextRound",
    "NotationError",
    "Phase",
    "RoundResult",
    "Rules",
    "SeatView",
    "Suit",
    "action_from_json",
    "check",
    "event_from_json",
    "format_cards",
    "legal_actions",
    "opening_value",
    "parse_cards",
    "solve",
    "solve_opening",
]
