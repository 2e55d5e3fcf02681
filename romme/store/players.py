"""Players: guest and registered accounts, logging in (with its limits), finding
players, releasing a guest's nickname, and the accounts of the computer levels.

Nicknames, passwords and their hashing are checked in :mod:`romme.store.accounts`;
the limits on guessing and on new accounts are :mod:`romme.store.limits`.
"""

from __future__ import annotations

import asyncio
import re
import secrets

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store import accounts, limits
from romme.store.core import (
    RELEASED,
    StoreCore,
    is_id,
    player_record,
    release_guests,
    taken,
)
from romme.store.errors import StoreError
from romme.store.lookalikes import skeleton
from romme.store.models import LoginSession, Player
from romme.store.records import PlayerRecord
from romme.store.sessions import VerifiedLogin

__all__ = ["PlayerStore"]

_BOT_LEVEL = re.compile(r"[a-z][a-z0-9_+-]{0,15}\Z")


class PlayerStore(StoreCore):
    """The store's accounts (see :class:`romme.store.Store`)."""

    _dummy_hash: str | None = None
    """The stand-in hash of :meth:`_stand_in_hash`, made on first use."""

    async def create_guest(self, nickname: str, address: str | None = None) -> PlayerRecord:
        """A new guest account (no password; its rating is never kept). ``address``:
        the client's, counted against :attr:`accounts_per_hour` (``too_many_accounts``)."""
        nickname = accounts.validate_nickname(nickname)
        key = accounts.nickname_key(nickname)
        try:
            async with self._write() as session:
                if await self._player_by_key(session, key) is not None:
                    raise taken(nickname)
                await self._refuse_lookalike(session, nickname)
                await self._count_new_account(session, address)
                player = self._new_player(nickname, guest=True)
                session.add(player)
                await session.flush()
        except IntegrityError:  # the same nickname, taken a moment ago
            raise taken(nickname) from None
        return player_record(player)

    async def register(
        self,
        nickname: str,
        password: str,
        guest_id: int | None = None,
        address: str | None = None,
    ) -> PlayerRecord:
        """A registered account. With ``guest_id``, that guest becomes registered and
        keeps its history (and is renamed if ``nickname`` is another, free one).
        ``address``: as for :meth:`create_guest` (a guest who registers is no new
        account and is not counted)."""
        nickname = accounts.validate_nickname(nickname)
        accounts.validate_password(password)
        key = accounts.nickname_key(nickname)
        # Hashing is slow on purpose: look for a clash first, and hash off the loop.
        async with self._read() as session:
            holder = await self._player_by_key(session, key)
        if holder is not None and (guest_id is None or holder.id != guest_id):
            raise taken(nickname)
        password_hash = await asyncio.to_thread(accounts.hash_password, self._hasher, password)
        try:
            async with self._write() as session:
                holder = await self._player_by_key(session, key)
                if guest_id is None:
                    if holder is not None:
                        raise taken(nickname)
                    await self._refuse_lookalike(session, nickname)
                    await self._count_new_account(session, address)
                    player = self._new_player(nickname, guest=False, password_hash=password_hash)
                    session.add(player)
                else:
                    player = await self._require_player(session, guest_id, lock=True)
                    if not player.guest:
                        raise StoreError("no_such_player", f"player {guest_id} is not a guest")
                    if holder is not None and holder.id != player.id:
                        raise taken(nickname)
                    await self._refuse_lookalike(session, nickname, player.id)
                    player.nickname = nickname
                    player.nickname_key = key
                    player.nickname_skeleton = skeleton(nickname)
                    player.password_hash = password_hash
                    player.guest = False
                    player.registered_at = self._now()
                await session.flush()
        except IntegrityError:
            raise taken(nickname) from None
        return player_record(player)

    async def login(self, nickname: str, password: str, address: str | None = None) -> PlayerRecord:
        """The registered player with this nickname and password, or
        ``bad_credentials``; ``too_many_attempts`` (:class:`limits.LimitReached`)
        after repeated failures for the account or from ``address``.

        An unknown nickname costs as much as a wrong password: the password is
        checked against a stand-in hash, so the time of the answer does not tell
        whether the account exists."""
        return (await self.checked_login(nickname, password, address)).player

    async def checked_login(
        self, nickname: str, password: str, address: str | None = None
    ) -> VerifiedLogin:
        """:meth:`login`, with the password hash it checked: a session is made
        against it (``Store.create_session``), so that a password changed between
        the check and the session refuses the session."""
        key = accounts.lookup_key(nickname)
        fits = accounts.password_fits(password)
        dummy = await self._stand_in_hash()
        async with self._read() as session:
            player = None if key is None else await self._player_by_key(session, key)
        stored_hash = None if player is None else player.password_hash
        counted = await self._count_login_failure(key, player, address)
        right = fits and await asyncio.to_thread(
            accounts.verify_password, self._hasher, stored_hash or dummy, password
        )
        async with self._write() as session:
            for counter in counted:
                backoff = (
                    limits.ACCOUNT_LOGINS
                    if counter.startswith("login-account:")
                    else limits.ADDRESS_LOGINS
                )
                if not right or player is None or stored_hash is None:
                    await limits.confirm_failure(session, counter, backoff, self._now())
                elif backoff is limits.ACCOUNT_LOGINS:
                    await limits.forget(session, counter)
                else:
                    await limits.take_back_failure(session, counter, backoff)
        if not right or player is None or stored_hash is None:
            raise _bad_credentials()
        verified = stored_hash
        if accounts.needs_rehash(self._hasher, stored_hash):
            new_hash = await asyncio.to_thread(accounts.hash_password, self._hasher, password)
            async with self._write() as session:
                fresh = await session.get(Player, player.id)
                if fresh is not None and fresh.password_hash == stored_hash:
                    fresh.password_hash = verified = new_hash
        return VerifiedLogin(player_record(player), verified)

    async def _stand_in_hash(self) -> str:
        """A hash of a random password, made with this store's hasher, that unknown
        nicknames are checked against."""
        if self._dummy_hash is None:
            self._dummy_hash = await asyncio.to_thread(
                accounts.hash_password, self._hasher, secrets.token_urlsafe(16)
            )
        return self._dummy_hash

    async def _count_login_failure(
        self, key: str | None, player: Player | None, address: str | None
    ) -> list[str]:
        """Count a login attempt as failed before its password is checked (refusing
        it if a limit blocks it); returns the counters to take back if it succeeds.

        The account's counter does not apply at an address the account has had a
        session from in the last 30 days: there, only the address's own counter
        does, so that guesses from elsewhere cannot lock the owner out at home."""
        try:
            return await self._count_login_failure_once(key, player, address)
        except IntegrityError:
            # Logins at the same moment made the same new counter (PostgreSQL):
            # the row stands now, and is counted on, locked, by this second try.
            return await self._count_login_failure_once(key, player, address)

    async def _count_login_failure_once(
        self, key: str | None, player: Player | None, address: str | None
    ) -> list[str]:
        counted: list[str] = []
        now = self._now()
        async with self._write() as session:
            if address is not None:
                counter = limits.address_key("login-address", address)
                await limits.count_failure(session, counter, limits.ADDRESS_LOGINS, now)
                counted.append(counter)
            if key is not None:
                known = False
                if address is not None:
                    known = (
                        await session.scalar(
                            select(LoginSession.id)
                            .where(
                                LoginSession.player_id == (player.id if player else 0),
                                LoginSession.address == address[:64],
                            )
                            .limit(1)
                        )
                        is not None
                    )
                if not known:
                    counter = limits.account_key(key)
                    await limits.count_failure(session, counter, limits.ACCOUNT_LOGINS, now)
                    counted.append(counter)
        return counted

    async def _refuse_lookalike(
        self, session: AsyncSession, nickname: str, own_id: int | None = None
    ) -> None:
        """``nickname_confusable`` if another player's nickname looks like this one."""
        query = select(Player.nickname, Player.nickname_key).where(
            Player.nickname_skeleton == skeleton(nickname),
            ~Player.nickname_key.startswith(RELEASED),
        )
        if own_id is not None:
            query = query.where(Player.id != own_id)
        other = (await session.execute(query.limit(1))).first()
        if other is not None and other.nickname_key == accounts.nickname_key(nickname):
            raise taken(nickname)  # taken a moment ago
        if other is not None:
            raise StoreError(
                "nickname_confusable",
                f"the nickname {nickname!r} looks too much like {other.nickname!r}",
            )

    async def _count_new_account(self, session: AsyncSession, address: str | None) -> None:
        if address is not None:
            await limits.count_account(
                session,
                limits.address_key("accounts", address),
                self.accounts_per_hour,
                self._now(),
            )

    async def get_player(self, player_id: int) -> PlayerRecord | None:
        if not is_id(player_id):
            return None
        async with self._read() as session:
            player = await session.get(Player, player_id)
            return None if player is None else player_record(player)

    async def find_player(self, nickname: str) -> PlayerRecord | None:
        """The player with this nickname, whatever its case."""
        key = accounts.lookup_key(nickname)
        if key is None:
            return None
        async with self._read() as session:
            player = await self._player_by_key(session, key)
            return None if player is None else player_record(player)

    async def release_guest(self, player_id: int) -> bool:
        """Free a guest's nickname for others (a guest who logged out can never come
        back: a guest has no password). The guest's games keep the name it played
        under; the released account no longer counts as a session. Returns whether
        a guest was released (``False`` for registered players, bots, unknown ids
        and guests released before)."""
        if not is_id(player_id):
            return False
        async with self._write() as session:
            return await release_guests(session, Player.id == player_id) == 1

    async def bot_player(self, level: str) -> PlayerRecord:
        """The persistent account of the computer opponent of this level
        (``Bot casual``), created on first use."""
        if not isinstance(level, str) or not _BOT_LEVEL.match(level):
            raise StoreError("bad_settings", f"{level!r} is not a computer level")
        query = select(Player).where(Player.bot_level == level)
        async with self._read() as session:
            player = await session.scalar(query)
        if player is not None:
            return player_record(player)
        try:
            async with self._write() as session:
                player = await session.scalar(query)
                if player is None:
                    player = self._new_player(
                        accounts.bot_nickname(level), guest=False, bot_level=level
                    )
                    session.add(player)
                    await session.flush()
        except IntegrityError:  # created concurrently
            async with self._read() as session:
                player = await session.scalar(query)
            if player is None:
                raise
        return player_record(player)


def _bad_credentials() -> StoreError:
    return StoreError("bad_credentials", "wrong nickname or password")
