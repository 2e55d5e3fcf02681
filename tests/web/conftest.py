"""Browser tests: a real `romme serve` process and Debian's Chromium, driven by
Playwright for Python. Every page records console errors and page errors; a test
fails if any appear, so a breach of the server's Content-Security-Policy fails it
too. The policy forbids evaluating strings: give `wait_for_function` a function
(`"() => ..."`), never a bare expression, which Playwright would evaluate.
Screenshots go to test-artifacts/ (git-ignored)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import Client, ServerProcess
from tests.server.test_replay import finished_game

CHROMIUM = os.environ.get("ROMME_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(tmp: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    db = tmp / "romme.db"
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 (closed with the process)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "romme",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            f"sqlite+aiosqlite:///{db}",
            "--secret-file",
            str(tmp / "secret"),
            "--log-level",
            "warning",
            *extra,
        ],
        cwd=tmp,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("romme serve exited:\n" + (tmp / "server.log").read_text())
        try:
            with urllib.request.urlopen(base + "healthz", timeout=1) as r:
                if r.status == 200:
                    return proc, base
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("romme serve did not start:\n" + (tmp / "server.log").read_text())


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server on a free loopback port with a fresh SQLite database.
    Computer opponents think about a third of a second, so that an opponent's turn
    lasts long enough to sort one's hand meanwhile. The suite's players all come
    from 127.0.0.1, more than the default limit of new accounts per address allows,
    so that limit is off here."""
    tmp = tmp_path_factory.mktemp("server")
    # Every browser here is on 127.0.0.1: people at one staked table share an address.
    proc, base = start_server(
        tmp, "--bot-delay", "0.3", "--accounts-per-hour", "0", "--chip-accounts-per-address", "0"
    )
    yield base
    stop_server(proc)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, for one test module. Not for the whole session: Playwright's sync
    API keeps an event loop running while it is started, and a worker of the
    parallel suite (pytest-xdist) runs asyncio tests after a module of these."""
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        reason = f"no Chromium at {CHROMIUM}"
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI is set, so this fails instead of skipping)")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class PageErrors:
    """Console errors and uncaught exceptions of every page a test opens."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Any, name: str) -> Any:
        page.on(
            "console",
            lambda m: (
                self.errors.append(f"{name} console.{m.type}: {m.text}")
                if m.type == "error"
                else None
            ),
        )
        page.on("pageerror", lambda e: self.errors.append(f"{name} pageerror: {e}"))
        return page


@pytest.fixture
def page_errors() -> Iterator[PageErrors]:
    watcher = PageErrors()
    yield watcher
    assert watcher.errors == [], "console errors:\n" + "\n".join(watcher.errors)


@pytest.fixture
def new_context(browser: Any, page_errors: PageErrors) -> Iterator[Any]:
    """Open a browser context and a page: new_context(name, viewport=..., locale=...)."""
    contexts: list[Any] = []

    def make(
        name: str = "page", viewport: dict[str, int] | None = None, locale: str = "en-US", **kw: Any
    ) -> Any:
        ctx = browser.new_context(viewport=viewport or DESKTOP, locale=locale, **kw)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(30000)
        return page_errors.watch(page, name)

    yield make
    for ctx in contexts:
        ctx.close()


def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    # Let flying cards land and dialogs finish fading in first.
    page.wait_for_function(
        "() => document.getAnimations().every(a => a.playState !== 'running'"
        " || a.effect.getComputedTiming().iterations === Infinity)",
        timeout=5000,
    )
    page.screenshot(path=str(path))
    return path


NICKNAME = "Replayer"
PASSWORD = "secret-pass"


class Played:
    """A server where a registered player finished one game against the computer:
    its replay, the player's info and the platform's card luck as the API gave them."""

    def __init__(self, server: ServerProcess, table: int) -> None:
        self.server = server
        self.table = table
        self.base = server.base + "/"
        self.replay: dict[str, Any] = httpx.get(f"{server.base}/api/games/{table}/replay").json()
        self.info: dict[str, Any] = httpx.get(f"{server.base}/api/players/{NICKNAME}").json()
        self.cards: dict[str, Any] = httpx.get(f"{server.base}/api/stats/cards").json()


def _play(server: ServerProcess) -> int:
    async def play() -> int:
        client = Client(server, NICKNAME)
        answer = await client.http.post(
            "/api/register", json={"nickname": NICKNAME, "password": PASSWORD}
        )
        assert answer.status_code == 200, answer.text
        await client.connect()
        try:
            return await finished_game(client)
        finally:
            await client.close()

    # Playwright's synchronous API owns this thread's event loop: play in another.
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(play())))
    thread.start()
    thread.join(180)
    assert result, "the game was not played out"
    return result[0]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """One finished game of :data:`NICKNAME` (the replay, history and statistics
    pages' tests), on a server of the test module's own."""
    workdir: Path = tmp_path_factory.mktemp("played")
    server = ServerProcess(
        f"sqlite+aiosqlite:///{workdir / 'romme.db'}",
        workdir,
        time_scale=10,
        # Ranked from the first game (docs/chips.md: established accounts).
        extra=["--chip-established-games", "1", "--chip-established-hours", "0"],
    )
    server.start()
    try:
        yield Played(server, _play(server))
    finally:
        server.stop()


def login(page: Any, base: str, hash_: str = "") -> None:
    """Log :data:`NICKNAME` in on the entry page (at ``hash_``)."""
    page.goto(base + hash_)
    page.click("#entry-tab-login")
    page.fill("#entry-nick", NICKNAME)
    page.fill("#entry-pass", PASSWORD)
    page.click("#entry-submit")
