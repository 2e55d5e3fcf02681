"""Alembic's command line for the store's migrations, without an ini file:

    python -m romme.store.migrations current
    python -m romme.store.migrations revision --autogenerate -m "add a column"

The database is ``$ROMME_DB_URL`` (default: the store's default SQLite file).
"""

from __future__ import annotations

import os
import sys

from alembic.config import CommandLine

from romme.store.database import DEFAULT_URL, normalise_url
from romme.store.migrate import alembic_config


def main(argv: list[str] | None = None) -> None:
    cli = CommandLine(prog="python -m romme.store.migrations")
    options = cli.parser.parse_args(argv if argv is not None else sys.argv[1:])
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    url = normalise_url(os.environ.get("ROMME_DB_URL", DEFAULT_URL))
    cli.run_cmd(alembic_config(url), options)


if __name__ == "__main__":
    main()
