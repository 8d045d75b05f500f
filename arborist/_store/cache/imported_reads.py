"""Reading the records imported from a bundle (:mod:`arborist._store.cache.imported` writes
them): each as a :class:`CacheRecord` whose ``event_problems`` hold it to its
``record_import`` event, so ``arborist._qa.check.check_record`` checks it as it checks any
record; which keys and answers they hold; and :func:`imported_problems`, ``arborist
verify``'s pass over them all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from arborist._database.db import rows_in
from arborist._errors import IntegrityError
from arborist._proofs.audit import differing_fields
from arborist._proofs.hashing import (
    CACHE_KEY_DIMENSIONS,
    cache_key,
    question_hash,
    stored_event_hash,
)
from arborist._proofs.keys import (
    EVIDENCE_ROOT_DIMENSION,
    EvidenceRef,
    evidence_root,
    policy_hash,
    profile_hash,
    record_hash,
)
from arborist._store.cache.imported import (
    IMPORTED,
    IMPORTED_EVIDENCE,
    IMPORTED_REASON,
    held_documents,
    import_event_body,
)
from arborist._store.cache.imported_states import origin_now, state_problems
from arborist._store.cache.records import DIMENSION_COLUMNS, OK, CacheRecord, RecordEvidence
from arborist._store.cache.stored import stored_object, stored_proof, stored_text
from arborist._store.metadata import committed
from arborist._store.place_reads import evidence_places
from arborist._store.proofs import verify_evidence

__all__ = [
    "imported_answers",
    "imported_keys",
    "imported_problems",
    "imported_reason",
    "imported_shown",
    "load_imported",
    "record_problems",
]

_COLUMNS = (
    f"id, cache_key, revision, {DIMENSION_COLUMNS}, question, answer_text, audit_mode, "
    "model_profile_json, policy_json, response_json, record_hash, origin_state, origin_reason, "
    "created_at, imported_at"
)


def imported_shown(
    conn: sqlite3.Connection, cache_key: str, answer_text: str
) -> list[tuple[int, str]]:
    """``(id, created_at)`` of each imported record of ``cache_key`` whose answer is
    ``answer_text``, the latest revision first (as a turn's standing picks among them)."""
    return [
        (int(row[0]), str(row[1]))
        for row in conn.execute(
            "SELECT id, created_at FROM imported_records WHERE cache_key = ? AND answer_text = ? "
            "ORDER BY revision DESC, id DESC",
            (cache_key, answer_text),
        )
    ]


def imported_keys(conn: sqlite3.Connection, keys: Sequence[str]) -> set[str]:
    """Which of ``keys`` some imported record is under."""
    return {
        str(key)
        for (key,) in rows_in(
            conn,
            "SELECT DISTINCT cache_key FROM imported_records WHERE cache_key IN ({marks})",
            keys,
        )
    }


def load_imported(conn: sqlite3.Connection, record_id: int) -> CacheRecord:
    """The imported record with this row id, as a :class:`CacheRecord` in state
    ``imported`` (its reason says so, and its home's state when that was not ``ok``: the
    latest a bundle told, :func:`~arborist._store.cache.imported_states.origin_now`), its
    evidence read as the module's docstring says, its ``event_problems`` what its
    ``record_import`` event contradicts of it."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM imported_records WHERE id = ?", (record_id,)
    ).fetchone()
    if row is None:
        raise IntegrityError(f"no imported record with id {record_id}")
    n = len(CACHE_KEY_DIMENSIONS)
    dims = dict(zip(CACHE_KEY_DIMENSIONS, row[3 : 3 + n], strict=True))
    (
        question,
        answer,
        mode,
        profile_json,
        policy_json,
        response_json,
        digest,
        origin_state,
        origin_reason,
        created_at,
        imported_at,
    ) = row[3 + n :]
    evidence = _evidence(conn, record_id)
    body = import_event_body(
        cache_key=row[1],
        revision=row[2],
        record_hash=digest,
        evidence_root=dims[EVIDENCE_ROOT_DIMENSION],
        answer_text=answer,
        response_json=response_json,
        origin_state=origin_state,
        origin_reason=origin_reason,
        titles=[item.title for item in evidence],
    )
    return CacheRecord(
        id=row[0],
        cache_key=row[1],
        revision=row[2],
        dimensions=dims,
        question=question,
        answer_text=answer,
        audit_mode=mode,
        model_profile=stored_object(profile_json),
        policy=stored_object(policy_json),
        response=stored_object(response_json),
        record_hash=digest,
        state=IMPORTED,
        state_reason=imported_reason(*origin_now(conn, digest, (origin_state, origin_reason))),
        hit_count=0,
        last_hit_at=None,
        created_at=created_at,
        evidence=evidence,
        event_problems=_event_problems(conn, body, imported_at),
    )


def imported_reason(origin_state: object, origin_reason: object) -> str:
    """:data:`IMPORTED_REASON`, and the state its home had it in when that was not ``ok``."""
    if origin_state == OK:
        return IMPORTED_REASON
    said = f"{origin_state}: {origin_reason}" if origin_reason else str(origin_state)
    return f"{IMPORTED_REASON} (its home had it {said})"


def _evidence(conn: sqlite3.Connection, record_id: int) -> tuple[RecordEvidence, ...]:
    rows = conn.execute(
        "SELECT rank, source_root, chunk_count, chunk_index, leaf, proof_json, cited, title, "
        "text FROM imported_evidence WHERE record_id = ? ORDER BY rank",
        (record_id,),
    ).fetchall()
    held = held_documents(conn, [EvidenceRef(r[1], r[2], r[3], r[4]) for r in rows])
    holds = committed(conn, {doc_id for doc_id, _uri in held.values()})
    homes = [(held.get((r[1], r[2])), r[3]) for r in rows]  # a place: where this home's holds
    places = evidence_places(conn, {(h[0], i) for h, i in homes if h and holds.get(h[0])})
    items = []
    for rank, root, count, index, leaf, proof_json, cited, title, text in rows:
        proof = stored_proof(proof_json)
        home = held.get((root, count))
        chunk = None if home is None else _home_chunk(conn, home[0], index)
        if home is None or chunk is None:  # imported evidence: the bundle's bytes and proof
            items.append(
                RecordEvidence(
                    rank=rank,
                    chunk_id=0,
                    document_id=0,
                    uri="",
                    title=title,
                    source_root=root,
                    chunk_count=count,
                    chunk_index=index,
                    leaf=leaf,
                    proof=proof or [],
                    cited=bool(cited),
                    tier=IMPORTED_EVIDENCE,
                    text=text,
                    metadata_holds=True,
                    home_holds=proof is not None and cited in (0, 1) and home is None,
                )
            )
            continue
        items.append(
            RecordEvidence(
                rank=rank,
                chunk_id=chunk[0],
                document_id=home[0],
                uri=home[1],
                title=title,
                source_root=root,
                chunk_count=count,
                chunk_index=index,
                leaf=leaf,
                proof=proof or [],
                cited=bool(cited),
                tier=chunk[2],
                text=text if text is not None else stored_text(chunk[3], chunk[4]),
                metadata_holds=holds.get(home[0], False),
                home_holds=proof is not None and cited in (0, 1) and chunk[1] == leaf,
                place=places.get((home[0], index)) if chunk[1] == leaf else None,
            )
        )
    return tuple(items)


def _home_chunk(conn: sqlite3.Connection, document_id: int, index: int) -> Any:
    """This home's chunk at ``index`` of a document it holds: id, leaf, tier, text, packed."""
    return conn.execute(
        "SELECT id, leaf, tier, text, text_z FROM chunks WHERE document_id = ? AND chunk_index = ?",
        (document_id, index),
    ).fetchone()


_EVENTS_SQL = (
    "SELECT seq, prev_event_hash, event_type, sid, bates, body, created_at, event_hash "
    "FROM audit_events WHERE event_type = 'record_import' AND "
    "json_extract(CASE WHEN json_valid(body) THEN body END, '$.record_hash') = ?"
)
"""A record's ``record_import`` events, by the expression store migration 14 indexes."""


def _event_problems(
    conn: sqlite3.Connection, expected: dict[str, object], at: object
) -> tuple[str, ...]:
    """What the record's ``record_import`` event contradicts of it: exactly one such event,
    hashing to its own ``event_hash``, written when the record was imported, whose body is
    the one the row rebuilds."""
    rows = conn.execute(_EVENTS_SQL, (expected["record_hash"],)).fetchall()
    if len(rows) != 1:
        return ("no single record_import event records it",)
    _seq, prev, event_type, sid, bates, body_json, created_at, digest = rows[0]
    try:
        recomputed = stored_event_hash(
            prev,
            event_type=event_type,
            sid=sid,
            bates=bates,
            body_json=body_json,
            created_at=created_at,
        )
    except (TypeError, ValueError, RecursionError):
        recomputed = None
    if recomputed != digest:
        return ("its record_import event does not hash to its own event_hash",)
    problems = [
        f"its {name} differs from its record_import event"
        for name in differing_fields(stored_object(body_json), expected)
    ]
    if created_at != at:
        problems.append("its imported_at differs from its record_import event")
    return tuple(problems)


# --- verify ------------------------------------------------------------------------------------


def imported_answers(
    conn: sqlite3.Connection,
) -> dict[str, list[tuple[str, str, tuple[str, ...], str]]]:
    """What each imported record would show a turn (its answer, mode, cited titles each once
    in rank order, question hash), by key: as ``stored_answers`` reads this home's."""
    titles: dict[int, list[str]] = {}
    for record_id, title in conn.execute(
        "SELECT record_id, title FROM imported_evidence WHERE cited ORDER BY record_id, rank"
    ):
        titles.setdefault(record_id, []).append(title)
    out: dict[str, list[tuple[str, str, tuple[str, ...], str]]] = {}
    for record_id, key, answer, mode, asked in conn.execute(
        "SELECT id, cache_key, answer_text, audit_mode, question_hash FROM imported_records"
    ):
        out.setdefault(key, []).append(
            (answer, mode, tuple(dict.fromkeys(titles.get(record_id, ()))), asked)
        )
    return out


def imported_problems(conn: sqlite3.Connection) -> tuple[list[str], int]:
    """``arborist verify``'s pass over the imported records: each one's hash, evidence root,
    key and the question, profile and policy its dimensions describe; its evidence (each
    proof from its leaf, each text held to its leaf, each item of a document this home
    holds on that document's chunk); its ``record_import`` event; and every such event's
    record present; every ``import_state`` event's rule
    (:func:`~arborist._store.cache.imported_states.state_problems`). One line each."""
    problems: list[str] = []
    ids = [int(row[0]) for row in conn.execute("SELECT id FROM imported_records ORDER BY id")]
    seen = set()
    for record_id in ids:
        record = load_imported(conn, record_id)
        seen.add(record.record_hash)
        where = f"imported record {str(record.cache_key)[:12]}… revision {record.revision}"
        problems += [f"{where}: {p}" for p in record_problems(record)]
    for (body,) in conn.execute("SELECT body FROM audit_events WHERE event_type = 'record_import'"):
        digest = stored_object(body).get("record_hash")
        if digest not in seen:
            problems.append(
                f"imported record {str(digest)[:12]}…: recorded by a record_import event but missing"
            )
    states = {
        str(digest): (state, reason)
        for digest, state, reason in conn.execute(
            "SELECT record_hash, origin_state, origin_reason FROM imported_records"
        )
    }
    return problems + state_problems(conn, states), len(ids)


def record_problems(record: CacheRecord) -> list[str]:
    refs = [(e.ref, e.cited) for e in record.evidence]
    problems = []
    try:
        digest = record_hash(
            cache_key=record.cache_key,
            revision=record.revision,
            question=record.question,
            answer_text=record.answer_text,
            audit_mode=record.audit_mode,
            evidence=refs,
            created_at=record.created_at,
        )
        root = evidence_root([ref for ref, _cited in refs])
        described = {
            "question_hash": question_hash(record.question),
            "model_profile_hash": profile_hash(record.model_profile),
            "governance_policy_hash": policy_hash(record.policy),
        }
        key = cache_key(record.dimensions)
    except (TypeError, ValueError):
        return ["its fields are malformed"]
    if digest != record.record_hash:
        problems.append("answer, question or evidence differ from its record_hash")
    if root != record.evidence_root:
        problems.append("its evidence does not fold to its evidence_root")
    if key != record.cache_key:
        problems.append("its dimensions do not hash to its key")
    problems += [
        f"{name} does not match the record's own fields"
        for name, value in described.items()
        if record.dimensions.get(name) != value
    ]
    if [e.rank for e in record.evidence] != list(range(len(record.evidence))):
        problems.append("its evidence ranks are malformed")
    for item in record.evidence:
        check = verify_evidence(item.ref, text=item.text, proof=item.proof)
        if not item.home_holds:
            problems.append(f"evidence {item.label} does not match the chunk of this home it names")
        if not check.proof_verifies:
            problems.append(f"the proof of evidence {item.label} does not verify")
        if check.text_matches is False:
            problems.append(f"the text of evidence {item.label} does not match its leaf")
    return problems + list(record.event_problems)
