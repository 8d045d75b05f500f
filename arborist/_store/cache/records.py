"""Cache records: their states, reading one, and writing one with its ``cache_write`` event
(see :mod:`arborist._store.cache`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arborist._clock import utc_now
from arborist._database.db import transaction
from arborist._errors import BadInput, NotFound
from arborist._proofs.audit import append_event
from arborist._proofs.hashing import CACHE_KEY_DIMENSIONS
from arborist._proofs.keys import EVIDENCE_ROOT_DIMENSION, EvidenceRef, record_hash
from arborist._store.cache.events import event_problems, write_event_body
from arborist._store.cache.stored import stored_object, stored_proof, stored_text
from arborist._store.metadata import committed
from arborist._store.place_reads import evidence_places
from arborist._store.places import Place, place_uri, placed_title

__all__ = [
    "CacheRecord",
    "DIMENSION_COLUMNS",
    "FAILED",
    "FALSIFIED_STATES",
    "NewEvidence",
    "OK",
    "QUARANTINED",
    "RecordDraft",
    "RecordEvidence",
    "STALE",
    "STATES",
    "SUPERSEDED_REASON",
    "count_hit",
    "counts_by_state",
    "list_records",
    "load_record",
    "ok_record_id",
    "resolve_key",
    "stored_answers",
    "total_hits",
    "write_record",
]

OK, FAILED, STALE, QUARANTINED = "ok", "failed", "stale", "quarantined"
"""A record's states: ``ok`` serves hits; the others are a record taken out of service
(judged wrong, a cited source changed or was lost, a cited source is distrusted)."""
STATES = (OK, FAILED, STALE, QUARANTINED)
FALSIFIED_STATES = (FAILED, STALE, QUARANTINED)

SUPERSEDED_REASON = "superseded by a fresh answer (--no-cache)"
"""Why a key's ``ok`` record became ``stale`` when an ask with ``--no-cache`` answered it
afresh: no ``cache_state`` event says so, the ``cache_write`` of the new revision does."""

DIMENSION_COLUMNS = ", ".join(
    "evidence_root" if name == EVIDENCE_ROOT_DIMENSION else name for name in CACHE_KEY_DIMENSIONS
)
"""The columns of the eight dimensions, in :data:`CACHE_KEY_DIMENSIONS` order: each is named
as it is hashed, but the evidence root's (see :data:`~arborist._proofs.keys.EVIDENCE_ROOT_DIMENSION`)."""

_RECORD_COLUMNS = (
    f"id, cache_key, revision, {DIMENSION_COLUMNS}, question, answer_text, "
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
    metadata_holds: bool
    """Whether the document's title and URI (its whole row) are what its ``document_add``
    event committed (:func:`arborist._store.metadata.committed`)."""
    home_holds: bool
    """Whether the item's row is readable (its proof a list of digests) and names its
    document's own root and chunk count, and its chunk's own document, place and leaf: a proof checked against a root the document does not have proves
    nothing about the document."""
    place: Place | None = None
    """Where the chunk sits (page, heading path, anchor), given only when every chunk it
    depends on holds and the document's metadata does (:mod:`arborist._store.place_reads`)."""

    @property
    def label(self) -> str:
        return f"E{self.rank + 1}"

    @property
    def placed_title(self) -> str:
        """The title with the place: ``Libtasn1 · p. 12``, ``Guide · Configuration › Logging``."""
        return placed_title(self.title, self.place)

    @property
    def link(self) -> str:
        """The URI opening at the place (``#page=12``, ``#logging``) where its scheme allows."""
        return place_uri(self.uri, self.place)

    @property
    def ref(self) -> EvidenceRef:
        return EvidenceRef(self.source_root, self.chunk_count, self.chunk_index, self.leaf)

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
            "place": self.place.as_json() if self.place else None,
            "placed_title": self.placed_title,
            "link": self.link,
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
    event_problems: tuple[str, ...]
    """What its audit events contradict of it (:mod:`arborist._store.cache.events`): empty
    when its ``cache_write`` event holds its hash and its events leave it in its state."""

    @property
    def evidence_root(self) -> str:
        """The Merkle root over the evidence, the key's first dimension."""
        return self.dimensions[EVIDENCE_ROOT_DIMENSION]

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
            "evidence": self._evidence_json(),
        }

    def _evidence_json(self) -> list[dict[str, Any]]:
        """Each evidence item's JSON; a hybrid record's items also say which lane found them."""
        items = [item.as_json() for item in self.evidence]
        lanes = self.response.get("retrieval_lanes")
        if isinstance(lanes, list) and len(lanes) == len(items):
            for item, lane in zip(items, lanes, strict=True):
                item["lane"] = lane
        return items


# --- reading ---------------------------------------------------------------------------------


def _evidence(conn: sqlite3.Connection, record_id: int) -> tuple[RecordEvidence, ...]:
    rows = conn.execute(
        "SELECT e.rank, e.chunk_id, e.document_id, d.uri, d.title, e.source_root, e.chunk_count, "
        "e.chunk_index, e.leaf, e.proof_json, e.cited, c.tier, c.text, c.text_z, "
        "d.source_root IS e.source_root AND d.chunk_count IS e.chunk_count "
        "AND c.document_id IS e.document_id AND c.chunk_index IS e.chunk_index "
        "AND c.leaf IS e.leaf AND e.cited IN (0, 1) "
        "FROM cache_evidence AS e JOIN documents AS d ON d.id = e.document_id "
        "JOIN chunks AS c ON c.id = e.chunk_id WHERE e.record_id = ? ORDER BY e.rank",
        (record_id,),
    ).fetchall()
    holds = committed(conn, {row[2] for row in rows})
    # A place only for an item whose row and whose document's metadata hold.
    places = evidence_places(conn, {(r[2], r[7]) for r in rows if holds.get(r[2]) and r[14]})
    return tuple(
        RecordEvidence(
            rank=rank,
            chunk_id=chunk_id,
            document_id=document_id,
            uri=uri,
            title=title,
            source_root=source_root,
            chunk_count=chunk_count,
            chunk_index=chunk_index,
            leaf=leaf,
            proof=stored_proof(proof_json) or [],
            cited=bool(cited),
            tier=tier,
            text=stored_text(text, packed),
            metadata_holds=holds.get(document_id, False),
            home_holds=bool(home) and stored_proof(proof_json) is not None,
            place=places.get((document_id, chunk_index)) or None,
        )
        for (
            rank,
            chunk_id,
            document_id,
            uri,
            title,
            source_root,
            chunk_count,
            chunk_index,
            leaf,
            proof_json,
            cited,
            tier,
            text,
            packed,
            home,
        ) in rows
    )


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
        model_profile=stored_object(rest[3]),
        policy=stored_object(rest[4]),
        response=stored_object(rest[5]),
        record_hash=rest[6],
        state=rest[7],
        state_reason=rest[8],
        hit_count=rest[9],
        last_hit_at=rest[10],
        created_at=rest[11],
        evidence=_evidence(conn, row[0]),
        event_problems=event_problems(
            conn,
            write_event_body(
                cache_key=row[1],
                revision=row[2],
                record_hash=rest[6],
                evidence_root=dims[EVIDENCE_ROOT_DIMENSION],
                answer_text=rest[1],
                response_json=rest[5],
            ),
            state=rest[7],
            state_reason=rest[8],
            superseded_reason=SUPERSEDED_REASON,
        ),
    )


def ok_record_id(conn: sqlite3.Connection, cache_key: str) -> int | None:
    """The row id of the key's ``ok`` record, the one that serves hits; None when there is none."""
    row = conn.execute(
        f"SELECT id FROM cache_records WHERE cache_key = ? AND state = '{OK}'", (cache_key,)
    ).fetchone()
    return None if row is None else int(row[0])


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
        sql, params = f"cache_key = ? ORDER BY state = '{OK}' DESC, revision DESC", (keys[0],)
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


StoredAnswer = tuple[str, str, tuple[str, ...], str]
"""``(answer_text, audit_mode, cited_titles, question_hash)`` of one record, as a turn would
show it and the question it answers."""


def stored_answers(conn: sqlite3.Connection) -> dict[str, list[StoredAnswer]]:
    """What every record of every key would show a turn: its answer, mode and cited
    documents' titles (each once, in rank order) and its question's hash, by key, every revision included. Read as
    the rows are: ``arborist verify`` checks the rows themselves apart."""
    titles: dict[int, list[str]] = {}
    for record_id, title in conn.execute(
        "SELECT e.record_id, d.title FROM cache_evidence AS e "
        "JOIN documents AS d ON d.id = e.document_id WHERE e.cited ORDER BY e.record_id, e.rank"
    ):
        titles.setdefault(record_id, []).append(title)
    out: dict[str, list[StoredAnswer]] = {}
    for record_id, key, answer, mode, asked in conn.execute(
        "SELECT id, cache_key, answer_text, audit_mode, question_hash FROM cache_records"
    ):
        cited = tuple(dict.fromkeys(titles.get(record_id, ())))
        out.setdefault(key, []).append((answer, mode, cited, asked))
    return out


def counts_by_state(conn: sqlite3.Connection) -> dict[str, int]:
    """How many records are in each state (states with none are absent)."""
    return dict(conn.execute("SELECT state, count(*) FROM cache_records GROUP BY state").fetchall())


def total_hits(conn: sqlite3.Connection) -> int:
    """How many times answers were served from the cache, over every record."""
    return int(conn.execute("SELECT coalesce(sum(hit_count), 0) FROM cache_records").fetchone()[0])


# --- writing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewEvidence:
    """One evidence item of a record being written: its chunk, where the chunk sits, the
    chunk's inclusion proof (hex, leaf-most first) and whether the answer cites it."""

    chunk_id: int
    document_id: int
    ref: EvidenceRef
    proof: Sequence[str]
    cited: bool


@dataclass(frozen=True)
class RecordDraft:
    """A fresh answer, everything about it but what the write assigns (revision, time, hash).

    ``response`` is the model's response metadata, already through the admission
    gate; ``redactions`` what the gate replaced, by field (kind and position only).
    """

    cache_key: str
    dimensions: Mapping[str, str]
    question: str
    answer_text: str
    audit_mode: str
    model_profile: Mapping[str, object]
    policy: Mapping[str, object]
    response: Mapping[str, object]
    evidence: Sequence[NewEvidence]
    redactions: Mapping[str, list[dict[str, object]]] | None = None


def write_record(conn: sqlite3.Connection, draft: RecordDraft, *, replace_ok: bool) -> CacheRecord:
    """Store ``draft`` as its key's ``ok`` record, with its evidence and its ``cache_write``
    event, in one transaction.

    When the key already has an ``ok`` record, another process answered it meanwhile:
    that record is returned and nothing is written, unless ``replace_ok`` (an ask with
    ``--no-cache``), which retires it as ``stale`` in favour of the new revision.
    """
    with transaction(conn):
        current = ok_record_id(conn, draft.cache_key)
        if current is not None and not replace_ok:
            return load_record(conn, current)
        if current is not None:
            _supersede(conn, current)
        revision = _next_revision(conn, draft.cache_key)
        created_at = utc_now()
        digest = record_hash(
            cache_key=draft.cache_key,
            revision=revision,
            question=draft.question,
            answer_text=draft.answer_text,
            audit_mode=draft.audit_mode,
            evidence=[(item.ref, item.cited) for item in draft.evidence],
            created_at=created_at,
        )
        response_json = json.dumps(draft.response, sort_keys=True, default=str)
        record_id = _insert_record(conn, draft, revision, digest, response_json, created_at)
        _insert_evidence(conn, record_id, draft.evidence)
        body = write_event_body(
            cache_key=draft.cache_key,
            revision=revision,
            record_hash=digest,
            evidence_root=draft.dimensions[EVIDENCE_ROOT_DIMENSION],
            answer_text=draft.answer_text,
            response_json=response_json,
            redactions=draft.redactions,
        )
        append_event(conn, "cache_write", body=body, created_at=created_at)
        return load_record(conn, record_id)


def _supersede(conn: sqlite3.Connection, record_id: int) -> None:
    """Retire a key's ``ok`` record for a fresh revision. No ``cache_state`` event: the new
    revision's ``cache_write`` says so, and ``arborist verify`` replays it that way."""
    conn.execute(
        "UPDATE cache_records SET state = ?, state_reason = ? WHERE id = ?",
        (STALE, SUPERSEDED_REASON, record_id),
    )


def _next_revision(conn: sqlite3.Connection, cache_key: str) -> int:
    """The key's next revision number (1 for a key never answered)."""
    row = conn.execute(
        "SELECT coalesce(max(revision), 0) FROM cache_records WHERE cache_key = ?", (cache_key,)
    ).fetchone()
    return int(row[0]) + 1


def _insert_record(
    conn: sqlite3.Connection,
    draft: RecordDraft,
    revision: int,
    digest: str,
    response_json: str,
    created_at: str,
) -> int:
    cursor = conn.execute(
        f"INSERT INTO cache_records (cache_key, revision, {DIMENSION_COLUMNS}, question, "
        "answer_text, audit_mode, model_profile_json, policy_json, response_json, record_hash, "
        "state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            draft.cache_key,
            revision,
            *(draft.dimensions[name] for name in CACHE_KEY_DIMENSIONS),
            draft.question,
            draft.answer_text,
            draft.audit_mode,
            json.dumps(draft.model_profile, sort_keys=True),
            json.dumps(draft.policy, sort_keys=True),
            response_json,
            digest,
            OK,
            created_at,
        ),
    )
    return int(cursor.lastrowid or 0)


def _insert_evidence(
    conn: sqlite3.Connection, record_id: int, evidence: Sequence[NewEvidence]
) -> None:
    conn.executemany(
        "INSERT INTO cache_evidence (record_id, rank, chunk_id, document_id, source_root, "
        "chunk_count, chunk_index, leaf, proof_json, cited) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                record_id,
                rank,
                item.chunk_id,
                item.document_id,
                item.ref.source_root,
                item.ref.chunk_count,
                item.ref.chunk_index,
                item.ref.leaf,
                json.dumps(list(item.proof)),
                int(item.cited),
            )
            for rank, item in enumerate(evidence)
        ],
    )


def count_hit(conn: sqlite3.Connection, record_id: int, when: str) -> None:
    """Count one hit served from this record (bookkeeping: no hash covers it)."""
    with transaction(conn):
        conn.execute(
            "UPDATE cache_records SET hit_count = hit_count + 1, last_hit_at = ? WHERE id = ?",
            (when, record_id),
        )
