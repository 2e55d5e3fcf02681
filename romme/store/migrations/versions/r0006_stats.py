"""Players' statistics, experience and card luck per preset, and their experience
points in all.

Revision ID: r0006
Revises: r0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

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


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_index(op.f("ix_players_xp"))
        batch.drop_column("xp")
    op.drop_table("player_statistics")
