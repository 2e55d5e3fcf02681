"""An outside bot: logs in to a romme server as a guest, opens tables against the
server's own computer opponents and plays them to the end, over the public protocol.

    python examples/table_bot.py --server http://127.0.0.1:8000
    python examples/table_bot.py --server http://127.0.0.1:8000 --level plain --games 3

``--level`` is a level of ``romme.bots`` (beginner, casual, strong, expert), or
``plain``: the dozen-line function below, to show that any function of a seat's
view can play. After each game it prints one line: the table, the winning seats
and the penalty totals. docs/client.md explains the library it uses.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys

from romme.bots import LEVELS, make_bot
from romme.client import Client, ClientError, Decide, Settings, play_table
from romme.engine import Action, Discard, Draw, Lay, LayOff, SeatView, legal_actions


def plain(view: SeatView) -> Action | None:
    """Draw from the stock, lay down and lay off whatever it can, then throw the
    card that would cost most. It never knocks (``None``: let the knock go)."""
    if view.seat != view.current:
        return None
    actions = legal_actions(view)
    for action in actions:
        if isinstance(action, Draw) and action.source == "stock":
            return action
    for action in actions:
        if isinstance(action, Lay | LayOff):
            return action
    discards = [action for action in actions if isinstance(action, Discard)]
    return max(discards, key=lambda d: (d.card.is_joker, d.card.penalty_rank_value), default=None)


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="e.g. http://127.0.0.1:8000")
    parser.add_argument("--nickname", default=None, help="guest nickname (default: a new one)")
    parser.add_argument(
        "--level", default="casual", choices=(*LEVELS, "plain"), help="how it plays (casual)"
    )
    parser.add_argument(
        "--opponents",
        default="beginner",
        metavar="LEVEL[,LEVEL..]",
        help="the server's computer opponents, 1 to 3 levels (default: beginner)",
    )
    parser.add_argument("--limit", type=int, default=1, help="point limit; 1: one round (1)")
    parser.add_argument("--games", type=int, default=1, help="games to play (1)")
    return parser.parse_args(argv)


async def run(args: argparse.Namespace) -> int:
    decide: Decide = plain if args.level == "plain" else make_bot(args.level, seed=1).decide
    opponents = [level.strip() for level in args.opponents.split(",")]
    settings: Settings = {
        "seats": len(opponents) + 1,
        "bots": {str(seat): level for seat, level in enumerate(opponents, start=1)},
        "point_limit": args.limit,
    }
    async with Client(args.server) as client:
        player = await client.login_guest(args.nickname or f"bot-{secrets.token_hex(3)}")
        await client.connect()
        print(f"playing as {player.nickname} ({args.level})", flush=True)
        for _ in range(args.games):
            table = await client.create_table(settings)
            await client.start_game(table.id)
            end = await play_table(client, table.id, decide)
            winners = " ".join(str(seat) for seat in end.winners)
            totals = " ".join(str(total) for total in end.totals)
            print(f"table {table.id}: winners {winners}; totals {totals}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    try:
        return asyncio.run(run(args))
    except (ClientError, TimeoutError) as exc:
        print(f"table_bot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
