"""The chip ledger over many random staked games, on both databases: the total is
conserved, no balance goes negative, every game settles exactly once (also when
its settlement runs twice at once, or again after the store was reopened), and
each player's balance changes exactly as docs/protocol.md says."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from romme.store import Store, StoreError
from romme.store.chip_policy import ChipPolicy, operating_cost
from romme.store.ledger import house_account
from romme.store.models import ChipAccount, ChipMovement
from romme.store.ratings import places

from .helpers import FAST_HASHER, FakeClock, wipe

SEED = bytes(range(32))
POLICY = ChipPolicy(
    grant=2_000,
    bonus=500,
    bonus_hours=4,
    bonus_below=1_000,
    cost_percent=5,
    guest_stake_max=1_000_000,
    new_stake_max=1_000_000,
    established_games=0,
    established_hours=0,
    bot_win_cap=10**9,
    pair_staked_games=0,
    accounts_per_address=0,
    pair_rated_games=0,
)
"""No limits but the ledger's own: the random games check the ledger, and the
limits have their own tests (tests/store/test_economy.py)."""
PEOPLE = ["Anna", "Ben", "Cleo", "Dirk", "Eva"]


@dataclass
class StakedGame:
    seats: list[int | None]
    """Per seat: an index into PEOPLE, or ``None`` for a computer opponent."""
    stake: int
    winners: list[int]
    totals: list[int]
    left: list[bool]
    settle_twice: bool
    reopen: bool


@st.composite
def staked_games(draw: st.DrawFn) -> StakedGame:
    count = draw(st.integers(2, 4))
    people = draw(st.permutations(range(len(PEOPLE))))
    seats: list[int | None] = [
        None if draw(st.booleans()) and seat > 0 else people[seat] for seat in range(count)
    ]
    stake = draw(st.sampled_from([10, 50, 100, 500, 1_000]) | st.integers(1, 2_500))
    totals = draw(st.lists(st.integers(0, 150), min_size=count, max_size=count))
    if draw(st.booleans()):  # three-rounds: the best scores win, ties split
        best = min(totals)
        winners = [s for s in range(count) if totals[s] == best]
    else:  # classic: the one player left under the limit wins
        winners = [draw(st.integers(0, count - 1))]
    left = [seats[s] is not None and draw(st.integers(0, 4)) == 0 for s in range(count)]
    return StakedGame(
        seats, stake, winners, totals, left, draw(st.booleans()), draw(st.integers(0, 5)) == 0
    )


async def _balances(store: Store) -> dict[int, int]:
    async with store._read() as session:
        rows = (await session.execute(select(ChipAccount.id, ChipAccount.balance))).all()
    return {account: balance for account, balance in rows}


async def _minted(store: Store) -> int:
    async with store._read() as session:
        total = await session.scalar(
            select(func.sum(ChipMovement.amount)).where(ChipMovement.from_account.is_(None))
        )
    return int(total or 0)


async def _open_house(store: Store) -> None:
    async with store._write() as session:
        await house_account(session, store._now())


async def _accounts(store: Store, player_ids: list[int]) -> dict[int, int]:
    """Player id -> account id; the house is key 0."""
    async with store._read() as session:
        rows = (await session.execute(select(ChipAccount.player_id, ChipAccount.id))).all()
        house = await session.scalar(select(ChipAccount.id).where(ChipAccount.kind == "house"))
    found = {pid: account for pid, account in rows if pid in player_ids}
    found[0] = int(house or 0)
    return found


def _expected(game: StakedGame, people: list[int]) -> dict[int, int]:
    """What each player (0: the house) gains, as docs/protocol.md describes it."""
    count = len(game.seats)
    pot = game.stake * count
    cost = operating_cost(pot, POLICY.cost_percent)
    stayed = [not game.left[s] for s in range(count)]
    payees = [s for s in game.winners if stayed[s]]
    if not payees:
        seat_places = places(game.winners, game.totals)
        best = min(seat_places[s] for s in range(count) if stayed[s]) if any(stayed) else None
        payees = [s for s in range(count) if stayed[s] and seat_places[s] == best]
    share = (pot - cost) // len(payees) if payees else 0
    gain: dict[int, int] = {0: cost + (pot - cost) - share * len(payees)}
    for seat, person in enumerate(game.seats):
        owner = 0 if person is None else people[person]
        gain[owner] = gain.get(owner, 0) - game.stake + (share if seat in payees else 0)
    return gain


async def _play(store: Store, game: StakedGame, people: list[int], bot_id: int) -> Store:
    seat_players = [bot_id if p is None else people[p] for p in game.seats]
    seats: list[dict[str, Any]] = [
        {"player": pid, "nickname": None, "bot": None if p is not None else "casual", "left": False}
        for pid, p in zip(seat_players, game.seats, strict=True)
    ]
    table = await store.create_table(people[game.seats[0] or 0], {}, {}, seats, SEED)
    accounts = await _accounts(store, people)
    before = await _balances(store)
    try:
        await store.start_staked_game(table, seats, game.stake, POLICY.cost_percent)
    except StoreError as exc:
        assert exc.code == "insufficient_chips"
        assert await _balances(store) == before
        assert (await store.get_table(table)).status == "waiting"  # type: ignore[union-attr]
        return store
    accounts = await _accounts(store, people)
    if any(game.left):
        for seat, left in zip(seats, game.left, strict=True):
            seat["left"] = left
        await store.update_table(table, seats=seats)
    if game.reopen:  # as after a restart: a new store on the same database
        url = store.url
        await store.close()
        store = await Store.open(url, password_hasher=FAST_HASHER, clock=store._clock)
        store.chip_policy = POLICY

    async def finish() -> None:
        await store.finish_game(
            table,
            winners=game.winners,
            totals=game.totals,
            seat_players=seat_players,
            results=[{"round_no": 1, "totals": game.totals}],
        )

    await asyncio.gather(*(finish() for _ in range(2 if game.settle_twice else 1)))
    await finish()  # a replay after the result is stored: nothing more moves
    after = await _balances(store)
    for owner, amount in _expected(game, people).items():
        account = accounts[owner]
        assert after[account] - before.get(account, POLICY.grant) == amount, (owner, game)
    escrows = [a for a in after if a not in before and a not in accounts.values()]
    assert [after[a] for a in escrows] == [0]
    return store


@pytest.mark.slow
def test_random_staked_games_conserve_chips_and_settle_once(db_url: str) -> None:
    with asyncio.Runner() as runner:
        store = runner.run(Store.open(db_url, password_hasher=FAST_HASHER, clock=FakeClock()))
        store.chip_policy = POLICY
        runner.run(wipe(store))
        people = [runner.run(store.register(name, "password1")).id for name in PEOPLE[:3]]
        people += [runner.run(store.create_guest(name)).id for name in PEOPLE[3:]]
        bot_id = runner.run(store.bot_player("casual")).id
        runner.run(_open_house(store))
        holder = [store]

        @settings(
            max_examples=30,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture],
        )
        @given(staked_games())
        def check(game: StakedGame) -> None:
            holder[0] = runner.run(_play(holder[0], game, people, bot_id))
            balances = runner.run(_balances(holder[0]))
            assert min(balances.values()) >= 0
            assert sum(balances.values()) == runner.run(_minted(holder[0]))

        try:
            check()
        finally:
            runner.run(holder[0].close())


@pytest.mark.asyncio
async def test_bonus_ledger_pages_and_the_month_ranking(store: Store, clock: FakeClock) -> None:
    store.chip_policy = POLICY
    await _open_house(store)
    anna, ben = [(await store.register(name, "password1")).id for name in ("Anna", "Ben")]
    assert await store.chips(anna) == POLICY.grant
    with pytest.raises(StoreError) as refused:
        await store.claim_bonus(anna)
    assert refused.value.code == "bonus_not_needed"

    seats = [{"player": anna, "bot": None}, {"player": ben, "bot": None}]
    for stake in (1_000, 500):  # Anna wins both: 2,000 - 1,000 + 1,900 - 500 + 950
        table = await store.create_table(anna, {}, {}, seats, SEED)
        await store.start_staked_game(table, seats, stake, POLICY.cost_percent)
        await store.finish_game(
            table, winners=[0], totals=[0, 40], seat_players=[anna, ben], results=[]
        )
    assert await store.chips(anna) == 3_350 and await store.chips(ben) == 500

    rows, mine = await store.chips_month_ranking(1, ben)
    assert [(r["rank"], r["nickname"], r["chips"]) for r in rows] == [(1, "Anna", 1_350)]
    assert mine is not None and (mine["rank"], mine["chips"]) == (2, -1_500)
    clock.advance(days=31)  # a new month: nobody has won anything in it
    assert await store.chips_month_ranking(10, anna) == ([], None)

    claimed = await store.claim_bonus(ben)
    assert claimed["claimed"] == 500 and claimed["chips"] == 1_000
    clock.advance(hours=3)
    ben_table = await store.create_table(ben, {}, {}, seats, SEED)
    await store.start_staked_game(ben_table, seats, 600, POLICY.cost_percent)
    state = await store.bonus_state(ben)
    assert (state["chips"], state["in_pots"]) == (400, 600) and not state["bonus"]["due"]
    with pytest.raises(StoreError) as early:
        await store.claim_bonus(ben)
    assert early.value.code == "bonus_not_needed"  # 400 held and 600 in a pot
    clock.advance(hours=1)
    with pytest.raises(StoreError) as held:
        await store.claim_bonus(ben)
    assert held.value.code == "bonus_not_needed"
    await store.finish_game(
        ben_table, winners=[0], totals=[0, 40], seat_players=[anna, ben], results=[]
    )
    assert (await store.bonus_state(ben))["in_pots"] == 0
    assert (await store.claim_bonus(ben))["chips"] == 900

    first = await store.chip_ledger(ben, limit=2)
    assert [(m["reason"], m["amount"], m["balance"]) for m in first["movements"]] == [
        ("bonus", 500, 900),
        ("stake", -600, 400),
    ]
    rest = await store.chip_ledger(ben, before=first["next"], limit=100)
    assert [(m["reason"], m["amount"], m["balance"]) for m in rest["movements"]] == [
        ("bonus", 500, 1_000),
        ("stake", -500, 500),
        ("stake", -1_000, 1_000),
        ("grant", 2_000, 2_000),
    ]
    assert rest["next"] is None
    assert all(m["game"] is None for m in rest["movements"] if m["reason"] in ("grant", "bonus"))
