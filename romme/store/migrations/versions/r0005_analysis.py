"""The analyses of finished games (their players' decisions against the expert
computer opponent's).

Revision ID: r0005
Revises: r0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0005"
down_revision: str | Sequence[str] | None = "r0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_analyses",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_game_analyses_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"],
            ["players.id"],
            name=op.f("fk_game_analyses_requested_by_players"),
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_game_analyses")),
    )


def downgrade() -> None:
    op.drop_table("game_analyses")
