"""Sanctions that follow a person, and reports weighed by address: the reporter's
address (hashed) on each report, the players of the moderation log by id, the
nickname a sanction was given under, the sanction one followed from, what a
sanction follows (hashes of addresses and browser marks) and the browsers each
player signed in from.

Revision ID: r0009
Revises: r0008
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "r0009"
down_revision: str | Sequence[str] | None = "r0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    # Plain nullable columns: SQLite adds them in place (no copy of the table).
    op.add_column("reports", sa.Column("address_key", sa.String(length=64), nullable=True))
    op.create_index(op.f("ix_reports_address_key"), "reports", ["address_key"])
    op.add_column("sanctions", sa.Column("nickname", sa.String(length=80), nullable=True))
    op.add_column("sanctions", sa.Column("source_id", sa.Integer(), nullable=True))
    op.create_index(op.f("ix_sanctions_source_id"), "sanctions", ["source_id"])
    op.add_column("moderation_log", sa.Column("actor_id", sa.Integer(), nullable=True))
    op.add_column("moderation_log", sa.Column("target_id", sa.Integer(), nullable=True))
    op.create_index(op.f("ix_moderation_log_target_id"), "moderation_log", ["target_id"])
    op.create_table(
        "sanction_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sanction_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("value_hash", sa.String(length=64), nullable=False),
        _timestamp("until", nullable=True),
        sa.ForeignKeyConstraint(
            ["sanction_id"],
            ["sanctions.id"],
            name=op.f("fk_sanction_links_sanction_id_sanctions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sanction_links")),
        sa.UniqueConstraint(
            "sanction_id",
            "kind",
            "value_hash",
            name=op.f("uq_sanction_links_sanction_id_kind_value_hash"),
        ),
    )
    op.create_index(op.f("ix_sanction_links_value_hash"), "sanction_links", ["value_hash"])
    op.create_table(
        "browser_marks",
        sa.Column("mark_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        _timestamp("last_seen_at"),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_browser_marks_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("mark_hash", "player_id", name=op.f("pk_browser_marks")),
    )
    op.create_index(op.f("ix_browser_marks_player_id"), "browser_marks", ["player_id"])


def downgrade() -> None:
    op.drop_table("browser_marks")
    op.drop_table("sanction_links")
    # Not in a batch (see r0008): SQLite drops a column in place.
    op.drop_index(op.f("ix_moderation_log_target_id"), table_name="moderation_log")
    op.drop_column("moderation_log", "target_id")
    op.drop_column("moderation_log", "actor_id")
    op.drop_index(op.f("ix_sanctions_source_id"), table_name="sanctions")
    op.drop_column("sanctions", "source_id")
    op.drop_column("sanctions", "nickname")
    op.drop_index(op.f("ix_reports_address_key"), table_name="reports")
    op.drop_column("reports", "address_key")
