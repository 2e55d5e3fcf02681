"""Login sessions: the token behind a player's cookie (only its hash is stored),
the live sessions a player can see and revoke.

A session is created in a transaction that holds the player's row (``FOR NO KEY
UPDATE`` on PostgreSQL; SQLite has one writer) and checks there that no ban is in
force and, after a login, that the password hash the login verified is still the
stored one. A password change, a ban and an account's deletion hold the same row
while they change the credential and end the sessions, so each login is ordered
with them: a login that checked the old password either made its session before
the change (which then ends it) or is refused after it.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, is_id, iso, player_record, released, rowcount
from romme.store.errors import StoreError
from romme.store.models import LoginSession, Player, Sanction
from romme.store.records import PlayerRecord

__all__ = ["SESSION_DAYS", "SessionStore", "VerifiedLogin", "open_session", "revoke", "token_hash"]

SESSION_DAYS = 30
"""How long a session lasts (and its cookie)."""
_SEEN_EVERY = timedelta(hours=1)
"""A session's ``last_seen_at`` is brought up to date at most this often."""


@dataclass(frozen=True, slots=True)
class VerifiedLogin:
    """A login whose password was right (``Store.checked_login``): the player, and
    the password hash that was checked, which the session is made against
    (:meth:`SessionStore.create_session`). Not to be kept or shown."""

    player: PlayerRecord
    password_hash: str = field(repr=False)


class SessionStore(StoreCore):
    """The store's login sessions (see :class:`romme.store.Store`)."""

    async def create_session(
        self,
        player_id: int,
        address: str,
        user_agent: str,
        replacing: str | None = None,
        login: VerifiedLogin | None = None,
    ) -> str:
        """A new session of this player; returns its token (for the cookie; only
        its hash is stored). ``replacing``: the token of the session the client
        had, which is revoked (a new login gets a new session). ``login``: the
        login it follows, whose password must still be the player's
        (``bad_credentials`` if it was changed meanwhile). ``banned`` while a ban
        of the player is in force."""
        async with self._write() as session:
            return await open_session(
                session,
                self._now(),
                player_id,
                address,
                user_agent,
                replacing=replacing,
                password_hash=None if login is None else login.password_hash,
            )

    async def session_player(self, player_id: int, token: str) -> PlayerRecord | None:
        """The player of a live session (not revoked, not expired, not a released
        guest), else ``None``. One read by primary key and unique index; the
        session's ``last_seen_at`` is written at most once an hour."""
        if not is_id(player_id) or not isinstance(token, str):
            return None
        now = self._now()
        async with self._read() as session:
            row = (
                await session.execute(
                    select(Player, LoginSession.id, LoginSession.last_seen_at)
                    .join(LoginSession, LoginSession.player_id == Player.id)
                    .where(
                        Player.id == player_id,
                        LoginSession.token_hash == token_hash(token),
                        LoginSession.revoked_at.is_(None),
                        LoginSession.expires_at > now,
                    )
                )
            ).first()
        if row is None or released(row[0]):
            return None
        player, session_id, seen = row
        if now - seen > _SEEN_EVERY:
            async with self._write() as session:
                await session.execute(
                    update(LoginSession)
                    .where(LoginSession.id == session_id)
                    .values(last_seen_at=now)
                )
        return player_record(player)

    async def sessions(self, player_id: int, current: str | None) -> list[dict[str, Any]]:
        """The player's live sessions, newest first, as ``Session`` of the protocol."""
        if not is_id(player_id):
            return []
        current_hash = None if current is None else token_hash(current)
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
                "created_at": iso(row.created_at),
                "last_seen_at": iso(row.last_seen_at),
                "expires_at": iso(row.expires_at),
                "address": row.address,
                "user_agent": row.user_agent,
                "current": row.token_hash == current_hash,
            }
            for row in rows
        ]

    async def revoke_session(self, player_id: int, session_id: int) -> str | None:
        """Revoke one live session of the player; returns its stored hash (what
        names it to the server's connections, :func:`token_hash`), ``None`` if
        the player has no such live session."""
        if not is_id(player_id) or not is_id(session_id):
            return None
        async with self._write() as session:
            found: str | None = await session.scalar(
                select(LoginSession.token_hash).where(
                    LoginSession.id == session_id,
                    LoginSession.player_id == player_id,
                    LoginSession.revoked_at.is_(None),
                )
            )
            if found is None:
                return None
            await revoke(session, self._now(), LoginSession.id == session_id)
        return found

    async def revoke_sessions(
        self, player_id: int, *, session_id: int | None = None, token: str | None = None
    ) -> int:
        """Revoke one of the player's sessions (by id or by token), or all of them
        when neither is given; returns how many were live."""
        if not is_id(player_id):
            return 0
        where: list[Any] = [LoginSession.player_id == player_id]
        if session_id is not None:
            if not is_id(session_id):
                return 0
            where.append(LoginSession.id == session_id)
        if token is not None:
            where.append(LoginSession.token_hash == token_hash(token))
        async with self._write() as session:
            return await revoke(session, self._now(), *where)


async def open_session(
    session: AsyncSession,
    now: datetime,
    player_id: int,
    address: str,
    user_agent: str,
    *,
    replacing: str | None = None,
    password_hash: str | None = None,
) -> str:
    """Add a session of the player in this transaction, with the player's row held
    (the module says why); returns its token. ``password_hash``: the hash a login
    verified, which must still be stored (``bad_credentials``)."""
    player = await StoreCore._require_player(session, player_id, lock=True)
    if password_hash is not None and player.password_hash != password_hash:
        raise StoreError("bad_credentials", "wrong nickname or password")
    ban_ends = (
        await session.scalars(
            select(Sanction.until).where(
                Sanction.player_id == player_id,
                Sanction.kind == "ban",
                Sanction.lifted_at.is_(None),
                Sanction.until.is_(None) | (Sanction.until > now),
            )
        )
    ).all()
    if ban_ends:
        ends = "" if None in ban_ends else f" until {iso(max(e for e in ban_ends if e))}"
        raise StoreError("banned", f"this account is banned{ends}")
    if replacing is not None:
        await revoke(session, now, LoginSession.token_hash == token_hash(replacing))
    token = secrets.token_urlsafe(32)
    session.add(
        LoginSession(
            token_hash=token_hash(token),
            player_id=player_id,
            address=address[:64],
            user_agent=_printable(user_agent)[:200],
            created_at=now,
            last_seen_at=now,
            expires_at=now + timedelta(days=SESSION_DAYS),
        )
    )
    return token


async def revoke(session: AsyncSession, now: datetime, *where: Any) -> int:
    """Revoke the live sessions that ``where`` selects; returns how many."""
    return rowcount(
        await session.execute(
            update(LoginSession)
            .where(LoginSession.revoked_at.is_(None), *where)
            .values(revoked_at=now)
            .execution_options(synchronize_session=False)
        )
    )


def token_hash(token: str) -> str:
    """What is stored of a session's token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _printable(text: str) -> str:
    """Text without control characters and lone surrogates (for a user agent)."""
    return "".join(char for char in text if unicodedata.category(char) not in ("Cc", "Cs"))
