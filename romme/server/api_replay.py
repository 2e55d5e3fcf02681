"""The HTTP routes of game histories and replays: a player's finished games a page
at a time (``GET /api/players/{nickname}/games``) and every position of a finished
game (``GET /api/games/{id}/replay``).

A finished game never changes, so a replay is public like its log and may be kept
by any cache for a while."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

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
REPLAYS_KEPT = 16
"""How many replays the server keeps ready (the most recently asked for): a shared
link is opened by many at once, and a long game's replay takes a tenth of a second."""


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
    game_id = int(text)
    state = request.app.state
    if not hasattr(state, "replays"):
        state.replays = OrderedDict()
    kept: OrderedDict[int, dict[str, Any]] = state.replays
    # The log is read every time, so that the seats' names are today's (an account
    # deleted since is no longer named); only the engine's work is kept.
    log = await server_state(request).open_store().game_log(game_id)
    if log is None:
        return _error("no_such_game", "no finished game has this id")
    replay = kept.get(game_id)
    if replay is None:
        # The engine replays the whole game: off the event loop.
        replay = await asyncio.to_thread(replay_positions, log)
        kept[game_id] = replay
    kept.move_to_end(game_id)
    while len(kept) > REPLAYS_KEPT:
        kept.popitem(last=False)
    return JSONResponse(
        {**replay, "seats": log["seats"]}, headers={"Cache-Control": "public, max-age=300"}
    )
