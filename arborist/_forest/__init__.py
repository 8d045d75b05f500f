"""The conversation forest (``sessions.db``): sessions, nodes, their audit chain."""

__all__: list[str] = []
