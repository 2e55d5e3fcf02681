"""How the server's modules depend on one another beyond what tests/test_layering.py
checks for the whole package (no circle, file sizes): the table knows its host only
through ``TableHost``, and every client message has a handler."""

from __future__ import annotations

from romme.server.dispatch import HANDLERS
from romme.server.protocol import MESSAGES
from tests.test_layering import import_graph


def test_the_table_does_not_know_the_hub() -> None:
    graph = import_graph()
    table = [name for name in graph if name.startswith("romme.server.table")]
    assert "romme.server.table" in graph["romme.server.hub"]
    outside = {"romme.server.hub", "romme.server.lobby", "romme.server.connection"}
    for name in table:
        assert not graph[name] & outside, (name, graph[name] & outside)


def test_every_client_message_has_a_handler() -> None:
    assert set(HANDLERS) == {cls for cls, _ in MESSAGES.values()}
