"""Typed errors of the rules engine.

Every error carries a stable ``code`` (snake case, part of the wire protocol) and a
message that tells a player why. An action that raises leaves the state untouched.
"""

from __future__ import annotations

__all__ = [
    "CardParseError",
    "EngineError",
    "IllegalAction",
    "InvalidMeld",
    "NotationError",
]


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""

    code: str = "engine_error"

    def __init__(self, message: str, code: str | None = None) -> None:
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

    code = "bad_notation"


class CardParseError(NotationError):
    """A token that is not a card; the message names the token."""

    code = "bad_card"

    def __init__(self, token: str, why: str) -> None:
        super().__init__(f"{token!r} is not a card: {why}")
        self.token = token


class InvalidMeld(EngineError):
    """Cards that do not form a meld under the table's rules."""

    code = "invalid_meld"


class IllegalAction(EngineError):
    """An action the rules do not allow in the current state."""

    code = "illegal_action"
