"""A player's badges agree without a reload: the page came before a game of the
player's ended elsewhere (another connection of the same account), and on going back
to the lobby the header, the players online and the panel "You" all show the level
and rating the server has now."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import Client, ServerProcess, run_in_thread
from tests.server.test_replay import finished_game
from tests.web.ui import register, wait_for

NICK = "Badger"
PASSWORD = "secret-pass"


@pytest.fixture(scope="module")
def fresh_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("badges")
    server = ServerProcess(f"sqlite+aiosqlite:///{workdir / 'romme.db'}", workdir, time_scale=10)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def play_elsewhere(server: ServerProcess) -> None:
    """A whole game of the player's on a connection of its own."""

    async def play() -> None:
        client = Client(server, NICK)
        answer = await client.http.post("/api/login", json={"nickname": NICK, "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        await client.connect()
        try:
            await finished_game(client)
        finally:
            await client.close()

    run_in_thread(play, 180)


def shown(page: Any) -> dict[str, str]:
    return page.evaluate(
        """(nick) => ({
          header: document.getElementById('me-rating')?.textContent ?? '',
          online: [...document.querySelectorAll('#player-list .player-link')]
            .find((b) => b.textContent.includes(nick))?.querySelector('.rating')?.textContent ?? '',
          glance: document.getElementById('glance-rating')?.textContent ?? '',
        })""",
        NICK,
    )


def test_badges_follow_a_game_that_ended_elsewhere(
    fresh_server: ServerProcess, new_context: Any
) -> None:
    base = fresh_server.base + "/"
    page = new_context("badges")
    register(page, base, NICK, PASSWORD)
    wait_for(page, lambda: shown(page)["online"], 15, "the own row among the players online")
    before = shown(page)
    assert before["header"] == before["online"] == "★ 1500", before
    play_elsewhere(fresh_server)
    info = httpx.get(f"{fresh_server.base}/api/players/{NICK}").json()
    assert info["rating"] != 1500, info
    # Back to the lobby (from a table, the rankings...): every badge of the player's agrees.
    page.evaluate("location.hash = '#/rankings/rating'")
    page.wait_for_selector("#rankings-table, #rankings-empty")  # a new account is not ranked yet
    page.evaluate("window.__romme.openLobby()")
    expected = f"★ {round(info['rating'])}"
    wait_for(page, lambda: shown(page)["glance"] == expected, 15, "the panel You")
    now = shown(page)
    assert now == {"header": expected, "online": expected, "glance": expected}, now
