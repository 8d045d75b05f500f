"""Migrations of ``sessions.db``, the forest shard. Append only.

The shard has no foreign key into ``store.db``: it must stay readable alone.
"""

from __future__ import annotations

from arborist.audit import AUDIT_MIGRATION
from arborist.db import Migration

__all__ = ["SESSIONS_MIGRATIONS"]

SESSIONS_MIGRATIONS: tuple[Migration, ...] = (
    # 1: the one global chain of every state change in the forest.
    AUDIT_MIGRATION,
)
