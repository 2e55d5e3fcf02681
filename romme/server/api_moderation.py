"""The HTTP routes of reports and moderation.

``POST /api/reports``: any signed-in player reports another; the server attaches
the table both are at (if any) and the reported player's recent chat lines there.
``/api/moderation/*``: the moderators' page: the reports, the mutes and bans in
force and the moderation log; resolve a report, mute, ban, lift. Each action is
logged with the moderator's nickname.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from romme.server.api import _body, _error, _refusals, _text
from romme.server.errors import ProtocolError
from romme.server.moderation import end_connections
from romme.server.registry import Registry
from romme.server.state import server_state
from romme.store import PlayerRecord

__all__ = ["ban", "lift", "moderation", "mute", "report", "resolve"]


async def _player(request: Request) -> PlayerRecord:
    me = await server_state(request).session_player(request)
    if me is None:
        raise ProtocolError("not_authenticated", "log in first")
    return me


async def _moderator(request: Request) -> PlayerRecord:
    me = await _player(request)
    if not await server_state(request).open_store().is_moderator(me.id):
        raise ProtocolError("not_moderator", "only moderators may do that")
    return me


def _shared_table(registry: Registry, reporter_id: int, reported_id: int) -> int | None:
    """The newest table the reporter has open where the reported player sits or
    watches (``None``: the report is about the lobby)."""
    tables = {t for conn in registry.by_player.get(reporter_id, ()) for t in conn.tables}
    for table_id in sorted(tables, reverse=True):
        table = registry.tables.get(table_id)
        if table is None:
            continue
        watching = any(c.player_id == reported_id for c in table.subscribers)
        if watching or table.seat_of(reported_id) is not None:
            return table_id
    return None


def _note(body: dict[str, Any]) -> str:
    note = body.get("note", "")
    if not isinstance(note, str):
        raise ProtocolError("bad_message", "'note' must be a string")
    return note


@_refusals
async def report(request: Request) -> Response:
    state = server_state(request)
    me = await _player(request)
    body = await _body(request)
    nickname, reason = _text(body, "nickname"), _text(body, "reason")
    text = body.get("text", "")
    if not isinstance(text, str):
        raise ProtocolError("bad_message", "'text' must be a string")
    store = state.open_store()
    reported = await store.find_player(nickname)
    if reported is None:
        return _error("no_such_player", "there is no such player")
    table_id = _shared_table(state.open_hub().registry, me.id, reported.id)
    filed = await store.add_report(me.id, nickname, reason, text, table_id)
    return JSONResponse({"report": {"id": filed["id"], "table": filed["table"]}})


async def moderation(request: Request) -> Response:
    try:
        await _moderator(request)
    except ProtocolError as exc:
        return _error(exc.code, exc.message)
    store = server_state(request).open_store()
    open_only = request.query_params.get("open") in ("1", "true")
    return JSONResponse(
        {
            "reports": await store.reports(open_only),
            "sanctions": await store.sanctions(),
            "log": await store.moderation_log(),
        }
    )


@_refusals
async def resolve(request: Request) -> Response:
    me = await _moderator(request)
    body = await _body(request)
    report_id = body.get("report")
    if not isinstance(report_id, int) or isinstance(report_id, bool):
        raise ProtocolError("bad_message", "'report' must be a report's id")
    resolved = (
        await server_state(request).open_store().resolve_report(report_id, me.nickname, _note(body))
    )
    return JSONResponse({"report": resolved})


async def _sanction(request: Request, kind: str) -> Response:
    state = server_state(request)
    me = await _moderator(request)
    body = await _body(request)
    minutes = body.get("minutes")
    if minutes is not None and (not isinstance(minutes, int | float) or isinstance(minutes, bool)):
        raise ProtocolError("bad_message", "'minutes' must be a number")
    done = await state.open_store().sanction(
        _text(body, "nickname"), kind, minutes, me.nickname, _note(body)
    )
    if kind == "ban":
        end_connections(state.open_hub().registry, done["player_id"])
    return JSONResponse({"sanction": {k: v for k, v in done.items() if k != "player_id"}})


@_refusals
async def mute(request: Request) -> Response:
    return await _sanction(request, "mute")


@_refusals
async def ban(request: Request) -> Response:
    return await _sanction(request, "ban")


@_refusals
async def lift(request: Request) -> Response:
    me = await _moderator(request)
    body = await _body(request)
    lifted = (
        await server_state(request)
        .open_store()
        .lift_sanction(_text(body, "nickname"), _text(body, "kind"), me.nickname, _note(body))
    )
    return JSONResponse({"lifted": lifted})
