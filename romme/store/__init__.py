"""Persistence for the game server: accounts, tables and their action logs, finished
games with statistics and ratings, chat and invitations, on SQLite or PostgreSQL.

Everything goes through :class:`Store` (``await Store.open(url)``); see docs/store.md.
"""

from romme.store.accounts import validate_nickname
from romme.store.errors import StoreError
from romme.store.records import PlayerRecord, TableRecord
from romme.store.store import Store

__all__ = ["PlayerRecord", "Store", "StoreError", "TableRecord", "validate_nickname"]
