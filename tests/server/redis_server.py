"""A real redis-server for the cluster tests: one per test, on a free port."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import httpx

from .helpers import ServerProcess, free_port


class RedisServer:
    """A redis-server of one test, on a free port, persisting nothing."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while (
            subprocess.run(
                ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True
            ).stdout.strip()
            != "PONG"
        ):
            assert self.proc.poll() is None and time.monotonic() < deadline, "no redis-server"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


async def redis_up(nodes: list[ServerProcess], limit: float = 30) -> None:
    """Wait until every node says (GET /healthz) that it reaches Redis."""
    deadline = time.monotonic() + limit
    async with httpx.AsyncClient() as http:
        while time.monotonic() < deadline:
            health = [(await http.get(n.base + "/healthz")).json() for n in nodes]
            if all(h["redis"] for h in health):
                return
            await asyncio.sleep(0.1)
    raise AssertionError("Redis is not up for every node")
