"""Derivations: core records (snippet, equation, summary, haiku) signed back to their surface sources.

A core record is a document of kind ``core`` whose derivation row commits to
the surface ``source_root``s and chunk leaves it came from. Its text is not
a verbatim source span, so its search hits and the answers citing it are
HYBRID: provenance proven, wording not.

A text the user typed (``derive --text``) is no model's distillation, and says so
wherever the record is shown: its title reads ``summary (hand-written): …`` (the title
is what its ``document_add`` event commits, and what every hit and citation shows),
its ``derivation`` event holds ``"hand_written": true``, and ``arborist verify`` holds
the two to each other. A title written before the mark existed never has it: those
derivations read as they did.
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
    "HAND_WRITTEN",
    "cited_spans",
    "derivation_event_body",
    "derive_from_record",
    "hand_written_title",
]

DERIVATION_KINDS = ("snippet", "equation", "summary", "haiku")

HAND_WRITTEN = "hand-written"
"""How a core record's title marks a text the user typed: ``summary (hand-written): …``."""


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
    hand_written: bool = False
    """Whether the user typed the text (``--text``), rather than a model distilling it or
    the answer's cited spans making it."""


def derivation_event_body(
    derivation_id: int,
    kind: str,
    core_uri: str,
    derived_from: str,
    digest: str,
    *,
    hand_written: bool = False,
) -> dict[str, object]:
    """What a ``derivation`` event commits to: which derivation, of what kind, the core
    document it made, the answer it came from and its :func:`~arborist._proofs.keys.derivation_hash`,
    and, for a text the user typed, that it was (absent otherwise, as in every event written
    before the mark). ``arborist verify`` rebuilds it from the rows (the mark from the core
    document's title: :func:`hand_written_title`)."""
    return {
        "derivation_id": derivation_id,
        "kind": kind,
        "core_uri": core_uri,
        "derived_from": derived_from,
        "derivation_hash": digest,
        **({"hand_written": True} if hand_written else {}),
    }


def hand_written_title(kind: str, title: object) -> bool:
    """Whether a core record's ``title`` marks its text as typed by the user."""
    return isinstance(title, str) and title.startswith(f"{kind} ({HAND_WRITTEN}): ")


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


def _derived_document(kind: str, text: str, hand_written: bool) -> LoadedDocument:
    """The core document a derivation saves: its text, named by its hash, its title saying
    when the user typed it."""
    text = text.strip()
    if not text:
        raise BadInput("the derived text is empty")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    label = f"{kind} ({HAND_WRITTEN})" if hand_written else kind
    return LoadedDocument(
        uri=f"core:{kind}:{digest[:16]}",
        title=f"{label}: {' '.join(text.split())[:60]}",
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


def _cited(record: CacheRecord, kind: str, text: str | None) -> list[RecordEvidence]:
    """The cited evidence a ``kind`` derives from, once ``kind`` and ``text`` are found fit
    for each other (one line otherwise)."""
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
    return sources


def derive_from_record(
    conn: sqlite3.Connection,
    record: CacheRecord,
    kind: str,
    text: str | None = None,
    *,
    hand_written: bool = False,
) -> Derivation:
    """Save a core record derived from an answer's cited evidence.

    ``snippet`` defaults to the answer's cited spans; ``equation``, ``summary`` and
    ``haiku`` (three lines) need their text given (:meth:`arborist._facade.app.Arborist.derive`
    distils one, :mod:`arborist._qa.derivation`). ``hand_written``: the user typed ``text``
    (marked as the module says).
    """
    sources = _cited(record, kind, text)
    typed = hand_written and text is not None
    made = cited_spans(record.answer_text) if text is None else text
    loaded = _derived_document(kind, made, typed)
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
        body = derivation_event_body(
            derivation_id, kind, core.uri, record.cache_key, digest_all, hand_written=typed
        )
        append_event(conn, "derivation", body=body, created_at=created_at)
    return Derivation(
        derivation_id, kind, core, record.cache_key, digest_all, tuple(sources), loaded.text, typed
    )
