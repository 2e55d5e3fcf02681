"""Moderation: players' reports of each other, the moderators, mutes and bans,
and the moderation log that records every moderator's action.

A report carries what the server attaches (the table, the reported player's recent
chat lines there, copied so that they outlive the table); the reporter only picks a
reason and may add a few words. Reports are limited per reporter
(``REPORTS_PER_HOUR``, one open report per reported player) and per address
(``REPORTS_PER_ADDRESS_HOUR``, whatever the accounts) so that they cannot flood the
moderators; the moderators' queue groups the open reports by reported player and
weighs each by its distinct reporters (guests and new accounts weigh less), so that
many reports by throwaway accounts do not outweigh one by a known player. Nothing
is ever dropped: the reports and the queue are read page by page.

Every person is judged by player id: reports, sanctions and the moderation log keep
ids, with the nickname of the time as a snapshot beside them. A ban ends the
player's sessions in the same transaction; a sanction follows the person to new
accounts (:mod:`romme.store.sanction_links`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store import accounts
from romme.store.core import StoreCore, bad, is_id, iso, ms
from romme.store.errors import StoreError
from romme.store.limits import LimitReached
from romme.store.models import (
    ChatMessage,
    LoginSession,
    ModerationEntry,
    Moderator,
    Player,
    RateCounter,
    Report,
    Sanction,
)
from romme.store.sanction_links import address_hash, record_links

__all__ = [
    "NEW_ACCOUNT",
    "REPORTS_PER_ADDRESS_HOUR",
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
REPORTS_PER_ADDRESS_HOUR = 20
"""Reports filed from one address (an IPv4 address or an IPv6 /64) in an hour,
whatever the accounts: without it, the 20 guests one address may create an hour
file 200."""
NEW_ACCOUNT = timedelta(days=7)
"""A registered account younger than this is new: its reports weigh less."""
WEIGHT_GUEST, WEIGHT_NEW, WEIGHT_KNOWN = 1, 2, 4
"""What one reporter adds to the weight of a reported player in the queue."""
PAGE_MAX = 500
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
        address: str = "",
    ) -> dict[str, Any]:
        """File a report of the player ``nickname`` by ``reporter_id`` from
        ``address``, with the reported player's recent chat lines at ``table_id``
        (the lobby when ``None``) attached. Refuses an unknown reason
        (``bad_message``), a note over ``REPORT_TEXT_MAX``, a report of oneself
        (``cannot_report``), a second open report of the same player
        (``already_reported``), more than ``REPORTS_PER_HOUR`` reports of the
        reporter an hour and more than ``REPORTS_PER_ADDRESS_HOUR`` from the
        address (``too_many_reports``, counted with the address's counter row
        locked, so that parallel reports cannot slip past it)."""
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
            address_key = address_hash(address)
            await self._check_address_limit(session, address_key, now)
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
                address_key=address_key,
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

    async def _check_address_limit(self, session: AsyncSession, key: str, now: datetime) -> None:
        """Refuse past ``REPORTS_PER_ADDRESS_HOUR`` reports from the address in the
        last hour. The address's counter row is created if missing and locked
        (PostgreSQL; SQLite has one writer), so that two transactions never count
        the same reports."""
        insert = sqlite_insert if self._sqlite else pg_insert
        counter_key = "reports-address:" + key[:40]
        await session.execute(
            insert(RateCounter)
            .values(key=counter_key, count=0, started_at=now, updated_at=now)
            .on_conflict_do_nothing(index_elements=["key"])
        )
        counter = await session.get(RateCounter, counter_key, with_for_update=True)
        recent = list(
            await session.scalars(
                select(Report.created_at)
                .where(Report.address_key == key, Report.created_at > now - _HOUR)
                .order_by(Report.created_at)
                .limit(REPORTS_PER_ADDRESS_HOUR)
            )
        )
        if len(recent) >= REPORTS_PER_ADDRESS_HOUR:
            wait = (recent[0] + _HOUR - now).total_seconds()
            raise LimitReached(
                "too_many_reports", "too many reports from your address; try again later", wait
            )
        if counter is not None:
            counter.count, counter.updated_at = len(recent) + 1, now

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

    async def reports(
        self,
        open_only: bool = False,
        limit: int = 200,
        before: int | None = None,
        reported_id: int | None = None,
    ) -> list[dict[str, Any]]:
        """The newest reports first (only the open ones with ``open_only``; only
        those older than the report ``before``, of the player ``reported_id``):
        a page; the next one starts before its last report's id."""
        reporter = Player.__table__.alias("reporter")
        reported = Player.__table__.alias("reported")
        query = (
            select(Report, reporter.c.nickname, reported.c.nickname)
            .join(reporter, reporter.c.id == Report.reporter_id)
            .join(reported, reported.c.id == Report.reported_id)
            .order_by(Report.id.desc())
            .limit(max(1, min(limit, PAGE_MAX)))
        )
        if open_only:
            query = query.where(Report.status == "open")
        if before is not None:
            query = query.where(Report.id < before)
        if reported_id is not None:
            query = query.where(Report.reported_id == reported_id)
        async with self._read() as session:
            rows = (await session.execute(query)).all()
        return [_report_json(report, by, of) for report, by, of in rows]

    async def report_queue(
        self, limit: int = 50, after: tuple[int, int] | None = None
    ) -> tuple[list[dict[str, Any]], tuple[int, int] | None]:
        """The open reports grouped by reported player, the heaviest first (then
        the one reported first): ``weight`` adds ``WEIGHT_GUEST`` for each guest
        reporter, ``WEIGHT_NEW`` for each account younger than ``NEW_ACCOUNT``,
        ``WEIGHT_KNOWN`` for every other. A page of ``limit`` groups after the
        cursor ``after`` (``(weight, first report id)`` of the previous page's
        last group), and the cursor of the next page (``None``: no more)."""
        now = self._now()
        reporter = Player.__table__.alias("reporter")
        weight_of = case(
            (reporter.c.guest.is_(True), WEIGHT_GUEST),
            (reporter.c.registered_at > now - NEW_ACCOUNT, WEIGHT_NEW),
            else_=WEIGHT_KNOWN,
        )
        weight = func.sum(weight_of).label("weight")
        first = func.min(Report.id).label("first")
        query = (
            select(
                Report.reported_id,
                weight,
                first,
                func.max(Report.id).label("latest"),
                func.count(func.distinct(Report.reporter_id)).label("reporters"),
                func.sum(case((reporter.c.guest.is_(True), 1), else_=0)).label("guests"),
                func.sum(
                    case(
                        (
                            and_(
                                reporter.c.guest.is_(False),
                                reporter.c.registered_at > now - NEW_ACCOUNT,
                            ),
                            1,
                        ),
                        else_=0,
                    )
                ).label("new_accounts"),
                func.min(Report.created_at).label("first_at"),
                func.max(Report.created_at).label("last_at"),
            )
            .join(reporter, reporter.c.id == Report.reporter_id)
            .where(Report.status == "open")
            .group_by(Report.reported_id)
            .order_by(weight.desc(), first)
            .limit(max(1, min(limit, PAGE_MAX)) + 1)
        )
        if after is not None:
            query = query.having(or_(weight < after[0], and_(weight == after[0], first > after[1])))
        async with self._read() as session:
            groups = (await session.execute(query)).all()
            page = groups[: max(1, min(limit, PAGE_MAX))]
            ids = [g.reported_id for g in page]
            names: dict[int, str] = {}
            reasons: dict[int, dict[str, int]] = {}
            if ids:
                found = await session.execute(
                    select(Player.id, Player.nickname).where(Player.id.in_(ids))
                )
                names = {pid: name for pid, name in found}
                for pid, reason, count in await session.execute(
                    select(Report.reported_id, Report.reason, func.count())
                    .where(Report.status == "open", Report.reported_id.in_(ids))
                    .group_by(Report.reported_id, Report.reason)
                ):
                    reasons.setdefault(pid, {})[reason] = count
        more = len(groups) > len(page)
        last = page[-1] if page else None
        cursor = (int(last.weight), int(last.first)) if more and last is not None else None
        return [
            {
                "player_id": g.reported_id,
                "nickname": names.get(g.reported_id),
                "weight": int(g.weight),
                "reporters": int(g.reporters),
                "guests": int(g.guests),
                "new_accounts": int(g.new_accounts),
                "reasons": reasons.get(g.reported_id, {}),
                "first_report": int(g.first),
                "latest_report": int(g.latest),
                "first_at": iso(_aware(g.first_at)),
                "last_at": iso(_aware(g.last_at)),
            }
            for g in page
        ], cursor

    async def resolve_report(
        self, report_id: int, actor: str, note: str = "", actor_id: int | None = None
    ) -> dict[str, Any]:
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
            self._log(session, actor, actor_id, "resolve", reported, note, report_id)
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
            self._log(session, actor, None, action, player, "")
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
        self,
        nickname: str | int,
        kind: str,
        minutes: float | None,
        actor: str,
        note: str = "",
        actor_id: int | None = None,
    ) -> dict[str, Any]:
        """Mute (``kind`` mute: no chat) or ban (no login; the player's sessions
        end) a player for ``minutes`` (a ban without minutes lasts until lifted).
        ``nickname`` may be the player's id (a deleted account has no nickname
        to find it by). Moderators cannot be sanctioned (take the role first). The sanction is
        linked to the player's recent addresses and browsers, so that it follows
        them to a new account (:mod:`romme.store.sanction_links`)."""
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
            given = Sanction(
                player_id=player.id,
                kind=kind,
                until=until,
                created_at=now,
                nickname=player.nickname,
            )
            session.add(given)
            await record_links(session, given, player.id, now)
            if kind == "ban":
                await session.execute(
                    update(LoginSession)
                    .where(LoginSession.player_id == player.id, LoginSession.revoked_at.is_(None))
                    .values(revoked_at=now)
                    .execution_options(synchronize_session=False)
                )
            self._log(session, actor, actor_id, kind, player, note)
            return {
                "player_id": player.id,
                "nickname": player.nickname,
                "kind": kind,
                "until": iso(until),
            }

    async def lift_sanction(
        self,
        nickname: str | int,
        kind: str,
        actor: str,
        note: str = "",
        actor_id: int | None = None,
    ) -> bool:
        """End a player's mute or ban now, and those that followed it to other
        accounts; returns whether one was in force."""
        note = _note(note)
        if kind not in SANCTION_KINDS:
            raise bad("kind must be mute or ban")
        async with self._write() as session:
            player = await self._player_named(session, nickname)
            lifted = await self._lift(session, player.id, kind, self._now())
            if lifted:
                self._log(session, actor, actor_id, "un" + kind, player, note)
            return lifted

    async def _lift(self, session: AsyncSession, player_id: int, kind: str, now: datetime) -> bool:
        """Lift the player's sanctions of ``kind`` in force, and every one that
        followed from them (to the end of the chain)."""
        ids = list(
            await session.scalars(select(Sanction.id).where(*_in_force(player_id, kind, now)))
        )
        lifted = bool(ids)
        while ids:
            await session.execute(
                update(Sanction)
                .where(Sanction.id.in_(ids))
                .values(lifted_at=now)
                .execution_options(synchronize_session=False)
            )
            ids = list(
                await session.scalars(
                    select(Sanction.id).where(
                        Sanction.source_id.in_(ids), *_in_force(None, kind, now)
                    )
                )
            )
        return lifted

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
        """Mutes and bans in force, the newest first: the player by id, with its
        nickname now (``nickname``) and when sanctioned (``nickname_then``), and
        the sanction it followed from (``source``)."""
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
            {
                "id": s.id,
                "player_id": s.player_id,
                "nickname": name,
                "nickname_then": s.nickname,
                "kind": s.kind,
                "until": iso(s.until),
                "at": iso(s.created_at),
                "source": s.source_id,
            }
            for s, name in rows
        ]

    # --------------------------------------------------------------- the log

    async def moderation_log(
        self, limit: int = 200, before: int | None = None
    ) -> list[dict[str, Any]]:
        """The moderation log, newest first (a page: only entries older than the
        entry ``before``). The players are named as they are called now
        (``target``, by ``target_id``), and as they were called then
        (``target_then``): a nickname may since belong to someone else."""
        query = (
            select(ModerationEntry, Player.nickname)
            .outerjoin(Player, Player.id == ModerationEntry.target_id)
            .order_by(ModerationEntry.id.desc())
            .limit(max(1, min(limit, PAGE_MAX)))
        )
        if before is not None:
            query = query.where(ModerationEntry.id < before)
        async with self._read() as session:
            rows = (await session.execute(query)).all()
        return [
            {
                "id": e.id,
                "actor": e.actor,
                "actor_id": e.actor_id,
                "action": e.action,
                # Entries from before ids were kept name only the nickname of then.
                "target": now_called if e.target_id is not None else e.target,
                "target_id": e.target_id,
                "target_then": e.target,
                "report": e.report_id,
                "note": e.note,
                "at": iso(e.created_at),
            }
            for e, now_called in rows
        ]

    def _log(
        self,
        session: AsyncSession,
        actor: str,
        actor_id: int | None,
        action: str,
        target: Player,
        note: str,
        report_id: int | None = None,
    ) -> None:
        session.add(
            ModerationEntry(
                actor=actor[:80],
                actor_id=actor_id,
                action=action,
                target=target.nickname,
                target_id=target.id,
                report_id=report_id,
                note=note,
                created_at=self._now(),
            )
        )

    async def _player_named(self, session: AsyncSession, nickname: object) -> Player:
        """The player of a nickname, or of an id (an ``int``)."""
        if isinstance(nickname, int) and not isinstance(nickname, bool):
            return await self._require_player(session, nickname)
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


def _aware(moment: Any) -> datetime | None:
    """A time from an aggregate (SQLite may give it back as text)."""
    if moment is None or isinstance(moment, datetime):
        return moment
    return datetime.fromisoformat(str(moment)).replace(tzinfo=UTC)


def _note(note: object) -> str:
    if not isinstance(note, str) or len(note) > NOTE_MAX:
        raise bad(f"the note is text of at most {NOTE_MAX} characters")
    return note.strip()


def _report_json(report: Report, reporter: str, reported: str) -> dict[str, Any]:
    return {
        "id": report.id,
        "reporter": reporter,
        "reporter_id": report.reporter_id,
        "reported": reported,
        "reported_id": report.reported_id,
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
