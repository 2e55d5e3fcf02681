"""Tournaments between bot levels, with the seats rotated so that luck cancels.

Every deal (a match seed) is played once per rotation of the seats: with levels
``expert,strong`` the same cards are dealt twice, and each level sits once where
the other sat. The figures per level are its win rate with a 95% confidence
interval (Wilson score interval over its seat-games; rotation makes the games
of a deal anticorrelated, so the interval is on the safe side), its mean penalty
per scored round, how many rounds it lost holding nothing but jokers, and the
time its decisions took (p50 and p99).

The tournament runs bots through their public interface only: each bot gets
``game.view_for(seat)`` and returns an action, which the engine checks.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from romme.bots import make_bot
from romme.engine.actions import Action
from romme.engine.game import Game
from romme.engine.reference import Policy, play_game
from romme.engine.rules import Rules
from romme.engine.view import SeatView

__all__ = [
    "LevelStats",
    "MatchRecord",
    "TournamentResult",
    "deal_seed",
    "play_match",
    "run_tournament",
    "wilson_interval",
]

MAX_ACTIONS = 50_000


def deal_seed(seed: int, deal: int) -> bytes:
    """The match seed of deal number ``deal`` of a tournament with seed ``seed``."""
    return hashlib.sha256(f"romme-tournament|{seed}|{deal}".encode()).digest()


def bot_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    digest = hashlib.sha256(f"romme-bot|{seed}|{deal}|{rotation}|{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(slots=True)
class MatchRecord:
    """One game: what each seat got out of it."""

    levels: tuple[str, ...]
    wins: list[float]
    """Per seat: 1 for a sole winner, 1/k for a win shared by k seats, else 0."""
    penalties: list[list[int]]
    """Per seat: its penalty in each scored round it played."""
    times: list[list[float]]
    """Per seat: the CPU seconds each of its decisions took (its time on one core,
    whatever else the machine is doing)."""
    jokers_only: list[int] = field(default_factory=list)
    """Per seat: the scored rounds it lost holding nothing but jokers (it could
    have laid them off to go out, had the table taken them)."""
    rounds: int = 0
    actions: int = 0


Options = Mapping[str, Mapping[str, Any]]
"""Per level, options for :func:`romme.bots.make_bot` (e.g. the expert's ``playouts``)."""


def play_match(
    rules: Rules,
    levels: Sequence[str],
    seed: bytes,
    bot_seeds: Sequence[int] | None = None,
    on_action: Callable[[Game, Action], None] | None = None,
    options: Options | None = None,
) -> MatchRecord:
    """Play one game with a bot of ``levels[seat]`` at each seat."""
    seats = len(levels)
    seeds = list(bot_seeds) if bot_seeds is not None else list(range(seats))
    options = options or {}
    bots = [
        make_bot(level, s, **options.get(level, {})) for level, s in zip(levels, seeds, strict=True)
    ]
    game = Game.start(rules, seats, seed)
    record = MatchRecord(
        tuple(levels),
        [0.0] * seats,
        [[] for _ in range(seats)],
        [[] for _ in range(seats)],
        [0] * seats,
    )
    clock = time.process_time

    def timed(seat: int) -> Policy:
        bot, times = bots[seat], record.times[seat]

        def decide(view: SeatView) -> Action | None:
            start = clock()
            action = bot.decide(view)
            times.append(clock() - start)
            return action

        return decide

    record.actions = len(
        play_game(
            game,
            [timed(seat) for seat in range(seats)],
            max_actions=MAX_ACTIONS,
            on_action=on_action,
        )
    )
    for result in game.results:
        record.rounds += 1
        if result.winner is None:
            continue
        for seat in range(seats):
            hand = result.hands[seat]
            if seat == result.winner or hand or result.penalties[seat]:
                record.penalties[seat].append(result.penalties[seat])
            if seat != result.winner and hand and all(c.is_joker for c in hand):
                record.jokers_only[seat] += 1
    for seat in game.winners:
        record.wins[seat] = 1.0 / len(game.winners)
    return record


@dataclass(slots=True)
class LevelStats:
    """What one level did over a tournament."""

    level: str
    seat_games: int = 0
    wins: float = 0.0
    penalty_sum: int = 0
    scored_rounds: int = 0
    jokers_only: int = 0
    """Scored rounds lost holding nothing but jokers."""
    times: list[float] = field(default_factory=list)

    def merge(self, other: LevelStats) -> None:
        self.seat_games += other.seat_games
        self.wins += other.wins
        self.penalty_sum += other.penalty_sum
        self.scored_rounds += other.scored_rounds
        self.jokers_only += other.jokers_only
        self.times.extend(other.times)

    @property
    def win_rate(self) -> float:
        return self.wins / self.seat_games if self.seat_games else 0.0

    @property
    def mean_penalty(self) -> float:
        return self.penalty_sum / self.scored_rounds if self.scored_rounds else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.seat_games)

    def percentile_ms(self, fraction: float) -> float:
        if not self.times:
            return 0.0
        ordered = sorted(self.times)
        index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
        return ordered[index] * 1000.0


def wilson_interval(wins: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``wins / n``."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(slots=True)
class TournamentResult:
    rules: Rules
    levels: tuple[str, ...]
    games: int
    deals: int
    seed: int
    stats: dict[str, LevelStats]
    seconds: float = 0.0

    def report(self) -> str:
        """The table the command line prints."""
        rules = self.rules
        limit = f", limit {rules.point_limit}" if rules.scoring == "elimination" else ""
        knock = ", with knock" if rules.knock_possible(len(self.levels)) else ""
        lines = [
            f"{rules.name}{limit}{knock}; {len(self.levels)} seats: {', '.join(self.levels)}; "
            f"{self.games} games ({self.deals} deals, seats rotated); seed {self.seed}; "
            f"{self.seconds:.1f} s",
            f"{'level':<9} {'seat-games':>10} {'wins':>8} {'win rate':>9} {'95% CI':>17} "
            f"{'penalty/round':>14} {'only jokers':>12} {'decisions':>10} {'p50 ms':>8} "
            f"{'p99 ms':>8}  (CPU time)",
        ]
        for level in dict.fromkeys(self.levels):
            s = self.stats[level]
            low, high = s.interval()
            lines.append(
                f"{level:<9} {s.seat_games:>10} {s.wins:>8.1f} {s.win_rate:>8.1%} "
                f"{f'[{low:.1%}, {high:.1%}]':>17} {s.mean_penalty:>14.1f} "
                f"{s.jokers_only:>12} {len(s.times):>10} {s.percentile_ms(0.5):>8.2f} "
                f"{s.percentile_ms(0.99):>8.2f}"
            )
        return "\n".join(lines)


def _play_deals(
    rules: Rules,
    levels: tuple[str, ...],
    seed: int,
    deals: Sequence[int],
    options: Options | None = None,
) -> dict[str, LevelStats]:
    stats = {level: LevelStats(level) for level in levels}
    seats = len(levels)
    for deal in deals:
        match_seed = deal_seed(seed, deal)
        for rotation in range(seats):
            lineup = tuple(levels[(i + rotation) % seats] for i in range(seats))
            seeds = [bot_seed(seed, deal, rotation, seat) for seat in range(seats)]
            record = play_match(rules, lineup, match_seed, seeds, options=options)
            for seat, level in enumerate(lineup):
                s = stats[level]
                s.seat_games += 1
                s.wins += record.wins[seat]
                s.penalty_sum += sum(record.penalties[seat])
                s.scored_rounds += len(record.penalties[seat])
                s.jokers_only += record.jokers_only[seat]
                s.times.extend(record.times[seat])
    return stats


def run_tournament(
    rules: Rules,
    levels: Sequence[str],
    games: int,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    options: Options | None = None,
) -> TournamentResult:
    """Play at least ``games`` games (a whole number of deals, each played once
    per seat rotation) and gather each level's figures. ``jobs`` > 1 plays the
    deals in that many worker processes; ``options`` tune levels."""
    lineup = tuple(levels)
    if not 2 <= len(lineup) <= 4:
        raise ValueError("a table has 2 to 4 seats")
    deals = max(1, math.ceil(games / len(lineup)))
    started = time.perf_counter()
    stats = {level: LevelStats(level) for level in lineup}
    chunk = 5 if jobs > 1 else deals
    batches = [list(range(i, min(deals, i + chunk))) for i in range(0, deals, chunk)]
    done = 0
    if jobs <= 1:
        for batch in batches:
            for level, part in _play_deals(rules, lineup, seed, batch, options).items():
                stats[level].merge(part)
            done += len(batch)
            if progress is not None:
                progress(done * len(lineup))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [
                pool.submit(_play_deals, rules, lineup, seed, batch, options) for batch in batches
            ]
            for future, batch in zip(futures, batches, strict=True):
                for level, part in future.result().items():
                    stats[level].merge(part)
                done += len(batch)
                if progress is not None:
                    progress(done * len(lineup))
    return TournamentResult(
        rules, lineup, deals * len(lineup), deals, seed, stats, time.perf_counter() - started
    )
