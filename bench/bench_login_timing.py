"""How long a failed login takes, for an existing account and for a nickname
nobody has: an attacker must not be able to tell them apart.

    python bench/bench_login_timing.py [--pairs 45] [--repeats 3]

Starts ``romme serve`` (SQLite in a temporary folder, the default argon2
parameters), and sends wrong-password logins over real HTTP, alternating an
existing account and an unknown nickname so that load on the machine hits both
alike. Each block of 9 pairs comes from its own address (``X-Forwarded-For``,
which the server trusts from 127.0.0.1) where the account was registered, so the
login limits never answer instead of the password check. Reports, per repeat,
the median, p10..p90 and min..max of both, in milliseconds, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

PAIRS_PER_ADDRESS = 9


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "romme",
            "serve",
            "--port",
            str(port),
            "--db",
            f"sqlite+aiosqlite:///{workdir / 'romme.db'}",
            "--log-level",
            "warning",
        ],
        cwd=workdir,
        env={**os.environ, "ROMME_SECRET": "bench"},
        stdout=subprocess.DEVNULL,
        stderr=open(workdir / "server.log", "ab"),  # noqa: SIM115
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def _summary(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    deciles = statistics.quantiles(ms, n=10)
    return (
        f"median {statistics.median(ms):6.1f} ms, p10..p90 {deciles[0]:.1f}..{deciles[-1]:.1f}"
        f", min..max {ms[0]:.1f}..{ms[-1]:.1f}"
    )


def measure(base: str, pairs: int, block: int) -> tuple[list[float], list[float]]:
    existing: list[float] = []
    unknown: list[float] = []
    for start in range(0, pairs, PAIRS_PER_ADDRESS):
        address = f"198.19.{block}.{start // PAIRS_PER_ADDRESS + 1}"
        with httpx.Client(
            base_url=base, headers={"X-Forwarded-For": address}, timeout=30
        ) as client:
            name = f"tim{secrets.token_hex(4)}"
            answer = client.post(
                "/api/register", json={"nickname": name, "password": "correct horse"}
            )
            assert answer.status_code == 200, answer.text
            for _ in range(min(PAIRS_PER_ADDRESS, pairs - start)):
                for who, samples in ((name, existing), (f"nob{secrets.token_hex(4)}", unknown)):
                    started = time.perf_counter()
                    answer = client.post(
                        "/api/login", json={"nickname": who, "password": "wrong horse"}
                    )
                    samples.append(time.perf_counter() - started)
                    assert answer.status_code == 401, answer.text
    return existing, unknown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=45)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = _start(Path(tmp))
        try:
            for repeat in range(args.repeats):
                existing, unknown = measure(base, args.pairs, repeat)
                ratio = statistics.median(unknown) / statistics.median(existing)
                print(f"repeat {repeat + 1}: existing account: {_summary(existing)}")
                print(
                    f"          unknown nickname: {_summary(unknown)}  (ratio {ratio:.2f})",
                    flush=True,
                )
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
