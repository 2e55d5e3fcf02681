"""The server's options: one value, filled from the command line or by tests."""

from __future__ import annotations

import argparse
import dataclasses
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from romme.store.chip_policy import ChipPolicy
from romme.store.database import SQLITE_SYNCHRONOUS

__all__ = [
    "DEFAULT_DB_URL",
    "ServerOptions",
    "add_arguments",
    "default_node_id",
    "options_from_args",
]

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
    sqlite_synchronous: str = "full"
    """How a SQLite commit reaches the disk (``PRAGMA synchronous``): ``full``
    waits for the disk on every commit; ``normal`` leaves that to the next
    checkpoint (a commit survives the server's crash, not the machine's; see
    docs/store.md "Durability"). Not used with PostgreSQL."""
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
    gc_freeze_seconds: float = 2.0
    """How often the objects that have lived a while are frozen, so that the garbage
    collector's pauses stay short (0: leave the collector alone). Within 2 s too few
    objects outlive the young generations for a collection of the oldest to start
    (docs/server.md, "Short garbage-collector pauses")."""
    gc_full_seconds: float = 900.0
    """How often everything is unfrozen and collected once (one longer pause)."""
    lobby_chat_days: float = 7.0
    """Lobby chat older than this is deleted (table chat stays with its game)."""
    chat_filter: Path | None = None
    """The chat filter's word list (``romme.server.chatfilter``); ``None``: the built-in one."""
    guest_hold_seconds: float = 120.0
    """Real seconds a guest's nickname stays its own after its last connection
    closed; then another may take it (unless the guest sits at a running game)."""
    # Abuse limits of the WebSocket (docs/security.md); 0 switches a limit off.
    max_connections_per_player: int = 10
    """WebSocket connections one player may hold at once (tabs, devices)."""
    max_connections_per_address: int = 100
    """WebSocket connections from one network address at once (behind a proxy that
    sends ``X-Forwarded-For``, the client's address as uvicorn reports it)."""
    max_waiting_tables: int = 3
    """Tables waiting for players that one player may host at once."""
    waiting_table_grace: float = 60.0
    """Real seconds a waiting table stays after its host's last connection closed
    (a reload or a short network loss keeps it), also after a restart."""
    invitations_per_minute: int = 10
    """Invitations one player may send per minute (besides one open invitation per
    invitee and table)."""
    chat_per_second: float = 2.0
    """Chat lines (lobby and table together) one player may say per second
    sustained, over all its connections (to every node of a cluster:
    ``romme.server.chatrate``)."""
    chat_burst: int = 8
    """Chat lines one player may say at once before ``chat_per_second`` holds."""
    chat_per_second_per_address: float = 5.0
    """Chat lines the players of one network address may say per second sustained."""
    chat_burst_per_address: int = 20
    """Chat lines the players of one address may say at once."""
    # Play money (romme.store.chip_policy, docs/protocol.md "Chips and stakes").
    chip_grant: int = 10_000
    """Chips on a new account, guests' too."""
    chip_bonus: int = 1_000
    """Chips a bonus claim adds."""
    chip_bonus_hours: float = 4.0
    """Hours between two bonus claims."""
    chip_bonus_below: int = 5_000
    """A bonus may be claimed only while the balance is below this."""
    chip_cost_percent: int = 5
    """The operating cost: this percentage of a game's pot (rounded down) goes to the house."""
    chip_guest_stake_max: int = 100
    """The largest stake a guest may play for."""
    chip_new_stake_max: int = 1_000
    """The largest stake an account not yet established may play for."""
    chip_established_games: int = 10
    """Finished games (void ones not counted) that make an account established ..."""
    chip_established_hours: float = 24.0
    """... registered at least this many hours ago (docs/chips.md)."""
    chip_bot_win_cap: int = 1_000
    """Chips a player may win a day (net) at tables with computer opponents."""
    chip_pair_staked_games: int = 5
    """Staked games two people may start together in 24 hours; 0: any."""
    chip_accounts_per_address: int = 1
    """People with a session from one address at one staked table; 0: any."""
    chip_pair_rated_games: int = 5
    """Games of two people in 24 hours that are rated and ranked; 0: any."""

    def chip_policy(self) -> ChipPolicy:
        """The chip options as the store takes them."""
        return ChipPolicy(
            grant=self.chip_grant,
            bonus=self.chip_bonus,
            bonus_hours=self.chip_bonus_hours,
            bonus_below=self.chip_bonus_below,
            cost_percent=self.chip_cost_percent,
            guest_stake_max=self.chip_guest_stake_max,
            new_stake_max=self.chip_new_stake_max,
            established_games=self.chip_established_games,
            established_hours=self.chip_established_hours,
            bot_win_cap=self.chip_bot_win_cap,
            pair_staked_games=self.chip_pair_staked_games,
            accounts_per_address=self.chip_accounts_per_address,
            pair_rated_games=self.chip_pair_rated_games,
        )

    redis_url: str | None = None
    """Redis of a cluster of nodes (``docs/cluster.md``); ``None``: a single server."""
    node_id: str | None = None
    """This node's name in the cluster (and in the tables' leases); ``None``:
    :func:`default_node_id`."""

    def replace(self, **changes: object) -> ServerOptions:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def real(self, game_seconds: float) -> float:
        """Real seconds for a span of game time."""
        return game_seconds / self.time_scale


def _number(text: str, convert: Callable[[str], float], low: float, strict: bool) -> float:
    """A command-line number of at least ``low`` (above it, if ``strict``)."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < low or (strict and value == low):
        raise argparse.ArgumentTypeError(
            f"must be {'greater than' if strict else 'at least'} {low:g}"
        )
    return value


def _positive(text: str) -> float:
    return _number(text, float, 0, strict=True)


def _word_file(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a readable file")
    return path


def _seconds(text: str) -> float:
    return _number(text, float, 0, strict=False)


def _rate(text: str) -> float:
    """A rate per second, 0 or more (0 switches the limit off)."""
    return _number(text, float, 0, strict=False)


def _hours(text: str) -> float:
    return _number(text, float, 0, strict=False)


def _count(text: str) -> int:
    return int(_number(text, int, 0, strict=False))


def _at_least_one(text: str) -> int:
    return int(_number(text, int, 1, strict=False))


def _percent(text: str) -> int:
    value = _count(text)
    if value > 100:
        raise argparse.ArgumentTypeError("must be at most 100")
    return value


_LIMITS: tuple[tuple[str, Callable[[str], float], str, str], ...] = (
    ("max_connections_per_player", _count, "N", "WebSocket connections per player; 0: any"),
    (
        "max_connections_per_address",
        _count,
        "N",
        "WebSocket connections per network address; 0: any",
    ),
    ("max_waiting_tables", _count, "N", "waiting tables one player may host; 0: any"),
    (
        "waiting_table_grace",
        _seconds,
        "S",
        "seconds a waiting table outlives its host's last connection",
    ),
    ("invitations_per_minute", _count, "N", "invitations one player may send per minute; 0: any"),
    (
        "chat_per_second",
        _rate,
        "N",
        "chat lines per second one player may say sustained, lobby and tables; 0: any",
    ),
    ("chat_burst", _at_least_one, "N", "chat lines one player may say in a burst"),
    (
        "chat_per_second_per_address",
        _rate,
        "N",
        "chat lines per second the players of one address may say sustained; 0: any",
    ),
    ("chat_burst_per_address", _at_least_one, "N", "chat lines one address may say in a burst"),
    (
        "accounts_per_hour",
        _count,
        "N",
        "new accounts (guests and registrations) one address may create in an hour; 0: any",
    ),
    ("rate_per_second", _positive, "N", "WebSocket messages per second per connection"),
    ("rate_burst", _at_least_one, "N", "WebSocket messages allowed in a burst"),
    (
        "max_refused_per_minute",
        _count,
        "N",
        "refused messages in a minute before a connection is closed with 4429; 0: any",
    ),
)
"""The abuse limits on the command line: option field, parser, metavar, help."""

_CHIPS: tuple[tuple[str, Callable[[str], float], str, str], ...] = (
    ("chip_grant", _count, "N", "chips on a new account, guests' too"),
    ("chip_bonus", _count, "N", "chips a bonus claim adds"),
    ("chip_bonus_hours", _positive, "H", "hours between two bonus claims"),
    ("chip_bonus_below", _count, "N", "a bonus may be claimed while the balance is below this"),
    (
        "chip_cost_percent",
        _percent,
        "P",
        "operating cost: percent of a game's pot (rounded down) that goes to the house",
    ),
    ("chip_guest_stake_max", _count, "N", "the largest stake a guest may play for"),
    (
        "chip_new_stake_max",
        _count,
        "N",
        "the largest stake an account not yet established may play for",
    ),
    ("chip_established_games", _count, "N", "finished games that make an account established"),
    ("chip_established_hours", _hours, "H", "hours since registering to be established"),
    (
        "chip_bot_win_cap",
        _count,
        "N",
        "chips a player may win a day (net) at tables with computer opponents",
    ),
    (
        "chip_pair_staked_games",
        _count,
        "N",
        "staked games two people may start together in 24 hours; 0: any",
    ),
    (
        "chip_accounts_per_address",
        _count,
        "N",
        "people with a session from one address at one staked table; 0: any",
    ),
    (
        "chip_pair_rated_games",
        _count,
        "N",
        "games of two people in 24 hours that are rated and ranked; 0: any",
    ),
)
"""The play-money options on the command line, as :data:`_LIMITS`."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--db",
        default=None,
        type=_db_url,
        metavar="URL",
        help=f"SQLAlchemy database URL (default {DEFAULT_DB_URL}; "
        "PostgreSQL: postgresql+asyncpg://user:password@host/db)",
    )
    parser.add_argument(
        "--redis",
        type=_redis_url,
        default=None,
        metavar="URL",
        help="run as one node of a cluster, with the other nodes on this Redis "
        "(redis://HOST:PORT/N; docs/cluster.md); default: a single server",
    )
    parser.add_argument(
        "--node-id",
        type=_node_id,
        default=None,
        metavar="NAME",
        help="this node's name in the cluster (default: HOSTNAME-PORT)",
    )
    parser.add_argument(
        "--time-scale",
        type=_positive,
        default=1.0,
        metavar="X",
        help="run every game clock X times faster (tests)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=1.0,
        metavar="S",
        help="seconds a computer opponent thinks before a move (default 1)",
    )
    parser.add_argument(
        "--bot-workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes for the computer opponents (default 1)",
    )
    parser.add_argument(
        "--next-round-seconds",
        type=float,
        default=30.0,
        metavar="S",
        help="wait this long for 'Next' after a round (default 30)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"]
    )
    parser.add_argument("--access-log", action="store_true", help="log every HTTP request")
    parser.add_argument(
        "--secret-file",
        default="var/secret",
        metavar="PATH",
        help="session secret, created if missing (or set ROMME_SECRET)",
    )
    parser.add_argument(
        "--housekeeping-seconds",
        type=_positive,
        default=3600.0,
        metavar="S",
        help="seconds between two runs of the housekeeping: expired "
        "guests' nicknames, old lobby chat and invitations (default 3600)",
    )
    parser.add_argument(
        "--guest-hold-seconds",
        type=_positive,
        default=120.0,
        metavar="S",
        help="seconds a guest's nickname stays its own after its last "
        "connection closed (default 120)",
    )
    defaults = ServerOptions()
    for title, options in (
        ("abuse limits (docs/security.md)", _LIMITS),
        ("play money (docs/protocol.md, Chips and stakes)", _CHIPS),
    ):
        group = parser.add_argument_group(title)
        for name, kind, metavar, text in options:
            default = getattr(defaults, name)
            group.add_argument(
                "--" + name.replace("_", "-"),
                type=kind,
                default=default,
                metavar=metavar,
                help=f"{text} (default {default:g})",
            )
    parser.add_argument(
        "--chat-filter",
        type=_word_file,
        default=None,
        metavar="FILE",
        help="words masked in chat, one a line (default: the built-in list of "
        "romme/server/data/chat_filter.txt; an empty file masks nothing)",
    )
    parser.add_argument(
        "--bench-echo", action="store_true", help="expose /bench/echo for bench/bench_server.py"
    )
    parser.add_argument(
        "--ws-deflate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="compress WebSocket messages (permessage-deflate) for the clients that "
        "offer it: a twentieth of the bytes of a move, about 33 KB more memory per "
        "connection (default on; docs/server.md)",
    )
    parser.add_argument(
        "--sqlite-synchronous",
        choices=SQLITE_SYNCHRONOUS,
        default="full",
        help="full (the default): every commit waits for the disk; normal: commits "
        "reach the disk at the next checkpoint, which survives a crash of the server "
        "but not of the machine, for shorter waits on a slow disk (docs/store.md)",
    )
    parser.add_argument(
        "--cookie-secure",
        action="store_true",
        help="always mark the session cookie Secure (it is anyway on "
        "requests that came over HTTPS)",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="comma-separated addresses of proxies trusted to set "
        "X-Forwarded-For and X-Forwarded-Proto ('*': any; default: "
        "$FORWARDED_ALLOW_IPS, else 127.0.0.1)",
    )


def default_node_id(port: int | None = None) -> str:
    """A readable name that is unique among the nodes: ``host-port`` (``host-pid``
    without a port)."""
    return f"{socket.gethostname()}-{port if port is not None else os.getpid()}"[:64]


def _node_id(text: str) -> str:
    if not 1 <= len(text) <= 64 or not text.isprintable() or " " in text:
        raise argparse.ArgumentTypeError("a node id is 1 to 64 printable characters, no spaces")
    return text


def _db_url(text: str) -> str:
    try:
        url = make_url(text)
    except ArgumentError:
        return text  # the store says what is wrong with it
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        raise argparse.ArgumentTypeError(
            "SQLite needs a file: an in-memory database cannot be shared"
        )
    return text


def _redis_url(text: str) -> str:
    if not text.startswith(("redis://", "rediss://", "unix://")):
        raise argparse.ArgumentTypeError("a Redis URL starts with redis://, rediss:// or unix://")
    return text


def options_from_args(args: argparse.Namespace) -> ServerOptions:
    return ServerOptions(
        redis_url=args.redis,
        node_id=args.node_id or default_node_id(args.port),
        time_scale=args.time_scale,
        bot_delay=max(0.0, args.bot_delay),
        bot_workers=max(0, args.bot_workers),
        secret_file=Path(args.secret_file),
        next_round_seconds=args.next_round_seconds,
        bench_echo=args.bench_echo,
        housekeeping_seconds=args.housekeeping_seconds,
        guest_hold_seconds=args.guest_hold_seconds,
        cookie_secure=args.cookie_secure,
        forwarded_allow_ips=args.forwarded_allow_ips,
        chat_filter=args.chat_filter,
        sqlite_synchronous=args.sqlite_synchronous,
        **{name: getattr(args, name) for name, *_ in _LIMITS + _CHIPS},
    )
