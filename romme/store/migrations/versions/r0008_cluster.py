"""Ownership leases of the tables: the server node that runs each table, until
when, and the epoch (fencing token) that every append to its action log must
carry (romme.store.leases).

Revision ID: r0008
Revises: r0007
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "r0008"
down_revision: str | Sequence[str] | None = "r0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("owner_node", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("owner_epoch", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
    op.create_index(op.f("ix_game_tables_owner_node"), "game_tables", ["owner_node"])


def downgrade() -> None:
    # Not in a batch: SQLite (3.35 and later) drops a column in place, where a
    # batch would copy the table, and dropping the old copy would take every row
    # that refers to it (results, actions, seats) along.
    op.drop_index(op.f("ix_game_tables_owner_node"), table_name="game_tables")
    for column in ("lease_until", "owner_epoch", "owner_node"):
        op.drop_column("game_tables", column)
