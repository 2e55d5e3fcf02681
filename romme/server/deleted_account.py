"""What a node holds in memory about an account that was just deleted: the store
already gave its seats and hosted tables a placeholder name and deleted its chat
lines (``Store.delete_account``); the tables, lobby chat and waiting seats this
node keeps follow. Every node of a cluster runs this for its own tables (the
node that deleted the account tells the others, ``romme.server.relay``)."""

from __future__ import annotations

from collections.abc import Collection

from romme.server.guests import GuestNames
from romme.server.lobby import Lobby
from romme.server.registry import Registry

__all__ = ["forget_deleted_account"]


async def forget_deleted_account(
    registry: Registry,
    lobby: Lobby,
    guests: GuestNames,
    player_id: int,
    placeholder: str,
    chat_ids: Collection[int],
) -> None:
    """Show ``placeholder`` for the player in this node's tables, drop its chat
    lines (``chat_ids``) and give up its seats at the tables not started yet."""
    for table in registry.tables.hosted_by(player_id):
        table.host = placeholder
    for table in registry.tables.values():
        seat = table.seat_of(player_id)
        if seat is not None:
            table.seats[seat].nickname = placeholder
    await guests.give_up_waiting_seats(player_id)
    gone = set(chat_ids)
    lobby.chat = [line for line in lobby.chat if line["id"] not in gone]
    for table in registry.tables.values():
        kept = [line for line in table.chat if line["id"] not in gone]
        table.chat.clear()
        table.chat.extend(kept)
    lobby.changed()
