"""Sessions that can be listed and revoked, the counters of the login and
account-creation limits, and each nickname's skeleton (what it looks like), so
that no new nickname may look like an existing one.

The skeletons of the existing players are computed here with
``romme.store.lookalikes.skeleton`` as it is when the migration runs.

Revision ID: r0002
Revises: r0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from romme.store.lookalikes import skeleton

revision: str = "r0002"
down_revision: str | Sequence[str] | None = "r0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("nickname_skeleton", sa.String(length=160), nullable=True))
    players = sa.table(
        "players",
        sa.column("id", sa.Integer()),
        sa.column("nickname", sa.String()),
        sa.column("nickname_skeleton", sa.String()),
    )
    bind = op.get_bind()
    for player_id, nickname in bind.execute(sa.select(players.c.id, players.c.nickname)).all():
        bind.execute(
            players.update()
            .where(players.c.id == player_id)
            .values(nickname_skeleton=skeleton(nickname))
        )
    with op.batch_alter_table("players") as batch:
        batch.alter_column("nickname_skeleton", existing_type=sa.String(length=160), nullable=False)
        batch.create_index(op.f("ix_players_nickname_skeleton"), ["nickname_skeleton"])

    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("user_agent", sa.String(length=200), nullable=False),
        _timestamp("created_at"),
        _timestamp("last_seen_at"),
        _timestamp("expires_at"),
        _timestamp("revoked_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_sessions_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
    )
    op.create_index(op.f("ix_sessions_player_id"), "sessions", ["player_id"])
    op.create_index(op.f("ix_sessions_expires_at"), "sessions", ["expires_at"])

    op.create_table(
        "rate_counters",
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        _timestamp("started_at"),
        _timestamp("updated_at"),
        _timestamp("blocked_until", nullable=True),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_rate_counters")),
    )
    op.create_index(op.f("ix_rate_counters_updated_at"), "rate_counters", ["updated_at"])


def downgrade() -> None:
    op.drop_table("rate_counters")
    op.drop_table("sessions")
    with op.batch_alter_table("players") as batch:
        batch.drop_index(op.f("ix_players_nickname_skeleton"))
        batch.drop_column("nickname_skeleton")
