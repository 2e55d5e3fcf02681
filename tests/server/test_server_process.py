"""The test servers' own start: a port taken between choosing and binding it."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.server.helpers import ServerProcess


def test_a_server_whose_port_was_taken_starts_on_another(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'taken.db'}", tmp_path)
    taken = server.port
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", taken))
        blocker.listen()
        try:
            server.start()
            assert server.port != taken
            assert f"address ('127.0.0.1', {taken}): address already in use" in server.logs()
        finally:
            server.stop()
