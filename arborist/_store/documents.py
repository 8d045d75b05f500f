"""Documents and their chunks in ``store.db``: ingest, versions, lookups, inclusion proofs.

A document is the text of one source at one moment. Its chunks' leaves
(``leaf_hash(utf8(chunk_text))``) form a Merkle tree whose root is the
document's ``source_root``, stored beside ``chunk_count``: the size every
proof must be verified against. Re-ingesting the same bytes at the same URI
changes nothing; different bytes make a new version, the old one becomes
``superseded``, and cache records that cited it become ``stale``.

Ingest is two steps. :func:`prepare_document` does everything that can refuse
a source without touching the store: the admission gate on the text, the
title and the URI (a secret in a heading, a file name, a URL's userinfo or
query never reaches the store or the audit log) and the check that there is
text to index. Then :func:`store_document` chunks, hashes and writes it in one
transaction. A batch prepares every source before it stores the first, so a
refusal writes nothing at all. A long document is chunked twice (once to hash,
once to write) rather than held beside all its chunks.
"""

from __future__ import annotations

import os
import sqlite3
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arborist._clock import utc_now
from arborist._database.db import transaction
from arborist._errors import BadInput, IntegrityError, NotFound
from arborist._gate.admission import Redaction, admit, admit_document
from arborist._proofs.audit import append_event
from arborist._proofs.hashing import leaf_hash
from arborist._proofs.merkle import block_span, proof_from_levels, sibling_positions, tree_levels
from arborist._store.cache.states import mark_stale
from arborist._store.chunking import CHUNKING_VERSION, Chunk, iter_chunks
from arborist._store.loaders import LoadedDocument, file_uri
from arborist._store.metadata import event_body
from arborist._store.place_reads import forget_places
from arborist._store.schema import COLD, HOT, NODE_FLOOR, index_chunks, index_title, store_nodes
from arborist._store.uris import admit_uri, stored_uri

__all__ = [
    "Document",
    "IngestResult",
    "PreparedDocument",
    "document_event_body",
    "document_leaves",
    "get_document",
    "holds_chunk",
    "ingest_document",
    "prepare_document",
    "proofs_for",
    "resolve_document",
    "restore_chunks",
    "store_document",
    "stored_documents",
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
    fetched_from: str | None = None
    """Where this ingest's bytes came from when a fetch was redirected (admitted, as the
    URI is); a new document's ``document_add`` event commits it."""


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


def stored_documents(conn: sqlite3.Connection) -> list[Document]:
    """Every version of every document, by id: what ``arborist verify`` checks."""
    return [
        _document(row)
        for row in conn.execute(f"SELECT {_DOCUMENT_COLUMNS} FROM documents ORDER BY id")
    ]


def document_event_body(
    document: Document,
    *,
    redactions: object = None,
    metadata_redactions: object = None,
    fetched_from: object = None,
) -> dict[str, object]:
    """What a ``document_add`` event commits to (:func:`arborist._store.metadata.event_body`):
    the document's identity and metadata, its root over how many chunks, the chunking
    rules, what admission took out of it, and where a redirected fetch got its bytes.
    ``arborist verify`` rebuilds it from the row, and every view of an answer checks its
    documents against it."""
    return event_body(
        document,
        redactions=redactions,
        metadata_redactions=metadata_redactions,
        fetched_from=fetched_from,
    )


def resolve_document(conn: sqlite3.Connection, ref: str) -> Document:
    """The current document named by ``ref``: an id, a URI, a file path, or a source_root prefix."""
    ref = ref.strip()
    if not ref:
        raise BadInput("empty document reference")
    if ref.isdigit():
        return get_document(conn, int(ref))
    candidates = [ref]
    path = Path(os.path.expanduser(ref))  # ~user of no one stays as typed (no RuntimeError)
    if "://" not in ref and not ref.startswith(("pydoc:", "core:", "file:")):
        # how ingest names a file (~/… under the home), and how a store filled before
        # that rule named it
        candidates += dict.fromkeys((file_uri(path), path.resolve().as_uri()))
    # A URI holding a secret is stored redacted (without the home's allowlist, an
    # allowlisted one is stored as given and matched above).
    candidates += [uri for uri in map(stored_uri, candidates) if uri not in candidates]
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


def holds_chunk(conn: sqlite3.Connection, leaf: str) -> bool:
    """Whether any document has a chunk with this leaf hash."""
    return (
        conn.execute("SELECT 1 FROM chunks WHERE leaf = ? LIMIT 1", (leaf,)).fetchone() is not None
    )


def proofs_for(
    conn: sqlite3.Connection, wanted: list[tuple[int, int]]
) -> dict[tuple[int, int], list[str]]:
    """Inclusion proofs (hex, leaf-most first) for ``(document_id, chunk_index)`` pairs.

    A proof never refolds its document: it reads the chunk's aligned block of at most
    ``2**NODE_FLOOR`` leaves (one range of ``chunks``) and folds it, then takes the
    siblings above from ``merkle_nodes`` (one query): O(log n) at any size. A proof is
    what the stored rows make it, unchecked: a node edited since ingest gives one that
    does not verify, and a missing node or leaf leaves its place out, so that one does not
    verify either. Every caller verifies a proof before it serves or writes one (and
    ``arborist verify`` names the document).
    """
    proofs: dict[tuple[int, int], list[str]] = {}
    for document_id, index in wanted:
        if (document_id, index) not in proofs:
            proofs[(document_id, index)] = [
                p.hex() for p in _stored_proof(conn, document_id, index)
            ]
    return proofs


def _stored_proof(conn: sqlite3.Connection, document_id: int, index: int) -> list[bytes]:
    """One leaf's proof from its block's leaves and the stored nodes above (see :func:`proofs_for`)."""
    row = conn.execute("SELECT chunk_count FROM documents WHERE id = ?", (document_id,)).fetchone()
    if row is None or not 0 <= index < row[0]:
        return []
    size = int(row[0])
    start, stop = block_span(size, index, NODE_FLOOR)
    block = [
        bytes.fromhex(leaf)
        for (leaf,) in conn.execute(
            "SELECT leaf FROM chunks WHERE document_id = ? AND chunk_index >= ? "
            "AND chunk_index < ? ORDER BY chunk_index",
            (document_id, start, stop),
        )
    ]
    if len(block) != stop - start:
        return []
    proof = proof_from_levels(tree_levels(block), index - start)
    above = sibling_positions(size, index, NODE_FLOOR)
    if above:
        # One primary-key lookup per sibling (an OR of them is planned as a scan of the
        # document's nodes); a node that is not a blob (an edited row) is left out.
        one = (
            "SELECT level, position, node FROM merkle_nodes "
            "WHERE document_id = ? AND level = ? AND position = ? AND typeof(node) = 'blob'"
        )
        nodes = {
            (level, position): bytes(node)
            for level, position, node in conn.execute(
                " UNION ALL ".join([one] * len(above)),
                [n for place in above for n in (document_id, *place)],
            )
        }
        proof += [nodes[place] for place in above if place in nodes]
    return proof


_CHUNK_BATCH = 512
"""Chunk rows written per statement: a document's rows are never all built at once."""

_CHUNK_INSERT = (
    "INSERT INTO chunks (document_id, chunk_index, leaf, tier, text, heading) "
    f"VALUES (?, ?, ?, '{HOT}', ?, ?)"
)
_CHUNK_INDEX = (
    "INSERT INTO chunks_fts (rowid, text, title) "
    "SELECT id, text, ? FROM chunks WHERE document_id = ? ORDER BY chunk_index"
)


def _insert_chunks(
    conn: sqlite3.Connection,
    document_id: int,
    title: str,
    chunks: Iterable[Chunk],
    leaves: Sequence[bytes],
) -> None:
    """Insert a new document's chunks, in batches, then index them all with one statement
    that reads them back: the fields the view gives them (``title`` is the document row's),
    one pass of FTS5 rather than a statement per chunk, and no texts handed over twice.
    SQLite numbers the rows (the last id plus one, in order)."""
    rows: list[tuple[int, int, str, str, str | None]] = []
    for index, (chunk, leaf) in enumerate(zip(chunks, leaves, strict=True)):
        rows.append((document_id, index, leaf.hex(), chunk.text, chunk.heading))
        if len(rows) == _CHUNK_BATCH:
            conn.executemany(_CHUNK_INSERT, rows)
            rows = []
    if rows:
        conn.executemany(_CHUNK_INSERT, rows)
    conn.execute(_CHUNK_INDEX, (title, document_id))


# --- ingest ---------------------------------------------------------------------------------

_KEPT_CHUNKS_CHARS = 8 * 1024 * 1024
"""A text up to this long is chunked once; a longer one twice (to hash, then to write)
rather than held beside all its chunks: its memory stays one copy of it."""


@dataclass(frozen=True)
class PreparedDocument:
    """A loaded source that passed the admission gate, not yet stored.

    ``uri``, ``title`` and ``text`` are what the store will hold, secrets
    replaced; ``text`` has something to index.
    """

    uri: str
    title: str
    text: str
    media_type: str
    content_sha256: str
    redactions: tuple[Redaction, ...]
    metadata_redactions: tuple[tuple[str, str], ...]
    """``(field, kind)`` for each secret taken out of the title, the URI or ``fetched_from``."""
    fetched_from: str | None = None
    """The URL a redirected fetch's bytes came from, through the gate as ``uri`` is."""


def prepare_document(
    loaded: LoadedDocument, *, allowlist: Sequence[str] = (), name: str | None = None
) -> PreparedDocument:
    """Everything about storing ``loaded`` that can refuse it, without touching a store.

    The text, the title and the URI pass the admission gate (a document that is
    mostly secret material is refused), and the text must hold something to
    index (a character that is not whitespace: exactly when it has a chunk).
    ``name`` is how a refusal names the source (the path as the user gave it);
    by default the stored, redacted URI, which holds no secret.
    """
    uri, uri_kinds = admit_uri(loaded.uri, allowlist=allowlist)
    fetched_from, from_kinds = (
        admit_uri(loaded.fetched_from, allowlist=allowlist) if loaded.fetched_from else (None, [])
    )
    title = admit(loaded.title, allowlist=allowlist)
    label = uri if name is None else name
    admitted = admit_document(
        unicodedata.normalize("NFC", loaded.text), name=label, allowlist=allowlist
    )
    if not admitted.text or admitted.text.isspace():
        raise BadInput(f"{label} has no text to index")
    return PreparedDocument(
        uri=uri,
        title=title.text,
        text=admitted.text,
        media_type=loaded.media_type,
        content_sha256=loaded.content_sha256,
        redactions=admitted.redactions,
        metadata_redactions=(
            *(("title", r.kind) for r in title.redactions),
            *(("uri", kind) for kind in uri_kinds),
            *(("fetched_from", kind) for kind in from_kinds),
        ),
        fetched_from=fetched_from,
    )


def ingest_document(
    conn: sqlite3.Connection,
    loaded: LoadedDocument,
    *,
    kind: DocumentKind = "surface",
    allowlist: Sequence[str] = (),
) -> IngestResult:
    """Store one loaded source as a document (or recognise it), in one transaction."""
    return store_document(conn, prepare_document(loaded, allowlist=allowlist), kind=kind)


def store_document(
    conn: sqlite3.Connection, prepared: PreparedDocument, *, kind: DocumentKind = "surface"
) -> IngestResult:
    """Store a prepared document (or recognise it), in one transaction.

    The chunks are made and hashed before the transaction opens. A text of up to
    :data:`_KEPT_CHUNKS_CHARS` keeps its chunks for the writes; a longer one is
    chunked again to write them, so it is never held twice.
    """
    text = prepared.text
    kept = list(iter_chunks(text)) if len(text) <= _KEPT_CHUNKS_CHARS else None
    leaves = [
        leaf_hash(chunk.text.encode("utf-8"))
        for chunk in (kept if kept is not None else iter_chunks(text))
    ]
    if not leaves:
        raise BadInput(f"{prepared.uri} has no text to index")
    levels = tree_levels(leaves)  # one fold: the root, and the nodes a proof reads
    source_root = levels[-1][0].hex()

    def chunks() -> Iterable[Chunk]:
        return kept if kept is not None else iter_chunks(text)

    with transaction(conn):
        row = conn.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE uri = ? AND status = 'current'",
            (prepared.uri,),
        ).fetchone()
        current = _document(row) if row else None
        if (
            current is not None
            and current.source_root == source_root
            and current.chunk_count == len(leaves)
            and current.chunking_version == CHUNKING_VERSION
        ):
            texts = (chunk.text for chunk in chunks())
            restored = _restore(conn, current, len(leaves), texts, how="re-ingested")
            return IngestResult(
                current,
                "restored" if restored else "unchanged",
                fetched_from=prepared.fetched_from,
            )
        stale = 0
        version = 1
        if current is not None:
            version = current.version + 1
            conn.execute("UPDATE documents SET status = 'superseded' WHERE id = ?", (current.id,))
            stale = mark_stale(conn, current.id, f"{prepared.uri} changed (now version {version})")
        created_at = utc_now()
        document = _insert_document(
            conn, prepared, kind, (version, source_root, len(leaves)), created_at
        )
        _insert_chunks(conn, document.id, prepared.title, chunks(), leaves)
        store_nodes(conn, document.id, levels)
        _document_added(conn, document, prepared, created_at)
    forget_places(conn)  # none is kept of a document id a rolled-back write had used
    return IngestResult(
        document, "updated" if current else "added", stale, fetched_from=prepared.fetched_from
    )


def _insert_document(
    conn: sqlite3.Connection,
    prepared: PreparedDocument,
    kind: DocumentKind,
    tree: tuple[int, str, int],
    created_at: str,
) -> Document:
    """The document's row (``tree``: its version, Merkle root and chunk count); returns it
    as stored, without reading it back. Its title is indexed through its chunks (a document
    always has one); the title index takes it only once every chunk is evicted (store
    migration 8's triggers)."""
    version, source_root, chunk_count = tree
    values = (
        prepared.uri,
        version,
        kind,
        prepared.title,
        prepared.media_type,
        prepared.content_sha256,
        source_root,
        chunk_count,
        CHUNKING_VERSION,
        "current",
        created_at,
    )
    cursor = conn.execute(
        f"INSERT INTO documents ({_DOCUMENT_COLUMNS}) VALUES (NULL{', ?' * len(values)})", values
    )
    return Document(int(cursor.lastrowid or 0), *values)


def _document_added(
    conn: sqlite3.Connection, document: Document, prepared: PreparedDocument, created_at: str
) -> None:
    """The ``document_add`` event, with where the admission gate redacted the text."""
    append_event(
        conn,
        "document_add",
        body=document_event_body(
            document,
            redactions=[
                {"kind": r.kind, "start": r.start, "end": r.end} for r in prepared.redactions
            ],
            metadata_redactions=[
                {"field": field, "kind": kind_} for field, kind_ in prepared.metadata_redactions
            ],
            fetched_from=prepared.fetched_from,
        ),
        created_at=created_at,
    )


def restore_chunks(
    conn: sqlite3.Connection, document: Document, texts: Sequence[str], *, how: str
) -> int:
    """Put ``texts`` back as the document's hot chunks if, and only if, every leaf matches.

    Runs inside the caller's transaction (or its own). Raises IntegrityError
    naming the first chunk that differs; returns how many chunks came back.
    """
    return _restore(conn, document, len(texts), iter(texts), how=how)


def _restore(
    conn: sqlite3.Connection, document: Document, count: int, texts: Iterator[str], *, how: str
) -> int:
    """:func:`restore_chunks` of ``count`` texts given one at a time: only the texts of
    chunks that are not hot are kept until every leaf has been checked."""
    with transaction(conn):
        rows = conn.execute(
            "SELECT id, chunk_index, leaf, tier FROM chunks WHERE document_id = ? "
            "ORDER BY chunk_index",
            (document.id,),
        ).fetchall()
        if count != len(rows):
            raise IntegrityError(
                f"{document.uri} now has {count} chunks where {len(rows)} were stored"
            )
        back: list[tuple[int, str, str]] = []
        for (chunk_id, index, leaf, tier), text in zip(rows, texts, strict=True):
            if leaf_hash(text.encode("utf-8")).hex() != leaf:
                raise IntegrityError(
                    f"{document.uri} no longer matches: chunk {index} of {len(rows)} differs "
                    f"from its stored leaf {leaf[:12]}…"
                )
            if tier != HOT:
                back.append((chunk_id, tier, text))
        if back and len(back) == len(rows):  # no chunk was hot: the title was indexed
            index_title(conn, document.id, cold=False)
        for chunk_id, tier, text in back:
            conn.execute(
                "UPDATE chunks SET tier = ?, text = ?, text_z = NULL, rehydrated = ? WHERE id = ?",
                (HOT, text, 1 if tier == COLD else 0, chunk_id),
            )
            index_chunks(conn, [chunk_id])
        if back:
            append_event(
                conn,
                "tier_change",
                body={
                    "document_id": document.id,
                    "uri": document.uri,
                    "source_root": document.source_root,
                    "tier": HOT,
                    "chunks": len(back),
                    "how": how,
                },
            )
    forget_places(conn)  # the places read while these chunks were down are out of date
    return len(back)
