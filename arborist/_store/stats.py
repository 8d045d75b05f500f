"""What ``arborist stats`` counts in store.db, read in one snapshot.

The counts are grouped reads of the store's own tables; the cache's state
counts come from the cache's owner, co-access counts from
:mod:`arborist._store.coaccess`. Nothing here writes.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from arborist._database.db import snapshot
from arborist._proofs.audit import event_count
from arborist._store import coaccess
from arborist._store.cache.records import STATES, counts_by_state, total_hits
from arborist._store.schema import TIERS

__all__ = ["store_counts"]


def _grouped(conn: sqlite3.Connection, sql: str) -> dict[str, int]:
    return {str(key): int(count) for key, count in conn.execute(sql).fetchall()}


def store_counts(conn: sqlite3.Connection, *, related_version: str) -> dict[str, Any]:
    """Documents by kind and status, chunks per tier, records per state, hits, audit events,
    and co-access rows and edges of index ``related_version`` when the store records co-access."""
    with snapshot(conn):
        documents = _grouped(
            conn, "SELECT kind || ':' || status, count(*) FROM documents GROUP BY kind, status"
        )
        tiers = _grouped(conn, "SELECT tier, count(*) FROM chunks GROUP BY tier")
        states = counts_by_state(conn)
        out: dict[str, Any] = {
            "documents": {
                "surface": documents.get("surface:current", 0),
                "core": documents.get("core:current", 0),
                "superseded": sum(v for k, v in documents.items() if k.endswith(":superseded")),
            },
            "chunks": {tier: tiers.get(tier, 0) for tier in TIERS},
            "cache_records": {state: states.get(state, 0) for state in STATES},
            "cache_hits": total_hits(conn),
            "audit_events": event_count(conn),
        }
        if coaccess.has_schema(conn):
            out["coaccess"] = {
                **coaccess.counts(conn, related_version),
                "index_version": related_version,
            }
    return out
