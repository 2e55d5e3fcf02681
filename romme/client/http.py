"""The HTTP half of the protocol: log in (guest or account), look up tables,
players and finished games.

Every request carries an ``Origin`` header equal to the server's own origin, as
the server's cross-site check wants of anything that sends one (docs/security.md),
and POST bodies are JSON. The session lives in the cookie ``romme_session``;
:attr:`HttpSession.session_cookie` reads and sets it, so that a program can keep a
guest's session across restarts (a guest has no password to log in again with).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from romme.client.errors import ServerError
from romme.client.models import Player, TableSummary

__all__ = ["SESSION_COOKIE", "HttpSession", "server_origin"]

SESSION_COOKIE = "romme_session"

USER_AGENT = "romme.client"


def server_origin(url: str) -> str:
    """``scheme://host[:port]`` of a server URL (``ws``/``wss`` read as ``http``/``https``);
    raise ValueError for anything else."""
    parts = urlsplit(url.strip())
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not a server URL: {url!r} (expected e.g. http://127.0.0.1:8000)")
    return f"{scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


class HttpSession:
    """An HTTP client bound to one server and one session cookie."""

    def __init__(self, server: str, *, timeout: float = 20.0) -> None:
        self.origin = server_origin(server)
        self._http = httpx.AsyncClient(
            base_url=self.origin,
            timeout=timeout,
            headers={"Origin": self.origin, "User-Agent": USER_AGENT},
        )

    @property
    def session_cookie(self) -> str | None:
        """The session cookie's value, or ``None`` when not logged in."""
        return self._http.cookies.get(SESSION_COOKIE)

    @session_cookie.setter
    def session_cookie(self, value: str | None) -> None:
        self._http.cookies.delete(SESSION_COOKIE)
        if value:
            host = urlsplit(self.origin).hostname or ""
            self._http.cookies.set(SESSION_COOKIE, value, domain=host)

    async def close(self) -> None:
        await self._http.aclose()

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        try:
            if method == "GET":
                answer = await self._http.get(path)
            elif body is None:
                answer = await self._http.post(path)
            else:
                answer = await self._http.post(path, json=body)
        except httpx.HTTPError as exc:
            raise ServerError("unreachable", f"{self.origin}: {exc}") from exc
        try:
            data = answer.json()
        except ValueError:
            data = None
        if answer.is_success and data is not None:
            return data
        error = data.get("error") if isinstance(data, dict) else None
        if not isinstance(error, dict):
            raise ServerError("http_error", f"HTTP {answer.status_code}", status=answer.status_code)
        retry = error.get("retry_after")
        raise ServerError(
            str(error.get("code", "http_error")),
            str(error.get("message", "")),
            status=answer.status_code,
            retry_after=int(retry) if isinstance(retry, int | float) else None,
        )

    async def _player(self, path: str, body: dict[str, Any]) -> Player:
        data = await self._call("POST", path, body)
        return Player.from_json(data["player"])

    async def guest(self, nickname: str) -> Player:
        """Play as a guest of this nickname (the same guest again if this session is its)."""
        return await self._player("/api/guest", {"nickname": nickname})

    async def login(self, nickname: str, password: str) -> Player:
        return await self._player("/api/login", {"nickname": nickname, "password": password})

    async def register(self, nickname: str, password: str) -> Player:
        """A new account (or, when logged in as a guest, that guest made an account)."""
        return await self._player("/api/register", {"nickname": nickname, "password": password})

    async def me(self) -> Player | None:
        """The player of this session, or ``None`` if the session is not (or no longer) valid."""
        try:
            data = await self._call("GET", "/api/me")
        except ServerError as exc:
            if exc.status == 401:
                return None
            raise
        return Player.from_json(data["player"])

    async def logout(self, everywhere: bool = False) -> None:
        await self._call("POST", "/api/logout", {"everywhere": True} if everywhere else None)

    async def tables(self) -> list[TableSummary]:
        """Every open table, waiting or running (``GET /api/tables``)."""
        data = await self._call("GET", "/api/tables")
        return [TableSummary.from_json(t) for t in data["tables"]]

    async def game(self, game_id: int) -> dict[str, Any]:
        """The log of a finished game (``GameLog``): rules, seats, winners, every action."""
        data: dict[str, Any] = await self._call("GET", f"/api/games/{game_id}")
        return data

    async def player(self, nickname: str) -> dict[str, Any]:
        """``PlayerInfo``: games played and won, rating, recent games."""
        data: dict[str, Any] = await self._call("GET", f"/api/players/{quote(nickname, safe='')}")
        return data
