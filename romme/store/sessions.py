"""Login sessions: the token behind a player's cookie (only its hash is stored),
the live sessions a player can see and revoke."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, is_id, iso, player_record, released, rowcount
from romme.store.models import LoginSession, Player
from romme.store.records import PlayerRecord

__all__ = ["SESSION_DAYS", "SessionStore"]

SESSION_DAYS = 30
"""How long a session lasts (and its cookie)."""
_SEEN_EVERY = timedelta(hours=1)
"""A session's ``last_seen_at`` is brought up to date at most this often."""


class SessionStore(StoreCore):
    """The store's login sessions (see :class:`romme.store.Store`)."""

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
                        LoginSession.token_hash == _token_hash(token),
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
                "created_at": iso(row.created_at),
                "last_seen_at": iso(row.last_seen_at),
                "expires_at": iso(row.expires_at),
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
        if not is_id(player_id):
            return 0
        where: list[Any] = [LoginSession.player_id == player_id]
        if session_id is not None:
            if not is_id(session_id):
                return 0
            where.append(LoginSession.id == session_id)
        if token is not None:
            where.append(LoginSession.token_hash == _token_hash(token))
        async with self._write() as session:
            return await self._revoke(session, *where)

    async def _revoke(self, session: AsyncSession, *where: Any) -> int:
        return rowcount(
            await session.execute(
                update(LoginSession)
                .where(LoginSession.revoked_at.is_(None), *where)
                .values(revoked_at=self._now())
                .execution_options(synchronize_session=False)
            )
        )


def _token_hash(token: str) -> str:
    """What is stored of a session's token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _printable(text: str) -> str:
    """Text without control characters and lone surrogates (for a user agent)."""
    return "".join(char for char in text if unicodedata.category(char) not in ("Cc", "Cs"))
