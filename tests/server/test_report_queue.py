"""Reports cannot bury each other, on a real server and both databases: one
address files at most 20 reports an hour whatever its accounts, counted so that
reports sent all at once cannot slip past it; the moderators' queue groups the
open reports by reported player, weighs each by its distinct reporters (a guest
weighs less than a registered account), and pages through every group; the
reports page through every open report, none dropped."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .conftest import ServerFactory, nickname
from .helpers import Client, ServerProcess
from .test_sanction_identity import _moderator, _registered

pytestmark = pytest.mark.asyncio

PER_ADDRESS = 20


async def _guests(server: ServerProcess, prefix: str, count: int) -> list[Client]:
    return list(
        await asyncio.gather(*(Client(server, nickname(prefix)).guest() for _ in range(count)))
    )


async def _report(client: Client, target: str, reason: str = "abusive_chat") -> Any:
    return await client.http.post("/api/reports", json={"nickname": target, "reason": reason})


async def _pages(mod: Client, query: str, key: str, cursor: str, param: str) -> list[Any]:
    """Every item of a paged list, following its cursor to the end."""
    items: list[Any] = []
    after: Any = None
    for _ in range(100):
        suffix = "" if after is None else f"&{param}={after}"
        page = (await mod.http.get(f"/api/moderation?{query}{suffix}")).json()
        found = page[key]["players"] if key == "queue" else page[key]
        items += found
        after = page[key]["next"] if key == "queue" else page[cursor]
        if after is None:
            return items
    raise AssertionError("the pages never ended")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_reports_are_limited_per_address_grouped_weighed_and_paged(
    make_server: ServerFactory, backend: str
) -> None:
    server = make_server(backend, extra=["--accounts-per-hour", "0"])
    mod = await _moderator(server)
    rita = await _registered(server, "rr")  # a registered reporter
    targets = await _guests(server, "rt", 3)
    guests = await _guests(server, "rg", 4)
    flood = await _guests(server, "rf", 40)
    flood_targets = await _guests(server, "rx", 10)
    everyone = [mod, rita, *targets, *guests, *flood, *flood_targets]
    try:
        # The real reports first: T0 by Rita, T1 by one guest, T2 by three guests.
        t0, t1, t2 = (t.nickname for t in targets)
        filed = [await _report(rita, t0)]
        filed.append(await _report(guests[0], t1, "cheating"))
        filed += [await _report(g, t2) for g in guests[1:]]
        assert [f.status_code for f in filed] == [200] * 5, [f.text for f in filed]

        # Then 40 guests of the same address report at once, each its own pair:
        # exactly what is left of the address's 20 gets through.
        answers = await asyncio.gather(
            *(
                _report(g, flood_targets[n % len(flood_targets)].nickname)
                for n, g in enumerate(flood)
            )
        )
        codes = [a.status_code for a in answers]
        assert codes.count(200) == PER_ADDRESS - 5, codes
        refused = [a for a in answers if a.status_code != 200]
        assert {a.status_code for a in refused} == {429}
        assert {a.json()["error"]["code"] for a in refused} == {"too_many_reports"}
        assert all(a.json()["error"]["retry_after"] > 0 for a in refused)

        # The reports, five a page: every open report, the real ones among them.
        reports = await _pages(mod, "open=1&limit=5", "reports", "next_before", "before")
        ids = [r["id"] for r in reports]
        assert len(ids) == PER_ADDRESS == len(set(ids)) and ids == sorted(ids, reverse=True)
        first = next(r for r in reports if r["reported"] == t0)
        assert first["reporter"] == rita.nickname
        assert first["reporter_id"] == rita.player["id"]
        assert first["reported_id"] == targets[0].player["id"]
        of_t2 = await _pages(
            mod,
            f"open=1&limit=2&player={targets[2].player['id']}",
            "reports",
            "next_before",
            "before",
        )
        assert sorted(r["reporter"] for r in of_t2) == sorted(g.nickname for g in guests[1:])

        # The queue, two players a page: grouped by reported player, the heaviest
        # first, every open report in exactly one group.
        groups = await _pages(mod, "open=1&limit=2", "queue", "", "queue_after")
        by_id = {g["player_id"]: g for g in groups}
        assert len(by_id) == len(groups)
        assert sum(g["reporters"] for g in groups) == PER_ADDRESS
        weights = [g["weight"] for g in groups]
        assert weights == sorted(weights, reverse=True)
        real = [by_id[t.player["id"]] for t in targets]
        assert [(g["nickname"], g["weight"], g["reporters"]) for g in real] == [
            (t0, 2, 1),  # a registered account (new: younger than a week) weighs 2
            (t1, 1, 1),  # a guest weighs 1
            (t2, 3, 3),
        ]
        assert real[0]["new_accounts"] == 1 and real[0]["guests"] == 0
        assert real[2]["guests"] == 3 and real[1]["reasons"] == {"cheating": 1}

        # Resolving a report takes it out of its group; the others stay.
        done = await mod.http.post("/api/moderation/resolve", json={"report": first["id"]})
        assert done.status_code == 200, done.text
        groups = await _pages(mod, "open=1&limit=3", "queue", "", "queue_after")
        assert targets[0].player["id"] not in {g["player_id"] for g in groups}
        assert sum(g["reporters"] for g in groups) == PER_ADDRESS - 1

        bad = await mod.http.get("/api/moderation?open=1&queue_after=x")
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_message"
        for query in ("before=-1", "limit=x", "player=2147483648", "queue_after=1.9999999999"):
            bad = await mod.http.get(f"/api/moderation?open=1&{query}")
            assert bad.status_code == 400, query
            assert bad.json()["error"]["code"] == "bad_message", query
    finally:
        await asyncio.gather(*(c.close() for c in everyone))
