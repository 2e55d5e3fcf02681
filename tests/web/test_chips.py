"""Chips in the browser: a staked game created from "New game" shows its stake, pot
and operating cost at the table and in another player's lobby (on a phone), the
balance stands in the header, and the stakes paid at the start show in the
balance and the chip history."""

from __future__ import annotations

from typing import Any

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

    host.click("#start-game")
    guest.wait_for_selector("#hand .hand-card")
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


def _table_id(page: Any) -> int:
    return int(page.evaluate("window.__romme.tableId"))
