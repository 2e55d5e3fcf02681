"""The round summary on the wire: the update that ends a round says when the next
one is dealt, and a player who reloads at the summary finds it still there."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from romme.engine.reference import reference_action
from romme.engine.view import SeatView

from .conftest import ServerFactory, nickname
from .helpers import Client, create_table

pytestmark = pytest.mark.asyncio


async def play_until_round_over(client: Client, table: int) -> dict[str, Any]:
    """Play the reference player's moves until a round summary (no "Next")."""
    acted: set[int] = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = client.tables[table]
        view = SeatView.from_json(state["view"])
        if view.phase == "round_over":
            return await client.expect(
                "update", lambda m: (m.get("view") or {}).get("phase") == "round_over"
            )
        if (
            view.phase in ("draw", "play")
            and view.current == view.seat
            and state["version"] not in acted
        ):
            acted.add(state["version"])
            action = reference_action(view)
            assert action is not None
            data = {k: v for k, v in action.to_json().items() if k != "seat"}
            await client.request({"type": "action", "table": table, "action": data})
        await asyncio.sleep(0.02)
    raise AssertionError("the round did not end")


async def test_the_summary_outlasts_a_reload(make_server: ServerFactory) -> None:
    server = make_server()  # real time: the summary waits 30 s for "Next"
    player = await (await Client(server, nickname("rs")).guest()).connect()
    table = await create_table(player, seats=2, bots={"1": "casual"}, point_limit=1000)
    await player.request({"type": "start_game", "table": table})
    await player.expect("update", lambda m: m["version"] == 1)
    ended = await play_until_round_over(player, table)
    # The update that ends the round tells when the next one is dealt.
    next_round = ended["next_round"]
    assert next_round["waiting_for"] == [0]
    assert 25_000 < next_round["deadline"] - int(time.time() * 1000) <= 30_000

    # A reload: the connection drops, a new one comes a moment later.
    assert player.ws is not None
    await player.ws.close()
    await asyncio.sleep(1.0)
    count = len(player.messages)
    await player.connect()
    again = await player.expect("table", lambda m: m["table"]["id"] == table, start=count)
    state = again["table"]
    assert (state["view"]["phase"], state["view"]["round_no"]) == ("round_over", 1)
    assert state["next_round"] == next_round
    # "Next" deals the next round at once.
    await player.request({"type": "next_round", "table": table})
    dealt = await player.expect(
        "update", lambda m: (m.get("view") or {}).get("round_no") == 2, start=count
    )
    assert "next_round" not in dealt
    await player.close()
