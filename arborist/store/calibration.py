"""How near is near, for the model that made the vectors: a question's noise floor.

Each embedding model has its own scale of cosines. all-MiniLM-L6-v2 puts a question and a
passage about something else at about 0.05 and a passage that answers it at 0.5;
multilingual-e5-small puts the same two at about 0.75 and 0.88 (measured on the built-in
corpus; bench/remote_lane.py prints the floors). A threshold of cosine is a threshold for
one model: 0.4, right for MiniLM, is under everything e5 says.

So nearness is read against the question's own noise: its *floor* is the median of its
cosines with the searchable vectors of the corpus (most passages are about something
else, so their median is the cosine of "unrelated", for this model, this question and
this corpus), and a passage's calibrated nearness is ``(cosine - floor) / (1 - floor)``:
0 as near as noise, 1 the question's own text. The answerer's thresholds
(:mod:`arborist.qa.extractive`) are on that scale, for every model.

The median is taken over at most :data:`SAMPLE` vectors, every k-th of the searchable
ones in their stored order, each scored exactly (float64): the same floor on every
machine for the same store, computed in milliseconds. It is read from the corpus at the
ask's generation: an answer served from the cache keeps the floor it was answered under
(docs/guarantees.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from arborist.db import snapshot
from arborist.store.vectors import Matrix, _exact_scores, _searchable

__all__ = ["SAMPLE", "calibrated", "question_floor"]

SAMPLE = 8192
"""The most vectors the floor's median is taken over (its error is then about 0.01 of the
spread of the question's cosines)."""


def question_floor(conn: sqlite3.Connection, profile: str, query: Matrix) -> float:
    """The median cosine of ``query`` with the searchable vectors of ``profile`` (at most
    :data:`SAMPLE` of them, evenly spaced), rounded to three places; 0.0 when there are none
    (raw cosines are then calibrated ones)."""
    import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

    with snapshot(conn):
        loaded = _searchable(conn, profile)
    total = loaded.ids.size
    vector = np.asarray(query, dtype=np.float64).reshape(-1)
    if total == 0 or vector.shape[0] != loaded.matrix.shape[1]:
        return 0.0
    step = -(-total // SAMPLE)
    scores: Any = _exact_scores(loaded.matrix, np.arange(0, total, step), vector)
    return round(float(np.median(scores)), 3)


def calibrated(cosines: Sequence[float], floor: float) -> tuple[float, ...]:
    """Each cosine on the scale of its question's noise: ``(cosine - floor) / (1 - floor)``,
    rounded to four places (a floor of 1 or more, a model that says everything is the same,
    leaves nothing near: every value 0)."""
    if floor >= 1.0:
        return tuple(0.0 for _ in cosines)
    return tuple(round((c - floor) / (1.0 - floor), 4) for c in cosines)
