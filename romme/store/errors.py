"""The one error type of the store: a stable ``code`` from the wire protocol and a
message for people. A call that raises it has changed nothing."""

from __future__ import annotations

__all__ = ["StoreError"]


class StoreError(ValueError):
    """Bad input to the store (a taken nickname, a version conflict, ...).

    >>> error = StoreError("nickname_taken", "the nickname 'Anna' is taken")
    >>> error.code, error.message
    ('nickname_taken', "the nickname 'Anna' is taken")
    >>> error.to_json()
    {'code': 'nickname_taken', 'message': "the nickname 'Anna' is taken"}
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"StoreError({self.code!r}, {self.message!r})"
