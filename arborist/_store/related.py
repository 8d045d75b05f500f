"""What ``arborist related`` and an ask's ``--related`` lane read of the co-access index.

A ref is a chunk leaf, a document (:func:`related_sources`) or a turn (the chunks its
answer cited: :func:`turn_leaves`); the index is read at the version the home's ``[coaccess]``
settings select, rebuilt first when it lags the rows recorded (:func:`fresh_index`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arborist._errors import BadInput, NotFound
from arborist._store import coaccess
from arborist._store.cache.records import CacheRecord
from arborist._store.coaccess import RelatedSource
from arborist._store.documents import document_leaves, holds_chunk, resolve_document

__all__ = [
    "RELATED_LANE",
    "RELATED_SLACK",
    "Related",
    "cited_related",
    "fresh_index",
    "related_sources",
    "turn_leaves",
]

RELATED_LANE = 3
"""How many co-accessed chunks ``--related`` adds to an ask's evidence."""

RELATED_SLACK = 0.1
"""How far (a fraction of its rows) the co-access index may lag before an ask's
``--related`` lane or the widget rebuilds it; ``arborist related`` never lets it lag."""


@dataclass(frozen=True)
class Related:
    """What ``related REF`` found: the leaves REF stands for, and their co-accessed chunks."""

    kind: str
    sources: tuple[str, ...]
    items: tuple[RelatedSource, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "sources": list(self.sources),
            "related": [item.as_json() for item in self.items],
        }


def fresh_index(
    conn: sqlite3.Connection,
    version: str,
    rebuild: Callable[[], object],
    *,
    purpose: str,
    slack: float = 0.0,
) -> str:
    """``version``, the index to read, after ``rebuild`` (flag on) when it lags the rows by
    more than ``slack`` (a fraction): 0 for an explicit ``related``; the ask's
    ``--related`` lane and the widget pass :data:`RELATED_SLACK`, so their cost of keeping
    it fresh is spread over many turns instead of paid on each."""
    if not coaccess.has_schema(conn):
        raise BadInput(
            f"{purpose}: this store has no co-access index; set {coaccess.FLAG}=1 "
            "and ask some questions first"
        )
    if coaccess.enabled() and coaccess.is_stale(conn, version, slack=slack):
        rebuild()
    return version


def cited_related(
    conn: sqlite3.Connection, record: CacheRecord, version: str, *, limit: int
) -> list[RelatedSource]:
    """Related sources of an answer's cited chunks."""
    cited = list(dict.fromkeys(e.leaf for e in record.evidence if e.cited))
    return coaccess.describe(
        conn, coaccess.related_edges(conn, cited, version=version, limit=limit)
    )


def turn_leaves(record: CacheRecord) -> list[str]:
    """The leaves a turn stands for: the chunks its answer cited, else all its evidence."""
    leaves = [e.leaf for e in record.evidence if e.cited] or [e.leaf for e in record.evidence]
    return list(dict.fromkeys(leaves))


def related_sources(conn: sqlite3.Connection, ref: str) -> tuple[str, list[str]]:
    """What ``ref`` (not a turn: see :func:`turn_leaves`) stands for, and its leaves: a
    chunk or a document."""
    if not ref:
        raise BadInput("related: give a chunk hash, a document or a bates number")
    is_leaf = len(ref) == 64 and all(c in "0123456789abcdef" for c in ref)
    if is_leaf and holds_chunk(conn, ref):
        return "chunk", [ref]
    try:
        document = resolve_document(conn, ref)
    except NotFound:
        raise NotFound(
            f"no chunk, document or turn {ref!r} (give a chunk hash, a document id, URI "
            "or source_root, or a bates number)"
        ) from None
    leaves = [leaf.hex() for leaf in document_leaves(conn, document.id)]
    return "document", list(dict.fromkeys(leaves))
