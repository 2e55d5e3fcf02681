"""Bad input over the WebSocket: each gets a structured error to that client alone;
the table and the other players are unaffected."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from .conftest import nickname
from .helpers import Client, ServerProcess, create_table

pytestmark = pytest.mark.asyncio


async def _pair(server: ServerProcess) -> tuple[Client, Client, int]:
    """Two players at a started two-seat table (seat 0 moves first)."""
    a = await (await Client(server, nickname("A")).guest()).connect()
    b = await (await Client(server, nickname("B")).guest()).connect()
    table = await create_table(a, seats=2, point_limit=100, turn_seconds=120)
    assert (await b.request({"type": "join_table", "table": table}))["type"] == "table"
    assert (await a.request({"type": "start_game", "table": table}))["type"] == "ok"
    await a.expect("update", lambda m: m["version"] == 1)
    await b.expect("update", lambda m: m["version"] == 1)
    return a, b, table


async def test_without_a_session_the_socket_is_refused(shared_server: ServerProcess) -> None:
    async with connect(shared_server.ws_url) as ws:
        error = json.loads(await ws.recv())
        assert error["type"] == "error" and error["code"] == "not_authenticated"
        await ws.wait_closed()
        assert ws.close_code == 4401


async def test_a_foreign_origin_is_refused(shared_server: ServerProcess) -> None:
    client = await Client(shared_server, nickname("O")).guest()
    with pytest.raises(Exception):  # noqa: B017 - the handshake is closed, however it says so
        async with connect(
            shared_server.ws_url,
            origin="http://evil.example",  # type: ignore[arg-type]
            additional_headers={"Cookie": client.cookie_header()},
        ) as ws:
            await ws.recv()
    await client.http.aclose()


async def test_every_bad_message_gets_its_own_error(shared_server: ServerProcess) -> None:
    a, b, table = await _pair(shared_server)
    b_seen = len(b.messages)
    assert a.ws is not None
    cases = [
        ("{not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        (json.dumps({"type": "teleport", "id": 1}), "unknown_type"),
        (json.dumps({"type": "join_table", "table": "five"}), "bad_message"),
        (json.dumps({"type": "action", "table": table, "action": {"type": "fly"}}), "bad_message"),
        (
            json.dumps(
                {"type": "action", "table": table, "action": {"type": "discard", "card": "ZZ"}}
            ),
            "bad_message",
        ),
        (json.dumps({"type": "lobby_chat", "text": "x" * 20000}), "too_large"),
        (json.dumps({"type": "lobby_chat", "text": "   "}), "chat_empty"),
        (json.dumps({"type": "lobby_chat", "text": "y" * 501}), "chat_too_long"),
        (
            json.dumps(
                {"type": "action", "table": 999999, "action": {"type": "draw", "source": "stock"}}
            ),
            "no_such_table",
        ),
        (json.dumps({"type": "create_table", "settings": {"seats": 7}}), "bad_settings"),
        (
            json.dumps({"type": "create_table", "settings": {"seats": 2, "knock": True}}),
            "bad_settings",
        ),
        (json.dumps({"type": "start_game", "table": table}), "already_started"),
    ]
    for text, code in cases:
        start = len(a.messages)
        await a.ws.send(text)
        error = await a.expect("error", start=start)
        assert error["code"] == code, (text[:60], error)
        assert error["message"]
    start = len(a.messages)
    await a.ws.send(b"\x00binary")
    assert (await a.expect("error", start=start))["code"] == "bad_json"
    # Nothing reached the other player, and the table is as it was.
    await asyncio.sleep(0.2)
    assert [m for m in b.messages[b_seen:] if m["type"] in ("error", "update")] == []
    reply = await b.request({"type": "resync", "table": table})
    assert reply["type"] == "table" and reply["table"]["version"] == 1
    await a.close()
    await b.close()


async def test_out_of_turn_illegal_and_foreign_table_moves(shared_server: ServerProcess) -> None:
    a, b, table = await _pair(shared_server)
    c = await (await Client(shared_server, nickname("C")).guest()).connect()
    out_of_turn = await b.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    assert out_of_turn["type"] == "error" and out_of_turn["code"] == "not_your_turn"
    must_draw = await a.request(
        {"type": "action", "table": table, "action": {"type": "discard", "card": "XX"}}
    )
    assert must_draw["code"] == "must_draw"
    await a.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    # Chosen after the draw, so the card drawn cannot be the one "not held".
    hand = a.tables[table]["view"]["hand"]
    absent = next(
        card for card in ("AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S") if card not in hand
    )
    not_held = await a.request(
        {"type": "action", "table": table, "action": {"type": "discard", "card": absent}}
    )
    assert not_held["type"] == "error" and not_held["code"] == "card_not_in_hand"
    seat_given = await a.request(
        {
            "type": "action",
            "table": table,
            "action": {"type": "discard", "seat": 1, "card": hand[0]},
        }
    )
    assert seat_given["code"] == "bad_message"
    foreign = await c.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    assert foreign["code"] == "not_seated"
    chat_foreign = await c.request({"type": "table_chat", "table": table, "text": "hi"})
    assert chat_foreign["code"] == "not_seated"
    # The table goes on: seat 0 still has to discard, and may.
    done = await a.request(
        {
            "type": "action",
            "table": table,
            "action": {"type": "discard", "card": a.tables[table]["view"]["hand"][0]},
        }
    )
    assert done["type"] == "update"
    for client in (a, b, c):
        await client.close()


async def test_html_in_chat_is_stored_and_sent_as_text(shared_server: ServerProcess) -> None:
    a, b, table = await _pair(shared_server)
    text = '<script>alert("x")</script> <b>bold</b> & \x07bell'
    start = len(b.messages)
    await a.send({"type": "table_chat", "table": table, "text": text})
    message = (await b.expect("table_chat", start=start))["message"]
    assert message["text"] == '<script>alert("x")</script> <b>bold</b> & bell'
    assert message["from"] == a.nickname
    raw = next(r for r in b.raw if '"table_chat"' in r)
    assert "<script>" in raw  # JSON text, not escaped markup: the client renders it as text
    again = await (await Client(shared_server, nickname("R")).guest()).connect()
    lobby = again.messages[1]
    assert lobby["type"] == "lobby"
    await again.close()
    await a.close()
    await b.close()


async def test_floods_are_rate_limited_then_cut_off(shared_server: ServerProcess) -> None:
    flooder = await (await Client(shared_server, nickname("F")).guest()).connect()
    calm = await (await Client(shared_server, nickname("G")).guest()).connect()
    assert flooder.ws is not None
    for _ in range(400):
        try:
            await flooder.ws.send(json.dumps({"type": "ping"}))
        except Exception:
            break
    await flooder.expect("error", lambda m: m["code"] == "rate_limited")
    for _ in range(50):
        if flooder.closed is not None:
            break
        await asyncio.sleep(0.1)
    assert flooder.closed == 4429
    # Everyone else is fine.
    assert (await calm.request({"type": "ping"}))["type"] == "pong"
    await flooder.close()
    await calm.close()
