"""The play-money ledger: chip accounts (players, the house, each game's escrow)
and every movement between them.

Revision ID: r0007
Revises: r0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "r0007"
down_revision: str | Sequence[str] | None = "r0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HOUSE_FLOAT = 1_000_000_000
"""The house's grant (``romme.store.ledger.HOUSE_FLOAT`` when this was written)."""


def upgrade() -> None:
    op.create_table(
        "chip_accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("cost_percent", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("balance >= 0", name=op.f("ck_chip_accounts_balance_not_negative")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_chip_accounts_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_chip_accounts_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chip_accounts")),
        sa.UniqueConstraint("player_id", name=op.f("uq_chip_accounts_player_id")),
        sa.UniqueConstraint("table_id", name=op.f("uq_chip_accounts_table_id")),
    )
    op.create_table(
        "chip_movements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("from_account", sa.Integer(), nullable=True),
        sa.Column("to_account", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("amount > 0", name=op.f("ck_chip_movements_amount_positive")),
        sa.ForeignKeyConstraint(
            ["from_account"],
            ["chip_accounts.id"],
            name=op.f("fk_chip_movements_from_account_chip_accounts"),
        ),
        sa.ForeignKeyConstraint(
            ["to_account"],
            ["chip_accounts.id"],
            name=op.f("fk_chip_movements_to_account_chip_accounts"),
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_chip_movements_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chip_movements")),
        sa.UniqueConstraint(
            "table_id",
            "reason",
            "from_account",
            "to_account",
            name=op.f("uq_chip_movements_table_id_reason_from_account_to_account"),
        ),
    )
    op.create_index(
        "ix_chip_movements_to_account_id", "chip_movements", ["to_account", "id"], unique=False
    )
    op.create_index(
        "ix_chip_movements_from_account_id", "chip_movements", ["from_account", "id"], unique=False
    )
    op.create_index(
        op.f("ix_chip_movements_created_at"), "chip_movements", ["created_at"], unique=False
    )
    # The house, with its float recorded as a grant like every chip that enters.
    created = datetime(2026, 12, 1, tzinfo=UTC)
    accounts = sa.table(
        "chip_accounts",
        sa.column("kind", sa.String()),
        sa.column("balance", sa.BigInteger()),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    op.bulk_insert(accounts, [{"kind": "house", "balance": HOUSE_FLOAT, "created_at": created}])
    op.execute(
        sa.text(
            "INSERT INTO chip_movements (to_account, amount, reason, created_at) "
            "SELECT id, balance, 'grant', created_at FROM chip_accounts WHERE kind = 'house'"
        )
    )


def downgrade() -> None:
    op.drop_table("chip_movements")
    op.drop_table("chip_accounts")
