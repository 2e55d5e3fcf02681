"""What every part of the store shares: the transactions (one writer at a time on
SQLite), the clock, looking up the rows a call names, and the small checks and
conversions of input and output.

The store's methods live in one file per concern (players, sessions, tables, the
action log, results, chat, invitations, housekeeping); each is a class on top of
:class:`StoreCore`, and :class:`romme.store.Store` combines them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy import String, cast, select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from romme.store import accounts, ratings
from romme.store.database import sqlite_connector, writer
from romme.store.errors import StoreError
from romme.store.lookalikes import skeleton
from romme.store.models import GameTable, Player
from romme.store.records import PlayerRecord
from romme.store.sqlite_writer import SqliteWriter

__all__ = ["StoreCore"]

ID_MAX = 2**31 - 1
"""The largest row id (PostgreSQL's ``integer``)."""
RELEASED = "~released:"
"""Prefix of a released guest's nickname key: "~" is never in a nickname."""


class StoreCore:
    """The connection to the database and what each of the store's methods needs
    from it. Use :class:`romme.store.Store`."""

    url: str

    def __init__(
        self,
        url: str,
        engine: AsyncEngine,
        *,
        password_hasher: PasswordHasher,
        clock: Callable[[], datetime],
        accounts_per_hour: int = 0,
        sqlite_synchronous: str = "full",
    ) -> None:
        """Use :meth:`romme.store.Store.open`."""
        self._sqlite_synchronous = sqlite_synchronous
        self.url = url
        self.accounts_per_hour = accounts_per_hour
        self._engine = engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._write_sessions = async_sessionmaker(writer(engine), expire_on_commit=False)
        self._hasher = password_hasher
        self._clock = clock
        self._sqlite = engine.dialect.name == "sqlite"
        self._write_lock = asyncio.Lock()
        self.results_version = 0
        """Raised each time this store records a game's result: figures computed
        from the results (the platform's card luck) are kept until it changes."""

    @functools.cached_property
    def _sqlite_writer(self) -> SqliteWriter:
        """SQLite's writer thread, for the transactions that run whole in it (the
        groups of moves, the renewal of leases)."""
        connect = sqlite_connector(self._engine, self._sqlite_synchronous)
        return SqliteWriter(connect, self._write_lock)

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session:
            yield session

    @contextlib.asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncSession]:
        """One transaction: committed at the end, rolled back on any error."""
        lock = self._write_lock if self._sqlite else contextlib.nullcontext()
        async with lock, self._write_sessions() as session, session.begin():
            yield session

    def _now(self) -> datetime:
        now = self._clock()
        if now.tzinfo is None:
            raise ValueError("the store's clock must return aware datetimes")
        return now.astimezone(UTC)

    @staticmethod
    async def _player_by_key(session: AsyncSession, key: str) -> Player | None:
        found: Player | None = await session.scalar(
            select(Player).where(Player.nickname_key == key)
        )
        return found

    @staticmethod
    async def _require_player(session: AsyncSession, player_id: int, lock: bool = False) -> Player:
        if not is_id(player_id):
            raise StoreError("no_such_player", f"there is no player {player_id!r}")
        player = await session.get(
            Player, player_id, with_for_update={"key_share": True} if lock else None
        )
        if player is None:
            raise StoreError("no_such_player", f"there is no player {player_id}")
        return player

    async def _player_named(self, session: AsyncSession, nickname: object) -> Player:
        """The player of a nickname, or of an id (an ``int``)."""
        if isinstance(nickname, int) and not isinstance(nickname, bool):
            return await self._require_player(session, nickname)
        key = accounts.lookup_key(nickname) if isinstance(nickname, str) else None
        player = None if key is None else await self._player_by_key(session, key)
        if player is None:
            raise StoreError("no_such_player", f"there is no player {nickname!r}")
        return player

    @staticmethod
    async def _require_table(
        session: AsyncSession, table_id: int, lock: bool = False, epoch: int | None = None
    ) -> GameTable:
        """The table's row, locked against other writers of it (``lock``, also
        whenever ``epoch`` is given). With ``epoch`` (the ownership lease's epoch a
        node holds, :mod:`romme.store.leases`) it must still be the table's:
        ``lease_lost`` otherwise. The lock makes a node that takes the table
        (raising its epoch) wait for this transaction, or this read see the new
        epoch."""
        if not is_id(table_id):
            raise StoreError("no_such_table", f"there is no table {table_id!r}")
        if epoch is not None and not is_int(epoch):
            raise bad("epoch is an integer")
        locked = lock or epoch is not None
        table = await session.get(
            GameTable, table_id, with_for_update={"key_share": True} if locked else None
        )
        if table is None:
            raise StoreError("no_such_table", f"there is no table {table_id}")
        if epoch is not None and epoch != table.owner_epoch:
            raise lease_lost(table_id, table.owner_epoch, epoch)
        return table

    def _new_player(
        self,
        nickname: str,
        *,
        guest: bool,
        password_hash: str | None = None,
        bot_level: str | None = None,
    ) -> Player:
        now = self._now()
        return Player(
            nickname=nickname,
            nickname_key=accounts.nickname_key(nickname),
            nickname_skeleton=skeleton(nickname),
            password_hash=password_hash,
            guest=guest,
            is_bot=bot_level is not None,
            bot_level=bot_level,
            mu=ratings.DEFAULT_MU,
            sigma=ratings.DEFAULT_SIGMA,
            rating=ratings.ordinal(ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA),
            games_played=0,
            games_won=0,
            xp=0,
            created_at=now,
            registered_at=None if guest or bot_level is not None else now,
        )


# ------------------------------------------------------------ input checks


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_id(value: object) -> bool:
    """Whether a row could have this id (a bigger number would overflow the column)."""
    return is_int(value) and 0 < value <= ID_MAX  # type: ignore[operator]


def bad(message: str) -> StoreError:
    return StoreError("bad_message", message)


def lease_lost(table_id: int, held: int, epoch: int) -> StoreError:
    """The refusal of a write by a node whose lease of the table (``epoch``) is no
    longer the table's (``held``): another node took the table."""
    return StoreError(
        "lease_lost",
        f"table {table_id} belongs to epoch {held} now, not {epoch}: another node took it",
    )


def check_json(value: object, what: str) -> None:
    """Refuse what JSON cannot hold (or what PostgreSQL's json refuses: NaN, NUL)."""
    try:
        encoded = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise bad(f"{what} cannot be stored as JSON: {exc}") from None
    if "\\u0000" in encoded:
        raise bad(f"{what} holds a NUL character")


def taken(nickname: str) -> StoreError:
    return StoreError("nickname_taken", f"the nickname {nickname!r} is taken")


# ------------------------------------------------------------ output


def utc_now() -> datetime:
    return datetime.now(UTC)


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def rowcount(result: Any) -> int:
    """Rows an UPDATE or DELETE touched."""
    return int(result.rowcount)


def player_record(player: Player) -> PlayerRecord:
    return PlayerRecord(
        id=player.id,
        nickname=player.nickname,
        guest=player.guest,
        is_bot=player.is_bot,
        rating=player.rating,
        mu=player.mu,
        sigma=player.sigma,
        games_played=player.games_played,
        games_won=player.games_won,
        xp=player.xp,
        released=released(player),
    )


# ------------------------------------------------------------ released guests


def released(player: Player) -> bool:
    return player.nickname_key.startswith(RELEASED)


async def release_guests(session: AsyncSession, *where: Any) -> int:
    """Free the nicknames of the guests (not bots, not released yet) that match
    ``where``; returns how many."""
    return rowcount(
        await session.execute(
            update(Player)
            .where(
                Player.guest.is_(True),
                Player.is_bot.is_(False),
                ~Player.nickname_key.startswith(RELEASED),
                *where,
            )
            .values(nickname_key=RELEASED + cast(Player.id, String))
            .execution_options(synchronize_session=False)
        )
    )
