"""The HTTP routes of play money: a player's balance with the bonus, claiming the
bonus, the chip history (the player's own only), the house's account (moderators).
The ranking by chips won this month is a branch of ``GET /api/rankings``; the
ledger itself is :mod:`romme.store.chips` and :mod:`romme.store.ledger`."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from romme.server.api import _body, _error, _refusals
from romme.server.errors import ProtocolError
from romme.server.soft_play_check import check_soft_play
from romme.server.state import server_state
from romme.store import PlayerRecord, accounts
from romme.store.chips import BonusRefused
from romme.store.limits import LimitReached

__all__ = [
    "bonus_state",
    "claim_bonus",
    "economy_signals",
    "game_signals",
    "house",
    "ledger",
    "void_game",
]

BONUS_REQUEST_SECONDS = 1.0
"""A player may ask for the bonus once in this many seconds (the answer is the
same anyway: a double click must not queue transactions)."""
_last_claim: dict[int, float] = {}


async def _me(request: Request) -> PlayerRecord:
    player = await server_state(request).session_player(request)
    if player is None:
        raise ProtocolError("not_authenticated", "log in first")
    return player


@_refusals
async def bonus_state(request: Request) -> Response:
    """``GET /api/bonus``: the balance and whether (and from when) a bonus is due."""
    me = await _me(request)
    return JSONResponse(await server_state(request).open_store().bonus_state(me.id))


@_refusals
async def claim_bonus(request: Request) -> Response:
    """``POST /api/bonus``: add the bonus, or say why not and when it is next due."""
    me = await _me(request)
    now = time.monotonic()
    last = _last_claim.get(me.id)
    if last is not None and now - last < BONUS_REQUEST_SECONDS:
        raise LimitReached("rate_limited", "one bonus request at a time", 1)
    if len(_last_claim) > 10_000:
        _last_claim.clear()
    _last_claim[me.id] = now
    try:
        return JSONResponse(await server_state(request).open_store().claim_bonus(me.id))
    except BonusRefused as exc:
        return JSONResponse(
            {"error": {"code": exc.code, "message": exc.message, "next_at": exc.next_at}},
            status_code=409,
        )


@_refusals
async def ledger(request: Request) -> Response:
    """``GET /api/players/{nickname}/ledger?before=&limit=``: the player's own chip
    history, newest first, a page at a time."""
    me = await _me(request)
    if accounts.lookup_key(request.path_params["nickname"]) != accounts.lookup_key(me.nickname):
        return _error("not_your_ledger", "only the player can see their chip history", 403)
    try:
        before = request.query_params.get("before")
        limit = int(request.query_params.get("limit", "50"))
        before_id = None if before is None else int(before)
    except ValueError:
        raise ProtocolError("bad_message", "before and limit are numbers") from None
    return JSONResponse(
        await server_state(request).open_store().chip_ledger(me.id, before=before_id, limit=limit)
    )


@_refusals
async def house(request: Request) -> Response:
    """``GET /api/house``: the house's account, for moderators (it stakes for the
    computer opponents; when it runs low, their games are played for nothing)."""
    await _moderator(request)
    return JSONResponse(await server_state(request).open_store().house_report())


def _period(request: Request) -> tuple[int, int]:
    """``days`` and ``limit`` of a signals request (checked by the store)."""
    try:
        return (
            int(request.query_params.get("days", "7")),
            int(request.query_params.get("limit", "50")),
        )
    except ValueError:
        raise ProtocolError("bad_message", "days and limit are numbers") from None


@_refusals
async def economy_signals(request: Request) -> Response:
    """``GET /api/economy/signals?days=7&limit=50``: pairs of people who played
    staked games together, most suspicious first, with the games to replay."""
    await _moderator(request)
    days, limit = _period(request)
    store = server_state(request).open_store()
    pairs = await store.economy_signals(days, limit)  # checks the parameters first
    if await check_soft_play(store, days):
        pairs = await store.economy_signals(days, limit)
    return JSONResponse({"pairs": pairs})


@_refusals
async def game_signals(request: Request) -> Response:
    """``GET /api/economy/games?days=7&limit=50``: staked games with a signal
    (a seat given up, one address, one-way chips, soft play), most suspicious first."""
    await _moderator(request)
    days, limit = _period(request)
    store = server_state(request).open_store()
    games = await store.game_signals(days, limit)
    if await check_soft_play(store, days):
        games = await store.game_signals(days, limit)
    return JSONResponse({"games": games})


@_refusals
async def void_game(request: Request) -> Response:
    """``POST /api/economy/void`` ``{"game": id, "note": "..."}``: void a finished
    game's result and reverse its settlement (new ledger movements)."""
    me = await _moderator(request)
    body = await _body(request)
    game = body.get("game")
    note = body.get("note", "")
    if not isinstance(game, int) or isinstance(game, bool):
        raise ProtocolError("bad_message", "'game' must be a game's id")
    if not isinstance(note, str) or len(note) > 500:
        raise ProtocolError("bad_message", "'note' must be a string of at most 500 characters")
    store = server_state(request).open_store()
    return JSONResponse(await store.void_game(game, me.nickname, note))


async def _moderator(request: Request) -> PlayerRecord:
    me = await _me(request)
    if not await server_state(request).open_store().is_moderator(me.id):
        raise ProtocolError("not_moderator", "only moderators may do that")
    return me
