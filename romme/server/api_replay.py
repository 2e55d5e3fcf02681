"""The HTTP routes of game histories and replays: a player's finished games a page
at a time (``GET /api/players/{nickname}/games``) and every position of a finished
game (``GET /api/games/{id}/replay``).

A finished game never changes, so a replay is public like its log and may be kept
by any cache for a while."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from romme.server.api import _GAME_ID, _error
from romme.server.replay import replay_positions
from romme.server.state import server_state
from romme.store import StoreError
from romme.store.history import HISTORY_LIMIT_MAX

__all__ = ["game_history", "game_replay"]

HISTORY_LIMIT = 20
"""How many games a page of a history holds unless ``limit`` says otherwise."""


async def game_history(request: Request) -> Response:
    params = request.query_params
    try:
        limit = int(params.get("limit", str(HISTORY_LIMIT)))
    except ValueError:
        limit = 0
    if not 1 <= limit <= HISTORY_LIMIT_MAX:
        return _error("bad_message", f"limit must be a number from 1 to {HISTORY_LIMIT_MAX}")
    before_text = params.get("before")
    before = None
    if before_text is not None:
        if not _GAME_ID.match(before_text):
            return _error("no_such_game", "before is not a game of this player's history")
        before = int(before_text)
    store = server_state(request).open_store()
    try:
        history = await store.game_history(
            request.path_params["nickname"], before=before, limit=limit
        )
    except StoreError as exc:
        return _error(exc.code, exc.message)
    if history is None:
        return _error("no_such_player", "there is no such player")
    return JSONResponse(history)


async def game_replay(request: Request) -> Response:
    text = request.path_params["game_id"]
    if not _GAME_ID.match(text):
        return _error("no_such_game", "there is no such game")
    log = await server_state(request).open_store().game_log(int(text))
    if log is None:
        return _error("no_such_game", "no finished game has this id")
    # Replaying a long game takes a few milliseconds of the engine: off the event loop.
    replay = await asyncio.to_thread(replay_positions, log)
    return JSONResponse(replay, headers={"Cache-Control": "public, max-age=300"})
