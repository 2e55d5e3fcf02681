"""The first load of the table page stays within 300 KB (the time to interactive
is measured by bench/bench_web.py: tests assert no timings)."""

from __future__ import annotations

from typing import Any

from tests.web.ui import login_guest

BUDGET = 300 * 1000


def test_table_page_first_load_within_budget(server: str, browser: Any, new_context: Any) -> None:
    page = new_context("budget")
    login_guest(page, server, "Budget")
    page.click("#new-game")
    page.select_option("#ng-turn", "120")
    page.click("#ng-create")
    page.wait_for_selector("#hand .hand-card")
    path = page.evaluate("location.hash")
    state = page.context.storage_state()

    ctx = browser.new_context(storage_state=state)
    try:
        cold = ctx.new_page()
        cdp = ctx.new_cdp_session(cold)
        cdp.send("Network.enable")
        received: list[int] = []
        cdp.on("Network.loadingFinished", lambda e: received.append(int(e["encodedDataLength"])))
        cdp.on(
            "Network.webSocketFrameReceived",
            lambda e: received.append(len(e["response"]["payloadData"].encode())),
        )
        cold.goto(server + path)
        cold.wait_for_function("() => performance.getEntriesByName('romme-table').length > 0")
        cold.wait_for_timeout(200)
        assert cold.locator("#hand .hand-card").count() >= 13
        total = sum(received)
        assert 20_000 < total <= BUDGET, f"{total} bytes"
    finally:
        ctx.close()
