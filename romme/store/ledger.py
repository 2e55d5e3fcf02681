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
start, :meth:`romme.store.chips.ChipStore.start_staked_game`), and
:func:`settle_stakes` empties the escrow once, in the transaction that stores the
result (:meth:`romme.store.results.ResultStore.finish_game`). A second settlement
finds the escrow empty (and would break the unique key), so a crash, a restart, a
replay or a second node cannot pay twice.

These are functions of a session, not of a store: the chip store, the results and
the fair-play reviews move chips in their own transactions, all through here.
Nothing here can be bought or paid out: chips are play money.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from romme.store.chip_policy import operating_cost
from romme.store.core import rowcount
from romme.store.models import ChipAccount, ChipMovement, GameResult, GameTable

__all__ = [
    "GAME_REASONS",
    "HOUSE_FLOAT",
    "chips_won_and_lost",
    "debit",
    "house_account",
    "in_pots",
    "lock_accounts",
    "move",
    "refund_stakes",
    "settle_stakes",
    "signed_amount",
    "touches",
    "transfer",
]

HOUSE_FLOAT = 1_000_000_000
"""The house's grant when the ledger is created: it stakes for the computer
opponents and receives the operating costs."""
GAME_REASONS = ("stake", "payout", "refund")
"""The movements between a person and a game's pot."""


def signed_amount(account: Any) -> Any:
    """A movement's amount as ``account`` (an id, or a column such as
    ``ChipAccount.id`` in a join) sees it: positive into it, negative out of it."""
    return case(
        (ChipMovement.to_account == account, ChipMovement.amount), else_=-ChipMovement.amount
    )


def touches(account: Any) -> Any:
    """The movements into or out of ``account`` (an id or a column)."""
    return or_(ChipMovement.to_account == account, ChipMovement.from_account == account)


async def chips_won_and_lost(session: AsyncSession, player_id: int) -> dict[str, int]:
    """``{"chips_won", "chips_lost"}`` over the player's finished staked games: each
    game's gain (its payout above the stake) counts as won, each game's loss (a
    stake not won back) as lost. Games still running count nothing yet."""
    account = await session.scalar(select(ChipAccount.id).where(ChipAccount.player_id == player_id))
    if account is None:
        return {"chips_won": 0, "chips_lost": 0}
    net = func.sum(signed_amount(account))
    per_game = (
        await session.scalars(
            select(net)
            .join(GameResult, GameResult.table_id == ChipMovement.table_id)
            .where(
                or_(ChipMovement.to_account == account, ChipMovement.from_account == account),
                ChipMovement.reason.in_(GAME_REASONS),
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
    payees: Sequence[int],
    seat_players: Sequence[int],
    now: datetime,
    bot_win_cap: int,
) -> None:
    """Empty a finished game's escrow (if it has one): the operating cost to the
    house, the rest split evenly among ``payees`` (the seats that count as
    winners, :func:`romme.store.outcome.judge`: never a seat given up), any odd
    chip to the house; without payees, all to the house. A computer opponent's
    share goes to the house, which staked for it.

    At a table where the house staked, a person's gain is capped: what they won
    at such tables this (UTC) day, net of what they lost there, stays at most
    ``bot_win_cap``; the rest of the share goes back to the house (``bot_cap``).
    Called in the transaction that stores the result; an escrow that is already
    empty is left alone, so it settles once."""
    escrow = await _locked_escrow(session, table.id)
    if escrow is None or escrow.balance == 0:
        return
    pot = escrow.balance
    cost = operating_cost(pot, escrow.cost_percent or 0)
    stored = table.seats if isinstance(table.seats, list) else []
    bots = {
        seat for seat, s in enumerate(stored) if isinstance(s, dict) and s.get("bot") is not None
    }
    payees = list(payees)
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
    stakes = dict(
        (
            await session.execute(
                select(ChipMovement.from_account, ChipMovement.amount).where(
                    ChipMovement.table_id == table.id,
                    ChipMovement.to_account == escrow.id,
                    ChipMovement.reason == "stake",
                )
            )
        ).all()
    )
    house_staked = house in stakes
    if house_staked:
        await lock_accounts(session, [accounts[p] for p in people if p in accounts])
    paid: dict[tuple[int, str], int] = {}

    def pay(account_id: int, reason: str, amount: int) -> None:
        if amount > 0:
            paid[(account_id, reason)] = paid.get((account_id, reason), 0) + amount

    pay(house, "operating_cost", cost)
    for seat in payees:
        account = accounts.get(seat_players[seat], house)
        amount = share
        if house_staked and account != house:
            own = int(stakes.get(account, 0))
            before = await _won_from_house_today(session, account, house, table.id, now)
            allowed = max(0, bot_win_cap - before)
            if amount - own > allowed:
                pay(house, "bot_cap", amount - own - allowed)
                amount = own + allowed
        pay(account, "payout", amount)
    pay(house, "odd_chip", rest - share * len(payees))
    # The escrow's row is locked and its balance known: it is emptied in the
    # statement that credits the payees.
    await transfer(session, escrow.id, paid, table.id, now, debited=pot)


async def refund_stakes(session: AsyncSession, table: GameTable, now: datetime) -> None:
    """Empty a void game's escrow back into the accounts that paid into it (the
    house for its computer opponents), as ``refund`` movements; no operating
    cost. An escrow that is already empty is left alone."""
    escrow = await _locked_escrow(session, table.id)
    if escrow is None or escrow.balance == 0:
        return
    rows = (
        await session.execute(
            select(ChipMovement.from_account, func.sum(ChipMovement.amount))
            .where(
                ChipMovement.table_id == table.id,
                ChipMovement.to_account == escrow.id,
                ChipMovement.reason == "stake",
            )
            .group_by(ChipMovement.from_account)
        )
    ).all()
    paid = {(int(a), "refund"): int(amount) for a, amount in rows if a is not None}
    if sum(paid.values()) != escrow.balance:  # never: only stakes enter an escrow
        raise RuntimeError(f"the pot of game {table.id} is not the sum of its stakes")
    await transfer(session, escrow.id, paid, table.id, now, debited=escrow.balance)


async def lock_accounts(session: AsyncSession, account_ids: Sequence[int]) -> None:
    """Lock these accounts' rows (PostgreSQL; SQLite has one writer at a time)
    for the rest of the transaction, in one order, so that what is counted over
    them (a daily allowance, a pair's games) cannot be counted twice at once."""
    if account_ids:
        await session.execute(
            select(ChipAccount.id)
            .where(ChipAccount.id.in_(sorted(set(account_ids))))
            .order_by(ChipAccount.id)
            .with_for_update()
        )


async def _locked_escrow(session: AsyncSession, table_id: int) -> ChipAccount | None:
    return await session.scalar(
        select(ChipAccount).where(ChipAccount.table_id == table_id).with_for_update()
    )


async def _won_from_house_today(
    session: AsyncSession, account: int, house: int, table_id: int, now: datetime
) -> int:
    """What ``account`` won (net) today (UTC) at tables where the house staked,
    but for ``table_id``. The person's row is locked by the settlement (the
    result's transaction locks its players), so two settlements cannot both
    use the same allowance."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    house_tables = select(ChipMovement.table_id).where(
        ChipMovement.from_account == house, ChipMovement.reason == "stake"
    )
    signed = signed_amount(account)
    net = await session.scalar(
        select(func.coalesce(func.sum(signed), 0)).where(
            or_(ChipMovement.to_account == account, ChipMovement.from_account == account),
            ChipMovement.reason.in_(GAME_REASONS),
            ChipMovement.created_at >= day,
            ChipMovement.table_id != table_id,
            ChipMovement.table_id.in_(house_tables),
        )
    )
    return int(net or 0)


async def in_pots(session: AsyncSession, account_id: int) -> int:
    """The chips ``account_id`` paid into the pots of games not settled yet."""
    total = await session.scalar(
        select(func.coalesce(func.sum(ChipMovement.amount), 0))
        .join(ChipAccount, ChipAccount.id == ChipMovement.to_account)
        .where(
            ChipMovement.from_account == account_id,
            ChipMovement.reason == "stake",
            ChipAccount.kind == "escrow",
            ChipAccount.balance > 0,
        )
    )
    return int(total or 0)


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
