"""Invitations to a table: creating them (with the checks that keep anyone from
being flooded), answering them, and the open ones of a player."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, or_, select

from romme.store.core import StoreCore, bad, is_id, is_int, ms
from romme.store.errors import StoreError
from romme.store.models import Invitation, Player

__all__ = ["INVITATION_TTL_MS", "InvitationStore"]

INVITATION_TTL_MS = 2 * 60 * 1000
"""How long an invitation stays open unless told otherwise."""


class InvitationStore(StoreCore):
    """The store's invitations (see :class:`romme.store.Store`)."""

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
            expires_at_ms = ms(now) + INVITATION_TTL_MS
        if not is_int(expires_at_ms) or not 0 < expires_at_ms < 2**62:
            raise bad("expires_at_ms is a time in milliseconds")
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
                    Invitation.expires_at_ms > ms(now),
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
        if not is_int(now_ms):
            raise bad("now_ms is a time in milliseconds")
        async with self._write() as session:
            invitation = None
            if is_id(invitation_id):
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
        if not is_int(now_ms):
            raise bad("now_ms is a time in milliseconds")
        if not is_id(player_id):
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
