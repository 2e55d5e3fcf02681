"""``make run PORT=... HOST=...`` starts the server where it is told to."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from .helpers import ROOT, free_port


def test_make_run_listens_on_the_port_and_host_it_is_given(tmp_path: Path) -> None:
    port = free_port()
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "romme").exists(), "the project is installed in this environment"
    log_path = tmp_path / "make-run.log"
    with open(log_path, "wb") as log:
        # STAMP= and BIN=: use the environment the tests run in, without pip.
        make = subprocess.Popen(
            [
                "make",
                "--no-print-directory",
                "run",
                f"PORT={port}",
                "HOST=127.0.0.1",
                f"DB=sqlite+aiosqlite:///{tmp_path / 'romme.db'}",
                "STAMP=",
                f"BIN={bin_dir}",
            ],
            cwd=ROOT,
            env={**os.environ, "ROMME_SECRET": "test-secret"},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 30
        health = None
        while time.monotonic() < deadline and make.poll() is None:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert health is not None, log_path.read_text(errors="replace")
        assert health.status_code == 200 and health.json()["ok"] is True
        assert f"--port {port}" in log_path.read_text(errors="replace")
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGTERM)
        make.wait(20)
    assert (tmp_path / "romme.db").exists(), "DB= chose the database"
