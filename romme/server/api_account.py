"""The HTTP routes of the account owner: change the password, delete the account,
export one's data (what is deleted and what is kept: :mod:`romme.store.account_owner`).

Each asks for a logged-in registered player; changing and deleting also ask for
the password, so that a browser left open is not enough to take the account.
"""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from romme.server.api import _body, _refusals, _signed_out, _text
from romme.server.errors import ProtocolError
from romme.server.state import server_state
from romme.store import PlayerRecord
from romme.store.sessions import token_hash

__all__ = ["change_password", "delete_account", "export_data"]


async def _me(request: Request) -> tuple[PlayerRecord, str]:
    """The logged-in player and their session token, or ``not_authenticated``."""
    state = server_state(request)
    me = await state.session_player(request)
    cookie = state.session_cookie(request)
    if me is None or cookie is None:
        raise ProtocolError("not_authenticated", "log in first")
    return me, cookie[1]


@_refusals
async def change_password(request: Request) -> Response:
    """A new password; the player's other sessions end (their sockets close with
    4401), this one goes on."""
    state = server_state(request)
    body = await _body(request)
    me, token = await _me(request)
    store = state.open_store()
    ended = await store.change_password(
        me.id, _text(body, "old_password"), _text(body, "new_password"), keep_session=token
    )
    if state.hub is not None:
        state.hub.registry.disconnect_player(me.id, 4401, keep=token_hash(token))
    return JSONResponse({"ok": True, "sessions_ended": ended})


@_refusals
async def delete_account(request: Request) -> Response:
    """Delete the account: refused while the player sits at a running game (the
    store decides, ordered with every game's start: ``Store.delete_account``);
    the seats at tables not started yet are given up (a table they host closes)."""
    state = server_state(request)
    body = await _body(request)
    me, _token = await _me(request)
    password = _text(body, "password")
    hub = state.open_hub()
    placeholder, chat_ids = await state.open_store().delete_account(me.id, password)
    hub.registry.disconnect_player(me.id, 4401)
    await hub.account_deleted(me.id, placeholder, chat_ids)
    return _signed_out(request, JSONResponse({"ok": True, "nickname": placeholder}))


@_refusals
async def export_data(request: Request) -> Response:
    """Everything kept about the player, as a JSON file to download."""
    me, _token = await _me(request)
    store = server_state(request).open_store()
    data = await store.export_data(me.id)
    data["chips"] = await store.chip_export(me.id)
    return Response(
        json.dumps(data, ensure_ascii=False, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="romme-{me.id}.json"'},
    )
