"""A real server in a subprocess and scripted WebSocket clients, for end-to-end tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from romme.engine.actions import Knock
from romme.engine.reference import reference_action
from romme.engine.view import SeatView
from romme.server.protocol import RateLimiter

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


BIND_TRIES = 3
"""How many ports a test server is started on before its start counts as failed."""


class PortTaken(Exception):
    """The server could not bind its port: another process took it meanwhile."""


class ServerProcess:
    """``python -m romme serve`` on a free loopback port."""

    def __init__(
        self,
        db_url: str,
        workdir: Path,
        *,
        time_scale: float = 1.0,
        bot_delay: float = 0.0,
        extra: list[str] | None = None,
    ) -> None:
        self.db_url = db_url
        self.workdir = workdir
        self.time_scale = time_scale
        self.bot_delay = bot_delay
        self.extra = extra or []
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = workdir / f"server-{self.port}.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 90.0) -> ServerProcess:
        """Start the server and wait until it answers ``/healthz`` (on a loaded
        machine its imports, migrations and bot workers may take half a minute).
        The port was free when chosen, but another process may take it before the
        server binds it (seconds later, after its start-up): then the server is
        started again on another free port, up to :data:`BIND_TRIES` times."""
        for _ in range(BIND_TRIES - 1):
            try:
                return self._start_once(timeout)
            except PortTaken:
                self.port = free_port()
        return self._start_once(timeout)

    def _start_once(self, timeout: float) -> ServerProcess:
        env = {**os.environ, "ROMME_SECRET": "test-secret", "PYTHONUNBUFFERED": "1"}
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child owns it
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "romme",
                "serve",
                "--port",
                str(self.port),
                "--db",
                self.db_url,
                "--time-scale",
                str(self.time_scale),
                "--bot-delay",
                str(self.bot_delay),
                *self.extra,
            ],
            cwd=self.workdir,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                logs = self.logs()
                if f"address ('127.0.0.1', {self.port}): address already in use" in logs:
                    raise PortTaken(self.port)
                raise RuntimeError(f"server exited: {logs[-3000:]}")
            try:
                if httpx.get(self.base + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.logs()[-3000:]}")

    def logs(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, timeout: float = 15.0) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode


Policy = Callable[[SeatView], Any]


class Client:
    """A scripted player: an HTTP session (cookie) and one WebSocket."""

    def __init__(self, server: ServerProcess, nickname: str) -> None:
        self.server = server
        self.nickname = nickname
        self.http = httpx.AsyncClient(base_url=server.base, timeout=20)
        self.ws: ClientConnection | None = None
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self._new = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self.player: dict[str, Any] = {}
        self.tables: dict[int, dict[str, Any]] = {}
        """Latest known state per table: my_seat, version, view, timer."""
        self.closed: int | None = None
        self._ids = 0
        self._bucket = RateLimiter(rate=18, burst=30)

    async def guest(self) -> Client:
        answer = await self.http.post("/api/guest", json={"nickname": self.nickname})
        assert answer.status_code == 200, answer.text
        self.player = answer.json()["player"]
        return self

    async def register(self, password: str) -> Client:
        """Register an account with this client's nickname (and its session)."""
        return await self._sign_in("/api/register", password)

    async def login(self, password: str) -> Client:
        """Log in (a new session of the account with this client's nickname)."""
        return await self._sign_in("/api/login", password)

    async def _sign_in(self, path: str, password: str) -> Client:
        answer = await self.http.post(path, json={"nickname": self.nickname, "password": password})
        assert answer.status_code == 200, answer.text
        self.player = answer.json()["player"]
        return self

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    async def connect(self, **kwargs: Any) -> Client:
        headers = {"Cookie": self.cookie_header()}
        self.ws = await connect(
            self.server.ws_url, additional_headers=headers, max_size=2**22, **kwargs
        )
        self.closed = None
        self._reader = asyncio.create_task(self._read())
        await self.expect("lobby")
        return self

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for text in self.ws:
                assert isinstance(text, str)
                self.raw.append(text)
                data = json.loads(text)
                self._track(data)
                self.messages.append(data)
                self._new.set()
        except Exception:
            pass
        finally:
            self.closed = self.ws.close_code if self.ws.close_code is not None else 1006
            self._new.set()

    def _track(self, data: dict[str, Any]) -> None:
        kind = data.get("type")
        if kind == "table":
            table = data["table"]
            state = self.tables.setdefault(table["id"], {})
            state.update(
                my_seat=table["my_seat"],
                version=table["version"],
                view=table["view"],
                timer=table["timer"],
                status=table["status"],
                next_round=table["next_round"],
                seats=table["seats"],
            )
        elif kind == "update":
            state = self.tables.setdefault(data["table"], {})
            state["version"] = data["version"]
            if data.get("view") is not None:
                state["view"] = data["view"]
                state["timer"] = data["timer"]
                state["status"] = "playing"
        elif kind == "game_over":
            state = self.tables.setdefault(data["table"], {})
            state["status"] = "finished"
            state["game_over"] = data

    async def send(self, data: dict[str, Any]) -> None:
        """Send a message, keeping under the server's rate limit (20/s, bursts of 40)
        as a well-behaved client does."""
        assert self.ws is not None
        while not self._bucket.allow():
            await asyncio.sleep(0.02)
        await self.ws.send(json.dumps(data))

    async def request(self, data: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
        """Send with an id; the first reply or error carrying it."""
        self._ids += 1
        msg_id = f"r{self._ids}"
        await self.send({**data, "id": msg_id})
        return await self.expect(None, lambda m: m.get("id") == msg_id, timeout=timeout)

    async def expect(
        self,
        kind: str | None,
        pred: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = 10,
        start: int = 0,
    ) -> dict[str, Any]:
        """The first message (from index ``start``) of this type matching ``pred``."""
        deadline = time.monotonic() + timeout
        index = start
        while True:
            while index < len(self.messages):
                message = self.messages[index]
                index += 1
                if (kind is None or message.get("type") == kind) and (
                    pred is None or pred(message)
                ):
                    return message
            if self.closed is not None:
                raise AssertionError(
                    f"{self.nickname}: connection closed ({self.closed}) waiting for {kind}"
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"{self.nickname}: no {kind} within {timeout}s; last: "
                    f"{[m.get('type') for m in self.messages[-8:]]}"
                )
            self._new.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), remaining)

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == "error"]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5)
        await self.http.aclose()


def admin(server: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    """``romme admin ARGS`` on the server's database."""
    return subprocess.run(
        [sys.executable, "-m", "romme", "admin", "--db", server.db_url, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


async def create_table(host: Client, **settings: Any) -> int:
    reply = await host.request({"type": "create_table", "settings": settings})
    assert reply["type"] == "table", reply
    return int(reply["table"]["id"])


class Autoplayer:
    """Plays a seat with a policy (the reference player by default) from the views
    the server sends, says "Next" after each round, until the game is over."""

    def __init__(
        self, client: Client, table: int, policy: Policy = reference_action, knock: bool = True
    ) -> None:
        self.client = client
        self.table = table
        self.policy = policy
        self.knock = knock
        self.acted: set[tuple[int, str]] = set()
        self.moves = 0

    async def step(self) -> bool:
        """Act if it is this seat's move; True once the game is over."""
        state = self.client.tables.get(self.table, {})
        if state.get("status") == "finished":
            return True
        view_json = state.get("view")
        if not view_json or state.get("my_seat") is None:
            return False
        version = state["version"]
        view = SeatView.from_json(view_json)
        if view.phase == "round_over":
            key = (view.round_no, "next")
            if key not in self.acted:
                self.acted.add(key)
                await self.client.send({"type": "next_round", "table": self.table})
            return False
        if view.phase not in ("draw", "play"):
            return False
        mine = view.seat == view.current or (self.knock and view.seat in view.knock_seats)
        if not mine or (version, "act") in self.acted:
            return False
        action = self.policy(view)
        if action is None:
            return False
        if isinstance(action, Knock) and view.seat == view.current:
            return False
        self.acted.add((version, "act"))
        data = {k: v for k, v in action.to_json().items() if k != "seat"}
        self.moves += 1
        await self.client.send({"type": "action", "table": self.table, "action": data})
        return False


async def play_out(players: list[Autoplayer], timeout: float = 120) -> None:
    """Run the autoplayers until every one has seen the game end."""
    deadline = time.monotonic() + timeout
    while True:
        done = [await p.step() for p in players]
        if all(done):
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the game did not end in {timeout}s; last versions "
                f"{[p.client.tables.get(p.table, {}).get('version') for p in players]}"
            )
        for p in players:
            if p.client.closed is not None:
                raise AssertionError(f"{p.client.nickname} disconnected ({p.client.closed})")
        waits = [asyncio.ensure_future(p.client._new.wait()) for p in players]
        for p in players:
            p.client._new.clear()
        _, pending = await asyncio.wait(waits, timeout=0.2, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()


def run_in_thread(work: Callable[[], Coroutine[Any, Any, None]], timeout: float = 240) -> None:
    """Run ``work()`` to its end on an event loop of its own, in a thread (a browser
    test's Playwright owns the main thread); its exception is raised here."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(work())
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"still running after {timeout}s"
    if errors:
        raise errors[0]
