"""Limits that one player with many sockets, or a change of mind, must not get
past, against a real server: the waiting tables one player hosts, a watch of a
private table after the invitation ended, a rematch whose table cannot be made,
and chat per player and per address."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out

pytestmark = pytest.mark.asyncio

BACKENDS = ["sqlite", "postgresql"]


async def _guest(server: ServerProcess, prefix: str) -> Client:
    return await (await Client(server, nickname(prefix)).guest()).connect()


async def _sockets(first: Client, count: int) -> list[Client]:
    """``first`` and ``count - 1`` more connections of its player (its cookie)."""
    clients = [first]
    for _ in range(count - 1):
        other = Client(first.server, first.nickname)
        other.http.cookies = first.http.cookies
        other.player = first.player
        clients.append(await other.connect())
    return clients


async def _open_tables(server: ServerProcess) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=server.base) as http:
        tables: list[dict[str, Any]] = (await http.get("/api/tables")).json()["tables"]
    return tables


def _no_traceback(server: ServerProcess) -> None:
    logs = server.logs()
    assert "Traceback" not in logs and '"level": "error"' not in logs, logs[-3000:]


# ------------------------------------------------------------ waiting tables


@pytest.mark.parametrize("backend", BACKENDS)
async def test_parallel_creates_of_one_player_stop_at_the_waiting_table_limit(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend)  # at most 3 waiting tables per host
    sockets = await _sockets(await _guest(server, "tr"), 10)
    for round_no in range(12):
        replies = await asyncio.gather(
            *(c.request({"type": "create_table", "settings": {"seats": 2}}) for c in sockets)
        )
        made = [(c, r) for c, r in zip(sockets, replies, strict=True) if r["type"] == "table"]
        refused = [r for r in replies if r["type"] != "table"]
        assert len(made) == 3, (round_no, replies)
        assert {(r["type"], r.get("code")) for r in refused} == {("error", "too_many_tables")}
        hosted = [
            t
            for t in await _open_tables(server)
            if t["host"] == sockets[0].nickname and t["status"] == "waiting"
        ]
        assert len(hosted) == 3, hosted
        # The host leaving closes each: the next round starts from none.
        for client, reply in made:
            left = await client.request({"type": "leave_table", "table": reply["table"]["id"]})
            assert left["type"] == "left_table"
    assert not await _open_tables(server)
    _no_traceback(server)
    for client in sockets:
        await client.close()


# ------------------------------------------------------- a watch that ended


async def _watching_invitee(host: Client, table: int, invitee: Client) -> dict[str, Any]:
    """``invitee`` gets an invitation to ``table`` and watches it on every socket."""
    await host.request({"type": "invite", "table": table, "nickname": invitee.nickname})
    invitation: dict[str, Any] = (await invitee.expect("invitation"))["invitation"]
    return invitation


async def _left_out(host: Client, table: int, watchers: list[Client], code: str) -> None:
    """The table goes on without ``watchers``: a chat line and a change of seats
    reach the host and not them, and their chat there is refused."""
    starts = [len(w.messages) for w in watchers]
    said = await host.request({"type": "table_chat", "table": table, "text": "still here?"})
    assert said["type"] == "ok"
    seated = await host.request({"type": "set_seat", "table": table, "seat": 2, "bot": "casual"})
    assert seated["type"] == "ok"
    await host.expect("table", lambda m: m["table"]["seats"][2]["bot"] == "casual")
    for watcher, start in zip(watchers, starts, strict=True):
        # The pong comes after anything the table sent this socket before it.
        assert (await watcher.request({"type": "ping"}))["type"] == "pong"
        got = [m for m in watcher.messages[start:] if m.get("table") == table]
        assert not got, got
        refused = await watcher.request({"type": "table_chat", "table": table, "text": "hi"})
        assert refused["type"] == "error" and refused["code"] == code, refused
    lines = [m["message"]["text"] for m in host.messages if m.get("type") == "table_chat"]
    assert lines == ["still here?"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_declined_invitation_ends_the_invitees_watch(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend)
    host = await _guest(server, "wh")
    ben = await _sockets(await _guest(server, "wb"), 2)
    table = await create_table(host, seats=3, access="invite")
    invitation = await _watching_invitee(host, table, ben[0])
    for socket in ben:
        watched = await socket.request({"type": "watch_table", "table": table})
        assert watched["type"] == "table" and watched["table"]["my_seat"] is None
    declined = await ben[0].request(
        {"type": "answer_invitation", "invitation": invitation["id"], "accept": False}
    )
    assert declined["invitation"]["status"] == "declined"
    for socket in ben:
        closed = await socket.expect("table_closed", lambda m: m["table"] == table)
        assert closed["reason"] == "you declined the invitation"
    await _left_out(host, table, ben, "not_seated")
    _no_traceback(server)
    for client in (host, *ben):
        await client.close()


async def test_an_expired_invitation_ends_the_invitees_watch(make_server: ServerFactory) -> None:
    # An invitation lasts four seconds.
    server = make_server(time_scale=30)
    host, cleo = await _guest(server, "eh"), await _guest(server, "ec")
    table = await create_table(host, seats=3, access="invite")
    await _watching_invitee(host, table, cleo)
    watched = await cleo.request({"type": "watch_table", "table": table})
    assert watched["type"] == "table"
    await cleo.expect("invitation_update", lambda m: m["invitation"]["status"] == "expired")
    closed = await cleo.expect("table_closed", lambda m: m["table"] == table)
    assert closed["reason"] == "your invitation has expired"
    await _left_out(host, table, [cleo], "not_seated")
    _no_traceback(server)
    for client in (host, cleo):
        await client.close()


# ------------------------------------------------------------ a failed rematch


async def _ledger(client: Client) -> dict[str, Any]:
    answer = await client.http.get(f"/api/players/{client.nickname}/ledger")
    assert answer.status_code == 200, answer.text
    ledger: dict[str, Any] = answer.json()
    return ledger


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_rematch_that_cannot_start_ends_failed_and_leaves_nothing(
    make_server: ServerFactory, backend: str
) -> None:
    # Every test client is 127.0.0.1: let two people of one address share a staked table.
    options = ["--accounts-per-hour", "0", "--chip-accounts-per-address", "0"]
    options += ["--chip-guest-stake-max", "1000000"]  # guests stake all they have
    server = make_server(backend, time_scale=10, extra=options)
    a, b = await _guest(server, "sa"), await _guest(server, "sb")
    old = await create_table(a, seats=2, point_limit=1, stake=100)
    assert (await b.request({"type": "join_table", "table": old}))["type"] == "table"
    started = await a.request({"type": "start_game", "table": old})
    assert started["type"] == "ok", started
    await play_out([Autoplayer(a, old), Autoplayer(b, old)], timeout=90)
    await a.expect("game_over")
    await b.expect("game_over")
    assert (await a.request({"type": "rematch", "table": old, "accept": True}))["type"] == "ok"
    # A stakes every chip it has in another game before B answers.
    chips = (await a.http.get("/api/bonus")).json()["chips"]
    elsewhere = await create_table(a, seats=2, bots={"1": "casual"}, stake=chips)
    assert (await a.request({"type": "start_game", "table": elsewhere}))["type"] == "ok"
    before = {c.nickname: await _ledger(c) for c in (a, b)}
    assert before[a.nickname]["chips"] == 0

    refused = await b.request({"type": "rematch", "table": old, "accept": True})
    assert refused["type"] == "error" and refused["code"] == "insufficient_chips", refused
    assert a.nickname in refused["message"]
    for client in (a, b):
        failed = await client.expect("rematch", lambda m: m["rematch"]["status"] == "failed")
        assert failed["table"] == old and failed["rematch"]["table"] is None
        assert failed["rematch"]["accepted"] == [0, 1]
    # No half-made table anywhere, and not a chip moved.
    tables = await _open_tables(server)
    assert [t["id"] for t in tables] == [elsewhere], tables
    assert all(t["status"] == "playing" for t in tables)
    for client, accept in ((a, False), (b, True)):
        assert await _ledger(client) == before[client.nickname]
        late = await client.request({"type": "rematch", "table": old, "accept": accept})
        assert late["type"] == "error" and late["code"] == "rematch_closed"
        assert late["message"] == "the rematch could not start"
        resync = await client.request({"type": "resync", "table": old})
        assert resync["table"]["rematch"]["status"] == "failed"
    # The host may open a new table: nothing half-made counts against it.
    for _ in range(3):
        assert (await a.request({"type": "create_table", "settings": {}}))["type"] == "table"
    _no_traceback(server)
    for client in (a, b):
        await client.close()


# ------------------------------------------------------------------- chat


async def _say_at_once(lines: list[tuple[Client, dict[str, Any]]]) -> tuple[list[Any], float]:
    """Send every chat line at once (each client as fast as the per-connection
    limit lets it); their replies, and the seconds from the first send to the
    last reply."""
    began = asyncio.get_running_loop().time()
    replies = await asyncio.gather(*(client.request(line, timeout=30) for client, line in lines))
    return replies, asyncio.get_running_loop().time() - began


def _oks(replies: list[Any]) -> int:
    refused = {(r["type"], r.get("code")) for r in replies if r["type"] != "ok"}
    assert refused <= {("error", "rate_limited")}, refused
    return sum(1 for r in replies if r["type"] == "ok")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_one_player_with_ten_sockets_cannot_flood_the_chat(
    make_server: ServerFactory, backend: str
) -> None:
    # The defaults: 2 lines a second per player, bursts of 8.
    server = make_server(backend)
    witness = await _guest(server, "cw")
    assert (await witness.request({"type": "lobby_chat", "text": "a real line"}))["type"] == "ok"
    flooder = await _sockets(await _guest(server, "cf"), 10)
    table = await create_table(flooder[0], seats=2)
    start = len(witness.messages)
    lines: list[tuple[Client, dict[str, Any]]] = []
    for index in range(30):
        for number, socket in enumerate(flooder):
            if number % 2:
                line = {"type": "table_chat", "table": table, "text": f"t{number}-{index}"}
            else:
                line = {"type": "lobby_chat", "text": f"l{number}-{index}"}
            lines.append((socket, line))
    replies, seconds = await _say_at_once(lines)
    said = _oks(replies)
    # The burst and what the rate gave back meanwhile (one line of slack), of 300.
    assert 8 <= said <= 8 + 2 * seconds + 1, (said, seconds)
    # Each refused line got its own answer; the witness heard only the lines said.
    assert (await witness.request({"type": "ping"}))["type"] == "pong"
    heard = [
        m
        for m in witness.messages[start:]
        if m.get("type") == "lobby_chat" and m["message"]["from"] == flooder[0].nickname
    ]
    lobby_said = sum(
        1
        for (_, line), reply in zip(lines, replies, strict=True)
        if line["type"] == "lobby_chat" and reply["type"] == "ok"
    )
    assert len(heard) == lobby_said
    # The lobby's history still holds the witness's line for a newcomer.
    newcomer = await _guest(server, "cn")
    history = [c["text"] for c in (await newcomer.expect("lobby"))["chat"]]
    assert "a real line" in history
    # A moment later the player may chat again.
    await asyncio.sleep(1.0)
    assert (await flooder[3].request({"type": "lobby_chat", "text": "calm now"}))["type"] == "ok"
    _no_traceback(server)
    for client in (witness, newcomer, *flooder):
        await client.close()


async def test_the_players_of_one_address_share_a_chat_limit(make_server: ServerFactory) -> None:
    server = make_server(
        extra=[
            "--accounts-per-hour",
            "0",
            "--chat-per-second-per-address",
            "1",
            "--chat-burst-per-address",
            "10",
        ]
    )
    players = [await _guest(server, f"ca{i}") for i in range(4)]
    # Eight lines each: within every player's own burst, four times the address's.
    lines = [
        (p, {"type": "lobby_chat", "text": f"{p.nickname} {i}"}) for p in players for i in range(8)
    ]
    replies, seconds = await _say_at_once(lines)
    said = _oks(replies)
    assert 10 <= said <= 10 + seconds + 1, (said, seconds)
    _no_traceback(server)
    for client in players:
        await client.close()
