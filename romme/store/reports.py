"""Players' reports of each other and the moderators' queue of them.

A report carries what the server attaches (the table, the reported player's recent
chat lines there, copied so that they outlive the table); the reporter only picks a
reason and may add a few words. Reports are limited per reporter
(``REPORTS_PER_HOUR``, one open report per reported player) and per address
(``REPORTS_PER_ADDRESS_HOUR``, whatever the accounts) so that they cannot flood the
moderators; the moderators' queue groups the open reports by reported player and
weighs each by its distinct reporters (guests and new accounts weigh less), so that
many reports by throwaway accounts do not outweigh one by a known player. Nothing
is ever dropped: the reports and the queue are read page by page.

Filing and reading reports is apart from the moderators' actions
(:mod:`romme.store.moderation`, which resolves a report and logs it): it has its
own limits and its own queries, and needs nothing of the sanctions.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, bad, iso, ms
from romme.store.errors import StoreError
from romme.store.limits import LimitReached
from romme.store.models import ChatMessage, Player, RateCounter, Report
from romme.store.sanction_links import address_hash

__all__ = [
    "NEW_ACCOUNT",
    "PAGE_MAX",
    "REPORTS_PER_ADDRESS_HOUR",
    "REPORTS_PER_HOUR",
    "REPORT_CHAT_LINES",
    "REPORT_REASONS",
    "REPORT_TEXT_MAX",
    "ReportStore",
    "report_json",
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
"""The longest page of reports, of the queue or of the moderation log."""
_HOUR = timedelta(hours=1)


class ReportStore(StoreCore):
    """The store's reports (see :class:`romme.store.Store`); resolving one is
    :meth:`romme.store.moderation.ModerationStore.resolve_report`."""

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
            return report_json(report, reporter.nickname, reported.nickname)

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
        return [report_json(report, by, of) for report, by, of in rows]

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


def _aware(moment: Any) -> datetime | None:
    """A time from an aggregate (SQLite may give it back as text)."""
    if moment is None or isinstance(moment, datetime):
        return moment
    return datetime.fromisoformat(str(moment)).replace(tzinfo=UTC)


def report_json(report: Report, reporter: str, reported: str) -> dict[str, Any]:
    """A report as the API gives it, with the two players' nicknames."""
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
