"""The initial schema: players, tables and their action logs, game results and
seats, chat messages, invitations.

Revision ID: r0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "r0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("nickname", sa.String(length=80), nullable=False),
        sa.Column("nickname_key", sa.String(length=80), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("guest", sa.Boolean(), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("bot_level", sa.String(length=20), nullable=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games_played", sa.Integer(), nullable=False),
        sa.Column("games_won", sa.Integer(), nullable=False),
        _timestamp("created_at"),
        _timestamp("registered_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("bot_level", name=op.f("uq_players_bot_level")),
        sa.UniqueConstraint("nickname_key", name=op.f("uq_players_nickname_key")),
    )
    op.create_index(op.f("ix_players_rating"), "players", ["rating"])

    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host_id", sa.Integer(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("match_seed", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        _timestamp("created_at"),
        _timestamp("started_at", nullable=True),
        _timestamp("finished_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["host_id"], ["players.id"], name=op.f("fk_game_tables_host_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_tables")),
    )
    op.create_index(op.f("ix_game_tables_host_id"), "game_tables", ["host_id"])
    op.create_index(op.f("ix_game_tables_status"), "game_tables", ["status"])

    op.create_table(
        "table_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        _timestamp("created_at"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_table_actions_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_actions")),
        sa.UniqueConstraint("table_id", "version", name=op.f("uq_table_actions_table_id_version")),
    )

    op.create_table(
        "game_results",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("winners", sa.JSON(), nullable=False),
        sa.Column("totals", sa.JSON(), nullable=False),
        sa.Column("seat_players", sa.JSON(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("rating_changes", sa.JSON(), nullable=False),
        _timestamp("finished_at"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_game_results_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_game_results")),
    )

    op.create_table(
        "game_seats",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=True),
        sa.Column("rating_after", sa.Float(), nullable=True),
        _timestamp("finished_at"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_game_seats_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_game_seats_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", "seat", name=op.f("pk_game_seats")),
    )
    op.create_index(
        "ix_game_seats_player_id_finished_at", "game_seats", ["player_id", "finished_at"]
    )

    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        _timestamp("created_at"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_chat_messages_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_chat_messages_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_messages")),
    )
    op.create_index("ix_chat_messages_table_id_id", "chat_messages", ["table_id", "id"])

    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("from_id", sa.Integer(), nullable=False),
        sa.Column("to_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("expires_at_ms", sa.BigInteger(), nullable=False),
        _timestamp("created_at"),
        _timestamp("answered_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["from_id"], ["players.id"], name=op.f("fk_invitations_from_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name=op.f("fk_invitations_table_id_game_tables"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["to_id"], ["players.id"], name=op.f("fk_invitations_to_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invitations")),
    )
    op.create_index(op.f("ix_invitations_from_id"), "invitations", ["from_id"])
    op.create_index(op.f("ix_invitations_table_id"), "invitations", ["table_id"])
    op.create_index(op.f("ix_invitations_to_id"), "invitations", ["to_id"])


def downgrade() -> None:
    for table in (
        "invitations",
        "chat_messages",
        "game_seats",
        "game_results",
        "table_actions",
        "game_tables",
        "players",
    ):
        op.drop_table(table)
