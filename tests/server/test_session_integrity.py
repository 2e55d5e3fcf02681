"""A session's end is ordered with every login, and closes the session's sockets.

Against a real ``romme serve`` on SQLite and PostgreSQL: logins that race a
password change or a ban, over and over, leave no live session behind; revoking
one session or logging out closes that session's sockets (4401) and no other's, on
every node of a cluster too; a socket opened while its session ends does not stay
open; an account's deletion is ordered with the start of a game where the player
sits; a deleted host's table no longer shows the old nickname; the export holds
everything docs/protocol.md lists.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from romme.server.auth import COOKIE_NAME

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess, admin, create_table
from .redis_server import RedisServer, redis_up

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

BACKENDS = ["sqlite", "postgresql"]
PASSWORDS = ("first secret", "second secret")
ROUNDS = 8
"""How many times each race is run."""
LOOPS = 3
"""Login loops racing each password change or ban."""
OPTIONS = ["--accounts-per-hour", "0", "--forwarded-allow-ips", "127.0.0.1"]
"""Addresses come from ``X-Forwarded-For``, so that each login loop counts its
refused logins (after the change) at an address of its own."""


def _admin(server: ServerProcess, *args: str) -> None:
    done = admin(server, *args)
    assert done.returncode == 0, done.stderr


async def _registered(server: ServerProcess, prefix: str, password: str = PASSWORDS[0]) -> Client:
    return await Client(server, nickname(prefix)).register(password)


async def _login(server: ServerProcess, name: str, password: str) -> Client:
    return await Client(server, name).login(password)


async def _login_loop(
    server: ServerProcess, name: str, password: str, address: str, cookies: list[str],
    running: asyncio.Event,
) -> str:  # fmt: skip
    """Log in again and again (each time a new session) until a login is refused;
    returns the refusal's code. ``running`` is set after the first login."""
    async with httpx.AsyncClient(
        base_url=server.base, timeout=60, headers={"X-Forwarded-For": address}
    ) as http:
        while True:
            http.cookies.clear()
            answer = await http.post("/api/login", json={"nickname": name, "password": password})
            if answer.status_code != 200:
                code: str = answer.json()["error"]["code"]
                return code
            cookies.append(answer.cookies[COOKIE_NAME])
            running.set()


async def _live(server: ServerProcess, cookies: list[str]) -> list[str]:
    """The cookies whose sessions are still live."""
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        answers = [
            await http.get("/api/me", headers={"Cookie": f"{COOKIE_NAME}={cookie}"})
            for cookie in cookies
        ]
    assert {a.status_code for a in answers} <= {200, 401}
    return [cookie for cookie, a in zip(cookies, answers, strict=True) if a.status_code == 200]


async def _race(
    server: ServerProcess, name: str, password: str, round_no: int, end: Any
) -> tuple[list[str], list[str]]:
    """Run :data:`LOOPS` login loops, wait until each has logged in, then ``end()``
    (the password change or the ban) while they go on; returns the cookies they
    got and the codes that stopped them."""
    cookies: list[str] = []
    running = [asyncio.Event() for _ in range(LOOPS)]
    loops = [
        asyncio.create_task(
            _login_loop(server, name, password, f"10.{round_no}.{n}.1", cookies, running[n])
        )
        for n in range(LOOPS)
    ]
    for loop, ran in zip(loops, running, strict=True):
        waiting = asyncio.create_task(ran.wait())
        await asyncio.wait([waiting, loop], timeout=120, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        assert ran.is_set(), f"round {round_no}: a login loop never logged in: {loop}"
    await end()
    codes = await asyncio.wait_for(asyncio.gather(*loops), 120)
    return cookies, codes


async def _closed(client: Client, timeout: float = 20) -> int:
    """The close code of the client's socket, once it is closed."""
    deadline = time.monotonic() + timeout
    while client.closed is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert client.closed is not None, f"{client.nickname}: the socket is still open"
    return client.closed


async def _still_open(client: Client) -> None:
    """The socket answers a request (so it was not closed)."""
    assert (await client.request({"type": "ping"}))["type"] == "pong"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_logins_racing_a_password_change_leave_no_session(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=OPTIONS)
    owner = await _registered(server, "pwrace")
    for round_no in range(ROUNDS):
        old, new = PASSWORDS[round_no % 2], PASSWORDS[(round_no + 1) % 2]
        answers: list[httpx.Response] = []

        async def change(
            old: str = old, new: str = new, answers: list[httpx.Response] = answers
        ) -> None:
            answers.append(
                await owner.http.post(
                    "/api/account/password", json={"old_password": old, "new_password": new}
                )
            )

        cookies, codes = await _race(server, owner.nickname, old, round_no, change)
        assert answers[0].status_code == 200, answers[0].text
        assert codes == ["bad_credentials"] * LOOPS
        # Every login used the old password: its session came before the change
        # (which ended it) or it was refused.
        assert await _live(server, cookies) == [], f"round {round_no}"
        listed = (await owner.http.get("/api/sessions")).json()["sessions"]
        assert [s["current"] for s in listed] == [True], f"round {round_no}"
        assert answers[0].json()["sessions_ended"] >= 1


@pytest.mark.parametrize("backend", BACKENDS)
async def test_logins_racing_a_ban_leave_no_session(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=OPTIONS)
    mod = await _registered(server, "banmod")
    _admin(server, "grant-moderator", mod.nickname)
    bert = await _registered(server, "banned")
    for round_no in range(ROUNDS):
        answers: list[httpx.Response] = []

        async def ban(answers: list[httpx.Response] = answers) -> None:
            answers.append(
                await mod.http.post("/api/moderation/ban", json={"nickname": bert.nickname})
            )

        cookies, codes = await _race(server, bert.nickname, PASSWORDS[0], round_no, ban)
        assert answers[0].status_code == 200, answers[0].text
        assert codes == ["banned"] * LOOPS
        assert await _live(server, cookies) == [], f"round {round_no}"
        # The last session made cannot open a socket either.
        async with connect(
            server.ws_url, additional_headers={"Cookie": f"{COOKIE_NAME}={cookies[-1]}"}
        ) as ws:
            await ws.recv()
            await asyncio.wait_for(ws.wait_closed(), 20)
            assert ws.close_code == 4401
        lifted = await mod.http.post(
            "/api/moderation/lift", json={"nickname": bert.nickname, "kind": "ban"}
        )
        assert lifted.json() == {"lifted": True}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_ending_one_session_closes_its_sockets_and_no_others(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=OPTIONS)
    anna = await _registered(server, "revoke")
    await anna.connect()
    phone = await (await _login(server, anna.nickname, PASSWORDS[0])).connect()
    laptop = await (await _login(server, anna.nickname, PASSWORDS[0])).connect()
    listed = (await laptop.http.get("/api/sessions")).json()["sessions"]
    phone_session = [s["id"] for s in listed if not s["current"]]
    assert len(phone_session) == 2  # anna's first session and the phone's, newest first

    # The laptop revokes the phone's session: the phone's socket closes, at once,
    # before it can chat or open a table; the others go on.
    answer = await laptop.http.post("/api/sessions/revoke", json={"id": phone_session[0]})
    assert answer.json() == {"ok": True}
    assert await _closed(phone) == 4401
    assert (await phone.http.get("/api/me")).status_code == 401
    await _still_open(laptop)
    await _still_open(anna)

    # A logout ends this session only, and closes its socket.
    assert (await laptop.http.post("/api/logout")).json() == {"ok": True}
    assert await _closed(laptop) == 4401
    await _still_open(anna)
    for client in (anna, phone, laptop):
        await client.close()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_socket_opened_while_its_session_ends_closes(
    make_server: ServerFactory, backend: str
) -> None:
    """The socket's handshake checks the session, the revocation closes the
    sockets it finds: a socket registered between the two must close too."""
    server = make_server(backend, extra=OPTIONS)
    anna = await _registered(server, "wsrace")
    for round_no in range(ROUNDS):
        other = await _login(server, anna.nickname, PASSWORDS[0])
        listed = (await anna.http.get("/api/sessions")).json()["sessions"]
        session_id = next(s["id"] for s in listed if not s["current"])
        headers = {"Cookie": other.cookie_header()}

        async def open_socket(headers: dict[str, str] = headers) -> int | None:
            async with connect(server.ws_url, additional_headers=headers) as ws:
                with pytest.raises(Exception):  # noqa: B017 - closed: ConnectionClosed
                    while True:
                        await asyncio.wait_for(ws.recv(), 20)
                return ws.close_code

        socket, revoked = await asyncio.gather(
            open_socket(),
            anna.http.post("/api/sessions/revoke", json={"id": session_id}),
        )
        assert revoked.json() == {"ok": True}
        assert socket == 4401, f"round {round_no}"
        await other.http.aclose()


async def _start_or_delete(
    host: Client, table: int, password: str
) -> tuple[dict[str, Any], httpx.Response]:
    """The host asks to start the game and to delete the account at once."""
    start = asyncio.create_task(
        host.request({"type": "start_game", "table": table, "fill": "casual"}, timeout=30)
    )
    deleted = await host.http.post("/api/account/delete", json={"password": password})
    try:
        started = await start
    except AssertionError:  # the socket closed before the answer came
        started = {"type": "closed"}
    return started, deleted


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_deletion_is_ordered_with_the_start_of_a_game(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=OPTIONS)
    watcher = await (await Client(server, nickname("watch")).guest()).connect()
    outcomes = set()
    for round_no in range(ROUNDS):
        host = await (await _registered(server, "delrace")).connect()
        table = await create_table(host, seats=2)
        started, deleted = await _start_or_delete(host, table, PASSWORDS[0])
        stored = await watcher.request({"type": "watch_table", "table": table})
        if deleted.status_code == 200:
            # Deleted first: no game started with the player seated.
            outcomes.add("deleted")
            assert started["type"] != "ok", f"round {round_no}: {started}"
            if stored["type"] == "table":
                seats = stored["table"]["seats"]
                assert stored["table"]["status"] != "playing", f"round {round_no}: {stored}"
                assert all(s["nickname"] != host.nickname for s in seats)
        else:
            # The game started first: the deletion is refused and nothing changed.
            outcomes.add("refused")
            assert deleted.json()["error"]["code"] == "in_game", deleted.text
            assert deleted.status_code == 409
            assert started["type"] == "ok", started
            assert (await host.http.get("/api/me")).status_code == 200
            assert stored["type"] == "table" and stored["table"]["status"] == "playing"
            await host.request({"type": "leave_table", "table": table})
        await host.close()
    assert outcomes  # each round ended one of the two ways


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_deleted_hosts_running_table_shows_the_placeholder(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=OPTIONS)
    host = await (await _registered(server, "delhost")).connect()
    guest = await (await Client(server, nickname("delgst")).guest()).connect()
    table = await create_table(host, seats=2)
    assert (await guest.request({"type": "join_table", "table": table}))["type"] == "table"
    assert (await host.request({"type": "start_game", "table": table}))["type"] == "ok"
    # The host leaves the running game (a seat left may be deleted) and deletes.
    await host.request({"type": "leave_table", "table": table})
    deleted = await host.http.post("/api/account/delete", json={"password": PASSWORDS[0]})
    assert deleted.status_code == 200, deleted.text
    placeholder = deleted.json()["nickname"]
    # Someone else takes the freed nickname at once: the table does not name them.
    await _registered_as(server, host.nickname)
    listed = (await guest.http.get("/api/tables")).json()["tables"]
    running = next(t for t in listed if t["id"] == table)
    assert running["host"] == placeholder
    again = await guest.request({"type": "watch_table", "table": table})
    assert again["table"]["host"] == placeholder
    assert host.nickname not in {s["nickname"] for s in again["table"]["seats"]}
    await guest.close()


async def _registered_as(server: ServerProcess, name: str) -> Client:
    client = Client(server, name)
    answer = await client.http.post(
        "/api/register", json={"nickname": name, "password": PASSWORDS[1]}
    )
    assert answer.status_code == 200, answer.text
    return client


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_export_holds_friends_blocks_reports_and_statistics(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=OPTIONS)
    anna = await (await _registered(server, "expo")).connect()
    ben = await (await _registered(server, "expben")).connect()
    cleo = await (await _registered(server, "expcleo")).connect()
    asked = await anna.request({"type": "friend_request", "nickname": ben.nickname})
    assert asked["type"] != "error", asked
    blocked = await anna.request({"type": "block", "nickname": cleo.nickname})
    assert blocked["type"] != "error", blocked
    report = await anna.http.post(
        "/api/reports", json={"nickname": cleo.nickname, "reason": "other", "text": "ads"}
    )
    assert report.status_code == 200, report.text
    data = (await anna.http.get("/api/me/export")).json()
    assert [(f["player"], f["nickname"], f["sent"], f["status"]) for f in data["friends"]] == [
        (ben.player["id"], ben.nickname, True, "pending")
    ]
    assert [(b["player"], b["nickname"]) for b in data["blocks"]] == [
        (cleo.player["id"], cleo.nickname)
    ]
    assert [(r["player"], r["reason"], r["text"]) for r in data["reports"]] == [
        (cleo.player["id"], "other", "ads")
    ]
    assert set(data["statistics"]) == {"xp", "level", "stats"}
    # What others keep about the player is theirs: not in the player's export.
    theirs = (await cleo.http.get("/api/me/export")).json()
    assert theirs["blocks"] == [] and theirs["reports"] == []
    for client in (anna, ben, cleo):
        await client.close()


async def test_an_ended_session_closes_its_sockets_on_every_node(
    make_server: ServerFactory, redis: RedisServer
) -> None:
    db_url = make_server("postgresql", start=False).db_url
    node_a, node_b = (
        make_server(db_url=db_url, extra=[*OPTIONS, "--redis", redis.url, "--node-id", n])
        for n in ("node-a", "node-b")
    )
    await redis_up([node_a, node_b])
    laptop = await (await _registered(node_a, "cluster")).connect()
    phone = await (await _login(node_b, laptop.nickname, PASSWORDS[0])).connect()
    tablet = await (await _login(node_b, laptop.nickname, PASSWORDS[0])).connect()
    listed = (await laptop.http.get("/api/sessions")).json()["sessions"]
    phone_id = listed[1]["id"]  # newest first: the tablet's, the phone's, the laptop's
    assert [s["current"] for s in listed] == [False, False, True]

    # Ended on node-a, the phone's session closes its socket on node-b.
    answer = await laptop.http.post("/api/sessions/revoke", json={"id": phone_id})
    assert answer.json() == {"ok": True}
    assert await _closed(phone) == 4401
    await _still_open(tablet)
    # A logout through node-a closes that session's socket on node-b.
    tablet.http = httpx.AsyncClient(base_url=node_a.base, cookies=tablet.http.cookies)
    assert (await tablet.http.post("/api/logout")).json() == {"ok": True}
    assert await _closed(tablet) == 4401
    await _still_open(laptop)
    # A password change through node-b keeps its own session's socket on node-a.
    other = await (await _login(node_a, laptop.nickname, PASSWORDS[0])).connect()
    laptop.http = httpx.AsyncClient(base_url=node_b.base, cookies=laptop.http.cookies)
    changed = await laptop.http.post(
        "/api/account/password",
        json={"old_password": PASSWORDS[0], "new_password": PASSWORDS[1]},
    )
    assert changed.json() == {"ok": True, "sessions_ended": 1}
    assert await _closed(other) == 4401
    await _still_open(laptop)
    for client in (laptop, phone, tablet, other):
        await client.close()
