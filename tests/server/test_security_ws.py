"""Abuse of the WebSocket, done the way an attacker would, against a real server:
invitations, table spam, connection floods, hostile bytes and numbers, and
requests whose replies lose their id. Each defence answers with a documented
error (or close code), changes nothing else and leaves the connection usable."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess, create_table
from .test_timers import _four_at_a_knock_table, open_knock_window

pytestmark = pytest.mark.asyncio

BACKENDS = ["sqlite", "postgresql"]


async def _guest(server: ServerProcess, prefix: str) -> Client:
    return await (await Client(server, nickname(prefix)).guest()).connect()


async def _replies(client: Client, msg_id: Any, start: int, settle: float = 0.5) -> list[Any]:
    """Every message carrying ``msg_id`` from index ``start``, after the first one
    came and a short wait for any second one."""
    await client.expect(None, lambda m: m.get("id") == msg_id, start=start)
    await asyncio.sleep(settle)
    return [m for m in client.messages[start:] if m.get("id") == msg_id]


async def _still_usable(client: Client) -> None:
    pong = await client.request({"type": "ping"})
    assert pong["type"] == "pong"
    assert client.closed is None


def _no_traceback(server: ServerProcess) -> None:
    logs = server.logs()
    assert "Traceback" not in logs and '"level": "error"' not in logs, logs[-3000:]


async def _until_connections(server: ServerProcess, count: int) -> None:
    """Wait until the server counts ``count`` open connections (``/healthz``): a
    closed one is forgotten a moment after its client has seen the close."""
    async with httpx.AsyncClient(base_url=server.base) as http:
        for _ in range(100):
            if (await http.get("/healthz")).json()["connections"] == count:
                return
            await asyncio.sleep(0.05)
    raise AssertionError(f"the server does not count {count} connections")


def _lobby_ids(message: dict[str, Any]) -> set[int]:
    return {t["id"] for t in message["tables"]}


# ------------------------------------------------------------------ invitations


async def test_a_declined_or_expired_invitation_no_longer_opens_the_table(
    make_server: ServerFactory,
) -> None:
    # An invitation lasts four seconds: Ben answers within them on a loaded machine.
    server = make_server(time_scale=30)
    host, ben, cleo = [await _guest(server, prefix) for prefix in ("ih", "ib", "ic")]
    table = await create_table(host, seats=3, access="invite")
    # Ben declines, then tries to sit down anyway.
    await host.request({"type": "invite", "table": table, "nickname": ben.nickname})
    invitation = (await ben.expect("invitation"))["invitation"]
    declined = await ben.request(
        {"type": "answer_invitation", "invitation": invitation["id"], "accept": False}
    )
    assert declined["invitation"]["status"] == "declined"
    refused = await ben.request({"type": "join_table", "table": table})
    assert refused["type"] == "error" and refused["code"] == "invite_only"
    assert (await ben.request({"type": "watch_table", "table": table}))["code"] == "invite_only"
    # Cleo lets hers expire, then tries.
    await host.request({"type": "invite", "table": table, "nickname": cleo.nickname})
    await cleo.expect("invitation_update", lambda m: m["invitation"]["status"] == "expired")
    refused = await cleo.request({"type": "join_table", "table": table})
    assert refused["type"] == "error" and refused["code"] == "invite_only"
    # Neither sees the table in the lobby any more.
    count = len(cleo.messages)
    left = await cleo.request({"type": "leave_table", "table": table})
    assert left["type"] == "left_table"
    lobby = await cleo.expect("lobby", start=count)
    assert table not in _lobby_ids(lobby)
    for client in (host, ben, cleo):
        await client.close()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_invitations_cannot_be_repeated_or_flooded(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=["--invitations-per-minute", "3"])
    host = await _guest(server, "fh")
    others = [await _guest(server, f"f{i}") for i in range(4)]
    table = await create_table(host, seats=4, access="invite")
    first = await host.request({"type": "invite", "table": table, "nickname": others[0].nickname})
    assert first["type"] == "invitation"
    # The same person again, while the first is open: refused, nothing sent to them.
    for _ in range(5):
        again = await host.request(
            {"type": "invite", "table": table, "nickname": others[0].nickname}
        )
        assert again["type"] == "error" and again["code"] == "already_invited", again
    await asyncio.sleep(0.3)
    assert sum(1 for m in others[0].messages if m["type"] == "invitation") == 1
    # At most three a minute, whoever they go to.
    for other in others[1:3]:
        sent = await host.request({"type": "invite", "table": table, "nickname": other.nickname})
        assert sent["type"] == "invitation"
    flood = await host.request({"type": "invite", "table": table, "nickname": others[3].nickname})
    assert flood["type"] == "error" and flood["code"] == "too_many_invitations"
    assert not any(m["type"] == "invitation" for m in others[3].messages)
    await _still_usable(host)
    _no_traceback(server)
    for client in (host, *others):
        await client.close()


# ----------------------------------------------------------------- table spam


async def test_a_player_hosts_only_a_few_waiting_tables(make_server: ServerFactory) -> None:
    server = make_server(extra=["--max-waiting-tables", "2"])
    spammer = await _guest(server, "ts")
    tables = [await create_table(spammer, seats=2) for _ in range(2)]
    third = await spammer.request({"type": "create_table", "settings": {"seats": 2}})
    assert third["type"] == "error" and third["code"] == "too_many_tables"
    listed = (await httpx.AsyncClient(base_url=server.base).get("/api/tables")).json()
    assert sorted(t["id"] for t in listed["tables"]) == sorted(tables)
    # Leaving one (the host leaving closes it) makes room again.
    await spammer.request({"type": "leave_table", "table": tables[0]})
    assert (await spammer.request({"type": "create_table", "settings": {}}))["type"] == "table"
    await spammer.close()


async def test_a_waiting_table_closes_when_its_host_is_gone(make_server: ServerFactory) -> None:
    # Three seconds: the reload below must be back within them on a loaded machine.
    server = make_server(extra=["--waiting-table-grace", "3"])
    looker = await _guest(server, "tl")
    host = await _guest(server, "th")
    reloader = await _guest(server, "tr")
    gone = await create_table(host, seats=2)
    kept = await create_table(reloader, seats=2)
    await looker.expect("lobby_update", lambda m: {gone, kept} <= _lobby_ids(m))
    await host.close()
    # A reload: the connection drops and comes back within the grace.
    assert reloader.ws is not None
    await reloader.ws.close()
    await asyncio.sleep(0.2)
    await reloader.connect()
    count = len(looker.messages)
    update = await looker.expect(
        "lobby_update", lambda m: gone not in _lobby_ids(m), start=count, timeout=10
    )
    assert kept in _lobby_ids(update)
    await asyncio.sleep(1.5)
    assert (await reloader.request({"type": "join_table", "table": kept}))["type"] == "table"
    assert (await looker.request({"type": "join_table", "table": gone}))["code"] == "no_such_table"
    await looker.close()
    await reloader.close()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_waiting_tables_of_a_host_who_never_returns_close_after_a_restart(
    make_server: ServerFactory, backend: str
) -> None:
    first = make_server(backend, extra=["--waiting-table-grace", "30"])
    host = await _guest(first, "rh")
    table = await create_table(host, seats=2)
    await host.close()
    first.kill()  # before the grace runs out: the table is stored as waiting
    # The grace begins as the restored tables are, before the server answers: five
    # seconds, so that on a loaded machine the table is still listed at first.
    second = make_server(db_url=first.db_url, extra=["--waiting-table-grace", "5"])
    async with httpx.AsyncClient(base_url=second.base) as http:
        assert table in [t["id"] for t in (await http.get("/api/tables")).json()["tables"]]
        for _ in range(200):
            listed = [t["id"] for t in (await http.get("/api/tables")).json()["tables"]]
            if table not in listed:
                break
            await asyncio.sleep(0.1)
        assert table not in listed
    _no_traceback(second)


async def test_the_lobby_stays_small_however_many_tables_wait(make_server: ServerFactory) -> None:
    server = make_server(extra=["--max-waiting-tables", "0"])  # no per-player limit
    spammer = await _guest(server, "ls")
    mine = [
        await create_table(spammer, seats=4, bots={"1": "casual", "2": "expert"}) for _ in range(80)
    ]
    newcomer = await Client(server, nickname("ln")).guest()
    await newcomer.connect()
    lobby = next(m for m in newcomer.messages if m["type"] == "lobby")
    raw = next(r for r in newcomer.raw if r.startswith('{"type":"lobby"'))
    assert len(lobby["tables"]) == 50
    assert _lobby_ids(lobby) == set(mine[-50:])  # the newest
    assert len(raw) < 40_000
    # The host still sees every table it sits at.
    count = len(spammer.messages)
    await spammer.request({"type": "leave_table", "table": mine[-1]})
    own = await spammer.expect("lobby", start=count)
    assert set(mine[:-1]) <= _lobby_ids(own)
    update = await newcomer.expect("lobby_update")
    assert len(update["tables"]) == 50
    await spammer.close()
    await newcomer.close()


# ----------------------------------------------------------- connection floods


async def test_one_player_cannot_open_unlimited_connections(make_server: ServerFactory) -> None:
    server = make_server()
    player = await Client(server, nickname("cp")).guest()
    tabs = []
    for _ in range(10):
        tab = Client(server, player.nickname)
        tab.http.cookies.update(player.http.cookies)
        tabs.append(await tab.connect())
    extra = Client(server, player.nickname)
    extra.http.cookies.update(player.http.cookies)
    with pytest.raises(AssertionError, match="closed"):
        await extra.connect()
    assert extra.closed == 4429
    assert extra.errors()[0]["code"] == "too_many_connections"
    for tab in tabs:
        await _still_usable(tab)
    await tabs[0].close()
    await _until_connections(server, 9)  # the closed tab's place is free
    again = Client(server, player.nickname)
    again.http.cookies.update(player.http.cookies)
    await again.connect()
    await _still_usable(again)
    for client in (*tabs[1:], extra, again, player):
        await client.close()


async def test_one_address_cannot_open_unlimited_connections(make_server: ServerFactory) -> None:
    server = make_server(extra=["--max-connections-per-address", "4"])
    clients = [await _guest(server, f"ca{i}") for i in range(4)]
    late = await Client(server, nickname("cz")).guest()
    with pytest.raises(AssertionError, match="closed"):
        await late.connect()
    assert late.closed == 4429 and late.errors()[0]["code"] == "too_many_connections"
    for client in clients:
        await _still_usable(client)
    for client in (*clients, late):
        await client.close()


# ------------------------------------------------------- hostile bytes, numbers


@pytest.mark.parametrize("backend", BACKENDS)
async def test_hostile_numbers_and_strings_get_their_error(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend)
    host = await _guest(server, "hh")
    table = await create_table(host, seats=2, access="invite")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"type": "answer_invitation", "invitation": 2**31, "accept": True}, "bad_message"),
        (
            {"type": "answer_invitation", "invitation": 2**31 - 1, "accept": True},
            "no_such_invitation",
        ),
        ({"type": "join_table", "table": 2**31}, "bad_message"),
        ({"type": "join_table", "table": 2**63}, "bad_message"),
        ({"type": "player_info", "nickname": "Anna\u0000"}, "bad_message"),
        ({"type": "invite", "table": table, "nickname": "Ben\u0000x"}, "bad_message"),
        ({"type": "invite", "table": table, "nickname": "\ud800Ben"}, "bad_message"),
        ({"type": "lobby_chat", "text": "hi \udc00 there"}, "bad_message"),
        ({"type": "create_table", "settings": {"bots": {"1" * 5000: "casual"}}}, "bad_settings"),
        ({"type": "resync", "table": table, "since": 10**30}, "bad_message"),
    ]
    for number, (message, code) in enumerate(cases):
        msg_id = f"h{number}"
        start = len(host.messages)
        assert host.ws is not None
        await host.ws.send(json.dumps({**message, "id": msg_id}))
        replies = await _replies(host, msg_id, start, settle=0.05)
        assert [r.get("code") for r in replies] == [code], (message, replies)
    # An id that cannot be echoed (a lone surrogate, too long) is itself refused.
    for bad_id in ("\udfff", "x" * 65, 1.5, [1], 2**60):
        start = len(host.messages)
        assert host.ws is not None
        await host.ws.send(json.dumps({"type": "ping", "id": bad_id}))
        error = await host.expect("error", start=start)
        assert error["code"] == "bad_message" and "'id'" in error["message"]
        assert "id" not in error
    await _still_usable(host)
    # Nothing hostile reached the lobby: a newcomer's connection works.
    newcomer = await _guest(server, "hn")
    await _still_usable(newcomer)
    _no_traceback(server)
    await host.close()
    await newcomer.close()


async def test_invalid_utf8_closes_with_1007_and_no_traceback(make_server: ServerFactory) -> None:
    server = make_server()
    client = await _guest(server, "u8")
    assert client.ws is not None
    await client.ws.send(b'{"type": "ping", "id": "\xff\xfe"}', text=True)
    for _ in range(50):
        if client.closed is not None:
            break
        await asyncio.sleep(0.05)
    assert client.closed == 1007
    # The log says so in one line, without a traceback.
    assert '"invalid_utf8"' in server.logs()
    _no_traceback(server)
    # The player simply connects again.
    await client.connect()
    await _still_usable(client)
    await client.close()


# --------------------------------------------------------- one reply per id


async def test_refusals_carry_the_request_id(shared_server: ServerProcess) -> None:
    client = await _guest(shared_server, "ri")
    assert client.ws is not None
    start = len(client.messages)
    await client.ws.send(json.dumps({"type": "lobby_chat", "id": "big", "text": "x" * 20_000}))
    assert [r["code"] for r in await _replies(client, "big", start)] == ["too_large"]
    # A burst over the rate limit: every id is answered once, pong or rate_limited.
    start = len(client.messages)
    ids = [f"b{i}" for i in range(60)]
    for msg_id in ids:
        await client.ws.send(json.dumps({"type": "ping", "id": msg_id}))
    await client.expect(None, lambda m: m.get("id") == ids[-1], start=start)
    await asyncio.sleep(0.3)
    answers: dict[str, list[str]] = {}
    for message in client.messages[start:]:
        if message.get("id") in ids:
            answers.setdefault(message["id"], []).append(message.get("code", message["type"]))
    assert sorted(answers) == sorted(ids)
    assert all(len(kinds) == 1 for kinds in answers.values()), answers
    assert {kinds[0] for kinds in answers.values()} == {"pong", "rate_limited"}
    # A binary frame with an id.
    await asyncio.sleep(2.5)
    start = len(client.messages)
    await client.ws.send(json.dumps({"type": "ping", "id": "bin"}).encode())
    assert [r["code"] for r in await _replies(client, "bin", start)] == ["bad_json"]
    await _still_usable(client)
    await client.close()


async def test_a_second_draw_held_in_the_knock_window_is_answered(
    make_server: ServerFactory,
) -> None:
    # The window (3 s) outlasts the two draws' way to the server on a loaded machine.
    clients, table = await _four_at_a_knock_table(1, make_server)
    s0, s1 = clients[0], clients[1]
    await open_knock_window(s0, table)
    start = len(s1.messages)
    for msg_id in ("d1", "d2"):
        await s1.send(
            {
                "type": "action",
                "table": table,
                "id": msg_id,
                "action": {"type": "draw", "source": "stock"},
            }
        )
    first = await _replies(s1, "d1", start, settle=0.0)
    second = await _replies(s1, "d2", start, settle=0.5)
    assert [m["type"] for m in first] == ["update"]
    assert [m.get("code") for m in second] == ["draw_pending"]
    drew = [
        e
        for m in s1.messages[start:]
        if m["type"] == "update"
        for e in m["events"]
        if e["type"] == "drew"
    ]
    assert len(drew) == 1
    for client in clients:
        await client.close()


async def test_an_action_naming_a_seat_is_refused(shared_server: ServerProcess) -> None:
    a = await _guest(shared_server, "sa")
    table = await create_table(a, seats=2, bots={"1": "casual"}, turn_seconds=120)
    await a.request({"type": "start_game", "table": table})
    await a.expect("update", lambda m: m["version"] == 1)
    for seat in (0, 1):
        refused = await a.request(
            {
                "type": "action",
                "table": table,
                "action": {"type": "draw", "source": "stock", "seat": seat},
            }
        )
        assert refused["type"] == "error" and refused["code"] == "bad_message", refused
        assert "seat" in refused["message"]
    assert a.tables[table]["version"] == 1
    drew = await a.request(
        {"type": "action", "table": table, "action": {"type": "draw", "source": "stock"}}
    )
    assert drew["type"] == "update"
    await a.close()


async def test_an_action_after_leaving_the_game_is_answered(shared_server: ServerProcess) -> None:
    a = await _guest(shared_server, "la")
    table = await create_table(a, seats=2, bots={"1": "casual"}, turn_seconds=120)
    await a.request({"type": "start_game", "table": table})
    await a.expect("update", lambda m: m["version"] == 1)
    hand = a.tables[table]["view"]["hand"]
    assert (await a.request({"type": "leave_table", "table": table}))["type"] == "left_table"
    start = len(a.messages)
    assert a.ws is not None
    # Arranging one's hand is legal at any time: only the seat's state can refuse it.
    await a.ws.send(
        json.dumps(
            {
                "type": "action",
                "table": table,
                "id": "after",
                "action": {"type": "arrange", "cards": hand[::-1]},
            }
        )
    )
    replies = await _replies(a, "after", start)
    assert [r.get("code") for r in replies] == ["not_seated"], replies
    # Joining again gives the seat back, and the player plays on.
    back = await a.request({"type": "join_table", "table": table})
    assert back["type"] == "table" and back["table"]["my_seat"] == 0
    await a.close()
