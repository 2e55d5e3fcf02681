"""A bounded fuzzing pass over a real running server (``tests/server/fuzz.py``;
``bench/fuzz_protocol.py`` runs the same for as long as asked): every request
with an id gets exactly one reply, no connection is closed without its
documented code, none is left unusable, no HTTP answer is a 5xx, and the
server logs no traceback."""

from __future__ import annotations

import pytest

from .conftest import ServerFactory
from .fuzz import SERVER_OPTIONS, HttpFuzzer, LoopThread, Tally, WsFuzzer, log_faults


def _enough_frames(tally: Tally) -> bool:
    return tally.frames > 200 and tally.tracked > 50


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_websocket_fuzz(make_server: ServerFactory, backend: str) -> None:
    server = make_server(backend, bot_delay=1.0, extra=SERVER_OPTIONS)
    tally = Tally()
    loop = LoopThread()
    fuzzer = WsFuzzer(server, loop, tally)
    try:
        loop.run(fuzzer.setup())
        fuzzer.run(seconds=15, enough=lambda: _enough_frames(tally))
    finally:
        fuzzer.close()
        loop.close()
    assert tally.failures == []
    assert _enough_frames(tally), tally
    assert log_faults(server) == []


@pytest.mark.slow
def test_http_fuzz(make_server: ServerFactory) -> None:
    server = make_server()
    tally = Tally()
    fuzzer = HttpFuzzer(server, tally)
    try:
        fuzzer.run(seconds=10, enough=lambda: tally.http_requests > 100)
    finally:
        fuzzer.close()
    assert tally.failures == []
    assert tally.http_requests > 100, tally
    assert log_faults(server) == []
