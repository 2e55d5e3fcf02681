"""What every HTTP exchange goes through: the refusal of cross-site requests and
the security headers of every response.

**Cross-site requests.** A browser sends a page's cookies with a request that
another site's page makes, so every request that changes something (every POST,
and any method but GET, HEAD and OPTIONS) must come from the server's own pages:

* an ``Origin`` header that is present must be the server's own origin, scheme,
  host and port (``null``, a sandboxed or local page, is foreign too);
* a ``Sec-Fetch-Site`` header that is present must be ``same-origin`` or
  ``none`` (another port or subdomain of the host is ``same-site``: refused);
* else ``403 cross_site``. A request with neither header comes from a program,
  not a browser (every current browser sends one of them with a cross-site
  POST), and is let through;
* a POST that declares a ``Content-Type`` other than ``application/json``, or
  has a body without declaring one, is ``415 unsupported_media_type``: HTML
  forms can only send form and text bodies, and a JSON body from another
  origin needs the CORS preflight that this server never grants.

The server's own origin is the scheme the request arrived with (``https``
behind a TLS proxy that says so in ``X-Forwarded-Proto``, see ``romme serve
--forwarded-allow-ips``) and its ``Host`` header.

**Headers.** Every response carries a strict Content-Security-Policy (the
page's scripts, styles, images and connections come from the server itself;
no inline script or style; no framing), ``X-Frame-Options: DENY``,
``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: same-origin``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SECURITY_HEADERS", "HttpGuard", "foreign_origin"]

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_WEB_SCHEME = {"ws": "http", "wss": "https"}
_SAME_SITE = ("same-origin", "none")
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that change nothing; every other one (POST is the only one routed) is checked."""


def _origin_of(scheme: str, netloc: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) with the default port filled in, or ``None``."""
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host:
        return None
    return scheme, host.lower(), port or _DEFAULT_PORTS.get(scheme, 0)


def foreign_origin(headers: Mapping[str, str], scheme: str) -> bool:
    """Whether the request's ``Origin`` is present and not the server's own (the
    ``Host`` it was sent to, with the scheme it arrived with: ``http``/``ws`` or
    ``https``/``wss``)."""
    origin = headers.get("origin")
    if origin is None:
        return False
    scheme = _WEB_SCHEME.get(scheme, scheme)
    own = _origin_of(scheme, headers.get("host", ""))
    try:
        theirs = urlsplit(origin.strip())
    except ValueError:
        return True
    other = _origin_of(theirs.scheme.lower(), theirs.netloc) if theirs.scheme else None
    return own is None or other != own


def _refusal(
    headers: Mapping[str, str], scheme: str, method: str, has_body: bool
) -> tuple[int, str, str] | None:
    if method in _SAFE_METHODS:
        return None
    site = headers.get("sec-fetch-site")
    if foreign_origin(headers, scheme) or (site is not None and site not in _SAME_SITE):
        return 403, "cross_site", "requests from other sites are refused"
    declared = headers.get("content-type")
    media = None if declared is None else declared.split(";")[0].strip().lower()
    if (media is not None and media != "application/json") or (media is None and has_body):
        return 415, "unsupported_media_type", "send the body as application/json"
    return None


class HttpGuard:
    """ASGI middleware: refuses cross-site POSTs and adds the security headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
        refusal = _refusal(headers, scope.get("scheme", "http"), scope["method"], has_body)
        if refusal is not None:
            status, code, message = refusal
            body = json.dumps({"error": {"code": code, "message": message}}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        *SECURITY_HEADERS,
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)
