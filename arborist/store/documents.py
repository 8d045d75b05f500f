"""Documents and their chunks in ``store.db``: ingest, versions, lookups, inclusion proofs.

A document is the text of one source at one moment. Its chunks' leaves
(``leaf_hash(utf8(chunk_text))``) form a Merkle tree whose root is the
document's ``source_root``, stored beside ``chunk_count``: the size every
proof must be verified against. Re-ingesting the same bytes at the same URI
changes nothing; different bytes make a new version, the old one becomes
``superseded``, and cache records that cited it become ``stale``.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arborist.admission import admit_document
from arborist.audit import append_event
from arborist.clock import utc_now
from arborist.db import transaction
from arborist.errors import BadInput, IntegrityError, NotFound
from arborist.hashing import leaf_hash
from arborist.merkle import inclusion_proofs, merkle_root
from arborist.store.chunking import CHUNKING_VERSION, Chunk, chunk_text
from arborist.store.loaders import LoadedDocument
from arborist.store.schema import index_chunks

__all__ = [
    "Document",
    "IngestResult",
    "document_leaves",
    "get_document",
    "ingest_document",
    "mark_stale",
    "proofs_for",
    "resolve_document",
    "restore_chunks",
]

DocumentKind = Literal["surface", "core"]

_DOCUMENT_COLUMNS = (
    "id, uri, version, kind, title, media_type, content_sha256, source_root, chunk_count, "
    "chunking_version, status, created_at"
)


@dataclass(frozen=True)
class Document:
    """One version of one document."""

    id: int
    uri: str
    version: int
    kind: str
    title: str
    media_type: str
    content_sha256: str
    source_root: str
    chunk_count: int
    chunking_version: str
    status: str
    created_at: str


@dataclass(frozen=True)
class IngestResult:
    """What ingesting one source did: ``added``, ``updated`` (a new version), ``unchanged``
    or ``restored`` (same bytes brought evicted chunks back)."""

    document: Document
    status: Literal["added", "updated", "unchanged", "restored"]
    stale_records: int = 0


def _document(row: tuple[object, ...]) -> Document:
    return Document(*row)  # type: ignore[arg-type]


def get_document(conn: sqlite3.Connection, document_id: int) -> Document:
    """The document with this id (any version); NotFound otherwise."""
    row = conn.execute(
        f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE id = ?", (document_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no document with id {document_id}")
    return _document(row)


def resolve_document(conn: sqlite3.Connection, ref: str) -> Document:
    """The current document named by ``ref``: an id, a URI, a file path, or a source_root prefix."""
    ref = ref.strip()
    if not ref:
        raise BadInput("empty document reference")
    if ref.isdigit():
        return get_document(conn, int(ref))
    candidates = [ref]
    path = Path(ref).expanduser()
    if "://" not in ref and not ref.startswith(("pydoc:", "core:")):
        candidates.append(path.resolve().as_uri())
    for uri in candidates:
        row = conn.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE uri = ? AND status = 'current'",
            (uri,),
        ).fetchone()
        if row:
            return _document(row)
    if len(ref) >= 8 and all(c in "0123456789abcdef" for c in ref.lower()):
        rows = conn.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE source_root LIKE ? || '%' "
            "ORDER BY status = 'current' DESC, id DESC LIMIT 2",
            (ref.lower(),),
        ).fetchall()
        if len(rows) == 1:
            return _document(rows[0])
        if len(rows) > 1:
            raise BadInput(f"document reference {ref!r} is ambiguous: give more of the source_root")
    raise NotFound(f"no document {ref!r} (give an id, a URI, a path or a source_root prefix)")


def document_leaves(conn: sqlite3.Connection, document_id: int) -> list[bytes]:
    """The stored leaves of a document, in chunk order."""
    return [
        bytes.fromhex(leaf)
        for (leaf,) in conn.execute(
            "SELECT leaf FROM chunks WHERE document_id = ? ORDER BY chunk_index", (document_id,)
        )
    ]


def proofs_for(
    conn: sqlite3.Connection, wanted: list[tuple[int, int]]
) -> dict[tuple[int, int], list[str]]:
    """Inclusion proofs (hex, leaf-most first) for ``(document_id, chunk_index)`` pairs.

    Each document's leaves are read, and its tree hashed, once however many of
    its chunks are wanted.
    """
    by_document: dict[int, list[int]] = {}
    for document_id, index in wanted:
        by_document.setdefault(document_id, []).append(index)
    proofs: dict[tuple[int, int], list[str]] = {}
    for document_id, indices in by_document.items():
        paths = inclusion_proofs(document_leaves(conn, document_id), indices)
        for index, path in zip(indices, paths, strict=True):
            proofs[(document_id, index)] = [p.hex() for p in path]
    return proofs


def mark_stale(conn: sqlite3.Connection, document_id: int, reason: str) -> int:
    """Mark every ``ok`` cache record citing this document ``stale``; one audit event. Returns the count."""
    rows = conn.execute(
        "SELECT id, cache_key, revision FROM cache_records WHERE state = 'ok' AND id IN "
        "(SELECT record_id FROM cache_evidence WHERE document_id = ?) ORDER BY id",
        (document_id,),
    ).fetchall()
    if not rows:
        return 0
    conn.executemany(
        "UPDATE cache_records SET state = 'stale', state_reason = ? WHERE id = ?",
        [(reason, record_id) for record_id, _key, _rev in rows],
    )
    append_event(
        conn,
        "cache_state",
        body={
            "state": "stale",
            "reason": reason,
            "records": [{"cache_key": key, "revision": rev} for _id, key, rev in rows],
        },
    )
    return len(rows)


def _insert_chunks(
    conn: sqlite3.Connection,
    document_id: int,
    title: str,
    chunks: list[Chunk],
    leaves: list[bytes],
) -> None:
    """Insert a document's chunks and index them, two statements in all (ids assigned here,
    inside the caller's write transaction, so they are known without a round trip each)."""
    first = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0]
    rows = [
        (first + index, document_id, index, leaf.hex(), chunk.text, chunk.heading)
        for index, (chunk, leaf) in enumerate(zip(chunks, leaves, strict=True))
    ]
    conn.executemany(
        "INSERT INTO chunks (id, document_id, chunk_index, leaf, tier, text, heading) "
        "VALUES (?, ?, ?, ?, 'hot', ?, ?)",
        rows,
    )
    # The index's fields as the view gives them, without reading back what was just written.
    conn.executemany(
        "INSERT INTO chunks_fts (rowid, text, title) VALUES (?, ?, ?)",
        [(row[0], row[4], title) for row in rows],
    )


def ingest_document(
    conn: sqlite3.Connection,
    loaded: LoadedDocument,
    *,
    kind: DocumentKind = "surface",
    allowlist: Sequence[str] = (),
) -> IngestResult:
    """Store one loaded source as a document (or recognise it), in one transaction."""
    admitted = admit_document(
        unicodedata.normalize("NFC", loaded.text), name=loaded.uri, allowlist=allowlist
    )
    chunks = chunk_text(admitted.text)
    if not chunks:
        raise BadInput(f"{loaded.uri} has no text to index")
    leaves = [leaf_hash(chunk.text.encode("utf-8")) for chunk in chunks]
    source_root = merkle_root(leaves).hex()
    with transaction(conn):
        row = conn.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE uri = ? AND status = 'current'",
            (loaded.uri,),
        ).fetchone()
        current = _document(row) if row else None
        if (
            current is not None
            and current.source_root == source_root
            and current.chunk_count == len(chunks)
            and current.chunking_version == CHUNKING_VERSION
        ):
            restored = restore_chunks(conn, current, [c.text for c in chunks], how="re-ingested")
            return IngestResult(current, "restored" if restored else "unchanged")
        stale = 0
        version = 1
        if current is not None:
            version = current.version + 1
            conn.execute("UPDATE documents SET status = 'superseded' WHERE id = ?", (current.id,))
            stale = mark_stale(conn, current.id, f"{loaded.uri} changed (now version {version})")
        created_at = utc_now()
        cursor = conn.execute(
            "INSERT INTO documents (uri, version, kind, title, media_type, content_sha256, "
            "source_root, chunk_count, chunking_version, status, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'current', ?)",
            (
                loaded.uri,
                version,
                kind,
                loaded.title,
                loaded.media_type,
                loaded.content_sha256,
                source_root,
                len(chunks),
                CHUNKING_VERSION,
                created_at,
            ),
        )
        document_id = int(cursor.lastrowid or 0)
        conn.execute(
            "INSERT INTO documents_fts (rowid, title, uri) VALUES (?, ?, ?)",
            (document_id, loaded.title, loaded.uri),
        )
        _insert_chunks(conn, document_id, loaded.title, chunks, leaves)
        append_event(
            conn,
            "document_add",
            body={
                "document_id": document_id,
                "uri": loaded.uri,
                "version": version,
                "kind": kind,
                "title": loaded.title,
                "media_type": loaded.media_type,
                "content_sha256": loaded.content_sha256,
                "source_root": source_root,
                "chunk_count": len(chunks),
                "chunking_version": CHUNKING_VERSION,
                **(
                    {
                        "redactions": [
                            {"kind": r.kind, "start": r.start, "end": r.end}
                            for r in admitted.redactions
                        ]
                    }
                    if admitted.redactions
                    else {}
                ),
            },
            created_at=created_at,
        )
        document = get_document(conn, document_id)
    return IngestResult(document, "updated" if current else "added", stale)


def restore_chunks(
    conn: sqlite3.Connection, document: Document, texts: Sequence[str], *, how: str
) -> int:
    """Put ``texts`` back as the document's hot chunks if, and only if, every leaf matches.

    Runs inside the caller's transaction (or its own). Raises IntegrityError
    naming the first chunk that differs; returns how many chunks came back.
    """
    with transaction(conn):
        rows = conn.execute(
            "SELECT id, chunk_index, leaf, tier, text_z FROM chunks WHERE document_id = ? "
            "ORDER BY chunk_index",
            (document.id,),
        ).fetchall()
        if len(texts) != len(rows):
            raise IntegrityError(
                f"{document.uri} now has {len(texts)} chunks where {len(rows)} were stored"
            )
        for (_id, index, leaf, _tier, _z), text in zip(rows, texts, strict=True):
            if leaf_hash(text.encode("utf-8")).hex() != leaf:
                raise IntegrityError(
                    f"{document.uri} no longer matches: chunk {index} of {len(rows)} differs "
                    f"from its stored leaf {leaf[:12]}…"
                )
        restored = 0
        for (chunk_id, _index, _leaf, tier, _z), text in zip(rows, texts, strict=True):
            if tier == "hot":
                continue
            conn.execute(
                "UPDATE chunks SET tier = 'hot', text = ?, text_z = NULL, rehydrated = ? WHERE id = ?",
                (text, 1 if tier == "cold" else 0, chunk_id),
            )
            index_chunks(conn, [chunk_id])
            restored += 1
        if restored:
            append_event(
                conn,
                "tier_change",
                body={
                    "document_id": document.id,
                    "uri": document.uri,
                    "source_root": document.source_root,
                    "tier": "hot",
                    "chunks": restored,
                    "how": how,
                },
            )
    return restored
