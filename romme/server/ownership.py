"""Which tables this node runs: taking them, keeping their leases, giving them up.

Every unfinished table has one owner node, recorded as a lease in the database
(:mod:`romme.store.leases`) with an epoch that each append of the table's log
must carry. A single server (no ``--redis``) is the only node: it takes every
unfinished table when it starts, as crash recovery always did, and renews the
leases now and then. In a cluster (``--redis``) a node announces itself in Redis
(:mod:`romme.server.presence`) and, every :data:`TICK` seconds:

- renews its leases (a table whose lease another node took leaves this node);
- takes the free tables: never taken, released by a draining node, their lease
  expired, or held by a node whose heartbeat is gone and that has not renewed their
  leases for :data:`SILENT` seconds. Each free table is first
  offered to one live node (``table id mod nodes``, so a dead node's tables spread
  over the others); a table still free at the next tick goes to whoever is first.

Taking a table is a compare-and-set on its epoch, then the table is rebuilt from
its action log and its timers resume from the stored deadlines (``Hub.take_over``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from romme.server.nodelink import OwnershipHost
from romme.server.presence import Presence
from romme.server.table import FINISHED

__all__ = ["LEASE_SECONDS", "TICK", "Ownership"]

log = logging.getLogger("romme.server.cluster")

LEASE_SECONDS = 10.0
"""How long a lease lasts without renewal: a node that stops (SIGKILL, cut off)
loses its tables at most this long after its last renewal (sooner if its heartbeat
expires first)."""
TICK = 2.0
"""Seconds between two renewals and looks for free tables."""
SILENT = 2 * TICK
"""A node without a heartbeat loses its tables once it has not renewed their leases
for this long (a node whose heartbeat Redis lost, e.g. in a restart, but which
renews its leases, keeps them)."""


class Ownership:
    """This node's leases, renewals and takeovers."""

    def __init__(self, hub: OwnershipHost, node: str, redis_url: str | None) -> None:
        self.hub = hub
        self.node = node
        self.presence = Presence(redis_url, node) if redis_url else None
        self.draining = False
        self.unrestored: dict[int, int] = {}
        """Tables this node took but could not rebuild, with their epochs: it keeps
        their leases (no other node of the same version would do better) until it
        stops, so that they do not wander from node to node."""
        self.loads: dict[str, int] = {}
        """The live nodes' table counts as their last heartbeats said."""
        self._seen_free: set[int] = set()
        """Free tables offered to another node at the last tick."""
        self._store_back_at: float | None = 0.0
        """Since when (``time.monotonic()``) the database has answered every tick;
        ``None`` while it does not."""

    def owned(self) -> dict[int, int]:
        """The unfinished tables this node runs, with their epochs."""
        return {
            table.id: table.epoch
            for table in self.hub.tables.values()
            if table.status != FINISHED and table.epoch is not None
        }

    def leased(self) -> dict[int, int]:
        """Every table whose lease this node holds: those it runs and those it could
        not rebuild."""
        return {**self.unrestored, **self.owned()}

    async def start(self) -> None:
        """Take this node's first tables (all of them on a single server)."""
        if self.presence is None:
            claimed_at = time.perf_counter()
            epochs = await self.hub.store.claim_all_tables(self.node, LEASE_SECONDS)
            await self.hub.take_over(epochs, claimed_at)
        else:
            await self.presence.start(0)
            await self.take_free_tables()
        self.hub.spawn(self._keep())

    async def _keep(self) -> None:
        while not self.draining:
            woken = self.presence.woken if self.presence is not None else asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), TICK)
            woken.clear()
            if self.draining:
                return
            try:
                await self.renew()
                if self.presence is not None:
                    await self.presence.beat(len(self.owned()))
                    if self._may_take():
                        await self.take_free_tables()
            except Exception as exc:  # the database is away: try again at the next tick
                log.warning("lease_renewal_failed", extra={"error": repr(exc)})
                self._store_back_at = None
            else:
                if self._store_back_at is None:
                    self._store_back_at = time.monotonic()

    def _may_take(self) -> bool:
        """Whether this node may take free tables now. After the database was away
        (for everyone, maybe) every lease may have run out: for :data:`SILENT`
        seconds after it is back a node only renews its own leases, so that each
        node keeps its tables instead of taking the others' (a node that is really
        gone loses its tables a little later)."""
        back = self._store_back_at
        return back is not None and time.monotonic() - back >= SILENT

    async def renew(self) -> None:
        """Renew this node's leases (with none, see that the database answers:
        either raises while it is away)."""
        leased = self.leased()
        if not leased and not await self.hub.store.ping():
            raise ConnectionError("the database does not answer")
        lost = await self.hub.store.renew_leases(self.node, leased, LEASE_SECONDS)
        if self.draining:
            # The node's own drain released its leases while they were being
            # renewed (a chunk at a time): they were given up, not lost.
            return
        for table_id in lost:
            if self.unrestored.pop(table_id, None) is not None:
                continue
            log.warning("lease_lost", extra={"table": table_id, "node": self.node})
            self.hub.lease_lost(table_id)

    async def take_free_tables(self) -> None:
        """Take the free tables that are this node's to take (see the module)."""
        assert self.presence is not None
        live = await self.presence.live_nodes()
        if self.draining:
            return
        if live is None:
            # Without Redis nobody knows who is alive (a missing heartbeat may be
            # Redis's fault): only expired leases are taken, by whoever is first.
            free = await self.hub.store.free_tables()
            nodes = [self.node]
        else:
            if self.hub.relay is not None:
                self.hub.relay.nodes_gone(set(live) | {self.node})
            live[self.node] = len(self.owned())
            self.loads = dict(live)
            free = await self.hub.store.free_tables(
                live_nodes=list(live), silent_for=LEASE_SECONDS - SILENT
            )
            nodes = sorted(live)
        mine: list[tuple[int, int]] = []
        for lease in free:
            if nodes[lease.table_id % len(nodes)] == self.node or lease.table_id in self._seen_free:
                mine.append((lease.table_id, lease.epoch))
        self._seen_free = {lease.table_id for lease in free} - {t for t, _ in mine}
        claimed_at = time.perf_counter()
        epochs = await self.hub.store.claim_tables(self.node, LEASE_SECONDS, dict(mine))
        if epochs:
            log.info("tables_taken", extra={"node": self.node, "tables": sorted(epochs)})
            await self.hub.take_over(epochs, claimed_at)

    def least_loaded(self) -> str:
        """The live node that runs the fewest tables (this one on a tie): where a new
        table goes."""
        loads = {**self.loads, self.node: len(self.owned())}
        if self.draining or self.presence is None or not self.presence.up:
            return self.node
        return min(loads, key=lambda node: (loads[node], node != self.node, node))

    def placed(self, node: str) -> None:
        """A new table went to ``node``: count it there until its next heartbeat."""
        if node in self.loads:
            self.loads[node] += 1

    async def drain(self) -> None:
        """This node stops (its tables stopped already): give up its leases and tell
        the other nodes, which take the tables at once."""
        self.draining = True
        with contextlib.suppress(Exception):
            await self.hub.store.release_tables(self.node)
        if self.presence is not None:
            await self.presence.leave()

    async def close(self) -> None:
        if self.presence is not None:
            await self.presence.close()

    def health(self) -> dict[str, object]:
        return {
            "node": self.node,
            "owned_tables": sorted(self.owned()),
            "redis": None if self.presence is None else self.presence.up,
        }
