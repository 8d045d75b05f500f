"""Cache records in ``store.db``: read, list, resolve by key, falsify.

A record is one revision of the answer to one cache key. Only a record in
state ``ok`` serves hits; falsifying it (``failed``, ``stale``,
``quarantined``) keeps it for the record and makes the next ask a miss that
writes a new revision.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass
from typing import Any

from arborist.audit import append_event
from arborist.db import transaction
from arborist.errors import BadInput, NotFound
from arborist.hashing import CACHE_KEY_DIMENSIONS

__all__ = [
    "CacheRecord",
    "FALSIFIED_STATES",
    "RecordEvidence",
    "falsify",
    "list_records",
    "load_record",
    "resolve_key",
]

FALSIFIED_STATES = ("failed", "stale", "quarantined")

_RECORD_COLUMNS = (
    "id, cache_key, revision, " + ", ".join(CACHE_KEY_DIMENSIONS) + ", question, answer_text, "
    "audit_mode, model_profile_json, policy_json, response_json, record_hash, state, "
    "state_reason, hit_count, last_hit_at, created_at"
)


@dataclass(frozen=True)
class RecordEvidence:
    """One evidence item of a record, with the proof that binds its leaf to its document."""

    rank: int
    chunk_id: int
    document_id: int
    uri: str
    title: str
    source_root: str
    chunk_count: int
    chunk_index: int
    leaf: str
    proof: list[str]
    cited: bool
    tier: str
    text: str | None

    @property
    def label(self) -> str:
        return f"E{self.rank + 1}"

    def as_json(self) -> dict[str, Any]:
        """Everything needed to re-verify the proof without arborist."""
        return {
            "label": self.label,
            "cited": self.cited,
            "title": self.title,
            "uri": self.uri,
            "source_root": self.source_root,
            "chunk_count": self.chunk_count,
            "chunk_index": self.chunk_index,
            "leaf": self.leaf,
            "proof": self.proof,
            "tier": self.tier,
            "text": self.text,
        }


@dataclass(frozen=True)
class CacheRecord:
    """One revision of a cached answer."""

    id: int
    cache_key: str
    revision: int
    dimensions: dict[str, str]
    question: str
    answer_text: str
    audit_mode: str
    model_profile: dict[str, Any]
    policy: dict[str, Any]
    response: dict[str, Any]
    record_hash: str
    state: str
    state_reason: str | None
    hit_count: int
    last_hit_at: str | None
    created_at: str
    evidence: tuple[RecordEvidence, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "cache_key": self.cache_key,
            "revision": self.revision,
            "state": self.state,
            "state_reason": self.state_reason,
            "question": self.question,
            "answer": self.answer_text,
            "audit_mode": self.audit_mode,
            "dimensions": self.dimensions,
            "model_profile": self.model_profile,
            "policy": self.policy,
            "response": self.response,
            "record_hash": self.record_hash,
            "hit_count": self.hit_count,
            "last_hit_at": self.last_hit_at,
            "created_at": self.created_at,
            "evidence": [item.as_json() for item in self.evidence],
        }


def _evidence(conn: sqlite3.Connection, record_id: int) -> tuple[RecordEvidence, ...]:
    rows = conn.execute(
        "SELECT e.rank, e.chunk_id, e.document_id, d.uri, d.title, e.source_root, e.chunk_count, "
        "e.chunk_index, e.leaf, e.proof_json, e.cited, c.tier, c.text, c.text_z "
        "FROM cache_evidence AS e JOIN documents AS d ON d.id = e.document_id "
        "JOIN chunks AS c ON c.id = e.chunk_id WHERE e.record_id = ? ORDER BY e.rank",
        (record_id,),
    ).fetchall()
    items = []
    for row in rows:
        text = row[12]
        if text is None and row[13] is not None:
            text = zlib.decompress(row[13]).decode("utf-8")
        items.append(
            RecordEvidence(
                row[0],
                row[1],
                row[2],
                row[3],
                row[4],
                row[5],
                row[6],
                row[7],
                row[8],
                json.loads(row[9]),
                bool(row[10]),
                row[11],
                text,
            )
        )
    return tuple(items)


def load_record(conn: sqlite3.Connection, record_id: int) -> CacheRecord:
    """The record with this row id, with its evidence."""
    row = conn.execute(
        f"SELECT {_RECORD_COLUMNS} FROM cache_records WHERE id = ?", (record_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no cache record with id {record_id}")
    n = len(CACHE_KEY_DIMENSIONS)
    dims = dict(zip(CACHE_KEY_DIMENSIONS, row[3 : 3 + n], strict=True))
    rest = row[3 + n :]
    return CacheRecord(
        id=row[0],
        cache_key=row[1],
        revision=row[2],
        dimensions=dims,
        question=rest[0],
        answer_text=rest[1],
        audit_mode=rest[2],
        model_profile=json.loads(rest[3]),
        policy=json.loads(rest[4]),
        response=json.loads(rest[5]),
        record_hash=rest[6],
        state=rest[7],
        state_reason=rest[8],
        hit_count=rest[9],
        last_hit_at=rest[10],
        created_at=rest[11],
        evidence=_evidence(conn, row[0]),
    )


def resolve_key(conn: sqlite3.Connection, ref: str, *, revision: int | None = None) -> CacheRecord:
    """The record for a cache key (or a unique prefix of at least 8 hex digits).

    Without ``revision``: the ``ok`` revision if there is one, else the latest.
    """
    ref = ref.strip().lower()
    if len(ref) < 8 or any(c not in "0123456789abcdef" for c in ref):
        raise BadInput(f"bad cache key {ref!r}: give at least 8 hex digits of it")
    keys = [
        k
        for (k,) in conn.execute(
            "SELECT DISTINCT cache_key FROM cache_records WHERE cache_key LIKE ? || '%' LIMIT 2",
            (ref,),
        )
    ]
    if not keys:
        raise NotFound(f"no cache record with key {ref}")
    if len(keys) > 1:
        raise BadInput(f"cache key prefix {ref} is ambiguous: give more digits")
    params: tuple[object, ...]
    if revision is not None:
        sql, params = "cache_key = ? AND revision = ?", (keys[0], revision)
    else:
        sql, params = "cache_key = ? ORDER BY state = 'ok' DESC, revision DESC", (keys[0],)
    row = conn.execute(f"SELECT id FROM cache_records WHERE {sql} LIMIT 1", params).fetchone()
    if row is None:
        raise NotFound(f"no revision {revision} of cache key {keys[0][:12]}…")
    return load_record(conn, row[0])


def list_records(conn: sqlite3.Connection, *, limit: int | None = None) -> list[CacheRecord]:
    """Every record, newest first."""
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM cache_records ORDER BY id DESC LIMIT ?",
            (-1 if limit is None else limit,),
        )
    ]
    return [load_record(conn, i) for i in ids]


def falsify(conn: sqlite3.Connection, ref: str, state: str, reason: str) -> CacheRecord:
    """Take a key's ``ok`` record out of service; the next ask for it is a miss."""
    if state not in FALSIFIED_STATES:
        raise BadInput(f"bad state {state!r}: choose one of {', '.join(FALSIFIED_STATES)}")
    if not reason.strip():
        raise BadInput("give a --reason: a falsification records why")
    record = resolve_key(conn, ref)
    if record.state != "ok":
        raise BadInput(
            f"record {record.cache_key[:12]}… revision {record.revision} is already {record.state}"
        )
    with transaction(conn):
        conn.execute(
            "UPDATE cache_records SET state = ?, state_reason = ? WHERE id = ?",
            (state, reason.strip(), record.id),
        )
        append_event(
            conn,
            "cache_state",
            body={
                "state": state,
                "reason": reason.strip(),
                "records": [{"cache_key": record.cache_key, "revision": record.revision}],
            },
        )
    return load_record(conn, record.id)
