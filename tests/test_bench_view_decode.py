"""The view-decoding benchmark (``bench/bench_view_decode.py``) decodes the views
of real games and reports the time per view. A small run: it measures, this test
does not."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_small_run_reports_decoding_and_the_decision_per_view() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_view_decode.py"), "--games", "1", "--repeats", "2"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = run.stdout
    views = re.search(r"^(\d+) views of 1 game, 2 repeats", out, re.M)
    assert views is not None and int(views.group(1)) > 20, out
    for name in ("SeatView.from_json", "reference_action"):
        assert re.search(rf"^{name}: \d+ µs per view \(\d+\.\.\d+\)$", out, re.M), out
