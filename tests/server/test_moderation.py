"""Reports and moderation over the protocol, on a real server: a report carries the
table and the reported player's chat lines (filtered), only moderators see reports
and act, a mute refuses chat until it ends, a ban ends the sessions and refuses the
login, and every action is in the moderation log."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess, admin, create_table

pytestmark = pytest.mark.asyncio

PASSWORD = "correct horse battery"


async def _registered(server: ServerProcess, prefix: str) -> Client:
    return await Client(server, nickname(prefix)).register(PASSWORD)


async def _chat(client: Client, table: int, text: str) -> dict[str, Any]:
    return await client.request({"type": "table_chat", "table": table, "text": text})


async def test_report_moderate_mute_ban_and_log(make_server: ServerFactory) -> None:
    server = make_server("sqlite", extra=["--accounts-per-hour", "0"])
    mod = await _registered(server, "mod")
    assert admin(server, "grant-moderator", mod.nickname).returncode == 0
    alice = await (await _registered(server, "ali")).connect()
    bob = await (await _registered(server, "bob")).connect()
    try:
        table = await create_table(alice, seats=2)
        assert (await bob.request({"type": "join_table", "table": table}))["type"] == "table"
        # The chat filter masks the word, the rest of the line goes out.
        assert (await _chat(bob, table, "you fucking cheat"))["type"] == "ok"
        seen = await alice.expect("table_chat", lambda m: m["message"]["from"] == bob.nickname)
        assert seen["message"]["text"] == "you ******* cheat"
        assert (await _chat(alice, table, "calm down"))["type"] == "ok"

        # A report: the server attaches the shared table and bob's lines there.
        filed = await alice.http.post(
            "/api/reports",
            json={"nickname": bob.nickname, "reason": "abusive_chat", "text": "rude", "table": 999},
        )
        assert filed.status_code == 200, filed.text
        report = filed.json()["report"]
        assert report["table"] == table
        again = await alice.http.post(
            "/api/reports", json={"nickname": bob.nickname, "reason": "abusive_chat"}
        )
        assert again.status_code == 409 and again.json()["error"]["code"] == "already_reported"
        bad = await alice.http.post(
            "/api/reports", json={"nickname": bob.nickname, "reason": "dislike"}
        )
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_message"
        myself = await alice.http.post(
            "/api/reports", json={"nickname": alice.nickname, "reason": "other"}
        )
        assert myself.json()["error"]["code"] == "cannot_report"

        # Only moderators see reports and act.
        for path, body in (
            ("/api/moderation", None),
            ("/api/moderation/mute", {"nickname": bob.nickname, "minutes": 5}),
        ):
            refused = await (
                alice.http.get(path) if body is None else alice.http.post(path, json=body)
            )
            assert refused.status_code == 403, path
            assert refused.json()["error"]["code"] == "not_moderator"
        assert (await alice.http.get("/api/me")).json()["moderator"] is False
        assert (await mod.http.get("/api/me")).json()["moderator"] is True
        page = (await mod.http.get("/api/moderation?open=1")).json()
        seen_report = next(r for r in page["reports"] if r["id"] == report["id"])
        assert seen_report["reporter"] == alice.nickname
        assert seen_report["reported"] == bob.nickname
        assert seen_report["table"] == table and seen_report["text"] == "rude"
        assert [line["text"] for line in seen_report["chat"]] == ["you ******* cheat"]

        # A mute refuses bob's chat, with its end, until it ends (six seconds: both
        # refusals come within them on a loaded machine).
        muted = await mod.http.post(
            "/api/moderation/mute",
            json={"nickname": bob.nickname, "minutes": 0.1, "note": "language"},
        )
        assert muted.status_code == 200, muted.text
        assert muted.json()["sanction"]["kind"] == "mute"
        refusal = await _chat(bob, table, "hello?")
        assert refusal["type"] == "error" and refusal["code"] == "muted"
        assert refusal["until"] > time.time() * 1000
        lobby = await bob.request({"type": "lobby_chat", "text": "hello?"})
        assert lobby["type"] == "error" and lobby["code"] == "muted"
        await asyncio.sleep(max(0.0, refusal["until"] / 1000 - time.time()) + 0.3)
        assert (await _chat(bob, table, "sorry"))["type"] == "ok"

        # A ban ends bob's connection and sessions and refuses his login.
        banned = await mod.http.post(
            "/api/moderation/ban", json={"nickname": bob.nickname, "note": "repeated abuse"}
        )
        assert banned.status_code == 200, banned.text
        assert banned.json()["sanction"]["until"] is None
        await bob.expect("error", lambda m: m["code"] == "banned")
        for _ in range(50):
            if bob.closed is not None:
                break
            await asyncio.sleep(0.1)
        assert bob.closed == 4401
        assert (await bob.http.get("/api/me")).status_code == 401
        login = await bob.http.post(
            "/api/login", json={"nickname": bob.nickname, "password": PASSWORD}
        )
        assert login.status_code == 403 and login.json()["error"]["code"] == "banned"

        resolved = await mod.http.post(
            "/api/moderation/resolve", json={"report": report["id"], "note": "banned"}
        )
        assert resolved.json()["report"]["status"] == "resolved"
        twice = await mod.http.post("/api/moderation/resolve", json={"report": report["id"]})
        assert twice.status_code == 409 and twice.json()["error"]["code"] == "report_resolved"
        page = (await mod.http.get("/api/moderation")).json()
        assert [(e["actor"], e["action"], e["target"]) for e in page["log"][:3]] == [
            (mod.nickname, "resolve", bob.nickname),
            (mod.nickname, "ban", bob.nickname),
            (mod.nickname, "mute", bob.nickname),
        ]
        assert [s["kind"] for s in page["sanctions"]] == ["ban"]
        assert (await mod.http.get("/api/moderation?open=1")).json()["reports"] == []
        # Lifting the ban lets bob log in again.
        lifted = await mod.http.post(
            "/api/moderation/lift", json={"nickname": bob.nickname, "kind": "ban"}
        )
        assert lifted.json()["lifted"] is True
        login = await bob.http.post(
            "/api/login", json={"nickname": bob.nickname, "password": PASSWORD}
        )
        assert login.status_code == 200
    finally:
        for client in (alice, bob, mod):
            await client.close()
