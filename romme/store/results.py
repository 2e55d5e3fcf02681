"""Finished games: recording a result with every player's statistics and rating,
the log of a finished game, a player's profile and the rankings.

The rating model is :mod:`romme.store.ratings`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from romme.engine.fairness import commitment_of, round_seed
from romme.store import accounts, ratings
from romme.store.chip_policy import ChipPolicy
from romme.store.core import StoreCore, bad, check_json, is_id, is_int, iso
from romme.store.errors import StoreError
from romme.store.history import seat_infos
from romme.store.ledger import refund_stakes, settle_stakes
from romme.store.models import GameResult, GameSeat, GameTable, Player
from romme.store.outcome import judge
from romme.store.standing import established, established_clauses
from romme.store.statistics import Tally, record_statistics, statistics_of, tally_ahead
from romme.store.tables import table_actions

__all__ = ["RECENT_GAMES", "ResultStore"]

RECENT_GAMES = 10
"""How many of a player's games its profile lists."""


class ResultStore(StoreCore):
    """The store's finished games and ratings (see :class:`romme.store.Store`)."""

    chip_policy: ChipPolicy = ChipPolicy()
    """Set by the server from its options (the standing of accounts, the daily
    limits: docs/chips.md)."""

    async def finish_game(
        self,
        table_id: int,
        *,
        winners: list[int],
        totals: list[int],
        seat_players: list[int],
        results: list[dict[str, Any]],
        epoch: int | None = None,
    ) -> dict[str, dict[str, float]]:
        """Record a finished game in one transaction: the table's status, the result,
        every player's statistics and rating (and the settlement of its stakes).
        With ``epoch``, the writer's lease of the table must still hold
        (``lease_lost``, and nothing is stored, if another node took it). Returns
        ``{"<seat>": {"before": x, "after": y}}`` (shown ratings) for each seat
        whose rating is kept.

        Places: the winners first, then lower ``totals`` (penalty points). Guests
        play in the rating model with a new player's rating, which is not kept.
        A player in several seats (bots of one level) gets the mean of its seats'
        new ratings, and one game played. Calling it again for the same table
        returns the stored changes and changes nothing."""
        try:
            tallied = await tally_ahead(self, table_id, seat_players, winners, totals, results)
        except (LookupError, TypeError, ValueError):
            tallied = None  # a malformed result: the write transaction refuses it
        try:
            async with self._write() as session:
                changes = await self._finish_game(
                    session, table_id, winners, totals, seat_players, results, tallied, epoch
                )
            self.results_version += 1
            return changes
        except IntegrityError:  # finished concurrently: the stored result stands
            async with self._read() as session:
                result = await session.get(GameResult, table_id)
            if result is None:
                raise
            return dict(result.rating_changes)

    async def _finish_game(
        self,
        session: AsyncSession,
        table_id: int,
        winners: Sequence[int],
        totals: Sequence[int],
        seat_players: Sequence[int],
        results: Sequence[dict[str, Any]],
        tallied: Tally | None,
        epoch: int | None,
    ) -> dict[str, dict[str, float]]:
        table = await self._require_table(session, table_id, lock=True, epoch=epoch)
        stored = await session.get(GameResult, table_id)
        if stored is not None:
            return dict(stored.rating_changes)
        seats = _check_result(winners, totals, seat_players, results)
        ids = sorted(set(seat_players))
        found = (
            await session.scalars(
                select(Player)
                .where(Player.id.in_(ids))
                .order_by(Player.id)
                .with_for_update(key_share=True)
            )
        ).all()
        players = {p.id: p for p in found}
        missing = [i for i in ids if i not in players]
        if missing:
            raise StoreError("no_such_player", f"there is no player {missing[0]}")

        now = self._now()
        judged = judge(table.seats, winners, totals)
        if judged.void:
            # Nothing of it counts: the stakes go back, nobody is rated or gets
            # experience or a game played (docs/chips.md).
            session.add(
                GameResult(
                    table_id=table_id,
                    winners=list(winners),
                    totals=list(totals),
                    seat_players=list(seat_players),
                    results=list(results),
                    rating_changes={},
                    finished_at=now,
                    void=True,
                    rated=False,
                    ranked=False,
                )
            )
            await refund_stakes(session, table, now)
            table.status = "finished"
            table.finished_at = now
            await session.flush()
            return {}
        policy = self.chip_policy
        people = [pid for pid in ids if not players[pid].is_bot]
        rated = await _pairs_within_limit(session, people, policy.pair_rated_games, now)
        ranked = (
            rated
            and len(people) == seats
            and all(established(players[pid], policy, now) for pid in people)
        )
        kept = [rated and not players[pid].guest for pid in seat_players]
        before = [
            (players[pid].mu, players[pid].sigma)
            if not players[pid].guest
            else (ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA)
            for pid in seat_players
        ]
        seat_places = judged.places
        after = ratings.rate(before, seat_places)
        counted_winners = judged.winners

        changes: dict[str, dict[str, float]] = {}
        ordinals: dict[int, tuple[float, float]] = {}
        for pid in ids:
            player = players[pid]
            own = [s for s in range(seats) if seat_players[s] == pid]
            player.games_played += 1
            if any(s in counted_winners for s in own):
                player.games_won += 1
            if any(kept[s] for s in own):
                old = player.rating
                player.mu = math.fsum(after[s][0] for s in own) / len(own)
                player.sigma = math.fsum(after[s][1] for s in own) / len(own)
                player.rating = ratings.ordinal(player.mu, player.sigma)
                ordinals[pid] = (old, player.rating)
        for seat, pid in enumerate(seat_players):
            old_new = ordinals.get(pid)
            if old_new is not None:
                changes[str(seat)] = {
                    "before": ratings.shown(old_new[0]),
                    "after": ratings.shown(old_new[1]),
                }
            session.add(
                GameSeat(
                    table_id=table_id,
                    seat=seat,
                    player_id=pid,
                    place=seat_places[seat],
                    won=seat in counted_winners,
                    players=seats,
                    rated=old_new is not None,
                    rating_before=None if old_new is None else old_new[0],
                    rating_after=None if old_new is None else old_new[1],
                    finished_at=now,
                )
            )
        session.add(
            GameResult(
                table_id=table_id,
                winners=list(winners),
                totals=list(totals),
                seat_players=list(seat_players),
                results=list(results),
                rating_changes=changes,
                finished_at=now,
                void=False,
                rated=rated,
                ranked=ranked,
            )
        )
        await record_statistics(
            session,
            table,
            seat_players,
            counted_winners,
            results,
            players,
            tallied,
            judged.gave_up,
        )
        await settle_stakes(session, table, counted_winners, seat_players, now, policy.bot_win_cap)
        table.status = "finished"
        table.finished_at = now
        await session.flush()
        return changes

    async def game_log(self, table_id: int) -> dict[str, Any] | None:
        """``GameLog`` of the protocol for a finished game (its match seed revealed),
        ``None`` for any other table."""
        if not is_id(table_id):
            return None
        async with self._read() as session:
            table = await session.get(GameTable, table_id)
            result = await session.get(GameResult, table_id)
            if table is None or result is None or table.status != "finished":
                return None
            actions = await table_actions(session, table_id)
            seat_players = [int(pid) for pid in result.seat_players]
            found = (
                await session.scalars(select(Player).where(Player.id.in_(set(seat_players))))
            ).all()
        seats = seat_infos(seat_players, {p.id: p for p in found})
        actions_json = [a.action for a in actions]
        round_count = sum(1 for a in actions_json if a.get("type") == "next_round")
        rounds = []
        for round_no in range(1, round_count + 1):
            seed = round_seed(table.match_seed, round_no)
            rounds.append(
                {"round_no": round_no, "seed": seed.hex(), "commitment": commitment_of(seed)}
            )
        started = table.started_at or (actions[0].created_at if actions else table.created_at)
        return {
            "id": table.id,
            "rules": table.rules,
            "seats": seats,
            "winners": list(result.winners),
            "started_at": iso(started),
            "finished_at": iso(result.finished_at),
            "match_seed": table.match_seed.hex(),
            "rounds": rounds,
            "actions": actions_json,
        }

    async def player_info(self, nickname: str) -> dict[str, Any] | None:
        """``PlayerInfo`` of the protocol, with the ten most recent games."""
        key = accounts.lookup_key(nickname)
        if key is None:
            return None
        async with self._read() as session:
            player = await self._player_by_key(session, key)
            if player is None:
                return None
            # A player may hold several seats of one game (bots of one level):
            # read a few more rows than needed and keep one entry per game.
            rows = (
                await session.scalars(
                    select(GameSeat)
                    .where(GameSeat.player_id == player.id)
                    .order_by(GameSeat.finished_at.desc(), GameSeat.table_id.desc(), GameSeat.seat)
                    .limit(RECENT_GAMES * 4)
                )
            ).all()
            progress = await statistics_of(session, player)
        recent: list[dict[str, Any]] = []
        by_game: dict[int, dict[str, Any]] = {}
        for row in rows:
            entry = by_game.get(row.table_id)
            if entry is None:
                if len(recent) == RECENT_GAMES:
                    continue
                entry = {
                    "game": row.table_id,
                    "finished_at": iso(row.finished_at),
                    "won": row.won,
                    "place": row.place,
                    "players": row.players,
                }
                by_game[row.table_id] = entry
                recent.append(entry)
            else:
                entry["won"] = entry["won"] or row.won
                entry["place"] = min(entry["place"], row.place)
        return {
            "nickname": player.nickname,
            "guest": player.guest,
            "games_played": player.games_played,
            "games_won": player.games_won,
            "rating": ratings.shown(player.rating),
            "recent": recent,
            **progress,
        }

    async def rankings(self, limit: int = 50) -> list[dict[str, Any]]:
        """Established people (``romme.store.standing``: registered, enough games,
        registered long enough ago; never a computer opponent, a guest or a
        deleted account), best rating first. Equal shown ratings share a rank."""
        if not is_int(limit) or limit < 0:
            raise bad("limit must be a non-negative integer")
        limit = min(limit, 1000)
        async with self._read() as session:
            players = (
                await session.scalars(
                    select(Player)
                    .where(*established_clauses(self.chip_policy, self._now()))
                    .order_by(Player.rating.desc(), Player.games_won.desc(), Player.nickname_key)
                    .limit(limit)
                )
            ).all()
        result: list[dict[str, Any]] = []
        for position, player in enumerate(players, start=1):
            rating = ratings.shown(player.rating)
            rank = result[-1]["rank"] if result and result[-1]["rating"] == rating else position
            result.append(
                {
                    "rank": rank,
                    "nickname": player.nickname,
                    "rating": rating,
                    "games_played": player.games_played,
                    "games_won": player.games_won,
                    "bot": player.is_bot,
                }
            )
        return result


async def _pairs_within_limit(
    session: AsyncSession, people: Sequence[int], limit: int, now: datetime
) -> bool:
    """Whether no two of ``people`` have finished ``limit`` rated games together
    in the last 24 hours (``limit`` 0: any number). Their rows are locked by the
    caller, so two results cannot both take the last allowed game."""
    if limit <= 0 or len(people) < 2:
        return True
    mine, theirs = aliased(GameSeat), aliased(GameSeat)
    most = await session.scalar(
        select(func.count())
        .select_from(mine)
        .join(theirs, theirs.table_id == mine.table_id)
        .join(GameResult, GameResult.table_id == mine.table_id)
        .where(
            mine.player_id.in_(list(people)),
            theirs.player_id.in_(list(people)),
            mine.player_id < theirs.player_id,
            mine.finished_at >= now - timedelta(hours=24),
            GameResult.rated.is_(True),
        )
        .group_by(mine.player_id, theirs.player_id)
        .order_by(func.count().desc())
        .limit(1)
    )
    return (most or 0) < limit


def _check_result(
    winners: Sequence[int],
    totals: Sequence[int],
    seat_players: Sequence[int],
    results: Sequence[dict[str, Any]],
) -> int:
    """The number of seats, or raise ``bad_message``."""
    if not isinstance(seat_players, list) or not all(is_int(p) for p in seat_players):
        raise bad("seat_players is a list of player ids")
    seats = len(seat_players)
    if not 2 <= seats <= 4:
        raise bad("a game has 2 to 4 seats")
    if not isinstance(totals, list) or len(totals) != seats or not all(is_int(t) for t in totals):
        raise bad("totals holds one integer per seat")
    if (
        not isinstance(winners, list)
        or not all(is_int(w) and 0 <= w < seats for w in winners)
        or len(set(winners)) != len(winners)
    ):
        raise bad("winners is a list of distinct seats")
    if not isinstance(results, list):
        raise bad("results is a list")
    check_json(results, "results")
    return seats
