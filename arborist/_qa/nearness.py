"""The semantic lane of an ask: the question's vector (:func:`vector_query`), its
calibration (:mod:`arborist._store.calibration`) and, once the evidence is chosen, each item's
passage nearness on it (:func:`near`), all of which the cache key covers; and the name the
retrieval memo keys the lane by (:func:`retrieval_name`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from arborist._qa.client import ChatRequest
from arborist._standalone.rule import stands_alone
from arborist._store.calibration import METHOD as CALIBRATION
from arborist._store.calibration import Calibration, question_calibration
from arborist._store.fusion import fusion_name
from arborist._store.passages import as_query
from arborist._store.search import RETRIEVAL, Evidence, VectorQuery
from arborist._store.vectors import (
    Embedder,
    embeds_passages,
    passage_nearness,
    profile_key,
    searches_passages,
)

__all__ = ["calibrated", "calibration_of", "near", "retrieval_name", "vector_query"]


def near(
    conn: sqlite3.Connection,
    vectors: VectorQuery | None,
    calibration: Calibration | None,
    sent: Sequence[Evidence],
    request: ChatRequest,
    embedder: Embedder | None = None,
) -> ChatRequest:
    """``request`` with each evidence item's passage nearness
    (:attr:`EvidenceText.nearness`) on the question's ``calibration``
    (:mod:`arborist._store.calibration`) when retrieval was hybrid over passages; an item
    shown cut to fit has none (its passages are not the ones embedded). A function of the
    question, the evidence, the embedding profile and the calibration, all in the key. With
    the ``embedder`` that made ``vectors``, the request can measure other texts too
    (:attr:`ChatRequest.measure`)."""
    if vectors is None or calibration is None:
        return request
    measure = None if embedder is None else _measure(embedder, vectors, calibration)
    shown = tuple(
        replace(
            item,
            nearness=calibration.nearness(
                passage_nearness(conn, vectors.profile, vectors.vector, e.leaf)
            ),
        )
        if item.text == e.text
        else item
        for item, e in zip(request.evidence, sent, strict=True)
    )
    return replace(request, evidence=shown, measure=measure)


def _measure(
    embedder: Embedder, vectors: VectorQuery, calibration: Calibration
) -> Callable[[Sequence[str]], tuple[float, ...]]:
    """How near the question each text is, embedded as a passage is and scored as
    :func:`~arborist._store.vectors.passage_nearness` scores one (in float64, four places)."""

    def measure(texts: Sequence[str]) -> tuple[float, ...]:
        import numpy as np  # noqa: PLC0415 - numpy loads with the first vector

        if not texts:
            return ()
        query = np.asarray(vectors.vector, dtype=np.float64).reshape(-1)
        rows = np.asarray(embedder.embed(list(texts)), dtype=np.float64)
        return calibration.nearness([round(float(row @ query), 4) for row in rows])

    return measure


def calibration_of(conn: sqlite3.Connection, vectors: VectorQuery | None) -> Calibration | None:
    """The question's calibration when its nearness is measured (retrieval over passages)."""
    if vectors is None or not searches_passages(conn, vectors.profile):
        return None
    return question_calibration(conn, vectors.profile, vectors.vector)


def calibrated(policy: dict[str, object], calibration: Calibration | None) -> dict[str, object]:
    """``policy`` with the question's calibration in its hybrid entry, when there is one: it
    changes what the answerer says, so it is in the key (an ask whose floor or the corpus's
    spread moved is a miss, never an answer made under another calibration)."""
    hybrid = policy.get("hybrid")
    if calibration is None or not isinstance(hybrid, dict):
        return policy
    return {**policy, "hybrid": {**hybrid, "calibration": calibration.policy()}}


def retrieval_name(embedding: Mapping[str, object] | None) -> str:
    """The retrieval's name in the memo's key: the lexical one, or with the fusion, the
    embedding profile's key (vectors of another model rank otherwise) and the calibration's
    method (a memo row holds the calibration of its question)."""
    if embedding is None:
        return RETRIEVAL
    fusion = fusion_name(passages=embeds_passages(dict(embedding)))
    return f"{RETRIEVAL}+{fusion}+{profile_key(dict(embedding))}+{CALIBRATION}"


def vector_query(
    embedder: Embedder | None,
    question: str,
    context: Sequence[str] = (),
    sources: Sequence[str] = (),
    keywords: str = "",
) -> VectorQuery | None:
    """The question's vector (a follow-up's with its nearest turn above, ``context[0]``, the
    question it is read under too; with the words added to retrieval by hand after it), or
    None."""
    if embedder is None:
        return None
    text = "\n".join(filter(None, [question, keywords]))
    if context and not stands_alone(question, context[0]):
        text = f"{text}\n{context[0]}"
    profile = embedder.profile()
    return VectorQuery(profile_key(profile), embedder.embed([as_query(profile, text)])[0])
