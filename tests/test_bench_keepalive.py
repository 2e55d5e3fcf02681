"""The keepalive benchmark (``bench/bench_keepalive.py``) runs its four cases
against real server processes and reports each, and the CPU per ping. A small
run: it measures, this test does not (the figures of so short a run are noise)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_small_run_reports_every_case_and_the_cpu_per_ping() -> None:
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_keepalive.py"),
            "--clients", "20", "--interval", "0.5", "--duration", "1", "--repeats", "1",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "20 clients, keepalive every 0.5 s (40 pings/s)" in out
    for case in (
        "silent, no keepalive",
        "silent, keepalive",
        "talking, uvicorn's keepalive",
        "talking, silent-only keepalive",
    ):
        assert re.search(rf"^{re.escape(case)} +server CPU +-?[\d.]+ % of a core", out, re.M), out
    assert re.search(r"^server CPU per ping: -?\d+ us \(-?\d+\.\.-?\d+\)", out, re.M), out
