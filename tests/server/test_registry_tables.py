"""The registry's tables, indexed by host as they come and go."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, cast

import pytest

from romme.server.registry import Tables


@dataclass(frozen=True)
class _Hosted:
    """What the index reads of a table: its id and its host."""

    id: int
    host_id: int


def _put(tables: Tables, table: _Hosted) -> None:
    tables[table.id] = cast(Any, table)


def test_the_host_index_follows_every_way_a_table_comes_and_goes() -> None:
    rng = random.Random(3)
    tables = Tables()
    for step in range(2000):
        table_id = rng.randrange(60)
        way = rng.randrange(4)
        if way == 0:
            _put(tables, _Hosted(table_id, rng.randrange(8)))  # new, or replaced
        elif way == 1:
            tables.pop(table_id, None)
        elif way == 2 and table_id in tables:
            del tables[table_id]
        else:
            _put(tables, _Hosted(table_id, rng.randrange(8)))
        if step % 50 == 0:
            for host in range(8):
                expected = sorted(t.id for t in tables.values() if t.host_id == host)
                assert [t.id for t in tables.hosted_by(host)] == expected


def test_pop_without_a_default_raises_for_a_table_not_there() -> None:
    tables = Tables()
    _put(tables, _Hosted(1, 7))
    assert tables.pop(1).id == 1 and tables.hosted_by(7) == []
    assert tables.pop(1, "gone") == "gone"
    with pytest.raises(KeyError):
        tables.pop(1)
