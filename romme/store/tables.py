"""Tables: their settings, rules, seats, match seed and status, and reading one
back with its action log. Storing actions is :mod:`romme.store.action_log`; reading
many unfinished tables at once to rebuild them is :mod:`romme.store.rebuild`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any, cast, get_args

from sqlalchemy import Row, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, bad, check_json, is_id
from romme.store.deletion import refuse_deleted_players
from romme.store.errors import StoreError
from romme.store.models import GameTable, TableAction
from romme.store.records import PLAYING, WAITING, TableRecord, TableStatus

__all__ = ["TABLE_STATUSES", "UNFINISHED", "TableStore", "table_actions", "table_record"]

TABLE_STATUSES: tuple[TableStatus, ...] = get_args(TableStatus)
UNFINISHED: tuple[TableStatus, ...] = (WAITING, PLAYING)


class TableStore(StoreCore):
    """The store's tables (see :class:`romme.store.Store`)."""

    async def create_table(
        self,
        host_id: int,
        settings: dict[str, Any],
        rules: dict[str, Any],
        seats: list[dict[str, Any]],
        match_seed: bytes,
        owner_node: str | None = None,
        lease_seconds: float = 0.0,
        *,
        max_waiting: int = 0,
    ) -> int:
        """A new table (status ``waiting``); returns its id. With ``owner_node`` the
        node holds its lease (epoch 1, :mod:`romme.store.leases`) for ``lease_seconds``.

        ``max_waiting`` (0: any): ``too_many_tables`` when the host already hosts
        that many waiting tables. They are counted in the inserting transaction
        with the host's row locked (PostgreSQL; SQLite has one writer), so that
        parallel requests of one host, on any connection or node, are counted in
        turn and cannot slip past the limit together."""
        if not isinstance(settings, dict) or not isinstance(rules, dict):
            raise bad("settings and rules are JSON objects")
        if not isinstance(seats, list):
            raise bad("seats is a list")
        if not isinstance(match_seed, bytes) or not 16 <= len(match_seed) <= 1024:
            raise bad("the match seed is 16 to 1024 bytes")
        for value, what in ((settings, "settings"), (rules, "rules"), (seats, "seats")):
            check_json(value, what)
        async with self._write() as session:
            await self._require_player(session, host_id, lock=max_waiting > 0)
            if max_waiting > 0:
                hosted = await session.scalar(
                    select(func.count())
                    .select_from(GameTable)
                    .where(GameTable.host_id == host_id, GameTable.status == WAITING)
                )
                if (hosted or 0) >= max_waiting:
                    raise StoreError(
                        "too_many_tables",
                        f"you already host {hosted} waiting table(s), the most one may: "
                        "start or leave one first",
                    )
            table = GameTable(
                host_id=host_id,
                settings=settings,
                rules=rules,
                seats=seats,
                match_seed=bytes(match_seed),
                status="waiting",
                created_at=self._now(),
            )
            if owner_node is not None:
                table.owner_node = owner_node
                table.owner_epoch = 1
                table.lease_until = self._now() + timedelta(seconds=lease_seconds)
            session.add(table)
            await session.flush()
            return table.id

    async def update_table(
        self,
        table_id: int,
        *,
        status: str | None = None,
        seats: list[dict[str, Any]] | None = None,
        epoch: int | None = None,
    ) -> None:
        """Change a table's status (``waiting``, ``playing``, ``finished``, ``closed``)
        or seats. The status of a finished table cannot change any more. With
        ``epoch``, the writer's lease of the table must still hold
        (``lease_lost``, and nothing changes, if another node took it)."""
        if status is not None and status not in TABLE_STATUSES:
            raise bad(f"status is one of {', '.join(TABLE_STATUSES)}")
        if seats is not None:
            if not isinstance(seats, list):
                raise bad("seats is a list")
            check_json(seats, "seats")
        async with self._write() as session:
            if status == "playing" and seats is not None:
                await refuse_deleted_players(session, seats)
            table = await self._require_table(session, table_id, lock=True, epoch=epoch)
            if status is not None and status != table.status:
                if table.status == "finished":
                    raise StoreError("game_over", f"table {table_id}'s game is finished")
                now = self._now()
                if status == "playing" and table.started_at is None:
                    table.started_at = now
                if status == "finished" and table.finished_at is None:
                    table.finished_at = now
                table.status = status
            if seats is not None:
                table.seats = seats

    async def get_table(self, table_id: int) -> TableRecord | None:
        """A table with its actions, whatever its status."""
        if not is_id(table_id):
            return None
        async with self._read() as session:
            table = await session.get(GameTable, table_id)
            if table is None:
                return None
            actions = await table_actions(session, table_id)
            return table_record(table, actions)


async def table_actions(session: AsyncSession, table_id: int) -> list[TableAction]:
    """The action log of a table, in version order."""
    found = await session.scalars(
        select(TableAction).where(TableAction.table_id == table_id).order_by(TableAction.version)
    )
    return list(found.all())


def table_record(
    table: GameTable | Row[Any], actions: Sequence[TableAction | Row[Any]]
) -> TableRecord:
    """The record of a table and its log, from ORM objects or plain rows with the
    same names (:mod:`romme.store.rebuild`)."""
    return TableRecord(
        id=table.id,
        host_id=table.host_id,
        settings=table.settings,
        rules=table.rules,
        seats=table.seats,
        match_seed=bytes(table.match_seed),
        # Only create_table, update_table (which checks TABLE_STATUSES) and
        # finish_game ('finished') write the column.
        status=cast(TableStatus, table.status),
        created_at=table.created_at,
        actions=[a.action for a in actions],
        last_action_at=actions[-1].created_at if actions else None,
        first_version=actions[0].version if actions else None,
    )
