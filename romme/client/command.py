"""``romme bot``: computer players on a server, run from outside it.

The arguments, how the player logs in (an account's password from a file or the
environment; a guest's session kept in a file so that a restarted bot is the same
guest) and the run itself, which :class:`romme.client.runner.BotRunner` does.
docs/client.md describes every option.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from romme.bots import LEVELS_HELP, is_level
from romme.client.connection import Client
from romme.client.errors import ClientError, ServerError
from romme.client.http import server_origin
from romme.client.models import Player, Settings
from romme.client.runner import BotOptions, BotRunner

__all__ = ["PASSWORD_VARIABLE", "add_arguments", "run"]

PASSWORD_VARIABLE = "ROMME_BOT_PASSWORD"
"""The environment variable that may hold the account's password."""

LIMIT_PATIENCE = 900
"""A login limit (HTTP 429) asking to wait longer than this many seconds ends the run."""

log = logging.getLogger("romme.client.bot")

T = TypeVar("T")


class BadOptions(Exception):
    """An option that cannot work: printed without a traceback, exit status 2."""


def _level(text: str) -> str:
    """A :mod:`romme.bots` level, named or between two named ones (``casual+40``)."""
    if not is_level(text):
        raise argparse.ArgumentTypeError(f"unknown level {text!r}; choose {LEVELS_HELP}")
    return text


def default_nickname(level: str) -> str:
    """The level and ``Bot``: ``StrongBot``, ``Casual40Bot`` (a nickname has no ``+``)."""
    return f"{level.replace('+', '').capitalize()}Bot"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", required=True, metavar="URL", help="e.g. http://127.0.0.1:8000")
    parser.add_argument(
        "--level",
        required=True,
        type=_level,
        metavar="LEVEL",
        help=f"how the bots play: {LEVELS_HELP}",
    )
    parser.add_argument(
        "--nickname", metavar="N", help="the player's nickname (default: the level and 'Bot')"
    )
    parser.add_argument(
        "--tables", type=int, default=1, metavar="N", help="seats to play at once (default 1)"
    )
    login = parser.add_argument_group("logging in (default: as a guest)")
    login.add_argument(
        "--password-file",
        type=Path,
        metavar="FILE",
        help=f"log in to an account with the password on the first line of FILE "
        f"(or set ${PASSWORD_VARIABLE})",
    )
    login.add_argument(
        "--register", action="store_true", help="create the account if the nickname has none"
    )
    login.add_argument(
        "--session-file",
        type=Path,
        metavar="FILE",
        help="where a guest's session is kept so that a restart resumes its seats "
        "(default: in $XDG_STATE_HOME/romme, else ~/.local/state/romme)",
    )
    tables = parser.add_argument_group("the tables it opens when none waits for players")
    tables.add_argument("--preset", choices=("classic", "three-rounds"), default=None)
    tables.add_argument(
        "--seats",
        type=int,
        default=None,
        metavar="N",
        help="2 to 4 (default: 2 classic, 4 three-rounds)",
    )
    tables.add_argument("--limit", type=int, default=None, metavar="L", help="classic point limit")
    tables.add_argument("--knock", action="store_true", help="classic, 3 or 4 seats: the knock")
    tables.add_argument("--turn-seconds", type=int, default=None, metavar="S", help="15 to 120")
    tables.add_argument(
        "--fill",
        type=_level,
        metavar="LEVEL",
        default=None,
        help="after --wait seconds, the server's computer opponents of this level take the "
        "free seats (default: wait for people)",
    )
    tables.add_argument(
        "--wait", type=float, default=30.0, metavar="S", help="seconds before --fill (default 30)"
    )
    tables.add_argument(
        "--no-join", action="store_true", help="open its own tables, never join others'"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        metavar="N",
        help="play N games, then stop (default: never stop)",
    )
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="the bots' seed")
    parser.add_argument("--quiet", "-q", action="store_true", help="report only problems")


def _settings(args: argparse.Namespace) -> Settings:
    settings = Settings()
    if args.seats is not None:
        settings["seats"] = args.seats
    if args.preset is not None:
        settings["preset"] = args.preset
    if args.limit is not None:
        settings["point_limit"] = args.limit
    if args.knock:
        settings["knock"] = True
    if args.turn_seconds is not None:
        settings["turn_seconds"] = args.turn_seconds
    return settings


def _options(args: argparse.Namespace) -> BotOptions:
    if args.tables < 1:
        raise BadOptions("--tables must be at least 1")
    if args.games is not None and args.games < 1:
        raise BadOptions("--games must be at least 1")
    if args.wait < 0:
        raise BadOptions("--wait cannot be negative")
    return BotOptions(
        level=args.level,
        tables=args.tables,
        settings=_settings(args),
        join=not args.no_join,
        fill=args.fill,
        wait=args.wait,
        games=args.games,
        seed=args.seed,
    )


def _password(args: argparse.Namespace) -> str | None:
    if args.password_file is not None:
        try:
            path: Path = args.password_file
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise BadOptions(f"cannot read --password-file: {exc.strerror}") from exc
        if not lines or not lines[0]:
            raise BadOptions(f"{args.password_file}: the first line holds no password")
        return lines[0]
    return os.environ.get(PASSWORD_VARIABLE) or None


def session_path(server: str, nickname: str) -> Path:
    """The default file of a guest's session: one per server and nickname."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    where = re.sub(r"[^A-Za-z0-9.-]+", "_", server_origin(server).split("://", 1)[1])
    name = re.sub(r"[^\w.-]+", "_", nickname.casefold())
    return Path(state) / "romme" / f"bot-{where}-{name}.session"


async def _patiently(call: Callable[[], Awaitable[T]]) -> T:
    """``call()``, waiting out the server's login and sign-up limits (HTTP 429)."""
    while True:
        try:
            return await call()
        except ServerError as exc:
            if exc.retry_after is None or exc.retry_after > LIMIT_PATIENCE:
                raise
            log.warning("%s; trying again in %s s", exc, exc.retry_after)
            await asyncio.sleep(exc.retry_after)


async def _guest(client: Client, nickname: str, session: Path) -> Player:
    """The guest of the kept session if it is this nickname's, else a new guest."""
    with contextlib.suppress(OSError):
        client.http.session_cookie = session.read_text(encoding="ascii").strip() or None
    player = None
    if client.http.session_cookie:
        player = await client.http.me()
        if player is not None and player.nickname.casefold() != nickname.casefold():
            player = None
    if player is None:
        player = await _patiently(lambda: client.http.guest(nickname))
    session.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(session, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write((client.http.session_cookie or "") + "\n")
    client.player = player
    return player


async def _account(client: Client, nickname: str, password: str, register: bool) -> Player:
    try:
        return await _patiently(lambda: client.login(nickname, password))
    except ServerError as exc:
        if exc.code != "bad_credentials" or not register:
            raise
    try:
        return await _patiently(lambda: client.register(nickname, password))
    except ServerError as exc:
        if exc.code == "nickname_taken":  # the account exists: the password was wrong
            raise ServerError("bad_credentials", "wrong nickname or password") from exc
        raise


async def _main(args: argparse.Namespace, options: BotOptions, password: str | None) -> None:
    nickname = args.nickname or default_nickname(args.level)
    async with Client(args.server) as client:
        if password is None:
            session = args.session_file or session_path(args.server, nickname)
            player = await _guest(client, nickname, session)
        else:
            player = await _account(client, nickname, password, args.register)
        kind = "guest" if player.guest else "account"
        log.info("logged in as %s (%s) on %s", player.nickname, kind, client.origin)
        await client.connect()
        await BotRunner(client, options).run()


async def _until_stopped(main: Awaitable[None]) -> None:
    """Run ``main``; SIGTERM and Ctrl-C stop it quietly (the seats stay the player's)."""
    task = asyncio.ensure_future(main)
    loop = asyncio.get_running_loop()
    for stop in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(stop, task.cancel)
    with contextlib.suppress(asyncio.CancelledError):
        await task


def run(args: argparse.Namespace) -> int:
    """The body of ``romme bot``: 0 when done or stopped, 1 when the server refuses
    the login or the connection for good, 2 for options that cannot work (the
    server's ``bad_settings`` included)."""
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(message)s",
        datefmt="%H:%M:%S",
        stream=sys.stderr,
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    try:
        server_origin(args.server)
        options = _options(args)
        password = _password(args)
    except (BadOptions, ValueError) as exc:
        print(f"romme bot: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(_until_stopped(_main(args, options, password)))
    except (ClientError, TimeoutError) as exc:
        print(f"romme bot: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ServerError) and exc.code == "bad_settings" else 1
    return 0
