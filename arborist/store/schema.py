"""Migrations of ``store.db``. Append only: never edit or renumber a released step."""

from __future__ import annotations

from arborist.audit import AUDIT_MIGRATION
from arborist.db import Migration

__all__ = ["STORE_MIGRATIONS"]

STORE_MIGRATIONS: tuple[Migration, ...] = (
    # 1: the store's own hash-chained audit log (ingest, evict, cache writes, ...).
    AUDIT_MIGRATION,
)
