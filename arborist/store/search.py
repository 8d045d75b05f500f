"""Full-text search and retrieval over ``store.db`` with declared audit modes.

User text reaches FTS5 only through :mod:`arborist.fts` (every term
quoted). ``search`` requires every term (what a search box means);
``retrieve`` (for asks) ranks chunks that share any term.

Every hit declares what it proves (DESIGN.md section 3): ``STRICT`` when the
text is present, re-hashes to its leaf and the leaf's proof verifies against
its document's ``source_root``; ``HYBRID`` when provenance is proven but the
text is not a verbatim source span (a core record, or a rehydrated chunk);
``VISUAL`` when it is only shown (a title match on an evicted document, or a
chunk that failed to verify).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arborist.db import snapshot
from arborist.errors import BadInput
from arborist.fts import MAX_QUERY_TERMS, checked_terms, fts_match_all, fts_match_any, fts_terms
from arborist.hashing import leaf_hash
from arborist.merkle import verify_inclusion
from arborist.qa.keys import EvidenceRef
from arborist.store.coaccess import related_edges
from arborist.store.documents import proofs_for

__all__ = [
    "AUDIT_MODES",
    "Evidence",
    "SearchHit",
    "retrieve",
    "search",
    "weakest_mode",
]

AUDIT_MODES = ("STRICT", "HYBRID", "VISUAL")
"""From strongest to weakest."""

RETRIEVAL_LIMIT = 5
SNIPPET_TOKENS = 16

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "after",
        "all",
        "also",
        "any",
        "been",
        "before",
        "being",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "over",
        "same",
        "some",
        "such",
        "only",
        "own",
        "very",
        "just",
        "should",
        "now",
    ]
)


def weakest_mode(modes: Sequence[str]) -> str:
    """The weakest audit mode among ``modes`` (VISUAL when there are none)."""
    if not modes:
        return "VISUAL"
    return max(modes, key=AUDIT_MODES.index)


@dataclass(frozen=True)
class Evidence:
    """A retrieved chunk with everything needed to cite it and prove it."""

    chunk_id: int
    document_id: int
    uri: str
    title: str
    kind: str
    rehydrated: bool
    source_root: str
    chunk_count: int
    chunk_index: int
    leaf: str
    text: str
    score: float

    @property
    def ref(self) -> EvidenceRef:
        return EvidenceRef(self.source_root, self.chunk_count, self.chunk_index, self.leaf)

    @property
    def audit_mode(self) -> str:
        return "HYBRID" if self.kind == "core" or self.rehydrated else "STRICT"


@dataclass(frozen=True)
class SearchHit:
    """One search result. ``chunk_index`` is None for a title-only (VISUAL) hit."""

    document_id: int
    uri: str
    title: str
    kind: str
    chunk_index: int | None
    snippet: str
    score: float
    audit_mode: str
    source_root: str
    leaf: str | None
    verified: bool


# Best matches first, from the index alone; joined to their rows only once chosen
# (a common term matches thousands of chunks, and joining each one cost more than ranking).
_TOP_QUERY = """
SELECT rowid, bm25(chunks_fts) AS score FROM chunks_fts
WHERE chunks_fts MATCH ?
ORDER BY score, rowid
LIMIT ?
"""

_CHUNK_ROW = """
SELECT c.id, c.document_id, d.uri, d.title, d.kind, c.rehydrated, d.source_root,
       d.chunk_count, c.chunk_index, c.leaf, c.text
FROM chunks AS c
JOIN documents AS d ON d.id = c.document_id
WHERE c.id = ? AND c.tier = 'hot' AND d.status = 'current'
"""

_SNIPPET = f"""
SELECT snippet(chunks_fts, 0, '«', '»', '…', {SNIPPET_TOKENS}) FROM chunks_fts
WHERE chunks_fts MATCH ? AND rowid = ?
"""

_LEAF_QUERY = """
SELECT c.id, c.document_id, d.uri, d.title, d.kind, c.rehydrated, d.source_root,
       d.chunk_count, c.chunk_index, c.leaf, c.text, 0.0 AS score
FROM chunks AS c
JOIN documents AS d ON d.id = c.document_id
WHERE c.leaf = ? AND c.tier = 'hot' AND d.status = 'current'
ORDER BY c.id
LIMIT 1
"""

_TITLE_QUERY = """
SELECT d.id, d.uri, d.title, d.kind, d.source_root, bm25(documents_fts) AS score
FROM documents_fts
JOIN documents AS d ON d.id = documents_fts.rowid
WHERE documents_fts MATCH ? AND d.status = 'current'
  AND NOT EXISTS (SELECT 1 FROM chunks WHERE document_id = d.id AND tier = 'hot')
ORDER BY score, d.id
LIMIT ?
"""


def _run(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> list[Any]:
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:  # quoted terms should never get here
        raise BadInput(f"search failed: {exc}") from exc


def _evidence(row: Any) -> Evidence:
    (chunk_id, document_id, uri, title, kind, rehydrated, root, count, index, leaf, text, score) = (
        row[:12]
    )
    return Evidence(
        int(chunk_id),
        int(document_id),
        str(uri),
        str(title),
        str(kind),
        bool(rehydrated),
        str(root),
        int(count),
        int(index),
        str(leaf),
        str(text),
        float(score),
    )


def retrieve(
    conn: sqlite3.Connection,
    question: str,
    *,
    keywords: Sequence[str] = (),
    limit: int = RETRIEVAL_LIMIT,
    related: int = 0,
    related_version: str = "",
) -> list[Evidence]:
    """Top ``limit`` hot chunks sharing any non-stopword term of the question (and keywords).

    Deterministic: ties in BM25 fall back to chunk id. Keywords only widen the
    query; they are not part of any hash. With ``related`` > 0, a second lane
    follows: up to that many hot chunks co-accessed with the first lane's
    (index ``related_version``, best ``freq_score`` first) — more evidence,
    hence a different evidence root, under the same key rules.
    """
    terms = [t for t in fts_terms(" ".join([question, *keywords])) if t.lower() not in STOPWORDS]
    if not terms:
        terms = fts_terms(question)
    terms = terms[:MAX_QUERY_TERMS]
    if not terms:
        return []
    with snapshot(conn):  # what was ranked is what is read, whoever writes meanwhile
        evidence = _best_chunks(conn, fts_match_any(terms), limit)
        if related > 0 and evidence:
            evidence += _related_lane(conn, evidence, related, related_version)
    return evidence


def _best_chunks(conn: sqlite3.Connection, match: str, limit: int) -> list[Evidence]:
    """The ``limit`` best chunks of current documents for ``match``, ordered by BM25 then id.

    Ranks from the index alone, then joins the chosen rows; when superseded
    documents' chunks crowd the top, it asks the index for more.
    """
    wanted = limit * 2
    while True:
        top = _run(conn, _TOP_QUERY, (match, wanted))
        chosen = []
        for chunk_id, score in top:
            row = conn.execute(_CHUNK_ROW, (chunk_id,)).fetchone()
            if row is not None:
                chosen.append(_evidence((*row, score)))
                if len(chosen) == limit:
                    return chosen
        if len(top) < wanted:
            return chosen
        wanted *= 4


def _related_lane(
    conn: sqlite3.Connection, first: list[Evidence], count: int, version: str
) -> list[Evidence]:
    leaves = list(dict.fromkeys(e.leaf for e in first))
    lane: list[Evidence] = []
    for edge in related_edges(conn, leaves, version=version):
        row = conn.execute(_LEAF_QUERY, (edge.related_hash,)).fetchone()
        if row is not None:
            lane.append(_evidence(row))
            if len(lane) == count:
                break
    return lane


def search(conn: sqlite3.Connection, query: str, *, limit: int = 10) -> list[SearchHit]:
    """Chunks (and core records) containing every word of ``query``, best first, then
    title matches of evicted documents; each hit verified and given its audit mode."""
    if limit < 1:
        raise BadInput("--limit must be at least 1")
    match = fts_match_all(checked_terms(query))
    with snapshot(conn):  # what was ranked is what is read, whoever writes meanwhile
        evidence = _best_chunks(conn, match, limit)
        proofs = proofs_for(conn, [(e.document_id, e.chunk_index) for e in evidence])
        snippets = [str(_run(conn, _SNIPPET, (match, e.chunk_id))[0][0]) for e in evidence]
    hits = []
    for item, snippet in zip(evidence, snippets, strict=True):
        proof = [bytes.fromhex(p) for p in proofs[(item.document_id, item.chunk_index)]]
        verified = leaf_hash(item.text.encode("utf-8")).hex() == item.leaf and verify_inclusion(
            bytes.fromhex(item.leaf),
            item.chunk_index,
            item.chunk_count,
            proof,
            bytes.fromhex(item.source_root),
        )
        hits.append(
            SearchHit(
                item.document_id,
                item.uri,
                item.title,
                item.kind,
                item.chunk_index,
                snippet,
                item.score,
                item.audit_mode if verified else "VISUAL",
                item.source_root,
                item.leaf,
                verified,
            )
        )
    if len(hits) < limit:
        for doc_id, uri, title, kind, root, score in _run(
            conn, _TITLE_QUERY, (match, limit - len(hits))
        ):
            hits.append(
                SearchHit(
                    int(doc_id),
                    str(uri),
                    str(title),
                    str(kind),
                    None,
                    str(title),
                    float(score),
                    "VISUAL",
                    str(root),
                    None,
                    False,
                )
            )
    return hits
