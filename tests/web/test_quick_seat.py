"""The lobby's quick seat by stake in Chromium (js/lobby/quickseat.js): two hosts open
waiting tables of different stakes; a player on a phone sees one row a stake, cheapest
first, with the tables and free seats of each, a stake above the player's chips
disabled with the reason, the rows following the lobby's filters and a table opened
meanwhile without a reload; "Sit down" (by keyboard) takes a seat at the fullest table
of that stake. The panel fits a phone and a wide screen, and hides with nothing to
sit at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import PHONE, shot, start_server, stop_server
from tests.web.ui import login_guest

WIDE = {"width": 1366, "height": 800}
# The player's balance as the page learns it (GET /api/bonus): below the dearest stake.
CHIPS = 50


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of this module's own: the panel counts every waiting table, so no
    other test's table may stand in the lobby. Every browser here is on 127.0.0.1."""
    tmp: Path = tmp_path_factory.mktemp("quickseat")
    proc, base = start_server(tmp, "--accounts-per-hour", "0", "--chip-accounts-per-address", "0")
    yield base
    stop_server(proc)


def open_table(page: Any, seats: int, stake: int, point_limit: int = 100) -> int:
    """A waiting table for people, opened from ``page``'s connection; its id."""
    settings = {
        "preset": "classic",
        "access": "open",
        "seats": seats,
        "bots": {},
        "point_limit": point_limit,
        "turn_seconds": 60,
        "stake": stake,
    }
    return int(
        page.evaluate(
            """async (settings) => { const a = window.__romme; await a.welcomed;
            const res = await a.request({ type: 'create_table', settings }); return res.table.id; }""",
            settings,
        )
    )


def wait_rows(page: Any, stakes: str) -> None:
    """Wait until the panel's rows are those of ``stakes`` ("0,10,100"; "" for none)."""
    page.wait_for_function(
        """(want) => [...document.querySelectorAll('#quick-seat-rows > li')]
          .map((li) => li.dataset.stake).join() === want""",
        arg=stakes,
    )


def row(page: Any, stake: int) -> Any:
    return page.locator(f"#quick-seat-rows > li[data-stake='{stake}']")


def fits(page: Any, width: int) -> None:
    scroll = page.evaluate("() => document.documentElement.scrollWidth")
    assert scroll <= width, f"the lobby is {scroll} px wide"
    right = page.eval_on_selector("#quick-seat", "(e) => e.getBoundingClientRect().right")
    assert right <= width, f"the panel ends at {right} px"


def test_quick_seat_by_stake(own_server: str, new_context: Any) -> None:
    first = new_context("quick-first", viewport=WIDE)
    login_guest(first, own_server, "Hostess")
    # Nothing to sit at: the panel is hidden, the table list says so.
    first.wait_for_selector("#tables-empty")
    assert first.locator("#quick-seat").is_hidden()
    pair = open_table(first, seats=2, stake=10)
    open_table(first, seats=3, stake=100, point_limit=1)

    second = new_context("quick-second", viewport=WIDE)
    login_guest(second, own_server, "Dealer")
    open_table(second, seats=4, stake=10)
    # The first host sees the other's table only (not the own ones), at 1366 px.
    wait_rows(first, "10")
    assert row(first, 10).locator(".quick-seat-meta").inner_text() == (
        "1 table waiting · 3 free seats"
    )
    fits(first, WIDE["width"])

    player = new_context("quick-player", viewport=PHONE)

    def balance(route: Any) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, json={**answer.json(), "chips": CHIPS})

    player.route("**/api/bonus", balance)
    login_guest(player, own_server, "Sitter")
    wait_rows(player, "10,100")
    assert row(player, 10).locator(".quick-seat-stake").inner_text() == "10 chips"
    assert row(player, 10).locator(".quick-seat-meta").inner_text() == (
        "2 tables waiting · 4 free seats"
    )
    assert row(player, 100).locator(".quick-seat-stake").inner_text() == "100 chips"
    assert row(player, 100).locator(".quick-seat-meta").inner_text() == (
        "1 table waiting · 2 free seats"
    )
    # The dear stake: disabled, and why.
    why = "Not enough chips: you hold 50 chips."
    assert row(player, 10).locator("button").is_enabled()
    assert row(player, 100).locator("button").is_disabled()
    assert row(player, 100).get_attribute("title") == why
    assert row(player, 100).locator("button").get_attribute("title") == why
    assert row(player, 100).locator(".quick-seat-why").inner_text() == why
    assert row(player, 10).locator("button").get_attribute("aria-label") == "Sit down: 10 chips"

    # The lobby's filters: one round only leaves the stake of 100 (a limit of 1).
    player.select_option("#filter-limit", "single")
    wait_rows(player, "100")
    player.select_option("#filter-limit", "any")
    wait_rows(player, "10,100")

    # A table opened meanwhile shows at once: a free game, first.
    open_table(second, seats=2, stake=0)
    wait_rows(player, "0,10,100")
    assert row(player, 0).locator(".quick-seat-stake").inner_text() == "Free"
    assert row(player, 0).locator(".quick-seat-meta").inner_text() == (
        "1 table waiting · 1 free seat"
    )
    wait_rows(first, "0,10")
    fits(first, WIDE["width"])
    shot(first, "quick-seat-desktop")
    fits(player, PHONE["width"])
    shot(player, "quick-seat-phone")

    # "Sit down" by keyboard at a stake of 10: the fullest table of it (one seat
    # free of two, not three of four), and the waiting room.
    sit = row(player, 10).locator("button")
    sit.focus()
    player.keyboard.press("Enter")
    player.wait_for_function(f"() => window.__romme.tableId === {pair}")
    player.wait_for_selector(".waiting-seat:has-text('Sitter')")
    stake = player.evaluate(f"() => window.__romme.tables.get({pair}).settings.stake")
    assert stake == 10
    # The table now full leaves the other host's panel: the stake of 10 with it.
    wait_rows(second, "100")
