"""A page refused for too many connections of its player says so and stops: trying
again at once would only be refused again (docs/protocol.md, close code 4429)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import start_server, stop_server
from tests.web.ui import login_guest, new_game

WEB = Path(__file__).resolve().parents[2] / "romme" / "web"


@pytest.fixture
def one_connection_server(tmp_path: Path) -> Iterator[str]:
    proc, base = start_server(tmp_path, "--max-connections-per-player", "1")
    yield base
    stop_server(proc)


def test_a_second_tab_over_the_limit_says_why_and_stops(
    one_connection_server: str, browser: Any, page_errors: Any
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    try:
        first = page_errors.watch(context.new_page(), "first")
        login_guest(first, one_connection_server, "Tabitha")

        second = page_errors.watch(context.new_page(), "second")
        opened: list[float] = []
        second.on("websocket", lambda _ws: opened.append(time.monotonic()))
        second.goto(one_connection_server)
        en = json.loads((WEB / "locales" / "en.json").read_text("utf-8"))
        banner = second.locator("#conn-banner")
        banner.wait_for(state="visible")
        second.wait_for_function(
            "text => document.getElementById('conn-banner').textContent === text",
            arg=en["error.too_many_connections"],
        )
        # Backoff would have tried again within a second or two; the page stays put.
        time.sleep(3)
        assert len(opened) == 1, f"the refused page connected {len(opened)} times"
        assert banner.inner_text() == en["error.too_many_connections"]

        # The first tab is untouched and still talks to the server.
        new_game(first, opponents=1)
    finally:
        context.close()
