"""Timestamps: utc_now formats the clock exactly as format_timestamp does."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from arborist import _clock as clock

MOMENTS = [
    datetime(2026, 11, 29, 12, 0, 0, 0, tzinfo=timezone.utc),
    datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc),
    datetime(1999, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc),
    datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc),
    datetime(1000, 1, 1, tzinfo=timezone.utc),
    datetime(999, 12, 31, 23, 59, 59, 123, tzinfo=timezone.utc),
    datetime(2026, 6, 1, 1, 30, tzinfo=timezone(timedelta(hours=5, minutes=30))),
    datetime(2026, 6, 1, 1, 30, tzinfo=timezone(timedelta(0))),
]


@pytest.mark.parametrize("moment", MOMENTS, ids=str)
def test_utc_now_is_format_timestamp_of_the_clock(
    monkeypatch: pytest.MonkeyPatch, moment: datetime
) -> None:
    class Fixed(datetime):
        @classmethod
        def now(cls, tz: object = None) -> datetime:  # type: ignore[override]
            return moment

    monkeypatch.setattr(clock, "datetime", Fixed)
    assert clock.utc_now() == clock.format_timestamp(moment)


def test_utc_now_has_the_stored_form() -> None:
    now = clock.utc_now()
    assert len(now) == 27 and now.endswith("Z") and now[10] == "T"
    parsed = datetime.strptime(now, clock.TIMESTAMP_FORMAT).replace(tzinfo=timezone.utc)
    assert clock.format_timestamp(parsed) == now
