"""A guest's nickname after the browser is closed: the same browser gets the same
player back; someone else gets the nickname once no connection has held it for
``--guest-hold-seconds`` (3 s here) and the guest sits at no running game."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess, create_table

pytestmark = pytest.mark.asyncio

HOLD = 3.0
OPTIONS = ["--guest-hold-seconds", str(HOLD)]


async def _sign_in(
    server: ServerProcess, name: str, cookies: httpx.Cookies | None = None
) -> httpx.Response:
    """``POST /api/guest`` from a browser (with its cookies, or a new one)."""
    async with httpx.AsyncClient(base_url=server.base, cookies=cookies) as http:
        return await http.post("/api/guest", json={"nickname": name})


def _code(answer: httpx.Response) -> Any:
    return answer.json().get("error", {}).get("code")


async def _leave(client: Client) -> httpx.Cookies:
    """Close the browser: the connection ends; its cookies are kept."""
    cookies = httpx.Cookies(client.http.cookies)
    await client.close()
    return cookies


async def test_a_closed_guest_nickname_returns_to_its_browser_or_goes_to_another(
    make_server: ServerFactory,
) -> None:
    server = make_server(extra=OPTIONS)
    anna = await (await Client(server, nickname("anna")).guest()).connect()
    await anna.request({"type": "lobby_chat", "text": "hello from anna"})
    waiting = await create_table(anna, seats=3)
    # Bea sits at a running game and closes her browser, as Anna does.
    bea = await (await Client(server, nickname("bea")).guest()).connect()
    running = await create_table(
        bea, seats=2, bots={"1": "beginner"}, point_limit=1000, turn_seconds=120
    )
    assert (await bea.request({"type": "start_game", "table": running}))["type"] == "ok"

    # While Anna is connected, her nickname is hers.
    assert _code(await _sign_in(server, anna.nickname)) == "nickname_taken"
    anna_cookies = await _leave(anna)
    bea_cookies = await _leave(bea)
    # Just closed: still hers, for anyone else ...
    taken = await _sign_in(server, anna.nickname)
    assert taken.status_code == 409 and _code(taken) == "nickname_taken"
    # ... but her own browser gets the same player back, even in another case.
    again = await _sign_in(server, anna.nickname.upper(), anna_cookies)
    assert again.status_code == 200, again.text
    assert again.json()["player"] == anna.player

    await asyncio.sleep(HOLD + 0.5)
    # Nobody held Anna's nickname for a while: another person gets it.
    other = await _sign_in(server, anna.nickname)
    assert other.status_code == 200, other.text
    assert other.json()["player"]["id"] != anna.player["id"]
    assert other.json()["player"]["nickname"] == anna.nickname
    # Anna's old session is over; the table she waited at is closed.
    async with httpx.AsyncClient(base_url=server.base, cookies=anna_cookies) as http:
        assert (await http.get("/api/me")).status_code == 401
        assert (
            _code(await http.post("/api/guest", json={"nickname": anna.nickname}))
            == "nickname_taken"
        )
    tables = httpx.get(server.base + "/api/tables").json()["tables"]
    assert waiting not in [t["id"] for t in tables]
    # What she wrote keeps the name she wrote it under; the new player starts afresh.
    newcomer = Client(server, anna.nickname)
    newcomer.http = httpx.AsyncClient(base_url=server.base, cookies=other.cookies)
    await newcomer.connect()
    # On connect the lobby comes after welcome (and before the friends lists).
    lobby = next(m for m in reversed(newcomer.messages) if m["type"] == "lobby")
    assert {"from": anna.nickname, "text": "hello from anna"} in [
        {"from": m["from"], "text": m["text"]} for m in lobby["chat"]
    ]
    info = httpx.get(server.base + f"/api/players/{anna.nickname}").json()
    assert info["games_played"] == 0 and info["recent"] == []
    await newcomer.close()

    # Bea sits at a running game: her nickname stays hers until it is over.
    assert _code(await _sign_in(server, bea.nickname)) == "nickname_taken"
    back = await _sign_in(server, bea.nickname, bea_cookies)
    assert back.status_code == 200 and back.json()["player"] == bea.player
    bea_again = Client(server, bea.nickname)
    bea_again.http = httpx.AsyncClient(base_url=server.base, cookies=back.cookies)
    await bea_again.connect()
    seat = await bea_again.expect("table", lambda m: m["table"]["id"] == running)
    assert seat["table"]["my_seat"] == 0 and seat["table"]["status"] == "playing"
    await bea_again.close()


async def test_after_a_restart_the_time_since_the_start_counts_as_held(
    make_server: ServerFactory,
) -> None:
    first = make_server(extra=OPTIONS)
    carl = await (await Client(first, nickname("carl")).guest()).connect()
    carl_cookies = await _leave(carl)
    await asyncio.sleep(HOLD + 0.5)
    first.stop()
    second = make_server(db_url=first.db_url, extra=OPTIONS)
    # The new server does not know when Carl was last here: he gets a while.
    assert _code(await _sign_in(second, carl.nickname)) == "nickname_taken"
    await asyncio.sleep(HOLD + 0.5)
    assert (await _sign_in(second, carl.nickname)).status_code == 200
    async with httpx.AsyncClient(base_url=second.base, cookies=carl_cookies) as http:
        assert (await http.get("/api/me")).status_code == 401
