"""Full-text search and retrieval over ``store.db`` with declared audit modes.

User text reaches FTS5 only through :mod:`arborist._database.fts` (every term
quoted). ``search`` requires every term (what a search box means);
``retrieve`` (for asks) ranks chunks that share any term, fielded BM25 first,
then definitions of the names the question names (see :func:`retrieve`).

Every hit declares what it proves (docs/design.md section 3): ``STRICT`` when the
text is present, re-hashes to its leaf and the leaf's proof verifies against
its document's ``source_root``; ``HYBRID`` when provenance is proven but the
text is not a verbatim source span (a core record, or a rehydrated chunk);
``VISUAL`` when it is only shown (a title match on an evicted document, or a
chunk that failed to verify).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from arborist._database.db import snapshot
from arborist._database.fts import MAX_QUERY_TERMS, checked_terms, fts_match_all, fts_match_any
from arborist._errors import BadInput
from arborist._proofs.keys import EvidenceRef
from arborist._standalone.rule import stands_alone
from arborist._store.coaccess import related_edges
from arborist._store.documents import proofs_for
from arborist._store.faults import evidence_faults
from arborist._store.fusion import (
    LEXICAL_HEAD,
    VECTOR_POOL,
    in_documents_words,
    passage_order,
    rrf_order,
)
from arborist._store.proofs import verify_evidence
from arborist._store.schema import HOT
from arborist._store.vectors import Matrix, nearest, searches_passages
from arborist._text.analysis import QuestionTerms, read_question
from arborist._text.definitions import Definition, named_definitions
from arborist._text.text_words import content_words, words

__all__ = [
    "AUDIT_MODES",
    "Evidence",
    "RETRIEVAL",
    "SearchHit",
    "VectorQuery",
    "recalled_evidence",
    "retrieve",
    "search",
    "weakest_mode",
]

AUDIT_MODES = ("STRICT", "HYBRID", "VISUAL")
"""From strongest to weakest."""

RETRIEVAL_LIMIT = 5
"""How many chunks an ask retrieves as evidence."""

POOL = 40
"""How many chunks the index ranks before definitions are preferred among them."""

TITLE_WEIGHT = 4.0
"""BM25 weight of the document title's field against the chunk text's 1.0."""

DEFINITION_BONUS = 0.6
"""Added to a chunk's relative score (the best chunk's BM25 is 1.0) when it defines a name the
question names as an identifier; half of it when the name is a plain word."""

SOURCE_BONUS = 0.5
"""Added, for a follow-up only, to a chunk of a document the turns above it cited: a
follow-up continues its thread on the same sources unless its own words say otherwise."""

MAX_CONTEXT_WORDS = 16
"""How many words a follow-up takes from the turns above it."""

RETRIEVAL = "fts5-bm25f-any-term-v7"
"""The retrieval algorithm's name in the governance policy: change it with any rule above
(v4: :func:`arborist._standalone.stands_alone` reads a question's own pronouns, so which
questions borrow their parent's words changed, and the retrieval memo must not reuse
evidence chosen under the old reading; v5: it reads the question of the turn above too,
``context[0]``, so which questions borrow changed again; v6: round sixteen's readings, turns
only a conversation has and what to put into the text or sum the turn above asked for; v7:
round seventeen's, a question that goes on by how it is put, and Dutch and German
demonstratives)."""

LANES = ("lexical", "vector", "both", "related")
"""Where an evidence item came from: the FTS5 lane, the vector lane, both, or co-access."""

SNIPPET_TOKENS = 16


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
    lane: str = "lexical"

    @property
    def ref(self) -> EvidenceRef:
        return EvidenceRef(self.source_root, self.chunk_count, self.chunk_index, self.leaf)

    @property
    def audit_mode(self) -> str:
        return "HYBRID" if self.kind == "core" or self.rehydrated else "STRICT"


@dataclass(frozen=True)
class VectorQuery:
    """The vector lane's half of a hybrid retrieval: the embedding profile's key (vectors
    are stored under it) and the question's normalized vector under that profile."""

    profile: str
    vector: Matrix


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
_TOP_QUERY = f"""
SELECT rowid, bm25(chunks_fts, 1.0, {TITLE_WEIGHT}) AS score FROM chunks_fts
WHERE chunks_fts MATCH ?
ORDER BY score, rowid
LIMIT ?
"""

_CHUNK_ROWS = f"""
SELECT c.id, c.document_id, d.uri, d.title, d.kind, c.rehydrated, d.source_root,
       d.chunk_count, c.chunk_index, c.leaf, c.text
FROM chunks AS c
JOIN documents AS d ON d.id = c.document_id
WHERE c.id IN ({{marks}}) AND c.tier = '{HOT}' AND d.status = 'current'
"""

_SNIPPET = f"""
SELECT snippet(chunks_fts, 0, '«', '»', '…', {SNIPPET_TOKENS}) FROM chunks_fts
WHERE chunks_fts MATCH ? AND rowid = ?
"""

_ANCHOR = re.compile(r"[ \t]*\{#[«»A-Za-z0-9_.:-]{1,140}\}")
"""The id a heading of an HTML page keeps for links to open it at (``{#_options}``, a word of
it perhaps marked as a match), which a snippet shows as the heading's words alone."""

_LEAF_QUERY = f"""
SELECT c.id, c.document_id, d.uri, d.title, d.kind, c.rehydrated, d.source_root,
       d.chunk_count, c.chunk_index, c.leaf, c.text, 0.0 AS score
FROM chunks AS c
JOIN documents AS d ON d.id = c.document_id
WHERE c.leaf = ? AND c.tier = '{HOT}' AND d.status = 'current'
ORDER BY c.id
LIMIT 1
"""

_TITLE_QUERY = f"""
SELECT d.id, d.uri, d.title, d.kind, d.source_root, bm25(documents_fts) AS score
FROM documents_fts
JOIN documents AS d ON d.id = documents_fts.rowid
WHERE documents_fts MATCH ? AND d.status = 'current'
  AND NOT EXISTS (SELECT 1 FROM chunks WHERE document_id = d.id AND tier = '{HOT}')
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
    context: Sequence[str] = (),
    sources: Sequence[str] = (),
    limit: int = RETRIEVAL_LIMIT,
    related: int = 0,
    related_version: str = "",
    vectors: VectorQuery | None = None,
    keywords: str = "",
) -> list[Evidence]:
    """The ``limit`` best hot chunks for ``question``, best first (see :data:`RETRIEVAL`).

    1. **Rank in the index.** One FTS5 query matches any of the question's own words
       (stop words dropped; ``keywords``, words added by hand, count as its own) and each
       identifier it names as a phrase (``statistics.median``: ``statistics`` next to
       ``median``), scored by BM25 over the chunk's text and its document's title
       (:data:`TITLE_WEIGHT`), words stemmed (porter). No word is required: a chunk ranks by
       how many of the words it holds and how rare they are. The best :data:`POOL` go on.
    2. **Prefer definitions.** Each score is taken relative to the best one,
       and a chunk that *defines* a name the question names (``median(data)``
       followed by its description) gains :data:`DEFINITION_BONUS` (half of it
       for a name that is a plain word, like ``groupby``).
    3. **Follow-ups.** ``context`` holds the texts of the turns above (their questions
       and the titles they cited, nearest first; ``context[0]`` the question it is read
       under). A question that stands alone (:func:`arborist._standalone.stands_alone`)
       ranks exactly as it would at the root: the context only orders chunks its own
       words score equally. A question that cannot stand alone ("who created him?")
       has the context's words added to its own, at the same weight, and the
       chunks of the documents the thread cited (``sources``, by title) gain
       :data:`SOURCE_BONUS`.

    Deterministic: ties fall back to chunk id. ``vectors`` fuses a vector lane in
    (:func:`_fuse`); ``related`` > 0 then adds up to that many hot chunks co-accessed
    with those (index ``related_version``, best ``freq_score`` first)."""
    asked = read_question(f"{question}\n{keywords}" if keywords else question)
    own = _query_terms(asked.words, asked.identifiers)
    if not own:
        return []
    extra: list[str] = []
    follow_up = bool(context or sources) and not stands_alone(question, (*context, None)[0])
    if follow_up:
        for text in context:
            extra += [w for w in content_words(text) if w not in asked.words and w not in extra]
        extra = extra[:MAX_CONTEXT_WORDS]
    match = fts_match_any(own + extra[: max(0, MAX_QUERY_TERMS - len(own))])
    with snapshot(conn):  # what was ranked is what is read, whoever writes meanwhile
        evidence, naming = _rerank(
            _best_chunks(conn, match, POOL),
            asked,
            set() if follow_up else _context_words(context, asked),
            frozenset(sources) if follow_up else frozenset(),
            limit if vectors is None else POOL,
        )
        if vectors is not None:
            evidence = _fuse(conn, evidence, vectors, limit, asked.words, naming)
        if related > 0 and evidence:
            evidence += _related_lane(conn, evidence, related, related_version)
    return evidence


def recalled_evidence(
    conn: sqlite3.Connection, chosen: Sequence[tuple[int, float]]
) -> list[Evidence] | None:
    """The evidence a retrieval chose, by chunk id and score (best first), read afresh; None
    when one of them is no longer a hot chunk of a current document."""
    rows = _rows(conn, [chunk_id for chunk_id, _ in chosen])
    if len(rows) != len(chosen):
        return None
    return [_evidence((*rows[chunk_id], score)) for chunk_id, score in chosen]


def _query_terms(own_words: Sequence[str], found: Sequence[str]) -> list[str]:
    """FTS terms: each identifier whole (a phrase of its parts), then every own word."""
    phrases = [i for i in found if len(words(i)) > 1]
    return list(dict.fromkeys([*phrases, *own_words]))[:MAX_QUERY_TERMS]


def _context_words(context: Sequence[str], asked: QuestionTerms) -> set[str]:
    return {w for text in context for w in content_words(text)} - set(asked.words)


def _rerank(
    pool: list[Evidence],
    asked: QuestionTerms,
    tie_words: set[str],
    sources: frozenset[str],
    limit: int,
) -> tuple[list[Evidence], dict[int, bool]]:
    """Order the pool by relative BM25 plus the definition and source bonuses; ties by
    context words, then id. With the first ``limit`` of them, the chunks that had a bonus
    (defining a name the question names, or of the thread's ``sources``), by id, each with
    whether it was a strong definition's (:func:`_bonus` whole or three quarters, not
    halved); :func:`_named` reads them."""
    if not pool:
        return [], {}
    best = max(-e.score for e in pool) or 1.0
    ranked = []
    naming: dict[int, bool] = {}
    for item in pool:
        score = -item.score / best
        defined = named_definitions(item.text, asked, item.title)
        score += max((_bonus(d, strong) for d, strong in defined), default=0.0)
        if item.title in sources:
            score += SOURCE_BONUS
        if defined or item.title in sources:
            naming[item.chunk_id] = any(strong for _, strong in defined)
        ties = len(tie_words & set(words(item.title))) if tie_words else 0
        ranked.append((-round(score, 9), -ties, item.chunk_id, item))
    ranked.sort(key=lambda entry: entry[:3])
    return [replace(item, score=-key) for key, _, _, item in ranked[:limit]], naming


def _named(lexical: Sequence[Evidence], naming: dict[int, bool]) -> bool:
    """Whether the question names what it asks about, for
    :func:`~arborist._store.fusion.passage_order`: the best lexical chunk had a bonus (it
    defines a name the question names, or is of a follow-up's sources), or one of the first
    :data:`~arborist._store.fusion.LEXICAL_HEAD` strongly defines one (an identifier the
    question wrote: ``json.loads`` asked, ``loads(s, ...)`` second under a chunk of examples
    that only use it). A plain word's definition below the first is often chance, and does
    not count."""
    if not lexical:
        return False
    head = lexical[:LEXICAL_HEAD]
    return lexical[0].chunk_id in naming or any(naming.get(e.chunk_id, False) for e in head)


def _fuse(
    conn: sqlite3.Connection,
    lexical: Sequence[Evidence],
    vectors: VectorQuery,
    limit: int,
    asked: Sequence[str],
    naming: dict[int, bool],
) -> list[Evidence]:
    """The lexical order (BM25 and bonuses, best first) fused with the vector lane's (cosine,
    best first; :mod:`arborist._store.fusion`): a lane of passages by
    :func:`~arborist._store.fusion.passage_order` (``naming``, the chunks :func:`_rerank`
    gave a bonus, tell whether the question is named, :func:`_named`; ``asked``, the
    question's own words, whether it is worded as the documents are), one of whole chunks
    by reciprocal rank with the lexical head kept (:func:`~arborist._store.fusion.rrf_order`).
    Each item keeps the lane it came from (``both`` when the two pools hold it); a passage
    lane's item scores its place, ``1 / (1 + rank)``, a chunk lane's its fused score."""
    found = {e.chunk_id: e for e in lexical}
    near = [chunk_id for chunk_id, _ in nearest(conn, vectors.profile, vectors.vector, VECTOR_POOL)]
    for chunk_id, row in _rows(conn, [c for c in near if c not in found]).items():
        found[chunk_id] = _evidence((*row, 0.0))
    near = [chunk_id for chunk_id in near if chunk_id in found]
    lexical_ids = [e.chunk_id for e in lexical]
    if searches_passages(conn, vectors.profile):
        best = f"{lexical[0].text}\n{lexical[0].title}" if lexical else ""
        worded = bool(lexical) and in_documents_words(asked, best)
        named = _named(lexical, naming)
        order = passage_order(lexical_ids, near, named=named, worded=worded, limit=limit)
        scored = [(chunk_id, round(1.0 / (1 + rank), 9)) for rank, chunk_id in enumerate(order, 1)]
    else:
        scored = rrf_order(lexical_ids, near, head=LEXICAL_HEAD)[:limit]
    in_lexical, in_vector = set(lexical_ids), set(near)
    fused = []
    for chunk_id, score in scored:
        both = chunk_id in in_lexical and chunk_id in in_vector
        lane = "both" if both else "lexical" if chunk_id in in_lexical else "vector"
        fused.append(replace(found[chunk_id], score=score, lane=lane))
    return fused


def _bonus(definition: Definition, strong: bool) -> float:
    """The definition bonus: whole for a strongly named definition (an identifier the question
    wrote, or a compound name all of whose parts it says), three quarters when that definition
    is a member (a method of some class), half for a plain word or for a dotted identifier
    defined elsewhere (``json.loads`` asked, ``loads`` in a document whose title does not say
    ``json``); see :func:`arborist._text.definitions.named_definitions`."""
    if not strong:
        return DEFINITION_BONUS / 2
    return DEFINITION_BONUS * (0.75 if definition.nested else 1.0)


def _best_chunks(conn: sqlite3.Connection, match: str, limit: int) -> list[Evidence]:
    """The ``limit`` best chunks of current documents for ``match``, ordered by BM25 then id.

    Ranks from the index alone, then joins the chosen rows in one query; when
    superseded documents' chunks crowd the top, it asks the index for more.
    """
    wanted = limit * 2
    while True:
        top = _run(conn, _TOP_QUERY, (match, wanted))
        rows = _rows(conn, [int(chunk_id) for chunk_id, _ in top])
        chosen = []
        for chunk_id, score in top:
            row = rows.get(int(chunk_id))
            if row is not None:
                chosen.append(_evidence((*row, score)))
                if len(chosen) == limit:
                    return chosen
        if len(top) < wanted:
            return chosen
        wanted *= 4


def _rows(conn: sqlite3.Connection, ids: list[int]) -> dict[int, Any]:
    """Hot chunks of current documents among ``ids``, by id (one query per 500 ids)."""
    found: dict[int, Any] = {}
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        sql = _CHUNK_ROWS.format(marks=",".join("?" * len(batch)))
        for row in conn.execute(sql, batch):
            found[int(row[0])] = row
    return found


def _related_lane(
    conn: sqlite3.Connection, first: list[Evidence], count: int, version: str
) -> list[Evidence]:
    leaves = list(dict.fromkeys(e.leaf for e in first))
    lane: list[Evidence] = []
    for edge in related_edges(conn, leaves, version=version):
        row = conn.execute(_LEAF_QUERY, (edge.related_hash,)).fetchone()
        if row is not None:
            lane.append(replace(_evidence(row), lane="related"))
            if len(lane) == count:
                break
    return lane


def search(conn: sqlite3.Connection, query: str, *, limit: int = 10) -> list[SearchHit]:
    """Chunks (and core records) containing every word of ``query``, best first, then
    title matches of evicted documents; each hit verified by the check an ask makes of its
    evidence (:func:`evidence_faults`) and its proof, and given its audit mode (``VISUAL``
    when either fails)."""
    if limit < 1:
        raise BadInput("--limit must be at least 1")
    match = fts_match_all(checked_terms(query))
    with snapshot(conn):  # what was ranked is what is read, whoever writes meanwhile
        evidence = _best_chunks(conn, match, limit)
        proofs = proofs_for(conn, [(e.document_id, e.chunk_index) for e in evidence])
        snippets = [
            _ANCHOR.sub("", str(_run(conn, _SNIPPET, (match, e.chunk_id))[0][0])) for e in evidence
        ]
        faults = evidence_faults(conn, evidence)
    hits = []
    for item, snippet, fault in zip(evidence, snippets, faults, strict=True):
        proof = proofs[(item.document_id, item.chunk_index)]
        verified = fault is None and verify_evidence(item.ref, text=item.text, proof=proof).holds
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
