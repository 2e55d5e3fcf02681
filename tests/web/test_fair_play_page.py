"""The moderators' fair-play panel in Chromium (docs/chips.md, "For moderators"):
two guests of one address finish a staked game in which one of them held back from
going out; the moderator's page lists the game with its evidence (one address, the
held-back turns, each a link to the replay at that position) and the pair; Void
reverses the game and the moderation log says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bots.holding_back import HOLDS, HoldingBack
from tests.server.helpers import (
    Autoplayer,
    Client,
    ServerProcess,
    admin,
    create_table,
    play_out,
    run_in_thread,
)
from tests.web.ui import register

PASSWORD = "secret-pass"


@pytest.fixture()
def staked_server(tmp_path: Path) -> Iterator[ServerProcess]:
    extra = ["--accounts-per-hour", "0", "--chip-accounts-per-address", "0"]
    server = ServerProcess(
        f"sqlite+aiosqlite:///{tmp_path / 'romme.db'}", tmp_path, time_scale=10, extra=extra
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()


def held_back_game(server: ServerProcess) -> tuple[int, str]:
    """A staked game of two guests, one holding back from going out twice; its id
    and the holder's nickname."""
    found: list[tuple[int, str]] = []

    async def play() -> None:
        holder = await (await Client(server, "Holder").guest()).connect()
        winner = await (await Client(server, "Gainer").guest()).connect()
        table = await create_table(holder, stake=100, point_limit=1, turn_seconds=120)
        assert (await winner.request({"type": "join_table", "table": table}))["type"] == "table"
        assert (await holder.request({"type": "start_game", "table": table}))["type"] != "error"
        holding = HoldingBack()
        players = [Autoplayer(holder, table, holding), Autoplayer(winner, table, holding.waiting)]
        await play_out(players, 180)
        assert holding.held == HOLDS
        found.append((table, holder.nickname))
        for client in (holder, winner):
            await client.close()

    run_in_thread(play, 240)
    return found[0]


def test_the_fair_play_panel_shows_a_held_back_game_and_voids_it(
    staked_server: ServerProcess, new_context: Any
) -> None:
    game, holder = held_back_game(staked_server)
    base = staked_server.base + "/"
    page = new_context("fair")
    register(page, base, "Mira", PASSWORD)
    assert admin(staked_server, "grant-moderator", "Mira").returncode == 0
    page.goto(base + "#/moderation")
    item = page.wait_for_selector(f"#fair-games li.fair-game[data-game='{game}']")
    text = item.inner_text()
    assert "One address" in text and holder in text and "held back" in text
    links = page.locator(f"li.fair-game[data-game='{game}'] a[data-move]")
    assert links.count() >= 1
    href = links.first.get_attribute("href")
    move = int(links.first.get_attribute("data-move") or "-1")
    assert href == f"#/replay/{game}/{move + 1}"
    assert page.locator("#fair-pairs li.fair-pair").count() == 1

    page.fill(f"li.fair-game[data-game='{game}'] input", "arranged")
    page.click(f"button[data-void='{game}']")
    page.wait_for_selector(".toast:has-text('voided')")
    page.wait_for_selector(f"li.fair-game[data-game='{game}'] >> text=Void: its result")
    page.wait_for_selector(f"#mod-log li:has-text('game {game}')")
