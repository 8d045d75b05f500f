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
    """The current time in arborist's stored form: :func:`format_timestamp` of
    ``datetime.now(timezone.utc)``, formatted field by field (``strftime`` costs several
    times more, once per ingested document and audit event) whenever that gives the same
    text: a UTC time from year 1000 on."""
    now = datetime.now(timezone.utc)
    if now.tzinfo is not timezone.utc or now.year < 1000:  # strftime pads no year below 1000
        return format_timestamp(now)
    return (
        f"{now.year}-{now.month:02d}-{now.day:02d}T{now.hour:02d}:{now.minute:02d}:"
        f"{now.second:02d}.{now.microsecond:06d}Z"
    )
