"""Sessions: the player id and a session token in a signed, HttpOnly cookie.

The token names a session record in the store (``Store.create_session``), which
can be listed and revoked; the signature lets the server turn away a forged or
mangled cookie before it asks the database. The secret comes from the
environment (``ROMME_SECRET``) or from a file that is generated once
(``var/secret``), so sessions survive a restart of the server.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer

__all__ = ["COOKIE_NAME", "SESSION_MAX_AGE", "Sessions", "load_secret"]

COOKIE_NAME = "romme_session"
SESSION_MAX_AGE = 30 * 24 * 3600
"""Seconds a session cookie stays valid (30 days, as its record in the store)."""


def load_secret(explicit: str | None, path: Path) -> str:
    """The signing secret: ``explicit``, else env ROMME_SECRET, else the file
    at ``path`` (created with a fresh random secret, mode 0600, if missing)."""
    if explicit:
        return explicit
    from_env = os.environ.get("ROMME_SECRET")
    if from_env:
        return from_env
    try:
        text = path.read_text().strip()
        if text:
            return text
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(secret + "\n")
    return secret


class Sessions:
    """Signs and reads session tokens (the value of the cookie)."""

    def __init__(self, secret: str) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt="romme-session")

    def cookie(self, player_id: int, token: str) -> str:
        """The cookie's value for a session of this player."""
        return self._serializer.dumps({"p": player_id, "s": token})

    def read(self, cookie: str | None) -> tuple[int, str] | None:
        """(player id, session token) of a valid, unexpired cookie, else ``None``
        (also for cookies of an older form, which had no session token)."""
        if not cookie:
            return None
        try:
            data = self._serializer.loads(cookie, max_age=SESSION_MAX_AGE)
        except BadSignature:
            return None
        if not isinstance(data, dict):
            return None
        player_id, token = data.get("p"), data.get("s")
        if not isinstance(player_id, int) or isinstance(player_id, bool):
            return None
        return (player_id, token) if isinstance(token, str) else None
