"""The ``romme`` command line: ask the rules engine from a shell.

Each subcommand is one ``cmd_*`` function taking the parsed arguments and returning
the exit status, registered with :func:`command` together with a function that declares
its arguments. To add one (``serve``, ``tournament``, ...)::

    def _serve_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--port", type=int, default=8000)

    @command("serve", "run the game server", _serve_arguments)
    def cmd_serve(args: argparse.Namespace) -> int:
        ...
        return 0

Exit status: 0 success, 1 a well-formed question whose answer is "no" (an invalid
meld), 2 bad input (an unreadable card, an impossible hand, a bad option). Bad input
never shows a traceback: raise :class:`UsageError` (or let an engine error through,
see :func:`main`) and the message is printed on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from romme.engine.actions import Action
from romme.engine.cards import Card, format_cards, parse_cards, shoe_counter
from romme.engine.errors import CardParseError, EngineError, InvalidMeld
from romme.engine.events import Event
from romme.engine.game import Game
from romme.engine.melds import Meld
from romme.engine.rules import DEFAULT_SEATS, PRESETS, Rules

__all__ = ["COMMANDS", "Command", "UsageError", "build_parser", "check_hand", "command", "main"]

EXIT_OK = 0
EXIT_NO = 1
EXIT_BAD_INPUT = 2

SHOE_SIZE = 110


class UsageError(Exception):
    """Bad input from the user: printed without a traceback, exit status 2."""


Runner = Callable[[argparse.Namespace], int]
Configure = Callable[[argparse.ArgumentParser], None]


@dataclass(frozen=True, slots=True)
class Command:
    """One subcommand: its name, a one-line help, its arguments and its body."""

    name: str
    help: str
    configure: Configure
    run: Runner


COMMANDS: dict[str, Command] = {}
"""Every subcommand by name, in the order registered (the order ``--help`` lists)."""


def command(name: str, help: str, configure: Configure) -> Callable[[Runner], Runner]:
    """Register the decorated function as the subcommand ``name``."""

    def register(run: Runner) -> Runner:
        if name in COMMANDS:
            raise ValueError(f"subcommand {name!r} registered twice")
        COMMANDS[name] = Command(name, help, configure, run)
        return run

    return register


# ------------------------------------------------------------------ shared bits


def _add_rules_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        choices=PRESETS,
        default="classic",
        help="rules preset (default: classic)",
    )


def _add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="answer in JSON")


def _rules(args: argparse.Namespace) -> Rules:
    return Rules.preset(args.rules)


def _print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False), flush=True)


def _cards_from(tokens: Sequence[str]) -> tuple[Card, ...]:
    """Cards from command-line words; each word may hold several cards ("7H,8H")."""
    return parse_cards(" ".join(tokens))


def _stdin_lines() -> Iterator[str]:
    if sys.stdin is None:
        return
    if sys.stdin.isatty():
        print("(reading from standard input, one per line; end with Ctrl-D)", file=sys.stderr)
    for line in sys.stdin:
        if line.strip():
            yield line.strip()


# ------------------------------------------------------------------------- meld


def _meld_arguments(parser: argparse.ArgumentParser) -> None:
    _add_rules_argument(parser)
    _add_json_argument(parser)
    parser.add_argument(
        "cards",
        nargs="*",
        metavar="CARD",
        help="cards in the order laid, e.g. QH KH AH or 7C,7D,XX; "
        "none: read one meld per line from standard input",
    )


@dataclass(frozen=True, slots=True)
class _MeldAnswer:
    text: str
    """What was asked: the cards as given, normalised when they could be read."""
    status: int
    meld: Meld | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.meld is not None,
            "kind": None if self.meld is None else self.meld.kind.value,
            "points": None if self.meld is None else self.meld.value,
            "reason": self.reason,
        }

    def line(self) -> str:
        if self.meld is not None:
            return f"{self.text}: {self.meld.describe()}"
        if self.status == EXIT_NO:
            return f"{self.text}: not a meld: {self.reason}"
        return f"{self.text}: bad input: {self.reason}"


def _judge_meld(text: str, rules: Rules) -> _MeldAnswer:
    try:
        cards = parse_cards(text)
    except CardParseError as exc:
        return _MeldAnswer(text, EXIT_BAD_INPUT, reason=exc.message)
    shown = format_cards(cards)
    try:
        meld = Meld.parse(cards, rules)
    except InvalidMeld as exc:
        return _MeldAnswer(shown, EXIT_NO, reason=exc.message)
    return _MeldAnswer(shown, EXIT_OK, meld=meld)


@command("meld", "do these cards, in this order, form a meld?", _meld_arguments)
def cmd_meld(args: argparse.Namespace) -> int:
    """Judge one meld given as arguments, or one meld per line of standard input.

    Exit 0 if every meld is valid, 1 if any is not, 2 if any line could not be read.
    """
    rules = _rules(args)
    if args.cards:
        answer = _judge_meld(" ".join(args.cards), rules)
        if args.json:
            _print_json(answer.to_json())
        elif answer.status == EXIT_BAD_INPUT:
            print(f"romme meld: {answer.reason}", file=sys.stderr)
        else:
            print(answer.line())
        return answer.status

    status = EXIT_OK
    for text in _stdin_lines():
        answer = _judge_meld(text, rules)
        if args.json:
            _print_json(answer.to_json())
        else:
            print(answer.line(), flush=True)
        status = max(status, answer.status)
    return status


# ------------------------------------------------------------------------ solve


def _solve_arguments(parser: argparse.ArgumentParser) -> None:
    _add_rules_argument(parser)
    _add_json_argument(parser)
    parser.add_argument(
        "cards",
        nargs="*",
        metavar="CARD",
        help="the hand, e.g. 7C 7D 7H QH KH AH 2S; none: read it from standard input",
    )


def check_hand(cards: Sequence[Card]) -> None:
    """Raise :class:`UsageError` unless these cards could be one hand from the shoe."""
    if not cards:
        raise UsageError("no cards given")
    if len(cards) > SHOE_SIZE:
        raise UsageError(f"{len(cards)} cards: the shoe holds only {SHOE_SIZE}")
    available = shoe_counter()
    too_many = [
        f"{card} {count} times (the shoe holds {available[card]})"
        for card, count in sorted(Counter(cards).items())
        if count > available[card]
    ]
    if too_many:
        raise UsageError("more copies than the shoe holds: " + ", ".join(too_many))


@command("solve", "the best way to lay out a hand", _solve_arguments)
def cmd_solve(args: argparse.Namespace) -> int:
    """Print the arrangement of the hand that leaves the fewest penalty points."""
    rules = _rules(args)
    text = " ".join(args.cards) if args.cards else " ".join(_stdin_lines())
    hand = parse_cards(text)
    check_hand(hand)

    try:
        # Imported here so that the other subcommands work without the solver.
        from romme.engine.solver import solve
    except ModuleNotFoundError as exc:
        if exc.name != "romme.engine.solver":
            raise
        print("romme solve: the hand solver (romme.engine.solver) is missing", file=sys.stderr)
        return EXIT_NO
    arrangement = solve(hand, rules)
    if args.json:
        _print_json(arrangement.to_json())
        return EXIT_OK
    melds = [str(meld) for meld in arrangement.melds]
    width = max(map(len, melds), default=0)
    for meld, shown in zip(arrangement.melds, melds, strict=True):
        print(f"{shown.ljust(width)}   {meld.describe()}")
    if not melds:
        print("no melds")
    print(f"left: {format_cards(arrangement.left) or '-'}")
    print(f"penalty: {arrangement.penalty}")
    print(f"points: {arrangement.points}")
    return EXIT_OK


# ------------------------------------------------------------------------- play


def _play_arguments(parser: argparse.ArgumentParser) -> None:
    _add_rules_argument(parser)
    parser.add_argument(
        "--seats",
        type=int,
        default=None,
        metavar="N",
        help="players, 2-4 (default: 2 classic, 4 three-rounds)",
    )
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="shuffle seed")
    parser.add_argument("--limit", type=int, default=None, metavar="L", help="point limit")
    parser.add_argument("--knock", action="store_true", help="play with the knock")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every move")


@command("play", "play a match between computer opponents", _play_arguments)
def cmd_play(args: argparse.Namespace) -> int:
    """Play and print a match between reference players (seeded: the same seed
    plays the same match)."""
    import hashlib

    from romme.engine.fairness import new_match_seed
    from romme.engine.reference import play_game, reference_action

    options: dict[str, Any] = {}
    if args.limit is not None:
        if args.limit < 1:
            raise UsageError("the point limit must be a positive number")
        options["point_limit"] = args.limit
    if args.knock:
        options["knock"] = True
    try:
        rules = Rules.preset(args.rules, **options)
    except ValueError as exc:  # an option the preset rules out, e.g. three-rounds --knock
        raise UsageError(str(exc)) from exc
    seats = DEFAULT_SEATS[args.rules] if args.seats is None else args.seats
    if not rules.min_seats <= seats <= rules.max_seats:
        raise UsageError(f"a table has {rules.min_seats} to {rules.max_seats} seats")
    seed = (
        new_match_seed()
        if args.seed is None
        else hashlib.sha256(f"romme-play:{args.seed}".encode()).digest()
    )
    game = _NarratedGame(rules, seats, seed, verbose=args.verbose)
    print(
        f"romme: {rules.name}, {seats} players, "
        + (
            f"{rules.rounds} rounds"
            if rules.scoring == "rounds"
            else f"point limit {rules.point_limit}"
        )
    )
    play_game(game, reference_action)
    return EXIT_OK


class _NarratedGame(Game):
    """A game that prints its events as they happen (``romme play``): the round's
    deal, lays, knocks and results, and with ``verbose`` every move."""

    def __init__(self, rules: Rules, seats: int, seed: bytes, *, verbose: bool) -> None:
        super().__init__(rules, seats, seed)
        self.names = [f"seat {s}" for s in range(seats)]
        self.verbose = verbose

    def apply(self, action: Action) -> list[Event]:
        events = super().apply(action)
        for event in events:
            line = _describe_event(event, self.names)
            if line and (self.verbose or event.type in _ALWAYS_TOLD):
                print(line)
        return events


_ALWAYS_TOLD = ("round_started", "round_ended", "game_ended", "laid", "knocked")
"""The events ``romme play`` prints without ``--verbose``."""


def _describe_event(event: Any, names: Sequence[str]) -> str | None:
    kind = event.type
    if kind == "round_started":
        return (
            f"\n== round {event.round_no}: {names[event.dealer]} deals, "
            f"{names[event.first]} starts; upcard {event.upcard}; "
            f"commitment {event.commitment[:16]}..."
        )
    if kind == "drew":
        card = "" if event.source == "stock" else f" {event.card}"
        return f"{names[event.seat]} draws from the {event.source}{card}"
    if kind == "laid":
        melds = " | ".join(str(m) for m in event.melds)
        return f"{names[event.seat]} {'opens with' if event.opened else 'lays'} {melds}"
    if kind == "laid_off":
        return f"{names[event.seat]} lays off {event.card} -> {event.meld}"
    if kind == "joker_exchanged":
        return f"{names[event.seat]} exchanges {event.card} for a joker -> {event.meld}"
    if kind == "discarded":
        return f"{names[event.seat]} discards {event.card}"
    if kind == "knocked":
        return f"{names[event.seat]} knocks and takes {event.card}"
    if kind == "restocked":
        return f"the discard pile becomes the stock ({event.stock_count} cards)"
    if kind == "round_ended":
        result = event.result
        who = (
            "nobody went out"
            if result.winner is None
            else f"{names[result.winner]} goes out"
            + (" with hand rummy" if result.hand_rummy else "")
        )
        lines = [f"-- {who}"]
        for seat, name in enumerate(names):
            left = format_cards(result.hands[seat]) or "-"
            lines.append(
                f"   {name}: penalty {result.penalties[seat]:3d}  total "
                f"{result.totals[seat]:4d}  left {left}"
            )
        lines.append(f"   shuffle seed {result.seed}")
        return "\n".join(lines)
    if kind == "game_ended":
        return "\n== winner: " + ", ".join(names[s] for s in event.winners)
    return None


# ------------------------------------------------------------------- tournament


def _tournament_arguments(parser: argparse.ArgumentParser) -> None:
    _add_rules_argument(parser)
    parser.add_argument(
        "--seats",
        required=True,
        metavar="LEVEL,LEVEL[,..]",
        help="the level at each seat, 2 to 4 of beginner, casual, strong, expert "
        "(e.g. expert,strong)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=100,
        metavar="N",
        help="games to play, rounded up to whole deals (default 100)",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="L",
        help="classic point limit: 1 (one round), 50, 100 (the default)...",
    )
    parser.add_argument(
        "--knock", action="store_true", help="classic tables of 3 or 4 seats: play with knock"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="tournament seed (default 0): the same seed plays the same games",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="worker processes (default 1)"
    )


@command("tournament", "bot levels against each other, seats rotated", _tournament_arguments)
def cmd_tournament(args: argparse.Namespace) -> int:
    """Play seat-rotated games between bot levels and print each level's figures."""
    from romme.bots import LEVELS_HELP, is_level
    from romme.bots.tournament import run_tournament

    levels = [level.strip() for level in args.seats.split(",") if level.strip()]
    unknown = [level for level in levels if not is_level(level)]
    if unknown:
        raise UsageError(f"unknown level(s) {', '.join(unknown)}; choose {LEVELS_HELP}")
    if not 2 <= len(levels) <= 4:
        raise UsageError("--seats names 2 to 4 levels, one per seat")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    options: dict[str, Any] = {}
    if args.limit is not None:
        if args.rules != "classic":
            raise UsageError("--limit is a classic option (three-rounds plays three rounds)")
        if args.limit < 1:
            raise UsageError("--limit must be a positive number")
        options["point_limit"] = args.limit
    if args.knock:
        if args.rules != "classic" or len(levels) < 3:
            raise UsageError("--knock needs classic rules and 3 or 4 seats")
        options["knock"] = True
    rules = Rules.preset(args.rules, **options)

    def progress(done: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{done} games", end="", file=sys.stderr, flush=True)

    result = run_tournament(
        rules, levels, args.games, seed=args.seed, jobs=args.jobs, progress=progress
    )
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(result.report())
    return EXIT_OK


# ------------------------------------------------------------------------ serve


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    from romme.server.config import add_arguments

    add_arguments(parser)


@command("serve", "run the game server (HTTP and WebSocket)", _serve_arguments)
def cmd_serve(args: argparse.Namespace) -> int:
    """Run the online server until SIGTERM or Ctrl-C."""
    from romme.server.serve import serve

    return serve(args)


# -------------------------------------------------------------------------- bot


def _bot_arguments(parser: argparse.ArgumentParser) -> None:
    from romme.client.command import add_arguments

    add_arguments(parser)


@command("bot", "computer players on a server, run from outside it", _bot_arguments)
def cmd_bot(args: argparse.Namespace) -> int:
    """Play with a bot level at tables of a server until stopped (see docs/client.md)."""
    from romme.client.command import run

    return run(args)


# ------------------------------------------------------------------------ admin


def _admin_arguments(parser: argparse.ArgumentParser) -> None:
    from romme.admin import add_arguments

    add_arguments(parser)


@command("admin", "moderators and reports, on the server's database", _admin_arguments)
def cmd_admin(args: argparse.Namespace) -> int:
    """Grant the moderator role, list and resolve reports (README: "The server")."""
    from romme.admin import AdminError, run

    try:
        return run(args)
    except AdminError as exc:
        raise UsageError(str(exc)) from None


# ------------------------------------------------------------------------- main


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("romme")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="romme",
        description="Rommé (German Rummy): the rules engine from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"romme {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for cmd in COMMANDS.values():
        sub = subparsers.add_parser(cmd.name, help=cmd.help, description=cmd.help)
        cmd.configure(sub)
        sub.set_defaults(run=cmd.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except (UsageError, EngineError) as exc:
        # EngineError covers unreadable cards and any other input the engine refuses.
        print(f"romme {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python from
        # complaining when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    return status


if __name__ == "__main__":
    raise SystemExit(main())
