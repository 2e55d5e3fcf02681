"""A bounded fuzzing pass over a real running server (``tests/server/fuzz.py``;
``bench/fuzz_protocol.py`` runs the same for as long as asked): every request
with an id gets exactly one reply, no connection is closed without its
documented code, none is left unusable, no HTTP answer is a 5xx, and the
server logs no traceback."""

from __future__ import annotations

import pytest

from .conftest import ServerFactory
from .fuzz import (
    BODY_FIELDS,
    SERVER_OPTIONS,
    HttpFuzzer,
    LoopThread,
    Tally,
    WsFuzzer,
    log_faults,
    post_routes,
)


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


def test_every_post_route_has_its_body_fields() -> None:
    """The fuzzer finds the POST routes in the app; each must say what its body
    holds, so that it gets well-formed bodies too, not only garbage."""
    routes = post_routes()
    assert "/api/reports" in routes and "/api/moderation/resolve" in routes
    assert [r for r in routes if r not in BODY_FIELDS] == []


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_http_fuzz(make_server: ServerFactory, backend: str) -> None:
    server = make_server(backend, extra=SERVER_OPTIONS)
    tally = Tally()
    fuzzer = HttpFuzzer(server, tally)
    routes = post_routes()

    def enough() -> bool:
        return tally.http_requests > 150 and all(tally.http_routes.get(r) for r in routes)

    try:
        fuzzer.run(seconds=10, enough=enough)
    finally:
        fuzzer.close()
    assert tally.failures == []
    assert enough(), tally
    assert log_faults(server) == []
