"""Moderation: players' reports of each other, the moderators, mutes and bans,
and the moderation log that records every moderator's action.

A report carries what the server attaches (the table, the reported player's recent
chat lines there, copied so that they outlive the table); the reporter only picks a
reason and may add a few words. Reports are limited per reporter
(``REPORTS_PER_HOUR``, one open report per reported player) so that they cannot
flood the moderators. A ban ends the player's sessions in the same transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store import accounts
from romme.store.core import StoreCore, bad, is_id, iso, ms, rowcount
from romme.store.errors import StoreError
from romme.store.limits import LimitReached
from romme.store.models import (
    ChatMessage,
    LoginSession,
    ModerationEntry,
    Moderator,
    Player,
    Report,
    Sanction,
)

__all__ = [
    "REPORTS_PER_HOUR",
    "REPORT_CHAT_LINES",
    "REPORT_REASONS",
    "REPORT_TEXT_MAX",
    "SANCTION_KINDS",
    "SHELL",
    "ModerationStore",
]

REPORT_REASONS = ("abusive_chat", "cheating", "offensive_nickname", "other")
"""The reasons a player may give for a report."""
REPORT_TEXT_MAX = 500
"""The longest note a reporter may add, in characters."""
REPORT_CHAT_LINES = 20
"""The reported player's last chat lines attached to a report."""
REPORT_CHAT_WINDOW = timedelta(hours=1)
"""Only chat lines this recent are attached."""
REPORTS_PER_HOUR = 10
"""Reports one player may file in an hour."""
SANCTION_KINDS = ("mute", "ban")
NOTE_MAX = 1000
SHELL = "shell"
"""The actor that ``romme admin`` writes in the moderation log."""


class ModerationStore(StoreCore):
    """The store's moderation (see :class:`romme.store.Store`)."""

    # ------------------------------------------------------------- reports

    async def add_report(
        self,
        reporter_id: int,
        nickname: str,
        reason: str,
        text: str,
        table_id: int | None,
    ) -> dict[str, Any]:
        """File a report of the player ``nickname`` by ``reporter_id``, with the
        reported player's recent chat lines at ``table_id`` (the lobby when
        ``None``) attached. Refuses an unknown reason (``bad_message``), a note
        over ``REPORT_TEXT_MAX``, a report of oneself (``cannot_report``), a second
        open report of the same player (``already_reported``) and more than
        ``REPORTS_PER_HOUR`` reports an hour (``too_many_reports``)."""
        if reason not in REPORT_REASONS:
            raise bad(f"reason must be one of {', '.join(REPORT_REASONS)}")
        if not isinstance(text, str) or len(text) > REPORT_TEXT_MAX:
            raise bad(f"the note is text of at most {REPORT_TEXT_MAX} characters")
        now = self._now()
        async with self._write() as session:
            reporter = await self._require_player(session, reporter_id)
            reported = await self._player_named(session, nickname)
            if reported.id == reporter.id or reported.is_bot:
                raise StoreError("cannot_report", "you cannot report this player")
            await self._check_report_limits(session, reporter.id, reported.id, now)
            chat = await self._chat_lines(session, reported.id, table_id, now)
            report = Report(
                reporter_id=reporter.id,
                reported_id=reported.id,
                reason=reason,
                text=text.strip(),
                table_id=table_id,
                chat=chat,
                status="open",
                created_at=now,
            )
            session.add(report)
            await session.flush()
            return _report_json(report, reporter.nickname, reported.nickname)

    async def _check_report_limits(
        self, session: AsyncSession, reporter_id: int, reported_id: int, now: datetime
    ) -> None:
        open_one = await session.scalar(
            select(Report.id).where(
                Report.reporter_id == reporter_id,
                Report.reported_id == reported_id,
                Report.status == "open",
            )
        )
        if open_one is not None:
            raise StoreError("already_reported", "your report of this player is still open")
        recent = list(
            await session.scalars(
                select(Report.created_at)
                .where(Report.reporter_id == reporter_id, Report.created_at > now - _HOUR)
                .order_by(Report.created_at)
            )
        )
        if len(recent) >= REPORTS_PER_HOUR:
            wait = (recent[0] + _HOUR - now).total_seconds()
            raise LimitReached("too_many_reports", "too many reports; try again later", wait)

    @staticmethod
    async def _chat_lines(
        session: AsyncSession, player_id: int, table_id: int | None, now: datetime
    ) -> list[dict[str, Any]]:
        where = (
            ChatMessage.table_id.is_(None) if table_id is None else ChatMessage.table_id == table_id
        )
        rows = (
            await session.scalars(
                select(ChatMessage)
                .where(
                    where,
                    ChatMessage.player_id == player_id,
                    ChatMessage.created_at > now - REPORT_CHAT_WINDOW,
                )
                .order_by(ChatMessage.id.desc())
                .limit(REPORT_CHAT_LINES)
            )
        ).all()
        return [{"text": m.text, "at": ms(m.created_at)} for m in reversed(rows)]

    async def reports(self, open_only: bool = False, limit: int = 200) -> list[dict[str, Any]]:
        """The newest reports first (only the open ones with ``open_only``)."""
        reporter = Player.__table__.alias("reporter")
        reported = Player.__table__.alias("reported")
        query = (
            select(Report, reporter.c.nickname, reported.c.nickname)
            .join(reporter, reporter.c.id == Report.reporter_id)
            .join(reported, reported.c.id == Report.reported_id)
            .order_by(Report.id.desc())
            .limit(max(1, min(limit, 1000)))
        )
        if open_only:
            query = query.where(Report.status == "open")
        async with self._read() as session:
            rows = (await session.execute(query)).all()
        return [_report_json(report, by, of) for report, by, of in rows]

    async def resolve_report(self, report_id: int, actor: str, note: str = "") -> dict[str, Any]:
        """Close an open report with a note, logged as ``actor``'s action."""
        note = _note(note)
        if not is_id(report_id):
            raise StoreError("no_such_report", "there is no such report")
        async with self._write() as session:
            report = await session.get(Report, report_id, with_for_update=True)
            if report is None:
                raise StoreError("no_such_report", "there is no such report")
            if report.status != "open":
                raise StoreError("report_resolved", "this report is already resolved")
            now = self._now()
            report.status, report.resolved_at = "resolved", now
            report.resolved_by, report.note = actor, note
            reported = await self._require_player(session, report.reported_id)
            self._log(session, actor, "resolve", reported.nickname, note, report_id)
            reporter = await self._require_player(session, report.reporter_id)
            return _report_json(report, reporter.nickname, reported.nickname)

    # ---------------------------------------------------------- moderators

    async def is_moderator(self, player_id: int) -> bool:
        if not is_id(player_id):
            return False
        async with self._read() as session:
            return await session.get(Moderator, player_id) is not None

    async def set_moderator(self, nickname: str, moderator: bool, actor: str = SHELL) -> bool:
        """Give (or take) the moderator role; returns whether anything changed."""
        async with self._write() as session:
            player = await self._player_named(session, nickname)
            if player.guest or player.is_bot:
                raise StoreError("cannot_moderate", "only a registered player can be a moderator")
            current = await session.get(Moderator, player.id)
            if (current is not None) == moderator:
                return False
            if moderator:
                session.add(Moderator(player_id=player.id, granted_at=self._now()))
            else:
                await session.execute(delete(Moderator).where(Moderator.player_id == player.id))
            action = "grant_moderator" if moderator else "revoke_moderator"
            self._log(session, actor, action, player.nickname, "")
            return True

    async def moderators(self) -> list[str]:
        async with self._read() as session:
            names = await session.scalars(
                select(Player.nickname)
                .join(Moderator, Moderator.player_id == Player.id)
                .order_by(Player.nickname)
            )
            return list(names)

    # -------------------------------------------------------- mutes and bans

    async def sanction(
        self, nickname: str, kind: str, minutes: float | None, actor: str, note: str = ""
    ) -> dict[str, Any]:
        """Mute (``kind`` mute: no chat) or ban (no login; the player's sessions
        end) a player for ``minutes`` (a ban without minutes lasts until lifted).
        Moderators cannot be sanctioned (take the role first)."""
        note = _note(note)
        if kind not in SANCTION_KINDS:
            raise bad("kind must be mute or ban")
        if minutes is None and kind == "mute":
            raise bad("a mute needs its minutes")
        if minutes is not None and not 0 < minutes <= 525_600:
            raise bad("minutes must be more than 0 and at most 525600 (a year)")
        now = self._now()
        until = None if minutes is None else now + timedelta(minutes=minutes)
        async with self._write() as session:
            player = await self._player_named(session, nickname)
            # Held as a login holds it to make its session (romme.store.sessions).
            await self._require_player(session, player.id, lock=True)
            if player.is_bot or await session.get(Moderator, player.id) is not None:
                raise StoreError("cannot_sanction", "this player cannot be muted or banned")
            await self._lift(session, player.id, kind, now)
            session.add(Sanction(player_id=player.id, kind=kind, until=until, created_at=now))
            if kind == "ban":
                await session.execute(
                    update(LoginSession)
                    .where(LoginSession.player_id == player.id, LoginSession.revoked_at.is_(None))
                    .values(revoked_at=now)
                    .execution_options(synchronize_session=False)
                )
            self._log(session, actor, kind, player.nickname, note)
            return {
                "player_id": player.id,
                "nickname": player.nickname,
                "kind": kind,
                "until": iso(until),
            }

    async def lift_sanction(self, nickname: str, kind: str, actor: str, note: str = "") -> bool:
        """End a player's mute or ban now; returns whether one was in force."""
        note = _note(note)
        if kind not in SANCTION_KINDS:
            raise bad("kind must be mute or ban")
        async with self._write() as session:
            player = await self._player_named(session, nickname)
            lifted = await self._lift(session, player.id, kind, self._now())
            if lifted:
                self._log(session, actor, "un" + kind, player.nickname, note)
            return lifted

    async def _lift(self, session: AsyncSession, player_id: int, kind: str, now: datetime) -> bool:
        return bool(
            rowcount(
                await session.execute(
                    update(Sanction)
                    .where(*_in_force(player_id, kind, now))
                    .values(lifted_at=now)
                    .execution_options(synchronize_session=False)
                )
            )
        )

    async def sanctioned_until(self, player_id: int, kind: str) -> tuple[bool, datetime | None]:
        """Whether a mute or ban of the player is in force, and when it ends
        (``None``: until lifted)."""
        if not is_id(player_id):
            return False, None
        async with self._read() as session:
            rows = (
                await session.scalars(
                    select(Sanction).where(*_in_force(player_id, kind, self._now()))
                )
            ).all()
        if not rows:
            return False, None
        ends = [s.until for s in rows]
        return True, None if None in ends else max(e for e in ends if e is not None)

    async def sanctions(self) -> list[dict[str, Any]]:
        """Mutes and bans in force, the newest first."""
        async with self._read() as session:
            rows = (
                await session.execute(
                    select(Sanction, Player.nickname)
                    .join(Player, Player.id == Sanction.player_id)
                    .where(*_in_force(None, None, self._now()))
                    .order_by(Sanction.id.desc())
                )
            ).all()
        return [
            {"nickname": name, "kind": s.kind, "until": iso(s.until), "at": iso(s.created_at)}
            for s, name in rows
        ]

    # --------------------------------------------------------------- the log

    async def moderation_log(self, limit: int = 200) -> list[dict[str, Any]]:
        """The moderation log, newest first."""
        async with self._read() as session:
            rows = (
                await session.scalars(
                    select(ModerationEntry)
                    .order_by(ModerationEntry.id.desc())
                    .limit(max(1, min(limit, 1000)))
                )
            ).all()
        return [
            {
                "id": e.id,
                "actor": e.actor,
                "action": e.action,
                "target": e.target,
                "report": e.report_id,
                "note": e.note,
                "at": iso(e.created_at),
            }
            for e in rows
        ]

    def _log(
        self,
        session: AsyncSession,
        actor: str,
        action: str,
        target: str | None,
        note: str,
        report_id: int | None = None,
    ) -> None:
        session.add(
            ModerationEntry(
                actor=actor[:80],
                action=action,
                target=target,
                report_id=report_id,
                note=note,
                created_at=self._now(),
            )
        )

    async def _player_named(self, session: AsyncSession, nickname: object) -> Player:
        key = accounts.lookup_key(nickname) if isinstance(nickname, str) else None
        player = None if key is None else await self._player_by_key(session, key)
        if player is None:
            raise StoreError("no_such_player", f"there is no player {nickname!r}")
        return player


_HOUR = timedelta(hours=1)


def _in_force(player_id: int | None, kind: str | None, now: datetime) -> list[Any]:
    where: list[Any] = [
        Sanction.lifted_at.is_(None),
        (Sanction.until.is_(None)) | (Sanction.until > now),
    ]
    if player_id is not None:
        where.append(Sanction.player_id == player_id)
    if kind is not None:
        where.append(Sanction.kind == kind)
    return where


def _note(note: object) -> str:
    if not isinstance(note, str) or len(note) > NOTE_MAX:
        raise bad(f"the note is text of at most {NOTE_MAX} characters")
    return note.strip()


def _report_json(report: Report, reporter: str, reported: str) -> dict[str, Any]:
    return {
        "id": report.id,
        "reporter": reporter,
        "reported": reported,
        "reason": report.reason,
        "text": report.text,
        "table": report.table_id,
        "chat": report.chat,
        "status": report.status,
        "at": iso(report.created_at),
        "resolved_at": iso(report.resolved_at),
        "resolved_by": report.resolved_by,
        "note": report.note,
    }
