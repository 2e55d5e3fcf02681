"""What can go wrong when talking to a romme server, as exceptions.

The server's own refusals keep its code (``not_your_turn``, ``table_full``,
``nickname_taken``, ...; the list is docs/protocol.md), so a program can tell them
apart without reading the text; a lost connection is a separate kind, because the
same request may well succeed once the client has reconnected.
"""

from __future__ import annotations

__all__ = ["ClientError", "ConnectionRefused", "Disconnected", "ServerError"]


class ClientError(Exception):
    """Anything :mod:`romme.client` raises on purpose."""


class ServerError(ClientError):
    """The server refused a request: an ``error`` message over the WebSocket, or
    an HTTP error body ``{"error": {"code", "message"}}``.

    ``status`` is the HTTP status (``None`` over the WebSocket); ``retry_after`` the
    whole seconds to wait that a limit (HTTP 429) names, else ``None``.
    """

    def __init__(
        self,
        code: str,
        message: str = "",
        *,
        status: int | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after


class Disconnected(ClientError):
    """The connection was lost before the request was answered (or no connection
    is open). The request may or may not have been carried out: the table's state
    after the reconnection tells."""


class ConnectionRefused(ClientError):
    """The server will not take this connection and reconnecting would not help:
    the session is not valid (close code 4401) or the origin is foreign (4403)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"connection refused ({code}): {message}")
        self.code = code
        self.message = message
