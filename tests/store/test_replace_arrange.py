"""``Store.replace_arrange`` on SQLite and PostgreSQL: an arrange takes the place of
the same seat's arrange after the log's last move, and only there (anything else
would make the log rebuild another game), under the table's lease."""

from __future__ import annotations

from typing import Any

import pytest

from romme.engine.rules import Rules
from romme.store import Store

from .helpers import refused

SEED = bytes(range(32))
SETTINGS = {"preset": "classic", "access": "open", "seats": 2}
SEATS: list[dict[str, Any]] = [
    {"player": 1, "nickname": "Anna", "bot": None},
    {"player": 2, "nickname": "Ben", "bot": None},
]


def _arrange(seat: int, order: str) -> dict[str, Any]:
    return {"type": "arrange", "seat": seat, "cards": order.split()}


@pytest.mark.asyncio
async def test_an_arrange_replaces_the_seats_last_one_only(store: Store) -> None:
    host = await store.create_guest("Anna")
    table_id = await store.create_table(host.id, SETTINGS, Rules.classic().to_json(), SEATS, SEED)
    await store.append_actions(table_id, 1, [{"type": "next_round", "by": "table"}])
    await store.append_actions(table_id, 2, [_arrange(0, "2C 3C")])
    await store.append_actions(table_id, 3, [_arrange(1, "4D 5D")])
    # Seat 0 sorts again: its arrange at version 2 takes the new order, past
    # seat 1's arrange at version 3.
    await store.replace_arrange(table_id, 2, _arrange(0, "3C 2C"))
    await store.replace_arrange(table_id, 3, _arrange(1, "5D 4D"))
    record = await store.get_table(table_id)
    assert record is not None
    assert [a.get("cards") for a in record.actions] == [None, ["3C", "2C"], ["5D", "4D"]]

    # Not another seat's arrange, not a move, not past a move, not a missing version.
    await refused(store, "bad_message", store.replace_arrange(table_id, 3, _arrange(0, "2C 3C")))
    await refused(store, "bad_message", store.replace_arrange(table_id, 1, _arrange(0, "2C 3C")))
    await refused(
        store, "bad_message", store.replace_arrange(table_id, 2, {"type": "draw", "seat": 0})
    )
    await refused(store, "version_conflict", store.replace_arrange(table_id, 9, _arrange(0, "2C")))
    await refused(store, "bad_message", store.replace_arrange(table_id, 0, _arrange(0, "2C")))
    await refused(store, "no_such_table", store.replace_arrange(999, 2, _arrange(0, "2C")))
    await store.append_actions(table_id, 4, [{"type": "draw", "seat": 0, "source": "stock"}])
    await refused(store, "bad_message", store.replace_arrange(table_id, 2, _arrange(0, "2C 3C")))
    # A node whose lease is gone replaces nothing.
    epoch = await store.claim_table(table_id, "node-a", 30, 0)
    assert epoch is not None
    await store.append_actions(table_id, 5, [_arrange(0, "2C 3C")], epoch=epoch)
    await refused(
        store,
        "lease_lost",
        store.replace_arrange(table_id, 5, _arrange(0, "3C 2C"), epoch=epoch - 1),
    )
    await store.replace_arrange(table_id, 5, _arrange(0, "3C 2C"), epoch=epoch)
    record = await store.get_table(table_id)
    assert record is not None
    assert [a.get("cards") for a in record.actions][1:] == [
        ["3C", "2C"],
        ["5D", "4D"],
        None,
        ["3C", "2C"],
    ]
