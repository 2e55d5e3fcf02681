"""The action log: storing a table's accepted actions, version after version.

Appends are group-committed: one writer task stores every append that arrived
while its previous transaction ran in a single transaction (one commit, one
fsync), and each caller learns its own outcome after that commit. A refused
append never holds back the others of its group.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, bad, check_json, is_id, is_int, lease_lost
from romme.store.errors import StoreError
from romme.store.models import GameTable, TableAction

__all__ = ["ActionLogStore", "AppendWriter"]


class ActionLogStore(StoreCore):
    """The store's action logs (see :class:`romme.store.Store`)."""

    @functools.cached_property
    def _appends(self) -> AppendWriter:
        return AppendWriter(self._write, self._now, sqlite=self._sqlite)

    async def append_actions(
        self,
        table_id: int,
        first_version: int,
        actions: list[dict[str, Any]],
        epoch: int | None = None,
    ) -> None:
        """Store ``actions`` as versions ``first_version``, ``first_version + 1``, ...
        in one transaction, committed before this returns.

        ``version_conflict`` (and nothing stored) if one of these versions exists
        or if ``first_version`` does not follow the table's last stored version
        (a gap would make the log useless for recovery). ``lease_lost`` (and
        nothing stored) if ``epoch`` is given and is no longer the table's owner
        epoch (:mod:`romme.store.leases`): another node took the table. Appends
        are group-committed (:class:`AppendWriter`)."""
        if not is_int(first_version) or first_version < 0:
            raise bad("first_version is a non-negative integer")
        if epoch is not None and not is_int(epoch):
            raise bad("epoch is an integer")
        if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
            raise bad("actions is a list of JSON objects")
        for action in actions:
            check_json(action, "an action")
        if not is_id(table_id):
            raise StoreError("no_such_table", f"there is no table {table_id!r}")
        await self._appends.append(table_id, first_version, actions, epoch)


@dataclasses.dataclass(slots=True)
class _Append:
    """An append waiting for the writer task; ``done`` is resolved after its commit."""

    table_id: int
    first_version: int
    actions: list[dict[str, Any]]
    epoch: int | None
    done: asyncio.Future[None]


class AppendWriter:
    """The queue of appends and the writer task that stores them in groups.

    ``write`` opens one write transaction, ``now`` is the store's clock and
    ``sqlite`` tells whether rows can be locked (PostgreSQL) or need not be
    (SQLite has one writer at a time)."""

    def __init__(
        self,
        write: Callable[[], AbstractAsyncContextManager[AsyncSession]],
        now: Callable[[], datetime],
        *,
        sqlite: bool,
    ) -> None:
        self._write = write
        self._now = now
        self._sqlite = sqlite
        self._waiting: list[_Append] = []
        self._storing: list[_Append] = []
        self.task: asyncio.Task[None] | None = None
        """The writer task while there are appends to store, else ``None``."""

    async def append(
        self,
        table_id: int,
        first_version: int,
        actions: list[dict[str, Any]],
        epoch: int | None = None,
    ) -> None:
        """Queue one append (checked by the caller) and wait for its commit."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Append(table_id, first_version, actions, epoch, done))
        if self.task is None:
            self.task = asyncio.create_task(self._store_appends())
            self.task.add_done_callback(self._writer_stopped)
        await asyncio.shield(done)

    async def drain(self) -> None:
        """Wait until the appends under way are stored (or refused)."""
        if self.task is not None:
            await asyncio.wait([self.task])

    async def _store_appends(self) -> None:
        """The writer task: store the waiting appends in groups until none is left."""
        while self._waiting:
            group, self._waiting = self._waiting, []
            self._storing = group
            try:
                outcomes = await self._append_group(group)
            except Exception:  # each append is retried on its own
                outcomes = [await self._append_alone(append) for append in group]
            for append, outcome in zip(group, outcomes, strict=True):
                if append.done.done():
                    continue
                if outcome is None:
                    append.done.set_result(None)
                else:
                    append.done.set_exception(outcome)
            self._storing = []
        self.task = None  # at once: the next append starts a new writer

    def _writer_stopped(self, task: asyncio.Task[None]) -> None:
        """If the writer was cancelled (or failed) the appends it held or that were
        waiting are refused, and the next append starts a new writer."""
        if self.task is task:
            self.task = None
        if not task.cancelled() and task.exception() is None:
            return
        for append in [*self._storing, *self._waiting]:
            if not append.done.done():
                append.done.set_exception(
                    StoreError("server_busy", "the store stopped before storing this")
                )
        self._storing, self._waiting = [], []

    async def _append_group(self, group: list[_Append]) -> list[Exception | None]:
        """One transaction for ``group``: the refusals are decided first, the rest
        is inserted with one statement and committed. Returns each append's outcome."""
        ids = sorted({append.table_id for append in group})
        outcomes: list[Exception | None] = []
        rows: list[dict[str, Any]] = []
        async with self._write() as session:
            found = select(GameTable.id, GameTable.status, GameTable.owner_epoch).where(
                GameTable.id.in_(ids)
            )
            if not self._sqlite:
                # A share lock: a node that takes one of these tables (raising its
                # epoch) waits for this commit, or this read sees its new epoch.
                found = found.order_by(GameTable.id).with_for_update(read=True)
            tables = {row.id: row for row in await session.execute(found)}
            last: dict[int, int | None] = dict.fromkeys(ids)
            last.update(
                (row.table_id, row.last)
                for row in await session.execute(
                    select(TableAction.table_id, func.max(TableAction.version).label("last"))
                    .where(TableAction.table_id.in_(ids))
                    .group_by(TableAction.table_id)
                )
            )
            now = self._now()
            for append in group:
                table_id, first = append.table_id, append.first_version
                outcome: Exception | None = None
                table = tables.get(table_id)
                if table is None:
                    outcome = StoreError("no_such_table", f"there is no table {table_id}")
                elif append.epoch is not None and append.epoch != table.owner_epoch:
                    outcome = lease_lost(table_id, table.owner_epoch, append.epoch)
                elif table.status == "finished":
                    outcome = StoreError("game_over", f"table {table_id}'s game is finished")
                elif last[table_id] is not None and first != last[table_id] + 1:  # type: ignore[operator]
                    outcome = _version_conflict(table_id, first, last[table_id])
                else:
                    rows.extend(
                        {
                            "table_id": table_id,
                            "version": first + offset,
                            "action": action,
                            "created_at": now,
                        }
                        for offset, action in enumerate(append.actions)
                    )
                    if append.actions:
                        last[table_id] = first + len(append.actions) - 1
                outcomes.append(outcome)
            if rows:
                await session.execute(insert(TableAction), rows)
        return outcomes

    async def _append_alone(self, append: _Append) -> Exception | None:
        """``append`` in a transaction of its own (after its group failed as a whole,
        e.g. because another process stored one of its versions first)."""
        try:
            outcomes = await self._append_group([append])
        except IntegrityError:  # the same version, stored a moment ago
            return _version_conflict(append.table_id, append.first_version, None)
        except Exception as error:  # handed to the caller
            return error
        return outcomes[0]


def _version_conflict(table_id: int, first_version: int, last: int | None) -> StoreError:
    if last is None:
        detail = "that version is stored already"
    else:
        detail = f"the last stored version is {last}"
    return StoreError(
        "version_conflict", f"table {table_id}: cannot store version {first_version}: {detail}"
    )
