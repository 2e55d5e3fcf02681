"""The server's options: one value, filled from the command line or by tests."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_DB_URL", "ServerOptions", "add_arguments", "options_from_args"]

DEFAULT_DB_URL = "sqlite+aiosqlite:///./var/romme.db"


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """Everything the server can be told. Times are in seconds of game time;
    ``time_scale`` makes every game clock (turns, knock window, the wait between
    rounds, invitations) run that many times faster, so tests can play 30 s
    turns in a fraction of a second."""

    time_scale: float = 1.0
    bot_delay: float = 1.0
    """A computer opponent waits about this long (real seconds, 0.5x..1.5x)
    before each move, like a person would; 0 in tests."""
    bot_workers: int = 1
    """Worker processes that compute the computer opponents' moves."""
    secret: str | None = None
    """Signs the session cookies; ``None``: env ROMME_SECRET, else ``secret_file``."""
    secret_file: Path = Path("var/secret")
    static_dir: Path | None = None
    """The web client; ``None``: ``romme/web`` if it exists."""
    cookie_secure: bool = False
    """Mark the session cookie Secure always (it is anyway on a request that came
    over HTTPS, as uvicorn sees it: directly, or from a trusted proxy that says so)."""
    forwarded_allow_ips: str | None = None
    """Proxies trusted to tell the client's address and scheme (``X-Forwarded-For``,
    ``X-Forwarded-Proto``): uvicorn's option; ``None``: uvicorn's default (env
    ``FORWARDED_ALLOW_IPS``, else 127.0.0.1)."""
    accounts_per_hour: int = 20
    """New accounts (guests and registrations) one address may create in an hour;
    0: no limit."""
    next_round_seconds: float = 30.0
    """After a round summary, the next round is dealt when every human still in
    has said "Next", or after this long."""
    invitation_seconds: float = 120.0
    finished_table_seconds: float = 300.0
    """How long a finished table stays in memory (for its chat and summary)."""
    away_bot: str = "casual"
    """The level of the computer opponent that plays for an away or departed player."""
    max_message_bytes: int = 16 * 1024
    rate_per_second: float = 20.0
    rate_burst: int = 40
    max_refused_per_minute: int = 200
    send_queue_limit: int = 1000
    """Messages waiting for a slow client before the server drops the connection."""
    lobby_update_interval: float = 1.0
    resync_buffer: int = 256
    """Updates per table kept for clients that missed some (``resync``)."""
    bench_echo: bool = False
    """Expose ``/bench/echo``, a bare broadcast-echo WebSocket for bench/bench_server.py."""
    shutdown_grace: float = 5.0
    housekeeping_seconds: float = 3600.0
    """Real seconds between two runs of the housekeeping (the first runs within a
    minute of the start): expired guests' nicknames, old lobby chat and
    invitations, tables closed without a game."""
    gc_freeze_seconds: float = 10.0
    """How often the objects that have lived a while are frozen, so that the garbage
    collector's pauses stay short (0: leave the collector alone)."""
    gc_full_seconds: float = 900.0
    """How often everything is unfrozen and collected once (one longer pause)."""
    lobby_chat_days: float = 7.0
    """Lobby chat older than this is deleted (table chat stays with its game)."""

    def replace(self, **changes: object) -> ServerOptions:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def real(self, game_seconds: float) -> float:
        """Real seconds for a span of game time."""
        return game_seconds / self.time_scale


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def _not_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--db", default=None, metavar="URL",
                        help=f"SQLAlchemy database URL (default {DEFAULT_DB_URL}; "
                        "PostgreSQL: postgresql+asyncpg://user:password@host/db)")
    parser.add_argument("--time-scale", type=_positive, default=1.0, metavar="X",
                        help="run every game clock X times faster (tests)")
    parser.add_argument("--bot-delay", type=float, default=1.0, metavar="S",
                        help="seconds a computer opponent thinks before a move (default 1)")
    parser.add_argument("--bot-workers", type=int, default=1, metavar="N",
                        help="worker processes for the computer opponents (default 1)")
    parser.add_argument("--next-round-seconds", type=float, default=30.0, metavar="S",
                        help="wait this long for 'Next' after a round (default 30)")
    parser.add_argument("--log-level", default="info",
                        choices=["debug", "info", "warning", "error"])
    parser.add_argument("--access-log", action="store_true", help="log every HTTP request")
    parser.add_argument("--secret-file", default="var/secret", metavar="PATH",
                        help="session secret, created if missing (or set ROMME_SECRET)")
    parser.add_argument("--housekeeping-seconds", type=_positive, default=3600.0, metavar="S",
                        help="seconds between two runs of the housekeeping: expired "
                        "guests' nicknames, old lobby chat and invitations (default 3600)")
    parser.add_argument("--bench-echo", action="store_true",
                        help="expose /bench/echo for bench/bench_server.py")
    parser.add_argument("--cookie-secure", action="store_true",
                        help="always mark the session cookie Secure (it is anyway on "
                        "requests that came over HTTPS)")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                        help="comma-separated addresses of proxies trusted to set "
                        "X-Forwarded-For and X-Forwarded-Proto ('*': any; default: "
                        "$FORWARDED_ALLOW_IPS, else 127.0.0.1)")
    parser.add_argument("--accounts-per-hour", type=_not_negative_int, default=20, metavar="N",
                        help="new accounts (guests and registrations) one address may "
                        "create in an hour (default 20; 0: no limit)")


def options_from_args(args: argparse.Namespace) -> ServerOptions:
    return ServerOptions(
        time_scale=args.time_scale, bot_delay=max(0.0, args.bot_delay),
        bot_workers=max(0, args.bot_workers), secret_file=Path(args.secret_file),
        next_round_seconds=args.next_round_seconds, bench_echo=args.bench_echo,
        housekeeping_seconds=args.housekeeping_seconds, cookie_secure=args.cookie_secure,
        forwarded_allow_ips=args.forwarded_allow_ips,
        accounts_per_hour=args.accounts_per_hour)
