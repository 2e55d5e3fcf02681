"""Friends and blocks: friend requests, friendships, and the players each player
has blocked.

A block is kept from its blocked player: a request the blocked player sends is
stored as usual (its sender sees it pending) but ``hidden`` from the blocker, and
an invitation or chat line of theirs is dropped by the server on its way to the
blocker. Guests and computer opponents have no friends (they have no lasting
identity to befriend); anyone but a computer opponent may block and be blocked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import RELEASED, StoreCore, is_id
from romme.store.errors import StoreError
from romme.store.models import Block, Friendship, Player

__all__ = ["FRIENDS_MAX", "FriendStore", "SocialRecord"]

FRIENDS_MAX = 200
"""At most this many friends and pending requests of one's own, so that a list
(and the presence messages of one player coming online) stays bounded."""

PENDING = "pending"
ACCEPTED = "accepted"


@dataclass(frozen=True, slots=True)
class SocialRecord:
    """A player's friends, requests and blocks, as ``(player id, nickname)`` pairs
    sorted by nickname."""

    friends: list[tuple[int, str]] = field(default_factory=list)
    incoming: list[tuple[int, str]] = field(default_factory=list)
    """Requests to the player it may see (not those of players it blocked)."""
    outgoing: list[tuple[int, str]] = field(default_factory=list)
    blocked: list[tuple[int, str]] = field(default_factory=list)


def _pair(a: int, b: int) -> Any:
    """The friendship rows between two players, either direction."""
    return or_(
        and_(Friendship.from_id == a, Friendship.to_id == b),
        and_(Friendship.from_id == b, Friendship.to_id == a),
    )


def _by_name(rows: Any) -> list[tuple[int, str]]:
    return sorted(((int(i), str(n)) for i, n in rows), key=lambda p: p[1].casefold())


class FriendStore(StoreCore):
    """The store's friends and blocks (see :class:`romme.store.Store`)."""

    async def _two(self, session: AsyncSession, player_id: int, other_id: int) -> Player:
        """The other player, checked: ``no_such_player``; ``cannot_befriend``
        for oneself or a computer opponent."""
        if not (is_id(player_id) and is_id(other_id)):
            raise StoreError("no_such_player", "there is no such player")
        other = await self._require_player(session, other_id)
        if other_id == player_id or other.is_bot:
            raise StoreError("cannot_befriend", "choose another person")
        return other

    async def request_friend(self, from_id: int, to_id: int) -> bool:
        """Ask ``to_id`` to be friends; True when it asked first and they are
        friends now. Asking again is no error. ``account_required`` for a guest,
        ``cannot_befriend`` for oneself, a guest, a computer opponent or a player
        one has blocked, ``too_many_friends`` past :data:`FRIENDS_MAX`."""
        async with self._write() as session:
            sender = await self._require_player(session, from_id, lock=True)
            if sender.guest:
                raise StoreError("account_required", "register to have friends")
            invitee = await self._two(session, from_id, to_id)
            if invitee.guest:
                raise StoreError("cannot_befriend", f"{invitee.nickname} is a guest")
            if await self._blocks(session, from_id, to_id):
                raise StoreError("cannot_befriend", f"unblock {invitee.nickname} first")
            rows = (await session.scalars(select(Friendship).where(_pair(from_id, to_id)))).all()
            mine = next((r for r in rows if r.from_id == from_id), None)
            theirs = next((r for r in rows if r.from_id == to_id), None)
            if theirs is not None and theirs.status == PENDING:
                # Both asked: they are friends (a request hidden by an old block too).
                theirs.status, theirs.hidden, theirs.accepted_at = ACCEPTED, False, self._now()
                if mine is not None:
                    await session.delete(mine)
                return True
            if mine is not None or theirs is not None:
                return False
            count = await session.scalar(
                select(Friendship.id)
                .where(or_(Friendship.from_id == from_id, Friendship.to_id == from_id))
                .where(or_(Friendship.status == ACCEPTED, Friendship.from_id == from_id))
                .offset(FRIENDS_MAX - 1)
                .limit(1)
            )
            if count is not None:
                raise StoreError("too_many_friends", f"at most {FRIENDS_MAX} friends and requests")
            hidden = await self._blocks(session, to_id, from_id)
            session.add(
                Friendship(
                    from_id=from_id,
                    to_id=to_id,
                    status=PENDING,
                    hidden=hidden,
                    created_at=self._now(),
                    accepted_at=None,
                )
            )
            return False

    async def answer_friend(self, player_id: int, from_id: int, accept: bool) -> None:
        """Accept or decline the request of ``from_id`` (``no_friend_request`` if
        there is none the player can see)."""
        async with self._write() as session:
            request = await session.scalar(
                select(Friendship).where(
                    Friendship.from_id == from_id,
                    Friendship.to_id == player_id,
                    Friendship.status == PENDING,
                    Friendship.hidden.is_(False),
                )
            )
            if request is None:
                raise StoreError("no_friend_request", "there is no such friend request")
            if accept:
                request.status, request.accepted_at = ACCEPTED, self._now()
            else:
                await session.delete(request)

    async def remove_friend(self, player_id: int, other_id: int) -> None:
        """End a friendship, or withdraw or decline a request, either way (no
        error if there is none)."""
        async with self._write() as session:
            await session.execute(delete(Friendship).where(_pair(player_id, other_id)))

    async def block(self, player_id: int, other_id: int) -> None:
        """Block a player: a friendship between them ends, the player's own
        request to them is withdrawn, and their request to the player is hidden
        from it (they still see it pending). ``cannot_block`` for oneself or a
        computer opponent; blocking again is no error."""
        async with self._write() as session:
            try:
                await self._two(session, player_id, other_id)
            except StoreError as exc:
                if exc.code != "cannot_befriend":
                    raise
                raise StoreError("cannot_block", "choose another person") from None
            await session.execute(
                delete(Friendship).where(
                    _pair(player_id, other_id),
                    or_(Friendship.status == ACCEPTED, Friendship.from_id == player_id),
                )
            )
            await session.execute(
                update(Friendship)
                .where(Friendship.from_id == other_id, Friendship.to_id == player_id)
                .values(hidden=True)
            )
            if not await self._blocks(session, player_id, other_id):
                session.add(
                    Block(blocker_id=player_id, blocked_id=other_id, created_at=self._now())
                )

    async def unblock(self, player_id: int, other_id: int) -> None:
        """Lift a block (no error if there is none). What was hidden stays hidden."""
        async with self._write() as session:
            await session.execute(
                delete(Block).where(Block.blocker_id == player_id, Block.blocked_id == other_id)
            )

    async def blocks(self, blocker_id: int, blocked_id: int) -> bool:
        """Whether ``blocker_id`` has blocked ``blocked_id``."""
        async with self._read() as session:
            return await self._blocks(session, blocker_id, blocked_id)

    @staticmethod
    async def _blocks(session: AsyncSession, blocker_id: int, blocked_id: int) -> bool:
        found = await session.scalar(
            select(Block.blocker_id).where(
                Block.blocker_id == blocker_id, Block.blocked_id == blocked_id
            )
        )
        return found is not None

    async def blocked_nicknames(self, player_id: int) -> set[str]:
        """The nicknames the players ``player_id`` has blocked hold now (they are
        blocked by id: a guest who registers under another name stays blocked)."""
        if not is_id(player_id):
            return set()
        async with self._read() as session:
            names = await session.scalars(
                select(Player.nickname)
                .join(Block, Block.blocked_id == Player.id)
                .where(Block.blocker_id == player_id)
            )
            return set(names)

    async def friend_ids(self, player_id: int) -> list[int]:
        """The ids of a player's friends."""
        async with self._read() as session:
            rows = await session.execute(
                select(Friendship.from_id, Friendship.to_id).where(
                    or_(Friendship.from_id == player_id, Friendship.to_id == player_id),
                    Friendship.status == ACCEPTED,
                )
            )
            return [b if a == player_id else a for a, b in rows.all()]

    async def social(self, player_id: int) -> SocialRecord:
        """A player's friends, the requests to and from it, and its blocks."""
        async with self._read() as session:
            rows = (
                await session.execute(
                    select(Friendship, Player.id, Player.nickname)
                    .join(
                        Player,
                        or_(
                            and_(Friendship.to_id == player_id, Player.id == Friendship.from_id),
                            and_(Friendship.from_id == player_id, Player.id == Friendship.to_id),
                        ),
                    )
                    .where(or_(Friendship.from_id == player_id, Friendship.to_id == player_id))
                )
            ).all()
            # A released guest's nickname may be someone else's now: its block
            # stays stored but no longer names anyone.
            blocked = await session.execute(
                select(Player.id, Player.nickname)
                .join(Block, Block.blocked_id == Player.id)
                .where(Block.blocker_id == player_id, ~Player.nickname_key.startswith(RELEASED))
            )
            return SocialRecord(
                friends=_by_name((i, n) for f, i, n in rows if f.status == ACCEPTED),
                incoming=_by_name(
                    (i, n)
                    for f, i, n in rows
                    if f.status == PENDING and f.to_id == player_id and not f.hidden
                ),
                outgoing=_by_name(
                    (i, n) for f, i, n in rows if f.status == PENDING and f.from_id == player_id
                ),
                blocked=_by_name(blocked.all()),
            )
