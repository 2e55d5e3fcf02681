"""A person is judged by player id, and a sanction follows the person, on a real
server: a block holds when the blocked guest registers under another nickname
(lobby chat, table chat, both histories) and keeps it from the blocker's table; a
mute follows a muted guest to the new guest it takes from the same browser, and a
deleted account to its re-registration from the same address; a ban refuses the
new guest; the moderation log and the sanctions name players by id, with the
nickname of the time beside the one of now. An account older than the sanction
keeps its own standing."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess, admin, create_table

pytestmark = pytest.mark.asyncio

PASSWORD = "correct horse battery"


async def _registered(server: ServerProcess, prefix: str) -> Client:
    return await Client(server, nickname(prefix)).register(PASSWORD)


async def _moderator(server: ServerProcess) -> Client:
    mod = await _registered(server, "mod")
    done = admin(server, "grant-moderator", mod.nickname)
    assert done.returncode == 0, done.stderr
    return mod


async def _reconnect(client: Client) -> Client:
    """The same browser (its cookies) on a new socket."""
    again = Client(client.server, client.nickname)
    again.http.cookies = client.http.cookies
    again.player = client.player
    await client.close()
    return await again.connect()


def _texts(client: Client, kind: str, start: int = 0) -> list[str]:
    return [m["message"]["text"] for m in client.messages[start:] if m.get("type") == kind]


async def test_a_block_holds_when_the_blocked_guest_registers_under_another_name(
    make_server: ServerFactory,
) -> None:
    server = make_server("sqlite", extra=["--accounts-per-hour", "0"])
    anna = await (await Client(server, nickname("ba")).guest()).connect()
    max_ = await (await Client(server, nickname("bm")).guest()).connect()
    cleo = await (await Client(server, nickname("bc")).guest()).connect()
    try:
        blocked = await anna.request({"type": "block", "nickname": max_.nickname})
        assert blocked["blocked"] == [max_.nickname]
        await max_.request({"type": "lobby_chat", "text": "before the new name"})
        await cleo.expect("lobby_chat", lambda m: m["message"]["text"] == "before the new name")

        # Max registers under another nickname: the same player id.
        new_name = nickname("bn")
        answer = await max_.http.post(
            "/api/register", json={"nickname": new_name, "password": PASSWORD}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["player"]["id"] == max_.player["id"]
        max_.nickname = new_name
        max_ = await _reconnect(max_)

        # Lobby chat: Cleo gets the renamed Max's line, then her own marker reaches
        # Anna, who never got Max's.
        start = len(anna.messages)
        await max_.request({"type": "lobby_chat", "text": "after the new name"})
        line = await cleo.expect(
            "lobby_chat", lambda m: m["message"]["text"] == "after the new name"
        )
        assert line["message"]["from"] == new_name
        assert "player_id" not in line["message"]  # the protocol names no one's id
        await cleo.request({"type": "lobby_chat", "text": "marker one"})
        await anna.expect("lobby_chat", lambda m: m["message"]["text"] == "marker one", start=start)
        assert "after the new name" not in _texts(anna, "lobby_chat", start)

        # The lobby's history (a reload) holds neither of Max's lines.
        anna = await _reconnect(anna)
        history = [c["text"] for c in (await anna.expect("lobby"))["chat"]]
        assert "marker one" in history
        assert "before the new name" not in history and "after the new name" not in history

        # Table chat at Cleo's table where all three sit: Max's line reaches Cleo only,
        # and is not in Anna's fresh view of the table.
        table = await create_table(cleo, seats=3)
        assert (await anna.request({"type": "join_table", "table": table}))["type"] == "table"
        assert (await max_.request({"type": "join_table", "table": table}))["type"] == "table"
        start = len(anna.messages)
        await max_.request({"type": "table_chat", "table": table, "text": "psst"})
        await cleo.expect("table_chat", lambda m: m["message"]["text"] == "psst")
        await cleo.request({"type": "table_chat", "table": table, "text": "marker two"})
        await anna.expect("table_chat", lambda m: m["message"]["text"] == "marker two", start=start)
        assert "psst" not in _texts(anna, "table_chat", start)
        snapshot = await anna.request({"type": "resync", "table": table})
        chat = [c["text"] for c in snapshot["table"]["chat"]]
        assert "marker two" in chat and "psst" not in chat
        assert all("player_id" not in c for c in snapshot["table"]["chat"])

        # Anna's own table: Max may neither join nor watch it; Cleo may.
        own = await create_table(anna, seats=2)
        for kind in ("join_table", "watch_table"):
            refused = await max_.request({"type": kind, "table": own})
            assert refused["type"] == "error" and refused["code"] == "blocked", refused
        assert (await cleo.request({"type": "watch_table", "table": own}))["type"] == "table"
        lists = await anna.request({"type": "unblock", "nickname": new_name})
        assert lists["blocked"] == []
        assert (await max_.request({"type": "join_table", "table": own}))["type"] == "table"
    finally:
        for client in (anna, max_, cleo):
            await client.close()


async def _say(client: Client, text: str) -> dict[str, Any]:
    return await client.request({"type": "lobby_chat", "text": text})


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_a_mute_follows_a_new_guest_and_a_re_registration(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=["--accounts-per-hour", "0"])
    mod = await _moderator(server)
    older = await (await _registered(server, "old")).connect()  # before any sanction
    name = nickname("mg")
    bob = await (await Client(server, name).guest()).connect()
    carl = await (await _registered(server, "mc")).connect()
    clients = [mod, older, bob, carl]
    try:
        for who in (bob, carl):
            muted = await mod.http.post(
                "/api/moderation/mute",
                json={"nickname": who.nickname, "minutes": 30, "note": "language"},
            )
            assert muted.status_code == 200, muted.text
            assert (await _say(who, "still here"))["code"] == "muted"

        # Bob logs out and takes a guest of the same nickname in the same browser.
        assert (await bob.http.post("/api/logout", json={})).status_code == 200
        again = await bob.http.post("/api/guest", json={"nickname": name})
        assert again.status_code == 200, again.text
        new_bob = again.json()["player"]
        assert new_bob["id"] != bob.player["id"] and new_bob["nickname"] == name
        bob.player = new_bob
        bob = await _reconnect(bob)
        clients[2] = bob
        refused = await _say(bob, "a new me")
        assert refused["type"] == "error" and refused["code"] == "muted", refused

        # Carl deletes the account and registers the name again from another
        # browser (no cookie of his): the address links it.
        deleted = await carl.http.post("/api/account/delete", json={"password": PASSWORD})
        assert deleted.status_code == 200, deleted.text
        old_carl_id = carl.player["id"]
        await carl.close()
        carl = Client(server, carl.nickname)
        clients[3] = carl
        answer = await carl.http.post(
            "/api/register", json={"nickname": carl.nickname, "password": PASSWORD}
        )
        assert answer.status_code == 200, answer.text
        carl.player = answer.json()["player"]
        assert carl.player["id"] != old_carl_id
        await carl.connect()
        assert (await _say(carl, "new account"))["code"] == "muted"

        # An account older than the mutes, from the same address and a new socket,
        # chats as before.
        older = await _reconnect(older)
        clients[1] = older
        assert (await _say(older, "hello all"))["type"] == "ok"

        page = (await mod.http.get("/api/moderation")).json()
        sanctions = {s["player_id"]: s for s in page["sanctions"]}
        assert older.player["id"] not in sanctions
        for follower in (bob, carl):
            followed = sanctions[follower.player["id"]]
            assert followed["kind"] == "mute" and followed["source"] is not None
            source = next(s for s in page["sanctions"] if s["id"] == followed["source"])
            assert source["until"] == followed["until"]
        assert sanctions[bob.player["id"]]["nickname"] == name
        # The old entries name the deleted account by its id: as it is called now
        # (the placeholder), and as it was called then.
        old_entry = next(
            e for e in page["log"] if e["action"] == "mute" and e["target_id"] == old_carl_id
        )
        assert old_entry["target_then"] == carl.nickname
        assert old_entry["target"] == f"deleted player #{old_carl_id}"
        assert old_entry["actor_id"] == mod.player["id"]
        follows = {e["target_id"] for e in page["log"] if e["action"] == "follow_mute"}
        assert follows == {bob.player["id"], carl.player["id"]}

        # Lifting Carl's first mute lifts the one that followed it.
        lifted = await mod.http.post(
            "/api/moderation/lift",
            json={"player": old_carl_id, "kind": "mute"},
        )
        assert lifted.status_code == 200 and lifted.json()["lifted"] is True, lifted.text
        assert (await _say(carl, "free again"))["type"] == "ok"
    finally:
        for client in clients:
            await client.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_a_ban_refuses_the_new_guest_of_the_same_browser(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=["--accounts-per-hour", "0"])
    mod = await _moderator(server)
    name = nickname("bg")
    eve = await Client(server, name).guest()
    try:
        banned = await mod.http.post("/api/moderation/ban", json={"nickname": name})
        assert banned.status_code == 200, banned.text
        assert (await eve.http.get("/api/me")).status_code == 401
        # Another nickname, the same browser: refused, no session.
        other = await eve.http.post("/api/guest", json={"nickname": nickname("bh")})
        assert other.status_code == 403 and other.json()["error"]["code"] == "banned"
        assert (await eve.http.get("/api/me")).status_code == 401
        page = (await mod.http.get("/api/moderation")).json()
        assert [e["action"] for e in page["log"][:2]] == ["follow_ban", "ban"]
    finally:
        await eve.close()
        await mod.close()
