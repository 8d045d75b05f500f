"""What commits a document's metadata: its ``document_add`` audit event.

A chunk's leaf commits its text and a document's ``source_root`` its chunks,
but no leaf covers the document's title or URI, and every face shows them
beside a verified answer ("E1 | json — JSON encoder and decoder | pydoc:json").
What does commit them is the ``document_add`` event written in the same
transaction as the document: its body holds the row's identity and metadata
(:func:`event_body`) and its ``event_hash`` covers that body in the store's
chain. So a document's metadata *holds* (:func:`committed`) when its row
rebuilds its event's body exactly, that event's hash recomputes from the body
as stored, and the event is the document's own (found by the partial index
``audit_document_add`` of store migration 11, or by a scan should the index be
gone). A hit, ``Answer.verify()``, the audit mode a turn can claim now and a
fresh ask all ask this of every document their evidence comes from; ``arborist verify`` also walks the chain
the event sits in, which is what shows an event rewritten along with its row.

Cost: one indexed lookup, one JSON parse of a ~400-byte body and one SHA-256
per document (not per chunk): a few microseconds an evidence document.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, Protocol, cast

from arborist._database.db import rows_in
from arborist._proofs.audit import differing_fields
from arborist._proofs.hashing import stored_event_hash

__all__ = ["DocumentFields", "committed", "event_body"]

OPTIONAL_FIELDS = ("media_type",)
"""Fields that events written before they existed lack (not compared when absent)."""


class DocumentFields(Protocol):
    """What a ``document_add`` event commits to of a document row."""

    @property
    def id(self) -> int: ...
    @property
    def uri(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def media_type(self) -> str: ...
    @property
    def content_sha256(self) -> str: ...
    @property
    def source_root(self) -> str: ...
    @property
    def chunk_count(self) -> int: ...
    @property
    def chunking_version(self) -> str: ...


def event_body(
    document: DocumentFields,
    *,
    redactions: object = None,
    metadata_redactions: object = None,
    fetched_from: object = None,
) -> dict[str, object]:
    """What a ``document_add`` event commits to: the document's identity and metadata, its
    root over how many chunks, the chunking rules, what admission took out of its text
    (kind and position) and metadata (field and kind), never the secret itself, and, for a
    fetch that redirects led elsewhere, the URL its bytes came from (``fetched_from``, no
    column of the row: like the redactions, the event's hash is what commits it)."""
    return {
        "document_id": document.id,
        "uri": document.uri,
        "version": document.version,
        "kind": document.kind,
        "title": document.title,
        "media_type": document.media_type,
        "content_sha256": document.content_sha256,
        "source_root": document.source_root,
        "chunk_count": document.chunk_count,
        "chunking_version": document.chunking_version,
        **({"redactions": redactions} if redactions else {}),
        **({"metadata_redactions": metadata_redactions} if metadata_redactions else {}),
        **({"fetched_from": fetched_from} if fetched_from else {}),
    }


class _Row(NamedTuple):
    """A document row as :func:`event_body` reads it (a field may hold what an edit put
    there, of any type)."""

    id: Any
    uri: Any
    version: Any
    kind: Any
    title: Any
    media_type: Any
    content_sha256: Any
    source_root: Any
    chunk_count: Any
    chunking_version: Any


_DOCUMENTS_SQL = (
    "SELECT id, uri, version, kind, title, media_type, content_sha256, source_root, "
    "chunk_count, chunking_version, created_at FROM documents WHERE id IN ({marks})"
)
_DOCUMENT_ID = "json_extract(CASE WHEN json_valid(body) THEN body END, '$.document_id')"
"""The expression store migration 11 indexes (``audit_document_add``): the lookup must say
it exactly for SQLite to search the index."""
_EVENTS_SQL = (
    f"SELECT {_DOCUMENT_ID}, prev_event_hash, event_type, sid, bates, body, created_at, "
    f"event_hash FROM audit_events WHERE event_type = 'document_add' "
    f"AND {_DOCUMENT_ID} IN ({{marks}})"
)
"""Two lookups, not a join: SQLite searches the expression index for a list of values,
but scans it once per document when the value comes from a joined row."""


def committed(conn: sqlite3.Connection, document_ids: Iterable[int]) -> dict[int, bool]:
    """For each of ``document_ids`` that is in the store, whether its row is what its
    ``document_add`` event committed (see the module's docstring); ids not in the store
    are left out. A document with two such events, or none, does not hold."""
    ids = cast(Sequence[str], sorted(set(document_ids)))  # integers: rows_in binds any value
    events: dict[object, list[tuple[Any, ...]]] = {}
    for row in rows_in(conn, _EVENTS_SQL, ids):
        events.setdefault(row[0], []).append(row[1:])
    out = {}
    for row in rows_in(conn, _DOCUMENTS_SQL, ids):
        found = events.get(row[0], [])
        out[int(row[0])] = len(found) == 1 and _holds(row, found[0])
    return out


def _holds(row: tuple[Any, ...], event: tuple[Any, ...]) -> bool:
    document, created_at = _Row(*row[:10]), row[10]
    prev, event_type, sid, bates, body_json, event_created_at, digest = event
    if not isinstance(body_json, str) or event_created_at != created_at:
        return False
    try:
        recomputed = stored_event_hash(
            prev,
            event_type=event_type,
            sid=sid,
            bates=bates,
            body_json=body_json,
            created_at=event_created_at,
        )
        body = json.loads(body_json)
    except (TypeError, ValueError, RecursionError):
        return False
    if recomputed != digest or not isinstance(body, dict):
        return False
    expected = event_body(
        document,
        redactions=body.get("redactions"),
        metadata_redactions=body.get("metadata_redactions"),
        fetched_from=body.get("fetched_from"),
    )
    return not differing_fields(body, expected, optional=OPTIONAL_FIELDS)
