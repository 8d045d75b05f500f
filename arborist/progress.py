"""How a long job shows its progress: a *track* wraps the iterable the job walks (tqdm in a
terminal, tqdm.auto in a notebook); :func:`untracked` is the one that shows nothing. Pure."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

__all__ = ["Track", "untracked"]

T = TypeVar("T")

Track = Callable[[Iterable[T]], Iterable[T]]
"""Wraps an iterable to show progress (tqdm in a terminal, tqdm.auto in a notebook)."""


def untracked(items: Iterable[T]) -> Iterable[T]:
    """``items`` as they are: a job that shows no progress."""
    return items
