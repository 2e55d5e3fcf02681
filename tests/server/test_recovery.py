"""Crash recovery and reconnection: SIGKILL the server in the middle of a round,
start it again on the same database, reconnect: the state is identical, the
timers resume, and the match finishes."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import psutil
import pytest

from romme.engine.reference import reference_action
from romme.engine.view import SeatView

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out
from .verify import check_log, check_messages

pytestmark = pytest.mark.asyncio


async def _play_until(players: list[Autoplayer], version: int, human_seats: set[int]) -> bool:
    """Play until the table reached ``version``, a human is to move and every client
    has seen the update of every move its players sent: nothing is then on the way
    (no bot moves before a human did, and the turn lasts 120 s), so each client holds
    the table as it is stored. False if the game ended first (a player went out at
    once: the deal is random)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        sent = max((v for p in players for v, kind in p.acted if kind == "act"), default=0)
        states = [p.client.tables[p.table] for p in players]
        view = states[0].get("view")
        if view and view["phase"] == "game_over":
            return False
        if (
            all(s["version"] == states[0]["version"] > sent for s in states)
            and states[0]["version"] >= version
            and view
            and view["phase"] in ("draw", "play")
            and view["current"] in human_seats
        ):
            return True
        for p in players:
            await p.step()
        await asyncio.sleep(0.01)
    raise AssertionError(
        f"the table did not get to version {version}: versions "
        f"{[p.client.tables[p.table].get('version') for p in players]}, moves sent at "
        f"{sorted(v for p in players for v, kind in p.acted if kind == 'act')}, view "
        f"{ {k: view.get(k) for k in ('phase', 'current', 'knock_seats')} if view else None }, "
        f"errors {[m for p in players for m in p.client.messages if m.get('type') == 'error']}, "
        f"connections closed {[p.client.closed for p in players]}"
    )


@pytest.mark.parametrize(
    ("backend", "extra"),
    [
        ("sqlite", []),
        # Commits that leave the disk to the next checkpoint survive the server's crash.
        ("sqlite", ["--sqlite-synchronous", "normal"]),
        ("postgresql", []),
    ],
    ids=["sqlite", "sqlite-synchronous-normal", "postgresql"],
)
async def test_sigkill_mid_round_then_restart_and_finish(
    make_server: ServerFactory, backend: str, extra: list[str]
) -> None:
    first = make_server(backend, time_scale=1, extra=extra)
    a = await (await Client(first, nickname("ra")).guest()).connect()
    b = await (await Client(first, nickname("rb")).guest()).connect()
    for _attempt in range(3):
        table = await create_table(
            a, seats=3, bots={"2": "casual"}, point_limit=1, turn_seconds=120
        )
        await b.request({"type": "join_table", "table": table})
        await a.request({"type": "start_game", "table": table})
        players = [Autoplayer(a, table), Autoplayer(b, table)]
        # Seat 1 keeps the hand in its own order: reversed.
        if await _play_until(players, 5, {0, 1}):
            hand = b.tables[table]["view"]["hand"]
            arranged = await b.request(
                {
                    "type": "action",
                    "table": table,
                    "action": {"type": "arrange", "cards": hand[::-1]},
                }
            )
            assert arranged["type"] == "update", arranged
            assert arranged["view"]["hand"] == hand[::-1]
            if await _play_until(players, 9, {0, 1}):
                break
        # Someone went out before the ninth move (the deal is random): a new table.
        for client in (a, b):
            await client.request({"type": "leave_table", "table": table})
    else:
        raise AssertionError("every game ended before its ninth move")
    before = {c.nickname: dict(c.tables[table]) for c in (a, b)}
    assert before[a.nickname]["version"] == before[b.nickname]["version"]

    assert first.proc is not None
    workers = psutil.Process(first.proc.pid).children(recursive=True)
    assert workers, "the bots think in a worker process"
    first.kill()
    await asyncio.sleep(0.2)
    assert a.closed is not None and b.closed is not None
    # No worker outlives the killed server.
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert not alive

    second = make_server(db_url=first.db_url, time_scale=1, extra=extra)
    for client in (a, b):
        client.server = second
        client.http = httpx.AsyncClient(base_url=second.base, cookies=client.http.cookies)
        start = len(client.messages)
        await client.connect()
        message = await client.expect("table", start=start)
        after = message["table"]
        old = before[client.nickname]
        assert after["version"] == old["version"]
        assert after["view"] == old["view"]
        assert after["my_seat"] == old["my_seat"]
        assert after["status"] == "playing"
        # The turn timer resumed from the last action's time, not from the restart.
        assert abs(after["timer"]["deadline"] - old["timer"]["deadline"]) < 10_000

    # A client that missed updates asks for them.
    resync = await a.request({"type": "resync", "table": table, "since": 0})
    assert resync["type"] == "table"

    await play_out(players, timeout=120)
    over = a.tables[table]["game_over"]
    log = httpx.get(second.base + f"/api/games/{table}").json()
    check_log(log, over["winners"])
    for client in (a, b):
        check_messages(client.messages, table, log)
        await client.close()


def _our_turn_or_over(update: dict[str, Any]) -> bool:
    """Seat 0 is to move, or the round is over (the update's view is seat 0's)."""
    view = update.get("view") or {}
    return view.get("current") == 0 or view.get("phase") == "round_over"


async def test_reconnect_gets_the_seat_and_missed_updates(make_server: ServerFactory) -> None:
    server: ServerProcess = make_server(time_scale=1)
    a = await (await Client(server, nickname("ca")).guest()).connect()
    table = await create_table(
        a, seats=2, bots={"1": "beginner"}, point_limit=100, turn_seconds=120
    )
    await a.request({"type": "start_game", "table": table})
    await a.expect("update", lambda m: m["version"] == 1)
    view = a.tables[table]["view"]
    assert reference_action(SeatView.from_json(view)) is not None
    # A second tab of the same player gets the same seat and every update.
    tab = Client(server, a.nickname)
    tab.http = httpx.AsyncClient(base_url=server.base, cookies=a.http.cookies)
    await tab.connect()
    seat_msg = await tab.expect("table")
    assert seat_msg["table"]["my_seat"] == 0 and seat_msg["table"]["view"]["hand"] == view["hand"]
    await a.send({"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}})
    await tab.expect("update", lambda m: m["version"] == 2)
    # Drop the first tab, move from the second, come back: resync gives what was missed.
    await a.close()
    hand = tab.tables[table]["view"]["hand"]
    await tab.request(
        {"type": "action", "table": table, "action": {"type": "discard", "card": hand[-1]}}
    )
    # The computer opponent's turn is over (it drew at version 4): nothing moves
    # until this seat does, so the only updates the next tab gets are the resync's.
    await tab.expect("update", lambda m: m["version"] >= 4 and _our_turn_or_over(m), timeout=20)
    back = Client(server, a.nickname)
    back.http = httpx.AsyncClient(base_url=server.base, cookies=tab.http.cookies)
    await back.connect()
    await back.expect("table")
    start = len(back.messages)
    await back.send({"type": "resync", "table": table, "since": 2, "id": "rs"})
    first = await back.expect("update", start=start)
    assert first["version"] == 3 and first["events"][0]["type"] == "discarded"
    last = await back.expect("update", lambda m: m.get("id") == "rs", start=start)
    assert last["view"] is not None
    await tab.close()
    await back.close()
