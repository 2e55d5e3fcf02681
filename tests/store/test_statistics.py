"""Statistics, experience, levels and card luck of finished games, and the
rankings by level with the player's own position (romme/store/statistics.py)."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Connection, select

from romme.engine.actions import Knock, NextRound
from romme.engine.cardluck import MELD_READY_ODDS, hand_luck, joker_odds, meld_key
from romme.engine.cards import JOKER, Card
from romme.engine.fairness import deal_from_seed
from romme.engine.game import Game
from romme.engine.reference import play_game
from romme.engine.rules import Rules
from romme.store import PlayerRecord, Store
from romme.store.database import writer
from romme.store.fresh import Fresh
from romme.store.levels import LEVELS, level_of
from romme.store.migrate import alembic_config
from romme.store.models import Player, PlayerStatistics
from romme.store.statistics import dealt_hands

from .helpers import OPEN_POLICY

KNOCKING = Rules.classic(knock=True, point_limit=60)


def played(rules: Rules, seats: int, seed: bytes) -> tuple[Game, list[Any], list[list[Any]]]:
    """A game played to its end by the reference policy: the game, its actions and
    every round's hands as dealt (an empty hand: the seat sat the round out)."""
    game = Game(rules, seats, seed)
    deals: list[list[Any]] = []

    def on_action(game: Game, action: Any) -> None:
        if isinstance(action, NextRound):
            deals.append([tuple(hand) for hand in game.hands])

    actions = play_game(game, on_action=on_action)
    return game, actions, deals


@pytest.mark.parametrize(
    ("rules", "seats", "seed"),
    [(KNOCKING, 4, b"a" * 32), (KNOCKING, 3, b"b" * 32), (Rules.three_rounds(), 4, b"c" * 32)],
)
def test_dealt_hands_are_the_engines_deals(rules: Rules, seats: int, seed: bytes) -> None:
    game, _, deals = played(rules, seats, seed)
    rebuilt: list[list[Any]] = [[()] * seats for _ in deals]
    results = [r.to_json() for r in game.results]
    for index, seat, hand in dealt_hands(rules, seats, seed, results):
        rebuilt[index][seat] = hand
    assert rebuilt == deals
    assert len(deals) > 1


def test_card_luck_expectations() -> None:
    # Jokers: the exact hypergeometric mean and variance, summed over the counts.
    shoe_size, jokers, hand = 110, 6, 13
    weights = [
        math.comb(jokers, k) * math.comb(shoe_size - jokers, hand - k) / math.comb(shoe_size, hand)
        for k in range(jokers + 1)
    ]
    mean = sum(k * w for k, w in enumerate(weights))
    variance = sum((k - mean) ** 2 * w for k, w in enumerate(weights))
    assert joker_odds(hand) == pytest.approx((mean, variance))
    # Meld-ready: dealt hands (seeds the odds were not measured with) fall within
    # four standard deviations of the tabled odds, for both presets.
    for rules in (Rules.classic(), Rules.three_rounds()):
        odds = MELD_READY_ODDS[meld_key(rules)]
        count, ready, seen_jokers = 1500, 0, 0
        for i in range(count):
            dealt = deal_from_seed(hashlib.sha256(f"check:{i}".encode()).digest(), 1).hands[0]
            luck = hand_luck(dealt, rules)
            assert luck.meld_ready is not None and luck.meld_ready_mean == odds
            ready += luck.meld_ready
            seen_jokers += luck.jokers
        assert abs(ready - count * odds) < 4 * math.sqrt(count * odds * (1 - odds))
        assert abs(seen_jokers - count * mean) < 4 * math.sqrt(count * variance)
    # Other meld rules are not tabled: jokers only.
    assert hand_luck(dealt, Rules.classic(opening_points=40)).meld_ready is None


def test_levels() -> None:
    assert [level_of(needed)["number"] for needed, _ in LEVELS] == list(range(1, 11))
    assert level_of(LEVELS[3][0] - 1) == {
        "number": 3,
        "name": "apprentice",
        "xp_from": LEVELS[2][0],
        "next_at": LEVELS[3][0],
    }


def expected_figures(
    game: Game, actions: list[Any], deals: list[list[Any]], seat: int, rules: Rules
) -> dict[str, Any]:
    """A seat's statistics worked out from the game itself, by the documented table."""
    rounds = [(r, d[seat]) for r, d in zip(game.results, deals, strict=True) if d[seat]]
    won = [r for r, _ in rounds if r.winner == seat]
    rummies = sum(1 for r in won if r.hand_rummy)
    game_won = seat in game.winners
    xp = 20 + 50 * game_won + 10 * len(rounds) + 20 * len(won) + 20 * rummies
    hands: list[tuple[Card, ...]] = [hand for _, hand in rounds]
    return {
        "games": 1,
        "wins": int(game_won),
        "rounds_played": len(rounds),
        "rounds_won": len(won),
        "hand_rummies": rummies,
        "knocks": sum(1 for a in actions if isinstance(a, Knock) and a.seat == seat),
        "penalty": sum(r.penalties[seat] for r, _ in rounds),
        "biggest_win": max((sum(r.penalties) for r in won), default=0),
        "xp": xp,
        "jokers": sum(h.count(JOKER) for h in hands),
        "meld_ready": sum(bool(hand_luck(h, rules).meld_ready) for h in hands),
        "hands": len(hands),
    }


async def finished(
    store: Store, rules: Rules, players: list[PlayerRecord], seed: bytes
) -> tuple[Game, list[Any], list[list[Any]], list[float]]:
    game, actions, deals = played(rules, len(players), seed)
    table = await store.create_table(players[0].id, {}, rules.to_json(), [], seed)
    await store.update_table(table, status="playing")
    await store.append_actions(table, 1, [a.to_json() for a in actions])
    for _ in range(2):  # the second call changes nothing
        changes = await store.finish_game(
            table,
            winners=list(game.winners),
            totals=list(game.totals),
            seat_players=[p.id for p in players],
            results=[r.to_json() for r in game.results],
        )
    return game, actions, deals, [changes[str(s)]["after"] for s in range(len(players))]


@pytest.mark.asyncio
async def test_statistics_of_played_games(store: Store) -> None:
    store.chip_policy = OPEN_POLICY
    names = ["Anna", "Ben", "Cleo", "Dirk"]
    players = [await store.register(name, "password1") for name in names]
    # Find a knocking game in which somebody knocks, to count knocks too.
    seed = next(
        s
        for s in (bytes([i]) * 32 for i in range(1, 40))
        if any(isinstance(a, Knock) for a in played(KNOCKING, 4, s)[1])
    )
    # The platform's card luck is kept between requests, and computed again as
    # each game's result is recorded.
    assert (await store.platform_card_luck())["hands"] == 0
    classic = await finished(store, KNOCKING, players, seed)
    after_one = await store.platform_card_luck()
    assert after_one["hands"] == sum(len([h for h in d if h]) for d in classic[2])
    three = await finished(store, Rules.three_rounds(), players, b"t" * 32)
    for seat, name in enumerate(names):
        info = await store.player_info(name)
        assert info is not None
        parts = [
            (preset, expected_figures(*game[:3], seat, rules))
            for preset, game, rules in (
                ("classic", classic, KNOCKING),
                ("three-rounds", three, Rules.three_rounds()),
            )
        ]
        for preset, want in parts:
            got = info["stats"][preset]
            assert {k: got[k] for k in ("games", "wins", "rounds_played", "rounds_won")} == {
                k: want[k] for k in ("games", "wins", "rounds_played", "rounds_won")
            }
            assert (got["hand_rummies"], got["knocks"], got["biggest_win"], got["xp"]) == (
                want["hand_rummies"],
                want["knocks"],
                want["biggest_win"],
                want["xp"],
            )
            assert got["average_penalty"] == round(want["penalty"] / want["rounds_played"], 1)
            assert got["win_rate"] == want["wins"]
        total_xp = sum(want["xp"] for _, want in parts)
        assert info["xp"] == total_xp and info["level"] == level_of(total_xp)
        record = await store.get_player(players[seat].id)
        assert record is not None and record.xp == total_xp
        assert record.to_json()["level"] == level_of(total_xp)["number"]
        overall = info["stats"]["overall"]
        assert overall["games"] == 2 and overall["xp"] == total_xp
        after = [classic[3][seat], three[3][seat]]
        assert info["stats"]["classic"]["best_rating"] == after[0]
        assert info["stats"]["three-rounds"]["best_rating"] == after[1] == info["rating"]
        assert overall["best_rating"] == max(after) and info["stats"]["rating"] == after[1]
        luck = info["stats"]["card_luck"]
        assert luck["hands"] == sum(want["hands"] for _, want in parts)
        assert luck["jokers"] == sum(want["jokers"] for _, want in parts)
        assert luck["meld_ready"] == sum(want["meld_ready"] for _, want in parts)
        mean, variance = joker_odds(13)
        assert luck["jokers_expected"] == round(mean * luck["hands"], 1)
        assert luck["jokers_spread"] == round(math.sqrt(variance * luck["hands"]), 1)
    assert sum(expected_figures(*classic[:3], s, KNOCKING)["knocks"] for s in range(4)) > 0

    platform = await store.platform_card_luck()
    assert platform["players"] == 4 and platform["hands"] > after_one["hands"]
    assert platform["hands"] == sum(len([h for h in d if h]) for d in classic[2] + three[2])

    ranking = await store.level_ranking(2, players[3].id)
    xp = sorted([(await store.player_statistics(p.id))["xp"] for p in players], reverse=True)
    assert [row["xp"] for row in ranking["rankings"]] == xp[:2]
    mine = (await store.player_statistics(players[3].id))["xp"]
    assert ranking["me"]["nickname"] == "Dirk" and ranking["me"]["xp"] == mine
    assert ranking["me"]["rank"] == 1 + sum(1 for x in xp if x > mine)
    position = await store.rating_position(players[0].id)
    table = await store.rankings(10)
    assert position is not None
    assert position == next(row for row in table if row["nickname"] == "Anna")


async def statistics_rows(store: Store) -> tuple[list[Any], list[Any]]:
    """Every statistics row (floats to 9 places) and every player's XP."""
    async with store._engine.connect() as connection:
        rows = (await connection.execute(select(PlayerStatistics.__table__))).all()
        xp = (await connection.execute(select(Player.id, Player.xp).order_by(Player.id))).all()
    rounded = [tuple(round(v, 9) if isinstance(v, float) else v for v in row) for row in rows]
    return sorted(rounded), list(xp)


@pytest.mark.asyncio
async def test_the_migration_counts_the_games_finished_before_it(store: Store) -> None:
    players = [await store.register(name, "password1") for name in ("Anna", "Ben", "Cleo")]
    await finished(store, KNOCKING, players, b"k" * 32)
    await finished(store, KNOCKING, players[:2], b"m" * 32)
    counted = await statistics_rows(store)
    assert len(counted[0]) == 3 and all(xp > 0 for _, xp in counted[1])

    def down_and_up(connection: Connection) -> None:
        command.downgrade(alembic_config(connection=connection), "r0005")
        command.upgrade(alembic_config(connection=connection), "head")

    async with writer(store._engine).begin() as connection:
        await connection.run_sync(down_and_up)
    assert await statistics_rows(store) == counted


@pytest.mark.asyncio
async def test_a_kept_figure_is_computed_again_when_old_or_outdated() -> None:
    now = [0.0]
    fresh: Fresh[int] = Fresh(60, clock=lambda: now[0])
    computed: list[int] = []

    async def compute() -> int:
        computed.append(len(computed))
        return computed[-1]

    assert [await fresh.get(0, compute) for _ in range(3)] == [0, 0, 0]
    now[0] = 59.9
    assert await fresh.get(0, compute) == 0
    now[0] = 60.0  # too old
    assert await fresh.get(0, compute) == 1
    assert await fresh.get(1, compute) == 2  # what it is computed from changed
    assert await fresh.get(1, compute) == 2 and computed == [0, 1, 2]
