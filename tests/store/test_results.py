"""Finished games: results, statistics, ratings, player info, rankings and the
public game log."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from romme.engine.actions import action_from_json
from romme.engine.fairness import commitment_of, deal_from_seed, verify_deal
from romme.engine.game import Game
from romme.engine.reference import play_game
from romme.engine.rules import Rules
from romme.store import PlayerRecord, Store
from romme.store.ratings import places

from .helpers import OPEN_POLICY, FakeClock, refused, snapshot

SEED = bytes(range(32))


async def play(
    store: Store, players: list[PlayerRecord], winners: list[int], totals: list[int]
) -> tuple[int, dict[str, dict[str, float]]]:
    """A table whose game ends with these winners and totals."""
    table = await store.create_table(players[0].id, {}, {}, [], SEED)
    await store.update_table(table, status="playing")
    await store.append_actions(table, 1, [{"type": "next_round"}])
    changes = await store.finish_game(
        table,
        winners=winners,
        totals=totals,
        seat_players=[p.id for p in players],
        results=[{"round_no": 1, "totals": totals}],
    )
    return table, changes


async def registered(store: Store, *names: str) -> list[PlayerRecord]:
    return [await store.register(name, "password1") for name in names]


def test_places_from_winners_then_totals() -> None:
    assert places([0], [0, 50]) == [1, 2]
    assert places([1], [0, 101]) == [2, 1]  # the winner comes first, whatever its total
    assert places([0, 2], [90, 130, 90, 120]) == [1, 4, 1, 3]
    assert places([3], [110, 105, 110, 20]) == [3, 2, 3, 1]


@pytest.mark.asyncio
async def test_finish_game(store: Store) -> None:
    anna, ben = await registered(store, "Anna", "Ben")
    table, changes = await play(store, [anna, ben], winners=[0], totals=[12, 104])
    assert set(changes) == {"0", "1"}
    # New players start at 1500; one game moves them by a few dozen points.
    assert changes["0"]["before"] == 1500 and changes["1"]["before"] == 1500
    assert 1600 > changes["0"]["after"] > 1500 > changes["1"]["after"] > 1400
    anna2 = await store.get_player(anna.id)
    ben2 = await store.get_player(ben.id)
    assert anna2 is not None and ben2 is not None
    assert (anna2.games_played, anna2.games_won) == (1, 1)
    assert (ben2.games_played, ben2.games_won) == (1, 0)
    assert anna2.mu > anna.mu and ben2.mu < ben.mu
    assert anna2.sigma < anna.sigma and ben2.sigma < ben.sigma
    assert anna2.to_json()["rating"] == changes["0"]["after"]
    assert anna2.rating == pytest.approx(anna2.mu - 3 * anna2.sigma)
    record = await store.get_table(table)
    assert record is not None and record.status == "finished"
    assert await store.unfinished_tables() == []


@pytest.mark.asyncio
async def test_finish_game_is_idempotent(store: Store) -> None:
    anna, ben = await registered(store, "Anna", "Ben")
    table, changes = await play(store, [anna, ben], winners=[0], totals=[0, 30])
    before = await snapshot(store)
    again = await store.finish_game(
        table, winners=[1], totals=[90, 0], seat_players=[anna.id, ben.id], results=[]
    )
    assert again == changes
    assert await snapshot(store) == before


@pytest.mark.asyncio
async def test_concurrent_finish_counts_once(store: Store) -> None:
    anna, ben = await registered(store, "Anna", "Ben")
    table = await store.create_table(anna.id, {}, {}, [], SEED)
    results = await asyncio.gather(
        *(
            store.finish_game(
                table, winners=[0], totals=[0, 30], seat_players=[anna.id, ben.id], results=[]
            )
            for _ in range(4)
        )
    )
    assert all(r == results[0] for r in results)
    anna2 = await store.get_player(anna.id)
    assert anna2 is not None and (anna2.games_played, anna2.games_won) == (1, 1)


@pytest.mark.asyncio
async def test_ratings_move_the_right_way_over_several_games(store: Store) -> None:
    store.chip_policy = OPEN_POLICY
    strong, middle, weak = await registered(store, "Strong", "Middle", "Weak")
    history: list[dict[str, dict[str, float]]] = []
    for _ in range(6):
        _, changes = await play(store, [strong, middle, weak], winners=[0], totals=[5, 60, 120])
        history.append(changes)
    for changes in history:
        assert changes["0"]["after"] > changes["0"]["before"]
        assert changes["2"]["after"] < changes["2"]["before"]
        # each game's "before" is the previous game's "after"
    for previous, following in itertools.pairwise(history):
        for seat in "012":
            assert following[seat]["before"] == previous[seat]["after"]
    s, m, w = [await store.get_player(p.id) for p in (strong, middle, weak)]
    assert s is not None and m is not None and w is not None
    assert s.rating > m.rating > w.rating
    assert s.sigma < strong.sigma and w.sigma < weak.sigma
    assert (s.games_played, s.games_won, w.games_won) == (6, 6, 0)
    # the underdog's win moves the ratings more than the favourite's
    _, upset = await play(store, [strong, weak], winners=[1], totals=[40, 0])
    _, expected = await play(store, [strong, weak], winners=[0], totals=[0, 40])
    gain_upset = upset["1"]["after"] - upset["1"]["before"]
    gain_expected = expected["0"]["after"] - expected["0"]["before"]
    assert gain_upset > gain_expected > 0


@pytest.mark.asyncio
async def test_guests_are_rated_but_their_rating_is_not_kept(store: Store) -> None:
    (anna,) = await registered(store, "Anna")
    guest = await store.create_guest("Gast")
    bot = await store.bot_player("casual")
    _, changes = await play(store, [guest, anna, bot], winners=[0], totals=[0, 50, 70])
    assert set(changes) == {"1", "2"}  # the guest's seat has no kept rating
    assert changes["1"]["after"] > changes["2"]["after"]
    assert changes["2"]["after"] < 1500  # last place
    guest2 = await store.get_player(guest.id)
    assert guest2 is not None
    assert (guest2.mu, guest2.sigma, guest2.rating) == (guest.mu, guest.sigma, 0.0)
    assert (guest2.games_played, guest2.games_won) == (1, 1)
    bot2 = await store.get_player(bot.id)
    assert bot2 is not None and bot2.games_played == 1 and bot2.rating < 0


@pytest.mark.asyncio
async def test_one_bot_in_several_seats(store: Store) -> None:
    (anna,) = await registered(store, "Anna")
    bot = await store.bot_player("beginner")
    _, changes = await play(store, [anna, bot, bot], winners=[1], totals=[60, 0, 90])
    assert set(changes) == {"0", "1", "2"}
    assert changes["1"] == changes["2"]  # one account, one rating
    bot2 = await store.get_player(bot.id)
    assert bot2 is not None and (bot2.games_played, bot2.games_won) == (1, 1)
    info = await store.player_info("Bot beginner")
    assert info is not None
    assert info["recent"] == [
        {
            "game": info["recent"][0]["game"],
            "finished_at": info["recent"][0]["finished_at"],
            "won": True,
            "place": 1,
            "players": 3,
        }
    ]


@pytest.mark.asyncio
async def test_a_level_between_two_named_ones_has_its_own_account(store: Store) -> None:
    (anna,) = await registered(store, "Anna")
    mixed = await store.bot_player("casual+40")
    assert mixed.nickname == "Bot casual+40" and mixed.id != (await store.bot_player("casual")).id
    assert (await store.bot_player("casual+40")).id == mixed.id
    _, changes = await play(store, [anna, mixed], winners=[1], totals=[60, 0])
    assert changes["1"]["after"] > changes["1"]["before"]
    info = await store.player_info("Bot casual+40")
    assert info is not None and info["games_won"] == 1


@pytest.mark.asyncio
async def test_finish_game_refusals(store: Store) -> None:
    anna, ben = await registered(store, "Anna", "Ben")
    table = await store.create_table(anna.id, {}, {}, [], SEED)
    ids = [anna.id, ben.id]

    async def check(code: str, table_id: int = table, **kwargs: object) -> None:
        args: dict[str, object] = {
            "winners": [0],
            "totals": [0, 10],
            "seat_players": ids,
            "results": [],
        }
        args.update(kwargs)
        await refused(store, code, store.finish_game(table_id, **args))  # type: ignore[arg-type]

    await check("no_such_table", table_id=999)
    await check("no_such_player", seat_players=[anna.id, 999])
    await check("bad_message", seat_players=[anna.id])
    await check("bad_message", seat_players=[anna.id, ben.id, anna.id, ben.id, anna.id])
    await check("bad_message", seat_players=[anna.id, None])
    await check("bad_message", totals=[0])
    await check("bad_message", totals=[0, "10"])
    await check("bad_message", winners=[2])
    await check("bad_message", winners=[0, 0])
    await check("bad_message", results=[{"x": float("nan")}])
    record = await store.get_table(table)
    assert record is not None and record.status == "waiting"


# -------------------------------------------------------- player info, rankings


@pytest.mark.asyncio
async def test_player_info(store: Store, clock: FakeClock) -> None:
    anna, ben = await registered(store, "Anna", "Ben")
    tables = []
    for game in range(12):
        winner = 0 if game % 3 else 1
        table, _ = await play(store, [anna, ben], winners=[winner], totals=[10, 10])
        tables.append(table)
        clock.advance(minutes=5)
    info = await store.player_info("ANNA")
    assert info is not None
    assert set(info) == {
        "nickname",
        "guest",
        "games_played",
        "games_won",
        "rating",
        "recent",
        "xp",
        "level",
        "stats",
    }
    assert (info["nickname"], info["guest"]) == ("Anna", False)
    assert (info["games_played"], info["games_won"]) == (12, 8)
    player = await store.get_player(anna.id)
    assert player is not None and info["rating"] == player.to_json()["rating"]
    recent = info["recent"]
    assert [r["game"] for r in recent] == tables[::-1][:10]
    assert all(set(r) == {"game", "finished_at", "won", "place", "players"} for r in recent)
    newest = recent[0]
    assert newest["won"] is True and newest["place"] == 1 and newest["players"] == 2
    assert recent[2]["won"] is False and recent[2]["place"] == 2
    assert newest["finished_at"].endswith("Z") and newest["finished_at"] > recent[1]["finished_at"]


@pytest.mark.asyncio
async def test_player_info_of_a_new_guest(store: Store) -> None:
    await store.create_guest("Gast")
    info = await store.player_info("gast")
    assert info is not None and info.pop("xp") == 0 and info.pop("level")["number"] == 1
    assert info.pop("stats")["overall"]["games"] == 0
    assert info == {
        "nickname": "Gast",
        "guest": True,
        "games_played": 0,
        "games_won": 0,
        "rating": 1500,
        "recent": [],
    }


@pytest.mark.asyncio
async def test_rankings(store: Store) -> None:
    store.chip_policy = OPEN_POLICY
    anna, ben, cleo = await registered(store, "Anna", "Ben", "Cleo")
    await registered(store, "Idle")  # never played: not ranked
    guest = await store.create_guest("Gast")
    bot = await store.bot_player("strong")
    for _ in range(3):
        await play(store, [anna, ben, bot, guest], winners=[0], totals=[0, 20, 40, 60])
    await play(store, [cleo, ben], winners=[1], totals=[50, 0])
    rankings = await store.rankings()
    names = [r["nickname"] for r in rankings]
    assert "Gast" not in names and "Idle" not in names
    assert names[0] == "Anna"
    assert set(names) == {"Anna", "Ben", "Cleo"}  # people only: not the computer
    assert [r["rank"] for r in rankings] == sorted(r["rank"] for r in rankings)
    assert rankings[0] == {
        "rank": 1,
        "nickname": "Anna",
        "rating": rankings[0]["rating"],
        "games_played": 3,
        "games_won": 3,
        "bot": False,
    }
    assert [r["rating"] for r in rankings] == sorted((r["rating"] for r in rankings), reverse=True)
    assert not any(r["bot"] for r in rankings)
    assert await store.rankings(limit=2) == rankings[:2]
    assert await store.rankings(limit=0) == []
    await refused(store, "bad_message", store.rankings(limit=-1))


@pytest.mark.asyncio
async def test_equal_ratings_share_a_rank(store: Store) -> None:
    store.chip_policy = OPEN_POLICY
    anna, ben, cleo, dora = await registered(store, "Anna", "Ben", "Cleo", "Dora")
    await play(store, [anna, ben], winners=[0], totals=[0, 10])
    await play(store, [cleo, dora], winners=[0], totals=[0, 10])
    ranks = {r["nickname"]: r["rank"] for r in await store.rankings()}
    assert ranks == {"Anna": 1, "Cleo": 1, "Ben": 3, "Dora": 3}


# ------------------------------------------------------------------ game log


@pytest.mark.asyncio
async def test_game_log_of_a_real_game_can_be_replayed_and_verified(store: Store) -> None:
    anna = (await registered(store, "Anna"))[0]
    bot = await store.bot_player("casual")
    rules = Rules.classic(point_limit=1)
    table = await store.create_table(anna.id, {"point_limit": 1}, rules.to_json(), [], SEED)
    await store.update_table(table, status="playing")
    assert await store.game_log(table) is None  # not finished: the seed stays secret

    game = Game(rules, 2, SEED)
    actions = [a.to_json() for a in play_game(game)]
    await store.append_actions(table, 1, actions[:1])
    for version in range(2, len(actions) + 1, 5):  # in batches, as a table might
        await store.append_actions(table, version, actions[version - 1 : version + 4])
    await store.finish_game(
        table,
        winners=list(game.winners),
        totals=list(game.totals),
        seat_players=[anna.id, bot.id],
        results=[r.to_json() for r in game.results],
    )

    log = await store.game_log(table)
    assert log is not None
    assert set(log) == {
        "id",
        "rules",
        "seats",
        "winners",
        "started_at",
        "finished_at",
        "match_seed",
        "rounds",
        "actions",
    }
    assert log["id"] == table and log["rules"] == rules.to_json()
    assert log["winners"] == list(game.winners)
    assert log["match_seed"] == SEED.hex()
    assert log["actions"] == actions
    assert log["seats"] == [
        {"seat": 0, "nickname": "Anna", "bot": None, "connected": False, "away": False},
        {"seat": 1, "nickname": "Bot casual", "bot": "casual", "connected": False, "away": False},
    ]
    assert log["started_at"] <= log["finished_at"]
    assert [r["round_no"] for r in log["rounds"]] == list(range(1, game.round_no + 1))
    for round_info, result in zip(log["rounds"], game.results, strict=True):
        assert round_info["seed"] == result.seed
        assert (
            round_info["commitment"]
            == result.commitment
            == commitment_of(bytes.fromhex(round_info["seed"]))
        )
    replayed = Game.replay(
        Rules.from_json(log["rules"]),
        2,
        bytes.fromhex(log["match_seed"]),
        [action_from_json(a) for a in log["actions"]],
    )
    assert replayed.to_json() == game.to_json()
    first = log["rounds"][0]
    deal = deal_from_seed(bytes.fromhex(first["seed"]), 2)
    assert verify_deal(first["seed"], first["commitment"], deal.hands, deal.upcard)


@pytest.mark.asyncio
async def test_game_log_only_for_finished_games(store: Store) -> None:
    anna = await store.create_guest("Anna")
    table = await store.create_table(anna.id, {}, {}, [], SEED)
    assert await store.game_log(table) is None
    await store.update_table(table, status="finished")  # finished without a result
    assert await store.game_log(table) is None
    assert await store.game_log(404) is None
    assert await store.game_log("1") is None  # type: ignore[arg-type]
