"""Moderation as the server applies it: chat screened before it is stored (a muted
player's message refused, listed words masked), banned accounts kept out, and the
browser mark that lets a sanction follow its person to a new account.

The browser mark is the ``romme_browser`` cookie: a random value given to a browser
at its first sign-in (guest, registration or login), HttpOnly and kept 400 days. It
is not signed: it proves nothing and grants nothing; a value made up by a client is
as good as clearing the cookie, which is the limit of any browser mark. At every
sign-in the store links the player's sanctions to the address and mark and gives
an account newer than a sanction linked to them the same sanction
(:mod:`romme.store.sanction_links`).

:class:`ChatGuard` sits on the hub; the routes of the moderators' page and of
reports are :mod:`romme.server.api_moderation`.
"""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Any

from romme.server import messages
from romme.server.chatfilter import ChatFilter
from romme.server.errors import ProtocolError
from romme.store.core import iso, ms

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from romme.server.connection import Connection
    from romme.server.registry import Registry
    from romme.store import PlayerRecord, Store

__all__ = [
    "BROWSER_COOKIE",
    "ChatGuard",
    "Muted",
    "browser_mark",
    "end_connections",
    "follow_sanctions",
    "refuse_banned",
    "set_browser_mark",
]

BROWSER_COOKIE = "romme_browser"
BROWSER_MAX_AGE = 400 * 24 * 3600
"""The longest a browser keeps a cookie (Chromium caps it at 400 days)."""
_MARK = re.compile(r"[A-Za-z0-9_-]{32}")


class Muted(ProtocolError):
    """A muted player's chat message: ``until`` is when the mute ends (ms)."""

    def __init__(self, until: int) -> None:
        super().__init__("muted", "a moderator has muted your chat")
        self.until = until


class ChatGuard:
    """Screens chat text: refuses a muted player's, masks listed words."""

    def __init__(self, store: Store, chat_filter: ChatFilter) -> None:
        self.store = store
        self.filter = chat_filter

    async def screen(self, player_id: int, text: str) -> str:
        """The text to store, or raise :class:`Muted`."""
        muted, until = await self.store.sanctioned_until(player_id, "mute")
        if muted:
            raise Muted(0 if until is None else ms(until))
        return self.filter.mask(text) if isinstance(text, str) else text

    @staticmethod
    def refuse(conn: Connection, exc: Muted, msg_id: Any) -> None:
        """Answer a muted player's message with ``muted`` and the mute's end."""
        conn.send_json({**messages.error(exc.code, exc.message, msg_id), "until": exc.until})


async def refuse_banned(store: Store, player_id: int) -> None:
    """Raise ``banned`` (with the ban's end, if it has one) for a banned player."""
    banned, until = await store.sanctioned_until(player_id, "ban")
    if banned:
        ends = "" if until is None else f" until {iso(until)}"
        raise ProtocolError("banned", f"this account is banned{ends}")


def end_connections(registry: Registry, player_id: int) -> None:
    """Tell a banned player's open connections so, and close them (4401), on every
    node of a cluster."""
    notice = messages.dumps(messages.error("banned", "this account is banned"))
    registry.disconnect_player(player_id, 4401, notice=notice)


def browser_mark(request: Request) -> tuple[str, bool]:
    """The request's browser mark, and whether it is new (to be set in the answer)."""
    mark = request.cookies.get(BROWSER_COOKIE, "")
    if _MARK.fullmatch(mark):
        return mark, False
    return secrets.token_urlsafe(24), True


def set_browser_mark(response: Response, mark: str, secure: bool) -> None:
    response.set_cookie(
        BROWSER_COOKIE,
        mark,
        max_age=BROWSER_MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure,
    )


async def follow_sanctions(store: Store, player: PlayerRecord, address: str, mark: str) -> None:
    """At a sign-in, before its session is made: link the player's sanctions to
    this address and browser, give a newer account the sanctions linked to them,
    and refuse (``banned``) a player banned now, by its own ban or one it took."""
    await store.follow_sanctions(player.id, address, mark)
    await refuse_banned(store, player.id)
