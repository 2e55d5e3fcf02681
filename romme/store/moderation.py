"""Moderation: the moderators, resolving reports, mutes and bans, and the
moderation log that records every moderator's action. The players' reports and
the moderators' queue of them are :mod:`romme.store.reports`.

Every person is judged by player id: reports, sanctions and the moderation log keep
ids, with the nickname of the time as a snapshot beside them. A ban ends the
player's sessions in the same transaction; a sanction follows the person to new
accounts (:mod:`romme.store.sanction_links`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, bad, is_id, iso
from romme.store.errors import StoreError
from romme.store.models import (
    LoginSession,
    ModerationEntry,
    Moderator,
    Player,
    Report,
    Sanction,
)
from romme.store.reports import PAGE_MAX, report_json
from romme.store.sanction_links import record_links

__all__ = ["SANCTION_KINDS", "SHELL", "ModerationStore"]

SANCTION_KINDS = ("mute", "ban")
NOTE_MAX = 1000
SHELL = "shell"
"""The actor that ``romme admin`` writes in the moderation log."""


class ModerationStore(StoreCore):
    """The store's moderation (see :class:`romme.store.Store`)."""

    # ------------------------------------------------------------- reports

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
            return report_json(report, reporter.nickname, reported.nickname)

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
