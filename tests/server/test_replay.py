"""Game histories and replays over HTTP with a real server: a player's finished
games page newest first, every position of a finished game's replay is the
engine's, and bad requests get their documented errors."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from romme.engine.actions import action_from_json
from romme.engine.game import Game
from romme.engine.rules import Rules

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out

pytestmark = pytest.mark.asyncio

SINGLE_ROUND = {"seats": 2, "bots": {"1": "beginner"}, "point_limit": 1, "hand_rummy": True}


async def finished_game(client: Client) -> int:
    """A single-round game of ``client`` against a computer opponent, played out."""
    table = await create_table(client, **SINGLE_ROUND)
    assert (await client.request({"type": "start_game", "table": table}))["type"] == "ok"
    await play_out([Autoplayer(client, table)], timeout=120)
    return table


def error_of(answer: httpx.Response) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]["code"]


def check_positions(log: dict[str, Any], positions: list[dict[str, Any]]) -> None:
    """Each position is the engine's state after the log's actions, field by field."""
    game = Game(Rules.from_json(log["rules"]), len(log["seats"]), bytes.fromhex(log["match_seed"]))
    assert len(positions) == len(log["actions"]) + 1
    for index, position in enumerate(positions):
        action = None if index == 0 else log["actions"][index - 1]
        if action is not None:
            game.apply(action_from_json(action))
        state = game.to_json()
        assert position["action"] == action
        assert position["version"] == index == state["version"]
        shown = {"round_no", "phase", "dealer", "current", "hands", "discard", "melds"}
        shown |= {"meld_owners", "opened", "totals", "active"}
        for key in shown:
            assert position[key] == state[key], (index, key)
        assert position["stock_count"] == len(state["stock"])
        assert position["results"] == len(state["results"])
        assert set(position) == shown | {"version", "action", "stock_count", "results"}


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_history_pages_newest_first_and_replays_equal_the_engine(
    make_server: ServerFactory, backend: str
) -> None:
    server: ServerProcess = make_server(backend, time_scale=10)
    base = server.base
    client = Client(server, nickname("hist"))
    answer = await client.http.post(
        "/api/register", json={"nickname": client.nickname, "password": "secret-pass"}
    )
    assert answer.status_code == 200, answer.text
    await client.connect()
    first = await finished_game(client)
    second = await finished_game(client)
    unfinished = await create_table(client, **SINGLE_ROUND)
    await client.close()

    # Newest first, one game a page, then the rest after it.
    page = httpx.get(f"{base}/api/players/{client.nickname.upper()}/games?limit=1").json()
    assert page["nickname"] == client.nickname
    assert [g["game"] for g in page["games"]] == [second] and page["more"] is True
    entry = page["games"][0]
    log = httpx.get(f"{base}/api/games/{second}").json()
    assert entry["seats"][0]["nickname"] == client.nickname and entry["my_seats"] == [0]
    assert entry["seats"][1]["bot"] == "beginner"
    assert entry["winners"] == log["winners"] and entry["won"] == (0 in log["winners"])
    assert entry["rounds"] == len(log["rounds"]) == 1
    rest = httpx.get(f"{base}/api/players/{client.nickname}/games?limit=1&before={second}").json()
    assert [g["game"] for g in rest["games"]] == [first] and rest["more"] is False
    whole = httpx.get(f"{base}/api/players/{client.nickname}/games").json()
    assert [g["game"] for g in whole["games"]] == [second, first] and whole["more"] is False
    # The computer opponent's history holds both games too.
    bot = entry["seats"][1]["nickname"]
    bot_games = httpx.get(f"{base}/api/players/{bot}/games?limit=50").json()["games"]
    assert {first, second} <= {g["game"] for g in bot_games}

    # Each position of the replay is the engine's, and the deals are the logged seeds'.
    replay = httpx.get(f"{base}/api/games/{second}/replay")
    assert replay.status_code == 200
    data = replay.json()
    check_positions(log, data["positions"])
    assert data["rounds"] == log["rounds"] and data["winners"] == log["winners"]
    assert [r["seed"] for r in data["results"]] == [r["seed"] for r in log["rounds"]]
    assert data["positions"][-1]["phase"] == "game_over"
    assert httpx.get(f"{base}/api/games/{second}/replay").json() == data  # kept, the same

    # Bad requests: documented errors, never a 500.
    games = f"{base}/api/players/{client.nickname}/games"
    for query in ("limit=0", "limit=51", "limit=abc", "limit=1.5"):
        assert error_of(httpx.get(f"{games}?{query}")) == (400, "bad_message"), query
    for before in ("abc", "-1", "0", "99999999999", str(unfinished), "123456"):
        assert error_of(httpx.get(f"{games}?before={before}")) == (404, "no_such_game"), before
    outsider = nickname("none")
    assert error_of(httpx.get(f"{base}/api/players/{outsider}/games")) == (404, "no_such_player")
    for game in (str(unfinished), "abc", "0", "99999999999", "123456"):
        answer = httpx.get(f"{base}/api/games/{game}/replay")
        assert error_of(answer) == (404, "no_such_game"), game
