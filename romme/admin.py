"""``romme admin``: moderation from the shell, on the server's database.

Gives and takes the moderator role, lists reports and resolves them, and shows
the moderation log. Each change is written to the moderation log as done by
``shell``. The database is the one ``romme serve`` uses (``--db URL``, else
``$ROMME_DB_URL``, else ``sqlite+aiosqlite:///./var/romme.db``); it is created
or migrated like the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

from romme.store import Store, StoreError
from romme.store.moderation import SHELL
from romme.store.store import DEFAULT_URL

__all__ = ["AdminError", "add_arguments", "run"]


class AdminError(Exception):
    """A refusal of the store, shown as the command's error (exit status 2)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help=f"database URL (default $ROMME_DB_URL, else {DEFAULT_URL})",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text in (
        ("grant-moderator", "make a registered player a moderator"),
        ("revoke-moderator", "take the moderator role from a player"),
    ):
        sub = actions.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("nickname", metavar="NICK")
    actions.add_parser("moderators", help="list the moderators")
    reports = actions.add_parser("reports", help="list reports, newest first")
    reports.add_argument("--open", action="store_true", help="only the open reports")
    reports.add_argument("--json", action="store_true", help="one JSON object a line")
    resolve = actions.add_parser("resolve", help="resolve an open report")
    resolve.add_argument("report", type=int, metavar="ID")
    resolve.add_argument("--note", default="", help="what was done about it")
    log = actions.add_parser("log", help="the moderation log, newest first")
    log.add_argument("--json", action="store_true", help="one JSON object a line")


def run(args: argparse.Namespace) -> int:
    """Run one admin action; a refusal raises :class:`AdminError`."""
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    store = await Store.open(args.db or os.environ.get("ROMME_DB_URL") or None)
    try:
        await ACTIONS[args.action](store, args)
    except StoreError as exc:
        raise AdminError(exc.message) from None
    finally:
        await store.close()
    return 0


async def _grant(store: Store, args: argparse.Namespace) -> None:
    changed = await store.set_moderator(args.nickname, True, SHELL)
    print(f"{args.nickname} is {'now' if changed else 'already'} a moderator")


async def _revoke(store: Store, args: argparse.Namespace) -> None:
    changed = await store.set_moderator(args.nickname, False, SHELL)
    print(f"{args.nickname} is {'no longer' if changed else 'not'} a moderator")


async def _moderators(store: Store, args: argparse.Namespace) -> None:
    for nickname in await store.moderators():
        print(nickname)


async def _reports(store: Store, args: argparse.Namespace) -> None:
    for report in await store.reports(open_only=args.open):
        if args.json:
            _json(report)
            continue
        where = "lobby" if report["table"] is None else f"table {report['table']}"
        print(
            f"#{report['id']} {report['status']} {report['at']} {report['reporter']} "
            f"reported {report['reported']}: {report['reason']} ({where})"
        )
        if report["text"]:
            print(f"    note: {report['text']}")
        for line in report["chat"]:
            print(f"    chat: {line['text']}")
        if report["status"] == "resolved":
            print(f"    resolved by {report['resolved_by']}: {report['note'] or '-'}")


async def _resolve(store: Store, args: argparse.Namespace) -> None:
    report = await store.resolve_report(args.report, SHELL, args.note)
    print(f"report #{report['id']} resolved")


async def _log(store: Store, args: argparse.Namespace) -> None:
    for entry in await store.moderation_log():
        if args.json:
            _json(entry)
        else:
            target = f" {entry['target']}" if entry["target"] else ""
            if entry["target_then"] and entry["target_then"] != entry["target"]:
                # The player is kept by id: its name now, and the one it had then.
                target += f" (then {entry['target_then']})"
            note = f": {entry['note']}" if entry["note"] else ""
            print(f"{entry['at']} {entry['actor']} {entry['action']}{target}{note}")


def _json(data: dict[str, Any]) -> None:
    print(json.dumps(data, ensure_ascii=False), flush=True)


ACTIONS: dict[str, Callable[[Store, argparse.Namespace], Awaitable[None]]] = {
    "grant-moderator": _grant,
    "revoke-moderator": _revoke,
    "moderators": _moderators,
    "reports": _reports,
    "resolve": _resolve,
    "log": _log,
}
