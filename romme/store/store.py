"""The store: every piece of the game server's persistent state behind one async API.

Accounts, tables with their action logs, finished games with ratings and
statistics, chat and invitations, on SQLite (the default, one file) or
PostgreSQL. Each method is one short transaction; bad input raises
:class:`StoreError` with a code of the wire protocol and changes nothing.

The action log of a table is the source of truth: a table is rebuilt after a
restart from its rules, match seed and actions (:meth:`Store.unfinished_tables`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import re
import secrets
import sqlite3
import time
import unicodedata
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy import (
    Connection,
    String,
    cast,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from romme.engine.fairness import commitment_of, round_seed
from romme.store import accounts, limits, ratings
from romme.store.errors import StoreError
from romme.store.lookalikes import skeleton
from romme.store.migrate import upgrade_to_head
from romme.store.models import (
    ChatMessage,
    GameResult,
    GameSeat,
    GameTable,
    Invitation,
    LoginSession,
    Player,
    RateCounter,
    TableAction,
)
from romme.store.records import PlayerRecord, TableRecord

__all__ = [
    "CHAT_MAX",
    "DEFAULT_URL",
    "INVITATION_TTL_MS",
    "TABLE_STATUSES",
    "Store",
    "make_engine",
    "normalise_url",
]

DEFAULT_URL = "sqlite+aiosqlite:///./var/romme.db"
CHAT_MAX = 500
INVITATION_TTL_MS = 2 * 60 * 1000
TABLE_STATUSES = ("waiting", "playing", "finished", "closed")
"""``closed``: a table given up before its game ended (e.g. the host left)."""
UNFINISHED = ("waiting", "playing")
RECENT_GAMES = 10
_BOT_LEVEL = re.compile(r"[a-z][a-z0-9_-]{0,15}\Z")
_PG_MIGRATION_LOCK = 0x726F6D6D65  # "romme": one migrating process at a time
_CHAT_RAW_MAX = 4 * CHAT_MAX
_WRITER_OPTION = "romme_writer"
SESSION_DAYS = 30
"""How long a session lasts (and its cookie)."""
_SEEN_EVERY = timedelta(hours=1)
"""A session's ``last_seen_at`` is brought up to date at most this often."""
_ID_MAX = 2**31 - 1
"""The largest row id (PostgreSQL's ``integer``)."""


def normalise_url(url: str) -> str:
    """The URL with the async driver filled in: ``postgresql://`` and ``postgres://``
    become ``postgresql+asyncpg://``, ``sqlite://`` becomes ``sqlite+aiosqlite://``."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "postgresql":
        parsed = parsed.set(drivername="postgresql+asyncpg")
    elif backend == "sqlite":
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    else:
        raise ValueError(f"the store runs on SQLite or PostgreSQL, not {backend!r}")
    return parsed.render_as_string(hide_password=False)


def _sqlite_file(url: URL) -> Path | None:
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: object) -> bool:
    """Whether a row could have this id (a bigger number would overflow the column)."""
    return _is_int(value) and 0 < value <= _ID_MAX  # type: ignore[operator]


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _bad(message: str) -> StoreError:
    return StoreError("bad_message", message)


def _check_json(value: object, what: str) -> None:
    """Refuse what JSON cannot hold (or what PostgreSQL's json refuses: NaN, NUL)."""
    try:
        encoded = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _bad(f"{what} cannot be stored as JSON: {exc}") from None
    if "\\u0000" in encoded:
        raise _bad(f"{what} holds a NUL character")


def _clean_chat(text: object) -> str:
    """Chat text without control characters (newlines stay), or raise."""
    if not isinstance(text, str):
        raise StoreError("chat_empty", "a chat message is text")
    if len(text) > _CHAT_RAW_MAX:
        raise StoreError("chat_too_long", f"a chat message has at most {CHAT_MAX} characters")
    cleaned = "".join(
        char for char in text if char == "\n" or unicodedata.category(char) not in ("Cc", "Cs")
    )
    if not cleaned.strip():
        raise StoreError("chat_empty", "the message is empty")
    if len(cleaned) > CHAT_MAX:
        raise StoreError("chat_too_long", f"a chat message has at most {CHAT_MAX} characters")
    return cleaned


_RELEASED = "~released:"
"""Prefix of a released guest's nickname key: "~" is never in a nickname."""


async def _release_guests(session: AsyncSession, *where: Any) -> int:
    """Free the nicknames of the guests (not bots, not released yet) that match
    ``where``; returns how many."""
    return _rowcount(
        await session.execute(
            update(Player)
            .where(
                Player.guest.is_(True),
                Player.is_bot.is_(False),
                ~Player.nickname_key.startswith(_RELEASED),
                *where,
            )
            .values(nickname_key=_RELEASED + cast(Player.id, String))
            .execution_options(synchronize_session=False)
        )
    )


def _rowcount(result: Any) -> int:
    """Rows an UPDATE or DELETE touched."""
    return int(result.rowcount)


def _released(player: Player) -> bool:
    return player.nickname_key.startswith(_RELEASED)


def _record(player: Player) -> PlayerRecord:
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
        released=_released(player),
    )


@dataclasses.dataclass(slots=True)
class _Append:
    """An append waiting for the writer task; ``done`` is resolved after its commit."""

    table_id: int
    first_version: int
    actions: list[dict[str, Any]]
    done: asyncio.Future[None]


class Store:
    """The game server's persistence. Open with :meth:`Store.open`, which creates
    and migrates the database; :meth:`close` when done.

    Safe for concurrent use from one event loop. On SQLite, writes queue behind one
    lock (SQLite has one writer at a time anyway) while reads run alongside them.
    """

    url: str

    def __init__(
        self,
        url: str,
        engine: AsyncEngine,
        *,
        password_hasher: PasswordHasher,
        clock: Callable[[], datetime],
        accounts_per_hour: int = 0,
    ) -> None:
        """Use :meth:`Store.open`."""
        self.url = url
        self.accounts_per_hour = accounts_per_hour
        self._dummy_hash: str | None = None
        self._engine = engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._write_sessions = async_sessionmaker(writer(engine), expire_on_commit=False)
        self._hasher = password_hasher
        self._clock = clock
        self._sqlite = engine.dialect.name == "sqlite"
        self._write_lock = asyncio.Lock()
        self._appends: list[_Append] = []
        self._appender: asyncio.Task[None] | None = None
        self._storing: list[_Append] = []

    # ------------------------------------------------------------- lifecycle

    @classmethod
    async def open(
        cls,
        url: str | None = None,
        *,
        password_hasher: PasswordHasher | None = None,
        clock: Callable[[], datetime] | None = None,
        accounts_per_hour: int = 0,
    ) -> Store:
        """Connect to ``url`` (default: ``sqlite+aiosqlite:///./var/romme.db``,
        creating ``./var``), create the database's tables or migrate them to the
        newest schema, and return the store.

        ``password_hasher``: argon2 parameters (default: argon2-cffi's
        recommended ones). ``clock``: the time source, returning aware UTC datetimes.
        ``accounts_per_hour``: new accounts one address may create in an hour
        (0: no limit; see :mod:`romme.store.limits`).
        """
        url = normalise_url(url or DEFAULT_URL)
        engine = make_engine(url)
        try:
            async with writer(engine).begin() as connection:
                if engine.dialect.name == "postgresql":
                    await connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK}
                    )
                await connection.run_sync(_migrate)
        except BaseException:
            await engine.dispose()
            raise
        return cls(
            url,
            engine,
            password_hasher=password_hasher or PasswordHasher(),
            clock=clock or _utc_now,
            accounts_per_hour=accounts_per_hour,
        )

    async def close(self) -> None:
        """Finish the appends under way, then close every connection. The store
        cannot be used afterwards."""
        if self._appender is not None:
            await asyncio.wait([self._appender])
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

    # ------------------------------------------------------------- sessions

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
        if not _is_id(player_id):
            raise StoreError("no_such_player", f"there is no player {player_id!r}")
        player = await session.get(
            Player, player_id, with_for_update={"key_share": True} if lock else None
        )
        if player is None:
            raise StoreError("no_such_player", f"there is no player {player_id}")
        return player

    @staticmethod
    async def _require_table(session: AsyncSession, table_id: int, lock: bool = False) -> GameTable:
        if not _is_id(table_id):
            raise StoreError("no_such_table", f"there is no table {table_id!r}")
        table = await session.get(
            GameTable, table_id, with_for_update={"key_share": True} if lock else None
        )
        if table is None:
            raise StoreError("no_such_table", f"there is no table {table_id}")
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
            created_at=now,
            registered_at=None if guest or bot_level is not None else now,
        )

    # ------------------------------------------------------------- accounts

    async def create_guest(self, nickname: str, address: str | None = None) -> PlayerRecord:
        """A new guest account (no password; its rating is never kept). ``address``:
        the client's, counted against :attr:`accounts_per_hour` (``too_many_accounts``)."""
        nickname = accounts.validate_nickname(nickname)
        key = accounts.nickname_key(nickname)
        try:
            async with self._write() as session:
                if await self._player_by_key(session, key) is not None:
                    raise _taken(nickname)
                await self._refuse_lookalike(session, nickname)
                await self._count_new_account(session, address)
                player = self._new_player(nickname, guest=True)
                session.add(player)
                await session.flush()
        except IntegrityError:  # the same nickname, taken a moment ago
            raise _taken(nickname) from None
        return _record(player)

    async def register(
        self,
        nickname: str,
        password: str,
        guest_id: int | None = None,
        address: str | None = None,
    ) -> PlayerRecord:
        """A registered account. With ``guest_id``, that guest becomes registered and
        keeps its history (and is renamed if ``nickname`` is another, free one).
        ``address``: as for :meth:`create_guest` (a guest who registers is no new
        account and is not counted)."""
        nickname = accounts.validate_nickname(nickname)
        accounts.validate_password(password)
        key = accounts.nickname_key(nickname)
        # Hashing is slow on purpose: look for a clash first, and hash off the loop.
        async with self._read() as session:
            holder = await self._player_by_key(session, key)
        if holder is not None and (guest_id is None or holder.id != guest_id):
            raise _taken(nickname)
        password_hash = await asyncio.to_thread(accounts.hash_password, self._hasher, password)
        try:
            async with self._write() as session:
                holder = await self._player_by_key(session, key)
                if guest_id is None:
                    if holder is not None:
                        raise _taken(nickname)
                    await self._refuse_lookalike(session, nickname)
                    await self._count_new_account(session, address)
                    player = self._new_player(nickname, guest=False, password_hash=password_hash)
                    session.add(player)
                else:
                    player = await self._require_player(session, guest_id, lock=True)
                    if not player.guest:
                        raise StoreError("no_such_player", f"player {guest_id} is not a guest")
                    if holder is not None and holder.id != player.id:
                        raise _taken(nickname)
                    await self._refuse_lookalike(session, nickname, player.id)
                    player.nickname = nickname
                    player.nickname_key = key
                    player.nickname_skeleton = skeleton(nickname)
                    player.password_hash = password_hash
                    player.guest = False
                    player.registered_at = self._now()
                await session.flush()
        except IntegrityError:
            raise _taken(nickname) from None
        return _record(player)

    async def login(self, nickname: str, password: str, address: str | None = None) -> PlayerRecord:
        """The registered player with this nickname and password, or
        ``bad_credentials``; ``too_many_attempts`` (:class:`limits.LimitReached`)
        after repeated failures for the account or from ``address``.

        An unknown nickname costs as much as a wrong password: the password is
        checked against a stand-in hash, so the time of the answer does not tell
        whether the account exists."""
        key = accounts.lookup_key(nickname)
        fits = accounts.password_fits(password)
        dummy = await self._stand_in_hash()
        async with self._read() as session:
            player = None if key is None else await self._player_by_key(session, key)
        stored_hash = None if player is None else player.password_hash
        counted = await self._count_login_failure(key, player, address)
        right = fits and await asyncio.to_thread(
            accounts.verify_password, self._hasher, stored_hash or dummy, password
        )
        async with self._write() as session:
            for counter in counted:
                backoff = (
                    limits.ACCOUNT_LOGINS
                    if counter.startswith("login-account:")
                    else limits.ADDRESS_LOGINS
                )
                if not right or player is None or stored_hash is None:
                    await limits.confirm_failure(session, counter, backoff, self._now())
                elif backoff is limits.ACCOUNT_LOGINS:
                    await limits.forget(session, counter)
                else:
                    await limits.take_back_failure(session, counter, backoff)
        if not right or player is None or stored_hash is None:
            raise _bad_credentials()
        if accounts.needs_rehash(self._hasher, stored_hash):
            new_hash = await asyncio.to_thread(accounts.hash_password, self._hasher, password)
            async with self._write() as session:
                fresh = await session.get(Player, player.id)
                if fresh is not None and fresh.password_hash == stored_hash:
                    fresh.password_hash = new_hash
        return _record(player)

    async def _stand_in_hash(self) -> str:
        """A hash of a random password, made with this store's hasher, that unknown
        nicknames are checked against."""
        if self._dummy_hash is None:
            self._dummy_hash = await asyncio.to_thread(
                accounts.hash_password, self._hasher, secrets.token_urlsafe(16)
            )
        return self._dummy_hash

    async def _count_login_failure(
        self, key: str | None, player: Player | None, address: str | None
    ) -> list[str]:
        """Count a login attempt as failed before its password is checked (refusing
        it if a limit blocks it); returns the counters to take back if it succeeds.

        The account's counter does not apply at an address the account has had a
        session from in the last 30 days: there, only the address's own counter
        does, so that guesses from elsewhere cannot lock the owner out at home."""
        counted: list[str] = []
        now = self._now()
        async with self._write() as session:
            if address is not None:
                counter = limits.address_key("login-address", address)
                await limits.count_failure(session, counter, limits.ADDRESS_LOGINS, now)
                counted.append(counter)
            if key is not None:
                known = False
                if address is not None:
                    known = (
                        await session.scalar(
                            select(LoginSession.id)
                            .where(
                                LoginSession.player_id == (player.id if player else 0),
                                LoginSession.address == address[:64],
                            )
                            .limit(1)
                        )
                        is not None
                    )
                if not known:
                    counter = limits.account_key(key)
                    await limits.count_failure(session, counter, limits.ACCOUNT_LOGINS, now)
                    counted.append(counter)
        return counted

    async def _refuse_lookalike(
        self, session: AsyncSession, nickname: str, own_id: int | None = None
    ) -> None:
        """``nickname_confusable`` if another player's nickname looks like this one."""
        query = select(Player.nickname, Player.nickname_key).where(
            Player.nickname_skeleton == skeleton(nickname),
            ~Player.nickname_key.startswith(_RELEASED),
        )
        if own_id is not None:
            query = query.where(Player.id != own_id)
        other = (await session.execute(query.limit(1))).first()
        if other is not None and other.nickname_key == accounts.nickname_key(nickname):
            raise _taken(nickname)  # taken a moment ago
        if other is not None:
            raise StoreError(
                "nickname_confusable",
                f"the nickname {nickname!r} looks too much like {other.nickname!r}",
            )

    async def _count_new_account(self, session: AsyncSession, address: str | None) -> None:
        if address is not None:
            await limits.count_account(
                session,
                limits.address_key("accounts", address),
                self.accounts_per_hour,
                self._now(),
            )

    async def get_player(self, player_id: int) -> PlayerRecord | None:
        if not _is_id(player_id):
            return None
        async with self._read() as session:
            player = await session.get(Player, player_id)
            return None if player is None else _record(player)

    async def find_player(self, nickname: str) -> PlayerRecord | None:
        """The player with this nickname, whatever its case."""
        key = accounts.lookup_key(nickname)
        if key is None:
            return None
        async with self._read() as session:
            player = await self._player_by_key(session, key)
            return None if player is None else _record(player)

    async def release_guest(self, player_id: int) -> bool:
        """Free a guest's nickname for others (a guest who logged out can never come
        back: a guest has no password). The guest's games keep the name it played
        under; the released account no longer counts as a session. Returns whether
        a guest was released (``False`` for registered players, bots, unknown ids
        and guests released before)."""
        if not _is_id(player_id):
            return False
        async with self._write() as session:
            return await _release_guests(session, Player.id == player_id) == 1

    # ------------------------------------------------------------- sessions

    async def create_session(
        self, player_id: int, address: str, user_agent: str, replacing: str | None = None
    ) -> str:
        """A new session of this player; returns its token (for the cookie; only
        its hash is stored). ``replacing``: the token of the session the client
        had, which is revoked (a new login gets a new session)."""
        token = secrets.token_urlsafe(32)
        now = self._now()
        async with self._write() as session:
            await self._require_player(session, player_id)
            if replacing is not None:
                await self._revoke(session, LoginSession.token_hash == _token_hash(replacing))
            session.add(
                LoginSession(
                    token_hash=_token_hash(token),
                    player_id=player_id,
                    address=address[:64],
                    user_agent=_printable(user_agent)[:200],
                    created_at=now,
                    last_seen_at=now,
                    expires_at=now + timedelta(days=SESSION_DAYS),
                )
            )
        return token

    async def session_player(self, player_id: int, token: str) -> PlayerRecord | None:
        """The player of a live session (not revoked, not expired, not a released
        guest), else ``None``. One read by primary key and unique index; the
        session's ``last_seen_at`` is written at most once an hour."""
        if not _is_id(player_id) or not isinstance(token, str):
            return None
        now = self._now()
        async with self._read() as session:
            row = (
                await session.execute(
                    select(Player, LoginSession.id, LoginSession.last_seen_at)
                    .join(LoginSession, LoginSession.player_id == Player.id)
                    .where(
                        Player.id == player_id,
                        LoginSession.token_hash == _token_hash(token),
                        LoginSession.revoked_at.is_(None),
                        LoginSession.expires_at > now,
                    )
                )
            ).first()
        if row is None or _released(row[0]):
            return None
        player, session_id, seen = row
        if now - seen > _SEEN_EVERY:
            async with self._write() as session:
                await session.execute(
                    update(LoginSession)
                    .where(LoginSession.id == session_id)
                    .values(last_seen_at=now)
                )
        return _record(player)

    async def sessions(self, player_id: int, current: str | None) -> list[dict[str, Any]]:
        """The player's live sessions, newest first, as ``Session`` of the protocol."""
        if not _is_id(player_id):
            return []
        current_hash = None if current is None else _token_hash(current)
        async with self._read() as session:
            rows = (
                await session.scalars(
                    select(LoginSession)
                    .where(
                        LoginSession.player_id == player_id,
                        LoginSession.revoked_at.is_(None),
                        LoginSession.expires_at > self._now(),
                    )
                    .order_by(LoginSession.id.desc())
                )
            ).all()
        return [
            {
                "id": row.id,
                "created_at": _iso(row.created_at),
                "last_seen_at": _iso(row.last_seen_at),
                "expires_at": _iso(row.expires_at),
                "address": row.address,
                "user_agent": row.user_agent,
                "current": row.token_hash == current_hash,
            }
            for row in rows
        ]

    async def revoke_sessions(
        self, player_id: int, *, session_id: int | None = None, token: str | None = None
    ) -> int:
        """Revoke one of the player's sessions (by id or by token), or all of them
        when neither is given; returns how many were live."""
        if not _is_id(player_id):
            return 0
        where: list[Any] = [LoginSession.player_id == player_id]
        if session_id is not None:
            if not _is_id(session_id):
                return 0
            where.append(LoginSession.id == session_id)
        if token is not None:
            where.append(LoginSession.token_hash == _token_hash(token))
        async with self._write() as session:
            return await self._revoke(session, *where)

    async def _revoke(self, session: AsyncSession, *where: Any) -> int:
        return _rowcount(
            await session.execute(
                update(LoginSession)
                .where(LoginSession.revoked_at.is_(None), *where)
                .values(revoked_at=self._now())
                .execution_options(synchronize_session=False)
            )
        )

    async def prune(
        self,
        *,
        guests_before: datetime,
        chat_before: datetime,
        invitations_before_ms: int,
        closed_before: datetime,
    ) -> dict[str, int]:
        """Housekeeping, in one transaction: release the nicknames of guests created
        before ``guests_before`` (their sessions have expired), delete lobby chat
        written before ``chat_before`` (games keep their table chat), invitations
        that expired or were answered before ``invitations_before_ms``, tables
        closed without a game that were opened before ``closed_before`` (with their
        chat and invitations), expired sessions, and limit counters idle for a day
        (:mod:`romme.store.limits` forgets them by then). Returns how many of each."""
        for name, value in (
            ("guests_before", guests_before),
            ("chat_before", chat_before),
            ("closed_before", closed_before),
        ):
            if not isinstance(value, datetime) or value.tzinfo is None:
                raise _bad(f"{name} is an aware datetime")
        if not _is_int(invitations_before_ms):
            raise _bad("invitations_before_ms is an integer")
        answered_before = datetime.fromtimestamp(invitations_before_ms / 1000, UTC)
        async with self._write() as session:
            guests = await _release_guests(session, Player.created_at < guests_before)
            chat = _rowcount(
                await session.execute(
                    delete(ChatMessage).where(
                        ChatMessage.table_id.is_(None), ChatMessage.created_at < chat_before
                    )
                )
            )
            invitations = _rowcount(
                await session.execute(
                    delete(Invitation).where(
                        or_(
                            Invitation.expires_at_ms < invitations_before_ms,
                            Invitation.answered_at < answered_before,
                        )
                    )
                )
            )
            sessions = _rowcount(
                await session.execute(
                    delete(LoginSession).where(LoginSession.expires_at < self._now())
                )
            )
            counters = _rowcount(
                await session.execute(
                    delete(RateCounter).where(
                        RateCounter.updated_at < self._now() - timedelta(days=1),
                        or_(
                            RateCounter.blocked_until.is_(None),
                            RateCounter.blocked_until < self._now(),
                        ),
                    )
                )
            )
            closed = (
                await session.scalars(
                    select(GameTable.id).where(
                        GameTable.status == "closed", GameTable.created_at < closed_before
                    )
                )
            ).all()
            if closed:
                for model in (ChatMessage, Invitation, TableAction):
                    await session.execute(delete(model).where(model.table_id.in_(closed)))
                await session.execute(delete(GameTable).where(GameTable.id.in_(closed)))
        return {
            "guests": guests,
            "lobby_chat": chat,
            "invitations": invitations,
            "closed_tables": len(closed),
            "sessions": sessions,
            "rate_counters": counters,
        }

    async def bot_player(self, level: str) -> PlayerRecord:
        """The persistent account of the computer opponent of this level
        (``Bot casual``), created on first use."""
        if not isinstance(level, str) or not _BOT_LEVEL.match(level):
            raise StoreError("bad_settings", f"{level!r} is not a computer level")
        query = select(Player).where(Player.bot_level == level)
        async with self._read() as session:
            player = await session.scalar(query)
        if player is not None:
            return _record(player)
        try:
            async with self._write() as session:
                player = await session.scalar(query)
                if player is None:
                    player = self._new_player(
                        accounts.bot_nickname(level), guest=False, bot_level=level
                    )
                    session.add(player)
                    await session.flush()
        except IntegrityError:  # created concurrently
            async with self._read() as session:
                player = await session.scalar(query)
            if player is None:
                raise
        return _record(player)

    async def player_info(self, nickname: str) -> dict[str, Any] | None:
        """``PlayerInfo`` of the protocol, with the ten most recent games."""
        key = accounts.lookup_key(nickname)
        if key is None:
            return None
        async with self._read() as session:
            player = await self._player_by_key(session, key)
            if player is None:
                return None
            # A player may hold several seats of one game (bots of one level):
            # read a few more rows than needed and keep one entry per game.
            rows = (
                await session.scalars(
                    select(GameSeat)
                    .where(GameSeat.player_id == player.id)
                    .order_by(GameSeat.finished_at.desc(), GameSeat.table_id.desc(), GameSeat.seat)
                    .limit(RECENT_GAMES * 4)
                )
            ).all()
        recent: list[dict[str, Any]] = []
        by_game: dict[int, dict[str, Any]] = {}
        for row in rows:
            entry = by_game.get(row.table_id)
            if entry is None:
                if len(recent) == RECENT_GAMES:
                    continue
                entry = {
                    "game": row.table_id,
                    "finished_at": _iso(row.finished_at),
                    "won": row.won,
                    "place": row.place,
                    "players": row.players,
                }
                by_game[row.table_id] = entry
                recent.append(entry)
            else:
                entry["won"] = entry["won"] or row.won
                entry["place"] = min(entry["place"], row.place)
        return {
            "nickname": player.nickname,
            "guest": player.guest,
            "games_played": player.games_played,
            "games_won": player.games_won,
            "rating": ratings.shown(player.rating),
            "recent": recent,
        }

    async def rankings(self, limit: int = 50) -> list[dict[str, Any]]:
        """Registered players and bots who have played, best rating first. Equal
        shown ratings share a rank."""
        if not _is_int(limit) or limit < 0:
            raise _bad("limit must be a non-negative integer")
        limit = min(limit, 1000)
        async with self._read() as session:
            players = (
                await session.scalars(
                    select(Player)
                    .where(Player.guest.is_(False), Player.games_played > 0)
                    .order_by(Player.rating.desc(), Player.games_won.desc(), Player.nickname_key)
                    .limit(limit)
                )
            ).all()
        result: list[dict[str, Any]] = []
        for position, player in enumerate(players, start=1):
            rating = ratings.shown(player.rating)
            rank = result[-1]["rank"] if result and result[-1]["rating"] == rating else position
            result.append(
                {
                    "rank": rank,
                    "nickname": player.nickname,
                    "rating": rating,
                    "games_played": player.games_played,
                    "games_won": player.games_won,
                    "bot": player.is_bot,
                }
            )
        return result

    # --------------------------------------------------------------- tables

    async def create_table(
        self,
        host_id: int,
        settings: dict[str, Any],
        rules: dict[str, Any],
        seats: list[dict[str, Any]],
        match_seed: bytes,
    ) -> int:
        """A new table (status ``waiting``); returns its id."""
        if not isinstance(settings, dict) or not isinstance(rules, dict):
            raise _bad("settings and rules are JSON objects")
        if not isinstance(seats, list):
            raise _bad("seats is a list")
        if not isinstance(match_seed, bytes) or not 16 <= len(match_seed) <= 1024:
            raise _bad("the match seed is 16 to 1024 bytes")
        for value, what in ((settings, "settings"), (rules, "rules"), (seats, "seats")):
            _check_json(value, what)
        async with self._write() as session:
            await self._require_player(session, host_id)
            table = GameTable(
                host_id=host_id,
                settings=settings,
                rules=rules,
                seats=seats,
                match_seed=bytes(match_seed),
                status="waiting",
                created_at=self._now(),
            )
            session.add(table)
            await session.flush()
            return table.id

    async def update_table(
        self,
        table_id: int,
        *,
        status: str | None = None,
        seats: list[dict[str, Any]] | None = None,
    ) -> None:
        """Change a table's status (``waiting``, ``playing``, ``finished``, ``closed``)
        or seats. The status of a finished table cannot change any more."""
        if status is not None and status not in TABLE_STATUSES:
            raise _bad(f"status is one of {', '.join(TABLE_STATUSES)}")
        if seats is not None:
            if not isinstance(seats, list):
                raise _bad("seats is a list")
            _check_json(seats, "seats")
        async with self._write() as session:
            table = await self._require_table(session, table_id, lock=True)
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
        if not _is_id(table_id):
            return None
        async with self._read() as session:
            table = await session.get(GameTable, table_id)
            if table is None:
                return None
            actions = (
                await session.scalars(
                    select(TableAction)
                    .where(TableAction.table_id == table_id)
                    .order_by(TableAction.version)
                )
            ).all()
            return _table_record(table, list(actions))

    async def append_actions(
        self, table_id: int, first_version: int, actions: list[dict[str, Any]]
    ) -> None:
        """Store ``actions`` as versions ``first_version``, ``first_version + 1``, ...
        in one transaction, committed before this returns.

        ``version_conflict`` (and nothing stored) if one of these versions exists
        or if ``first_version`` does not follow the table's last stored version
        (a gap would make the log useless for recovery).

        Appends are group-committed: one writer task stores every append that
        arrived while its previous transaction ran in a single transaction (one
        commit, one fsync), and each caller learns its own outcome after that
        commit. A refused append never holds back the others of its group."""
        if not _is_int(first_version) or first_version < 0:
            raise _bad("first_version is a non-negative integer")
        if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
            raise _bad("actions is a list of JSON objects")
        for action in actions:
            _check_json(action, "an action")
        if not _is_id(table_id):
            raise StoreError("no_such_table", f"there is no table {table_id!r}")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._appends.append(_Append(table_id, first_version, actions, done))
        if self._appender is None:
            self._appender = asyncio.create_task(self._store_appends())
            self._appender.add_done_callback(self._writer_stopped)
        await asyncio.shield(done)

    async def _store_appends(self) -> None:
        """The writer task: store the waiting appends in groups until none is left."""
        while self._appends:
            group, self._appends = self._appends, []
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
        self._appender = None  # at once: the next append starts a new writer

    def _writer_stopped(self, task: asyncio.Task[None]) -> None:
        """If the writer was cancelled (or failed) the appends it held or that were
        waiting are refused, and the next append starts a new writer."""
        if self._appender is task:
            self._appender = None
        if not task.cancelled() and task.exception() is None:
            return
        for append in [*self._storing, *self._appends]:
            if not append.done.done():
                append.done.set_exception(
                    StoreError("server_busy", "the store stopped before storing this")
                )
        self._storing, self._appends = [], []

    async def _append_group(self, group: list[_Append]) -> list[Exception | None]:
        """One transaction for ``group``: the refusals are decided first, the rest
        is inserted with one statement and committed. Returns each append's outcome."""
        ids = sorted({append.table_id for append in group})
        outcomes: list[Exception | None] = []
        rows: list[dict[str, Any]] = []
        async with self._write() as session:
            found = select(GameTable.id, GameTable.status).where(GameTable.id.in_(ids))
            if not self._sqlite:
                found = found.order_by(GameTable.id).with_for_update(key_share=True)
            status = {row.id: row.status for row in await session.execute(found)}
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
                if table_id not in status:
                    outcome = StoreError("no_such_table", f"there is no table {table_id}")
                elif status[table_id] == "finished":
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

    async def unfinished_tables(self) -> list[TableRecord]:
        """Every table waiting or playing, with its actions in version order: what a
        restarted server needs to rebuild its tables."""
        async with self._read() as session:
            tables = (
                await session.scalars(
                    select(GameTable).where(GameTable.status.in_(UNFINISHED)).order_by(GameTable.id)
                )
            ).all()
            actions = (
                await session.scalars(
                    select(TableAction)
                    .join(GameTable, GameTable.id == TableAction.table_id)
                    .where(GameTable.status.in_(UNFINISHED))
                    .order_by(TableAction.table_id, TableAction.version)
                )
            ).all()
        by_table: dict[int, list[TableAction]] = {}
        for action in actions:
            by_table.setdefault(action.table_id, []).append(action)
        return [_table_record(table, by_table.get(table.id, [])) for table in tables]

    async def finish_game(
        self,
        table_id: int,
        *,
        winners: list[int],
        totals: list[int],
        seat_players: list[int],
        results: list[dict[str, Any]],
    ) -> dict[str, dict[str, float]]:
        """Record a finished game in one transaction: the table's status, the result,
        every player's statistics and rating. Returns ``{"<seat>": {"before": x,
        "after": y}}`` (shown ratings) for each seat whose rating is kept.

        Places: the winners first, then lower ``totals`` (penalty points). Guests
        play in the rating model with a new player's rating, which is not kept.
        A player in several seats (bots of one level) gets the mean of its seats'
        new ratings, and one game played. Calling it again for the same table
        returns the stored changes and changes nothing."""
        try:
            async with self._write() as session:
                return await self._finish_game(
                    session, table_id, winners, totals, seat_players, results
                )
        except IntegrityError:  # finished concurrently: the stored result stands
            async with self._read() as session:
                result = await session.get(GameResult, table_id)
            if result is None:
                raise
            return dict(result.rating_changes)

    async def _finish_game(
        self,
        session: AsyncSession,
        table_id: int,
        winners: Sequence[int],
        totals: Sequence[int],
        seat_players: Sequence[int],
        results: Sequence[dict[str, Any]],
    ) -> dict[str, dict[str, float]]:
        table = await self._require_table(session, table_id, lock=True)
        stored = await session.get(GameResult, table_id)
        if stored is not None:
            return dict(stored.rating_changes)
        seats = _check_result(winners, totals, seat_players, results)
        ids = sorted(set(seat_players))
        found = (
            await session.scalars(
                select(Player)
                .where(Player.id.in_(ids))
                .order_by(Player.id)
                .with_for_update(key_share=True)
            )
        ).all()
        players = {p.id: p for p in found}
        missing = [i for i in ids if i not in players]
        if missing:
            raise StoreError("no_such_player", f"there is no player {missing[0]}")

        kept = [not players[pid].guest for pid in seat_players]
        before = [
            (players[pid].mu, players[pid].sigma)
            if keep
            else (ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA)
            for pid, keep in zip(seat_players, kept, strict=True)
        ]
        seat_places = ratings.places(winners, totals)
        after = ratings.rate(before, seat_places)
        now = self._now()

        changes: dict[str, dict[str, float]] = {}
        ordinals: dict[int, tuple[float, float]] = {}
        for pid in ids:
            player = players[pid]
            own = [s for s in range(seats) if seat_players[s] == pid]
            player.games_played += 1
            if any(s in winners for s in own):
                player.games_won += 1
            if not player.guest:
                old = player.rating
                player.mu = math.fsum(after[s][0] for s in own) / len(own)
                player.sigma = math.fsum(after[s][1] for s in own) / len(own)
                player.rating = ratings.ordinal(player.mu, player.sigma)
                ordinals[pid] = (old, player.rating)
        for seat, pid in enumerate(seat_players):
            old_new = ordinals.get(pid)
            if old_new is not None:
                changes[str(seat)] = {
                    "before": ratings.shown(old_new[0]),
                    "after": ratings.shown(old_new[1]),
                }
            session.add(
                GameSeat(
                    table_id=table_id,
                    seat=seat,
                    player_id=pid,
                    place=seat_places[seat],
                    won=seat in winners,
                    players=seats,
                    rated=old_new is not None,
                    rating_before=None if old_new is None else old_new[0],
                    rating_after=None if old_new is None else old_new[1],
                    finished_at=now,
                )
            )
        session.add(
            GameResult(
                table_id=table_id,
                winners=list(winners),
                totals=list(totals),
                seat_players=list(seat_players),
                results=list(results),
                rating_changes=changes,
                finished_at=now,
            )
        )
        table.status = "finished"
        table.finished_at = now
        await session.flush()
        return changes

    async def game_log(self, table_id: int) -> dict[str, Any] | None:
        """``GameLog`` of the protocol for a finished game (its match seed revealed),
        ``None`` for any other table."""
        if not _is_id(table_id):
            return None
        async with self._read() as session:
            table = await session.get(GameTable, table_id)
            result = await session.get(GameResult, table_id)
            if table is None or result is None or table.status != "finished":
                return None
            actions = (
                await session.scalars(
                    select(TableAction)
                    .where(TableAction.table_id == table_id)
                    .order_by(TableAction.version)
                )
            ).all()
            seat_players = [int(pid) for pid in result.seat_players]
            found = (
                await session.scalars(select(Player).where(Player.id.in_(set(seat_players))))
            ).all()
        players = {p.id: p for p in found}
        seats = []
        for seat, pid in enumerate(seat_players):
            player = players.get(pid)
            seats.append(
                {
                    "seat": seat,
                    "nickname": None if player is None else player.nickname,
                    "bot": None if player is None else player.bot_level,
                    "connected": False,
                    "away": False,
                }
            )
        actions_json = [a.action for a in actions]
        round_count = sum(1 for a in actions_json if a.get("type") == "next_round")
        rounds = []
        for round_no in range(1, round_count + 1):
            seed = round_seed(table.match_seed, round_no)
            rounds.append(
                {"round_no": round_no, "seed": seed.hex(), "commitment": commitment_of(seed)}
            )
        started = table.started_at or (actions[0].created_at if actions else table.created_at)
        return {
            "id": table.id,
            "rules": table.rules,
            "seats": seats,
            "winners": list(result.winners),
            "started_at": _iso(started),
            "finished_at": _iso(result.finished_at),
            "match_seed": table.match_seed.hex(),
            "rounds": rounds,
            "actions": actions_json,
        }

    # ----------------------------------------------------------------- chat

    async def add_chat(self, table_id: int | None, player_id: int, text: str) -> dict[str, Any]:
        """Store a chat message (lobby when ``table_id`` is ``None``) and return it as
        ``ChatMessage``. The text is kept as plain text, as given, less control
        characters other than newlines."""
        cleaned = _clean_chat(text)
        async with self._write() as session:
            if table_id is not None:
                await self._require_table(session, table_id)
            player = await self._require_player(session, player_id)
            message = ChatMessage(
                table_id=table_id, player_id=player_id, text=cleaned, created_at=self._now()
            )
            session.add(message)
            await session.flush()
            return _chat_json(message, player.nickname)

    async def recent_chat(self, table_id: int | None, limit: int = 50) -> list[dict[str, Any]]:
        """The last ``limit`` messages of the lobby or a table, oldest first."""
        if not _is_int(limit) or limit < 0:
            raise _bad("limit must be a non-negative integer")
        if table_id is not None and not _is_id(table_id):
            return []
        where = (
            ChatMessage.table_id.is_(None) if table_id is None else ChatMessage.table_id == table_id
        )
        async with self._read() as session:
            rows = (
                await session.execute(
                    select(ChatMessage, Player.nickname)
                    .join(Player, Player.id == ChatMessage.player_id)
                    .where(where)
                    .order_by(ChatMessage.id.desc())
                    .limit(min(limit, 1000))
                )
            ).all()
        return [_chat_json(message, nickname) for message, nickname in reversed(rows)]

    # ---------------------------------------------------------- invitations

    async def create_invitation(
        self,
        table_id: int,
        from_id: int,
        to_id: int,
        expires_at_ms: int | None = None,
        *,
        per_minute: int = 0,
    ) -> dict[str, Any]:
        """An open invitation (``Invitation``); ``expires_at_ms`` defaults to two
        minutes from now. ``cannot_invite`` for oneself or a bot; ``already_invited``
        while the invitee has an open invitation to this table (so nobody can be
        flooded with the same invitation); ``too_many_invitations`` when the sender
        sent ``per_minute`` invitations in the last minute (0: no limit). Checked in
        the same transaction as the insert, so it holds across connections."""
        now = self._now()
        if expires_at_ms is None:
            expires_at_ms = _ms(now) + INVITATION_TTL_MS
        if not _is_int(expires_at_ms) or not 0 < expires_at_ms < 2**62:
            raise _bad("expires_at_ms is a time in milliseconds")
        async with self._write() as session:
            await self._require_table(session, table_id)
            sender = await self._require_player(session, from_id)
            # Lock the sender's row: two invitations of one player are checked in turn.
            await session.refresh(sender, with_for_update=True)
            invitee = await self._require_player(session, to_id)
            if sender.id == invitee.id:
                raise StoreError("cannot_invite", "one cannot invite oneself")
            if invitee.is_bot:
                raise StoreError("cannot_invite", "a computer opponent cannot be invited")
            open_one = await session.scalar(
                select(Invitation.id)
                .where(
                    Invitation.table_id == table_id,
                    Invitation.to_id == to_id,
                    Invitation.status == "open",
                    Invitation.expires_at_ms > _ms(now),
                )
                .limit(1)
            )
            if open_one is not None:
                raise StoreError(
                    "already_invited",
                    f"{invitee.nickname} already has an open invitation to this table",
                )
            if per_minute > 0:
                recent = await session.scalar(
                    select(func.count())
                    .select_from(Invitation)
                    .where(
                        Invitation.from_id == from_id,
                        Invitation.created_at > now - timedelta(minutes=1),
                    )
                )
                if (recent or 0) >= per_minute:
                    raise StoreError(
                        "too_many_invitations",
                        f"at most {per_minute} invitations a minute; wait a little",
                    )
            invitation = Invitation(
                table_id=table_id,
                from_id=from_id,
                to_id=to_id,
                status="open",
                expires_at_ms=expires_at_ms,
                created_at=now,
            )
            session.add(invitation)
            await session.flush()
            return _invitation_json(invitation, sender.nickname, invitee.nickname, None)

    async def answer_invitation(
        self, invitation_id: int, player_id: int, accept: bool, now_ms: int
    ) -> dict[str, Any]:
        """Accept or decline an open invitation to ``player_id``."""
        if not _is_int(now_ms):
            raise _bad("now_ms is a time in milliseconds")
        async with self._write() as session:
            invitation = None
            if _is_id(invitation_id):
                invitation = await session.get(
                    Invitation, invitation_id, with_for_update={"key_share": True}
                )
            if invitation is None or invitation.to_id != player_id:
                raise StoreError("no_such_invitation", f"there is no invitation {invitation_id!r}")
            if invitation.status != "open":
                raise StoreError(
                    "no_such_invitation",
                    f"invitation {invitation_id} was already {invitation.status}",
                )
            if invitation.expires_at_ms <= now_ms:
                raise StoreError("invitation_expired", f"invitation {invitation_id} has expired")
            invitation.status = "accepted" if accept else "declined"
            invitation.answered_at = self._now()
            sender = await session.get(Player, invitation.from_id)
            invitee = await session.get(Player, invitation.to_id)
            assert sender is not None and invitee is not None
            return _invitation_json(invitation, sender.nickname, invitee.nickname, now_ms)

    async def open_invitations(self, player_id: int, now_ms: int) -> list[dict[str, Any]]:
        """Open, unexpired invitations to and from this player, oldest first."""
        if not _is_int(now_ms):
            raise _bad("now_ms is a time in milliseconds")
        if not _is_id(player_id):
            return []
        async with self._read() as session:
            rows = (
                await session.scalars(
                    select(Invitation)
                    .where(
                        or_(Invitation.to_id == player_id, Invitation.from_id == player_id),
                        Invitation.status == "open",
                        Invitation.expires_at_ms > now_ms,
                    )
                    .order_by(Invitation.id)
                )
            ).all()
            ids = {i.from_id for i in rows} | {i.to_id for i in rows}
            names: dict[int, str] = {}
            if ids:
                found = await session.execute(
                    select(Player.id, Player.nickname).where(Player.id.in_(ids))
                )
                names = {pid: nickname for pid, nickname in found}
        return [_invitation_json(i, names[i.from_id], names[i.to_id], now_ms) for i in rows]


# -------------------------------------------------------------------- helpers


def make_engine(url: str) -> AsyncEngine:
    """The store's engine for ``url`` (normalised): for SQLite, the file's folder is
    created and the connections are set up as described in :func:`_configure_sqlite`."""
    parsed = make_url(url)
    options: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        path = _sqlite_file(parsed)
        if path is not None:
            _private_file(path)
        options["connect_args"] = {"timeout": 30}
    else:
        options.update(pool_size=10, max_overflow=20, pool_pre_ping=True)
    engine = create_async_engine(url, **options)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine)
    return engine


def _private_file(path: Path) -> None:
    """Create the SQLite file readable by its owner only (0600; its folder, if new,
    0700): it holds password hashes and the seeds of running games, that is every
    deal to come. SQLite gives the ``-wal`` and ``-shm`` files the file's mode. A
    file made before is made private too."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)


def writer(engine: AsyncEngine) -> AsyncEngine:
    """The engine for write transactions (on SQLite they begin IMMEDIATE)."""
    return engine.execution_options(**{_WRITER_OPTION: True})


def _configure_sqlite(engine: AsyncEngine) -> None:
    """WAL (readers never wait for the writer), foreign keys, and real transactions:
    Python's sqlite3 would otherwise begin them only at the first write."""

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            _set_wal(cursor)
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # Writers take the write lock at once (BEGIN IMMEDIATE), waiting for it if need
        # be; a deferred transaction that reads and then writes could instead fail
        # at once with "database is locked" when another connection writes.
        if connection.get_execution_options().get(_WRITER_OPTION):
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")


def _set_wal(cursor: Any, patience: float = 30.0) -> None:
    """Switch the file to WAL. Switching needs the file to itself and SQLite answers
    "database is locked" at once, without its busy timeout, when another connection
    is creating or switching the same new file; so try again for a while."""
    deadline = time.monotonic() + patience
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _migrate(connection: Connection) -> None:
    upgrade_to_head(connection)


def _printable(text: str) -> str:
    """Text without control characters and lone surrogates (for a user agent)."""
    return "".join(char for char in text if unicodedata.category(char) not in ("Cc", "Cs"))


def _taken(nickname: str) -> StoreError:
    return StoreError("nickname_taken", f"the nickname {nickname!r} is taken")


def _bad_credentials() -> StoreError:
    return StoreError("bad_credentials", "wrong nickname or password")


def _version_conflict(table_id: int, first_version: int, last: int | None) -> StoreError:
    if last is None:
        detail = "that version is stored already"
    else:
        detail = f"the last stored version is {last}"
    return StoreError(
        "version_conflict", f"table {table_id}: cannot store version {first_version}: {detail}"
    )


def _check_result(
    winners: Sequence[int],
    totals: Sequence[int],
    seat_players: Sequence[int],
    results: Sequence[dict[str, Any]],
) -> int:
    """The number of seats, or raise ``bad_message``."""
    if not isinstance(seat_players, list) or not all(_is_int(p) for p in seat_players):
        raise _bad("seat_players is a list of player ids")
    seats = len(seat_players)
    if not 2 <= seats <= 4:
        raise _bad("a game has 2 to 4 seats")
    if not isinstance(totals, list) or len(totals) != seats or not all(_is_int(t) for t in totals):
        raise _bad("totals holds one integer per seat")
    if (
        not isinstance(winners, list)
        or not all(_is_int(w) and 0 <= w < seats for w in winners)
        or len(set(winners)) != len(winners)
    ):
        raise _bad("winners is a list of distinct seats")
    if not isinstance(results, list):
        raise _bad("results is a list")
    _check_json(results, "results")
    return seats


def _table_record(table: GameTable, actions: list[TableAction]) -> TableRecord:
    return TableRecord(
        id=table.id,
        host_id=table.host_id,
        settings=table.settings,
        rules=table.rules,
        seats=table.seats,
        match_seed=bytes(table.match_seed),
        status=table.status,
        created_at=table.created_at,
        actions=[a.action for a in actions],
        last_action_at=actions[-1].created_at if actions else None,
        first_version=actions[0].version if actions else None,
    )


def _chat_json(message: ChatMessage, nickname: str) -> dict[str, Any]:
    return {"id": message.id, "from": nickname, "text": message.text, "at": _ms(message.created_at)}


def _invitation_json(
    invitation: Invitation, sender: str, invitee: str, now_ms: int | None
) -> dict[str, Any]:
    status = invitation.status
    if status == "open" and now_ms is not None and invitation.expires_at_ms <= now_ms:
        status = "expired"
    return {
        "id": invitation.id,
        "table": invitation.table_id,
        "from": sender,
        "to": invitee,
        "status": status,
        "expires_at": invitation.expires_at_ms,
    }
