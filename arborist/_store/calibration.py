"""How near is near, for the model that made the vectors: a question's floor and the
model's spread, both read from the corpus.

Each embedding model has its own scale of cosines. all-MiniLM-L6-v2 puts a question and a
passage about something else at about 0.05 and a passage that answers it at 0.5;
multilingual-e5-small puts the same two at about 0.8 and 0.88 (measured on the built-in
corpus; bench/remote_lane.py prints the figures). A threshold of cosine is a threshold for
one model: 0.4, right for MiniLM, is under everything e5 says.

So nearness is read in two steps, neither of which names a model:

* **Floor**: the question's own noise. The median of its cosines with the searchable
  vectors of the corpus (most passages are about something else, so their median is the
  cosine of "unrelated", for this model, this question and this corpus). ``(cosine -
  floor) / (1 - floor)`` is then 0 as near as noise and 1 the question's own text: it takes
  out the share every vector of an anisotropic model has in common (e5's 0.8).
* **Spread**: how far above its floor the model ever sets a text near another, read from
  the corpus alone. Up to :data:`PROBES` of the searchable passages, evenly spaced, are
  each scored against the sample, and each one's :data:`QUANTILE` (its nearest
  thousandth) is put on its own floor's scale as above; the spread is the median of
  those (on the built-in corpus MiniLM 0.69, e5-small 0.64, wordllama 0.69, the
  character n-gram stand-in 0.60). It is computed once per profile and corpus
  generation (memoised per connection, as the search matrix is).

A passage's calibrated nearness is ``(cosine - floor) / ((1 - floor) * spread)``: 1 as far
above the question's noise as a passage's nearest thousandth is above its own. The
answerer's thresholds (:mod:`arborist._qa.extractive`) are on that scale, for every model.

Why the nearest thousandth, not the nearest hundredth (``spread-p99-v1``): the answerer
weighs the *nearest* of thousands of passages, an extreme of the question's cosines, and
models differ most in how far out their extremes lie. A transformer (MiniLM, e5) sets
its nearest thousandth about 1.5 times as far above noise as its nearest hundredth; a
model of word pieces (the n-gram stand-in: 1.9) or of static token vectors (wordllama:
1.7) has heavier tails, so a question about nothing in the corpus ("blorp the
frobnicator with three zorbles") still finds a passage far out in them, by shared
pieces. Read at the hundredth, their scale was too short: their nearest passage for
such a question reached the refusal threshold, and they refused 0.65 and 0.63 of the
unanswerable set where MiniLM refused 0.73. Read at the thousandth, the scale follows
the tail the answerer reads from, and they refuse 0.765 and 0.725 (bench/quality.py; the
thresholds moved by MiniLM's own ratio, and 0.96 of it for e5, whose thousandth lies 1.69
times as far out as its hundredth: MiniLM and e5 refuse as before).

Everything is scored exactly (float64) over at most :data:`SAMPLE` vectors, every k-th of
the searchable ones in their stored order: the same on every machine for the same store.
The calibration changes what the answerer says, so the runner puts it in the ask's policy
(:meth:`Calibration.policy`, so in the cache key) and hands the answerer nearness computed
from those very rounded figures: an answer is a function of its key.
"""

from __future__ import annotations

import sqlite3
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arborist._database.db import snapshot
from arborist._store.memo import generation
from arborist._store.vectors import Matrix, searchable_sample

__all__ = [
    "Calibration",
    "METHOD",
    "PROBES",
    "QUANTILE",
    "SAMPLE",
    "corpus_spread",
    "question_calibration",
]

METHOD = "floor-median/spread-p999-v2"
"""The calibration's name in the policy: a changed rule is a new key."""

SAMPLE = 8192
"""The most vectors a floor's median (or a probe's quantile) is taken over (its error is
then about 0.01 of the spread of the cosines)."""

PROBES = 256
"""The most passages of the corpus whose cosines give the model's spread."""

QUANTILE = 99.9
"""The percentile of a probe's cosines that stands for "near" in :func:`corpus_spread` (the
module docstring: 99 until ``spread-p999-v2``)."""


@dataclass(frozen=True)
class Calibration:
    """One question's calibration: its ``floor`` (three places) and the ``scale`` a cosine
    above it is divided by, ``(1 - floor) * spread`` (four places)."""

    floor: float
    scale: float

    def nearness(self, cosines: Sequence[float]) -> tuple[float, ...]:
        """Each cosine on the calibrated scale, rounded to four places (a scale of 0 or
        less, a model that says everything is the same, leaves nothing near: every 0)."""
        if self.scale <= 0.0:
            return tuple(0.0 for _ in cosines)
        return tuple(round((c - self.floor) / self.scale, 4) for c in cosines)

    def policy(self) -> dict[str, str]:
        """The calibration as the policy records it (in the cache key)."""
        return {"method": METHOD, "floor": f"{self.floor:.3f}", "scale": f"{self.scale:.4f}"}

    @classmethod
    def from_policy(cls, entry: Mapping[str, object]) -> Calibration | None:
        """The calibration a policy recorded, or None when it is not one of this method."""
        try:
            if entry.get("method") != METHOD:
                return None
            return cls(float(str(entry["floor"])), float(str(entry["scale"])))
        except (KeyError, ValueError):
            return None


def question_calibration(conn: sqlite3.Connection, profile: str, query: Matrix) -> Calibration:
    """The calibration of ``query`` against the searchable vectors of ``profile``: its floor
    (the median of its cosines with at most :data:`SAMPLE` of them), and the scale from
    the corpus's spread; floor 0 and scale 1 (raw cosines) when there are none, or they are
    of another dimension."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    sample = _sample(conn, profile)
    vector = np.asarray(query, dtype=np.float64).reshape(-1)
    if sample.shape[0] == 0 or vector.shape[0] != sample.shape[1]:
        return Calibration(0.0, 1.0)
    floor = round(float(np.median(sample @ vector)), 3)
    scale = round((1.0 - floor) * corpus_spread(conn, profile), 4)
    return Calibration(floor, scale)


_SPREADS: weakref.WeakKeyDictionary[sqlite3.Connection, dict[str, tuple[int, float]]] = (
    weakref.WeakKeyDictionary()
)


def corpus_spread(conn: sqlite3.Connection, profile: str) -> float:
    """The model's spread in this corpus (the module docstring), four places: computed once
    per connection, profile and generation. 1.0 (no rescaling) with fewer than two vectors,
    or none above their floor."""
    with snapshot(conn):
        at = generation(conn)
        try:
            held = _SPREADS.setdefault(conn, {})
        except TypeError:  # a plain sqlite3 connection cannot be weakly referenced
            held = {}
        found = held.get(profile)
        if found is not None and found[0] == at:
            return found[1]
        spread = _spread(_sample(conn, profile))
    held.clear()  # one profile at a time, as the search matrix
    held[profile] = (at, spread)
    return spread


def _sample(conn: sqlite3.Connection, profile: str) -> Any:
    with snapshot(conn):
        return searchable_sample(conn, profile, SAMPLE)


def _spread(sample: Any) -> float:
    import numpy as np  # noqa: PLC0415

    total = sample.shape[0]
    if total < 2:
        return 1.0
    probes = np.arange(0, total, -(-total // PROBES))
    scores = sample[probes] @ sample.T
    scores[np.arange(probes.size), probes] = np.inf  # a probe is not its own neighbour:
    scores.sort(axis=1)  # its own score sorts last, and is left out
    floors = np.median(scores[:, :-1], axis=1)
    near = np.percentile(scores[:, :-1], QUANTILE, axis=1)
    room = 1.0 - floors
    kept = room > 0
    if not kept.any():
        return 1.0
    spread = float(np.median((near[kept] - floors[kept]) / room[kept]))
    return round(spread, 4) if spread > 0 else 1.0
