"""The lobby's quick start and filters in Chromium, on a phone: the table filters
hide and show a waiting table, "Play now" takes the free seat at the table that
fits, and with no such table opens a game against three computer opponents of
the player's level, which another player then finds among the running games to
watch. The player's own figures and the best players stand in the lobby too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import PHONE, shot, start_server, stop_server
from tests.web.ui import login_guest, new_game


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of this module's own: "Play now" picks among every waiting table,
    so no other test's table may stand in the lobby."""
    tmp: Path = tmp_path_factory.mktemp("lobby")
    proc, base = start_server(tmp, "--bot-delay", "0.3", "--accounts-per-hour", "0")
    yield base
    stop_server(proc)


def table_id(page: Any) -> int:
    return int(page.evaluate("() => window.__romme.tableId"))


@pytest.mark.slow
def test_filters_and_play_now(own_server: str, new_context: Any) -> None:
    host = new_context("lobby-host")
    login_guest(host, own_server, "Gastgeberin")
    new_game(host, level="human", limit="100", started=False)
    waiting = table_id(host)

    player = new_context("lobby-player", viewport=PHONE)
    login_guest(player, own_server, "Schnell")
    card = f"#table-list .table-card[data-table='{waiting}']"
    player.wait_for_selector(card)
    # At a glance: a guest has no rating kept, and the starting chips.
    assert player.inner_text("#glance-rating") == "–"
    assert player.inner_text("#glance-chips") == "10,000 chips"
    assert player.get_attribute("#top-all", "href") == "#/rankings/rating"
    # The filters: a single round hides the table (a limit of 100), up to 100 shows it.
    player.select_option("#filter-limit", "single")
    player.wait_for_selector(card, state="detached")
    assert player.inner_text("#tables-empty") == "No table fits these filters."
    player.select_option("#filter-limit", "upto100")
    player.wait_for_selector(card)
    # A change that leaves the table's card as it was keeps its element (a keyed
    # list): a mark set on it survives a filter change that still shows it.
    player.eval_on_selector(card, "(e) => { e.dataset.kept = 'yes'; }")
    player.select_option("#filter-limit", "any")
    player.wait_for_function(
        "() => JSON.parse(localStorage.getItem('romme.lobbyFilters') || '{}').limit === 'any'"
    )
    assert player.get_attribute(card, "data-kept") == "yes"
    player.select_option("#filter-limit", "upto100")
    width = player.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the lobby is {width} px wide"
    shot(player, "lobby-filters-phone")

    # Play now sits at that table.
    player.click("#play-now")
    player.wait_for_function(f"() => window.__romme.tableId === {waiting}")
    host.wait_for_selector(".waiting-seat:has-text('Schnell')")

    # With no waiting table that fits (three-rounds), a game against the computer.
    player.click(".waiting-buttons button.ghost")  # leave the waiting table
    player.wait_for_selector("#play-now")
    player.select_option("#filter-preset", "three-rounds")
    assert player.eval_on_selector("#filter-limit", "(e) => e.value") == "upto100"
    player.select_option("#filter-limit", "any")
    player.click("#play-now")
    player.wait_for_selector("#hand .hand-card")
    game = table_id(player)
    assert game != waiting
    table = player.evaluate(
        f"() => {{ const t = window.__romme.tables.get({game}); return {{settings: t.settings, seats: t.seats}}; }}"
    )
    assert table["settings"]["preset"] == "three-rounds"
    assert [s["bot"] for s in table["seats"]] == [None, "casual", "casual", "casual"]

    # The other player finds it among the running games; the filters stay chosen
    # for the next visit.
    host.click(".waiting-buttons button.ghost")
    host.wait_for_selector(f"#live-games [data-watch='{game}']")
    shot(host, "lobby-live-desktop")
    host.select_option("#filter-preset", "classic")  # hides the three-rounds game
    host.wait_for_selector(f"#live-games [data-watch='{game}']", state="detached")
    host.reload()
    host.wait_for_selector("#live-empty")
    assert host.eval_on_selector("#filter-preset", "(e) => e.value") == "classic"
