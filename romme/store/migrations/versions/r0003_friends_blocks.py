"""Friends and blocks: friend requests and friendships (``friendships``) and the
players each player has blocked (``blocks``).

Revision ID: r0003
Revises: r0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "r0003"
down_revision: str | Sequence[str] | None = "r0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _player(column: str, table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["players.id"], name=op.f(f"fk_{table}_{column}_players"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "friendships",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("from_id", sa.Integer(), nullable=False),
        sa.Column("to_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("hidden", sa.Boolean(), nullable=False),
        _timestamp("created_at"),
        _timestamp("accepted_at", nullable=True),
        _player("from_id", "friendships"),
        _player("to_id", "friendships"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_friendships")),
        sa.UniqueConstraint("from_id", "to_id", name=op.f("uq_friendships_from_id_to_id")),
    )
    op.create_index(op.f("ix_friendships_from_id"), "friendships", ["from_id"])
    op.create_index(op.f("ix_friendships_to_id"), "friendships", ["to_id"])

    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.Integer(), nullable=False),
        sa.Column("blocked_id", sa.Integer(), nullable=False),
        _timestamp("created_at"),
        _player("blocker_id", "blocks"),
        _player("blocked_id", "blocks"),
        sa.PrimaryKeyConstraint("blocker_id", "blocked_id", name=op.f("pk_blocks")),
    )
    op.create_index(op.f("ix_blocks_blocked_id"), "blocks", ["blocked_id"])


def downgrade() -> None:
    op.drop_table("blocks")
    op.drop_table("friendships")
