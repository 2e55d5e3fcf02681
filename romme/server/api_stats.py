"""The platform's statistics over HTTP: ``GET /api/stats/cards``, the card luck
of every hand dealt on this server (see :mod:`romme.engine.cardluck`).

A player's own figures come with ``/api/me`` and ``/api/players/{nickname}``;
the rankings by rating and by level with ``/api/rankings``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from romme.server.state import server_state

__all__ = ["card_luck"]


async def card_luck(request: Request) -> Response:
    """The platform's ``CardLuck``: running sums kept as games finish, so this is
    one short query however many games were played, and the store keeps its answer
    until a game's result is recorded (at most a minute: see
    :meth:`romme.store.Store.platform_card_luck`)."""
    figures = await server_state(request).open_store().platform_card_luck()
    return JSONResponse(figures)
