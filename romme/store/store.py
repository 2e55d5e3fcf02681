"""The store: every piece of the game server's persistent state behind one async API.

Accounts, tables with their action logs, finished games with ratings and
statistics, chat and invitations, on SQLite (the default, one file) or
PostgreSQL. Each method is one short transaction; bad input raises
:class:`StoreError` with a code of the wire protocol and changes nothing.

The action log of a table is the source of truth: a table is rebuilt after a
restart from its rules, match seed and actions (:meth:`Store.tables_to_rebuild`).

:class:`Store` combines one class per concern, each in its own module:
:mod:`~romme.store.players`, :mod:`~romme.store.sessions`,
:mod:`~romme.store.tables`, :mod:`~romme.store.action_log`,
:mod:`~romme.store.results`, :mod:`~romme.store.chat`,
:mod:`~romme.store.invitations`, :mod:`~romme.store.housekeeping`,
:mod:`~romme.store.history`, :mod:`~romme.store.friends`,
:mod:`~romme.store.reports`, :mod:`~romme.store.moderation`,
:mod:`~romme.store.account_owner`, :mod:`~romme.store.leases` and
:mod:`~romme.store.rebuild`, on top of :mod:`~romme.store.core` and
:mod:`~romme.store.database`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

from argon2 import PasswordHasher
from sqlalchemy import text
from sqlalchemy.engine import make_url

from romme.store.account_owner import AccountOwnerStore
from romme.store.action_log import ActionLogStore
from romme.store.analyses import AnalysisStore
from romme.store.chat import CHAT_MAX, ChatStore
from romme.store.chips import ChipStore
from romme.store.core import utc_now
from romme.store.database import DEFAULT_URL, make_engine, migrate, normalise_url, writer
from romme.store.fairplay import FairPlayStore
from romme.store.friends import FriendStore
from romme.store.game_signals import GameSignalStore
from romme.store.history import HistoryStore
from romme.store.housekeeping import Housekeeping
from romme.store.invitations import INVITATION_TTL_MS, InvitationStore
from romme.store.leases import LeaseStore
from romme.store.moderation import ModerationStore
from romme.store.players import PlayerStore
from romme.store.rebuild import RebuildStore
from romme.store.reports import ReportStore
from romme.store.results import ResultStore
from romme.store.sanction_links import SanctionLinkStore
from romme.store.sessions import SessionStore
from romme.store.statistics import StatisticsStore
from romme.store.tables import TABLE_STATUSES, TableStore

__all__ = [
    "CHAT_MAX",
    "DEFAULT_URL",
    "INVITATION_TTL_MS",
    "TABLE_STATUSES",
    "Store",
    "make_engine",
    "normalise_url",
    "writer",
]


class Store(
    PlayerStore,
    SessionStore,
    TableStore,
    ActionLogStore,
    ResultStore,
    ChatStore,
    InvitationStore,
    ReportStore,
    ModerationStore,
    SanctionLinkStore,
    AnalysisStore,
    Housekeeping,
    HistoryStore,
    FriendStore,
    AccountOwnerStore,
    StatisticsStore,
    ChipStore,
    FairPlayStore,
    GameSignalStore,
    LeaseStore,
    RebuildStore,
):
    """The game server's persistence. Open with :meth:`Store.open`, which creates
    and migrates the database; :meth:`close` when done.

    Safe for concurrent use from one event loop. On SQLite, writes queue behind one
    lock (SQLite has one writer at a time anyway) while reads run alongside them.
    """

    @classmethod
    async def open(
        cls,
        url: str | None = None,
        *,
        password_hasher: PasswordHasher | None = None,
        clock: Callable[[], datetime] | None = None,
        accounts_per_hour: int = 0,
        sqlite_synchronous: str = "full",
    ) -> Store:
        """Connect to ``url`` (default: ``sqlite+aiosqlite:///./var/romme.db``,
        creating ``./var``), create the database's tables or migrate them to the
        newest schema, and return the store.

        ``password_hasher``: argon2 parameters (default: argon2-cffi's
        recommended ones). ``clock``: the time source, returning aware UTC datetimes.
        ``accounts_per_hour``: new accounts one address may create in an hour
        (0: no limit; see :mod:`romme.store.limits`). ``sqlite_synchronous``:
        ``full`` or ``normal``, how a SQLite commit reaches the disk (docs/store.md,
        "Durability"; not used with PostgreSQL).
        """
        url = normalise_url(url or DEFAULT_URL)
        engine = make_engine(url, sqlite_synchronous)
        try:
            await migrate(engine)
        except BaseException:
            await engine.dispose()
            raise
        return cls(
            url,
            engine,
            password_hasher=password_hasher or PasswordHasher(),
            clock=clock or utc_now,
            accounts_per_hour=accounts_per_hour,
            sqlite_synchronous=sqlite_synchronous,
        )

    async def close(self) -> None:
        """Finish the appends under way, then close every connection. The store
        cannot be used afterwards."""
        await self._appends.close()
        if self._sqlite:
            await self._sqlite_writer.close()
        await self._engine.dispose()

    async def ping(self) -> bool:
        """Whether the database answers (within five seconds)."""
        try:
            async with asyncio.timeout(5):
                async with self._engine.connect() as connection:
                    await connection.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    def __repr__(self) -> str:
        return f"<Store {make_url(self.url)!s}>"
