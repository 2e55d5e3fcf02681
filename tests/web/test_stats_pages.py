"""The rankings, a profile and the platform's card luck in Chromium: from the
lobby's header to the rankings' tabs, a player's profile (level, statistics per
preset, chips won and lost, card luck, recent games linked to their replays) and
the card-luck page, on a desktop and at 360x740, in every language, with the
figures of the API."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import NICKNAME, PHONE, Played, login, shot
from tests.web.test_i18n import every_language
from tests.web.test_replay import no_sideways_scroll

DESKTOP = {"width": 1366, "height": 800}


def cell(page: Any, selector: str) -> str:
    return str(page.inner_text(selector)).strip()


def test_rankings_profile_and_card_luck(played: Played, new_context: Any) -> None:
    info = played.info
    level = info["level"]["number"]
    page = new_context("stats-desktop", viewport=DESKTOP)
    login(page, played.base)
    # The level beside the nickname in the lobby.
    badge = page.wait_for_selector(f"#player-list .player-link:has-text('{NICKNAME}') .level-badge")
    assert badge.inner_text() == f"Lv {level}"

    # Rankings by rating: the player's row with the rating of the API.
    page.click("#rankings-link")
    row = page.wait_for_selector(f"#rankings-table tr[data-nickname='{NICKNAME}']")
    assert row.query_selector("td.value").inner_text() == str(info["rating"])
    assert "mine" in (row.get_attribute("class") or "")
    assert page.get_attribute("#rankings-tab-rating", "aria-selected") == "true"
    assert page.get_attribute("#rankings-tab-chips_month", "href") == "#/rankings/chips_month"
    # By level: level and XP.
    page.click("#rankings-tab-level")
    page.wait_for_selector("#rankings-table[data-by='level']")
    value = cell(page, f"#rankings-table tr[data-nickname='{NICKNAME}'] td.value")
    assert value == f"Level {level} · {info['xp']} XP"
    shot(page, "rankings-desktop")

    # The profile: level, statistics per preset, card luck, recent games.
    page.click(f"#rankings-table tr[data-nickname='{NICKNAME}'] a.profile-link")
    page.wait_for_selector("#stats-table")
    assert f"Level {level}: " in cell(page, "#level-progress")
    assert cell(page, "#profile-rating") == str(info["rating"])
    chips_won, chips_lost = (f"{info['stats'][k]:,}" for k in ("chips_won", "chips_lost"))
    assert (cell(page, "#profile-chips-won"), cell(page, "#profile-chips-lost")) == (
        chips_won,
        chips_lost,
    )
    overall = info["stats"]["overall"]
    games = page.eval_on_selector_all(
        "#stats-table tr[data-stat='games'] td", "(cells) => cells.map((c) => c.textContent)"
    )
    assert games == [str(overall["games"]), str(info["stats"]["classic"]["games"]), "0"]
    luck = info["stats"]["card_luck"]
    assert cell(page, "#luck-table tr[data-luck='jokers'] td.luck-got") == str(luck["jokers"])
    expected = f"{luck['jokers_expected']} ± {luck['jokers_spread']}"
    assert cell(page, "#luck-table tr[data-luck='jokers'] td.luck-expected") == expected
    recent = page.get_attribute("#profile-recent a.recent-replay", "href")
    assert recent == f"#/replay/{played.table}"
    shot(page, "profile-desktop")

    # The platform's card luck.
    page.click(".profile-links a[href='#/cards']")
    page.wait_for_selector("#luck-summary")
    assert f"{played.cards['hands']} hands dealt to {played.cards['players']} players" in cell(
        page, "#luck-summary"
    )
    got = cell(page, "#luck-table tr[data-luck='meld_ready'] td.luck-got")
    assert got == str(played.cards["meld_ready"])

    # A phone: nothing wider than the screen, every text in every language.
    page.set_viewport_size(PHONE)
    for hash_, ready in (
        ("#/cards", "#luck-table"),
        (f"#/profile/{NICKNAME}", "#stats-table"),
        ("#/rankings/level", "#rankings-table"),
    ):
        page.evaluate(f"() => {{ location.hash = '{hash_}'; }}")
        page.wait_for_selector(ready)
        every_language(page, hash_, lambda _lang, ready=ready: page.wait_for_selector(ready))
        no_sideways_scroll(page)
    shot(page, "rankings-phone")
    # Player info at the table's and the lobby's dialog leads to the profile.
    page.evaluate("() => { location.hash = '#/lobby'; }")
    page.wait_for_selector("#rankings-link")
    every_language(page, "lobby", lambda _lang: no_sideways_scroll(page))
    shot(page, "lobby-phone")
    page.click(f"#player-list .player-link:has-text('{NICKNAME}')")
    page.wait_for_selector(".info-dialog #level-progress")
    assert (cell(page, "#info-chips-won"), cell(page, "#info-chips-lost")) == (
        chips_won,
        chips_lost,
    )
    page.click("#info-profile")
    page.wait_for_selector("#profile-name")
    no_sideways_scroll(page)
