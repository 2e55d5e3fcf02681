"""Every string of an HTTP body is checked at the boundary, before any route reads
it (docs/security.md, "Hostile bytes and numbers"): a lone surrogate or a NUL in
any string or key is ``400 bad_message``, on SQLite and PostgreSQL, and nothing
is stored; before, a report's text or a moderator's note holding one was a 500
with a traceback. Against a real server."""

from __future__ import annotations

import httpx
import pytest

from .conftest import ServerFactory, nickname
from .helpers import ServerProcess, admin

PASSWORD = "correct horse battery"

BODY_ROUTES = [
    "/api/guest",
    "/api/register",
    "/api/login",
    "/api/logout",
    "/api/sessions/revoke",
    "/api/reports",
    "/api/moderation/resolve",
    "/api/moderation/mute",
    "/api/moderation/ban",
    "/api/moderation/lift",
    "/api/account/password",
    "/api/account/delete",
]
"""The routes that read a JSON body (the fuzzer finds them all from the app's routes)."""


def _registered(server: ServerProcess, prefix: str) -> tuple[httpx.Client, str]:
    name = nickname(prefix)
    client = httpx.Client(base_url=server.base, timeout=20)
    answer = client.post("/api/register", json={"nickname": name, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return client, name


def _post_raw(client: httpx.Client, path: str, body: bytes) -> tuple[int, str | None]:
    answer = client.post(path, content=body, headers={"Content-Type": "application/json"})
    try:
        code = answer.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = None
    return answer.status_code, code


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_lone_surrogates_and_nul_in_bodies_are_bad_message(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=["--accounts-per-hour", "0"])
    mod, mod_name = _registered(server, "bm")
    granted = admin(server, "grant-moderator", mod_name)
    assert granted.returncode == 0, granted.stderr
    reporter, _ = _registered(server, "br")
    _, target = _registered(server, "bt")
    try:
        hostile = [
            ("/api/reports", reporter, f'{{"nickname": "{target}", "reason": "other", '),
            ("/api/moderation/resolve", mod, '{"report": 1, '),
            ("/api/moderation/mute", mod, f'{{"nickname": "{target}", "minutes": 5, '),
            ("/api/moderation/lift", mod, f'{{"nickname": "{target}", "kind": "mute", '),
        ]
        field = {"/api/reports": "text"}
        for path, client, head in hostile:
            key = field.get(path, "note")
            for bad in ("\\ud800", "a\\udfffb", "a\\u0000b"):
                body = f'{head}"{key}": "{bad}"}}'.encode()
                assert _post_raw(client, path, body) == (400, "bad_message"), (path, body)
        # A report is still taken, and the moderators' page shows only it.
        filed = reporter.post(
            "/api/reports", json={"nickname": target, "reason": "other", "text": "rude"}
        )
        assert filed.status_code == 200, filed.text
        page = mod.get("/api/moderation").json()
        assert [r["text"] for r in page["reports"]] == ["rude"]
        assert page["sanctions"] == []
        assert [e["action"] for e in page["log"]] == ["grant_moderator"]
        # Every route with a body refuses such a key or value before anything else.
        for path in BODY_ROUTES:
            for body in (b'{"\\ud800": 1}', b'{"x": ["\\u0000"]}', b'{"a": {"b\\u0000": 2}}'):
                assert _post_raw(mod, path, body) == (400, "bad_message"), (path, body)
        assert mod.get("/api/me").status_code == 200  # logout and delete did nothing
    finally:
        for client in (mod, reporter):
            client.close()
    assert "Traceback" not in server.logs()
