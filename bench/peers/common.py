"""What every peer benchmark shares: a row of the results table, timing helpers, the corpus.

The corpus is bench/store.py's: deterministic prose from a Zipf-weighted
vocabulary of pseudo-words, so query terms range from "everywhere" to "in
one turn" and every run sees the same data.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.store import Vocabulary, make_vocabulary  # noqa: E402

__all__ = [
    "ROOT",
    "Row",
    "Vocabulary",
    "best_of",
    "compact_bytes",
    "make_vocabulary",
    "median",
    "percentile",
    "prose",
    "timed",
]


@dataclass
class Row:
    """One line of the results table: the same operation, the peer's way and ours.

    ``peer_s`` and ``ours_s`` are seconds of the statistic named in ``stat``
    (a median per operation, or the best of R for a bulk run); bytes are set
    only for the sync rows. ``notes`` become the prose under the table.
    """

    operation: str
    peer: str
    stat: str
    peer_s: float
    ours_s: float
    peer_bytes: int | None = None
    ours_bytes: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def time_ratio(self) -> float:
        """Ours over the peer's: below 1 means ours is faster."""
        return self.ours_s / self.peer_s

    @property
    def bytes_ratio(self) -> float | None:
        if self.peer_bytes is None or self.ours_bytes is None:
            return None
        return self.ours_bytes / self.peer_bytes


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The fastest of ``repeat`` calls, in seconds (the least disturbed by a noisy machine)."""
    return min(timed(fn)[0] for _ in range(repeat))


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def compact_bytes(message: object) -> int:
    """Bytes of ``message`` as compact UTF-8 JSON: what a comm message carries."""
    return len(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode())


def prose(vocab: Vocabulary, rng: random.Random, words: int) -> str:
    """A run of sentences of about ``words`` words from the vocabulary."""
    out: list[str] = []
    while len(out) < words:
        sentence = vocab.draw(rng, rng.randint(6, 18))
        out += [sentence[0].capitalize(), *sentence[1:-1], sentence[-1] + "."]
    return " ".join(out)
