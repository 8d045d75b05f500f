"""Writing the records of a bundle into ``imported_records`` (:mod:`arborist._store.cache.imported`
says what they are and how they are kept apart), each with its ``record_import`` event in
store.db's chain, and read back at once as ``arborist verify`` will read it
(:mod:`arborist._store.cache.imported_reads`): a record that would not hold once written is
not written.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from arborist._clock import utc_now
from arborist._database.db import transaction
from arborist._errors import IntegrityError
from arborist._proofs.audit import append_event
from arborist._proofs.hashing import (
    CACHE_KEY_DIMENSIONS,
    canonical_json,
)
from arborist._proofs.keys import (
    EVIDENCE_ROOT_DIMENSION,
)
from arborist._store.cache.imported import ImportedDraft, held_documents, import_event_body
from arborist._store.cache.imported_reads import load_imported, record_problems
from arborist._store.cache.imported_states import carry_state, own_state_skipped
from arborist._store.cache.records import DIMENSION_COLUMNS

__all__ = ["ImportedWrites", "importing", "write_imported"]


@dataclass(frozen=True)
class ImportedWrites:
    """What :func:`write_imported` did: records written, later states of records imported
    before carried over (``import_state`` events), and a line for each state it skipped."""

    written: int = 0
    restated: int = 0
    skipped: tuple[str, ...] = ()


def write_imported(conn: sqlite3.Connection, drafts: Iterable[ImportedDraft]) -> ImportedWrites:
    """Store each draft this store does not hold yet (by its record hash, here or as one of
    this home's own records) with its ``record_import`` event. A draft held already brings
    its state (:mod:`arborist._store.cache.imported_states`): carried over to a record
    imported before when it takes it further out of service, else skipped and said; never
    to one of this home's own. The caller holds the transaction (import writes the turns in
    the same one). An item whose document this home holds must name that document's chunk
    with its leaf, else :class:`IntegrityError` (one line) and the caller writes nothing."""
    written = restated = 0
    skipped: list[str] = []
    for draft in drafts:
        told = (draft.origin_state, draft.origin_reason)
        kept = _held(conn, draft)
        if kept is not None and kept[0] == "imported":
            carried, line = carry_state(
                conn,
                cache_key=draft.cache_key,
                revision=draft.revision,
                record_hash=draft.record_hash,
                imported=(kept[1], kept[2]),
                told=told,
                at=utc_now(),
            )
            restated += carried
            skipped += [line] if line else []
            continue
        if kept is not None:
            line = own_state_skipped(draft.cache_key, draft.revision, kept[1], told)
            skipped += [line] if line else []
            continue
        held = held_documents(conn, [item.ref for item in draft.evidence])
        _check_leaves(conn, draft, held)
        imported_at = utc_now()
        record_id = _insert(conn, draft, held, imported_at)
        body = import_event_body(
            cache_key=draft.cache_key,
            revision=draft.revision,
            record_hash=draft.record_hash,
            evidence_root=draft.dimensions[EVIDENCE_ROOT_DIMENSION],
            answer_text=draft.answer_text,
            response_json=draft.response_json,
            origin_state=draft.origin_state,
            origin_reason=draft.origin_reason,
            titles=[item.title for item in draft.evidence],
        )
        append_event(conn, "record_import", body=body, created_at=imported_at)
        found = record_problems(load_imported(conn, record_id))  # what verify will find
        if found:
            raise IntegrityError(
                f"record {draft.cache_key[:12]}… revision {draft.revision}: {found[0]} once "
                "written here; nothing was imported"
            )
        written += 1
    return ImportedWrites(written, restated, tuple(skipped))


def _check_leaves(
    conn: sqlite3.Connection, draft: ImportedDraft, held: Mapping[tuple[str, int], tuple[int, str]]
) -> None:
    """Each item of a document this home holds names that document's chunk, by its leaf."""
    for rank, item in enumerate(draft.evidence):
        found = held.get((item.ref.source_root, item.ref.chunk_count))
        if found is not None and _leaf_at(conn, found[0], item.ref.chunk_index) != item.ref.leaf:
            raise IntegrityError(
                f"record {draft.cache_key[:12]}… revision {draft.revision}: evidence E{rank + 1} "
                "names a document this home holds, whose chunk at its index has another "
                "leaf; nothing was imported. Run arborist verify"
            )


def _insert(
    conn: sqlite3.Connection,
    draft: ImportedDraft,
    held: Mapping[tuple[str, int], tuple[int, str]],
    imported_at: str,
) -> int:
    """The record's row and its evidence rows (a cited chunk's text only where this home
    holds no document of its root and size); the row's id."""
    cursor = conn.execute(
        f"INSERT INTO imported_records (cache_key, revision, {DIMENSION_COLUMNS}, question, "
        "answer_text, audit_mode, model_profile_json, policy_json, response_json, "
        "record_hash, origin_state, origin_reason, created_at, imported_at) "
        f"VALUES ({', '.join('?' * (13 + len(CACHE_KEY_DIMENSIONS)))})",
        (
            draft.cache_key,
            draft.revision,
            *(draft.dimensions[name] for name in CACHE_KEY_DIMENSIONS),
            draft.question,
            draft.answer_text,
            draft.audit_mode,
            canonical_json(dict(draft.model_profile)).decode("utf-8"),
            canonical_json(dict(draft.policy)).decode("utf-8"),
            draft.response_json,
            draft.record_hash,
            draft.origin_state,
            draft.origin_reason,
            draft.created_at,
            imported_at,
        ),
    )
    conn.executemany(
        "INSERT INTO imported_evidence (record_id, rank, source_root, chunk_count, "
        "chunk_index, leaf, proof_json, cited, title, text) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                cursor.lastrowid,
                rank,
                item.ref.source_root,
                item.ref.chunk_count,
                item.ref.chunk_index,
                item.ref.leaf,
                json.dumps(list(item.proof)),
                int(item.cited),
                item.title,
                None if (item.ref.source_root, item.ref.chunk_count) in held else item.text,
            )
            for rank, item in enumerate(draft.evidence)
        ],
    )
    return int(cursor.lastrowid or 0)


@contextmanager
def importing(
    conn: sqlite3.Connection, drafts: Iterable[ImportedDraft]
) -> Iterator[ImportedWrites]:
    """Write ``drafts`` (:func:`write_imported`) in a transaction that commits only when
    the block under it returns: the turns an import writes into sessions.db go in that
    block, so a refusal there leaves store.db as it was. Yields what was written."""
    with transaction(conn):
        yield write_imported(conn, drafts)


def _held(conn: sqlite3.Connection, draft: ImportedDraft) -> tuple[str, object, object] | None:
    """How this store holds the record already: ``("imported", state, reason)`` as its
    ``record_import`` committed them, ``("own", state, None)`` for one of its own, or None."""
    row = conn.execute(
        "SELECT origin_state, origin_reason FROM imported_records WHERE record_hash = ?",
        (draft.record_hash,),
    ).fetchone()
    if row is not None:
        return ("imported", row[0], row[1])
    row = conn.execute(
        "SELECT state FROM cache_records WHERE cache_key = ? AND revision = ? AND record_hash = ?",
        (draft.cache_key, draft.revision, draft.record_hash),
    ).fetchone()
    return None if row is None else ("own", row[0], None)


def _leaf_at(conn: sqlite3.Connection, document_id: int, index: int) -> object:
    row = conn.execute(
        "SELECT leaf FROM chunks WHERE document_id = ? AND chunk_index = ?", (document_id, index)
    ).fetchone()
    return None if row is None else row[0]
