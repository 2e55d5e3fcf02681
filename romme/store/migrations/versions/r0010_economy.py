"""What a finished game counts as: void (a person left too early: stakes
returned, nothing counted), rated (the ratings moved) and ranked (it counts in
the ranking by chips); romme.store.outcome and docs/chips.md.

Games finished before this revision keep their figures: they are not void and
were rated; none is ranked, so the month's chip ranking starts afresh.

Revision ID: r0010
Revises: r0009
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0010"
down_revision: str | Sequence[str] | None = "r0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_results") as batch:
        batch.add_column(sa.Column("void", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("rated", sa.Boolean(), server_default=sa.true(), nullable=False))
        batch.add_column(
            sa.Column("ranked", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    # Not in a batch: SQLite drops a column in place (see r0008).
    for column in ("ranked", "rated", "void"):
        op.drop_column("game_results", column)
