"""Play money: a double-entry ledger of chips, the stakes of a game and their settlement.

Every account (each player's, the house's, and one escrow per staked game) has a
balance that is never negative: a debit is a conditional ``UPDATE`` in the same
transaction as the movement that explains it, and the database checks
``balance >= 0`` too. Every movement is a row (from, to, amount, reason, game).
Chips enter the ledger only by a grant (a new account, the house's float) or a
bonus, which have no ``from`` account; every other movement moves chips between
two accounts, so the sum over all accounts is the sum of the grants and bonuses.

A game's movements are unique per (game, reason, from, to): the stakes are paid
into the escrow once, when the game starts (the same transaction as storing the
start), and :func:`settle_stakes` empties the escrow once, in the transaction
that stores the result (:meth:`romme.store.results.ResultStore.finish_game`).
A second settlement finds the escrow empty (and would break the unique key), so a
crash, a restart, a replay or a second node cannot pay twice.

Nothing here can be bought or paid out: chips are play money.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store import accounts, ratings
from romme.store.core import RELEASED, StoreCore, bad, check_json, is_id, is_int, iso, rowcount
from romme.store.deletion import refuse_deleted_players
from romme.store.errors import StoreError
from romme.store.models import ChipAccount, ChipMovement, GameResult, GameTable, Player
from romme.store.records import PLAYING, WAITING

__all__ = [
    "HOUSE_FLOAT",
    "STAKE_MAX",
    "BonusRefused",
    "ChipPolicy",
    "ChipStore",
    "debit",
    "house_account",
    "move",
    "operating_cost",
    "settle_stakes",
    "transfer",
]

HOUSE_FLOAT = 1_000_000_000
"""The house's grant when the ledger is created: it stakes for the computer
opponents and receives the operating costs."""
STAKE_MAX = 1_000_000
"""The largest stake a table may ask of each seat."""
LEDGER_PAGE_MAX = 100


@dataclass(frozen=True, slots=True)
class ChipPolicy:
    """The server's chip options (``romme serve --chip-...``, docs/protocol.md)."""

    grant: int = 10_000
    """Chips on a new account (guests too)."""
    bonus: int = 1_000
    """Chips a bonus claim adds."""
    bonus_hours: float = 4.0
    """A bonus may be claimed this long after the previous one ..."""
    bonus_below: int = 5_000
    """... while the balance is below this."""
    cost_percent: int = 5
    """The operating cost: this percentage of a game's pot (rounded down) goes to the house."""


def operating_cost(pot: int, percent: int) -> int:
    """The house's part of a pot (rounded down).

    >>> operating_cost(4 * 50, 5), operating_cost(2 * 10, 5), operating_cost(3 * 333, 5)
    (10, 1, 49)
    """
    return pot * percent // 100


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
        before they sit down or create it; the start checks again)."""
        if stake > 0:
            chips = await self.chips(player_id)
            if chips < stake:
                raise StoreError(
                    "insufficient_chips", f"the stake is {stake} chips: you have {chips}"
                )

    async def bonus_state(self, player_id: int) -> dict[str, Any]:
        """``{"chips", "bonus": {"amount", "below", "next_at", "due"}}``: whether a
        bonus may be claimed now, and from when (``next_at``, ISO time, ``None`` if
        never claimed)."""
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
            if account.balance >= policy.bonus_below:
                raise BonusRefused(
                    "bonus_not_needed",
                    f"the bonus is for balances below {policy.bonus_below}: you have "
                    f"{account.balance}",
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
            signed = case(
                (ChipMovement.to_account == account.id, ChipMovement.amount),
                else_=-ChipMovement.amount,
            )
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
            escrow = ChipAccount(
                kind="escrow",
                table_id=table_id,
                balance=0,
                cost_percent=cost_percent,
                created_at=now,
            )
            session.add(escrow)
            await session.flush()
            players = sorted(
                {int(s["player"]) for s in seats if s.get("bot") is None and s.get("player")}
            )
            for player_id in players:
                account = await self._chip_account(session, player_id)
                if not await debit(session, account.id, stake):
                    nickname = await session.scalar(
                        select(Player.nickname).where(Player.id == player_id)
                    )
                    raise StoreError(
                        "insufficient_chips",
                        f"{nickname} has {account.balance} chips: the stake is {stake}",
                    )
                await move(session, account.id, escrow.id, stake, "stake", table_id, now)
            bots = sum(1 for s in seats if s.get("bot") is not None)
            if bots:
                house = await house_account(session, now)
                if not await debit(session, house.id, stake * bots):
                    raise StoreError(
                        "insufficient_chips", "the house cannot stake for the computer opponents"
                    )
                await move(session, house.id, escrow.id, stake * bots, "stake", table_id, now)

    async def chips_month_ranking(
        self, limit: int = 50, me_id: int | None = None
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """Players by the chips they won this (UTC) month: payouts received minus
        stakes paid, in games settled or started since the 1st. The second value is
        the row of ``me_id`` (``None`` if they played no staked game this month),
        also when it is not among the first ``limit``."""
        if not is_int(limit) or limit < 0:
            raise bad("limit must be a non-negative integer")
        now = self._now()
        month = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        won = func.sum(
            case(
                (ChipMovement.to_account == ChipAccount.id, ChipMovement.amount),
                else_=-ChipMovement.amount,
            )
        ).label("won")
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
            .where(
                ChipMovement.reason.in_(("stake", "payout")),
                ChipMovement.created_at >= month,
                Player.guest.is_(False),
                ~Player.nickname_key.startswith(RELEASED),
            )
            .group_by(Player.id)
            .order_by(won.desc(), Player.nickname_key)
        )
        async with self._read() as session:
            rows = (await session.execute(query)).all()
        result: list[dict[str, Any]] = []
        mine = None
        for position, (player, chips) in enumerate(rows, start=1):
            rank = result[-1]["rank"] if result and result[-1]["chips"] == chips else position
            row = {
                "rank": rank,
                "nickname": player.nickname,
                "rating": ratings.shown(player.rating),
                "games_played": player.games_played,
                "games_won": player.games_won,
                "bot": player.is_bot,
                "chips": int(chips),
            }
            if position <= limit:
                result.append(row)
            if player.id == me_id:
                mine = row
            if position > limit and (me_id is None or mine is not None):
                break
        return result[:limit], mine

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
        return {
            "chips": account.balance,
            "bonus": {
                "amount": policy.bonus,
                "below": policy.bonus_below,
                "next_at": iso(next_at),
                "due": account.balance < policy.bonus_below and (next_at is None or next_at <= now),
            },
        }


# ------------------------------------------------------------ movements


async def chips_won_and_lost(session: AsyncSession, player_id: int) -> dict[str, int]:
    """``{"chips_won", "chips_lost"}`` over the player's finished staked games: each
    game's gain (its payout above the stake) counts as won, each game's loss (a
    stake not won back) as lost. Games still running count nothing yet."""
    account = await session.scalar(select(ChipAccount.id).where(ChipAccount.player_id == player_id))
    if account is None:
        return {"chips_won": 0, "chips_lost": 0}
    net = func.sum(
        case((ChipMovement.to_account == account, ChipMovement.amount), else_=-ChipMovement.amount)
    )
    per_game = (
        await session.scalars(
            select(net)
            .join(GameResult, GameResult.table_id == ChipMovement.table_id)
            .where(
                or_(ChipMovement.to_account == account, ChipMovement.from_account == account),
                ChipMovement.reason.in_(("stake", "payout")),
            )
            .group_by(ChipMovement.table_id)
        )
    ).all()
    return {
        "chips_won": sum(int(n) for n in per_game if n > 0),
        "chips_lost": sum(-int(n) for n in per_game if n < 0),
    }


async def debit(session: AsyncSession, account_id: int, amount: int) -> bool:
    """Take ``amount`` from an account if it holds that much; whether it did."""
    result = await session.execute(
        update(ChipAccount)
        .where(ChipAccount.id == account_id, ChipAccount.balance >= amount)
        .values(balance=ChipAccount.balance - amount)
        .execution_options(synchronize_session=False)
    )
    return rowcount(result) == 1


async def move(
    session: AsyncSession,
    source: int | None,
    target: int,
    amount: int,
    reason: str,
    table_id: int | None,
    now: datetime,
) -> None:
    """Record a movement and credit ``target``. The caller has debited ``source``
    already (:func:`debit`, which may refuse); ``None`` is a grant or a bonus."""
    await transfer(session, source, {(target, reason): amount}, table_id, now)


async def house_account(session: AsyncSession, now: datetime) -> ChipAccount:
    """The house's account (the migration creates it with :data:`HOUSE_FLOAT`)."""
    house = await session.scalar(
        select(ChipAccount).where(ChipAccount.kind == "house").order_by(ChipAccount.id).limit(1)
    )
    if house is None:  # a database made from the models, not the migrations
        house = ChipAccount(kind="house", balance=0, created_at=now)
        session.add(house)
        await session.flush()
        await move(session, None, house.id, HOUSE_FLOAT, "grant", None, now)
    return house


async def settle_stakes(
    session: AsyncSession,
    table: GameTable,
    winners: Sequence[int],
    totals: Sequence[int],
    seat_players: Sequence[int],
    now: datetime,
) -> None:
    """Empty a finished game's escrow (if it has one): the operating cost to the
    house, the rest split evenly among the winners, any odd chip to the house.

    A player who left the game (``left`` in the stored seats) forfeits: the pot
    goes to the engine's winners who stayed, else to the best-placed seats that
    stayed, else to the house. A computer opponent's share goes to the house,
    which staked for it. Called in the transaction that stores the result; an
    escrow that is already empty is left alone, so it settles once."""
    escrow = await session.scalar(
        select(ChipAccount).where(ChipAccount.table_id == table.id).with_for_update()
    )
    if escrow is None or escrow.balance == 0:
        return
    pot = escrow.balance
    cost = operating_cost(pot, escrow.cost_percent or 0)
    stored = table.seats if isinstance(table.seats, list) else []
    stayed = [
        not (isinstance(s, dict) and s.get("bot") is None and s.get("left"))
        for s in stored[: len(seat_players)]
    ] + [True] * max(0, len(seat_players) - len(stored))
    bots = {
        seat for seat, s in enumerate(stored) if isinstance(s, dict) and s.get("bot") is not None
    }
    payees = [seat for seat in winners if stayed[seat]]
    if not payees:
        places = ratings.places(winners, totals)
        best = min((places[s] for s in range(len(places)) if stayed[s]), default=None)
        payees = [s for s in range(len(places)) if stayed[s] and places[s] == best]
    rest = pot - cost
    share = rest // len(payees) if payees else 0
    people = {seat_players[s] for s in payees if s not in bots}
    found = (
        await session.execute(
            select(ChipAccount.id, ChipAccount.kind, ChipAccount.player_id).where(
                or_(ChipAccount.player_id.in_(people), ChipAccount.kind == "house")
            )
        )
    ).all()
    accounts = {player: account for account, kind, player in found if kind == "player"}
    house = min((a for a, kind, _ in found if kind == "house"), default=None)
    if house is None:
        house = (await house_account(session, now)).id
    paid: dict[tuple[int, str], int] = {}

    def pay(account_id: int, reason: str, amount: int) -> None:
        if amount > 0:
            paid[(account_id, reason)] = paid.get((account_id, reason), 0) + amount

    pay(house, "operating_cost", cost)
    for seat in payees:
        pay(accounts.get(seat_players[seat], house), "payout", share)
    pay(house, "odd_chip", rest - share * len(payees))
    # The escrow's row is locked and its balance known: it is emptied in the
    # statement that credits the payees.
    await transfer(session, escrow.id, paid, table.id, now, debited=pot)


async def transfer(
    session: AsyncSession,
    source: int | None,
    paid: dict[tuple[int, str], int],
    table_id: int | None,
    now: datetime,
    *,
    debited: int = 0,
) -> None:
    """Movements from ``source`` (``None``: a grant or a bonus), ``{(account,
    reason): amount}``, recorded in one statement and credited in another. The
    source has been debited already (:func:`debit`, which may refuse), unless
    ``debited`` names the chips to take from it in the same statement (for a
    source whose row the caller has locked and whose balance it knows)."""
    await session.execute(
        insert(ChipMovement),
        [
            {
                "from_account": source,
                "to_account": account,
                "amount": amount,
                "reason": reason,
                "table_id": table_id,
                "created_at": now,
            }
            for (account, reason), amount in sorted(paid.items())
        ],
    )
    deltas: dict[int, int] = {}
    for (account, _reason), amount in paid.items():
        deltas[account] = deltas.get(account, 0) + amount
    if source is not None and debited:
        deltas[source] = deltas.get(source, 0) - debited
    await session.execute(
        update(ChipAccount)
        .where(ChipAccount.id.in_(deltas))
        .values(balance=ChipAccount.balance + case(deltas, value=ChipAccount.id))
        .execution_options(synchronize_session=False)
    )
