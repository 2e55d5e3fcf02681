"""Ownership leases of the tables: which server node runs each unfinished table.

Every table has at most one owner node at a time. The owner holds a lease until
``lease_until`` and renews it while it lives; a node takes a table whose lease has
expired (or was released) by raising its ``owner_epoch``, the fencing token. The
owner's actor gives its epoch with every append to the action log
(:meth:`romme.store.action_log.ActionLogStore.append_actions`), which compares it
in the same transaction as the insert: a node that was paused or cut off while
another took its table can never write to that table again.

Every change here is one update; a claim is a compare-and-set on the epoch, so
two nodes that try to take the same table at once cannot both succeed.

An update of many tables first locks their rows in the order of their ids
(:meth:`LeaseStore._lock_in_order`), the order in which a group of appends locks them
(:mod:`romme.store.append_group`). Updated in the order PostgreSQL happened to
find them, a renewal of a node's leases and a group of appends each held rows
the other waited for: PostgreSQL found the deadlock after its
``deadlock_timeout`` (1 s) and failed one of them, so the moves of every table
of the group waited a second, several times a minute at 500 tables.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, or_, select, true, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, is_id
from romme.store.kept_connection import bind_processor
from romme.store.models import GameTable, Invitation
from romme.store.records import PLAYING, WAITING
from romme.store.sqlite_writer import immediate

__all__ = ["RENEW_CHUNK", "Lease", "LeaseStore"]

_UNFINISHED = (WAITING, PLAYING)

RENEW_CHUNK = 100
"""Tables whose leases one transaction renews. All in one, the leases of a node's
1,000 tables held SQLite's single writer for 5 to 26 ms every two seconds (every
row rewritten, and its page), and every move stored meanwhile waited."""


@dataclasses.dataclass(frozen=True, slots=True)
class Lease:
    """An unfinished table's lease as the store holds it."""

    table_id: int
    node: str | None
    """The owner node; ``None`` if nobody holds the table (released, or never taken)."""
    epoch: int
    until: datetime | None


class LeaseStore(StoreCore):
    """The store's table leases (see :class:`romme.store.Store`)."""

    def _until(self, seconds: float) -> datetime:
        return self._now() + timedelta(seconds=seconds)

    async def claim_all_tables(self, node: str, seconds: float) -> dict[int, int]:
        """Take every unfinished table for ``node``, whoever held it (the start of a
        single server, which is the only node). Returns each table's new epoch."""
        return await self._claim(node, seconds, true())

    async def claim_table(self, table_id: int, node: str, seconds: float, epoch: int) -> int | None:
        """Take the unfinished table ``table_id`` for ``node`` if its epoch is still
        ``epoch`` (the one seen when its lease was found expired, or 0 for a table
        just created). Returns the new epoch, or ``None`` if another node was first."""
        return (await self.claim_tables(node, seconds, {table_id: epoch})).get(table_id)

    async def claim_tables(
        self, node: str, seconds: float, epochs: dict[int, int]
    ) -> dict[int, int]:
        """Take for ``node`` each unfinished table of ``epochs`` (table id -> the
        epoch seen) whose epoch is still the one seen, in one statement: a
        compare-and-set per table. Returns the new epochs of the tables taken;
        another node was first to the others."""
        if not epochs:
            return {}
        seen = tuple_(GameTable.id, GameTable.owner_epoch).in_(list(epochs.items()))
        return await self._claim(node, seconds, seen)

    async def _claim(
        self, node: str, seconds: float, condition: ColumnElement[bool]
    ) -> dict[int, int]:
        """The unfinished tables that meet ``condition`` go to ``node``, their epochs
        raised; their new epochs."""
        taken = (GameTable.status.in_(_UNFINISHED), condition)
        async with self._write() as session:
            await self._lock_in_order(session, *taken)
            rows = await session.execute(
                update(GameTable)
                .where(*taken)
                .values(
                    owner_node=node,
                    owner_epoch=GameTable.owner_epoch + 1,
                    lease_until=self._until(seconds),
                )
                .returning(GameTable.id, GameTable.owner_epoch)
            )
            return {row.id: row.owner_epoch for row in rows}

    async def renew_leases(self, node: str, epochs: dict[int, int], seconds: float) -> list[int]:
        """Extend ``node``'s leases of the tables ``epochs`` (table id -> the epoch
        the node holds) by ``seconds`` from now. Returns the tables whose lease the
        node lost: another node took them. A table that ended meanwhile (its result
        stored while its actor is still finishing) has no lease left, but is not
        lost: its actor goes on until it is done.

        The tables are renewed :data:`RENEW_CHUNK` at a time, in the order of their
        ids, each chunk in a transaction of its own, so that the moves stored
        meanwhile wait for one chunk at most (for SQLite's single writer; on
        PostgreSQL, for the chunk's rows), not for all of the node's tables. On
        SQLite a chunk is one call into the thread of the store's writer connection
        (:func:`_renew_in_sqlite`)."""
        ids = sorted(epochs)
        as_stored = bind_processor(GameTable.__table__.c.lease_until, self._engine.dialect)
        lost: list[int] = []
        for start in range(0, len(ids), RENEW_CHUNK):
            chunk = {table_id: epochs[table_id] for table_id in ids[start : start + RENEW_CHUNK]}
            if self._sqlite:
                until = as_stored(self._until(seconds))
                lost += await self._sqlite_writer.run(_renew_in_sqlite, node, chunk, until)
            else:
                lost += await self._renew_chunk(node, chunk, seconds)
        return lost

    async def _renew_chunk(self, node: str, epochs: dict[int, int], seconds: float) -> list[int]:
        """One transaction of :meth:`renew_leases` through a session (PostgreSQL)."""
        held_here = (
            GameTable.id.in_(list(epochs)),
            GameTable.owner_node == node,
            GameTable.status.in_(_UNFINISHED),
        )
        async with self._write() as session:
            await self._lock_in_order(session, *held_here)
            rows = await session.execute(
                update(GameTable)
                .where(*held_here)
                .values(lease_until=self._until(seconds))
                .returning(GameTable.id, GameTable.owner_epoch)
            )
            held = {row.id: row.owner_epoch for row in rows}
            missing = [t for t, epoch in epochs.items() if held.get(t) != epoch]
            if not missing:
                return []
            running = await session.scalars(
                select(GameTable.id).where(
                    GameTable.id.in_(missing), GameTable.status.in_(_UNFINISHED)
                )
            )
            return sorted(running.all())

    async def release_tables(self, node: str, table_ids: Collection[int] | None = None) -> None:
        """Give up ``node``'s leases (of ``table_ids``, or all): another node may take
        them at once. The epochs stay; the next owner raises them."""
        found: ColumnElement[bool] = GameTable.owner_node == node
        if table_ids is not None:
            found = found & GameTable.id.in_(list(table_ids))
        async with self._write() as session:
            await self._lock_in_order(session, found)
            await session.execute(update(GameTable).where(found).values(owner_node=None))

    async def free_tables(
        self, live_nodes: Collection[str] | None = None, silent_for: float = 0.0
    ) -> list[Lease]:
        """The unfinished tables nobody holds: never taken, released, their lease
        expired, or (given the ``live_nodes``) held by a node that is not among them
        and whose lease runs out within ``silent_for`` seconds less than a fresh
        one (``lease_seconds - silent_for``): a node that is alive renews its leases,
        whatever another part (Redis) says about it."""
        now = self._now()
        conditions = [
            GameTable.owner_node.is_(None),
            GameTable.lease_until.is_(None),
            GameTable.lease_until < now,
        ]
        if live_nodes is not None:
            conditions.append(
                GameTable.owner_node.not_in(list(live_nodes))
                & (GameTable.lease_until < now + timedelta(seconds=silent_for))
            )
        return await self._leases(or_(*conditions))

    async def table_owner(self, table_id: int) -> str | None:
        """The node that holds the lease of an unfinished table (``None``: nobody, or
        no such unfinished table)."""
        if not is_id(table_id):
            return None
        async with self._read() as session:
            return await session.scalar(
                select(GameTable.owner_node).where(
                    GameTable.id == table_id, GameTable.status.in_(_UNFINISHED)
                )
            )

    async def invitation_owner(self, invitation_id: int) -> str | None:
        """The node that holds the lease of an invitation's table (``None``: nobody,
        no such invitation, or its table is not waiting or playing)."""
        if not is_id(invitation_id):
            return None
        async with self._read() as session:
            return await session.scalar(
                select(GameTable.owner_node)
                .join(Invitation, Invitation.table_id == GameTable.id)
                .where(Invitation.id == invitation_id, GameTable.status.in_(_UNFINISHED))
            )

    async def leases(self) -> list[Lease]:
        """Every unfinished table's lease (for the operators and tests)."""
        return await self._leases(true())

    async def _leases(self, condition: ColumnElement[bool]) -> list[Lease]:
        async with self._read() as session:
            rows = await session.execute(
                select(
                    GameTable.id, GameTable.owner_node, GameTable.owner_epoch, GameTable.lease_until
                )
                .where(GameTable.status.in_(_UNFINISHED), condition)
                .order_by(GameTable.id)
            )
            return [Lease(row.id, row.owner_node, row.owner_epoch, row.lease_until) for row in rows]

    async def _lock_in_order(self, session: AsyncSession, *conditions: ColumnElement[bool]) -> None:
        """Lock the rows of the tables that meet ``conditions`` in the order of their
        ids, for an update that changes no key (PostgreSQL's ``FOR NO KEY UPDATE``,
        which lets the inserts of moves that refer to these tables go on). SQLite has
        one writer at a time and no row locks: nothing to do there."""
        if self._sqlite:
            return
        await session.execute(
            select(GameTable.id)
            .where(*conditions)
            .order_by(GameTable.id)
            .with_for_update(key_share=True)
        )


def _renew_in_sqlite(
    connection: sqlite3.Connection, node: str, epochs: dict[int, int], until: Any
) -> list[int]:
    """:meth:`LeaseStore.renew_leases` in the SQLite writer's thread: one update of
    the node's rows among ``epochs`` and, only if some epoch differs, one query
    for which of those tables still run. The ids go in as one JSON array."""
    table = GameTable.__tablename__
    unfinished = f"status IN ({', '.join('?' * len(_UNFINISHED))})"

    def work() -> list[int]:
        held = dict(
            connection.execute(
                f"UPDATE {table} SET lease_until = ? WHERE owner_node = ? AND {unfinished} "
                "AND id IN (SELECT value FROM json_each(?)) RETURNING id, owner_epoch",
                (until, node, *_UNFINISHED, json.dumps(list(epochs))),
            ).fetchall()
        )
        missing = [t for t, epoch in epochs.items() if held.get(t) != epoch]
        if not missing:
            return []
        running = connection.execute(
            f"SELECT id FROM {table} WHERE {unfinished} AND id IN (SELECT value FROM json_each(?))",
            (*_UNFINISHED, json.dumps(missing)),
        ).fetchall()
        return sorted(row[0] for row in running)

    return immediate(connection, work)
