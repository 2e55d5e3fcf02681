"""The account page (change the password, the sessions, log out everywhere, export,
delete), the help page from the entry form, the lobby and a running table, on
phone and desktop, in all five languages, and the rematch at game over."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import DESKTOP, PHONE, shot
from tests.web.ui import (
    cheapest_card,
    draw_and_discard,
    enter,
    in_lobby,
    login,
    login_guest,
    new_game,
    register,
    table_state,
    view,
    wait_for,
)

WEB = Path(__file__).resolve().parents[2] / "romme" / "web"


def _catalog(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WEB / "locales" / f"{lang}.json").read_text("utf-8"))
    return data


def _expect_browser_errors(page_errors: Any, status: str, count: int) -> None:
    """The browser logs each refused request itself; those are expected."""
    expected = [e for e in page_errors.errors if status in e]
    assert len(expected) == count, page_errors.errors
    for error in expected:
        page_errors.errors.remove(error)


def test_account_page_password_sessions_export_delete(
    server: str, new_context: Any, page_errors: Any
) -> None:
    en = _catalog("en")
    here = new_context("account-here")
    register(here, server, "Kontoinh", "erstes-passwort")
    there = new_context("account-there")
    login(there, server, "Kontoinh", "erstes-passwort")

    here.click("#account-link")
    here.wait_for_selector("#session-list .session >> nth=1")
    sessions = here.locator("#session-list .session")
    assert sessions.count() == 2
    assert en["account.this_device"] in sessions.first.inner_text()

    # A wrong current password is refused and said so; the other device stays.
    here.fill("#old-password", "falsches-passwort")
    here.fill("#new-password", "zweites-passwort")
    here.fill("#new-password-again", "zweites-passwort")
    here.click("#change-password")
    here.wait_for_selector(f"#password-status:has-text('{en['error.wrong_password']}')")
    _expect_browser_errors(page_errors, "403", 1)
    there.reload()
    in_lobby(there)

    # The right one: this device stays logged in, the other one is logged out.
    here.fill("#old-password", "erstes-passwort")
    here.click("#change-password")
    here.wait_for_selector(".toast:has-text('1 other device was logged out')")
    there.wait_for_selector("#entry-submit")
    here.wait_for_function("() => document.querySelectorAll('#session-list .session').length === 1")

    # The export is the player's own data, as a file.
    export = here.evaluate(
        "async () => { const r = await fetch('api/me/export');"
        " return {type: r.headers.get('content-disposition'), data: await r.json()}; }"
    )
    assert export["type"].startswith("attachment")
    assert export["data"]["player"]["nickname"] == "Kontoinh"
    assert here.get_attribute("#export", "href") == "api/me/export"

    # Log out everywhere ends both devices.
    login(there, server, "Kontoinh", "zweites-passwort")
    here.click("#logout-everywhere")
    here.wait_for_selector("#entry-submit")
    there.wait_for_selector("#entry-submit")

    # Delete: asked for the password and a confirmation; then the login is refused.
    login(here, server, "Kontoinh", "zweites-passwort")
    here.click("#account-link")
    here.fill("#delete-password", "zweites-passwort")
    here.click("#delete-account")
    here.click("#delete-confirm")
    here.wait_for_selector("#entry-submit")
    enter(here, "login", "Kontoinh", "zweites-passwort")
    here.wait_for_selector(f".form-error:has-text('{en['error.bad_credentials']}')")
    _expect_browser_errors(page_errors, "401", 1)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lang", "locale", "viewport"), [("de", "de-DE", PHONE), ("es", "es-ES", DESKTOP)]
)
def test_help_page_from_every_screen(
    server: str, new_context: Any, lang: str, locale: str, viewport: dict[str, int]
) -> None:
    texts = _catalog(lang)
    page = new_context(f"help-{lang}", viewport=viewport, locale=locale)

    def check_help(opened_from: str) -> None:
        page.click("#help-link")
        page.wait_for_selector(".dialog.help")
        assert page.evaluate("location.hash") == "#/help"
        body = page.inner_text(".dialog.help")
        for key in ("help.rules_title", "help.rules_opening", "help.controls_title", "keys.draw"):
            assert texts[key] in body, (opened_from, key)
        box = page.locator(".dialog.help").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], opened_from
        page.click("#help-close")
        page.wait_for_selector(".dialog.help", state="detached")
        assert page.evaluate("location.hash") != "#/help", opened_from

    page.goto(server)
    page.wait_for_selector("#entry-submit")
    check_help("entry")
    page.wait_for_selector("#entry-submit")
    page.fill("#entry-nick", f"Hilfe{lang}")
    page.click("#entry-submit")
    page.wait_for_selector("#new-game")
    # The header with its account link and help button fits the screen.
    right = page.evaluate("document.querySelector('.topbar #logout').getBoundingClientRect().right")
    assert right <= viewport["width"]
    check_help("lobby")
    page.wait_for_selector("#new-game")
    new_game(page, limit="1")
    if viewport is PHONE:
        page.click("#side-toggle")
    check_help("table")
    # The table is still there, with the hand, after the help closes.
    assert page.locator("#hand .hand-card").count() > 0
    assert page.evaluate("location.hash").startswith("#/table/")


@pytest.mark.parametrize(
    ("lang", "locale"),
    [("en", "en-GB"), ("de", "de-DE"), ("es", "es-ES"), ("nl", "nl-NL"), ("pt", "pt-BR")],
)
def test_the_help_page_speaks_the_players_language(
    server: str, new_context: Any, lang: str, locale: str
) -> None:
    """The rules, the controls and the keys, each in the browser's language."""
    texts = _catalog(lang)
    page = new_context(f"help-text-{lang}", viewport=PHONE, locale=locale)
    page.goto(server + "/#/help")
    page.wait_for_selector(".dialog.help")
    body = page.inner_text(".dialog.help")
    keys = [k for k in texts if k.startswith(("help.rules_", "help.controls_"))]
    assert len(keys) >= 10, keys
    missing = [k for k in [*keys, "help.title", "keys.draw"] if texts[k] not in body]
    assert not missing, (lang, missing)


def _play_badly_together(pages: list[Any], limit: float = 240) -> None:
    """Each page plays its own turns with the cheapest discard until the game is over."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        views = [view(page) or {} for page in pages]
        if all(v.get("phase") == "game_over" for v in views):
            return
        for page, v in zip(pages, views, strict=True):
            if v.get("phase") == "draw" and v.get("current") == v.get("seat"):
                draw_and_discard(page, cheapest_card)
        pages[0].wait_for_timeout(40)
    raise AssertionError("the game did not end in time")


@pytest.mark.slow
def test_rematch_from_the_game_over_summary(server: str, new_context: Any) -> None:
    en = _catalog("en")
    host = new_context("rematch-host")
    guest = new_context("rematch-guest", viewport=PHONE)
    login_guest(host, server, "Rudi")
    login_guest(guest, server, "Rosa")
    host.click("#new-game")
    host.select_option("#ng-opponents", "2")
    host.select_option("#ng-seat-1", "human")
    host.select_option("#ng-seat-2", "expert")
    host.check("#new-game-form input[name=limit][value='1']")
    host.click("#ng-create")
    host.wait_for_selector("#waiting")
    table_id = host.evaluate("location.hash").rsplit("/", 1)[1]
    guest.click(f"#table-list [data-join='{table_id}']")
    guest.wait_for_selector("#waiting")
    host.click("#start-game")
    host.wait_for_selector("#hand .hand-card")
    guest.wait_for_selector("#hand .hand-card")
    old = host.evaluate("location.hash")
    _play_badly_together([host, guest])

    # The host offers; the guest is asked, the host is told whom the table waits for.
    host.click("#summary-rematch")
    guest.wait_for_selector("#rematch-status:has-text('Rudi')")
    host.wait_for_selector("#rematch-status:has-text('Rosa')")
    assert en["rematch.accept"] in guest.inner_text("#rematch-accept")
    shot(guest, "rematch-offer-phone")
    guest.click("#rematch-accept")

    # Both are taken to the new table, in the same seats, with the expert again.
    for page, seat in ((host, 0), (guest, 1)):
        wait_for(page, lambda p=page: p.evaluate("location.hash") != old, what="the new table")
        page.wait_for_selector("#hand .hand-card")
        table = table_state(page) or {}
        assert table["status"] == "playing" and table["my_seat"] == seat
        limit, bot = page.evaluate(
            "() => { const t = window.__romme.tables.get(window.__romme.tableId);"
            " return [t.settings.point_limit, t.seats[2].bot]; }"
        )
        assert (limit, bot) == (1, "expert")
