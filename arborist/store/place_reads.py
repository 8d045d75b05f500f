"""The places of stored chunks, given only where every chunk they depend on holds.

A chunk's place (:mod:`arborist.store.places`) is read from its document's chunk
texts ``0..i``. One is given here only when all of it is bound to the document's
committed root: the stored leaves, in order and as many as ``chunk_count``, fold to
``source_root``, and each text ``0..i`` is present (hot, or warm and decompressed)
and re-hashes to its leaf. Otherwise the chunk has no place: a cold chunk (no text)
or one whose text or leaf was edited, anywhere before it, leaves every place from
there on unknown, never shown as verified. Whether the document's root, media type
and chunking are its committed ones is the caller's (:mod:`arborist.store.metadata`).
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Collection, Iterable, Iterator

from arborist.merkle import merkle_root
from arborist.store.places import Place, chunk_places
from arborist.store.proofs import text_matches

__all__ = ["document_places", "evidence_places"]


def evidence_places(
    conn: sqlite3.Connection, wanted: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], Place]:
    """``{(document_id, chunk_index): place}`` for each chunk of ``wanted`` whose place
    holds (one read of each document); a chunk whose place does not is left out."""
    by_document: dict[int, set[int]] = {}
    for document_id, index in wanted:
        by_document.setdefault(document_id, set()).add(index)
    found: dict[tuple[int, int], Place] = {}
    for document_id, indices in by_document.items():
        for index, place in document_places(conn, document_id, indices).items():
            found[document_id, index] = place
    return found


def document_places(
    conn: sqlite3.Connection, document_id: int, indices: Collection[int]
) -> dict[int, Place]:
    """The places of chunks ``indices`` of one document that hold (see the module docstring)."""
    if not indices:
        return {}
    row = conn.execute(
        "SELECT media_type, source_root, chunk_count, chunking_version FROM documents WHERE id = ?",
        (document_id,),
    ).fetchone()
    if row is None:
        return {}
    media_type, source_root, chunk_count, chunking_version = row
    last = max(indices)
    rows = conn.execute(
        "SELECT chunk_index, leaf, CASE WHEN chunk_index <= ? THEN text END, "
        "CASE WHEN chunk_index <= ? THEN text_z END "
        "FROM chunks WHERE document_id = ? ORDER BY chunk_index",
        (last, last, document_id),
    ).fetchall()
    if not _leaves_fold(rows, source_root, chunk_count):
        return {}
    texts = _held_texts(rows[: last + 1])
    wanted = set(indices)
    return {
        index: place
        for index, place in enumerate(chunk_places(texts, str(media_type), str(chunking_version)))
        if index in wanted
    }


def _leaves_fold(rows: list[tuple[object, ...]], source_root: object, chunk_count: object) -> bool:
    """Whether the stored leaves are ``chunk_count`` in index order and fold to ``source_root``."""
    if len(rows) != chunk_count or any(row[0] != n for n, row in enumerate(rows)):
        return False
    try:
        leaves = [bytes.fromhex(str(row[1])) for row in rows]
    except ValueError:
        return False
    return merkle_root(leaves).hex() == source_root


def _held_texts(rows: list[tuple[object, ...]]) -> Iterator[str]:
    """Each chunk's text in order while it is present and re-hashes to its leaf; the first
    that is absent (cold) or does not hold ends them."""
    for _, leaf, hot, packed in rows:
        text = hot
        if hot is None and isinstance(packed, bytes):
            try:
                text = zlib.decompress(packed).decode("utf-8")
            except (zlib.error, UnicodeDecodeError):
                return
        if not isinstance(text, str) or not text_matches(text, leaf):
            return
        yield text
