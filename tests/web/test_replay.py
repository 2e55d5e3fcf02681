"""The game history and the replay page in Chromium: from "My games" to a finished
game's replay, stepping with the buttons, the keys and the slider, every hand as the
server's engine replayed it, the shuffle verified by the browser (and a deal that
does not match its seed shown as such), on a desktop and on a phone in German,
opened there from a shared link."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx

from tests.web.conftest import NICKNAME, PHONE, Played, login, shot
from tests.web.test_i18n import missing, switch

DESKTOP = {"width": 1366, "height": 800}


def shown_index(page: Any) -> int:
    return int(page.eval_on_selector("#replay-slider", "(el) => el.value"))


def hands_in_dom(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(
        ".replay-seat .replay-hand",
        "(hands) => hands.map((h) => [...h.querySelectorAll('[data-card]')].map((c) => c.dataset.card))",
    )


def wait_index(page: Any, index: int) -> None:
    page.wait_for_function(
        "(i) => document.querySelector('#replay-slider')?.value === String(i)", arg=index
    )


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("() => document.scrollingElement.scrollWidth")
    if width > page.viewport_size["width"]:
        shot(page, "overflow")
        wide = page.evaluate(
            """() => [...document.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 8).map((e) => e.tagName + '#' + e.id + '.' + e.className)"""
        )
        raise AssertionError((width, wide))


def test_history_to_replay_stepping_and_shuffle_check_on_desktop(
    played: Played, new_context: Any
) -> None:
    page = new_context("replay-desktop", viewport=DESKTOP)
    login(page, played.base)
    # The player's info lists the game, a link to its replay, and leads to all games.
    page.click(f"#player-list .player-link:has-text('{NICKNAME}')")
    recent = page.wait_for_selector(".info-dialog a.recent-replay")
    assert recent.get_attribute("href") == f"#/replay/{played.table}"
    page.click("#info-all-games")
    page.wait_for_selector(f"#history-list li[data-game='{played.table}']")
    page.click("#history-back")
    page.wait_for_selector("#my-games")
    page.click("#my-games")
    entry = page.wait_for_selector(f"#history-list li[data-game='{played.table}']")
    assert NICKNAME in entry.inner_text()
    shot(page, "history-desktop")
    page.click(f"#history-list li[data-game='{played.table}'] a")
    page.wait_for_selector("#replay-slider")
    positions = played.replay["positions"]
    last = len(positions) - 1
    assert page.eval_on_selector("#replay-slider", "(el) => Number(el.max)") == last
    # It opens at the first deal, every hand open.
    assert shown_index(page) == 1
    assert hands_in_dom(page) == positions[1]["hands"]
    assert "Round 1" in page.inner_text("#replay-move")

    # Buttons.
    page.click("#replay-next")
    wait_index(page, 2)
    assert hands_in_dom(page) == positions[2]["hands"]
    assert page.evaluate("() => location.hash") == f"#/replay/{played.table}/2"
    page.click("#replay-prev")
    page.click("#replay-prev")
    wait_index(page, 0)
    assert page.is_disabled("#replay-prev") and page.is_disabled("#replay-first")
    page.click("#replay-last")
    wait_index(page, last)
    assert page.is_disabled("#replay-next")
    # The last position: the round's summary and the score sheet.
    summary = page.inner_text("#replay-summary")
    result = played.replay["results"][-1]
    assert all(str(p) in summary for p in result["penalties"])
    assert page.locator("#replay-sheet tbody tr").count() == len(played.replay["results"])
    page.click("#replay-first")
    wait_index(page, 0)

    # Keys: →, ←, End, Home, on the page; the slider's own arrow keys step once.
    page.locator("#replay-move").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    wait_index(page, 2)
    page.keyboard.press("End")
    wait_index(page, last)
    page.keyboard.press("Home")
    wait_index(page, 0)
    page.focus("#replay-slider")
    page.keyboard.press("ArrowRight")
    wait_index(page, 1)
    assert hands_in_dom(page) == positions[1]["hands"]

    # The slider dragged to the middle shows that position's table.
    box = page.locator("#replay-slider").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    middle = shown_index(page)
    assert 0 < middle < last
    expected = positions[middle]
    assert hands_in_dom(page) == expected["hands"]
    assert page.inner_text("#replay-stock-count") == str(expected["stock_count"])
    pile = page.eval_on_selector_all(
        "#replay-discard [data-card]", "(cs) => cs.map((c) => c.dataset.card)"
    )
    assert pile == expected["discard"]
    assert page.locator("#replay-melds .replay-meld").count() == len(expected["melds"])

    # The shuffle check: every round verified by the browser.
    page.wait_for_selector("#shuffle-check[aria-busy='false']")
    marks = page.eval_on_selector_all(
        "#shuffle-check li[data-round]", "(ls) => ls.map((l) => [l.dataset.round, l.dataset.ok])"
    )
    assert marks == [[str(r["round_no"]), "true"] for r in played.replay["rounds"]]
    shot(page, "replay-desktop")


def test_a_deal_that_does_not_match_its_seed_is_shown(played: Played, new_context: Any) -> None:
    """A server that lied about a hand is caught: the replay is changed on its way
    to the page (two cards of the first hand swapped for two others)."""
    page = new_context("replay-forged", viewport=DESKTOP)
    forged = copy.deepcopy(played.replay)
    deal = forged["positions"][1]
    seat = next(s for s, hand in enumerate(deal["hands"]) if hand)
    deal["hands"][seat][0] = "XX" if deal["hands"][seat][0] != "XX" else "2C"
    page.route(
        f"**/api/games/{played.table}/replay",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(forged)
        ),
    )
    login(page, played.base, f"#/replay/{played.table}")
    page.wait_for_selector("#shuffle-check[aria-busy='false']")
    bad = page.wait_for_selector("#shuffle-check li[data-round='1']")
    assert bad.get_attribute("data-ok") == "false"
    assert NICKNAME in bad.inner_text() or "Beginner" in bad.inner_text()


def test_replay_from_a_shared_link_on_a_phone_in_german(played: Played, new_context: Any) -> None:
    page = new_context("replay-phone", viewport=PHONE, locale="de-DE")
    login(page, played.base, f"#/replay/{played.table}/3")
    page.wait_for_selector("#replay-slider")
    assert shown_index(page) == 3
    assert page.inner_text("#check-h") == "Mischen überprüfen"
    assert page.inner_text("#replay-sheet h2") == "Punkteliste"
    page.wait_for_selector("#shuffle-check li[data-round='1'][data-ok='true']")
    assert "überprüft" in page.inner_text("#shuffle-check li[data-round='1']")
    assert "Runde 1" in page.inner_text("#replay-move")
    page.locator("#replay-move").click()
    # The keys step the replay wherever the focus is, but for a field's own keys.
    page.evaluate("() => document.activeElement?.blur()")
    page.keyboard.press("ArrowRight")
    wait_index(page, 4)
    page.click("#replay-next")
    wait_index(page, 5)
    assert hands_in_dom(page) == played.replay["positions"][5]["hands"]
    no_sideways_scroll(page)
    for control in ("#replay-prev", "#replay-next", "#replay-first", "#replay-last"):
        box = page.locator(control).bounding_box()
        assert box["width"] >= 40 and box["height"] >= 40, control
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], control
    shot(page, "replay-phone-de")
    # The lobby's "My games" on the phone, in German.
    page.click("#replay-back")
    page.wait_for_selector("#my-games")
    assert page.inner_text("#my-games") == "Meine Spiele"
    box = page.locator("#my-games").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    page.click("#my-games")
    page.wait_for_selector(f"#history-list li[data-game='{played.table}']")
    no_sideways_scroll(page)
    shot(page, "history-phone-de")


def test_a_player_asks_for_the_analysis_and_sees_its_marks_on_the_moves(
    played: Played, new_context: Any
) -> None:
    """The replay page asks the server to analyse the player's own game, waits for it,
    and shows each of the computer expert's marks on the move it judges (the log's
    action ``m`` led to position ``m + 1``), and none on the other moves."""
    page = new_context("replay-analysis", viewport=DESKTOP)
    login(page, played.base, f"#/replay/{played.table}")
    page.click("#analysis-request", timeout=30_000)
    page.wait_for_function(
        "() => !document.querySelector('#analysis-request')"
        " && !document.querySelector('#replay-marks')?.textContent.includes('…')",
        timeout=120_000,
    )
    analysis = httpx.get(f"{played.server.base}/api/games/{played.table}/analysis").json()
    assert analysis["status"] == "done"
    marked = sorted({mark["move"] for mark in analysis["marks"]})
    if not marked:
        assert page.locator("#replay-marks p.muted").count() >= 1
        return
    assert page.locator(".analysis-count").count() == 1
    for move in marked[:3]:
        page.evaluate(f"() => {{ location.hash = '#/replay/{played.table}/{move + 1}'; }}")
        page.wait_for_selector(f".analysis-mark[data-move='{move}']")
        expected = sum(1 for mark in analysis["marks"] if mark["move"] == move)
        assert page.locator(".analysis-mark").count() == expected
    unmarked = next(i for i in range(len(played.replay["positions"]) - 1) if i not in marked)
    page.evaluate(f"() => {{ location.hash = '#/replay/{played.table}/{unmarked + 1}'; }}")
    page.wait_for_function(
        "(m) => document.querySelector('#replay-marks')?.dataset.move === String(m)",
        arg=unmarked + 1,
    )
    assert page.locator(".analysis-mark").count() == 0


def test_the_history_and_the_replay_in_every_language_on_a_phone(
    played: Played, new_context: Any
) -> None:
    """Each of the five languages: the replay (with its analysis panel and shuffle
    check) and the history show no missing text and no English left where the
    language has its own words, and nothing runs off a 360 px phone."""
    page = new_context("replay-languages", viewport=PHONE)
    login(page, played.base, f"#/replay/{played.table}/2")
    page.wait_for_selector("#shuffle-check li[data-round='1'][data-ok='true']")
    english = page.inner_text("#replay-sheet h2")
    for lang in ("de", "es", "nl", "pt", "en"):
        switch(page, lang)
        page.evaluate(f"() => {{ location.hash = '#/replay/{played.table}/2'; }}")
        page.wait_for_selector("#shuffle-check li[data-round='1'][data-ok='true']")
        page.wait_for_selector("#replay-marks .analysis")
        heading = page.inner_text("#replay-sheet h2")
        assert (heading == english) == (lang == "en"), (lang, heading)
        no_sideways_scroll(page)
        page.evaluate(f"() => {{ location.hash = '#/history/{NICKNAME}'; }}")
        page.wait_for_selector(f"#history-list li[data-game='{played.table}']")
        no_sideways_scroll(page)
        assert missing(page) == [], lang
