"""Tests of romme.store, on SQLite and PostgreSQL."""
