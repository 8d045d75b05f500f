"""The offline answerer follows meaning when retrieval measured it (extractive-v8).

With hybrid retrieval over passages, each evidence item carries how near the question each
of its passages is (``EvidenceText.nearness``); a question put in other words than the
documents' is answered by the definitions nearest it, and evidence near nothing the
question asks is refused. The embedder here is a stand-in for a semantic model (the real
one, all-MiniLM-L6-v2, is 90 MB and outside the dev install; bench/quality.py measures
it): it maps words to a few concepts, so "pick one at random" and "choose a random
element" are near, and a question about football is near nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arborist._facade.app import Arborist
from arborist._qa.client import EvidenceText, make_request
from arborist._qa.extractive import ExtractiveClient
from arborist._qa.support import NOT_ANSWERED_OPENING
from arborist._store.passages import PASSAGES, passage_definitions, passages
from arborist._store.vectors import embed_missing, passage_nearness, profile_key

PYDOC = """Help on module tinylib:

NAME
    tinylib - Small helpers for sequences and files.

FUNCTIONS
    choice(seq)
        Choose a random element from a non-empty sequence.

    insort(a, x)
        Insert item x in list a, and keep it sorted.

    copyfile(src, dst)
        Copy data from the file named src to the file named dst.

    __getattr__(name)
        Return getattr(self, name).
"""

CONCEPTS = {
    "random": ("random", "randomly", "chance", "pick", "choose", "any"),
    "sequence": ("sequence", "list", "items", "element", "elements", "item", "seq", "one"),
    "order": ("sorted", "sort", "order", "ordered", "insert", "insort", "keep"),
    "file": ("file", "files", "copy", "copyfile", "duplicate", "src", "dst", "data"),
    "sport": ("football", "cup", "won", "match", "goal", "team"),
}


class ConceptEmbedder:
    """A deterministic embedder of passages: a text's vector counts its words per concept
    (one dimension each, plus one for every other word, so that no text is the zero vector)."""

    batch_size = 16

    def profile(self) -> dict[str, object]:
        return {"provider": "test", "model": "concepts-v1", "dimensions": "6",
                "passages": PASSAGES}  # fmt: skip

    def embed(self, texts: Sequence[str]) -> Any:
        rows = []
        for text in texts:
            row = [0.0] * (len(CONCEPTS) + 1)
            for raw in text.lower().replace("(", " ").replace(")", " ").split():
                word = raw.strip(".,?:;!'\"")
                hit = [i for i, words in enumerate(CONCEPTS.values()) if word in words]
                for i in hit:
                    row[i] += 1.0
                if not hit:
                    row[-1] += 0.05
            norm = math.sqrt(sum(v * v for v in row))
            rows.append([v / norm for v in row])
        return np.asarray(rows, dtype=np.float32)


@pytest.fixture
def home(tmp_path: Path) -> Arborist:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tinylib.txt").write_text(PYDOC)
    app = Arborist(tmp_path / "home")
    app.ingest([docs])
    embed_missing(app.store_conn, ConceptEmbedder())
    return app


def _ask(app: Arborist, question: str, embedder: ConceptEmbedder | None) -> str:
    app.embedder = lambda: embedder  # type: ignore[method-assign]
    try:
        return app.ask(question).answer
    finally:
        del app.embedder


def test_passage_definitions_align_with_the_passages_embedded() -> None:
    held = passage_definitions(PYDOC)
    assert [d.name if d else None for d in held] == ["choice", "insort", "copyfile"]
    assert len(held) == len(passages(PYDOC))
    prose = "Plain prose about nothing in particular, no definitions at all."
    assert passage_definitions(prose) == [None]
    assert len(passages(prose)) == 1


def test_a_question_in_other_words_is_answered_by_the_nearest_definition(
    home: Arborist,
) -> None:
    question = "how do i pick one at random out of a list"
    with home:
        followed = _ask(home, question, ConceptEmbedder())
        lexical = _ask(home, question, None)
    assert followed.startswith("choice(seq): Choose a random element from a non-empty sequence.")
    assert "[E1]" in followed
    assert "Choose a random element" not in lexical  # the words alone do not find it


def test_evidence_near_nothing_the_question_asks_is_refused(home: Arborist) -> None:
    with home:
        answer = _ask(home, "which team won the football cup", ConceptEmbedder())
    assert answer.startswith(NOT_ANSWERED_OPENING)


def test_a_named_definition_still_opens_the_answer(home: Arborist) -> None:
    with home:
        answer = _ask(home, "What does tinylib.insort do?", ConceptEmbedder())
    assert answer.startswith("tinylib.insort(a, x): Insert item x in list a, and keep it sorted.")


def test_nearness_is_read_from_the_stored_passage_vectors(home: Arborist) -> None:
    embedder = ConceptEmbedder()
    with home:
        conn = home.store_conn
        key = profile_key(embedder.profile())
        leaf = conn.execute("SELECT leaf FROM chunks WHERE text LIKE '%insort%'").fetchone()[0]
        query = embedder.embed(["keep a list sorted"])[0]
        near = passage_nearness(conn, key, query, leaf)
        assert len(near) == len(passages(PYDOC))
        assert max(near) == near[1]  # insort's passage
        # A hand-edited store: a vector cut short, or a key no embedder writes, and the
        # chunk has no nearness (the answer falls back to words), never a wrong one.
        conn.execute("UPDATE chunk_vectors SET vector = x'00' WHERE leaf = ?", (f"{leaf}#1",))
        assert passage_nearness(conn, key, query, leaf) == ()


def test_nearness_that_does_not_fit_the_chunk_is_ignored() -> None:
    client = ExtractiveClient()
    item = EvidenceText("E1", "tinylib — helpers", "file:tinylib.txt", PYDOC, (0.9,))
    answer = client.complete(make_request("pick one at random", [item])).text
    assert not answer.startswith("choice(seq)")  # one score for three passages: not followed
    right = EvidenceText("E1", "tinylib — helpers", "file:tinylib.txt", PYDOC, (0.9, 0.1, 0.1))
    followed = client.complete(make_request("pick one at random", [right])).text
    assert followed.startswith("tinylib.choice(seq): Choose a random element")
