"""Chips in the browser: a staked game created from "New game" shows its stake, pot
and operating cost at the table and in another player's lobby (on a phone), the
pot and what the winner takes while the game runs, a warning that leaving forfeits
the stake, the players' levels beside their names at the table, the balance in the
header, and the stakes paid at the start in the balance and the chip history."""

from __future__ import annotations

from typing import Any

import httpx

from tests.web.conftest import shot
from tests.web.ui import login_guest

PHONE = {"width": 360, "height": 740}


def test_a_staked_game_shows_pot_cost_and_balance(server: str, new_context: Any) -> None:
    host = new_context("chips-host")
    login_guest(host, server, "Chipper")
    host.wait_for_selector("#chip-count")
    assert host.inner_text("#chip-count") == "10,000 chips"

    host.click("#new-game")
    host.select_option("#ng-seat-1", "human")
    host.check("#ng-stake input[value='100']")
    host.click("#ng-create")
    host.wait_for_selector("#table-pot:not([hidden])")
    assert host.inner_text("#table-pot") == "Pot 200 · operating cost 10 (5 %)"
    assert "Stake 100" in host.inner_text(".waiting-box, body")

    guest = new_context("chips-guest", viewport=PHONE)
    login_guest(guest, server, "Chipmunk")
    card = guest.locator(".table-card", has_text="Chipper")
    assert card.locator(".pot").inner_text() == "Pot 200 · operating cost 10 (5 %)"
    assert "Stake 100" in card.inner_text()
    shot(guest, "chips-lobby-phone")
    width = guest.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the lobby is {width} px wide"
    card.locator("[data-join]").click()
    guest.wait_for_selector("#table-pot:not([hidden])")

    # The levels beside the nicknames at the table, as the server states them.
    level = _level(server, "Chipmunk")
    seat = host.locator(".waiting-seat", has_text="Chipmunk")
    assert seat.locator(".level-badge").inner_text() == f"Lv {level}"

    host.click("#start-game")
    guest.wait_for_selector("#hand .hand-card")
    opponent = host.locator("#opponents .level-badge")
    assert opponent.inner_text() == f"Lv {level}"
    # The running game's pot, and what leaving costs.
    pot = host.wait_for_selector("#table-pot-game")
    assert pot.inner_text() == "Pot 200 · operating cost 10 · the winner takes 190"
    host.click("#leave")
    warning = host.wait_for_selector("#leave-forfeit")
    assert "forfeit your stake (100 chips)" in warning.inner_text()
    host.click(".dialog-buttons button:has-text('Cancel')")
    host.wait_for_selector("#leave-forfeit", state="detached")
    guest.goto(server + "#/chips")
    guest.wait_for_selector("#chip-history")
    rows = guest.locator("#chip-history tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).inner_text().split("\t")[1:] == [
        "Stake",
        f"Game {_table_id(host)}",
        "−100",
        "9,900",
    ]
    assert rows.nth(1).inner_text().split("\t")[1:] == ["Starting chips", "", "+10,000", "10,000"]
    guest.click("#chips-back")
    guest.wait_for_selector("#chip-count")
    assert guest.inner_text("#chip-count") == "9,900 chips"
    # Not low enough for a bonus: no button.
    assert guest.locator("#claim-bonus").count() == 0


def _level(server: str, nickname: str) -> int:
    answer = httpx.get(f"{server}api/players/{nickname}")
    assert answer.status_code == 200, answer.text
    return int(answer.json()["level"]["number"])


def _table_id(page: Any) -> int:
    return int(page.evaluate("window.__romme.tableId"))
