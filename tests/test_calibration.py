"""Nearness read against the question's noise floor and the model's spread in the corpus
(arborist/_store/calibration.py), so that no model's cosine scale decides for another; the
calibration is in the ask's policy, so in its cache key.

The model of tests/test_followed.py (words mapped to a few concepts) is used as it is, and
*anisotropic*: every vector pulled towards one shared direction, so that any two texts are
at 0.75 or more, as e5's are (a question about football is 0.75 near a function that copies
files). Raw cosines against one constant would answer everything with that model; read
against each question's floor in the corpus, the two models answer and refuse alike. The
anisotropic model is also served on a real loopback ``/v1/embeddings`` (tests/chat_server.py)
for the tests of the key.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arborist._facade.app import Arborist
from arborist._qa.embeddings import EmbeddingsClient
from arborist._qa.nearness import vector_query
from arborist._qa.support import NOT_ANSWERED_OPENING
from arborist._store.calibration import (
    QUANTILE,
    Calibration,
    corpus_spread,
    question_calibration,
)
from arborist._store.passages import PASSAGES, passages
from arborist._store.vectors import embed_missing, passage_nearness, profile_key, put_vectors
from tests.chat_server import ChatServer
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
    more, MiniLM's old 0.4 and 0.5 included; calibrated, they are under the answerer's
    floor."""
    from arborist._qa.extractive import NEAR_FLOOR

    embedder = Anisotropic()
    with home:
        conn = home.store_conn
        query = vector_query(embedder, "which team won the football cup")
        assert query is not None
        leaf = conn.execute("SELECT leaf FROM chunks WHERE text LIKE '%insort%'").fetchone()[0]
        raw = passage_nearness(conn, query.profile, query.vector, leaf)
        calibration = question_calibration(conn, query.profile, query.vector)
        assert min(raw) >= 0.74 and calibration.floor >= 0.74
        assert max(calibration.nearness(raw)) < NEAR_FLOOR


def _fixed_store(tmp_path: Path, shared: float = 0.0) -> tuple[Arborist, str, Any, Any]:
    """A store of 40 notes whose passages are unit vectors in a plane, at angles evenly
    spaced from 0.1 to 1.4, each mixed with weight ``shared`` into one shared direction
    (the anisotropy of e5), its profile's key, the searchable vectors as the store holds
    them (float16), and a query along the plane's first axis (mixed alike)."""
    app = Arborist(tmp_path / "home")
    docs = tmp_path / "notes"
    docs.mkdir(parents=True)
    for i in range(40):
        (docs / f"note{i}.md").write_text(f"# Note {i}\n\n{NOTES[i % len(NOTES)]} ({i})\n")
    app.ingest([docs])
    conn = app.store_conn
    keys = [
        f"{leaf}#{n}"
        for leaf, text in conn.execute("SELECT DISTINCT leaf, text FROM chunks ORDER BY id")
        for n in range(len(passages(text)))
    ]
    angles = np.linspace(0.1, 1.4, len(keys))
    own, common = math.sqrt(1 - shared), np.full_like(angles, math.sqrt(shared))
    vectors = np.stack([own * np.cos(angles), own * np.sin(angles), common], axis=1)
    profile = {"model": "fixed", "passages": PASSAGES}
    put_vectors(conn, profile, keys, vectors.astype(np.float32))
    rows = {k: v.astype(np.float16).astype(np.float64) for k, v in zip(keys, vectors, strict=True)}
    searched = np.array(  # every hot chunk's passages, in chunk order: a text twice counts twice
        [
            rows[k]
            for (leaf,) in conn.execute("SELECT leaf FROM chunks WHERE tier = 'hot' ORDER BY id")
            for k in sorted(rows)
            if k.startswith(f"{leaf}#")
        ]
    )
    return app, profile_key(profile), searched, np.array([own, 0.0, math.sqrt(shared)])


def test_the_floor_is_the_median_cosine_and_the_scale_the_corpus_spread(tmp_path: Path) -> None:
    """The floor, the spread and the scale against a naive reading of their definitions."""
    app, key, searched, query = _fixed_store(tmp_path)
    with app:
        conn = app.store_conn
        floor = float(np.median(searched @ query))
        relative = []
        for i, probe in enumerate(searched):  # each passage against every other one
            others = np.delete(searched, i, axis=0) @ probe
            median = np.median(others)
            relative.append((np.percentile(others, QUANTILE) - median) / (1 - median))
        spread = float(np.median(relative))
        assert corpus_spread(conn, key) == pytest.approx(spread, abs=1e-4)
        found = question_calibration(conn, key, query)
        assert found.floor == pytest.approx(floor, abs=1e-3)
        assert found.scale == pytest.approx((1 - found.floor) * spread, abs=1e-4)
        assert question_calibration(conn, "no such profile", query) == Calibration(0.0, 1.0)
    assert Calibration(0.5, 0.25).nearness((0.5, 1.0, 0.25)) == (0.0, 2.0, -1.0)
    assert Calibration(0.9, 0.0).nearness((0.95,)) == (0.0,)
    kept = Calibration(0.804, 0.0731)
    assert Calibration.from_policy(kept.policy()) == kept
    assert Calibration.from_policy({"method": "another", "floor": "0.1", "scale": "1"}) is None


def test_a_shared_direction_changes_no_nearness(tmp_path: Path) -> None:
    """The same texts with every vector mixed 0.8 into one shared direction (every cosine
    then at 0.8 or more, as e5's) get the same nearness, to float16's rounding (0.02, or 5%): the
    floor takes the shared share out, and the spread is read on the floor's scale, so it
    does not put it back (the raw spread, 99th percentile less median, would be 0.2 of the
    other)."""
    near, spreads = [], []
    for name, shared in (("plain", 0.0), ("shared", 0.8)):
        app, key, searched, query = _fixed_store(tmp_path / name, shared)
        with app:
            cosines = searched @ query
            near.append(question_calibration(app.store_conn, key, query).nearness(cosines))
            spreads.append(corpus_spread(app.store_conn, key))
    assert min(near[1]) < 0 < max(near[1])
    assert near[1] == pytest.approx(near[0], rel=0.05, abs=0.02)
    assert spreads[1] == pytest.approx(spreads[0], abs=0.02)


@pytest.fixture
def served(home: Arborist) -> Any:
    """The anisotropic model behind a real loopback ``/v1/embeddings``, and its client."""
    model = Anisotropic()
    server = ChatServer(embed=lambda texts: model.embed(texts).tolist())  # type: ignore[arg-type]
    server.start()
    client = EmbeddingsClient(server.url, "concepts-anisotropic")
    with home:
        embed_missing(home.store_conn, client)
    try:
        yield server, client
    finally:
        server.stop()


def _asked(app: Arborist, question: str, embedder: Any) -> Any:
    app.embedder = lambda: embedder  # type: ignore[method-assign]
    try:
        return app.ask(question)
    finally:
        del app.embedder


def test_the_calibration_is_in_the_records_policy_and_a_memo_hit_keeps_it(
    home: Arborist, served: Any
) -> None:
    """The record's policy holds the calibration the answer was made under (so the key
    does); asked again at the same generation the memo serves it without embedding."""
    server, client = served
    question = "how do i pick one at random out of a list"
    with home:
        first = _asked(home, question, client)
        query = vector_query(client, question)
        assert query is not None
        expected = question_calibration(home.store_conn, query.profile, query.vector)
        assert first.record.policy["hybrid"]["calibration"] == expected.policy()
        assert first.answer.startswith("choice(seq): Choose a random element")
        before = server.embed_requests
        again = _asked(home, question, client)
    assert again.hit and again.cache_key == first.cache_key
    assert server.embed_requests == before  # no embedding on a memo hit


def test_a_corpus_that_moves_the_calibration_around_the_same_evidence_is_a_miss(
    home: Arborist, served: Any, tmp_path: Path
) -> None:
    """Documents far from the question, never retrieved for it, move its floor and the
    corpus's spread: the evidence is the same, the calibration is not, so the key is not;
    the ask is answered afresh under the new calibration instead of served from the old."""
    _, client = served
    question = "how do i pick one at random out of a list"
    with home:
        first = _asked(home, question, client)
        more = tmp_path / "more"
        more.mkdir()
        for i in range(12):
            (more / f"far{i}.md").write_text(f"# Far {i}\n\nThe harbour {i} is calm at dawn.\n")
        home.ingest([more])
        embed_missing(home.store_conn, client)
        second = _asked(home, question, client)
    assert [e.ref for e in second.record.evidence] == [e.ref for e in first.record.evidence]
    old = first.record.policy["hybrid"]["calibration"]
    new = second.record.policy["hybrid"]["calibration"]
    assert new != old
    assert not second.hit and second.cache_key != first.cache_key
