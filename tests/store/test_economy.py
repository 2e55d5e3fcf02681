"""The economy's rules in the store, on both databases (docs/chips.md): winnings
against the house capped per day, a house too low to stake plays for nothing
(and is reported), repeated pairings rated and ranked a limited number of times
a day, the rankings of established people only, a void game counting nothing."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import update

from romme.store import Store, StoreError
from romme.store.chip_policy import ChipPolicy
from romme.store.ledger import house_account
from romme.store.models import ChipAccount

from .helpers import FakeClock

SEED = bytes(range(32))
POLICY = ChipPolicy(
    grant=10_000,
    established_games=1,
    established_hours=0,
    new_stake_max=1_000_000,
    bot_win_cap=1_000,
    pair_staked_games=0,
    accounts_per_address=0,
    pair_rated_games=2,
)

pytestmark = pytest.mark.asyncio


async def _game(
    store: Store,
    seats: list[dict[str, Any]],
    stake: int,
    winners: list[int],
    totals: list[int],
) -> dict[str, dict[str, float]]:
    players = [int(s["player"]) for s in seats]
    table = await store.create_table(players[0], {}, {}, seats, SEED)
    await store.start_staked_game(table, seats, stake, POLICY.cost_percent)
    return await store.finish_game(
        table, winners=winners, totals=totals, seat_players=players, results=[]
    )


async def test_winnings_against_the_house_are_capped_per_day(
    store: Store, clock: FakeClock
) -> None:
    store.chip_policy = POLICY
    async with store._write() as session:
        await house_account(session, store._now())
    anna = (await store.register("Anna", "password1")).id
    bot = (await store.bot_player("beginner")).id
    seats: list[dict[str, Any]] = [
        {"player": anna, "bot": None},
        {"player": bot, "bot": "beginner"},
    ]
    house = (await store.house_report())["balance"]
    # Stake 5,000: the pot 10,000, the cost 500, 9,500 to Anna, a gain of 4,500
    # of which 1,000 are allowed today; 3,500 go back to the house.
    await _game(store, seats, 5_000, [0], [0, 40])
    assert await store.chips(anna) == 11_000
    assert (await store.house_report())["balance"] == house - 1_000
    await _game(store, seats, 5_000, [0], [0, 40])  # the day's allowance is used up
    assert await store.chips(anna) == 11_000
    ledger = await store.chip_ledger(anna, limit=2)
    assert [(m["reason"], m["amount"]) for m in ledger["movements"]] == [
        ("payout", 5_000),
        ("stake", -5_000),
    ]
    await _game(store, seats, 1_000, [1], [40, 0])  # a loss opens the allowance again
    await _game(store, seats, 1_000, [0], [0, 40])
    assert await store.chips(anna) == 10_900
    clock.advance(days=1)
    await _game(store, seats, 1_000, [0], [0, 40])  # a new day: 900 more
    assert await store.chips(anna) == 11_800
    report = await store.house_report()
    assert report["float"] == 1_000_000_000 and report["in_pots"] == 0
    assert report["balance"] == house - 1_800 and report["reserve_low"] is False


async def test_a_house_too_low_to_stake_plays_for_nothing(store: Store) -> None:
    store.chip_policy = POLICY
    async with store._write() as session:
        house = await house_account(session, store._now())
        await session.execute(
            update(ChipAccount).where(ChipAccount.id == house.id).values(balance=500)
        )
    anna = (await store.register("Anna", "password1")).id
    bot = (await store.bot_player("strong")).id
    seats: list[dict[str, Any]] = [
        {"player": anna, "bot": None},
        {"player": bot, "bot": "strong"},
    ]
    table = await store.create_table(anna, {}, {}, seats, SEED)
    await store.start_staked_game(table, seats, 1_000, POLICY.cost_percent)
    assert (await store.get_table(table)).status == "playing"  # type: ignore[union-attr]
    assert await store.chips(anna) == 10_000  # nobody paid a stake
    await store.finish_game(
        table, winners=[1], totals=[40, 0], seat_players=[anna, bot], results=[]
    )
    assert await store.chips(anna) == 10_000
    report = await store.house_report()
    assert (report["balance"], report["reserve_low"]) == (500, True)


async def test_repeated_pairings_and_the_rankings(store: Store) -> None:
    store.chip_policy = POLICY
    async with store._write() as session:
        await house_account(session, store._now())
    anna, ben = [(await store.register(n, "password1")).id for n in ("Anna", "Ben")]
    fresh = (await store.register("Fresh", "password1")).id
    bot = (await store.bot_player("strong")).id
    pair: list[dict[str, Any]] = [{"player": anna, "bot": None}, {"player": ben, "bot": None}]
    rated = [await _game(store, pair, 100, [0], [0, 40]) for _ in range(3)]
    assert [bool(changes) for changes in rated] == [True, True, False]  # 2 a day
    assert await store.chips(anna) == 10_000 + 3 * 90  # the chips move all the same
    rows, mine = await store.chips_month_ranking(10, ben)
    # The first game was between people not yet established (no game finished):
    # only the second counts in the ranking of chips won.
    assert [(r["nickname"], r["chips"]) for r in rows] == [("Anna", 90)]
    assert mine is not None and (mine["rank"], mine["chips"]) == (2, -100)

    with_bot: list[dict[str, Any]] = [
        {"player": fresh, "bot": None},
        {"player": bot, "bot": "strong"},
    ]
    await _game(store, with_bot, 100, [0], [0, 40])
    names = [r["nickname"] for r in await store.rankings()]
    assert names[:1] == ["Anna"] and "Bot strong" not in names and "Fresh" in names
    level = await store.level_ranking(10, fresh)
    assert not any(r["bot"] for r in level["rankings"])
    rows, mine = await store.chips_month_ranking(10, fresh)
    assert "Fresh" not in [r["nickname"] for r in rows] and mine is None  # a bot game

    # A game given up at once is void: nothing of it counts anywhere.
    before = await store.get_player(anna)
    void: list[dict[str, Any]] = [
        {"player": anna, "bot": None, "left": True, "left_turns": 0},
        pair[1],
    ]
    assert await _game(store, void, 100, [1], [40, 0]) == {}
    after = await store.get_player(anna)
    assert before is not None and after is not None
    assert (after.games_played, after.rating) == (before.games_played, before.rating)
    assert await store.chips(anna) == 10_270


async def test_dumping_shows_in_the_signals_and_a_void_reverses_it(store: Store) -> None:
    store.chip_policy = POLICY
    async with store._write() as session:
        await house_account(session, store._now())
    collector = (await store.register("Collector", "password1")).id
    dumpers = [(await store.register(f"Dumper{i}", "password1")).id for i in range(3)]
    honest = [(await store.register(n, "password1")).id for n in ("Hana", "Ivo")]
    tables = []
    for dumper in dumpers:  # each dumper stakes 3,000 and loses it to the collector
        seats = [{"player": collector, "bot": None}, {"player": dumper, "bot": None}]
        await _game(store, seats, 3_000, [0], [0, 40])
        tables.append(await store.create_table(collector, {}, {}, seats, SEED))
    pair = [{"player": honest[0], "bot": None}, {"player": honest[1], "bot": None}]
    await _game(store, pair, 100, [0], [0, 40])
    await _game(store, pair, 100, [1], [40, 0])
    assert await store.chips(collector) == 10_000 + 3 * 2_700

    signals = await store.economy_signals(days=7)
    top = signals[0]
    assert top["players"][0] == "Collector" and top["players"][1].startswith("Dumper")
    assert (top["games"], top["flow"], top["one_way"]) == (1, 2_700, 1.0)
    honest_row = next(r for r in signals if set(r["players"]) == {"Hana", "Ivo"})
    assert honest_row["one_way"] == 0.5 and honest_row["flow"] == 0  # one game each
    assert len(top["games_list"]) == 1
    game = top["games_list"][0]

    before = await store.get_player(collector)
    voided = await store.void_game(game, "mod", "dumping")
    assert sorted(r["amount"] for r in voided["reversed"]) == [-2_700, 3_000]
    assert await store.chips(collector) == 10_000 + 2 * 2_700
    after = await store.get_player(collector)
    assert before is not None and after is not None
    assert (after.games_played, after.games_won) == (before.games_played - 1, before.games_won - 1)
    ledger = await store.chip_ledger(collector, limit=1)
    assert [(m["reason"], m["amount"], m["game"]) for m in ledger["movements"]] == [
        ("reversal", -2_700, game)
    ]
    with pytest.raises(StoreError) as again:
        await store.void_game(game, "mod")
    assert again.value.code == "already_void"
    with pytest.raises(StoreError) as unknown:
        await store.void_game(tables[0], "mod")  # never played
    assert unknown.value.code == "no_such_game"
    log = await store.moderation_log()
    assert (log[0]["action"], log[0]["target"], log[0]["note"]) == (
        "void_game",
        f"game {game}",
        "dumping",
    )
    # Chips from accounts that were not established count in no ranking.
    rows, _ = await store.chips_month_ranking(10)
    assert "Collector" not in [r["nickname"] for r in rows]


async def test_signals_per_game_and_the_soft_play_found_in_them(store: Store) -> None:
    store.chip_policy = POLICY
    async with store._write() as session:
        await house_account(session, store._now())
    collector = (await store.register("Collector", "password1")).id
    dumper = (await store.register("Dumper", "password1")).id
    honest = [(await store.register(n, "password1")).id for n in ("Hana", "Ivo")]
    dumped = [{"player": collector, "bot": None}, {"player": dumper, "bot": None}]
    await _game(store, dumped, 3_000, [0], [0, 40])
    pair = [{"player": honest[0], "bot": None}, {"player": honest[1], "bot": None}]
    await _game(store, pair, 100, [0], [0, 40])
    free = await store.create_table(honest[0], {}, {}, pair, SEED)
    await store.finish_game(free, winners=[0], totals=[0, 9], seat_players=honest, results=[])

    unchecked = await store.games_to_check(days=7, limit=10)
    assert len(unchecked) == 2 and free not in unchecked  # staked games only, newest first
    dumped_game, honest_game = unchecked[1], unchecked[0]
    [row] = await store.game_signals(days=7)  # the honest game's loss of 100 scores 0
    assert (row["game"], row["score"], row["checked"]) == (dumped_game, 3, False)
    assert {p["nickname"]: p["net"] for p in row["players"]} == {
        "Collector": 2_700,
        "Dumper": -3_000,
    }

    # The dumper (seat 1) held back from going out twice; the honest game is clean.
    await store.record_soft_play(dumped_game, {1: [7, 12]})
    await store.record_soft_play(honest_game, {})
    assert await store.games_to_check(days=7, limit=10) == []
    [row] = await store.game_signals(days=7)
    assert (row["score"], row["checked"]) == (3 + 2 * 2, True)
    assert {p["nickname"]: p["missed_outs"] for p in row["players"]} == {
        "Collector": [],
        "Dumper": [7, 12],
    }
    pairs = {frozenset(r["players"]): r for r in await store.economy_signals(days=7)}
    assert pairs[frozenset({"Collector", "Dumper"})]["soft_play"] == 2
    assert pairs[frozenset({"Hana", "Ivo"})]["soft_play"] == 0
    with pytest.raises(StoreError) as bad:
        await store.game_signals(days=91)
    assert bad.value.code == "bad_message"
