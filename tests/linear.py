"""Linear-time checks, shared by the test files of the gate's rounds and of chunking.

A reading that is linear takes about eight times as long on eight times the text; one that
matches a pattern from every character of a long line, or reads a line once per cue, takes
about sixty-four. Each side is the best of three runs of this process's CPU time: another
process's load adds to wall time (under make test's workers a linear family's 8x read 28x and
44x by the clock) but not to this. The bound, 24, is three times what linear reads, so a
loaded machine's noise does not fail it (at 4x and a bound of 9, one run under make test's
three workers read 10.9).
"""

from __future__ import annotations

import time
from collections.abc import Callable

BOUND = 24
"""How many times longer eight times the text may take."""
FLOOR = 0.002
"""The fewest seconds the small side counts as: a reading too quick to time is not divided by
its noise."""


def cpu_seconds(work: Callable[[], object], repeat: int = 3) -> float:
    """The best of ``repeat`` runs of ``work``, in this process's CPU seconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def eightfold(read: Callable[[str], object], text: str) -> tuple[float, float]:
    """The CPU seconds of ``read`` on ``text`` and on eight times it."""
    return cpu_seconds(lambda: read(text)), cpu_seconds(lambda: read(text * 8))


def linear(small: float, large: float) -> bool:
    """Whether eight times the text took under :data:`BOUND` times as long."""
    return large < BOUND * max(small, FLOOR)
