"""The HTTP routes of game analyses: ``POST /api/games/{id}/analysis`` starts the
analysis of a finished game (its players only; idempotent), ``GET`` reads it
(anyone: a finished game's log is public). See docs/protocol.md, "Analysis"."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from romme.server.analysis import AnalysisRunner
from romme.server.state import server_state
from romme.store import StoreError
from romme.store.limits import LimitReached

__all__ = ["read_analysis", "request_analysis"]

_STATUS = {
    "no_such_game": 404,
    "not_authenticated": 401,
    "not_your_game": 403,
    "game_not_finished": 409,
}


def _error(code: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=_STATUS.get(code, 400)
    )


def _game_id(request: Request) -> int | None:
    text = request.path_params["game_id"]
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 10 else None


def _runner(request: Request) -> AnalysisRunner:
    runner = server_state(request).analyses
    assert runner is not None
    return runner


async def read_analysis(request: Request) -> Response:
    game_id = _game_id(request)
    answer = None if game_id is None else await _runner(request).status(game_id)
    if answer is None:
        return _error("no_such_game", "no finished game has this id")
    return JSONResponse(answer)


async def request_analysis(request: Request) -> Response:
    player = await server_state(request).session_player(request)
    if player is None:
        return _error("not_authenticated", "log in to ask for an analysis")
    game_id = _game_id(request)
    if game_id is None:
        return _error("no_such_game", "there is no such game")
    try:
        answer, started = await _runner(request).request(game_id, player.id)
    except LimitReached as exc:
        return JSONResponse(
            {"error": {"code": exc.code, "message": exc.message, "retry_after": exc.retry_after}},
            status_code=429,
            headers={"Retry-After": str(exc.retry_after)},
        )
    except StoreError as exc:
        return _error(exc.code, exc.message)
    return JSONResponse(answer, status_code=202 if started else 200)
