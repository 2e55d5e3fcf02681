"""Moderation as the server applies it: chat screened before it is stored (a muted
player's message refused, listed words masked) and banned accounts kept out.

:class:`ChatGuard` sits on the hub; the routes of the moderators' page and of
reports are :mod:`romme.server.api_moderation`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from romme.server import messages
from romme.server.chatfilter import ChatFilter
from romme.server.errors import ProtocolError
from romme.store.core import iso, ms

if TYPE_CHECKING:
    from romme.server.connection import Connection
    from romme.server.registry import Registry
    from romme.store import Store

__all__ = ["ChatGuard", "Muted", "end_connections", "refuse_banned"]


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
