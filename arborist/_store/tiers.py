"""Reversible eviction: hot, warm and cold chunks, and rehydration that proves what comes back.

* hot: text stored and indexed; search hits are STRICT (re-hash, prove).
* warm: text kept zlib-compressed, out of the index; back to hot locally.
* cold: only the leaf hash and the document's URI remain; hits on the
  title are VISUAL. Rehydration refetches the URI, re-chunks it and accepts
  the text only if every leaf matches what was stored; otherwise it refuses,
  keeps the chunks cold and marks the cache records that cited them stale.

Every change of tier is an audit event.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arborist._database.db import transaction
from arborist._errors import BadInput, IntegrityError
from arborist._gate.admission import admit_document
from arborist._proofs.audit import append_event
from arborist._store.cache.states import mark_stale
from arborist._store.cache.stored import warm_text
from arborist._store.chunking import chunk_text
from arborist._store.documents import Document, restore_chunks
from arborist._store.loaders import LoadedDocument
from arborist._store.place_reads import forget_places
from arborist._store.schema import COLD, HOT, WARM, index_title, unindex_chunks

__all__ = ["TierChange", "evict", "rehydrate"]


@dataclass(frozen=True)
class TierChange:
    """How many chunks of a document moved, and to which tier."""

    document: Document
    tier: str
    changed: int


def evict(conn: sqlite3.Connection, document: Document, tier: str) -> TierChange:
    """Move every chunk of ``document`` down to ``tier`` (``warm`` or ``cold``)."""
    if tier not in (WARM, COLD):
        raise BadInput(f"cannot evict to tier {tier!r}: choose warm or cold")
    with transaction(conn):
        rows = conn.execute(
            "SELECT id, tier, text FROM chunks WHERE document_id = ? ORDER BY chunk_index",
            (document.id,),
        ).fetchall()
        changed = 0
        was_hot = any(current == HOT for _, current, _ in rows)
        for chunk_id, current, text in rows:
            if current == tier or (current == COLD and tier == WARM):
                continue
            if current == HOT:
                unindex_chunks(conn, [chunk_id])
            if tier == WARM:
                conn.execute(
                    "UPDATE chunks SET tier = ?, text = NULL, text_z = ? WHERE id = ?",
                    (WARM, zlib.compress(text.encode("utf-8"), 6), chunk_id),
                )
            else:
                conn.execute(
                    "UPDATE chunks SET tier = ?, text = NULL, text_z = NULL, rehydrated = 0 "
                    "WHERE id = ?",
                    (COLD, chunk_id),
                )
            changed += 1
        if was_hot:  # every chunk is down now: the title is all a search can find it by
            index_title(conn, document.id, cold=True)
        if changed:
            append_event(
                conn,
                "tier_change",
                body={
                    "document_id": document.id,
                    "uri": document.uri,
                    "source_root": document.source_root,
                    "tier": tier,
                    "chunks": changed,
                },
            )
    forget_places(conn)  # a cold chunk's place is no longer given (store/place_reads.py)
    return TierChange(document, tier, changed)


def rehydrate(
    conn: sqlite3.Connection,
    document: Document,
    fetch: Callable[[str], LoadedDocument],
    *,
    allowlist: Sequence[str] = (),
) -> TierChange:
    """Bring a document's chunks back to hot: warm ones locally, cold ones from its URI.

    On any mismatch nothing comes back: the chunks stay as they were, the
    cache records citing the document become ``stale`` (committed), and an
    IntegrityError says which chunk differs.
    """
    tiers = {
        tier
        for (tier,) in conn.execute(
            "SELECT DISTINCT tier FROM chunks WHERE document_id = ?", (document.id,)
        )
    }
    if tiers == {HOT}:
        return TierChange(document, HOT, 0)
    if COLD in tiers:
        fetched = admit_document(fetch(document.uri).text, name=document.uri, allowlist=allowlist)
        texts = [chunk.text for chunk in chunk_text(fetched.text)]
        how = "refetched"
    else:
        texts = _local_texts(conn, document)
        how = "decompressed"
    try:
        restored = restore_chunks(conn, document, texts, how=how)
    except IntegrityError as exc:
        with transaction(conn):
            append_event(
                conn,
                "rehydrate_refused",
                body={"document_id": document.id, "uri": document.uri, "reason": str(exc)},
            )
            mark_stale(conn, document.id, f"rehydration refused: {exc}")
        raise IntegrityError(f"rehydration refused: {exc}") from exc
    return TierChange(document, HOT, restored)


def _local_texts(conn: sqlite3.Connection, document: Document) -> list[str]:
    """A warm document's texts, decompressed (:func:`warm_text`); IntegrityError naming the
    first chunk whose stored bytes are no chunk's (an edit)."""
    texts = []
    for index, text, text_z in conn.execute(
        "SELECT chunk_index, text, text_z FROM chunks WHERE document_id = ? ORDER BY chunk_index",
        (document.id,),
    ):
        try:
            texts.append(text if text is not None else warm_text(text_z))
        except ValueError as exc:
            raise IntegrityError(
                f"rehydration refused: chunk {index} of {document.uri}: {exc}"
            ) from None
    return texts
