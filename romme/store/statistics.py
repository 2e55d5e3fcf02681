"""Players' statistics, experience, levels and card luck, and the rankings by
rating and by level.

:func:`record_statistics` runs inside ``Store.finish_game``'s transaction, so a
game's statistics are stored exactly when its result is, once. Everything is
kept as running sums per player and preset (:class:`PlayerStatistics`): reading
a profile or the platform's card luck never replays a game. The deals are
rebuilt from the match seed alone (:func:`dealt_hands`), as the engine deals
them; the card-luck figures are those of :mod:`romme.engine.cardluck`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from romme.engine.cardluck import hand_luck, spread
from romme.engine.fairness import deal_from_seed, round_seed
from romme.engine.rules import Rules
from romme.store import ratings
from romme.store.chip_policy import ChipPolicy
from romme.store.core import StoreCore, bad, is_int
from romme.store.fresh import Fresh
from romme.store.ledger import chips_won_and_lost
from romme.store.levels import (
    GAME_PLAYED_XP,
    GAME_WON_XP,
    HAND_RUMMY_XP,
    ROUND_PLAYED_XP,
    ROUND_WON_XP,
    level_of,
)
from romme.store.models import GameTable, Player, PlayerStatistics, TableAction
from romme.store.outcome import judge
from romme.store.standing import established_clauses

__all__ = [
    "PLATFORM_LUCK_MAX_AGE",
    "PRESETS",
    "STATISTICS_COLUMNS",
    "StatisticsStore",
    "card_luck",
    "dealt_hands",
    "empty_statistics",
    "merge",
    "record_statistics",
    "statistics_of",
    "tally_ahead",
    "tally_game",
]

PLATFORM_LUCK_MAX_AGE = 60.0
"""Seconds the platform's card luck is kept at most (``GET /api/stats/cards``)."""

PRESETS = ("classic", "three-rounds")
"""The presets statistics are kept for; a game's preset is its rules' ``name``."""

_SUMS = (
    "games",
    "wins",
    "rounds_played",
    "rounds_won",
    "hand_rummies",
    "knocks",
    "penalty_points",
    "xp",
    "hands",
    "jokers",
    "jokers_mean",
    "jokers_variance",
    "tabled_hands",
    "meld_ready",
    "meld_ready_mean",
    "meld_ready_variance",
)
"""The columns that add up over presets (``biggest_win`` and ``best_rating``
take the maximum)."""
STATISTICS_COLUMNS = (*_SUMS, "biggest_win", "best_rating")
"""Every column of a statistics row but its key."""


def dealt_hands(
    rules: Rules, seats: int, match_seed: bytes, results: Sequence[dict[str, Any]]
) -> Iterator[tuple[int, int, tuple[Any, ...]]]:
    """``(round index, seat, hand as dealt)`` for every seat of every round that
    ``results`` holds, dealt as :class:`romme.engine.Game` deals: the first dealer
    is the last seat, the deal passes to the next seat still in the game, hands
    go out from the dealer's left, and eliminated seats sit out the rounds after."""
    active = [True] * seats
    dealer = seats - 1

    def next_active(seat: int) -> int:
        for step in range(1, seats + 1):
            if active[(seat + step) % seats]:
                return (seat + step) % seats
        raise ValueError("nobody is left at the table")

    for index, result in enumerate(results):
        if index > 0 or not active[dealer]:
            dealer = next_active(dealer)
        order = []
        seat = dealer
        for _ in range(sum(active)):
            seat = next_active(seat)
            order.append(seat)
        deal = deal_from_seed(round_seed(match_seed, index + 1), len(order), rules.hand_size)
        for seat, hand in zip(order, deal.hands, strict=True):
            yield index, seat, hand
        for seat in result.get("eliminated") or ():
            if is_int(seat) and 0 <= seat < seats and sum(active) > 1:
                active[seat] = False


def tally_game(
    rules_json: Any,
    match_seed: bytes,
    seat_players: Sequence[int],
    winners: Sequence[int],
    results: Sequence[Any],
    actions: Sequence[Any],
    ratings_after: dict[int, int | None],
    gave_up: frozenset[int] = frozenset(),
) -> tuple[str, dict[int, PlayerStatistics]]:
    """What one finished game adds to each of its players' statistics: the preset
    and, per player, a detached :class:`PlayerStatistics` holding the game's own
    figures (``best_rating``: the shown rating after the game, from
    ``ratings_after``; ``None`` for guests). :func:`merge` adds it to a stored row.

    ``winners`` are the seats that count as winners (``romme.store.outcome``);
    a player whose seats were all given up (``gave_up``) gets a game lost and
    nothing else: a stand-in played those rounds, not the player."""
    try:
        rules = Rules.from_json(rules_json)
    except (TypeError, ValueError):
        rules = Rules.classic()
    preset = rules.name if rules.name in PRESETS else "classic"
    tallies = {pid: empty_statistics(pid, preset) for pid in sorted(set(seat_players))}
    for pid, tally in tallies.items():
        tally.games = 1
        tally.xp = GAME_PLAYED_XP
        if any(seat_players[s] == pid for s in winners):
            tally.wins = 1
            tally.xp += GAME_WON_XP
        tally.best_rating = ratings_after.get(pid)
    seats = len(seat_players)
    for action in actions:
        if isinstance(action, dict) and action.get("type") == "knock":
            seat = action.get("seat")
            if isinstance(seat, int) and 0 <= seat < seats:
                tallies[seat_players[seat]].knocks += 1
    rounds = [r if isinstance(r, dict) else {} for r in results]
    for index, seat, hand in dealt_hands(rules, seats, match_seed, rounds):
        tally = tallies[seat_players[seat]]
        penalties = _penalties(rounds[index], seats)
        tally.rounds_played += 1
        tally.xp += ROUND_PLAYED_XP
        tally.penalty_points += penalties[seat]
        if rounds[index].get("winner") == seat:
            tally.rounds_won += 1
            tally.xp += ROUND_WON_XP
            if rounds[index].get("hand_rummy") is True:
                tally.hand_rummies += 1
                tally.xp += HAND_RUMMY_XP
            tally.biggest_win = max(tally.biggest_win, sum(penalties))
        luck = hand_luck(hand, rules)
        tally.hands += 1
        tally.jokers += luck.jokers
        tally.jokers_mean += luck.jokers_mean
        tally.jokers_variance += luck.jokers_variance
        if luck.meld_ready is not None:
            tally.tabled_hands += 1
            tally.meld_ready += int(luck.meld_ready)
            tally.meld_ready_mean += luck.meld_ready_mean or 0.0
            tally.meld_ready_variance += luck.meld_ready_variance or 0.0
    for pid in tallies:
        own = [s for s in range(seats) if seat_players[s] == pid]
        if own and all(s in gave_up for s in own):
            lost = empty_statistics(pid, preset)
            lost.games = 1
            lost.best_rating = tallies[pid].best_rating
            tallies[pid] = lost
    return preset, tallies


def merge(row: PlayerStatistics, tally: PlayerStatistics) -> None:
    """Add ``tally`` (one game's figures, :func:`tally_game`) to ``row``."""
    for name in _SUMS:
        setattr(row, name, getattr(row, name) + getattr(tally, name))
    row.biggest_win = max(row.biggest_win, tally.biggest_win)
    if tally.best_rating is not None:
        row.best_rating = max(row.best_rating or tally.best_rating, tally.best_rating)


def empty_statistics(player_id: int, preset: str) -> PlayerStatistics:
    """A statistics row with nothing counted yet."""
    row = PlayerStatistics(player_id=player_id, preset=preset, best_rating=None)
    for name in (*_SUMS, "biggest_win"):
        setattr(row, name, 0)
    return row


Tally = tuple[str, dict[int, PlayerStatistics]]
"""A game's preset and what it adds for each of its players (:func:`tally_game`)."""


async def tally_ahead(
    store: StoreCore,
    table_id: int,
    seat_players: Sequence[int],
    winners: Sequence[int],
    totals: Sequence[int],
    results: Sequence[dict[str, Any]],
) -> Tally | None:
    """What a finished game adds to the statistics, worked out before the write
    transaction that stores its result: judging every dealt hand takes some 0.3 ms
    a hand (bench/bench_statistics.py), which must hold neither the database's
    write lock nor the event loop (a worker thread does it). ``None`` if there is
    no such table (the write transaction then refuses the game). ``winners``
    and ``totals`` are the engine's; the game is judged here as the write
    transaction judges it (``romme.store.outcome``)."""
    async with store._read() as session:
        table = await session.get(GameTable, table_id)
        if table is None:
            return None
        rules, match_seed = table.rules, table.match_seed
        judged = judge(table.seats, winners, totals)
        actions = (
            await session.scalars(
                select(TableAction.action).where(TableAction.table_id == table_id)
            )
        ).all()
    return await asyncio.to_thread(
        tally_game,
        rules,
        match_seed,
        seat_players,
        judged.winners,
        results,
        actions,
        {},
        judged.gave_up,
    )


async def record_statistics(
    session: AsyncSession,
    table: GameTable,
    seat_players: Sequence[int],
    winners: Sequence[int],
    results: Sequence[dict[str, Any]],
    players: dict[int, Player],
    tallied: Tally | None = None,
    gave_up: frozenset[int] = frozenset(),
) -> None:
    """Add a finished game to its players' statistics, experience and card luck
    (in the caller's transaction: ``Store.finish_game`` runs this once per game).
    ``players`` are the seats' players with their new ratings; ``tallied`` the
    game's figures from :func:`tally_ahead` (worked out here if not given);
    ``winners`` the seats that count as winners, ``gave_up`` the seats given up
    (``romme.store.outcome``)."""
    if tallied is None:
        actions = (
            await session.scalars(
                select(TableAction.action).where(TableAction.table_id == table.id)
            )
        ).all()
        tallied = await asyncio.to_thread(
            tally_game,
            table.rules,
            table.match_seed,
            seat_players,
            winners,
            results,
            actions,
            {},
            gave_up,
        )
    preset, tallies = tallied
    rows = {
        row.player_id: row
        for row in (
            await session.scalars(
                select(PlayerStatistics).where(
                    PlayerStatistics.player_id.in_(list(tallies)),
                    PlayerStatistics.preset == preset,
                )
            )
        ).all()
    }
    for pid, tally in tallies.items():
        player = players[pid]
        tally.best_rating = None if player.guest else ratings.shown(player.rating)
        row = rows.get(pid)
        if row is None:
            row = empty_statistics(pid, preset)
            session.add(row)
        merge(row, tally)
        player.xp += tally.xp


def _penalties(result: dict[str, Any], seats: int) -> list[int]:
    """A round result's penalties per seat (zeros if it holds none)."""
    penalties = result.get("penalties")
    if isinstance(penalties, list) and len(penalties) == seats and all(map(is_int, penalties)):
        return [int(p) for p in penalties]
    return [0] * seats


def _overall(rows: Sequence[PlayerStatistics]) -> dict[str, Any]:
    """The sums of ``rows`` as one mapping of the columns."""
    total: dict[str, Any] = {name: sum(getattr(r, name) for r in rows) for name in _SUMS}
    total["biggest_win"] = max((r.biggest_win for r in rows), default=0)
    best = [r.best_rating for r in rows if r.best_rating is not None]
    total["best_rating"] = max(best) if best else None
    return total


def _figures(sums: dict[str, Any]) -> dict[str, Any]:
    """``Statistics`` of the protocol from one set of sums."""
    games, rounds = sums["games"], sums["rounds_played"]
    return {
        "games": games,
        "wins": sums["wins"],
        "win_rate": round(sums["wins"] / games, 3) if games else None,
        "rounds_played": rounds,
        "rounds_won": sums["rounds_won"],
        "hand_rummies": sums["hand_rummies"],
        "knocks": sums["knocks"],
        "average_penalty": round(sums["penalty_points"] / rounds, 1) if rounds else None,
        "biggest_win": sums["biggest_win"],
        "best_rating": sums["best_rating"],
        "xp": sums["xp"],
    }


def card_luck(sums: dict[str, Any]) -> dict[str, Any]:
    """``CardLuck`` of the protocol from summed card-luck columns."""
    return {
        "hands": sums["hands"],
        "jokers": sums["jokers"],
        "jokers_expected": round(sums["jokers_mean"], 1),
        "jokers_spread": round(spread(sums["jokers_variance"]), 1),
        "meld_ready_hands": sums["tabled_hands"],
        "meld_ready": sums["meld_ready"],
        "meld_ready_expected": round(sums["meld_ready_mean"], 1),
        "meld_ready_spread": round(spread(sums["meld_ready_variance"]), 1),
    }


async def statistics_of(session: AsyncSession, player: Player) -> dict[str, Any]:
    """``{"xp", "level": Level, "stats": {"overall", "classic", "three-rounds":
    Statistics, "rating", "card_luck": CardLuck, "chips_won", "chips_lost"}}`` of
    a player (zeros for one who has not finished a game)."""
    rows = (
        await session.scalars(
            select(PlayerStatistics).where(PlayerStatistics.player_id == player.id)
        )
    ).all()
    overall = _overall(rows)
    stats: dict[str, Any] = {"overall": _figures(overall)}
    for preset in PRESETS:
        stats[preset] = _figures(_overall([r for r in rows if r.preset == preset]))
    stats["rating"] = None if player.guest else ratings.shown(player.rating)
    stats["card_luck"] = card_luck(overall)
    stats.update(await chips_won_and_lost(session, player.id))
    return {"xp": overall["xp"], "level": level_of(overall["xp"]), "stats": stats}


class StatisticsStore(StoreCore):
    """Statistics, levels and card luck (see :class:`romme.store.Store`)."""

    chip_policy: ChipPolicy = ChipPolicy()
    """Set by the server from its options (who is established: docs/chips.md)."""

    def _eligible(self) -> tuple[Any, ...]:
        """Who appears in the rankings: established people (never a computer
        opponent, a guest or a deleted account; ``romme.store.standing``)."""
        return established_clauses(self.chip_policy, self._now())

    async def player_statistics(self, player_id: int) -> dict[str, Any]:
        """:func:`statistics_of` the player ``player_id``."""
        async with self._read() as session:
            player = await self._require_player(session, player_id)
            return await statistics_of(session, player)

    @cached_property
    def _platform_luck(self) -> Fresh[dict[str, Any]]:
        return Fresh(PLATFORM_LUCK_MAX_AGE)

    async def platform_card_luck(self) -> dict[str, Any]:
        """``CardLuck`` of every hand dealt in a finished game on this server, with
        ``players``: how many players were dealt them. Kept between calls: computed
        again once a game's result is recorded here, and at least every
        :data:`PLATFORM_LUCK_MAX_AGE` seconds (results another node recorded)."""
        figures = await self._platform_luck.get(self.results_version, self._platform_card_luck)
        return dict(figures)

    async def _platform_card_luck(self) -> dict[str, Any]:
        columns = [func.coalesce(func.sum(getattr(PlayerStatistics, n)), 0) for n in _SUMS]
        async with self._read() as session:
            values = (await session.execute(select(*columns))).one()
            players = await session.scalar(
                select(func.count(func.distinct(PlayerStatistics.player_id)))
            )
        sums = dict(zip(_SUMS, values, strict=True))
        return {**card_luck(sums), "players": players or 0}

    async def level_ranking(self, limit: int, me_id: int | None) -> dict[str, Any]:
        """``{"rankings": [row], "me": row | None}``, most XP first; equal XP
        share a rank. A row is that of ``Store.rankings`` with ``xp`` and
        ``level``. ``me``: the row of ``me_id`` wherever it stands (``None`` if
        it is not ranked)."""
        if not is_int(limit) or limit < 0:
            raise bad("limit must be a non-negative integer")
        async with self._read() as session:
            found = (
                await session.scalars(
                    select(Player)
                    .where(*self._eligible())
                    .order_by(Player.xp.desc(), Player.rating.desc(), Player.nickname_key)
                    .limit(min(limit, 1000))
                )
            ).all()
            me = None
            if me_id is not None:
                mine = await session.scalar(
                    select(Player).where(Player.id == me_id, *self._eligible())
                )
                if mine is not None:
                    ahead = await session.scalar(
                        select(func.count()).where(Player.xp > mine.xp, *self._eligible())
                    )
                    me = _level_row(mine, (ahead or 0) + 1)
        rows: list[dict[str, Any]] = []
        for position, player in enumerate(found, start=1):
            same = rows and rows[-1]["xp"] == player.xp
            rows.append(_level_row(player, rows[-1]["rank"] if same else position))
        return {"rankings": rows, "me": me}

    async def rating_position(self, me_id: int) -> dict[str, Any] | None:
        """The rating rankings' row of ``me_id`` wherever it stands (rank: one
        more than the players shown with a higher rating), ``None`` if unranked."""
        async with self._read() as session:
            player = await session.scalar(
                select(Player).where(Player.id == me_id, *self._eligible())
            )
            if player is None:
                return None
            shown = ratings.shown(player.rating)
            # shown(x) > shown(mine) exactly when x lies above the rounding edge.
            edge = (shown + 0.5 - ratings.BASE) / ratings.SCALE
            ahead = await session.scalar(
                select(func.count()).where(Player.rating >= edge, *self._eligible())
            )
        return _rating_row(player, (ahead or 0) + 1)


def _rating_row(player: Player, rank: int) -> dict[str, Any]:
    """A row of the rankings by rating."""
    return {
        "rank": rank,
        "nickname": player.nickname,
        "rating": ratings.shown(player.rating),
        "games_played": player.games_played,
        "games_won": player.games_won,
        "bot": player.is_bot,
    }


def _level_row(player: Player, rank: int) -> dict[str, Any]:
    """A row of the rankings by level: a rating row with ``xp`` and ``level``."""
    return {**_rating_row(player, rank), "xp": player.xp, "level": level_of(player.xp)["number"]}
