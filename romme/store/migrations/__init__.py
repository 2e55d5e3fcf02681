"""The store's Alembic migrations (``env.py`` and ``versions/``), shipped with the
package. ``Store.open`` applies them; ``python -m romme.store.migrations`` runs
Alembic's own commands against them (see docs/store.md)."""
