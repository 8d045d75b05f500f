"""How near the question, in meaning, the sentences the offline answerer might quote are.

With hybrid retrieval over passages the request can measure texts by the lane's own model
(:attr:`~arborist._qa.client.ChatRequest.measure`); :mod:`arborist._qa.extractive` measures
its candidate sentences with it, each after its document's subject as its passage is
embedded (:func:`arborist._store.passages.passages`), so a sentence and its window are
measured alike. Without a lane nothing is measured and the words alone choose.
"""

from __future__ import annotations

from collections.abc import Sequence

from arborist._qa.client import ChatRequest

__all__ = ["SENTENCE_KEEP", "measured"]

SENTENCE_KEEP = 0.06
"""A matching sentence the lane's own model measures within this of the nearest of those the
answer might quote (calibrated) is kept whatever
:data:`~arborist._qa.extractive.RELATIVE_FLOOR` says, and of sentences its words score alike
the nearer is quoted first (``extractive-v27``; issue #34: sentences chosen by how well they
answer the question, not only by the words they share). gnuplot's "The following are not
affected by reset:" holds one word of "which settings survive the reset command", under
half what the best sentence scores, and is among those MiniLM measures nearest. From 0.03 to
0.1 the foreign manuals' dev questions are answered alike. A share of the score for
nearness instead (0.5 to 2 of the weightiest word's, falling to none 0.05 to 0.3 under the
nearest) quoted no more of their phrases: at 0.5 within 0.1 nothing changed, every other
lost as many as it won or more (bench/foreign.py)."""


def measured(request: ChatRequest, said: Sequence[tuple[int, str]]) -> tuple[float, ...]:
    """How near the question each sentence is (each with the rank of the evidence item it is
    from), calibrated; empty when the request cannot measure or nothing is to be measured."""
    if request.measure is None or not said:
        return ()
    return request.measure([f"{_subject(request.evidence[r].title)}{s}" for r, s in said])


def _subject(title: str) -> str:
    """What a sentence is embedded after: its document's subject, as its passage is."""
    subject = title.split(" — ", maxsplit=1)[0].strip()
    return f"{subject}: " if subject else ""
