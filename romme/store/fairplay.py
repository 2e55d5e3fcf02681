"""Fair play in the economy: the signals of collusion and chip dumping that
moderators review, and their action on a game, voiding it (docs/chips.md).

The pair signals are worked out from what the store holds anyway (the seats of
finished staked games, the ledger, the sessions' addresses) and the soft play
found in those games (:mod:`romme.store.game_signals`), per pair of people who
played staked games together. Voiding
a game never edits history: its settlement is reversed by new ledger movements
(reason ``reversal``), the result is marked void (out of every ranking), and the
moderation log says who did it and why.
"""

from __future__ import annotations

from datetime import timedelta
from itertools import combinations
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.core import StoreCore, bad, is_id, is_int
from romme.store.errors import StoreError
from romme.store.game_signals import names_and_addresses, soft_play_counts, staked_nets
from romme.store.ledger import debit, house_account, lock_accounts, signed_amount, touches, transfer
from romme.store.models import (
    ChipAccount,
    ChipMovement,
    GameResult,
    GameSeat,
    GameTable,
    ModerationEntry,
    Player,
)

__all__ = ["FairPlayStore"]

SIGNAL_DAYS_MAX = 90
EVIDENCE_GAMES = 20
"""The most games listed as a pair's evidence (the most recent)."""


class FairPlayStore(StoreCore):
    """Collusion and dumping signals, and voiding a game (see :class:`romme.store.Store`)."""

    async def economy_signals(self, days: int = 7, limit: int = 50) -> list[dict[str, Any]]:
        """Pairs of people who played staked games together in the last ``days``,
        most suspicious first: ``[{"players": [a, b], "games", "void_games",
        "given_up", "soft_play", "one_way", "flow", "same_address", "score", "games_list"}]``.

        ``flow``: the chips that went from the second player to the first over
        their games together (the first's net gain in them, when the second's net
        is a loss; else 0); ``one_way``: the share of their decided games that the
        first won and the second lost; ``given_up``: seats either gave up;
        ``soft_play``: turns in their checked games on which either could have
        gone out and did not (:mod:`romme.store.game_signals`);
        ``same_address``: they have sessions from one address. ``score`` adds
        these up (docs/chips.md); ``games_list``: the games to replay, newest first."""
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
                    select(GameResult.table_id, GameResult.void, GameTable.seats)
                    .join(GameTable, GameTable.id == GameResult.table_id)
                    .where(GameResult.table_id.in_(tables))
                )
            ).all()
            soft = await soft_play_counts(session, tables)
            names, seen_at = await names_and_addresses(session, {pid for _, pid in nets})
        void = {table: bool(is_void) for table, is_void, _ in results}
        given_up = {
            table: {
                int(s["player"])
                for s in (seats if isinstance(seats, list) else [])
                if isinstance(s, dict)
                and s.get("bot") is None
                and s.get("left")
                and s.get("player")
            }
            for table, _, seats in results
        }
        by_table: dict[int, dict[int, int]] = {}
        for (table, pid), net in nets.items():
            by_table.setdefault(table, {})[pid] = net
        pairs: dict[tuple[int, int], dict[str, Any]] = {}
        for table in sorted(by_table, reverse=True):
            seated = by_table[table]
            for a, b in combinations(sorted(seated), 2):
                # Orient each pair so that the first is the one who gained overall.
                entry = pairs.setdefault(
                    (a, b),
                    {"games": 0, "void": 0, "given_up": 0, "soft": 0, "nets": [], "list": []},
                )
                entry["games"] += 1
                entry["void"] += void.get(table, False)
                entry["given_up"] += len(given_up.get(table, set()) & {a, b})
                missed = soft.get(table, {})
                entry["soft"] += missed.get(a, 0) + missed.get(b, 0)
                entry["nets"].append((seated[a], seated[b]))
                entry["list"].append(table)
        rows = []
        for (a, b), entry in pairs.items():
            gain_a = sum(n for n, _ in entry["nets"])
            first, second = (a, b) if gain_a >= 0 else (b, a)
            nets_fs = [(x, y) if first == a else (y, x) for x, y in entry["nets"]]
            decided = [(x, y) for x, y in nets_fs if x != 0 or y != 0]
            one_way = (
                round(sum(1 for x, y in decided if x > 0 and y < 0) / len(decided), 2)
                if decided
                else 0.0
            )
            second_net = sum(y for _, y in nets_fs)
            flow = max(0, sum(x for x, _ in nets_fs)) if second_net < 0 else 0
            same = bool(seen_at.get(a, set()) & seen_at.get(b, set()))
            score = (
                entry["games"]
                + 3 * entry["void"]
                + 3 * entry["given_up"]
                + 2 * entry["soft"]
                + (10 if same else 0)
                + (5 * one_way if entry["games"] >= 3 else 0)
                + flow // 1_000
            )
            rows.append(
                {
                    "players": [names.get(first), names.get(second)],
                    "games": entry["games"],
                    "void_games": entry["void"],
                    "given_up": entry["given_up"],
                    "soft_play": entry["soft"],
                    "one_way": one_way,
                    "flow": flow,
                    "same_address": same,
                    "score": round(score, 1),
                    "games_list": entry["list"][:EVIDENCE_GAMES],
                }
            )
        rows.sort(key=lambda r: (-r["score"], -r["games"], r["players"]))
        return rows[:limit]

    async def void_game(self, table_id: int, actor: str, note: str = "") -> dict[str, Any]:
        """Void a finished game's result as a moderator: it leaves every ranking
        (``void``, not rated, not ranked; the players' games played and won go
        back), and its settlement is reversed by new ``reversal`` movements: each
        account that gained from the game gives the gain back (as much as it
        still holds), each that lost gets its loss back; the house stands for
        any difference. Ratings and experience already given stay. Returns
        ``{"game", "reversed": [{"nickname", "amount"}]}`` (each player's
        balance's signed change). ``no_such_game`` for a game not finished,
        ``already_void`` for one void already."""
        if not is_id(table_id):
            raise StoreError("no_such_game", "there is no such game")
        now = self._now()
        async with self._write() as session:
            table = await session.get(GameTable, table_id, with_for_update=True)
            result = await session.get(GameResult, table_id, with_for_update=True)
            if table is None or result is None:
                raise StoreError("no_such_game", f"game {table_id} is not finished")
            if result.void:
                raise StoreError("already_void", f"game {table_id} is void already")
            seats = (
                await session.scalars(select(GameSeat).where(GameSeat.table_id == table_id))
            ).all()
            counted: dict[int, bool] = {}
            for seat in seats:
                counted[seat.player_id] = counted.get(seat.player_id, False) or seat.won
            players = (
                await session.scalars(
                    select(Player)
                    .where(Player.id.in_(list(counted)))
                    .order_by(Player.id)
                    .with_for_update(key_share=True)
                )
            ).all()
            for player in players:
                player.games_played = max(0, player.games_played - 1)
                if counted[player.id]:
                    player.games_won = max(0, player.games_won - 1)
            result.void, result.rated, result.ranked = True, False, False
            reversed_ = await _reverse_settlement(session, table_id, now)
            session.add(
                ModerationEntry(
                    actor=actor[:80],
                    action="void_game",
                    target=f"game {table_id}",
                    report_id=None,
                    note=note,
                    created_at=now,
                )
            )
            names = dict(
                (
                    await session.execute(
                        select(ChipAccount.id, Player.nickname)
                        .join(Player, Player.id == ChipAccount.player_id)
                        .where(ChipAccount.id.in_(list(reversed_)))
                    )
                ).all()
            )
        self.results_version += 1
        return {
            "game": table_id,
            "reversed": [
                {"nickname": names.get(account), "amount": amount}
                for account, amount in sorted(reversed_.items())
            ],
        }


async def _reverse_settlement(session: AsyncSession, table_id: int, now: Any) -> dict[int, int]:
    """Give every account's net from the game back, as ``reversal`` movements
    through the house: gainers pay the house (at most what they hold), the house
    pays the losers. Returns ``{account: signed change}``."""
    house = (await house_account(session, now)).id
    signed = signed_amount(ChipAccount.id)
    nets = (
        await session.execute(
            select(ChipAccount.id, ChipAccount.kind, func.sum(signed))
            .join(ChipAccount, touches(ChipAccount.id))
            .where(ChipMovement.table_id == table_id, ChipAccount.kind == "player")
            .group_by(ChipAccount.id, ChipAccount.kind)
        )
    ).all()
    accounts = [int(a) for a, _, n in nets if n]
    await lock_accounts(session, [*accounts, house])
    changes: dict[int, int] = {}
    for account, _kind, net in nets:
        net = int(net or 0)
        if net > 0:
            held = int(
                await session.scalar(select(ChipAccount.balance).where(ChipAccount.id == account))
                or 0
            )
            amount = min(net, held)
            if amount and await debit(session, account, amount):
                await transfer(session, account, {(house, "reversal"): amount}, table_id, now)
                changes[account] = -amount
        elif net < 0:
            if not await debit(session, house, -net):
                raise StoreError("house_low", "the house cannot pay the losses back")
            await transfer(session, house, {(account, "reversal"): -net}, table_id, now)
            changes[account] = -net
    return changes
