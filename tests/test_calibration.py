"""Nearness read against the question's noise floor (arborist/store/calibration.py), so that
no model's cosine scale decides for another.

The model of tests/test_followed.py (words mapped to a few concepts) is used as it is, and
*anisotropic*: every vector pulled towards one shared direction, so that any two texts are
at 0.75 or more, as e5's are (a question about football is 0.75 near a function that copies
files). Raw cosines against one constant would answer everything with that model; read
against each question's floor in the corpus, the two models answer and refuse alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arborist.app import Arborist
from arborist.qa.runner import vector_query
from arborist.qa.support import NOT_ANSWERED_OPENING
from arborist.store.calibration import calibrated, question_floor
from arborist.store.passages import passages
from arborist.store.vectors import embed_missing, passage_nearness, profile_key, put_vectors
from tests.test_followed import PYDOC, ConceptEmbedder

NOTES = [
    "The weather today is mild with a light wind from the west.",
    "Our garden has roses, tulips and a small apple tree.",
    "The museum opens at nine and closes at six on weekdays.",
    "Bread rises best in a warm kitchen before it is baked.",
    "The train to the coast leaves twice an hour in summer.",
]


class Anisotropic(ConceptEmbedder):
    """The concept model with every vector mixed into one shared direction (weight 0.87):
    the same order of nearness, on a scale where unrelated texts are 0.75 apart."""

    def profile(self) -> dict[str, object]:
        return {**super().profile(), "model": "concepts-anisotropic-v1", "dimensions": "7"}

    def embed(self, texts: Sequence[str]) -> Any:
        inner = np.asarray(super().embed(texts), dtype=np.float64)
        shared = np.full((inner.shape[0], 1), math.sqrt(0.75))
        return np.hstack([inner * 0.5, shared]).astype(np.float32)


@pytest.fixture
def home(tmp_path: Path) -> Arborist:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tinylib.txt").write_text(PYDOC)
    for i, note in enumerate(NOTES):
        (docs / f"note{i}.md").write_text(f"# Note {i}\n\n{note}\n")
    app = Arborist(tmp_path / "home")
    app.ingest([docs])
    for embedder in (ConceptEmbedder(), Anisotropic()):
        embed_missing(app.store_conn, embedder)
    return app


def _ask(app: Arborist, question: str, embedder: ConceptEmbedder) -> str:
    app.embedder = lambda: embedder  # type: ignore[method-assign]
    try:
        return app.ask(question, use_cache=False).answer
    finally:
        del app.embedder


QUESTIONS = [
    "how do i pick one at random out of a list",
    "which team won the football cup",
    "What does tinylib.insort do?",
]


def test_an_anisotropic_model_answers_and_refuses_as_the_isotropic_one(home: Arborist) -> None:
    with home:
        plain = [_ask(home, q, ConceptEmbedder()) for q in QUESTIONS]
        skewed = [_ask(home, q, Anisotropic()) for q in QUESTIONS]
    assert plain[0].startswith("choice(seq): Choose a random element")
    assert plain[1].startswith(NOT_ANSWERED_OPENING)
    assert skewed == plain


def test_raw_cosines_of_the_anisotropic_model_would_pass_any_constant_floor(
    home: Arborist,
) -> None:
    """What the calibration is for: the football question's raw cosines are all 0.75 or
    more, MiniLM's old 0.4 and 0.5 included; calibrated, they are near 0."""
    embedder = Anisotropic()
    with home:
        conn = home.store_conn
        query = vector_query(embedder, "which team won the football cup")
        assert query is not None
        leaf = conn.execute("SELECT leaf FROM chunks WHERE text LIKE '%insort%'").fetchone()[0]
        raw = passage_nearness(conn, query.profile, query.vector, leaf)
        floor = question_floor(conn, query.profile, query.vector)
        assert min(raw) >= 0.74 and floor >= 0.74
        assert max(calibrated(raw, floor)) < 0.1


def test_the_floor_is_the_median_cosine_of_the_searchable_vectors(tmp_path: Path) -> None:
    with Arborist(tmp_path / "home") as app:
        docs = tmp_path / "notes"
        docs.mkdir()
        for i, note in enumerate(NOTES):
            (docs / f"note{i}.md").write_text(f"# Note {i}\n\n{note}\n")
        app.ingest([docs])
        conn = app.store_conn
        keys = [
            f"{leaf}#{n}"
            for leaf, text in conn.execute("SELECT DISTINCT leaf, text FROM chunks ORDER BY id")
            for n in range(len(passages(text)))
        ]
        angles = np.linspace(0.1, 1.4, len(keys))
        vectors = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=1)
        profile = {"model": "fixed", "passages": "definitions-v2"}
        put_vectors(conn, profile, keys, vectors.astype(np.float32))
        key = profile_key(profile)
        query = np.array([1.0, 0.0, 0.0])
        cosine = dict(zip(keys, np.cos(angles), strict=True))
        searched = [  # every hot chunk's passages: a text in two chunks counts twice
            c
            for (leaf,) in conn.execute("SELECT leaf FROM chunks WHERE tier = 'hot'")
            for k, c in cosine.items()
            if k.startswith(f"{leaf}#")
        ]
        expected = float(np.median(searched))
        assert question_floor(conn, key, query) == pytest.approx(expected, abs=1e-3)
        assert question_floor(conn, "no such profile", query) == 0.0
    assert calibrated((0.5, 1.0, 0.2), 0.5) == (0.0, 1.0, -0.6)
    assert calibrated((0.9,), 1.0) == (0.0,)
