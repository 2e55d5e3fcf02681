"""The lobby: tables and players live, lobby chat, invitations, seats, leaving,
watching, player info."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from romme.store import Store

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out

pytestmark = pytest.mark.asyncio


async def _guest(server: ServerProcess, prefix: str) -> Client:
    return await (await Client(server, nickname(prefix)).guest()).connect()


async def test_lobby_shows_tables_players_and_chat(shared_server: ServerProcess) -> None:
    a = await _guest(shared_server, "la")
    b = await _guest(shared_server, "lb")
    welcome = b.messages[0]
    assert welcome["type"] == "welcome" and welcome["protocol"] == 1
    # The client takes the computer opponents' levels and the chat limit from here.
    assert welcome["bot_levels"] == ["beginner", "casual", "strong", "expert"]
    assert welcome["chat_max"] == 500
    lobby = b.messages[1]
    assert lobby["type"] == "lobby" and {"tables", "players", "chat", "invitations"} <= set(lobby)
    assert b.nickname in [p["nickname"] for p in lobby["players"]]
    table = await create_table(a, seats=3, bots={"2": "strong"}, point_limit=50)
    update = await b.expect("lobby_update", lambda m: any(t["id"] == table for t in m["tables"]))
    summary = next(t for t in update["tables"] if t["id"] == table)
    assert summary["host"] == a.nickname and summary["status"] == "waiting"
    assert summary["free_seats"] == 1 and summary["settings"]["point_limit"] == 50
    assert summary["seats"][2]["bot"] == "strong"
    assert a.nickname in [p["nickname"] for p in update["players"]]
    start = len(b.messages)
    await a.send({"type": "lobby_chat", "text": "Hallo zusammen!"})
    chat = await b.expect("lobby_chat", start=start)
    assert chat["message"]["from"] == a.nickname and chat["message"]["text"] == "Hallo zusammen!"
    assert isinstance(chat["message"]["at"], int)
    info = await b.request({"type": "player_info", "nickname": a.nickname})
    assert info["type"] == "player_info" and info["info"]["nickname"] == a.nickname
    missing = await b.request({"type": "player_info", "nickname": "no-such-one"})
    assert missing["code"] == "no_such_player"
    await a.close()
    await b.close()


async def test_invite_only_tables_and_invitations(shared_server: ServerProcess) -> None:
    host = await _guest(shared_server, "ih")
    ben = await _guest(shared_server, "ib")
    cleo = await _guest(shared_server, "ic")
    table = await create_table(host, seats=3, access="invite", point_limit=1)
    refused = await ben.request({"type": "join_table", "table": table})
    assert refused["code"] == "invite_only"
    await asyncio.sleep(0.4)
    for message in cleo.messages:
        if message["type"] in ("lobby", "lobby_update"):
            assert all(t["id"] != table for t in message["tables"])
    assert (await host.request({"type": "invite", "table": table, "nickname": "nobody-at-all"}))[
        "code"
    ] == "no_such_player"
    assert (await host.request({"type": "invite", "table": table, "nickname": host.nickname}))[
        "code"
    ] == "cannot_invite"
    sent = await host.request({"type": "invite", "table": table, "nickname": ben.nickname})
    assert sent["type"] == "invitation"
    invitation = (await ben.expect("invitation"))["invitation"]
    assert invitation["from"] == host.nickname and invitation["to"] == ben.nickname
    assert invitation["status"] == "open" and invitation["table"] == table
    # Ben now sees the table in the lobby.
    await ben.expect("lobby_update", lambda m: any(t["id"] == table for t in m["tables"]))
    joined = await ben.request(
        {"type": "answer_invitation", "invitation": invitation["id"], "accept": True}
    )
    assert joined["type"] == "table" and joined["table"]["my_seat"] == 1
    update = await host.expect("invitation_update")
    assert update["invitation"]["status"] == "accepted"
    await host.request({"type": "invite", "table": table, "nickname": cleo.nickname})
    second = (await cleo.expect("invitation"))["invitation"]
    answer = await cleo.request(
        {"type": "answer_invitation", "invitation": second["id"], "accept": False}
    )
    assert answer["type"] == "invitation_update"
    assert answer["invitation"]["status"] == "declined"
    await host.expect("invitation_update", lambda m: m["invitation"]["status"] == "declined")
    again = await cleo.request(
        {"type": "answer_invitation", "invitation": second["id"], "accept": True}
    )
    assert again["code"] == "no_such_invitation"
    for client in (host, ben, cleo):
        await client.close()


async def test_invitations_expire(make_server: ServerFactory) -> None:
    server = make_server(time_scale=60)  # two minutes last two seconds
    host = await _guest(server, "eh")
    guest = await _guest(server, "eg")
    table = await create_table(host, seats=2)
    await host.request({"type": "invite", "table": table, "nickname": guest.nickname})
    invitation = (await guest.expect("invitation"))["invitation"]
    expired = await guest.expect("invitation_update", timeout=10)
    assert expired["invitation"]["status"] == "expired"
    await host.expect("invitation_update", lambda m: m["invitation"]["status"] == "expired")
    late = await guest.request(
        {"type": "answer_invitation", "invitation": invitation["id"], "accept": True}
    )
    assert late["code"] == "invitation_expired"
    await host.close()
    await guest.close()


async def test_seats_leaving_and_the_host_closing(shared_server: ServerProcess) -> None:
    host = await _guest(shared_server, "sh")
    ben = await _guest(shared_server, "sb")
    table = await create_table(host, seats=3)
    joined = await ben.request({"type": "join_table", "table": table})
    assert joined["table"]["my_seat"] == 1
    assert (await ben.request({"type": "join_table", "table": table}))["type"] == "table"
    assert (await ben.request({"type": "set_seat", "table": table, "seat": 2, "bot": "casual"}))[
        "code"
    ] == "not_host"
    assert (await host.request({"type": "set_seat", "table": table, "seat": 1, "bot": "casual"}))[
        "code"
    ] == "bad_message"
    assert (await host.request({"type": "set_seat", "table": table, "seat": 2, "bot": "expert"}))[
        "type"
    ] == "ok"
    seated = await host.expect("table", lambda m: m["table"]["seats"][2]["bot"] == "expert")
    assert seated["table"]["seats"][1]["nickname"] == ben.nickname
    left = await ben.request({"type": "leave_table", "table": table})
    assert left["type"] == "left_table"
    await host.expect("table", lambda m: m["table"]["seats"][1]["nickname"] is None)
    watcher = await _guest(shared_server, "sw")
    watching = await watcher.request({"type": "watch_table", "table": table})
    assert watching["table"]["my_seat"] is None
    await host.request({"type": "leave_table", "table": table})
    closed = await watcher.expect("table_closed")
    assert closed["table"] == table
    gone = await watcher.request({"type": "join_table", "table": table})
    assert gone["code"] == "no_such_table"
    for client in (host, ben, watcher):
        await client.close()


async def test_leaving_a_running_game_hands_the_seat_to_a_bot(make_server: ServerFactory) -> None:
    server = make_server(time_scale=10)
    a = await _guest(server, "ga")
    b = await _guest(server, "gb")
    watcher = await _guest(server, "gw")
    table = await create_table(a, seats=2, point_limit=1)
    await b.request({"type": "join_table", "table": table})
    await a.request({"type": "start_game", "table": table})
    watch = await watcher.request({"type": "watch_table", "table": table})
    assert watch["table"]["view"]["hand"] == [] and watch["table"]["my_seat"] is None
    too_late = await watcher.request({"type": "join_table", "table": table})
    assert too_late["code"] == "already_started"
    await b.expect("update", lambda m: m["version"] == 1)
    await b.request({"type": "leave_table", "table": table})
    update = await a.expect("seat_update", lambda m: m["seats"][1]["left"])
    assert update["seats"][1]["nickname"] == b.nickname
    await play_out([Autoplayer(a, table)], timeout=60)
    over = await watcher.expect("game_over")
    assert over["table"] == table
    for client in (a, b, watcher):
        await client.close()


@pytest.mark.asyncio
async def test_a_guest_who_logs_out_frees_the_nickname(shared_server: ServerProcess) -> None:
    name = nickname("Gus")
    gus = await (await Client(shared_server, name).guest()).connect()
    old_cookies = dict(gus.http.cookies)
    try:
        assert (await gus.http.post("/api/logout")).json() == {"ok": True}
        for _ in range(100):
            if gus.closed is not None:
                break
            await asyncio.sleep(0.05)
        assert gus.closed == 4401
        # The old session cookie is no session any more, anywhere.
        async with httpx.AsyncClient(base_url=shared_server.base, cookies=old_cookies) as old:
            assert (await old.get("/api/me")).status_code == 401
        stale = Client(shared_server, name)
        stale.http.cookies.update(old_cookies)
        with pytest.raises(AssertionError, match="closed"):
            await stale.connect()
        assert stale.closed == 4401
        assert stale.errors()[0]["code"] == "not_authenticated"
        await stale.close()
        # Someone else may now take the name.
        again = await Client(shared_server, name.lower()).guest()
        assert again.player["id"] != gus.player["id"]
        info = (await again.http.get(f"/api/players/{name}")).json()
        assert info["nickname"] == name.lower()
        await again.close()
    finally:
        await gus.close()


@pytest.mark.asyncio
async def test_housekeeping_frees_expired_guests(
    make_server: ServerFactory, tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    long_ago = datetime.now(UTC) - timedelta(days=40)
    store = await Store.open(url, clock=lambda: long_ago)
    try:
        await store.create_guest("Ancient")
    finally:
        await store.close()
    server = make_server(db_url=url, extra=["--housekeeping-seconds", "0.2"])
    async with httpx.AsyncClient(base_url=server.base) as client:
        for _ in range(100):
            answer = await client.post("/api/guest", json={"nickname": "Ancient"})
            if answer.status_code == 200:
                break
            assert answer.json()["error"]["code"] == "nickname_taken"
            await asyncio.sleep(0.1)
        assert answer.status_code == 200, answer.text
    assert '"housekeeping"' in server.logs()
