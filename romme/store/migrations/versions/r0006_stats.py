"""Players' statistics, experience and card luck per preset, and their experience
points in all.

The games finished before this migration are counted here, oldest first, with
``romme.store.statistics.tally_game`` as it is when the migration runs: the same
figures a game gets when it ends (it deals every round again from the match seed,
about a millisecond per round).

Revision ID: r0006
Revises: r0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from romme.store.ratings import shown
from romme.store.statistics import STATISTICS_COLUMNS, empty_statistics, merge, tally_game

revision: str = "r0006"
down_revision: str | Sequence[str] | None = "r0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTS = (
    "games",
    "wins",
    "rounds_played",
    "rounds_won",
    "hand_rummies",
    "knocks",
    "penalty_points",
    "biggest_win",
    "xp",
)


def upgrade() -> None:
    op.create_table(
        "player_statistics",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("preset", sa.String(length=20), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in _COUNTS),
        sa.Column("best_rating", sa.Integer(), nullable=True),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("jokers", sa.Integer(), nullable=False),
        sa.Column("jokers_mean", sa.Float(), nullable=False),
        sa.Column("jokers_variance", sa.Float(), nullable=False),
        sa.Column("tabled_hands", sa.Integer(), nullable=False),
        sa.Column("meld_ready", sa.Integer(), nullable=False),
        sa.Column("meld_ready_mean", sa.Float(), nullable=False),
        sa.Column("meld_ready_variance", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_statistics_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "preset", name=op.f("pk_player_statistics")),
    )
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("xp", sa.Integer(), server_default="0", nullable=False))
        batch.create_index(op.f("ix_players_xp"), ["xp"], unique=False)
    _count_finished_games()


def _count_finished_games() -> None:
    """The statistics and XP of every game finished before this migration."""
    bind = op.get_bind()
    results = sa.table(
        "game_results",
        sa.column("table_id", sa.Integer()),
        sa.column("winners", sa.JSON()),
        sa.column("seat_players", sa.JSON()),
        sa.column("results", sa.JSON()),
        sa.column("finished_at", sa.DateTime(timezone=True)),
    )
    tables = sa.table(
        "game_tables",
        sa.column("id", sa.Integer()),
        sa.column("rules", sa.JSON()),
        sa.column("match_seed", sa.LargeBinary()),
    )
    seats = sa.table(
        "game_seats",
        sa.column("table_id", sa.Integer()),
        sa.column("player_id", sa.Integer()),
        sa.column("rated", sa.Boolean()),
        sa.column("rating_after", sa.Float()),
    )
    actions = sa.table(
        "table_actions", sa.column("table_id", sa.Integer()), sa.column("action", sa.JSON())
    )
    games = bind.execute(
        sa.select(results, tables.c.rules, tables.c.match_seed)
        .join(tables, tables.c.id == results.c.table_id)
        .order_by(results.c.finished_at, results.c.table_id)
    ).all()
    totals: dict[tuple[int, str], Any] = {}
    for game in games:
        after = {
            int(pid): shown(rating) if rated and rating is not None else None
            for pid, rated, rating in bind.execute(
                sa.select(seats.c.player_id, seats.c.rated, seats.c.rating_after).where(
                    seats.c.table_id == game.table_id
                )
            ).all()
        }
        logged = bind.execute(
            sa.select(actions.c.action).where(actions.c.table_id == game.table_id)
        ).scalars()
        preset, tallies = tally_game(
            game.rules,
            bytes(game.match_seed),
            [int(p) for p in game.seat_players],
            list(game.winners),
            list(game.results),
            list(logged),
            after,
        )
        for pid, tally in tallies.items():
            row = totals.setdefault((pid, preset), empty_statistics(pid, preset))
            merge(row, tally)
    if not totals:
        return
    statistics = sa.table(
        "player_statistics",
        *(sa.column(name) for name in ("player_id", "preset", *STATISTICS_COLUMNS)),
    )
    bind.execute(
        statistics.insert(),
        [
            {
                "player_id": row.player_id,
                "preset": row.preset,
                **{name: getattr(row, name) for name in STATISTICS_COLUMNS},
            }
            for row in totals.values()
        ],
    )
    players = sa.table("players", sa.column("id", sa.Integer()), sa.column("xp", sa.Integer()))
    xp: dict[int, int] = {}
    for (pid, _), row in totals.items():
        xp[pid] = xp.get(pid, 0) + row.xp
    for pid, points in xp.items():
        bind.execute(players.update().where(players.c.id == pid).values(xp=points))


def downgrade() -> None:
    # Not in a batch: SQLite (3.35 and later) drops a column in place, where a
    # batch would copy the table, which its foreign keys forbid once games exist.
    op.drop_index(op.f("ix_players_xp"), table_name="players")
    op.drop_column("players", "xp")
    op.drop_table("player_statistics")
