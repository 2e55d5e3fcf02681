"""Statistics, experience, levels, rankings and card luck over HTTP: two
registered players play a game to its end and every figure moves exactly as
docs/protocol.md ("Statistics, experience and levels") says."""

from __future__ import annotations

import math
from typing import Any

import pytest

from romme.engine.cardluck import hand_luck, joker_odds
from romme.engine.cards import JOKER, parse_cards
from romme.engine.rules import Rules

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, create_table, play_out

pytestmark = pytest.mark.asyncio


async def registered(client: Client) -> Client:
    answer = await client.http.post(
        "/api/register", json={"nickname": client.nickname, "password": "lang-genug-1"}
    )
    assert answer.status_code == 200, answer.text
    client.player = answer.json()["player"]
    return await client.connect()


def expected_xp(results: list[dict[str, Any]], seat: int, won: bool) -> int:
    """The documented table: 10 a round, +20 for going out, +20 more for hand
    rummy; 20 the game, +50 for winning it."""
    xp = 20 + 50 * won
    for result in results:
        xp += 10
        if result["winner"] == seat:
            xp += 20 + 20 * result["hand_rummy"]
    return xp


async def test_a_game_moves_statistics_experience_and_rankings(
    make_server: ServerFactory,
) -> None:
    # Ranked from the first game (docs/chips.md: established accounts).
    server = make_server(
        "sqlite",
        time_scale=10,
        extra=["--chip-established-games", "1", "--chip-established-hours", "0"],
    )
    anna, ben = [await registered(Client(server, nickname(p))) for p in ("st", "st")]
    me = (await anna.http.get("/api/me")).json()
    assert me["xp"] == 0 and me["level"] == {
        "number": 1,
        "name": "newcomer",
        "xp_from": 0,
        "next_at": 100,
    }
    assert me["player"]["level"] == 1 and me["stats"]["overall"]["games"] == 0
    assert me["stats"]["overall"]["win_rate"] is None
    empty = (await anna.http.get("/api/rankings?by=level")).json()
    assert empty == {"rankings": [], "me": None}
    # The platform's card luck is kept between requests, and computed anew once a
    # game's result is recorded (below).
    assert (await anna.http.get("/api/stats/cards")).json()["hands"] == 0
    refused = await anna.http.get("/api/rankings?by=luck")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "no_such_ranking"

    table = await create_table(anna, seats=2, point_limit=1)
    assert (await ben.request({"type": "join_table", "table": table}))["type"] == "table"
    seats = ben.tables[table]["seats"]
    assert [s["level"] for s in seats] == [1, 1]
    assert (await anna.request({"type": "start_game", "table": table}))["type"] == "ok"
    await play_out([Autoplayer(c, table) for c in (anna, ben)])
    winners = anna.tables[table]["game_over"]["winners"]

    replay = (await anna.http.get(f"/api/games/{table}/replay")).json()
    results = replay["results"]
    dealt = [
        [parse_cards(" ".join(hand)) for hand in position["hands"]]
        for position in replay["positions"]
        if position["action"] and position["action"]["type"] == "next_round"
    ]
    assert len(dealt) == len(results) >= 1
    rules = Rules.from_json(replay["rules"])
    xps = []
    for seat, client in enumerate((anna, ben)):
        info = (await anna.http.get(f"/api/players/{client.nickname}")).json()
        won = seat in winners
        xp = expected_xp(results, seat, won)
        xps.append(xp)
        assert info["xp"] == xp and info["level"]["number"] == (2 if xp >= 100 else 1)
        classic = info["stats"]["classic"]
        assert classic == info["stats"]["overall"]
        assert info["stats"]["three-rounds"]["games"] == 0
        rounds_won = sum(1 for r in results if r["winner"] == seat)
        penalties = sum(r["penalties"][seat] for r in results)
        assert classic == {
            "games": 1,
            "wins": int(won),
            "win_rate": float(won),
            "rounds_played": len(results),
            "rounds_won": rounds_won,
            "hand_rummies": sum(1 for r in results if r["winner"] == seat and r["hand_rummy"]),
            "knocks": 0,
            "average_penalty": round(penalties / len(results), 1),
            "biggest_win": max(
                (sum(r["penalties"]) for r in results if r["winner"] == seat), default=0
            ),
            "best_rating": info["rating"],
            "xp": xp,
        }
        hands = [deal[seat] for deal in dealt]
        mean, variance = joker_odds(13)
        ready = [hand_luck(hand, rules) for hand in hands]
        odds = ready[0].meld_ready_mean or 0.0
        assert info["stats"]["card_luck"] == {
            "hands": len(hands),
            "jokers": sum(hand.count(JOKER) for hand in hands),
            "jokers_expected": round(mean * len(hands), 1),
            "jokers_spread": round(math.sqrt(variance * len(hands)), 1),
            "meld_ready_hands": len(hands),
            "meld_ready": sum(bool(r.meld_ready) for r in ready),
            "meld_ready_expected": round(odds * len(hands), 1),
            "meld_ready_spread": round(math.sqrt(odds * (1 - odds) * len(hands)), 1),
        }
        mine = (await client.http.get("/api/me")).json()
        assert (mine["xp"], mine["level"], mine["stats"]) == (xp, info["level"], info["stats"])

    cards = (await anna.http.get("/api/stats/cards")).json()
    assert cards["players"] == 2 and cards["hands"] == 2 * len(results)

    by_level = (await ben.http.get("/api/rankings?by=level&limit=1")).json()
    assert [row["xp"] for row in by_level["rankings"]] == [max(xps)]
    if xps[0] != xps[1]:
        top = anna if xps[0] > xps[1] else ben
        assert by_level["rankings"][0]["nickname"] == top.nickname
    assert by_level["me"]["nickname"] == ben.nickname and by_level["me"]["xp"] == xps[1]
    assert by_level["me"]["rank"] == (2 if xps[0] > xps[1] else 1)
    assert by_level["me"]["level"] == (2 if xps[1] >= 100 else 1)
    by_rating = (await ben.http.get("/api/rankings?limit=1")).json()
    if len(winners) == 1:  # the winner stands above the other
        top = (anna, ben)[winners[0]]
        assert by_rating["rankings"][0]["nickname"] == top.nickname
        assert by_rating["me"]["rank"] == (2 if top is anna else 1)
    assert by_rating["me"]["nickname"] == ben.nickname
    assert by_rating["me"]["rating"] == (await ben.http.get("/api/me")).json()["player"]["rating"]
    # A new session shows the level the experience reached.
    count = len(anna.messages)
    assert anna.ws is not None
    await anna.ws.close()
    await anna.connect()
    welcome = await anna.expect("welcome", start=count)
    assert welcome["player"]["level"] == (2 if xps[0] >= 100 else 1)
    for client in (anna, ben):
        await client.close()
