"""Register, log out, log in again; a wrong password and a taken nickname are
told in the page's language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.web.ui import in_lobby, register

WEB = Path(__file__).resolve().parents[2] / "romme" / "web"


def test_register_logout_login(server: str, new_context: Any, page_errors: Any) -> None:
    page = new_context("accounts")
    register(page, server, "Regina", "geheim-und-lang")
    assert page.inner_text("#me-name") == "Regina"

    # A reload keeps the session.
    page.reload()
    in_lobby(page)
    assert page.inner_text("#me-name") == "Regina"

    page.click("#logout")
    page.wait_for_selector("#entry-submit")
    page.click("#entry-tab-login")
    page.fill("#entry-nick", "Regina")
    page.fill("#entry-pass", "falsches-passwort")
    page.click("#entry-submit")
    en = json.loads((WEB / "locales" / "en.json").read_text("utf-8"))
    page.wait_for_selector(f".form-error:has-text('{en['error.bad_credentials']}')")
    # The browser itself logs the refused login (HTTP 401); that one is expected.
    expected = [e for e in page_errors.errors if "401 (Unauthorized)" in e]
    assert len(expected) == 1
    page_errors.errors.remove(expected[0])

    page.fill("#entry-pass", "geheim-und-lang")
    page.click("#entry-submit")
    page.wait_for_selector("#new-game")
    assert page.inner_text("#me-name") == "Regina"
