"""Alembic's environment for the store.

``Store.open`` hands Alembic an open connection (``config.attributes["connection"]``)
inside its own transaction, so migrations run on SQLite and PostgreSQL alike, from
any working directory. Run by Alembic's command line (``python -m
romme.store.migrations``), it connects to ``sqlalchemy.url`` itself.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import Connection

from romme.store.database import make_engine, writer
from romme.store.models import Base, UTCDateTime

config = context.config
target_metadata = Base.metadata


def _render_item(kind: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    """Write our own column types as plain SQLAlchemy types, so that a revision does
    not import the models and stays as it was written."""
    if kind == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite can alter little in place: Alembic copies the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=_render_item,
    )


def _run(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_with_own_engine(url: str) -> None:
    engine = make_engine(url)
    try:
        async with writer(engine).begin() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database: set sqlalchemy.url or pass a connection")
    asyncio.run(_run_with_own_engine(url))


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
