"""The economy's rules against scripted abusers: staked games of honest players
(the computer opponents' levels as players) mixed with abusers, through the
real store (its ledger, settlement, limits and rankings), checking the ledger's
invariants after every game, once under today's rules and once "before" them.

    python bench/bench_economy.py [--games 10000] [--rules both|after|before]
                                  [--seed 1] [--db URL]

What a game's cards do is not played out: its outcome is drawn from each
seat's chance to win, which is what the rules act on (the ledger, leaving, the
limits). The model, stated so that its numbers can be judged:

* Honest players: 24 registered people in three groups, of beginner, casual
  and strong strength (weights 1, 2 and 3: a seat wins with its weight's share
  of the table's), at 2 to 4 seats among themselves or with a computer
  opponent, for a stake of 10 to 1,000 within what they may stake. One honest
  player in 100 leaves a game, after a number of their own turns drawn evenly
  from 1 to 30 (a game lasts about that long); 5 minutes a game.
* The farmer plays the strong level's moves against the beginner at two seats
  (wins 77 %: 23 of 30 measured in the field), at every stake from 100 to
  100,000 in turn; 4 minutes a game.
* Dump rings of 4, 8 and 20 guests (one address, as a script runs them), each
  guest staking what it may against its ring's collector (a registered
  account), then leaving at once; a second pass leaves after 3 turns.
* The bonus timer puts 6,000 of its 10,000 into a game against the computer
  and claims the bonus while it runs.

"before" runs the same script with the limits switched off (``ChipPolicy``:
no stake limits, no address or pair limits, no daily cap, every registered
person who played ranked) and every leave stored as the old server stored it
(``left`` without ``left_turns``: a forfeit, however early). Two rules of
today cannot be switched off and count "before" by arithmetic, as said in the
report: the bonus with chips in a pot (the old server granted it: +1,000 a
claim), and who is listed (bots and people at a loss).

Every game is followed by the invariants: the sum over all accounts equals the
chips granted (grants and bonuses); no balance is negative; the game's escrow
is empty and what left it equals what entered it (settled once). The report:
each abuser's chips gained per hour of play and place in the rankings, and the
share of honest games voided.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from argon2 import PasswordHasher, profiles
from sqlalchemy import func, select

from romme.store import Store, StoreError
from romme.store.chip_policy import ChipPolicy
from romme.store.ledger import house_account, signed_amount, touches
from romme.store.models import ChipAccount, ChipMovement, Player

SEED = bytes(range(32))
AFTER = ChipPolicy()
BEFORE = ChipPolicy(
    guest_stake_max=1_000_000,
    new_stake_max=1_000_000,
    established_games=1,
    established_hours=0,
    bot_win_cap=10**12,
    pair_staked_games=0,
    accounts_per_address=0,
    pair_rated_games=0,
)
LEVELS = {"beginner": 1, "casual": 2, "strong": 3}
FARM_STAKES = [100, 400, 1_000, 5_000, 20_000, 100_000]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 8, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Abuser:
    name: str
    player_id: int
    minutes: float = 0.0
    start_chips: int = 0
    refused: dict[str, int] = field(default_factory=dict)


@dataclass
class Run:
    store: Store
    clock: Clock
    rules: str
    rng: random.Random
    bots: dict[str, int] = field(default_factory=dict)
    honest: list[tuple[int, str]] = field(default_factory=list)
    games: int = 0
    honest_games: int = 0
    honest_void: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    minted: int = 0
    """The chips granted so far (grants and bonuses), summed as they come."""
    counted_to: int = 0
    """The last ledger movement counted in ``minted``."""


async def check_invariants(run: Run, table: int | None) -> None:
    store = run.store
    async with store._read() as session:
        total = await session.scalar(select(func.coalesce(func.sum(ChipAccount.balance), 0)))
        lowest = await session.scalar(select(func.min(ChipAccount.balance)))
        # The new movements only: summing the whole ledger after every game made a
        # long run quadratic.
        new = (
            await session.execute(
                select(
                    func.coalesce(func.sum(ChipMovement.amount), 0), func.max(ChipMovement.id)
                ).where(ChipMovement.from_account.is_(None), ChipMovement.id > run.counted_to)
            )
        ).one()
        run.minted += int(new[0])
        run.counted_to = max(run.counted_to, int(new[1] or 0))
        minted = run.minted
        if table is not None:
            escrow = await session.scalar(select(ChipAccount).where(ChipAccount.table_id == table))
            if escrow is not None:
                into = await session.scalar(
                    select(func.coalesce(func.sum(ChipMovement.amount), 0)).where(
                        ChipMovement.to_account == escrow.id
                    )
                )
                out = await session.scalar(
                    select(func.coalesce(func.sum(ChipMovement.amount), 0)).where(
                        ChipMovement.from_account == escrow.id
                    )
                )
                assert escrow.balance == 0 and into == out, f"game {table} not settled once"
    assert total == minted, f"the sum over accounts {total} is not the chips granted {minted}"
    assert lowest is None or lowest >= 0, "a negative balance"


async def play(
    run: Run,
    seats: list[tuple[int, str | None]],
    stake: int,
    chances: Sequence[float],
    leaves: dict[int, int],
    minutes: float,
) -> str | None:
    """One game: ``seats`` (player, bot level or None), the winner drawn from
    ``chances``; ``leaves``: seat -> own turns when the person left. Returns the
    refusal's code, if the start was refused."""
    stored = [{"player": pid, "nickname": None, "bot": bot, "left": False} for pid, bot in seats]
    store = run.store
    table = await store.create_table(seats[0][0], {}, {}, stored, SEED)
    try:
        await store.start_staked_game(table, stored, stake, 5)
    except StoreError as exc:
        run.refused[exc.code] = run.refused.get(exc.code, 0) + 1
        await store.update_table(table, status="closed")
        return exc.code
    if leaves:
        for seat, turns in leaves.items():
            stored[seat]["left"] = True
            if run.rules == "after":
                stored[seat]["left_turns"] = turns
        await store.update_table(table, seats=stored)
    winner = run.rng.choices(range(len(seats)), weights=chances)[0]
    totals = [0 if s == winner else run.rng.randint(5, 90) for s in range(len(seats))]
    run.clock.now += timedelta(minutes=minutes)
    await store.finish_game(
        table,
        winners=[winner],
        totals=totals,
        seat_players=[pid for pid, _ in seats],
        results=[],
    )
    run.games += 1
    await check_invariants(run, table)
    return None


async def honest_game(run: Run) -> None:
    rng = run.rng
    count = rng.randint(2, 4)
    people = rng.sample(run.honest, count if rng.random() < 0.7 else count - 1)
    seats: list[tuple[int, str | None]] = [(pid, None) for pid, _ in people]
    weights = [LEVELS[level] for _, level in people]
    while len(seats) < count:
        level = rng.choice(list(LEVELS))
        seats.append((run.bots[level], level))
        weights.append(LEVELS[level])
    stake = rng.choice([10, 50, 100, 100, 500, 1_000])
    leaves = {
        seat: rng.randint(1, 30)
        for seat, (_, bot) in enumerate(seats)
        if bot is None and rng.random() < 0.01
    }
    refused = await play(run, seats, stake, weights, leaves, 5)
    if refused is None:
        run.honest_games += 1
        if any(turns < 3 for turns in leaves.values()) and run.rules == "after":
            run.honest_void += 1


async def simulate(url: str, rules: str, games: int, seed: int) -> dict[str, Any]:
    clock = Clock()
    store = await Store.open(
        url, password_hasher=PasswordHasher.from_parameters(profiles.CHEAPEST), clock=clock
    )
    store.chip_policy = AFTER if rules == "after" else BEFORE
    run = Run(store, clock, rules, random.Random(seed))
    async with store._write() as session:
        await house_account(session, clock())
    for level in LEVELS:
        run.bots[level] = (await store.bot_player(level)).id
    for index in range(24):
        level = list(LEVELS)[index % 3]
        record = await store.register(f"Honest{index:02d}{level[:2]}", "password1")
        await store.create_session(record.id, f"10.0.{index}.1", "sim")
        run.honest.append((record.id, level))
    farmer = Abuser("farmer", (await store.register("Farmer", "password1")).id)
    timer = Abuser("bonus timer", (await store.register("Timer", "password1")).id)
    clock.now += timedelta(days=2)  # the honest players are established after a few games
    for abuser in (farmer, timer):  # the abusers are established accounts
        for _ in range(AFTER.established_games):
            seats = [(abuser.player_id, None), (run.bots["casual"], "casual")]
            await play(run, seats, 10, [1, 1], {}, 5)
    rings: list[tuple[Abuser, list[int]]] = []
    for size in (4, 8, 20):
        collector = await store.register(f"Collector{size}", "password1")
        await store.create_session(collector.id, "192.0.2.1", "sim")
        guests: list[int] = []
        for index in range(size):
            guest = await store.create_guest(f"Dump{size}x{index}")
            await store.create_session(guest.id, "192.0.2.1", "sim")
            guests.append(guest.id)
        rings.append((Abuser(f"dump ring of {size}", collector.id), guests))
    abusers = [farmer, timer] + [ring for ring, _ in rings]
    for abuser in abusers:
        abuser.start_chips = await store.chips(abuser.player_id)

    begun, started_at = time.perf_counter(), clock()
    dumps_at = {games // 3: 0, 2 * games // 3: 3}  # leave at once, then after 3 turns
    while run.games < games:
        if run.games in dumps_at:
            turns = dumps_at.pop(run.games)
            for ring, guests in rings:
                for guest_id in guests:
                    stake = max(1, await store.chips(guest_id))
                    pair: list[tuple[int, str | None]] = [(ring.player_id, None), (guest_id, None)]
                    code = await play(run, pair, stake, [1, 1], {1: turns}, 2)
                    if code is not None:
                        ring.refused[code] = ring.refused.get(code, 0) + 1
                        stake = AFTER.guest_stake_max  # the most a guest may stake
                        code = await play(run, pair, stake, [1, 1], {1: turns}, 2)
                    ring.minutes += 2
            continue
        roll = run.rng.random()
        if roll < 0.08:  # the farmer
            stake = FARM_STAKES[run.games % len(FARM_STAKES)]
            stake = min(stake, await store.chips(farmer.player_id))
            if stake > 0:
                seats = [(farmer.player_id, None), (run.bots["beginner"], "beginner")]
                code = await play(run, seats, stake, [0.77, 0.23], {}, 4)
                if code is not None:
                    farmer.refused[code] = farmer.refused.get(code, 0) + 1
                farmer.minutes += 4
        elif roll < 0.085:  # the bonus timer
            await bonus_timing(run, timer)
        else:
            await honest_game(run)
    elapsed = time.perf_counter() - begun

    rating = {r["nickname"]: r["rank"] for r in await store.rankings(1000)}
    chips_rows, _ = await store.chips_month_ranking(1000)
    chips_rank = {r["nickname"]: r["rank"] for r in chips_rows}
    if rules == "before":
        chips_rank = await old_chips_ranks(store)
    report = {
        "rules": rules,
        "games": run.games,
        "seconds": round(elapsed, 1),
        "honest_games": run.honest_games,
        "honest_void": run.honest_void,
        "refused": run.refused,
        "house": (await store.house_report())["balance"],
        "days": (clock() - started_at).days + 1,
        "abusers": [],
    }
    for abuser in abusers:
        player = await store.get_player(abuser.player_id)
        assert player is not None
        gained = await store.chips(abuser.player_id) - abuser.start_chips
        hours = max(abuser.minutes, 1) / 60
        report["abusers"].append(
            {
                "name": abuser.name,
                "gained": gained,
                "per_hour": round(gained / hours),
                "hours": round(hours, 1),
                "rating_rank": rating.get(player.nickname),
                "chips_rank": chips_rank.get(player.nickname),
                "refused": abuser.refused,
            }
        )
    await store.close()
    return report


async def old_chips_ranks(store: Store) -> dict[str, int]:
    """The ranking by chips this month as the server computed it before today's
    rules: every registered person's stakes and payouts in any staked game since
    the 1st (also running ones, against the computer, with fresh accounts), most
    first, whoever was at a loss included."""
    month = store._now().replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    won = func.sum(signed_amount(ChipAccount.id)).label("won")
    async with store._read() as session:
        rows = (
            await session.execute(
                select(Player.nickname, won)
                .join(ChipAccount, ChipAccount.player_id == Player.id)
                .join(ChipMovement, touches(ChipAccount.id))
                .where(
                    ChipMovement.reason.in_(("stake", "payout")),
                    ChipMovement.created_at >= month,
                    Player.guest.is_(False),
                )
                .group_by(Player.id)
                .order_by(won.desc())
            )
        ).all()
    return {name: rank for rank, (name, _) in enumerate(rows, start=1)}


async def bonus_timing(run: Run, timer: Abuser) -> None:
    """Stake 6,000 of at least 10,000 against the computer, claim the bonus
    while the game runs."""
    store = run.store
    chips = await store.chips(timer.player_id)
    if chips <= 4_500:
        return
    stored: list[dict[str, Any]] = [
        {"player": timer.player_id, "nickname": None, "bot": None, "left": False},
        {"player": run.bots["casual"], "nickname": None, "bot": "casual", "left": False},
    ]
    table = await store.create_table(timer.player_id, {}, {}, stored, SEED)
    try:
        # What is left is below the bonus's threshold; the pot holds the rest.
        await store.start_staked_game(table, stored, chips - 4_000, 5)
    except StoreError as exc:
        timer.refused[exc.code] = timer.refused.get(exc.code, 0) + 1
        await store.update_table(table, status="closed")
        return
    try:
        await store.claim_bonus(timer.player_id)
        timer.refused["claimed"] = timer.refused.get("claimed", 0) + 1
    except StoreError as exc:
        timer.refused[exc.code] = timer.refused.get(exc.code, 0) + 1
    run.clock.now += timedelta(hours=4)
    winner = run.rng.choice([0, 1])
    await store.finish_game(
        table,
        winners=[winner],
        totals=[0, 40] if winner == 0 else [40, 0],
        seat_players=[timer.player_id, run.bots["casual"]],
        results=[],
    )
    timer.minutes += 5
    run.games += 1
    await check_invariants(run, table)


def print_report(report: dict[str, Any]) -> None:
    print(
        f"== rules {report['rules']}: {report['games']} games in {report['seconds']} s; "
        f"honest games {report['honest_games']}, voided {report['honest_void']} "
        f"({100 * report['honest_void'] / max(1, report['honest_games']):.2f} %); "
        f"refused starts {report['refused']}; house {report['house']:,}; "
        f"{report['days']} days of play"
    )
    print(f"{'abuser':22} {'gained':>10} {'per hour':>10} {'hours':>6} rating  chips  refusals")
    for a in report["abusers"]:
        print(
            f"{a['name']:22} {a['gained']:>10,} {a['per_hour']:>10,} {a['hours']:>6} "
            f"{a['rating_rank'] or '-':>6} {a['chips_rank'] or '-':>6}  {a['refused']}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rules", choices=["both", "after", "before"], default="both")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    for rules in ["before", "after"] if args.rules == "both" else [args.rules]:
        with tempfile.TemporaryDirectory() as tmp:
            url = args.db or f"sqlite+aiosqlite:///{Path(tmp) / 'economy.db'}"
            print_report(await simulate(url, rules, args.games, args.seed))


if __name__ == "__main__":
    asyncio.run(main())
