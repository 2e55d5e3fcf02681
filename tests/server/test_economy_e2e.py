"""The rules of the play-money economy over the protocol, with a real server on
PostgreSQL and SQLite (docs/chips.md): chips in a pot count for the bonus; a
game given up at once is void (stakes back, nothing counted) and one given up
later is a loss in every figure, never the leaver's win; the stake limits of
guests, of one address and of one pair; the rankings are of people and the
ranking of chips won lists only chips won."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from typing import Any

import pytest

from romme.engine.actions import Action, Draw
from romme.engine.reference import reference_action
from romme.engine.view import SeatView

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, create_table

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

OPEN = ["--accounts-per-hour", "0", "--chip-established-games", "1"]
OPEN += ["--chip-established-hours", "0"]


async def _me(client: Client) -> dict[str, Any]:
    return dict((await client.http.get("/api/me")).json())


async def _registered(server: Any, prefix: str) -> Client:
    client = await Client(server, nickname(prefix)).register("password123")
    return await client.connect()


async def _finished(client: Client, table: int, timeout: float = 120) -> dict[str, Any]:
    """The finished game's log, once the server has stored its result."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = await client.http.get(f"/api/games/{table}")
        if answer.status_code == 200:
            return dict(answer.json())
        await asyncio.sleep(0.2)
    raise AssertionError(f"game {table} did not finish in {timeout}s")


async def _staked_against_a_bot(client: Client, stake: int, point_limit: int = 1) -> int:
    table = await create_table(client, stake=stake, point_limit=point_limit, turn_seconds=120)
    started = await client.request({"type": "start_game", "table": table, "fill": "strong"})
    assert started.get("type") != "error", started
    await client.expect("update", lambda m: m.get("table") == table and bool(m.get("view")))
    return table


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
async def test_chips_in_a_pot_count_for_the_bonus(make_server: ServerFactory, backend: str) -> None:
    server = make_server(backend, time_scale=10, extra=[*OPEN, "--chip-guest-stake-max", "10000"])
    player = await (await Client(server, nickname("pot")).guest()).connect()
    assert (await _me(player))["chips"] == 10_000
    await _staked_against_a_bot(player, 6_000)
    state = (await player.http.get("/api/bonus")).json()
    assert (state["chips"], state["in_pots"], state["bonus"]["due"]) == (4_000, 6_000, False)
    refused = await player.http.post("/api/bonus", json={})
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "bonus_not_needed"
    assert (await _me(player))["chips"] == 4_000
    await player.close()


async def test_a_game_given_up_at_once_is_void(make_server: ServerFactory) -> None:
    server = make_server("postgresql", time_scale=10, extra=OPEN)
    player = await _registered(server, "void")
    table = await _staked_against_a_bot(player, 900)
    assert (await _me(player))["chips"] == 9_100
    assert (await player.request({"type": "leave_table", "table": table}))["type"] == "left_table"
    await _finished(player, table)
    me = await _me(player)
    assert me["chips"] == 10_000  # the stake came back
    info = (await player.http.get(f"/api/players/{player.nickname}")).json()
    assert (info["games_played"], info["games_won"], info["rating"]) == (0, 0, 1500)
    assert me["xp"] == 0 and me["stats"]["overall"]["games"] == 0
    ledger = (await player.http.get(f"/api/players/{player.nickname}/ledger")).json()
    assert [(m["reason"], m["amount"]) for m in ledger["movements"][:2]] == [
        ("refund", 900),
        ("stake", -900),
    ]
    assert info["recent"] == [] and info["stats"]["chips_lost"] == 0
    await player.close()


async def test_a_seat_given_up_later_is_a_loss_in_every_figure(
    make_server: ServerFactory,
) -> None:
    server = make_server("postgresql", time_scale=10, extra=OPEN)
    player = await _registered(server, "quit")
    # Rounds to 60 points: the game lasts longer than the player's first turns.
    table = await _staked_against_a_bot(player, 900, point_limit=60)
    draws = []

    def drawing(view: SeatView) -> Action | None:
        action = reference_action(view)
        if isinstance(action, Draw):
            draws.append(view.round_no)
        return action

    seat = Autoplayer(player, table, policy=drawing)
    deadline = time.monotonic() + 120
    while len(draws) < 4:  # more turns of its own than VOID_TURNS
        await seat.step()
        assert time.monotonic() < deadline, "the player's turns did not come"
        assert player.tables[table].get("status") != "finished", "the game ended too soon"
        await asyncio.sleep(0.02)
    assert (await player.request({"type": "leave_table", "table": table}))["type"] == "left_table"
    result = await _finished(player, table, timeout=300)
    me = await _me(player)
    assert me["chips"] == 9_100  # the stake is lost, whoever won the seat's cards
    info = (await player.http.get(f"/api/players/{player.nickname}")).json()
    assert (info["games_played"], info["games_won"]) == (1, 0)
    assert me["xp"] == 0 and info["rating"] < 1500
    assert (me["stats"]["overall"]["games"], me["stats"]["overall"]["wins"]) == (1, 0)
    assert [(g["game"], g["won"]) for g in info["recent"]] == [(table, False)]
    assert info["recent"][0]["place"] == 2
    assert len(draws) >= 4 and result["winners"] is not None
    assert info["stats"]["chips_lost"] == 900
    assert result["id"] == table
    chips = (await player.http.get("/api/rankings?by=chips_month")).json()
    assert all(row["chips"] > 0 for row in chips["rankings"])
    assert player.nickname not in [row["nickname"] for row in chips["rankings"]]
    for by in ("rating", "level"):
        rows = (await player.http.get(f"/api/rankings?by={by}")).json()["rankings"]
        assert not any(row["bot"] for row in rows), by
        assert player.nickname in [row["nickname"] for row in rows], by
    await player.close()


async def test_stake_limits_of_guests_addresses_and_pairs(make_server: ServerFactory) -> None:
    strict = make_server("sqlite", time_scale=10, extra=["--accounts-per-hour", "0"])
    guest = await (await Client(strict, nickname("lim")).guest()).connect()
    over = await guest.request({"type": "create_table", "settings": {"stake": 101}})
    assert (over["type"], over["code"]) == ("error", "stake_limit")
    # Two people from one address (every test client is 127.0.0.1) at one staked table.
    other = await (await Client(strict, nickname("lim")).guest()).connect()
    table = await create_table(guest, stake=100, point_limit=1, turn_seconds=120)
    assert (await other.request({"type": "join_table", "table": table}))["type"] == "table"
    refused = await guest.request({"type": "start_game", "table": table})
    assert (refused["type"], refused["code"]) == ("error", "same_address")
    assert (await _me(guest))["chips"] == 10_000 == (await _me(other))["chips"]
    for client in (guest, other):
        await client.close()

    # One pair: one staked game a day here; the second start is refused.
    server = make_server(
        "sqlite",
        time_scale=10,
        extra=[*OPEN, "--chip-accounts-per-address", "0", "--chip-pair-staked-games", "1"],
    )
    anna = await (await Client(server, nickname("pa")).guest()).connect()
    ben = await (await Client(server, nickname("pb")).guest()).connect()
    table = await create_table(anna, stake=100, point_limit=1, turn_seconds=120)
    await ben.request({"type": "join_table", "table": table})
    assert (await anna.request({"type": "start_game", "table": table}))["type"] != "error"
    for client in (anna, ben):  # both give up at once: void, the stakes come back
        await client.request({"type": "leave_table", "table": table})
    await _finished(anna, table)
    assert (await _me(anna))["chips"] == 10_000 == (await _me(ben))["chips"]
    again = await create_table(anna, stake=100, point_limit=1, turn_seconds=120)
    await ben.request({"type": "join_table", "table": again})
    second = await anna.request({"type": "start_game", "table": again})
    assert (second["type"], second["code"]) == ("error", "stake_pair_limit")
    free = await create_table(anna, stake=0, point_limit=1, turn_seconds=120)
    await ben.request({"type": "join_table", "table": free})
    assert (await anna.request({"type": "start_game", "table": free}))["type"] != "error"
    for client in (anna, ben):
        await client.close()


async def test_the_house_and_the_signals_are_for_moderators(make_server: ServerFactory) -> None:
    server = make_server("sqlite", time_scale=10, extra=OPEN)
    player = await (await Client(server, nickname("hs")).guest()).connect()
    for path in ("/api/house", "/api/economy/signals"):
        answer = await player.http.get(path)
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_moderator"
    answer = await player.http.post("/api/economy/void", json={"game": 1})
    assert answer.json()["error"]["code"] == "not_moderator"

    moderator = await _registered(server, "mod")
    admin = [sys.executable, "-m", "romme", "admin", "--db", server.db_url]
    granted = subprocess.run(
        [*admin, "grant-moderator", moderator.nickname],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert granted.returncode == 0, granted.stderr
    await _staked_against_a_bot(player, 100)
    house = (await moderator.http.get("/api/house")).json()
    assert house == {
        "balance": 1_000_000_000 - 100,
        "float": 1_000_000_000,
        "in_pots": 100,
        "reserve_low": False,
    }
    assert (await moderator.http.get("/api/economy/signals")).json() == {"pairs": []}
    bad_days = await moderator.http.get("/api/economy/signals?days=x")
    assert bad_days.status_code == 400 and bad_days.json()["error"]["code"] == "bad_message"
    for body, code, status in (
        ({"game": "7"}, "bad_message", 400),
        ({"game": 999_999}, "no_such_game", 404),
        ({"game": 1, "note": 5}, "bad_message", 400),
    ):
        answer = await moderator.http.post("/api/economy/void", json=body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), body
    for client in (player, moderator):
        await client.close()
