"""Sessions: the player id in a signed, HttpOnly cookie.

The secret comes from the environment (``ROMME_SECRET``) or from a file that is
generated once (``var/secret``), so sessions survive a restart of the server.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer

__all__ = ["COOKIE_NAME", "SESSION_MAX_AGE", "Sessions", "load_secret"]

COOKIE_NAME = "romme_session"
SESSION_MAX_AGE = 30 * 24 * 3600
"""Seconds a session cookie stays valid (30 days)."""


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
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(secret + "\n")
    return secret


class Sessions:
    """Signs and reads session tokens (the value of the cookie)."""

    def __init__(self, secret: str) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt="romme-session")

    def token(self, player_id: int) -> str:
        return self._serializer.dumps({"p": player_id})

    def player_id(self, token: str | None) -> int | None:
        """The player id in a valid, unexpired token, else ``None``."""
        if not token:
            return None
        try:
            data = self._serializer.loads(token, max_age=SESSION_MAX_AGE)
        except BadSignature:
            return None
        value = data.get("p") if isinstance(data, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None
