"""The client's tests run against a real ``romme serve`` subprocess: the fixtures of
the server's end-to-end tests (tests/server/conftest.py)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.server.conftest import make_server, nickname, shared_server
from tests.server.helpers import ServerProcess

__all__ = ["game_log", "make_server", "nickname", "shared_server"]


def game_log(server: ServerProcess, table: int) -> dict[str, Any]:
    """The stored log of the finished game at ``table`` (``GET /api/games/{id}``)."""
    answer = httpx.get(f"{server.base}/api/games/{table}", timeout=10)
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data
