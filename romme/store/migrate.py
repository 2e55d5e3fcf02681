"""Applying the schema migrations (Alembic, shipped in ``romme/store/migrations``)."""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

__all__ = ["MIGRATIONS", "alembic_config", "upgrade_to_head"]

MIGRATIONS = Path(__file__).resolve().with_name("migrations")


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    """An Alembic configuration for the store's migrations, without an ini file."""
    config = Config(stdout=sys.stdout)  # the stream of now, not of Alembic's import
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade_to_head(connection: Connection) -> None:
    """Bring the database behind ``connection`` to the newest schema, inside the
    connection's current transaction."""
    command.upgrade(alembic_config(connection=connection), "head")
