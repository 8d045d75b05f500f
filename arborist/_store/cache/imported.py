"""Records imported from a bundle: another home's answers, kept apart from this home's cache.

A bundle (docs/bundle.md) carries each record with everything that proves it: its fields,
its model profile and policy, its evidence items with their chunks' proofs and the cited
chunks' bytes. ``arborist import`` writes each record of a bundle that holds into
``imported_records`` (store migration 14) with a ``record_import`` event in store.db's chain,
so checkpoints and witnesses cover it like any other write. Such a record is in the state
``imported`` and in no other: a table of its own, so no cache lookup serves it, it takes no
revision number of this home's, never retires this home's record of its key, and no
``cache_state`` event moves it (docs/design.md section 3, its 3b).

Its evidence is checked against this home where it can be: an item whose document (same
root, same size) this home holds must name that document's chunk with the same leaf, and
its text is read from there; an item whose document this home lacks keeps the bundle's
leaf, proof and (cited) text, with the bundle's root, size and title, as *imported
evidence*: never indexed, searched or cited by an ask here. The ``record_import`` event
commits the record's hash, evidence root, answer and response hashes, its state at home
and the hash of its evidence items' titles, so nothing shown of it is uncommitted.

This module holds what an imported record is (its state, its draft, its event's body);
:mod:`arborist._store.cache.imported_writes` writes them and
:mod:`arborist._store.cache.imported_reads` reads and checks them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arborist._database.db import rows_in
from arborist._proofs.hashing import (
    canonical_json,
    sha256_hex,
)
from arborist._proofs.keys import (
    EvidenceRef,
)
from arborist._store.cache.events import write_event_body

__all__ = [
    "IMPORTED",
    "IMPORTED_EVIDENCE",
    "IMPORTED_REASON",
    "ImportedDraft",
    "ImportedItem",
    "held_documents",
    "import_event_body",
]

IMPORTED = "imported"
"""The one state of an imported record: held, verified, shown, never served."""
IMPORTED_REASON = "answered in another home, imported from a bundle: never served here"
"""Why an imported record is not in this home's service (its state's reason)."""
IMPORTED_EVIDENCE = "imported"
"""The tier an evidence item shows when its document is not this home's (imported evidence:
the bundle's leaf, proof and cited text, never searched or cited here)."""


@dataclass(frozen=True)
class ImportedItem:
    """One evidence item of an imported record: its place, leaf and proof (hex, leaf-most
    first), whether the answer cites it, its document's title as the bundle committed it,
    and the chunk's text (a cited chunk's; None for one the answer does not cite)."""

    ref: EvidenceRef
    proof: Sequence[str]
    cited: bool
    title: str
    text: str | None


@dataclass(frozen=True)
class ImportedDraft:
    """A record of a bundle as :func:`write_imported` stores it: its fields as its home
    wrote them (``dimensions``: all eight, hex), its profile and policy, its state there."""

    cache_key: str
    revision: int
    dimensions: Mapping[str, str]
    question: str
    answer_text: str
    audit_mode: str
    created_at: str
    model_profile: Mapping[str, Any]
    policy: Mapping[str, Any]
    response_json: str
    record_hash: str
    origin_state: str
    origin_reason: str | None
    evidence: Sequence[ImportedItem]


def import_event_body(
    *,
    cache_key: str,
    revision: int,
    record_hash: str,
    evidence_root: str,
    answer_text: str,
    response_json: str,
    origin_state: str,
    origin_reason: str | None,
    titles: Sequence[str],
) -> dict[str, object]:
    """What a ``record_import`` event commits to: what a ``cache_write`` does
    (:func:`~arborist._store.cache.events.write_event_body`), the record's state in the home
    that wrote it, and the hash of its evidence items' titles in rank order."""
    return {
        **write_event_body(
            cache_key=cache_key,
            revision=revision,
            record_hash=record_hash,
            evidence_root=evidence_root,
            answer_text=answer_text,
            response_json=response_json,
        ),
        "origin_state": origin_state,
        "origin_reason": origin_reason,
        "titles_hash": sha256_hex(canonical_json(list(titles))),
    }


# --- writing -----------------------------------------------------------------------------------


def held_documents(
    conn: sqlite3.Connection, refs: Iterable[EvidenceRef]
) -> dict[tuple[str, int], tuple[int, str]]:
    """``(id, uri)`` of this home's document of each ``(root, size)`` the items name (the
    first such, by id; a document's root commits its size, so another size is another
    document)."""
    wanted = {(ref.source_root, ref.chunk_count) for ref in refs}
    found: dict[tuple[str, int], tuple[int, str]] = {}
    for doc_id, root, count, uri in rows_in(
        conn,
        "SELECT id, source_root, chunk_count, uri FROM documents "
        "WHERE source_root IN ({marks}) ORDER BY id",
        sorted({root for root, _count in wanted}),
    ):
        if (root, count) in wanted:
            found.setdefault((str(root), int(count)), (int(doc_id), str(uri)))
    return found
