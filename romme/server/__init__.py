"""The online service: an ASGI app (Starlette) with HTTP routes, one WebSocket per
client, the lobby, table actors, timers, chat, invitations and the wire protocol
of ``docs/protocol.md``.

Entry points: :func:`romme.server.app.create_app` (the app factory) and
``romme serve`` (:mod:`romme.server.serve`).
"""

from __future__ import annotations

__all__ = ["PROTOCOL_VERSION"]

PROTOCOL_VERSION = 1
"""The version of the wire protocol (``docs/protocol.md``), sent in ``welcome``."""
