"""Moderation: reports of players, the moderators, mutes and bans, and the
moderation log.

Revision ID: r0004
Revises: r0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "r0004"
down_revision: str | Sequence[str] | None = "r0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _player(column: str, table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["players.id"], name=op.f(f"fk_{table}_{column}_players")
    )


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("reported_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("chat", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        _timestamp("created_at"),
        _timestamp("resolved_at", nullable=True),
        sa.Column("resolved_by", sa.String(length=80), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        _player("reporter_id", "reports"),
        _player("reported_id", "reports"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
    )
    for column in ("reporter_id", "reported_id", "status"):
        op.create_index(op.f(f"ix_reports_{column}"), "reports", [column])
    op.create_table(
        "moderators",
        sa.Column("player_id", sa.Integer(), nullable=False),
        _timestamp("granted_at"),
        _player("player_id", "moderators"),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_moderators")),
    )
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        _timestamp("until", nullable=True),
        _timestamp("created_at"),
        _timestamp("lifted_at", nullable=True),
        _player("player_id", "sanctions"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sanctions")),
    )
    op.create_index("ix_sanctions_player_id_kind", "sanctions", ["player_id", "kind"])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(length=80), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("target", sa.String(length=80), nullable=True),
        sa.Column("report_id", sa.Integer(), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        _timestamp("created_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moderation_log")),
    )
    op.create_index(op.f("ix_moderation_log_created_at"), "moderation_log", ["created_at"])


def downgrade() -> None:
    op.drop_table("moderation_log")
    op.drop_table("sanctions")
    op.drop_table("moderators")
    op.drop_table("reports")
