"""What ``arborist verify`` reads of the cache: the rows as stored, nothing parsed (see
:mod:`arborist._store.cache`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arborist._proofs.hashing import CACHE_KEY_DIMENSIONS
from arborist._proofs.keys import EVIDENCE_ROOT_DIMENSION, EvidenceRef, record_hash
from arborist._store.cache.records import DIMENSION_COLUMNS, CacheRecord

__all__ = [
    "StoredEvidence",
    "StoredRecord",
    "key_records",
    "recomputed_hash",
    "stored_evidence",
    "stored_records",
]

# --- what verify reads: the rows as stored, unparsed -----------------------------------------


@dataclass(frozen=True)
class StoredRecord:
    """A record's row as stored, nothing parsed: what ``arborist verify`` recomputes from.

    Any field may hold what an edit of the file put there (another type included)."""

    id: int
    cache_key: Any
    revision: Any
    question: Any
    answer_text: Any
    audit_mode: Any
    record_hash: Any
    created_at: Any
    model_profile_json: Any
    policy_json: Any
    response_json: Any
    state: Any
    state_reason: Any
    dimensions: dict[str, Any]

    @property
    def evidence_root(self) -> Any:
        """The Merkle root over the evidence, as stored (see :attr:`CacheRecord.evidence_root`)."""
        return self.dimensions[EVIDENCE_ROOT_DIMENSION]


@dataclass(frozen=True)
class StoredEvidence:
    """An evidence row as stored, nothing parsed (see :class:`StoredRecord`)."""

    rank: Any
    chunk_id: Any
    document_id: Any
    source_root: Any
    chunk_count: Any
    chunk_index: Any
    leaf: Any
    proof_json: Any
    cited: Any

    @property
    def ref(self) -> EvidenceRef:
        return EvidenceRef(self.source_root, self.chunk_count, self.chunk_index, self.leaf)


def recomputed_hash(
    record: CacheRecord | StoredRecord, refs: Sequence[tuple[EvidenceRef, bool]]
) -> str | None:
    """The record's hash recomputed from its fields and ``refs`` (its evidence, each with
    whether it is cited); None when a field no longer makes a hash (an edited file)."""
    try:
        return record_hash(
            cache_key=record.cache_key,
            revision=record.revision,
            question=record.question,
            answer_text=record.answer_text,
            audit_mode=record.audit_mode,
            evidence=refs,
            created_at=record.created_at,
        )
    except (TypeError, ValueError):
        return None


_STORED_SQL = (
    "SELECT id, cache_key, revision, question, answer_text, audit_mode, record_hash, "
    "created_at, model_profile_json, policy_json, response_json, state, state_reason, "
    f"{DIMENSION_COLUMNS} FROM cache_records"
)


def stored_records(conn: sqlite3.Connection) -> list[StoredRecord]:
    """Every record's row, in the order they were written."""
    rows = conn.execute(f"{_STORED_SQL} ORDER BY id").fetchall()
    return [_stored_record(row) for row in rows]


def key_records(conn: sqlite3.Connection, cache_key: str) -> list[StoredRecord]:
    """Every revision's row under ``cache_key``, oldest first (what a bundle carries)."""
    rows = conn.execute(f"{_STORED_SQL} WHERE cache_key = ? ORDER BY revision", (cache_key,))
    return [_stored_record(row) for row in rows.fetchall()]


def _stored_record(row: Sequence[Any]) -> StoredRecord:
    (
        record_id,
        key,
        revision,
        question,
        answer,
        mode,
        digest,
        created_at,
        profile_json,
        policy_json,
        response_json,
        state,
        reason,
    ) = row[:13]
    return StoredRecord(
        record_id,
        key,
        revision,
        question,
        answer,
        mode,
        digest,
        created_at,
        profile_json,
        policy_json,
        response_json,
        state,
        reason,
        dimensions=dict(zip(CACHE_KEY_DIMENSIONS, row[13:], strict=True)),
    )


def stored_evidence(conn: sqlite3.Connection, record_id: int) -> list[StoredEvidence]:
    """A record's evidence rows, by rank."""
    return [
        StoredEvidence(*row)
        for row in conn.execute(
            "SELECT rank, chunk_id, document_id, source_root, chunk_count, chunk_index, leaf, "
            "proof_json, cited FROM cache_evidence WHERE record_id = ? ORDER BY rank",
            (record_id,),
        )
    ]
