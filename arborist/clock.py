"""Timestamps as arborist stores and hashes them: UTC, microseconds, ``Z``.

``2026-11-29T12:00:00.000000Z`` sorts lexically in time order and is the
form the hash vectors use. Tests that need a fixed clock patch
:func:`utc_now`; nothing else reads the system clock.
"""

from __future__ import annotations

from datetime import datetime, timezone

__all__ = ["format_timestamp", "utc_now"]

TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def format_timestamp(moment: datetime) -> str:
    """Render an aware datetime in arborist's stored form (converted to UTC)."""
    if moment.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware")
    return moment.astimezone(timezone.utc).strftime(TIMESTAMP_FORMAT)


def utc_now() -> str:
    """The current time in arborist's stored form."""
    return format_timestamp(datetime.now(timezone.utc))
