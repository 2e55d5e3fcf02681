"""Shared test setup for the whole suite.

Kept small on purpose: a fixture or helper used by one folder's tests lives in that
folder's own conftest.py. Hypothesis picks its CI profile (derandomised, no deadline)
by itself when the CI environment variable is set.
"""

from __future__ import annotations

import pytest

LONGEST_FIRST = (
    "tests/bots/test_legal_play.py",
    "tests/web/test_play.py",
    "tests/web/test_between_rounds.py",
    "tests/bots/test_strength.py",
    "tests/server/test_restore_every_table.py",
    "tests/web/test_i18n_fit.py",
    "tests/web/test_account_page.py",
    "tests/engine/test_dead_ends.py",
)
"""The modules that take longest, in the order they start. `make test` hands whole
modules to its workers in the order collected; started last, these ran alone at the
end while the other workers had nothing left (the suite's last minutes)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Collect the longest modules first; the rest keep their order."""

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)
