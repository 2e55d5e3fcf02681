"""Reports and moderation in Chromium: a player reports another from the player
info (the chat line the server attached is shown masked to the moderator), a
moderator named with `romme admin` finds the report on #/moderation (on a phone)
and resolves it; the log shows it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.web.conftest import PHONE, shot, start_server, stop_server
from tests.web.test_i18n import every_language
from tests.web.ui import login_guest, register


def test_report_from_player_info_and_resolve_on_the_moderation_page(
    tmp_path: Path, new_context: Any, page_errors: Any
) -> None:
    # Its own server, so that `romme admin` can open the same database.
    proc, base = start_server(tmp_path, "--accounts-per-hour", "0")
    pages: list[Any] = []
    try:
        otto = new_context("otto")
        pages.append(otto)
        login_guest(otto, base, "Otto")
        otto.fill("#lobby-chat-input", "what the fuck, Scunthorpe")
        otto.press("#lobby-chat-input", "Enter")
        otto.wait_for_selector("#lobby-chat-log li:has-text('what the ****, Scunthorpe')")

        rita = new_context("rita")
        pages.append(rita)
        register(rita, base, "Rita", "geheim-und-lang")
        rita.click("#player-list button:has-text('Otto')")
        rita.click("#report-player")
        rita.select_option("#report-reason", "abusive_chat")
        rita.fill("#report-text", "swears at everyone")
        rita.click("#report-send")
        rita.wait_for_selector(".toast:has-text('Report sent')")
        assert rita.locator(".report-dialog").count() == 0
        # Rita is no moderator: no link, and the page says so.
        assert rita.locator("#moderation-link").is_hidden()
        rita.goto(base + "#/moderation")
        rita.wait_for_selector("#moderation-body .form-error:has-text('Only moderators')")
        # The browser itself logs the refused request (HTTP 403); that one is expected.
        expected = [e for e in page_errors.errors if "403 (Forbidden)" in e]
        assert len(expected) == 1
        page_errors.errors.remove(expected[0])

        mara = new_context("mara", viewport=PHONE)
        pages.append(mara)
        register(mara, base, "Mara", "geheim-und-lang")
        granted = subprocess.run(
            [
                sys.executable,
                "-m",
                "romme",
                "admin",
                "--db",
                f"sqlite+aiosqlite:///{tmp_path / 'romme.db'}",
                "grant-moderator",
                "Mara",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert granted.returncode == 0, granted.stderr
        mara.reload()
        mara.wait_for_selector("#moderation-link:visible")
        mara.click("#moderation-link")
        report = mara.locator("#report-list li.report")
        report.first.wait_for()
        assert report.count() == 1
        text = report.first.inner_text()
        assert "Rita reported Otto" in text and "Abusive chat" in text
        assert "swears at everyone" in text and "what the ****, Scunthorpe" in text
        assert "in the lobby" in text
        width = mara.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the moderation page scrolls sideways on a phone"
        shot(mara, "moderation-phone")
        report.first.locator("input[aria-label='Note']").fill("warned")
        report.first.locator("button[data-resolve]").click()
        mara.wait_for_selector("#moderation-body p.muted:has-text('No reports.')")
        mara.wait_for_selector("#mod-log li:has-text('Mara resolved a report of Otto: warned')")
        # With the closed reports shown, it says who resolved it.
        mara.uncheck("#mod-open-only")
        mara.wait_for_selector("#report-list li.report:has-text('resolved by Mara: warned')")
        # Every text of the page (the report, the log) exists in the five languages.
        every_language(
            mara,
            "moderation",
            lambda lang: mara.wait_for_selector(f"html[lang='{lang}'] #report-list li.report"),
        )
    finally:
        for page in pages:  # before the server stops, so that no page sees it go
            page.context.close()
        stop_server(proc)
