"""Guest nicknames: when a guest's nickname may go to someone else.

A guest has no password: the session cookie of its browser is its only way back.
So a guest who asks for its nickname again in the same browser gets the same
player back, while someone else may take the nickname once no connection has held
it for ``guest_hold_seconds`` and the guest does not sit at a running game (a
closed browser must not keep a name for the hour or the month its cookie lasts).

Who is connected is known to the hub only, so nothing of this is stored: after a
restart the time since the start counts as held. The old guest is then released
as by a logout (``Store.release_guest``): its games and chat keep the name it
played under, its cookie no longer opens a session, and the seats it held at
tables that have not started are given up (a table it hosted closes).
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import TYPE_CHECKING

from romme.engine.errors import EngineError
from romme.server.config import ServerOptions
from romme.server.errors import ProtocolError
from romme.server.registry import Registry
from romme.server.table import PLAYING, WAITING
from romme.store import StoreError, accounts

if TYPE_CHECKING:
    from romme.store import PlayerRecord, Store

__all__ = ["GuestNames"]

log = logging.getLogger("romme.server.guests")


class GuestNames:
    """When each guest's nickname was last held, and handing nicknames out."""

    def __init__(self, registry: Registry, store: Store, options: ServerOptions) -> None:
        self.registry = registry
        self.store = store
        self.options = options
        self._started = time.monotonic()
        self._held_at: dict[int, float] = {}
        """Player id -> when a connection or a sign-in last held the nickname."""

    def hold(self, player_id: int) -> None:
        """The nickname is in use now (a sign-in, or the last connection closing)."""
        self._held_at[player_id] = time.monotonic()

    def held(self, player_id: int) -> bool:
        """Whether the guest still holds its nickname."""
        if self.registry.online(player_id):
            return True
        since = self._held_at.get(player_id, self._started)
        if time.monotonic() - since < self.options.guest_hold_seconds:
            return True
        for table in self.registry.tables.values():
            seat = table.seat_of(player_id)
            if table.status == PLAYING and seat is not None and not table.seats[seat].left:
                return True
        return False

    def forget_old(self) -> None:
        """Drop the times that no longer hold anything (they count as the start)."""
        limit = time.monotonic() - self.options.guest_hold_seconds
        for player_id, since in list(self._held_at.items()):
            if since < limit:
                del self._held_at[player_id]

    async def sign_in(
        self, me: PlayerRecord | None, nickname: str, address: str | None = None
    ) -> PlayerRecord:
        """The guest for ``POST /api/guest``: the same one for the same browser and
        nickname, else a new guest, taking over the nickname of a guest that no
        longer holds it. ``address``: the client's, counted against the new
        accounts one address may create (``too_many_accounts``)."""
        store = self.store
        if (
            me is not None
            and me.guest
            and accounts.lookup_key(nickname) == accounts.nickname_key(me.nickname)
        ):
            player = me
        else:
            try:
                player = await store.create_guest(nickname, address=address)
            except StoreError as exc:
                if exc.code != "nickname_taken" or not await self._free(nickname):
                    raise
                player = await store.create_guest(nickname, address=address)
        self.hold(player.id)
        return player

    async def _free(self, nickname: str) -> bool:
        """Release the guest holding ``nickname`` if it no longer holds it."""
        holder = await self.store.find_player(nickname)
        if holder is None or not holder.guest or holder.is_bot or self.held(holder.id):
            return False
        await self._release(holder.id, holder.nickname)
        return True

    async def give_up_waiting_seats(self, player_id: int) -> None:
        """Leave every table not started yet where the player sits (a table they
        host closes): for a released guest or a deleted account."""
        for table in list(self.registry.tables.values()):
            if table.status == WAITING and table.seat_of(player_id) is not None:
                with contextlib.suppress(ProtocolError, EngineError, StoreError):
                    await table.call(table.leave_player, player_id)

    async def _release(self, player_id: int, nickname: str) -> None:
        await self.give_up_waiting_seats(player_id)
        if await self.store.release_guest(player_id):
            log.info("guest_nickname_freed", extra={"player": nickname, "id": player_id})
        self.registry.disconnect_player(player_id, 4401)
        self._held_at.pop(player_id, None)
