"""The store's chips: a player's balance and bonus, their page of the ledger, the
start of a staked game (its stakes into the pot) and the month's chip ranking.

The movements themselves, and a game's settlement, are :mod:`romme.store.ledger`
(functions of a session, shared with the results and the fair-play reviews); the
options are :mod:`romme.store.chip_policy`. Nothing here can be bought or paid
out: chips are play money.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store import accounts, ratings
from romme.store.chip_policy import STAKE_MAX, ChipPolicy
from romme.store.core import StoreCore, bad, check_json, is_id, is_int, iso
from romme.store.deletion import refuse_deleted_players
from romme.store.errors import StoreError
from romme.store.ledger import (
    GAME_REASONS,
    debit,
    house_account,
    in_pots,
    lock_accounts,
    move,
    signed_amount,
)
from romme.store.models import ChipAccount, ChipMovement, GameResult, LoginSession, Player
from romme.store.records import PLAYING, WAITING
from romme.store.standing import established_clauses, stake_limit

__all__ = ["BonusRefused", "ChipStore"]

LEDGER_PAGE_MAX = 100

log = logging.getLogger("romme.store")


class BonusRefused(StoreError):
    """A bonus claimed too early or not needed; ``next_at``: when the next is due
    (ISO time; ``None``: at once, once the balance is low enough)."""

    def __init__(self, code: str, message: str, next_at: str | None) -> None:
        super().__init__(code, message)
        self.next_at = next_at


class ChipStore(StoreCore):
    """The store's chips (see :class:`romme.store.Store`)."""

    chip_policy: ChipPolicy = ChipPolicy()
    """Set by the server from its options."""

    async def chips(self, player_id: int) -> int:
        """The player's balance (a new account gets the starting grant)."""
        async with self._read() as session:
            balance = await session.scalar(
                select(ChipAccount.balance).where(ChipAccount.player_id == player_id)
            )
        if balance is not None:
            return int(balance)
        async with self._write() as session:
            account = await self._chip_account(session, player_id)
            return account.balance

    async def chips_of(self, nickname: str) -> int | None:
        """A player's balance by nickname (``None``: a computer opponent, who plays
        with the house's chips, or no such player)."""
        key = accounts.lookup_key(nickname)
        async with self._read() as session:
            player = None if key is None else await self._player_by_key(session, key)
        if player is None or player.is_bot:
            return None
        return await self.chips(player.id)

    async def require_chips(self, player_id: int, stake: int) -> None:
        """``insufficient_chips`` unless the player can pay the stake (a table's,
        before they sit down or create it; the start checks again), and
        ``stake_limit`` if the stake is above what the account may play for
        (:func:`romme.store.standing.stake_limit`)."""
        if stake > 0:
            async with self._read() as session:
                player = await self._require_player(session, player_id)
                limit = stake_limit(player, self.chip_policy, self._now(), STAKE_MAX)
            if stake > limit:
                raise StoreError("stake_limit", _limit_message(player, limit))
            chips = await self.chips(player_id)
            if chips < stake:
                raise StoreError(
                    "insufficient_chips", f"the stake is {stake} chips: you have {chips}"
                )

    async def bonus_state(self, player_id: int) -> dict[str, Any]:
        """``{"chips", "in_pots", "bonus": {"amount", "below", "next_at", "due"}}``:
        whether a bonus may be claimed now, and from when (``next_at``, ISO time,
        ``None`` if never claimed). The chips the player has in the pots of games
        not settled yet (``in_pots``) count as held: a player does not become poor
        by putting chips into a pot."""
        async with self._write() as session:
            account = await self._chip_account(session, player_id)
            return await self._bonus_state(session, account)

    async def claim_bonus(self, player_id: int) -> dict[str, Any]:
        """Add the bonus to the balance, or raise ``bonus_not_due`` (too early) or
        ``bonus_not_needed`` (balance at or above the threshold). Returns the new
        :meth:`bonus_state` with ``claimed`` (the chips added)."""
        policy = self.chip_policy
        async with self._write() as session:
            account = await self._chip_account(session, player_id)
            state = await self._bonus_state(session, account)
            held = account.balance + state["in_pots"]
            if held >= policy.bonus_below:
                raise BonusRefused(
                    "bonus_not_needed",
                    f"the bonus is for balances below {policy.bonus_below}: you have "
                    f"{held} (chips in the pots of running games count)",
                    state["bonus"]["next_at"],
                )
            if not state["bonus"]["due"]:
                raise BonusRefused(
                    "bonus_not_due",
                    f"the next bonus can be claimed at {state['bonus']['next_at']}",
                    state["bonus"]["next_at"],
                )
            if policy.bonus > 0:
                await move(session, None, account.id, policy.bonus, "bonus", None, self._now())
                await session.refresh(account)
            state = await self._bonus_state(session, account)
            state["claimed"] = policy.bonus
            return state

    async def chip_ledger(
        self, player_id: int, *, before: int | None = None, limit: int = 50
    ) -> dict[str, Any]:
        """A page of the player's movements, newest first: ``{"chips",
        "movements": [{"id", "at", "reason", "amount", "balance", "game"}], "next"}``.
        ``amount`` is signed (what the account gained), ``balance`` what it held
        after the movement, ``next`` the ``before`` of the next page (``None``: the
        last page)."""
        if before is not None and not is_id(before):
            raise bad("before must be a movement id")
        if not is_int(limit) or not 1 <= limit <= LEDGER_PAGE_MAX:
            raise bad(f"limit must be from 1 to {LEDGER_PAGE_MAX}")
        async with self._write() as session:
            account = await self._chip_account(session, player_id)
            own = or_(
                ChipMovement.from_account == account.id, ChipMovement.to_account == account.id
            )
            signed = signed_amount(account.id)
            newer = 0
            if before is not None:
                newer = int(
                    await session.scalar(
                        select(func.coalesce(func.sum(signed), 0)).where(
                            own, ChipMovement.id >= before
                        )
                    )
                    or 0
                )
            query = select(ChipMovement, signed).where(own).order_by(ChipMovement.id.desc())
            if before is not None:
                query = query.where(ChipMovement.id < before)
            rows = (await session.execute(query.limit(limit + 1))).all()
        balance = account.balance - newer
        movements = []
        for movement, amount in rows[:limit]:
            movements.append(
                {
                    "id": movement.id,
                    "at": iso(movement.created_at),
                    "reason": movement.reason,
                    "amount": int(amount),
                    "balance": balance,
                    "game": movement.table_id,
                }
            )
            balance -= int(amount)
        return {
            "chips": account.balance,
            "movements": movements,
            "next": movements[-1]["id"] if len(rows) > limit else None,
        }

    async def chip_export(self, player_id: int) -> dict[str, Any]:
        """The whole chip history (for the player's data export): ``{"chips",
        "movements"}`` as :meth:`chip_ledger` gives them, every page."""
        page = await self.chip_ledger(player_id, limit=LEDGER_PAGE_MAX)
        movements = list(page["movements"])
        while page["next"] is not None:
            page = await self.chip_ledger(player_id, before=page["next"], limit=LEDGER_PAGE_MAX)
            movements += page["movements"]
        return {"chips": page["chips"], "movements": movements}

    async def start_staked_game(
        self,
        table_id: int,
        seats: list[dict[str, Any]],
        stake: int,
        cost_percent: int,
        epoch: int | None = None,
    ) -> None:
        """Store a table's start (status ``playing``, its seats) and, in the same
        transaction, pay every seat's stake into the game's escrow: a player's from
        their own account, a computer opponent's from the house. Raises
        ``insufficient_chips`` (naming the player) and changes nothing if a balance
        is too low; ``lease_lost`` likewise if ``epoch`` is given and another node
        took the table."""
        if not is_int(stake) or not 0 <= stake <= STAKE_MAX:
            raise bad(f"the stake is a whole number from 0 to {STAKE_MAX}")
        if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
            raise bad("seats is a list of objects")
        check_json(seats, "seats")
        async with self._write() as session:
            await refuse_deleted_players(session, seats)
            table = await self._require_table(session, table_id, lock=True, epoch=epoch)
            if table.status != WAITING:
                raise StoreError("already_started", f"table {table_id} is not waiting")
            now = self._now()
            table.status = PLAYING
            table.started_at = now
            table.seats = seats
            if stake == 0:
                return
            players = sorted(
                {int(s["player"]) for s in seats if s.get("bot") is None and s.get("player")}
            )
            bots = sum(1 for s in seats if s.get("bot") is not None)
            house = await house_account(session, now) if bots else None
            if house is not None and not await debit(session, house.id, stake * bots):
                # The house cannot stake for its computer opponents: the game is
                # played for nothing rather than not at all.
                log.warning("house_low", extra={"table": table_id, "house": house.balance})
                return
            people = {pid: await self._chip_account(session, pid) for pid in players}
            await self._check_staked_seating(session, people, stake, now)
            escrow = ChipAccount(
                kind="escrow",
                table_id=table_id,
                balance=0,
                cost_percent=cost_percent,
                created_at=now,
            )
            session.add(escrow)
            await session.flush()
            for player_id, account in people.items():
                if not await debit(session, account.id, stake):
                    nickname = await session.scalar(
                        select(Player.nickname).where(Player.id == player_id)
                    )
                    raise StoreError(
                        "insufficient_chips",
                        f"{nickname} has {account.balance} chips: the stake is {stake}",
                    )
                await move(session, account.id, escrow.id, stake, "stake", table_id, now)
            if house is not None:
                await move(session, house.id, escrow.id, stake * bots, "stake", table_id, now)

    async def _check_staked_seating(
        self, session: AsyncSession, people: dict[int, ChipAccount], stake: int, now: datetime
    ) -> None:
        """Refuse a staked start that could pour chips from one account into
        another (docs/chips.md): a stake above a seat's limit (``stake_limit``),
        people with a session from one address (``same_address``), two people who
        started too many staked games together in 24 hours (``stake_pair_limit``).
        The people's rows are locked (:meth:`_chip_account`), so two starts cannot
        both pass the counts."""
        policy = self.chip_policy
        await lock_accounts(session, [account.id for account in people.values()])
        found = (await session.scalars(select(Player).where(Player.id.in_(list(people))))).all()
        by_id = {p.id: p for p in found}
        for pid in people:
            limit = stake_limit(by_id[pid], policy, now, STAKE_MAX)
            if stake > limit:
                raise StoreError("stake_limit", _limit_message(by_id[pid], limit))
        if len(people) < 2:
            return
        if policy.accounts_per_address > 0:
            rows = (
                await session.execute(
                    select(LoginSession.address, LoginSession.player_id)
                    .where(
                        LoginSession.player_id.in_(list(people)),
                        LoginSession.revoked_at.is_(None),
                        LoginSession.expires_at > now,
                    )
                    .distinct()
                )
            ).all()
            sharing: dict[str, set[int]] = {}
            for address, pid in rows:
                sharing.setdefault(address, set()).add(pid)
            for pids in sharing.values():
                if len(pids) > policy.accounts_per_address:
                    names = sorted(by_id[p].nickname for p in pids)
                    raise StoreError(
                        "same_address",
                        f"{' and '.join(names)} play from one address: they cannot "
                        "sit at one staked table",
                    )
        if policy.pair_staked_games > 0:
            owner = {account.id: pid for pid, account in people.items()}
            stakes = (
                await session.execute(
                    select(ChipMovement.table_id, ChipMovement.from_account).where(
                        ChipMovement.from_account.in_(list(owner)),
                        ChipMovement.reason == "stake",
                        ChipMovement.created_at >= now - timedelta(hours=24),
                    )
                )
            ).all()
            tables: dict[int, set[int]] = {}
            for table, account_id in stakes:
                if table is not None and account_id is not None:
                    tables.setdefault(table, set()).add(owner[account_id])
            pairs: dict[tuple[int, int], int] = {}
            for pids in tables.values():
                for pair in combinations(sorted(pids), 2):
                    pairs[pair] = pairs.get(pair, 0) + 1
            for (first, second), count in sorted(pairs.items()):
                if count >= policy.pair_staked_games:
                    raise StoreError(
                        "stake_pair_limit",
                        f"{by_id[first].nickname} and {by_id[second].nickname} have played "
                        f"{count} staked games together in the last 24 hours: the most "
                        f"is {policy.pair_staked_games}",
                    )

    async def chips_month_ranking(
        self, limit: int = 50, me_id: int | None = None
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """Established people by the chips they won this (UTC) month: what they
        won minus what they lost in ranked games (``GameResult.ranked``: between
        distinct established people, no computer opponent, not void, within the
        daily limit of one pair's games) finished since the 1st. The list holds
        those who won chips (a net above zero), most first; the second value is
        the row of ``me_id`` wherever it stands (``None`` if it played no ranked
        staked game this month or is not established), its rank one more than
        the number of people who won more."""
        if not is_int(limit) or limit < 0:
            raise bad("limit must be a non-negative integer")
        now = self._now()
        month = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        won = func.sum(signed_amount(ChipAccount.id)).label("won")
        query = (
            select(Player, won)
            .join(ChipAccount, ChipAccount.player_id == Player.id)
            .join(
                ChipMovement,
                or_(
                    ChipMovement.to_account == ChipAccount.id,
                    ChipMovement.from_account == ChipAccount.id,
                ),
            )
            .join(GameResult, GameResult.table_id == ChipMovement.table_id)
            .where(
                ChipMovement.reason.in_(GAME_REASONS),
                GameResult.ranked.is_(True),
                GameResult.finished_at >= month,
                *established_clauses(self.chip_policy, now),
            )
            .group_by(Player.id)
            .order_by(won.desc(), Player.nickname_key)
        )
        async with self._read() as session:
            rows = (await session.execute(query)).all()
        result: list[dict[str, Any]] = []
        mine = None
        previous: tuple[int, int] | None = None
        for position, (player, chips) in enumerate(rows, start=1):
            rank = previous[1] if previous is not None and previous[0] == chips else position
            previous = (int(chips), rank)
            row = {
                "rank": rank,
                "nickname": player.nickname,
                "rating": ratings.shown(player.rating),
                "games_played": player.games_played,
                "games_won": player.games_won,
                "bot": player.is_bot,
                "chips": int(chips),
            }
            if chips > 0 and len(result) < limit:
                result.append(row)
            if player.id == me_id:
                mine = row
            if (chips <= 0 or len(result) >= limit) and (me_id is None or mine is not None):
                break
        return result, mine

    async def house_report(self) -> dict[str, Any]:
        """``{"balance", "float", "in_pots", "reserve_low"}``: the house's account
        (its balance now, the float it was granted), the chips it has in the pots
        of running games, and whether it is too low to stake for a computer
        opponent at the largest stake (then such games are played for nothing)."""
        async with self._write() as session:
            house = await house_account(session, self._now())
            pots = await in_pots(session, house.id)
            granted = await session.scalar(
                select(func.coalesce(func.sum(ChipMovement.amount), 0)).where(
                    ChipMovement.to_account == house.id, ChipMovement.reason == "grant"
                )
            )
            return {
                "balance": int(house.balance),
                "float": int(granted or 0),
                "in_pots": pots,
                "reserve_low": house.balance < 3 * STAKE_MAX,
            }

    # ---------------------------------------------------------------- accounts

    async def _chip_account(self, session: AsyncSession, player_id: int) -> ChipAccount:
        """The player's account, created with the starting grant if it is new.
        The player's row is locked first, so that two transactions cannot both
        create it, nor both claim a bonus."""
        await self._require_player(session, player_id, lock=True)
        account = await session.scalar(
            select(ChipAccount).where(ChipAccount.player_id == player_id)
        )
        if account is not None:
            return account
        now = self._now()
        account = ChipAccount(kind="player", player_id=player_id, balance=0, created_at=now)
        session.add(account)
        await session.flush()
        if self.chip_policy.grant > 0:
            await move(
                session, None, account.id, self.chip_policy.grant, "grant", None, self._now()
            )
            await session.refresh(account)
        return account

    async def _bonus_state(self, session: AsyncSession, account: ChipAccount) -> dict[str, Any]:
        policy = self.chip_policy
        last = await session.scalar(
            select(func.max(ChipMovement.created_at)).where(
                ChipMovement.to_account == account.id, ChipMovement.reason == "bonus"
            )
        )
        now = self._now()
        next_at = None if last is None else last + timedelta(hours=policy.bonus_hours)
        pots = await in_pots(session, account.id)
        return {
            "chips": account.balance,
            "in_pots": pots,
            "bonus": {
                "amount": policy.bonus,
                "below": policy.bonus_below,
                "next_at": iso(next_at),
                "due": account.balance + pots < policy.bonus_below
                and (next_at is None or next_at <= now),
            },
        }


def _limit_message(player: Player, limit: int) -> str:
    if player.guest:
        return f"a guest plays for stakes of up to {limit} chips: register to play for more"
    return (
        f"an account plays for stakes of up to {limit} chips until it is established "
        "(docs/chips.md)"
    )
