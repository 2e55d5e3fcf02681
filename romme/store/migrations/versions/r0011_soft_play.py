"""Soft play found in a finished game: for each seat, the turns on which it could
have gone out and did not (romme.bots.soft_play; docs/chips.md, "For
moderators"). Null until the game is checked.

Revision ID: r0011
Revises: r0010
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0011"
down_revision: str | Sequence[str] | None = "r0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_results") as batch:
        batch.add_column(sa.Column("soft_play", sa.JSON(), nullable=True))


def downgrade() -> None:
    # Not in a batch: SQLite drops a column in place (see r0008).
    op.drop_column("game_results", "soft_play")
