"""Where the tests find PostgreSQL: ``$ROMME_TEST_PG_URL``, by default the local test
server. The store's and the server's tests create their own databases there."""

from __future__ import annotations

import os

PG_DEFAULT_URL = "postgresql+asyncpg://romme:romme@127.0.0.1:5432/romme_test"


def pg_base_url() -> str:
    """The URL of the PostgreSQL server (and database) the tests start from."""
    return os.environ.get("ROMME_TEST_PG_URL", PG_DEFAULT_URL)
