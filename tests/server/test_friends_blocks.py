"""Friends and blocks over the protocol with a real server: requests and their
answers, presence, and a blocked player's invitations, chat lines and friend
requests reaching nobody who blocked them while everyone else still gets them."""

from __future__ import annotations

import asyncio
import json

import pytest

from .conftest import nickname
from .helpers import Client, ServerProcess, create_table
from .test_matches import registered

pytestmark = pytest.mark.asyncio


async def _member(server: ServerProcess, prefix: str) -> Client:
    """A registered player, connected, with its lists."""
    client = await registered(server, prefix)
    await client.expect("friends")
    return client


async def _connected(client: Client) -> Client:
    """Connected, with its lists (the last message the server sends a new connection)."""
    await client.connect()
    await client.expect("friends")
    return client


async def _guest(server: ServerProcess, prefix: str) -> Client:
    return await _connected(await Client(server, nickname(prefix)).guest())


def _names(lists: dict[str, object]) -> list[str]:
    friends = lists["friends"]
    assert isinstance(friends, list)
    return [f["nickname"] for f in friends]


async def _quiet(
    client: Client, start: int, kinds: set[str], naming: str, seconds: float = 0.6
) -> None:
    """No message of these types naming the player ``naming`` reached the client
    unasked (not as the reply to a request of its own) since ``start``."""
    await asyncio.sleep(seconds)
    got = [
        m
        for m in client.messages[start:]
        if m.get("type") in kinds and "id" not in m and naming in json.dumps(m, ensure_ascii=False)
    ]
    assert got == [], got


async def test_friend_request_accept_presence_and_remove(shared_server: ServerProcess) -> None:
    anna = await _member(shared_server, "fa")
    ben = await _member(shared_server, "fb")
    first = await anna.expect("friends")
    assert first["friends"] == [] and first["incoming"] == [] and first["blocked"] == []

    start = len(ben.messages)
    sent = await anna.request({"type": "friend_request", "nickname": ben.nickname})
    assert sent["type"] == "friends" and sent["outgoing"] == [ben.nickname]
    arrived = await ben.expect("friends", start=start)
    assert arrived["incoming"] == [anna.nickname]

    start = len(anna.messages)
    accepted = await ben.request(
        {"type": "answer_friend", "nickname": anna.nickname, "accept": True}
    )
    assert accepted["friends"] == [{"nickname": anna.nickname, "online": True}]
    assert accepted["incoming"] == []
    told = await anna.expect("friends", start=start)
    assert told["friends"] == [{"nickname": ben.nickname, "online": True}]
    assert told["outgoing"] == []

    # Presence: Ben leaves and comes back; Anna is told both times.
    start = len(anna.messages)
    await ben.close()
    gone = await anna.expect("friend_online", start=start)
    assert gone == {"type": "friend_online", "nickname": ben.nickname, "online": False}
    ben_again = Client(shared_server, ben.nickname)
    ben_again.http.cookies = ben.http.cookies
    ben_again.player = ben.player
    await ben_again.connect()
    back = await anna.expect("friend_online", lambda m: m["online"], start=start)
    assert back["nickname"] == ben.nickname
    lists = await ben_again.expect("friends")
    assert lists["friends"] == [{"nickname": anna.nickname, "online": True}]

    removed = await anna.request({"type": "remove_friend", "nickname": ben.nickname})
    assert removed["friends"] == []
    again = await ben_again.expect("friends", lambda m: m["friends"] == [])
    assert again["incoming"] == []

    # Bad requests: a clear code each, nothing changed.
    missing = await anna.request({"type": "friend_request", "nickname": "no-such-one"})
    assert missing["code"] == "no_such_player"
    self_request = await anna.request({"type": "friend_request", "nickname": anna.nickname})
    assert self_request["code"] == "cannot_befriend"
    no_request = await anna.request(
        {"type": "answer_friend", "nickname": ben.nickname, "accept": True}
    )
    assert no_request["code"] == "no_friend_request"
    guest = await _guest(shared_server, "fg")
    refused = await guest.request({"type": "friend_request", "nickname": anna.nickname})
    assert refused["code"] == "account_required"
    to_guest = await anna.request({"type": "friend_request", "nickname": guest.nickname})
    assert to_guest["code"] == "cannot_befriend"
    self_block = await anna.request({"type": "block", "nickname": anna.nickname})
    assert self_block["code"] == "cannot_block"
    for client in (anna, ben_again, guest):
        await client.close()


async def test_a_blocked_player_reaches_nobody_who_blocked_them(
    shared_server: ServerProcess,
) -> None:
    anna = await _member(shared_server, "ba")  # blocks Max
    max_ = await _member(shared_server, "bm")  # the blocked player
    cleo = await _member(shared_server, "bc")  # a bystander
    await anna.expect("friends")
    start_max = len(max_.messages)
    blocked = await anna.request({"type": "block", "nickname": max_.nickname})
    assert blocked["blocked"] == [max_.nickname]

    # Lobby chat: Cleo gets Max's line, Anna does not; Anna's own lines still reach Max.
    start = {c.nickname: len(c.messages) for c in (anna, cleo)}
    await max_.request({"type": "lobby_chat", "text": "hello lobby"})
    line = await cleo.expect("lobby_chat", start=start[cleo.nickname])
    assert line["message"]["from"] == max_.nickname
    await anna.request({"type": "lobby_chat", "text": "anna here"})
    await max_.expect("lobby_chat", lambda m: m["message"]["from"] == anna.nickname)

    # Friend request: Max sees it pending; Anna never sees it.
    request = await max_.request({"type": "friend_request", "nickname": anna.nickname})
    assert request["type"] == "friends" and request["outgoing"] == [anna.nickname]

    # Invitation: Max's invitation to Anna is answered as usual but never reaches
    # her; his invitation to Cleo does.
    table = await create_table(max_, seats=3, access="invite")
    invitation = await max_.request({"type": "invite", "table": table, "nickname": anna.nickname})
    assert invitation["type"] == "invitation"
    await max_.request({"type": "invite", "table": table, "nickname": cleo.nickname})
    await cleo.expect("invitation", lambda m: m["invitation"]["from"] == max_.nickname)

    # The invite-only table stays closed to Anna, and out of her lobby.
    joined = await anna.request({"type": "join_table", "table": table})
    assert joined["type"] == "error" and joined["code"] == "invite_only"
    await _quiet(anna, start[anna.nickname], {"lobby_chat", "invitation", "friends"}, max_.nickname)
    # Max is not told that he is blocked.
    await _quiet(max_, start_max, {"friends"}, anna.nickname, seconds=0)
    lobby_tables = [
        t["id"] for m in anna.messages if m["type"] == "lobby_update" for t in m["tables"]
    ]
    assert table not in lobby_tables

    # At an open table of Cleo's where all three sit, Max's table chat reaches Cleo only.
    open_table = await create_table(cleo, seats=3)
    await anna.request({"type": "join_table", "table": open_table})
    await max_.request({"type": "join_table", "table": open_table})
    start_anna, start_cleo = len(anna.messages), len(cleo.messages)
    await max_.request({"type": "table_chat", "table": open_table, "text": "psst"})
    await cleo.expect("table_chat", lambda m: m["message"]["text"] == "psst", start=start_cleo)
    await cleo.request({"type": "table_chat", "table": open_table, "text": "hi all"})
    await anna.expect("table_chat", lambda m: m["message"]["text"] == "hi all", start=start_anna)
    assert not [
        m
        for m in anna.messages[start_anna:]
        if m["type"] == "table_chat" and m["message"]["from"] == max_.nickname
    ]
    # A fresh view of the table (a reload) holds no line of Max's either.
    snapshot = await anna.request({"type": "resync", "table": open_table})
    assert snapshot["type"] == "table"
    texts = [c["text"] for c in snapshot["table"]["chat"]]
    assert "hi all" in texts and "psst" not in texts
    reload = Client(shared_server, anna.nickname)
    reload.http.cookies = anna.http.cookies
    await reload.connect()
    lobby = await reload.expect("lobby")
    assert "hello lobby" not in [c["text"] for c in lobby["chat"]]
    assert max_.nickname not in [i["from"] for i in lobby["invitations"]]
    assert (await reload.expect("friends"))["incoming"] == []
    await reload.close()

    # Unblock: Max's new lines reach Anna again; his request sent while blocked
    # stays hidden, a new one arrives.
    unblocked = await anna.request({"type": "unblock", "nickname": max_.nickname})
    assert unblocked["blocked"] == [] and unblocked["incoming"] == []
    hidden_id = invitation["invitation"]["id"]
    late = await anna.request(
        {"type": "answer_invitation", "invitation": hidden_id, "accept": True}
    )
    assert late["code"] == "no_such_invitation"
    reload = Client(shared_server, anna.nickname)
    reload.http.cookies = anna.http.cookies
    await reload.connect()
    lobby = await reload.expect("lobby")
    assert hidden_id not in [i["id"] for i in lobby["invitations"]]
    await reload.close()
    start_anna = len(anna.messages)
    await max_.request({"type": "lobby_chat", "text": "hello again"})
    await anna.expect(
        "lobby_chat", lambda m: m["message"]["text"] == "hello again", start=start_anna
    )
    await max_.request({"type": "table_chat", "table": open_table, "text": "sorry"})
    await anna.expect("table_chat", lambda m: m["message"]["text"] == "sorry", start=start_anna)
    await max_.request({"type": "remove_friend", "nickname": anna.nickname})
    await max_.request({"type": "friend_request", "nickname": anna.nickname})
    arrived = await anna.expect(
        "friends", lambda m: m["incoming"] == [max_.nickname], start=start_anna
    )
    assert arrived["blocked"] == []
    table2 = await create_table(max_, seats=2, access="invite")
    await max_.request({"type": "invite", "table": table2, "nickname": anna.nickname})
    await anna.expect("invitation", lambda m: m["invitation"]["table"] == table2, start=start_anna)
    for client in (anna, max_, cleo):
        await client.close()


async def test_blocking_ends_a_friendship_and_blocked_cannot_be_befriended(
    shared_server: ServerProcess,
) -> None:
    anna = await _member(shared_server, "ea")
    ben = await _member(shared_server, "eb")
    await anna.request({"type": "friend_request", "nickname": ben.nickname})
    await ben.expect("friends", lambda m: m["incoming"] == [anna.nickname])
    await ben.request({"type": "answer_friend", "nickname": anna.nickname, "accept": True})
    start = len(ben.messages)
    lists = await anna.request({"type": "block", "nickname": ben.nickname})
    assert lists["friends"] == [] and lists["blocked"] == [ben.nickname]
    await ben.expect("friends", lambda m: m["friends"] == [], start=start)
    refused = await anna.request({"type": "friend_request", "nickname": ben.nickname})
    assert refused["code"] == "cannot_befriend"
    # Ben's presence no longer reaches Anna.
    start = len(anna.messages)
    await ben.close()
    await _quiet(anna, start, {"friend_online"}, ben.nickname)
    await anna.close()
