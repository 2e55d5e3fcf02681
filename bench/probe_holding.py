"""Probes of the plan of holding melds back at one-round tables, without search.

    python bench/probe_holding.py [--close 3] [--fits 2] [--jokers] [--keep-new] [--least]
                                  [--style NAME=VALUE ...]
                                  [--against strong] [--seats 2]
                                  [--games 2000] [--seed 1]

The expert's edge at single rounds is a plan (``romme.bots.playbook.keeps_melds_back``):
it keeps its melds in hand instead of opening at once. Its search is costly to
measure, the plan is not: this plays the expert without search (the strong
level with the plan) with a variant of the plan, as a level of its own (``plan``), against
``--against`` at every other seat (``--seats`` 2 to 4), seat-rotated, classic
single rounds. The variant holds an opening back unless the seat can go out at
once, or ``--fits`` (0: never) of its loose cards fit the table, or an opponent
is down to ``--close`` cards (0: never), or (``--jokers``) a loose natural card
can take a joker off the table; with ``--keep-new`` it also keeps new melds in
hand once it has opened, until it can go out, and with ``--least`` it opens with
the least that opens (the other melds stay in hand). ``--style NAME=VALUE``
(repeatable) changes a weight of the variant's judgement, a field of
``romme.bots.evaluate.Style`` (e.g. ``risk_weight=1.2``). The deals and bot seeds
are those of ``bench/bench_bots.py`` with the same ``--seed`` and seat count,
so a probe and the levels' own figures differ by the change alone.

The expert's plan is ``--close 0 --fits 0 --jokers --keep-new --least`` heads-up and
``--close 3 --fits 2`` against several opponents (docs/bots.md, "Probes of the plan").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from romme.bots import _CLASSES, is_level
from romme.bots.evaluate import Style
from romme.bots.expert import ExpertBot
from romme.bots.playbook import HoldingPlan
from romme.bots.strong import Context, StrongBot
from romme.bots.tournament import run_tournament
from romme.engine.rules import Rules
from romme.engine.view import SeatView

LEVEL = "plan"
"""The probed variant's level name (registered in this process only)."""


def plan_level(
    close: int,
    fits: int,
    keep_new: bool,
    weights: Mapping[str, float] | None = None,
    jokers: bool = False,
    least: bool = False,
) -> type[StrongBot]:
    """The expert without search (the strong level with the plan of holding
    back at single rounds) playing the variant's plan, with its judgement's
    ``weights`` (fields of :class:`~romme.bots.evaluate.Style`) changed as given."""
    chosen = HoldingPlan(close=close, fits=fits, jokers=jokers, keep_new=keep_new, least=least)
    judgement = replace(ExpertBot.style, **(weights or {}))

    class PlanBot(ExpertBot):
        level = LEVEL
        style = judgement

        def __init__(self, seed: int = 0) -> None:
            super().__init__(seed, playouts=0)

        def plan(self, view: SeatView, ctx: Context) -> HoldingPlan:
            return chosen

    return PlanBot


def parse_weights(parser: argparse.ArgumentParser, items: Sequence[str]) -> dict[str, float]:
    """``--style NAME=VALUE`` options as weights of the judgement (any field of
    :class:`~romme.bots.evaluate.Style` but ``draws_left``, which each decision
    works out anew)."""
    names = {f.name for f in fields(Style)} - {"draws_left"}
    weights: dict[str, float] = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in names:
            parser.error(f"--style: {name!r} is not one of {', '.join(sorted(names))}")
        try:
            weights[name] = float(value)
        except ValueError:
            parser.error(f"--style: {item!r} needs a number after '='")
    return weights


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--close", type=int, default=3, help="open once an opponent has this many cards (0: never)"
    )
    parser.add_argument(
        "--fits",
        type=int,
        default=2,
        help="open once this many loose cards fit the table (0: never)",
    )
    parser.add_argument(
        "--jokers",
        action="store_true",
        help="open once a loose card can take a joker off the table",
    )
    parser.add_argument(
        "--keep-new", action="store_true", help="once opened, keep new melds in hand"
    )
    parser.add_argument(
        "--least", action="store_true", help="open with the least that opens, not every meld"
    )
    parser.add_argument(
        "--style",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a weight of the variant's judgement (a field of romme.bots.evaluate.Style)",
    )
    parser.add_argument("--against", default="strong", help="the level at every other seat")
    parser.add_argument("--seats", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not is_level(args.against):
        parser.error(f"unknown level {args.against!r}")
    weights = parse_weights(parser, args.style)
    # Registered in this process only, so the games are played in it (no --jobs),
    # and only while they are.
    _CLASSES[LEVEL] = plan_level(  # type: ignore[assignment]
        args.close, args.fits, args.keep_new, weights, args.jokers, args.least
    )
    lineup = [LEVEL, *[args.against] * (args.seats - 1)]
    try:
        result = run_tournament(Rules.classic(point_limit=1), lineup, args.games, seed=args.seed)
    finally:
        del _CLASSES[LEVEL]
    print(result.report())
    s = result.stats[LEVEL]
    low, high = s.interval()
    print(
        f"plan (close {args.close}, fits {args.fits}{', jokers' if args.jokers else ''}"
        f"{', keep new' if args.keep_new else ''}{', least' if args.least else ''}"
        f"{''.join(f', {name} {value:g}' for name, value in weights.items())}) "
        f"vs {args.seats - 1} {args.against}: {s.win_rate:.1%} [{low:.1%}, {high:.1%}] "
        f"over {result.games} games (an equal player wins {1 / args.seats:.0%})"
    )


if __name__ == "__main__":
    main()
