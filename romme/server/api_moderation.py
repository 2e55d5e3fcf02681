"""The HTTP routes of reports and moderation.

``POST /api/reports``: any signed-in player reports another; the server attaches
the table both are at (if any) and the reported player's recent chat lines there.
``/api/moderation/*``: the moderators' page: the queue (open reports grouped by
reported player, weighed by distinct reporters), the reports and the log page by
page, the mutes and bans in force; resolve a report, mute, ban, lift. Each action
is logged with the moderator's id and nickname.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from romme.server.api import _body, _error, _refusals, _text, client_address
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


def _target(body: dict[str, Any]) -> str | int:
    """Who a mute, ban or lift is for: ``player`` (an id, as the queue and the
    sanctions list give it; a deleted account has no nickname) or ``nickname``."""
    player = body.get("player")
    if player is None:
        return _text(body, "nickname")
    if not isinstance(player, int) or isinstance(player, bool) or not 0 < player < 2**31:
        raise ProtocolError("bad_message", "'player' must be a player's id")
    return player


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
    filed = await store.add_report(
        me.id, nickname, reason, text, table_id, address=client_address(request)
    )
    return JSONResponse({"report": {"id": filed["id"], "table": filed["table"]}})


PAGE = 200
"""Reports, log entries and queue groups in one page unless ``limit`` says less."""


def _whole(request: Request, name: str) -> int | None:
    """The query parameter ``name`` as an id-like whole number (``None``: absent)."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 10 or int(raw) > 2**31 - 1:
        raise ProtocolError("bad_message", f"{name!r} must be a whole number")
    return int(raw)


def _cursor(request: Request) -> tuple[int, int] | None:
    """``queue_after``: the ``queue.next`` of the previous page, ``weight.report``."""
    raw = request.query_params.get("queue_after")
    if raw is None:
        return None
    weight, _, first = raw.partition(".")
    if not (weight.isascii() and weight.isdigit() and first.isascii() and first.isdigit()):
        raise ProtocolError("bad_message", "'queue_after' must be a queue's 'next'")
    if len(weight) > 12 or len(first) > 10 or int(first) > 2**31 - 1:
        raise ProtocolError("bad_message", "'queue_after' must be a queue's 'next'")
    return int(weight), int(first)


@_refusals
async def moderation(request: Request) -> Response:
    await _moderator(request)
    store = server_state(request).open_store()
    open_only = request.query_params.get("open") in ("1", "true")
    limit = _whole(request, "limit")
    limit = PAGE if limit is None else max(1, min(limit, PAGE))
    before, log_before = _whole(request, "before"), _whole(request, "log_before")
    reports = await store.reports(
        open_only, limit=limit, before=before, reported_id=_whole(request, "player")
    )
    log = await store.moderation_log(limit=limit, before=log_before)
    groups, after = await store.report_queue(limit=limit, after=_cursor(request))
    return JSONResponse(
        {
            "reports": reports,
            "next_before": reports[-1]["id"] if len(reports) == limit else None,
            "queue": {
                "players": groups,
                "next": None if after is None else f"{after[0]}.{after[1]}",
            },
            "sanctions": await store.sanctions(),
            "log": log,
            "next_log_before": log[-1]["id"] if len(log) == limit else None,
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
        await server_state(request)
        .open_store()
        .resolve_report(report_id, me.nickname, _note(body), actor_id=me.id)
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
        _target(body), kind, minutes, me.nickname, _note(body), actor_id=me.id
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
        .lift_sanction(_target(body), _text(body, "kind"), me.nickname, _note(body), actor_id=me.id)
    )
    return JSONResponse({"lifted": lifted})
