"""What a registered player controls of their own account: changing the password,
deleting the account, and exporting their data.

Deleting an account keeps the history of the others valid and takes the player's
personal data away:

* kept: the ``players`` row under a placeholder nickname (``deleted player #7``,
  so finished games, game logs and the seats of other players' games still name
  someone), the games' seats, results, ratings and action logs (every game log
  still replays), the tables the player hosted;
* removed: the nickname (free for anyone at once), the password hash, every
  session (with its addresses and browsers), the chat lines the player wrote, the
  invitations sent or received, the counter of failed logins; the player leaves
  the rankings and ``player_info`` no longer finds them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import String, cast, delete, or_, select
from sqlalchemy.exc import IntegrityError

from romme.store import accounts, limits, ratings
from romme.store.core import StoreCore, is_id, iso, ms
from romme.store.deletion import DELETED
from romme.store.errors import StoreError
from romme.store.models import (
    Block,
    BrowserMark,
    ChatMessage,
    Friendship,
    GameSeat,
    GameTable,
    Invitation,
    LoginSession,
    Player,
    Report,
)
from romme.store.sessions import revoke, token_hash
from romme.store.statistics import statistics_of

__all__ = ["DELETED", "AccountOwnerStore", "deleted_nickname"]


def deleted_nickname(player_id: int) -> str:
    """The placeholder that names a deleted player in the history of others. It has
    a space and ``#``, which no chosen nickname may hold."""
    return f"deleted player #{player_id}"


class AccountOwnerStore(StoreCore):
    """The account owner's own controls (see :class:`romme.store.Store`)."""

    async def change_password(
        self, player_id: int, old_password: str, new_password: str, keep_session: str | None = None
    ) -> int:
        """Set a new password after checking the old one (``wrong_password``;
        ``password_length`` for a new one out of bounds; ``not_registered`` for a
        guest, who has none), and end every session of the player but
        ``keep_session`` (a token: the one that asked) in the same transaction,
        with the player's row held as a login's session is made
        (:mod:`romme.store.sessions`): no session made with the old password
        outlives the change. Returns how many sessions ended."""
        accounts.validate_password(new_password)
        stored_hash = await self._password_hash(player_id)
        await self._check_password(player_id, stored_hash, old_password)
        new_hash = await asyncio.to_thread(accounts.hash_password, self._hasher, new_password)
        async with self._write() as session:
            player = await self._require_player(session, player_id, lock=True)
            if player.password_hash != stored_hash:
                raise StoreError("wrong_password", "the password has just been changed")
            player.password_hash = new_hash
            now = self._now()
            where: list[Any] = [LoginSession.player_id == player_id, LoginSession.expires_at > now]
            if keep_session is not None:
                where.append(LoginSession.token_hash != token_hash(keep_session))
            return await revoke(session, now, *where)

    async def delete_account(self, player_id: int, password: str) -> tuple[str, set[int]]:
        """Delete the account as the module says (the password must be right);
        returns the placeholder nickname that now stands for the player and the
        ids of the chat lines removed (for the server to forget them too)."""
        stored_hash = await self._password_hash(player_id)
        await self._check_password(player_id, stored_hash, password)
        placeholder = deleted_nickname(player_id)
        async with self._write() as session:
            player = await self._require_player(session, player_id, lock=True)
            if player.password_hash != stored_hash:
                raise StoreError("wrong_password", "the password has just been changed")
            # With the row held, the start of a game where the player sits has been
            # stored already (and is seen here) or waits and is refused
            # (refuse_deleted_players).
            running = (
                await session.scalars(
                    select(GameTable.seats).where(
                        GameTable.status == "playing",
                        cast(GameTable.seats, String).like(f'%"player": {player_id},%'),
                    )
                )
            ).all()
            if any(_seated(seats, player_id) for seats in running):
                raise StoreError("in_game", "leave or finish your running game first")
            old_key = player.nickname_key
            player.nickname = placeholder
            player.nickname_key = DELETED + str(player_id)
            player.nickname_skeleton = DELETED + str(player_id)
            player.password_hash = None
            await session.execute(delete(LoginSession).where(LoginSession.player_id == player_id))
            await session.execute(delete(BrowserMark).where(BrowserMark.player_id == player_id))
            chat_ids = set(
                await session.scalars(
                    select(ChatMessage.id).where(ChatMessage.player_id == player_id)
                )
            )
            await session.execute(delete(ChatMessage).where(ChatMessage.player_id == player_id))
            await session.execute(
                delete(Invitation).where(
                    or_(Invitation.from_id == player_id, Invitation.to_id == player_id)
                )
            )
            await limits.forget(session, limits.account_key(old_key))
            await limits.forget(session, f"password-check:{player_id}")
            # The seats stored with each table carry the nickname it was played under.
            tables = (
                await session.scalars(
                    select(GameTable).where(
                        cast(GameTable.seats, String).like(f'%"player": {player_id},%')
                    )
                )
            ).all()
            for table in tables:
                table.seats = [
                    {**seat, "nickname": placeholder}
                    if isinstance(seat, dict) and seat.get("player") == player_id
                    else seat
                    for seat in table.seats
                ]
        return placeholder, chat_ids

    async def export_data(self, player_id: int) -> dict[str, Any]:
        """Everything the store keeps about the player, as one JSON object: the
        account, every finished game with its place and rating change, the chat
        lines written, the sessions, the invitations, the friends and friend
        requests, the players blocked, the reports filed and the statistics. Not
        in it: what others keep about the player (their blocks and reports of
        the player, which would give the others away)."""
        if not is_id(player_id):
            raise StoreError("no_such_player", f"there is no player {player_id!r}")
        async with self._read() as session:
            player = await self._require_player(session, player_id)
            seats = (
                await session.scalars(
                    select(GameSeat)
                    .where(GameSeat.player_id == player_id)
                    .order_by(GameSeat.finished_at.desc(), GameSeat.table_id.desc())
                )
            ).all()
            chat = (
                await session.scalars(
                    select(ChatMessage)
                    .where(ChatMessage.player_id == player_id)
                    .order_by(ChatMessage.id)
                )
            ).all()
            logins = (
                await session.scalars(
                    select(LoginSession)
                    .where(LoginSession.player_id == player_id)
                    .order_by(LoginSession.id.desc())
                )
            ).all()
            invitations = (
                await session.scalars(
                    select(Invitation)
                    .where(or_(Invitation.from_id == player_id, Invitation.to_id == player_id))
                    .order_by(Invitation.id)
                )
            ).all()
            friendships = (
                await session.scalars(
                    select(Friendship)
                    .where(
                        or_(
                            Friendship.from_id == player_id,
                            # A request hidden from its addressee is not shown to it.
                            (Friendship.to_id == player_id) & Friendship.hidden.is_(False),
                        )
                    )
                    .order_by(Friendship.id)
                )
            ).all()
            blocks = (
                await session.scalars(
                    select(Block).where(Block.blocker_id == player_id).order_by(Block.created_at)
                )
            ).all()
            reports = (
                await session.scalars(
                    select(Report).where(Report.reporter_id == player_id).order_by(Report.id)
                )
            ).all()
            others = {f.to_id if f.from_id == player_id else f.from_id for f in friendships}
            others |= {b.blocked_id for b in blocks} | {r.reported_id for r in reports}
            names = dict(
                (
                    await session.execute(
                        select(Player.id, Player.nickname).where(Player.id.in_(sorted(others)))
                    )
                ).all()
            )
            statistics = await statistics_of(session, player)
        return {
            "player": {
                "id": player.id,
                "nickname": player.nickname,
                "guest": player.guest,
                "created_at": iso(player.created_at),
                "registered_at": iso(player.registered_at),
                "rating": ratings.shown(player.rating),
                "games_played": player.games_played,
                "games_won": player.games_won,
            },
            "games": [
                {
                    "game": seat.table_id,
                    "seat": seat.seat,
                    "finished_at": iso(seat.finished_at),
                    "place": seat.place,
                    "won": seat.won,
                    "players": seat.players,
                    "rating_before": _shown(seat.rating_before),
                    "rating_after": _shown(seat.rating_after),
                }
                for seat in seats
            ],
            "chat": [
                {
                    "id": line.id,
                    "table": line.table_id,
                    "text": line.text,
                    "at": ms(line.created_at),
                }
                for line in chat
            ],
            "sessions": [
                {
                    "id": login.id,
                    "created_at": iso(login.created_at),
                    "last_seen_at": iso(login.last_seen_at),
                    "expires_at": iso(login.expires_at),
                    "revoked_at": iso(login.revoked_at),
                    "address": login.address,
                    "user_agent": login.user_agent,
                }
                for login in logins
            ],
            "invitations": [
                {
                    "id": invitation.id,
                    "table": invitation.table_id,
                    "sent": invitation.from_id == player_id,
                    "status": invitation.status,
                    "created_at": iso(invitation.created_at),
                }
                for invitation in invitations
            ],
            "friends": [
                {
                    "player": other,
                    "nickname": names.get(other),
                    "sent": friendship.from_id == player_id,
                    "status": friendship.status,
                    "created_at": iso(friendship.created_at),
                    "accepted_at": iso(friendship.accepted_at),
                }
                for friendship in friendships
                for other in [
                    friendship.to_id if friendship.from_id == player_id else friendship.from_id
                ]
            ],
            "blocks": [
                {
                    "player": block.blocked_id,
                    "nickname": names.get(block.blocked_id),
                    "created_at": iso(block.created_at),
                }
                for block in blocks
            ],
            "reports": [
                {
                    "id": report.id,
                    "player": report.reported_id,
                    "nickname": names.get(report.reported_id),
                    "reason": report.reason,
                    "text": report.text,
                    "table": report.table_id,
                    "status": report.status,
                    "created_at": iso(report.created_at),
                    "resolved_at": iso(report.resolved_at),
                }
                for report in reports
            ],
            "statistics": statistics,
        }

    async def _password_hash(self, player_id: int) -> str:
        async with self._read() as session:
            player = await self._require_player(session, player_id)
        if player.guest or player.password_hash is None:
            raise StoreError("not_registered", "a guest account has no password")
        return player.password_hash

    async def _check_password(self, player_id: int, stored_hash: str, password: object) -> None:
        """``wrong_password`` unless ``password`` is the player's. Wrong ones count as
        failed logins do (``too_many_attempts`` after 5, with growing waits), on a
        counter of their own, so that someone who holds an open session cannot try
        password after password, nor lock the owner's logins out."""
        key = f"password-check:{player_id}"
        try:
            async with self._write() as session:
                await limits.count_failure(session, key, limits.ACCOUNT_LOGINS, self._now())
        except IntegrityError:
            # Checks at the same moment made the same new counter (PostgreSQL): the
            # row stands now, and this second try counts on it, locked.
            async with self._write() as session:
                await limits.count_failure(session, key, limits.ACCOUNT_LOGINS, self._now())
        right = (
            isinstance(password, str)
            and accounts.password_fits(password)
            and await asyncio.to_thread(
                accounts.verify_password, self._hasher, stored_hash, password
            )
        )
        async with self._write() as session:
            if right:
                await limits.forget(session, key)
            else:
                await limits.confirm_failure(session, key, limits.ACCOUNT_LOGINS, self._now())
        if not right:
            raise StoreError("wrong_password", "the password is not right")


def _seated(seats: Any, player_id: int) -> bool:
    """Whether the player sits in these stored seats and has not left the game."""
    return isinstance(seats, list) and any(
        isinstance(seat, dict) and seat.get("player") == player_id and not seat.get("left")
        for seat in seats
    )


def _shown(rating: float | None) -> int | None:
    return None if rating is None else ratings.shown(rating)
