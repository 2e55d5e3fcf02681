"""A long fuzzing pass over a real ``romme serve``: the WebSocket protocol and the
HTTP endpoints, with the strategies and checks of ``tests/server/fuzz.py``
(derived from the protocol's own message definitions, plus byte-level garbage).

    python bench/fuzz_protocol.py --seconds 300 --backend sqlite
    python bench/fuzz_protocol.py --seconds 300 --backend postgresql   # ROMME_TEST_PG_URL

It starts its own server (a temporary SQLite file, or a fresh PostgreSQL
database that it drops afterwards), fuzzes the WebSocket for most of the time
and the HTTP endpoints for the rest (``--http-share``), then prints how many
inputs were tried and every failure: a request with an id answered not exactly
once, a connection closed without its documented code or left unusable, an HTTP
answer of 5xx, a traceback or error in the server's log. Exit status 1 if any.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.server.conftest import drop_pg_database, new_pg_database
from tests.server.fuzz import (
    SERVER_OPTIONS,
    HttpFuzzer,
    LoopThread,
    Tally,
    WsFuzzer,
    log_faults,
)
from tests.server.helpers import ServerProcess


def fuzz(seconds: float, backend: str, http_share: float, workdir: Path) -> dict[str, object]:
    db_url = (
        new_pg_database()
        if backend == "postgresql"
        else f"sqlite+aiosqlite:///{workdir / 'fuzz.db'}"
    )
    server = ServerProcess(db_url, workdir, bot_delay=1.0, extra=SERVER_OPTIONS).start()
    tally = Tally()
    started = time.monotonic()
    loop = LoopThread()
    ws = WsFuzzer(server, loop, tally)
    http = HttpFuzzer(server, tally)
    error = None
    try:
        loop.run(ws.setup())
        ws.run(seconds * (1 - http_share), examples=50)
        http.run(seconds * http_share, examples=100)
    except Exception as exc:  # a failed check: reported below with the tally
        error = f"{type(exc).__name__}: {exc}"[:3000]
    finally:
        ws.close()
        http.close()
        loop.close()
        server.stop()
        if backend == "postgresql":
            drop_pg_database(db_url)
    faults = log_faults(server)
    return {
        "backend": backend,
        "seconds": round(time.monotonic() - started, 1),
        "ws_frames": tally.frames,
        "ws_requests_with_id": tally.tracked,
        "invalid_utf8_closes": tally.closes_1007,
        "http_requests": tally.http_requests,
        "failures": tally.failures or ([error] if error else []),
        "log_faults": faults,
        "server_log": str(server.log_path),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="how long (default 300)")
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument(
        "--http-share",
        type=float,
        default=0.25,
        help="the share of the time spent on HTTP (default 0.25)",
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="romme-fuzz-"))
    result = fuzz(args.seconds, args.backend, args.http_share, workdir)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 1 if result["failures"] or result["log_faults"] else 0


if __name__ == "__main__":
    sys.exit(main())
