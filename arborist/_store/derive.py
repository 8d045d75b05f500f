"""Derivations: core records (snippet, equation, summary, haiku) signed back to their surface sources.

A core record is a document of kind ``core`` whose derivation row commits to
the surface ``source_root``s and chunk leaves it came from. Its text is not
a verbatim source span, so its search hits and the answers citing it are
HYBRID: provenance proven, wording not.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from arborist._clock import utc_now
from arborist._database.db import transaction
from arborist._errors import BadInput
from arborist._proofs.audit import append_event
from arborist._proofs.citations import parse_citations
from arborist._proofs.keys import derivation_hash
from arborist._store.cache.records import CacheRecord, RecordEvidence
from arborist._store.documents import Document, ingest_document
from arborist._store.loaders import LoadedDocument

__all__ = [
    "DERIVATION_KINDS",
    "Derivation",
    "cited_spans",
    "derivation_event_body",
    "derive_from_record",
]

DERIVATION_KINDS = ("snippet", "equation", "summary", "haiku")


@dataclass(frozen=True)
class Derivation:
    """A stored derivation: the core document and what it was derived from."""

    id: int
    kind: str
    core: Document
    derived_from: str
    derivation_hash: str
    sources: tuple[RecordEvidence, ...]
    text: str = ""
    """The core record's text, as saved (after the admission gate)."""


def derivation_event_body(
    derivation_id: int, kind: str, core_uri: str, derived_from: str, digest: str
) -> dict[str, object]:
    """What a ``derivation`` event commits to: which derivation, of what kind, the core
    document it made, the answer it came from and its :func:`~arborist._proofs.keys.derivation_hash`.
    ``arborist verify`` rebuilds it from the rows."""
    return {
        "derivation_id": derivation_id,
        "kind": kind,
        "core_uri": core_uri,
        "derived_from": derived_from,
        "derivation_hash": digest,
    }


def cited_spans(answer: str) -> str:
    """The spans of ``answer`` that carry a citation: the text before each ``[E# | …]``."""
    spans = []
    position = 0
    for citation in parse_citations(answer):
        span = answer[position : citation.start].strip()
        if span:
            spans.append(span)
        position = citation.end
    return "\n\n".join(spans)


def _derived_document(kind: str, text: str) -> LoadedDocument:
    """The core document a derivation saves: its text, named by its hash."""
    text = text.strip()
    if not text:
        raise BadInput("the derived text is empty")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return LoadedDocument(
        uri=f"core:{kind}:{digest[:16]}",
        title=f"{kind}: {' '.join(text.split())[:60]}",
        text=text,
        media_type="text/plain",
        content_sha256=digest,
    )


def _insert_sources(
    conn: sqlite3.Connection, derivation_id: int, sources: Sequence[RecordEvidence]
) -> None:
    """The cited chunks a derivation stands on, in order."""
    conn.executemany(
        "INSERT INTO derivation_sources (derivation_id, position, document_id, source_root, "
        "chunk_count, chunk_index, leaf) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (derivation_id, i, s.document_id, s.source_root, s.chunk_count, s.chunk_index, s.leaf)
            for i, s in enumerate(sources)
        ],
    )


def derive_from_record(
    conn: sqlite3.Connection, record: CacheRecord, kind: str, text: str | None = None
) -> Derivation:
    """Save a core record derived from an answer's cited evidence.

    ``snippet`` defaults to the answer's cited spans; ``equation``, ``summary`` and
    ``haiku`` (three lines) need their text given (:meth:`arborist._facade.app.Arborist.derive`
    distils one, :mod:`arborist._qa.derivation`).
    """
    if kind not in DERIVATION_KINDS:
        raise BadInput(f"bad derivation kind {kind!r}: choose {', '.join(DERIVATION_KINDS)}")
    sources = [item for item in record.evidence if item.cited]
    if not sources:
        raise BadInput("that answer cites no evidence: there is nothing to derive from")
    if text is None and kind != "snippet":
        raise BadInput(f"a {kind} needs its text (--text)")
    if (
        kind == "haiku"
        and text is not None
        and len([x for x in text.splitlines() if x.strip()]) != 3
    ):
        raise BadInput("a haiku is three lines: give them in --text, one per line")
    loaded = _derived_document(kind, cited_spans(record.answer_text) if text is None else text)
    with transaction(conn):
        core = ingest_document(conn, loaded, kind="core").document
        existing = conn.execute(
            "SELECT id FROM derivations WHERE core_document_id = ?", (core.id,)
        ).fetchone()
        if existing:
            raise BadInput(f"that {kind} is already saved as {core.uri}")
        digest_all = derivation_hash(
            kind, core.source_root, record.cache_key, [s.ref for s in sources]
        )
        created_at = utc_now()
        cursor = conn.execute(
            "INSERT INTO derivations (core_document_id, kind, derived_from, derivation_hash, "
            "created_at) VALUES (?, ?, ?, ?, ?)",
            (core.id, kind, record.cache_key, digest_all, created_at),
        )
        derivation_id = int(cursor.lastrowid or 0)
        _insert_sources(conn, derivation_id, sources)
        append_event(
            conn,
            "derivation",
            body=derivation_event_body(derivation_id, kind, core.uri, record.cache_key, digest_all),
            created_at=created_at,
        )
    return Derivation(
        derivation_id, kind, core, record.cache_key, digest_all, tuple(sources), loaded.text
    )
