"""The mark of a deleted account, and the check that keeps a deleted player out of
a game's start (the deletion itself: :mod:`romme.store.account_owner`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import RELEASED, is_id
from romme.store.errors import StoreError
from romme.store.models import Player

__all__ = ["DELETED", "refuse_deleted_players"]

DELETED = RELEASED + "deleted:"
"""Prefix of a deleted account's nickname key (a released key: no session opens it)."""


async def refuse_deleted_players(session: AsyncSession, seats: list[Any]) -> None:
    """``player_deleted`` if a player seated in ``seats`` (a table's stored seats,
    about to start its game) has deleted the account. Called first in the
    transaction that stores a game's start: it reads the seated players' rows with
    a share lock (``FOR SHARE`` on PostgreSQL; SQLite has one writer), which an
    account's deletion, holding its row, waits for or makes wait. So a deletion
    sees every game that started before it (and refuses ``in_game``), and no game
    starts with a player whose deletion came first."""
    ids = sorted(
        {
            seat["player"]
            for seat in seats
            if isinstance(seat, dict) and seat.get("bot") is None and is_id(seat.get("player"))
        }
    )
    if not ids:
        return
    keys = await session.scalars(
        select(Player.nickname_key)
        .where(Player.id.in_(ids))
        .order_by(Player.id)
        .with_for_update(read=True)
    )
    if any(key.startswith(DELETED) for key in keys):
        raise StoreError("player_deleted", "a player at this table has deleted the account")
