"""The analysis of a finished game over HTTP with a real server: two scripted
players finish a one-round game, one asks for the analysis, it is computed in
the bot workers and stored; every mark names a real decision of a human seat;
asking again starts nothing and gives the same marks; a game that has not
ended, a stranger and a visitor without a session are refused."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from romme.bots.analysis import AnalysisInput, analyse_game

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out

pytestmark = pytest.mark.asyncio


async def guest(server: ServerProcess, prefix: str) -> Client:
    return await (await Client(server, nickname(prefix)).guest()).connect()


async def finished_game(server: ServerProcess) -> tuple[list[Client], int]:
    clients = [await guest(server, "an"), await guest(server, "an")]
    table = await create_table(clients[0], seats=2, point_limit=1)
    reply = await clients[1].request({"type": "join_table", "table": table})
    assert reply["type"] == "table", reply
    assert (await clients[0].request({"type": "start_game", "table": table}))["type"] == "ok"
    await play_out([Autoplayer(c, table) for c in clients])
    return clients, table


async def wait_done(http: httpx.AsyncClient, table: int, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        answer = await http.get(f"/api/games/{table}/analysis")
        assert answer.status_code == 200, answer.text
        data: dict[str, Any] = answer.json()
        if data["status"] == "done":
            return data
        assert data["status"] == "pending", data
        assert time.monotonic() < deadline, f"analysis not done in {timeout}s: {data}"
        await asyncio.sleep(0.3)


@pytest.mark.slow
# PostgreSQL here; the refusals and the limits run on SQLite.
@pytest.mark.parametrize("backend", ["postgresql"])
async def test_analysis_of_a_finished_game(make_server: ServerFactory, backend: str) -> None:
    server = make_server(backend)
    clients, table = await finished_game(server)
    host = clients[0].http
    before = await host.get(f"/api/games/{table}/analysis")
    assert before.status_code == 200 and before.json() == {"game": table, "status": "none"}

    started = await host.post(f"/api/games/{table}/analysis")
    assert started.status_code == 202, started.text
    assert started.json()["status"] == "pending"
    # The other player asks while it runs (or just after): nothing new starts.
    again = await clients[1].http.post(f"/api/games/{table}/analysis")
    assert again.status_code == 200 and again.json()["status"] in ("pending", "done")

    done = await wait_done(host, table)
    log = (await host.get(f"/api/games/{table}")).json()
    actions = log["actions"]
    assert done["seats"] == [0, 1]
    analysed = [
        i
        for i, a in enumerate(actions)
        if a["type"] in ("draw", "lay", "discard") and a.get("seat") in (0, 1)
    ]
    assert done["decisions"] == len(analysed) > 0
    assert done["marks"], "the reference player never differs from the expert"
    for mark in done["marks"]:
        assert mark["move"] in analysed
        assert actions[mark["move"]] == mark["played"]
        assert mark["seat"] == mark["played"]["seat"] == mark["better"]["seat"]
        assert mark["kind"] == mark["played"]["type"]
        assert mark["played"] != mark["better"]
        assert mark["severity"] in ("inaccuracy", "mistake", "blunder")
        assert isinstance(mark["reason"], str) and isinstance(mark["params"], dict)
    assert [m["move"] for m in done["marks"]] == sorted(m["move"] for m in done["marks"])

    # The same marks as the analysis run here, in this process: nothing in them
    # depends on the worker, the machine or the time.
    local = analyse_game(AnalysisInput.from_log(log), {0, 1})
    assert [m.to_json() for m in local] == done["marks"]

    # Asking again (done) starts nothing and answers the stored marks.
    repeat = await clients[1].http.post(f"/api/games/{table}/analysis")
    assert repeat.status_code == 200 and repeat.json() == done
    # Computed exactly once, whoever asked and however often.
    runs = [
        line
        for line in server.logs().splitlines()
        if '"analysis_done"' in line and json.loads(line).get("game") == table
    ]
    assert len(runs) == 1, runs
    # Anyone may read it, like the game log.
    async with httpx.AsyncClient(base_url=server.base) as visitor:
        assert (await visitor.get(f"/api/games/{table}/analysis")).json() == done
    for client in clients:
        await client.close()


async def test_analysis_refusals(make_server: ServerFactory) -> None:
    server = make_server()
    clients, table = await finished_game(server)
    stranger = await guest(server, "st")
    refused = await stranger.http.post(f"/api/games/{table}/analysis")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_your_game"

    open_table = await create_table(clients[0], seats=2, point_limit=1)
    early = await clients[0].http.post(f"/api/games/{open_table}/analysis")
    assert early.status_code == 409 and early.json()["error"]["code"] == "game_not_finished"
    unknown = await clients[0].http.get(f"/api/games/{open_table}/analysis")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "no_such_game"
    for bad in ("999999", "abc", "12345678901"):
        answer = await clients[0].http.post(f"/api/games/{bad}/analysis")
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "no_such_game"

    async with httpx.AsyncClient(base_url=server.base) as visitor:
        answer = await visitor.post(f"/api/games/{table}/analysis")
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "not_authenticated"
    # None of the refusals started anything.
    assert (await stranger.http.get(f"/api/games/{table}/analysis")).json()["status"] == "none"
    for client in [*clients, stranger]:
        await client.close()
