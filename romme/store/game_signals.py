"""Fair-play signals per finished staked game, for moderators (docs/chips.md).

A pair of people who play together often shows in the pair signals
(:mod:`romme.store.fairplay`); a single game that looks arranged shows here: a
seat given up, people of one address, chips going one way, and soft play (turns
on which a seat could have gone out and did not). Soft play needs the game
replayed, which the server does outside the store (``romme.bots.soft_play``)
and records with :meth:`GameSignalStore.record_soft_play`; a game not checked
yet says so (``checked: false``) rather than counting as clean.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, bad, is_id, is_int, iso
from romme.store.ledger import GAME_REASONS, signed_amount, touches
from romme.store.models import (
    ChipAccount,
    ChipMovement,
    GameResult,
    GameTable,
    LoginSession,
    Player,
)

__all__ = ["GameSignalStore", "names_and_addresses", "soft_play_counts", "staked_nets"]

SIGNAL_DAYS_MAX = 90


def _given_up(seats: Any) -> set[int]:
    """The players whose person gave their seat up (``left`` and never came back)."""
    return {
        int(s["player"])
        for s in (seats if isinstance(seats, list) else [])
        if isinstance(s, dict) and s.get("bot") is None and s.get("left") and s.get("player")
    }


def _by_player(soft_play: Any, seat_players: list[Any]) -> dict[int, list[int]]:
    """``{player: [draw index, ...]}`` from a result's ``soft_play`` by seat."""
    if not isinstance(soft_play, dict):
        return {}
    found: dict[int, list[int]] = {}
    for seat, turns in soft_play.items():
        index = int(seat)
        if 0 <= index < len(seat_players) and isinstance(turns, list):
            found.setdefault(int(seat_players[index]), []).extend(int(t) for t in turns)
    return found


async def names_and_addresses(
    session: AsyncSession, people: set[int]
) -> tuple[dict[int, str], dict[int, set[str]]]:
    """The nicknames of ``people`` and the addresses each has had sessions from."""
    addresses = (
        await session.execute(
            select(LoginSession.player_id, LoginSession.address).where(
                LoginSession.player_id.in_(people)
            )
        )
    ).all()
    names = dict(
        (
            await session.execute(select(Player.id, Player.nickname).where(Player.id.in_(people)))
        ).all()
    )
    seen_at: dict[int, set[str]] = {}
    for pid, address in addresses:
        seen_at.setdefault(pid, set()).add(address)
    return names, seen_at


async def soft_play_counts(session: AsyncSession, tables: set[int]) -> dict[int, dict[int, int]]:
    """``{table: {player: missed outs}}`` for the checked games among ``tables``."""
    if not tables:
        return {}
    rows = (
        await session.execute(
            select(GameResult.table_id, GameResult.soft_play, GameResult.seat_players).where(
                GameResult.table_id.in_(tables), GameResult.soft_play.is_not(None)
            )
        )
    ).all()
    return {
        int(table): {pid: len(turns) for pid, turns in _by_player(soft, list(seats)).items()}
        for table, soft, seats in rows
    }


async def staked_nets(session: AsyncSession, since: Any) -> dict[tuple[int, int], int]:
    """``{(table, player): net}`` over the people's movements in staked games
    finished since ``since``."""
    signed = signed_amount(ChipAccount.id)
    rows = (
        await session.execute(
            select(ChipMovement.table_id, ChipAccount.player_id, func.sum(signed))
            .join(ChipAccount, touches(ChipAccount.id))
            .join(GameResult, GameResult.table_id == ChipMovement.table_id)
            .where(
                ChipAccount.kind == "player",
                ChipMovement.reason.in_(GAME_REASONS),
                GameResult.finished_at >= since,
            )
            .group_by(ChipMovement.table_id, ChipAccount.player_id)
        )
    ).all()
    return {
        (int(table), int(pid)): int(net)
        for table, pid, net in rows
        if table is not None and pid is not None
    }


class GameSignalStore(StoreCore):
    """Signals per staked game, and the soft play found in them (see
    :class:`romme.store.Store`)."""

    async def games_to_check(self, days: int, limit: int) -> list[int]:
        """Finished staked games of the last ``days`` not checked for soft play
        yet, newest first, at most ``limit``."""
        since = self._now() - timedelta(days=days)
        async with self._read() as session:
            staked = (
                select(ChipMovement.table_id)
                .where(ChipMovement.reason.in_(GAME_REASONS))
                .distinct()
                .scalar_subquery()
            )
            rows = await session.scalars(
                select(GameResult.table_id)
                .where(
                    GameResult.finished_at >= since,
                    GameResult.soft_play.is_(None),
                    GameResult.table_id.in_(staked),
                )
                .order_by(GameResult.table_id.desc())
                .limit(limit)
            )
            return [int(t) for t in rows]

    async def record_soft_play(self, table_id: int, missed: dict[int, list[int]]) -> None:
        """Keep what the check found in a finished game: ``{seat: [draw index, ...]}``
        (``{}``: no seat missed a way out)."""
        if not is_id(table_id):
            return
        async with self._write() as session:
            result = await session.get(GameResult, table_id, with_for_update=True)
            if result is not None:
                result.soft_play = {str(seat): list(turns) for seat, turns in missed.items()}

    async def game_signals(self, days: int = 7, limit: int = 50) -> list[dict[str, Any]]:
        """Staked games of the last ``days`` with a signal, most suspicious first
        (then newest): ``[{"game", "finished_at", "void", "checked", "score",
        "same_address", "players": [{"player_id", "nickname", "seat", "net",
        "given_up", "missed_outs"}]}]`` (``missed_outs``: the indices in the
        game's log of the draws that began turns on which the seat could have
        gone out; empty while ``checked`` is false). ``score`` = 3 × seats given
        up + 10 if two of its people share an address + 2 × missed outs + the
        largest loss among its people in whole thousands; a game scoring 0 is
        not listed."""
        if not is_int(days) or not 1 <= days <= SIGNAL_DAYS_MAX:
            raise bad(f"days must be from 1 to {SIGNAL_DAYS_MAX}")
        if not is_int(limit) or not 1 <= limit <= 200:
            raise bad("limit must be from 1 to 200")
        since = self._now() - timedelta(days=days)
        async with self._read() as session:
            nets = await staked_nets(session, since)
            tables = {table for table, _ in nets}
            results = (
                await session.execute(
                    select(
                        GameResult.table_id,
                        GameResult.void,
                        GameResult.finished_at,
                        GameResult.soft_play,
                        GameResult.seat_players,
                        GameTable.seats,
                    )
                    .join(GameTable, GameTable.id == GameResult.table_id)
                    .where(GameResult.table_id.in_(tables))
                )
            ).all()
            names, seen_at = await names_and_addresses(session, {pid for _, pid in nets})
        by_table: dict[int, dict[int, int]] = {}
        for (table_id, pid), net in nets.items():
            by_table.setdefault(table_id, {})[pid] = net
        rows: list[dict[str, Any]] = []
        for table, void, finished_at, soft, seat_players, seats in results:
            seated = [int(p) for p in seat_players]
            mine = by_table.get(int(table), {})
            given_up = _given_up(seats)
            missed = _by_player(soft, seated)
            shared = _share_an_address([seen_at.get(pid, set()) for pid in mine])
            players: list[dict[str, Any]] = [
                {
                    "player_id": pid,
                    "nickname": names.get(pid),
                    "seat": seat,
                    "net": mine[pid],
                    "given_up": pid in given_up,
                    "missed_outs": missed.get(pid, []),
                }
                for seat, pid in enumerate(seated)
                if pid in mine
            ]
            largest_loss = max((-net for net in mine.values()), default=0)
            score = (
                3 * len(given_up & set(mine))
                + (10 if shared else 0)
                + 2 * sum(len(missed.get(pid, [])) for pid in mine)
                + max(0, largest_loss) // 1_000
            )
            if score:
                rows.append(
                    {
                        "game": int(table),
                        "finished_at": iso(finished_at),
                        "void": bool(void),
                        "checked": soft is not None,
                        "score": score,
                        "same_address": shared,
                        "players": players,
                    }
                )
        rows.sort(key=lambda r: (-r["score"], -r["game"]))
        return rows[:limit]


def _share_an_address(addresses: list[set[str]]) -> bool:
    seen: set[str] = set()
    for mine in addresses:
        if seen & mine:
            return True
        seen |= mine
    return False
