"""What ends "away": a move, "Next", "I'm back", sitting down again; not the sort
a page sends by itself for each new hand, and not a page that reconnects."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess, create_table

pytestmark = pytest.mark.asyncio


def _away(client: Client, start: int = 0) -> bool | None:
    """Seat 0's away flag in the newest seat list the client got (from ``start``)."""
    for message in reversed(client.messages[start:]):
        if message["type"] == "seat_update":
            return bool(message["seats"][0]["away"])
        if message["type"] == "table":
            return bool(message["table"]["seats"][0]["away"])
    return None


def _dealt_to_me(message: dict[str, Any], round_no: int) -> bool:
    return (
        message["type"] == "update"
        and message["view"] is not None
        and message["view"]["round_no"] == round_no
        and any(e["type"] == "hand_dealt" and e["seat"] == 0 for e in message["events"])
    )


async def _sort_like_the_page(client: Client, table: int, first: dict[str, Any]) -> None:
    """Send the hand back in suit order, as the web page does for each new deal
    (again with the newest hand if a computer opponent moved for the seat first)."""
    hand = first["view"]["hand"]
    for _ in range(20):
        order = sorted(hand, key=lambda card: (card[-1], card))
        reply = await client.request(
            {"type": "action", "table": table, "action": {"type": "arrange", "cards": order}}
        )
        if reply["type"] == "update":
            return
        hand = client.tables[table]["view"]["hand"]
    raise AssertionError(f"the sort was never accepted: {reply}")


async def _game_against_a_bot(server: ServerProcess) -> tuple[Client, int]:
    """A guest and a computer opponent, in a game long enough for many rounds."""
    client = await (await Client(server, nickname("aw")).guest()).connect()
    table = await create_table(
        client, seats=2, bots={"1": "beginner"}, point_limit=5000, turn_seconds=15
    )
    assert (await client.request({"type": "start_game", "table": table}))["type"] == "ok"
    return client, table


async def test_the_automatic_sort_and_a_reconnection_do_not_end_away(
    make_server: ServerFactory,
) -> None:
    server = make_server(time_scale=30)  # a 15 s turn lasts half a second
    a, table = await _game_against_a_bot(server)
    # Nobody is at the screen: three timeouts, and the seat is away.
    await a.expect("seat_update", lambda m: m["seats"][0]["away"], timeout=20)
    # A computer opponent plays the round out for the seat; the next round is dealt
    # at once (an away player is not waited for) and the page sorts the new hand.
    dealt = await a.expect("update", lambda m: _dealt_to_me(m, 2), timeout=60)
    start = len(a.messages)
    await _sort_like_the_page(a, table, dealt)
    assert (await a.request({"type": "resync", "table": table}))["type"] == "table"
    assert _away(a, start) is True, "the automatic sort ended away"

    # The page reconnects by itself (a network drop): still away.
    again = Client(server, a.nickname)
    again.http = httpx.AsyncClient(base_url=server.base, cookies=a.http.cookies)
    await a.close()
    await again.connect()
    seated = await again.expect("table", lambda m: m["table"]["id"] == table)
    assert seated["table"]["seats"][0]["away"] is True

    # "I'm back" ends it.
    start = len(again.messages)
    assert (await again.request({"type": "back", "table": table}))["type"] == "ok"
    await again.expect("seat_update", lambda m: not m["seats"][0]["away"], start=start)
    await again.close()
