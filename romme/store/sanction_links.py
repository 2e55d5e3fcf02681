"""Sanctions that follow the person, not only the account.

A mute or ban is given to a player id. So that a new guest or a new registration
does not shed it, a sanction also records what it follows the person by: hashes of
the addresses in the player's session records and of the browser marks (the
``romme_browser`` cookie, :mod:`romme.server.moderation`) the player signed in
with. An account created after the sanction was given that signs in from one of
those addresses or browsers, while the sanction is in force, gets the same
sanction until the same end (``source_id`` names the one it followed), written to
the moderation log as ``follow_mute`` / ``follow_ban``. A sanctioned player who
signs in from a new address or browser adds it to the sanctions it carries.

An address is shared (a household, a school, a carrier's NAT) and is given to
someone else in time, so it links for at most ``ADDRESS_LINK`` after it was seen;
a browser mark links for the sanction's whole time. Accounts older than the
sanction are never touched: a family member's account on the same computer keeps
its own standing. Values are kept only as SHA-256 hashes.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, is_id
from romme.store.models import (
    BrowserMark,
    LoginSession,
    ModerationEntry,
    Moderator,
    Player,
    Sanction,
    SanctionLink,
)

__all__ = [
    "ADDRESS_LINK",
    "LINKS_PER_SANCTION",
    "SanctionLinkStore",
    "address_hash",
    "browser_hash",
    "record_links",
]

ADDRESS_LINK = timedelta(days=1)
"""An address links a sanction for at most this long after it was seen."""
ADDRESS_HISTORY = timedelta(days=30)
"""The session records whose addresses a new sanction takes (the recent ones)."""
LINKS_PER_SANCTION = 50
"""At most this many links per sanction (a sanctioned player hopping addresses
cannot grow it without bound)."""


def address_hash(address: str) -> str:
    return hashlib.sha256(("address:" + address[:64]).encode("utf-8", "replace")).hexdigest()


def browser_hash(mark: str) -> str:
    return hashlib.sha256(("browser:" + mark[:128]).encode("utf-8", "replace")).hexdigest()


def _address_until(sanction: Sanction, seen: datetime) -> datetime:
    end = seen + ADDRESS_LINK
    return end if sanction.until is None else min(end, sanction.until)


async def _add_link(
    session: AsyncSession, sanction: Sanction, kind: str, value_hash: str, until: datetime | None
) -> None:
    """Add (or extend) one link of ``sanction``, within ``LINKS_PER_SANCTION``."""
    links = (
        await session.scalars(select(SanctionLink).where(SanctionLink.sanction_id == sanction.id))
    ).all()
    same = next((lk for lk in links if lk.kind == kind and lk.value_hash == value_hash), None)
    if same is not None:
        if same.until is not None and (until is None or until > same.until):
            same.until = until
        return
    if len(links) >= LINKS_PER_SANCTION:
        return
    session.add(
        SanctionLink(sanction_id=sanction.id, kind=kind, value_hash=value_hash, until=until)
    )


async def record_links(
    session: AsyncSession, sanction: Sanction, player_id: int, now: datetime
) -> None:
    """At a new sanction: link it to the player's recent addresses and browsers."""
    await session.flush()  # the sanction's id
    sessions = (
        await session.execute(
            select(LoginSession.address, LoginSession.last_seen_at).where(
                LoginSession.player_id == player_id,
                LoginSession.last_seen_at > now - ADDRESS_HISTORY,
            )
        )
    ).all()
    latest: dict[str, datetime] = {}
    for address, seen in sessions:
        latest[address] = max(seen, latest.get(address, seen))
    for address, seen in sorted(latest.items(), key=lambda a: a[1], reverse=True):
        until = _address_until(sanction, max(seen, now))
        await _add_link(session, sanction, "address", address_hash(address), until)
    marks = await session.scalars(
        select(BrowserMark.mark_hash)
        .where(BrowserMark.player_id == player_id)
        .order_by(BrowserMark.last_seen_at.desc())
    )
    for mark in marks:
        await _add_link(session, sanction, "browser", mark, sanction.until)


def _in_force(now: datetime) -> list[Any]:
    return [Sanction.lifted_at.is_(None), or_(Sanction.until.is_(None), Sanction.until > now)]


class SanctionLinkStore(StoreCore):
    """The store's following of sanctions (see :class:`romme.store.Store`)."""

    async def follow_sanctions(
        self, player_id: int, address: str, mark: str | None
    ) -> list[dict[str, Any]]:
        """A sign-in of ``player_id`` from ``address`` with the browser ``mark``:
        remember the browser; a sanctioned player's sanctions take up this address
        and browser; an account created after a sanction in force that is linked
        to either gets it too. Returns the sanctions followed now
        (``{"kind", "until", "source"}``)."""
        if not is_id(player_id):
            return []
        now = self._now()
        hashes = [address_hash(address)] + ([] if mark is None else [browser_hash(mark)])
        async with self._write() as session:
            player = await self._require_player(session, player_id, lock=True)
            if mark is not None:
                known = await session.get(BrowserMark, (browser_hash(mark), player_id))
                if known is None:
                    session.add(
                        BrowserMark(
                            mark_hash=browser_hash(mark), player_id=player_id, last_seen_at=now
                        )
                    )
                else:
                    known.last_seen_at = now
            own = (
                await session.scalars(
                    select(Sanction).where(Sanction.player_id == player_id, *_in_force(now))
                )
            ).all()
            for sanction in own:
                await _add_link(
                    session, sanction, "address", hashes[0], _address_until(sanction, now)
                )
                if mark is not None:
                    await _add_link(session, sanction, "browser", hashes[1], sanction.until)
            if player.is_bot:
                return []
            followed = await self._follow(session, player, own, hashes, now)
            for sanction in followed:
                await _add_link(
                    session, sanction, "address", hashes[0], _address_until(sanction, now)
                )
                if mark is not None:
                    await _add_link(session, sanction, "browser", hashes[1], sanction.until)
            return [{"kind": s.kind, "until": s.until, "source": s.source_id} for s in followed]

    async def _follow(
        self,
        session: AsyncSession,
        player: Player,
        own: Any,
        hashes: list[str],
        now: datetime,
    ) -> list[Sanction]:
        """The sanctions ``player`` takes over now: of each kind it lacks, the one
        linked that lasts longest."""
        if await session.get(Moderator, player.id) is not None:
            return []
        kinds_held = {s.kind for s in own}
        rows = (
            await session.execute(
                select(Sanction, Player.nickname)
                .join(SanctionLink, SanctionLink.sanction_id == Sanction.id)
                .join(Player, Player.id == Sanction.player_id)
                .where(
                    SanctionLink.value_hash.in_(hashes),
                    or_(SanctionLink.until.is_(None), SanctionLink.until > now),
                    Sanction.player_id != player.id,
                    Sanction.created_at < player.created_at,
                    *_in_force(now),
                )
                .order_by(Sanction.id)
            )
        ).all()
        longest_first = sorted(
            rows, key=lambda r: (r[0].until is not None, -(r[0].until or now).timestamp())
        )
        followed: list[Sanction] = []
        for source, source_name in longest_first:
            if source.kind in kinds_held:
                # The longest one of a kind is enough (none: until lifted).
                continue
            kinds_held.add(source.kind)
            copy = Sanction(
                player_id=player.id,
                kind=source.kind,
                until=source.until,
                created_at=now,
                nickname=player.nickname,
                source_id=source.id,
            )
            session.add(copy)
            await session.flush()
            session.add(
                ModerationEntry(
                    actor="server",
                    action="follow_" + source.kind,
                    target=player.nickname,
                    target_id=player.id,
                    report_id=None,
                    note=f"sanction #{source.id} of player #{source.player_id} "
                    f"({source.nickname or source_name}), same address or browser",
                    created_at=now,
                )
            )
            followed.append(copy)
        return followed
