"""The account owner's controls over the protocol: changing the password (other
sessions end, this one goes on), deleting the account (login refused, the games
played still replay under a placeholder, personal data gone), exporting one's
data. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Autoplayer, Client, ServerProcess, create_table, play_out
from .verify import check_log

pytestmark = pytest.mark.asyncio

PASSWORD = "correct horse"


async def _registered(server: ServerProcess, prefix: str) -> Client:
    return await Client(server, nickname(prefix)).register(PASSWORD)


async def _login(server: ServerProcess, name: str, password: str) -> Client:
    return await Client(server, name).login(password)


async def test_password_change_needs_the_old_one_and_ends_the_other_sessions(
    make_server: ServerFactory,
) -> None:
    server = make_server(extra=["--accounts-per-hour", "0"])
    anna = await _registered(server, "pw")
    other = await _login(server, anna.nickname, PASSWORD)
    await other.connect()

    wrong = await anna.http.post(
        "/api/account/password", json={"old_password": "not the one", "new_password": "new secret"}
    )
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "wrong_password"
    short = await anna.http.post(
        "/api/account/password", json={"old_password": PASSWORD, "new_password": "short"}
    )
    assert short.json()["error"]["code"] == "password_length"
    still = await other.http.get("/api/me")
    assert still.status_code == 200  # nothing changed by the refusals

    changed = await anna.http.post(
        "/api/account/password", json={"old_password": PASSWORD, "new_password": "new secret"}
    )
    assert changed.json() == {"ok": True, "sessions_ended": 1}
    assert (await anna.http.get("/api/me")).status_code == 200
    assert (await other.http.get("/api/me")).status_code == 401
    for _ in range(50):
        if other.closed is not None:
            break
        await asyncio.sleep(0.1)
    assert other.closed == 4401
    old = await anna.http.post("/api/login", json={"nickname": anna.nickname, "password": PASSWORD})
    assert old.json()["error"]["code"] == "bad_credentials"
    await _login(server, anna.nickname, "new secret")

    # Guessing the password from an open session is limited as logins are.
    answers = [
        await anna.http.post("/api/account/delete", json={"password": f"guess number {n}"})
        for n in range(6)
    ]
    assert [a.json()["error"]["code"] for a in answers] == ["wrong_password"] * 5 + [
        "too_many_attempts"
    ]
    assert answers[-1].status_code == 429 and int(answers[-1].headers["retry-after"]) >= 1
    assert (await anna.http.get("/api/me")).status_code == 200

    guest = Client(server, nickname("gu"))
    await guest.guest()
    refused = await guest.http.post(
        "/api/account/password", json={"old_password": PASSWORD, "new_password": "new secret"}
    )
    assert refused.json()["error"]["code"] == "not_registered"
    nobody = await Client(server, "x").http.post(
        "/api/account/password", json={"old_password": PASSWORD, "new_password": "new secret"}
    )
    assert nobody.status_code == 401
    for client in (anna, other, guest):
        await client.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_deleting_an_account_keeps_the_games_of_others(
    make_server: ServerFactory, backend: str
) -> None:
    ranked = ["--chip-established-games", "1", "--chip-established-hours", "0"]
    server = make_server(backend, time_scale=10, extra=["--accounts-per-hour", "0", *ranked])
    anna = await _registered(server, "del")
    ben = await _registered(server, "keep")
    await anna.connect()
    await ben.connect()
    table = await create_table(anna, seats=2, point_limit=1)
    await ben.request({"type": "join_table", "table": table})
    await anna.request({"type": "table_chat", "table": table, "text": "good luck"})
    await ben.request({"type": "table_chat", "table": table, "text": "thanks"})
    await anna.request({"type": "start_game", "table": table})
    await play_out([Autoplayer(anna, table), Autoplayer(ben, table)], timeout=90)
    await anna.expect("game_over")

    export = await anna.http.get("/api/me/export")
    assert export.status_code == 200
    assert "attachment" in export.headers["content-disposition"]
    data = export.json()
    assert data["player"]["nickname"] == anna.nickname
    assert [g["game"] for g in data["games"]] == [table]
    assert [line["text"] for line in data["chat"]] == ["good luck"]
    assert len(data["sessions"]) == 1 and data["sessions"][0]["revoked_at"] is None
    assert [(m["reason"], m["balance"]) for m in data["chips"]["movements"]] == [("grant", 10_000)]

    wrong = await anna.http.post("/api/account/delete", json={"password": "not the one"})
    assert wrong.json()["error"]["code"] == "wrong_password"
    assert (await anna.http.get("/api/me")).status_code == 200
    deleted = await anna.http.post("/api/account/delete", json={"password": PASSWORD})
    placeholder = f"deleted player #{anna.player['id']}"
    assert deleted.json() == {"ok": True, "nickname": placeholder}
    assert (await anna.http.get("/api/me")).status_code == 401
    login = await anna.http.post(
        "/api/login", json={"nickname": anna.nickname, "password": PASSWORD}
    )
    assert login.json()["error"]["code"] == "bad_credentials"
    gone = await ben.http.get(f"/api/players/{anna.nickname}")
    assert gone.status_code == 404

    log = (await ben.http.get(f"/api/games/{table}")).json()
    assert [s["nickname"] for s in log["seats"]] == [placeholder, ben.nickname]
    check_log(log, log["winners"])
    info = (await ben.http.get(f"/api/players/{ben.nickname}")).json()
    assert [g["game"] for g in info["recent"]] == [table]
    rankings = (await ben.http.get("/api/rankings")).json()["rankings"]
    assert anna.nickname not in {r["nickname"] for r in rankings}
    assert placeholder not in {r["nickname"] for r in rankings}
    assert ben.nickname in {r["nickname"] for r in rankings}
    await ben.close()
    await anna.close()
    # The table chat keeps the other player's line only; the nickname is free again.
    again = await Client(server, nickname("chat")).guest()
    await again.connect()
    watch = await again.request({"type": "watch_table", "table": table})
    assert [m["text"] for m in watch["table"]["chat"]] == ["thanks"]
    assert watch["table"]["seats"][0]["nickname"] == placeholder
    fresh = Client(server, anna.nickname)
    await fresh.guest()
    assert fresh.player["nickname"] == anna.nickname
    for client in (again, fresh):
        await client.close()


async def test_deleting_is_refused_during_a_running_game(make_server: ServerFactory) -> None:
    server = make_server(extra=["--accounts-per-hour", "0"])
    anna = await _registered(server, "busy")
    await anna.connect()
    table = await create_table(anna, seats=2, bots={"1": "casual"}, point_limit=1)
    await anna.request({"type": "start_game", "table": table})
    refused = await anna.http.post("/api/account/delete", json={"password": PASSWORD})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "in_game"
    assert (await anna.http.get("/api/me")).status_code == 200
    await anna.close()


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
async def test_password_guesses_sent_at_once_are_all_counted(
    make_server: ServerFactory, backend: str
) -> None:
    """The first wrong guesses of a fresh counter, sent together, all count (each
    answered ``wrong_password`` until the limit, then ``too_many_attempts``):
    none slips past the count, none fails on the counter the others made."""
    server = make_server(backend, extra=["--accounts-per-hour", "0"])
    for round_no in range(3):
        anna = await _registered(server, f"g{round_no}")
        answers = await asyncio.gather(
            *(
                anna.http.post("/api/account/delete", json={"password": f"guess {n}"})
                for n in range(8)
            )
        )
        codes = sorted(a.json()["error"]["code"] for a in answers)
        assert all(a.status_code in (403, 429) for a in answers), codes
        assert codes.count("wrong_password") <= 5 < len(codes), codes
        assert (await anna.http.get("/api/me")).status_code == 200
        await anna.close()
