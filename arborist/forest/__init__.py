"""The conversation forest (``sessions.db``): sessions, nodes, their audit chain."""

from arborist.forest.schema import SESSIONS_MIGRATIONS

__all__ = ["SESSIONS_MIGRATIONS"]
