"""How a long job shows its progress: a *track* wraps the iterable the job walks (tqdm in a
terminal, tqdm.auto in a notebook, :func:`lines` where nothing redraws a bar: a pipe, a log
file); :func:`untracked` is the one that shows nothing. Pure: what is written, and when, is
given."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

__all__ = ["Track", "lines", "untracked"]

T = TypeVar("T")

Track = Callable[[Iterable[T]], Iterable[T]]
"""Wraps an iterable to show progress (tqdm in a terminal, tqdm.auto in a notebook)."""

EVERY = 10.0
"""Seconds between two of :func:`lines`' lines, at least (the last one is always written)."""


def untracked(items: Iterable[T]) -> Iterable[T]:
    """``items`` as they are: a job that shows no progress."""
    return items


def _clock(seconds: float) -> str:
    """``1:05:09``, ``4:10``, ``0:07``."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def lines(
    label: str,
    units: str,
    write: Callable[[str], None],
    *,
    every: float = EVERY,
    clock: Callable[[], float] = time.monotonic,
) -> Track[T]:
    """A track that writes a plain line (``embed: 12/40 batches (30%), 0:48 elapsed, about
    1:52 left``) after the first item, then at most once every ``every`` seconds, and after
    the last: progress a log keeps, where a bar's redraws would be noise."""

    def track(items: Iterable[T]) -> Iterator[T]:
        held = list(items)
        started = clock()
        last = None
        for done, item in enumerate(held, start=1):
            yield item
            now = clock()
            if last is None or now - last >= every or done == len(held):
                last = now
                spent = now - started
                left = spent / done * (len(held) - done)
                share = 100 * done // len(held)
                write(
                    f"{label}: {done}/{len(held)} {units} "
                    f"({share}%), {_clock(spent)} elapsed, about {_clock(left)} left"
                )

    return track
