"""Housekeeping: what the store forgets after a while (released guests, old lobby
chat, answered or expired invitations, tables closed without a game, expired
sessions, idle limit counters, browser marks not seen for a month)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, or_, select

from romme.store.core import StoreCore, bad, is_int, release_guests, rowcount
from romme.store.models import (
    BrowserMark,
    ChatMessage,
    GameTable,
    Invitation,
    LoginSession,
    Player,
    RateCounter,
    TableAction,
)
from romme.store.sanction_links import ADDRESS_HISTORY

__all__ = ["Housekeeping"]


class Housekeeping(StoreCore):
    """The store's housekeeping (see :class:`romme.store.Store`)."""

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
        chat and invitations), expired sessions, limit counters idle for a day
        (:mod:`romme.store.limits` forgets them by then), and browser marks not
        seen for as long as a new sanction looks back
        (:data:`romme.store.sanction_links.ADDRESS_HISTORY`; a sanction keeps its
        own links). Returns how many of each."""
        for name, value in (
            ("guests_before", guests_before),
            ("chat_before", chat_before),
            ("closed_before", closed_before),
        ):
            if not isinstance(value, datetime) or value.tzinfo is None:
                raise bad(f"{name} is an aware datetime")
        if not is_int(invitations_before_ms):
            raise bad("invitations_before_ms is an integer")
        answered_before = datetime.fromtimestamp(invitations_before_ms / 1000, UTC)
        async with self._write() as session:
            guests = await release_guests(session, Player.created_at < guests_before)
            chat = rowcount(
                await session.execute(
                    delete(ChatMessage).where(
                        ChatMessage.table_id.is_(None), ChatMessage.created_at < chat_before
                    )
                )
            )
            invitations = rowcount(
                await session.execute(
                    delete(Invitation).where(
                        or_(
                            Invitation.expires_at_ms < invitations_before_ms,
                            Invitation.answered_at < answered_before,
                        )
                    )
                )
            )
            sessions = rowcount(
                await session.execute(
                    delete(LoginSession).where(LoginSession.expires_at < self._now())
                )
            )
            counters = rowcount(
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
            marks = rowcount(
                await session.execute(
                    delete(BrowserMark).where(
                        BrowserMark.last_seen_at < self._now() - ADDRESS_HISTORY
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
            "browser_marks": marks,
        }
