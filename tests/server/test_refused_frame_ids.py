"""A frame that the JSON parser cannot take (nested deeper than it goes, a number
of more digits than Python reads, cut short) is refused with ``bad_json``, and
the refusal carries the frame's id when the id stands where clients put it, at
the start or the end of the frame (docs/security.md, "One reply per request");
the connection stays usable. Against a real server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .conftest import nickname
from .helpers import Client, ServerProcess

pytestmark = pytest.mark.asyncio


async def _replies(client: Client, msg_id: Any, start: int) -> list[dict[str, Any]]:
    """Every message carrying ``msg_id`` from index ``start``, once one came and a
    ping sent after the frame was answered (the server answers in order)."""
    await client.expect(None, lambda m: m.get("id") == msg_id, start=start, timeout=20)
    pong = await client.request({"type": "ping"}, timeout=20)
    assert pong["type"] == "pong"
    return [m for m in client.messages[start:] if m.get("id") == msg_id]


async def test_unparseable_frames_are_answered_with_their_id(
    shared_server: ServerProcess,
) -> None:
    client = await (await Client(shared_server, nickname("ri")).guest()).connect()
    try:
        frames = {
            "deep-first": '{"type":"ping","id":"deep-first","x":' + "[" * 5000 + "]" * 5000 + "}",
            "deep-last": '{"x":' + "[" * 5000 + "]" * 5000 + ',"type":"ping","id":"deep-last"}',
            "digits": '{"type":"join_table","table":' + "9" * 9000 + ',"id":"digits"}',
            "digits-first": '{"id":"digits-first","type":"join_table","table":' + "9" * 9000 + "}",
            4711: '{"id":4711,"type":"ping","a":' + '{"a":' * 2500 + "1" + "}" * 2500 + "}",
            "cut": '{"id":"cut","type":"ping","x":[1,2',
        }
        for msg_id, frame in frames.items():
            assert client.ws is not None
            start = len(client.messages)
            await client.ws.send(frame)
            replies = await _replies(client, msg_id, start)
            assert [(r["type"], r.get("code")) for r in replies] == [("error", "bad_json")], (
                msg_id,
                replies,
            )
        # A binary frame nested too deep is answered with its id as well.
        start = len(client.messages)
        assert client.ws is not None
        await client.ws.send(('{"id":"binary","x":' + "[" * 5000 + "]" * 5000 + "}").encode())
        replies = await _replies(client, "binary", start)
        assert [r.get("code") for r in replies] == ["bad_json"], replies
        # No id to find: refused without one, and nothing else answers.
        start = len(client.messages)
        await client.ws.send("[" * 5000 + "]" * 5000)
        refusal = await client.expect("error", start=start, timeout=20)
        assert refusal["code"] == "bad_json" and refusal.get("id") is None, refusal
        await asyncio.sleep(0)
        assert client.closed is None
    finally:
        await client.close()
    assert "Traceback" not in shared_server.logs()
