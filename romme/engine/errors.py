"""Typed errors of the rules engine.

Every error carries a stable ``code`` (snake case, part of the wire protocol) and a
message that tells a player why. An action that raises leaves the state untouched.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "ERROR_CODES",
    "CardParseError",
    "EngineError",
    "ErrorCode",
    "IllegalAction",
    "InvalidMeld",
    "NotationError",
]

ErrorCode = Literal[
    # the fallback codes of the error classes
    "engine_error",
    "bad_notation",
    "bad_card",
    "invalid_meld",
    "illegal_action",
    # whose move it is, and when
    "bad_seat",
    "not_your_turn",
    "eliminated",
    "round_over",
    "round_in_progress",
    "game_over",
    "unknown_action",
    # drawing
    "must_draw",
    "already_drew",
    "bad_source",
    "discard_empty",
    # laying down, laying off and exchanging jokers
    "card_not_in_hand",
    "empty_lay",
    "opening_too_low",
    "not_opened",
    "no_such_meld",
    "does_not_fit",
    "no_joker_there",
    "joker_must_be_played",
    "must_keep_discard",
    # discarding and arranging
    "cannot_return_discard",
    "not_your_hand",
    # the knock
    "no_knock_window",
    "may_not_knock",
    "stock_too_small",
]
"""Every code an engine error can carry (docs/rules.md lists them for players)."""

ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""

    code: ErrorCode = "engine_error"

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class NotationError(EngineError):
    """Text or JSON that does not describe a card, action or state."""

    code: ErrorCode = "bad_notation"


class CardParseError(NotationError):
    """A token that is not a card; the message names the token."""

    code: ErrorCode = "bad_card"

    def __init__(self, token: str, why: str) -> None:
        super().__init__(f"{token!r} is not a card: {why}")
        self.token = token


class InvalidMeld(EngineError):
    """Cards that do not form a meld under the table's rules."""

    code: ErrorCode = "invalid_meld"


class IllegalAction(EngineError):
    """An action the rules do not allow in the current state."""

    code: ErrorCode = "illegal_action"
