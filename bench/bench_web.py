"""First load of the table page: bytes transferred and time to interactive.

Starts `romme serve` on a free loopback port with a fresh SQLite database, logs a
guest in, opens a game against a computer opponent, then loads the table page
again and again, each time in a new browser context (an empty cache), as a
player does who reloads or comes back. For every load it counts the bytes the
browser received (HTTP bodies and headers as sent, plus the WebSocket frames up
to the first rendered table) and the time from navigation start to the moment
the page has rendered the hand from the server's view with its handlers in place
(the `romme-table` performance mark).

    .venv/bin/python bench/bench_web.py [--repeats 15]

Prints the median and spread; the budget is 300 KB and 1 s on loopback.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server  # noqa: E402


def measure(browser: Any, base: str, state: Any, path: str) -> tuple[int, float, int]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, storage_state=state)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    received = {"http": 0, "ws": 0, "requests": 0}

    def finished(event: dict[str, Any]) -> None:
        received["http"] += int(event.get("encodedDataLength", 0))
        received["requests"] += 1

    def frame(event: dict[str, Any]) -> None:
        received["ws"] += len(event["response"].get("payloadData", "").encode())

    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.webSocketFrameReceived", frame)
    page.goto(base + path)
    page.wait_for_function(
        "() => performance.getEntriesByName('romme-table').length > 0", timeout=10000
    )
    ms = page.evaluate("performance.getEntriesByName('romme-table')[0].startTime")
    page.wait_for_timeout(100)
    total = received["http"] + received["ws"]
    requests = received["requests"]
    ctx.close()
    return total, float(ms), requests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        proc, base = start_server(Path(tmp), "--bot-delay", "30")
        try:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            ctx = browser.new_context()
            page = ctx.new_page()
            page.goto(base)
            page.fill("#entry-nick", "Bench")
            page.click("#entry-submit")
            page.click("#new-game")
            page.select_option("#ng-turn", "120")
            page.click("#ng-create")
            page.wait_for_selector("#hand .hand-card")
            path = page.evaluate("location.hash")
            state = ctx.storage_state()
            ctx.close()
            # One load to warm the server (imports, database pages), not counted.
            measure(browser, base, state, path)
            runs = [measure(browser, base, state, path) for _ in range(args.repeats)]
            browser.close()
        finally:
            stop_server(proc)
    sizes = [r[0] for r in runs]
    times = [r[1] for r in runs]
    print(f"table page, first load, {args.repeats} cold loads on loopback ({runs[0][2]} requests):")
    print(
        f"  bytes transferred   median {statistics.median(sizes) / 1024:7.1f} KiB"
        f"   min {min(sizes) / 1024:.1f}   max {max(sizes) / 1024:.1f}   (budget 300 KB)"
    )
    print(
        f"  time to interactive median {statistics.median(times):7.1f} ms"
        f"   min {min(times):.1f}   max {max(times):.1f}"
        f"   stdev {statistics.pstdev(times):.1f}   (budget 1000 ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
