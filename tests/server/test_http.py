"""The HTTP side: health, guests, accounts, sessions, player info, games, rankings."""

from __future__ import annotations

import httpx
import pytest

from romme.server.app import WEB_DIR

from .conftest import nickname
from .helpers import ServerProcess


def test_healthz_reports_database_tables_and_connections(shared_server: ServerProcess) -> None:
    answer = httpx.get(shared_server.base + "/healthz")
    assert answer.status_code == 200
    data = answer.json()
    assert data["ok"] is True and data["db"] is True
    assert {"tables", "connections"} <= set(data)
    # The event loop's worst lateness of each of the last 60 seconds.
    lag = data["loop_lag_ms"]
    assert len(lag) == 60 and all(isinstance(ms, int) and ms >= 0 for ms in lag)


def test_guest_gets_a_signed_httponly_session_cookie(shared_server: ServerProcess) -> None:
    name = nickname("Anna")
    with httpx.Client(base_url=shared_server.base) as client:
        answer = client.post("/api/guest", json={"nickname": name})
        assert answer.status_code == 200, answer.text
        player = answer.json()["player"]
        assert player["nickname"] == name and player["guest"] is True
        cookie = answer.headers["set-cookie"]
        assert "romme_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
        assert client.get("/api/me").json()["player"]["id"] == player["id"]
        assert client.post("/api/logout").json() == {"ok": True}
        assert client.get("/api/me").status_code == 401


def test_forged_cookie_is_not_a_session(shared_server: ServerProcess) -> None:
    answer = httpx.get(shared_server.base + "/api/me", cookies={"romme_session": "eyJwIjoxfQ.x.y"})
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "not_authenticated"


@pytest.mark.parametrize(
    ("name", "code", "status"),
    [
        ("ab", "nickname_length", 400),
        ("x" * 21, "nickname_length", 400),
        ("<b>hi</b>", "nickname_characters", 400),
        ("_anna", "nickname_characters", 400),
        ("an na", "nickname_characters", 400),
    ],
)
def test_nickname_rules_give_clear_errors(
    shared_server: ServerProcess, name: str, code: str, status: int
) -> None:
    answer = httpx.post(shared_server.base + "/api/guest", json={"nickname": name})
    assert answer.status_code == status
    error = answer.json()["error"]
    assert error["code"] == code and error["message"]


def test_nicknames_are_unique_without_regard_to_case(shared_server: ServerProcess) -> None:
    name = nickname("Ben")
    assert httpx.post(shared_server.base + "/api/guest", json={"nickname": name}).status_code == 200
    again = httpx.post(shared_server.base + "/api/guest", json={"nickname": name.upper()})
    assert again.status_code == 409 and again.json()["error"]["code"] == "nickname_taken"


def test_register_login_and_a_guest_keeping_its_nickname(shared_server: ServerProcess) -> None:
    name = nickname("Cleo")
    with httpx.Client(base_url=shared_server.base) as client:
        guest = client.post("/api/guest", json={"nickname": name}).json()["player"]
        short = client.post("/api/register", json={"nickname": name, "password": "short"})
        assert short.status_code == 400 and short.json()["error"]["code"] == "password_length"
        registered = client.post(
            "/api/register", json={"nickname": name, "password": "correct horse"}
        )
        assert registered.status_code == 200, registered.text
        player = registered.json()["player"]
        assert player["id"] == guest["id"] and player["guest"] is False
    with httpx.Client(base_url=shared_server.base) as other:
        wrong = other.post("/api/login", json={"nickname": name, "password": "wrong horse"})
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "bad_credentials"
        right = other.post(
            "/api/login", json={"nickname": name.lower(), "password": "correct horse"}
        )
        assert right.status_code == 200 and right.json()["player"]["id"] == guest["id"]
        assert other.get("/api/me").json()["player"]["nickname"] == name


def test_bad_bodies_are_refused(shared_server: ServerProcess) -> None:
    base = shared_server.base
    big = httpx.post(
        base + "/api/guest",
        content=b'{"nickname": "' + b"a" * 20000 + b'"}',
        headers={"content-type": "application/json"},
    )
    assert big.status_code == 413 and big.json()["error"]["code"] == "too_large"
    bad = httpx.post(
        base + "/api/guest", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_json"
    missing = httpx.post(base + "/api/login", json={"nickname": 5})
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "bad_message"


def test_player_info_games_and_rankings(shared_server: ServerProcess) -> None:
    base = shared_server.base
    assert httpx.get(base + "/api/players/nobody-here").status_code == 404
    assert httpx.get(base + "/api/games/999999").status_code == 404
    assert httpx.get(base + "/api/games/abc").status_code == 404
    name = nickname("Dora")
    httpx.post(base + "/api/guest", json={"nickname": name})
    info = httpx.get(base + f"/api/players/{name}").json()
    assert info["nickname"] == name and info["games_played"] == 0 and info["recent"] == []
    rankings = httpx.get(base + "/api/rankings?limit=5").json()["rankings"]
    assert isinstance(rankings, list)
    assert httpx.get(base + "/api/rankings?limit=x").status_code == 400


def test_root_serves_the_web_client_or_a_notice(shared_server: ServerProcess) -> None:
    answer = httpx.get(shared_server.base + "/")
    assert answer.status_code == 200
    assert "html" in answer.headers["content-type"]


def test_running_tables_are_listed_for_spectators(shared_server: ServerProcess) -> None:
    answer = httpx.get(shared_server.base + "/api/tables")
    assert answer.status_code == 200 and isinstance(answer.json()["tables"], list)


def test_the_web_client_goes_out_compressed(shared_server: ServerProcess) -> None:
    plain = httpx.get(shared_server.base + "/js/lobby.js", headers={"Accept-Encoding": "identity"})
    packed = httpx.get(shared_server.base + "/js/lobby.js", headers={"Accept-Encoding": "gzip"})
    assert plain.status_code == packed.status_code == 200
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.content == plain.content == (WEB_DIR / "js" / "lobby.js").read_bytes()
    assert int(packed.headers["content-length"]) < len(plain.content) / 2
