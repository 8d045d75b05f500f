"""The places of stored chunks, given only where every chunk they depend on holds.

A chunk's place (:mod:`arborist._store.places`) is read from its document's chunk
texts ``0..i``. One is given here only when all of it is bound to the document's
committed root: the stored leaves, in order and as many as ``chunk_count``, fold to
``source_root``, and each text ``0..i`` is present (hot, or warm and decompressed)
and re-hashes to its leaf. Otherwise the chunk has no place: a cold chunk (no text)
or one whose text or leaf was edited, anywhere before it, leaves every place from
there on unknown, never shown as verified. Whether the document's root, media type
and chunking are its committed ones is the caller's (:mod:`arborist._store.metadata`).

Reading a document's places costs a pass over its chunks (about 20 µs a chunk here), so
a store connection keeps each document's places, read once, while store.db is
unchanged by any other connection (SQLite's ``data_version``) and until this one
writes chunks (:func:`forget_places`, which the store's only writers of chunks call:
:mod:`arborist._store.tiers`, and :mod:`arborist._store.documents` when it stores a
document or restores its texts). A write through this connection around those
functions (an edit by hand is another connection) is not seen.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

from arborist._proofs.hashing import leaf_hash
from arborist._proofs.merkle import merkle_root
from arborist._store.cache.stored import warm_text
from arborist._store.places import Place, chunk_places

__all__ = ["MAX_HELD", "document_places", "evidence_places", "forget_places"]

MAX_HELD = 256
"""How many documents' places one connection keeps between changes of store.db."""

_MEMO = "_arborist_places"
"""The attribute of a store connection that holds its documents' places (an
:class:`arborist._database.db.Connection` takes attributes; a bare sqlite3 connection keeps none)."""

Held = tuple[int, tuple[Place, ...]]
"""A document's places as read: the ``data_version`` they were read under, and one place
per chunk of the prefix that holds."""


def evidence_places(
    conn: sqlite3.Connection, wanted: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], Place]:
    """``{(document_id, chunk_index): place}`` for each chunk of ``wanted`` whose place
    holds (one read of each document); a chunk whose place does not is left out."""
    version = _data_version(conn)
    found: dict[tuple[int, int], Place] = {}
    for document_id, index in wanted:
        places = _places_of(conn, document_id, version)
        if 0 <= index < len(places):
            found[document_id, index] = places[index]
    return found


def document_places(conn: sqlite3.Connection, document_id: int) -> tuple[Place, ...]:
    """The places of the document's chunks ``0..k-1``, for the longest prefix that holds
    (see the module docstring): empty when even its first chunk's does not."""
    return _places_of(conn, document_id, _data_version(conn))


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def _places_of(conn: sqlite3.Connection, document_id: int, version: int) -> tuple[Place, ...]:
    """:func:`document_places`, kept on ``conn`` while ``data_version`` is ``version``."""
    memo: dict[int, Held] | None = getattr(conn, _MEMO, None)
    held = memo.get(document_id) if memo is not None else None
    if held is not None and held[0] == version:
        return held[1]
    row = conn.execute(
        "SELECT media_type, source_root, chunk_count, chunking_version FROM documents WHERE id = ?",
        (document_id,),
    ).fetchone()
    places = () if row is None else _read_places(conn, document_id, *row)
    if memo is None or len(memo) >= MAX_HELD:
        memo = {}
        try:
            setattr(conn, _MEMO, memo)
        except AttributeError:  # a bare sqlite3 connection: nothing is kept
            return places
    memo[document_id] = (version, places)
    return places


def forget_places(conn: sqlite3.Connection) -> None:
    """Drop the places ``conn`` keeps: its writers call this after moving chunks."""
    if getattr(conn, _MEMO, None):
        setattr(conn, _MEMO, {})


def _read_places(
    conn: sqlite3.Connection,
    document_id: int,
    media_type: object,
    source_root: object,
    chunk_count: object,
    chunking_version: object,
) -> tuple[Place, ...]:
    rows = conn.execute(
        "SELECT chunk_index, leaf, text, text_z FROM chunks WHERE document_id = ? "
        "ORDER BY chunk_index",
        (document_id,),
    ).fetchall()
    if not _leaves_fold(rows, source_root, chunk_count):
        return ()
    return tuple(chunk_places(_held_texts(rows), str(media_type), str(chunking_version)))


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
                text = warm_text(packed)
            except ValueError:
                return
        if not isinstance(text, str):
            return
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return
        if leaf_hash(data).hex() != leaf:
            return
        yield text
