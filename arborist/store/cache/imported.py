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

Every read of one (:func:`load_imported`) gives a :class:`CacheRecord` whose
``event_problems`` hold it to its event, so ``arborist.qa.check.check_record`` checks it as
it checks any record; :func:`imported_problems` is ``arborist verify``'s pass over them all.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from arborist.audit import append_event, differing_fields
from arborist.clock import utc_now
from arborist.db import rows_in, transaction
from arborist.errors import IntegrityError
from arborist.hashing import (
    CACHE_KEY_DIMENSIONS,
    cache_key,
    canonical_json,
    question_hash,
    sha256_hex,
    stored_event_hash,
)
from arborist.keys import (
    EVIDENCE_ROOT_DIMENSION,
    EvidenceRef,
    evidence_root,
    policy_hash,
    profile_hash,
    record_hash,
)
from arborist.store.cache.events import write_event_body
from arborist.store.cache.records import DIMENSION_COLUMNS, OK, CacheRecord, RecordEvidence
from arborist.store.metadata import committed
from arborist.store.place_reads import evidence_places
from arborist.store.proofs import verify_evidence

__all__ = [
    "IMPORTED",
    "IMPORTED_EVIDENCE",
    "IMPORTED_REASON",
    "ImportedDraft",
    "ImportedItem",
    "import_event_body",
    "imported_answers",
    "imported_keys",
    "imported_problems",
    "imported_shown",
    "importing",
    "load_imported",
    "write_imported",
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
    (:func:`~arborist.store.cache.events.write_event_body`), the record's state in the home
    that wrote it, and the hash of its evidence items' titles in rank order."""
    return {
        **write_event_body(
            cache_key=cache_key, revision=revision, record_hash=record_hash,
            evidence_root=evidence_root, answer_text=answer_text, response_json=response_json,
        ),
        "origin_state": origin_state,
        "origin_reason": origin_reason,
        "titles_hash": sha256_hex(canonical_json(list(titles))),
    }  # fmt: skip


# --- writing -----------------------------------------------------------------------------------


def write_imported(conn: sqlite3.Connection, drafts: Iterable[ImportedDraft]) -> int:
    """Store each draft this store does not hold yet (by its record hash, here or as one of
    this home's own records) with its ``record_import`` event; how many were written. The
    caller holds the transaction (import writes the turns in the same one). An item whose
    document this home holds must name that document's chunk with its leaf, else
    :class:`IntegrityError` (one line) and the caller writes nothing."""
    written = 0
    for draft in drafts:
        if _held(conn, draft):
            continue
        held = _held_documents(conn, [item.ref for item in draft.evidence])
        _check_leaves(conn, draft, held)
        imported_at = utc_now()
        record_id = _insert(conn, draft, held, imported_at)
        body = import_event_body(
            cache_key=draft.cache_key, revision=draft.revision, record_hash=draft.record_hash,
            evidence_root=draft.dimensions[EVIDENCE_ROOT_DIMENSION],
            answer_text=draft.answer_text, response_json=draft.response_json,
            origin_state=draft.origin_state, origin_reason=draft.origin_reason,
            titles=[item.title for item in draft.evidence],
        )  # fmt: skip
        append_event(conn, "record_import", body=body, created_at=imported_at)
        found = _record_problems(load_imported(conn, record_id))  # what verify will find
        if found:
            raise IntegrityError(
                f"record {draft.cache_key[:12]}… revision {draft.revision}: {found[0]} once "
                "written here; nothing was imported"
            )
        written += 1
    return written


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
            draft.cache_key, draft.revision,
            *(draft.dimensions[name] for name in CACHE_KEY_DIMENSIONS),
            draft.question, draft.answer_text, draft.audit_mode,
            canonical_json(dict(draft.model_profile)).decode("utf-8"),
            canonical_json(dict(draft.policy)).decode("utf-8"),
            draft.response_json, draft.record_hash, draft.origin_state, draft.origin_reason,
            draft.created_at, imported_at,
        ),
    )  # fmt: skip
    conn.executemany(
        "INSERT INTO imported_evidence (record_id, rank, source_root, chunk_count, "
        "chunk_index, leaf, proof_json, cited, title, text) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (cursor.lastrowid, rank, item.ref.source_root, item.ref.chunk_count,
             item.ref.chunk_index, item.ref.leaf, json.dumps(list(item.proof)),
             int(item.cited), item.title,
             None if (item.ref.source_root, item.ref.chunk_count) in held else item.text)
            for rank, item in enumerate(draft.evidence)
        ],
    )  # fmt: skip
    return int(cursor.lastrowid or 0)


@contextmanager
def importing(conn: sqlite3.Connection, drafts: Iterable[ImportedDraft]) -> Iterator[int]:
    """Write ``drafts`` (:func:`write_imported`) in a transaction that commits only when
    the block under it returns: the turns an import writes into sessions.db go in that
    block, so a refusal there leaves store.db as it was. Yields how many were written."""
    with transaction(conn):
        yield write_imported(conn, drafts)


def _held(conn: sqlite3.Connection, draft: ImportedDraft) -> bool:
    """Whether this store holds the record already: imported before, or its own."""
    return (
        conn.execute(
            "SELECT 1 FROM imported_records WHERE record_hash = ?", (draft.record_hash,)
        ).fetchone()
        is not None
        or conn.execute(
            "SELECT 1 FROM cache_records WHERE cache_key = ? AND revision = ? AND record_hash = ?",
            (draft.cache_key, draft.revision, draft.record_hash),
        ).fetchone()
        is not None
    )


def _held_documents(
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


def _leaf_at(conn: sqlite3.Connection, document_id: int, index: int) -> object:
    row = conn.execute(
        "SELECT leaf FROM chunks WHERE document_id = ? AND chunk_index = ?", (document_id, index)
    ).fetchone()
    return None if row is None else row[0]


# --- reading -----------------------------------------------------------------------------------

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
    ``imported`` (its reason says so, and its home's state when that was not ``ok``), its
    evidence read as the module's docstring says, its ``event_problems`` what its
    ``record_import`` event contradicts of it."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM imported_records WHERE id = ?", (record_id,)
    ).fetchone()
    if row is None:
        raise IntegrityError(f"no imported record with id {record_id}")
    n = len(CACHE_KEY_DIMENSIONS)
    dims = dict(zip(CACHE_KEY_DIMENSIONS, row[3 : 3 + n], strict=True))
    (question, answer, mode, profile_json, policy_json, response_json, digest, origin_state,
     origin_reason, created_at, imported_at) = row[3 + n :]  # fmt: skip
    evidence = _evidence(conn, record_id)
    body = import_event_body(
        cache_key=row[1], revision=row[2], record_hash=digest,
        evidence_root=dims[EVIDENCE_ROOT_DIMENSION], answer_text=answer,
        response_json=response_json, origin_state=origin_state, origin_reason=origin_reason,
        titles=[item.title for item in evidence],
    )  # fmt: skip
    return CacheRecord(
        id=row[0], cache_key=row[1], revision=row[2], dimensions=dims, question=question,
        answer_text=answer, audit_mode=mode, model_profile=_object(profile_json),
        policy=_object(policy_json), response=_object(response_json), record_hash=digest,
        state=IMPORTED, state_reason=imported_reason(origin_state, origin_reason), hit_count=0,
        last_hit_at=None, created_at=created_at, evidence=evidence,
        event_problems=_event_problems(conn, body, imported_at),
    )  # fmt: skip


def imported_reason(origin_state: object, origin_reason: object) -> str:
    """:data:`IMPORTED_REASON`, and the state its home had it in when that was not ``ok``."""
    if origin_state == OK:
        return IMPORTED_REASON
    said = f"{origin_state}: {origin_reason}" if origin_reason else str(origin_state)
    return f"{IMPORTED_REASON} (its home had it {said})"


def _object(text: object) -> dict[str, Any]:
    try:
        found = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def _proof(text: object) -> list[str] | None:
    try:
        found = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, list) and all(isinstance(h, str) for h in found) else None


def _chunk_text(text: object, packed: object) -> str | None:
    """A chunk's text as this home stores it: hot as it is, warm decompressed (what does
    not decompress to UTF-8 is a text that re-hashes to no leaf), cold absent."""
    if text is None and isinstance(packed, bytes):
        try:
            return zlib.decompress(packed).decode("utf-8")
        except (zlib.error, UnicodeDecodeError):
            return "\ufffd"
    return text if isinstance(text, str) else None


def _evidence(conn: sqlite3.Connection, record_id: int) -> tuple[RecordEvidence, ...]:
    rows = conn.execute(
        "SELECT rank, source_root, chunk_count, chunk_index, leaf, proof_json, cited, title, "
        "text FROM imported_evidence WHERE record_id = ? ORDER BY rank",
        (record_id,),
    ).fetchall()
    held = _held_documents(conn, [EvidenceRef(r[1], r[2], r[3], r[4]) for r in rows])
    holds = committed(conn, {doc_id for doc_id, _uri in held.values()})
    homes = [(held.get((r[1], r[2])), r[3]) for r in rows]  # a place: where this home's holds
    places = evidence_places(conn, {(h[0], i) for h, i in homes if h and holds.get(h[0])})
    items = []
    for rank, root, count, index, leaf, proof_json, cited, title, text in rows:
        proof = _proof(proof_json)
        home = held.get((root, count))
        chunk = None if home is None else conn.execute(
            "SELECT id, leaf, tier, text, text_z FROM chunks WHERE document_id = ? AND chunk_index = ?",
            (home[0], index),
        ).fetchone()  # fmt: skip
        if home is None or chunk is None:  # imported evidence: the bundle's bytes and proof
            items.append(RecordEvidence(
                rank=rank, chunk_id=0, document_id=0, uri="", title=title, source_root=root,
                chunk_count=count, chunk_index=index, leaf=leaf, proof=proof or [],
                cited=bool(cited), tier=IMPORTED_EVIDENCE, text=text,
                metadata_holds=True, home_holds=proof is not None and cited in (0, 1) and home is None,
            ))  # fmt: skip
            continue
        items.append(RecordEvidence(
            rank=rank, chunk_id=chunk[0], document_id=home[0], uri=home[1], title=title,
            source_root=root, chunk_count=count, chunk_index=index, leaf=leaf, proof=proof or [],
            cited=bool(cited), tier=chunk[2], text=text if text is not None else _chunk_text(chunk[3], chunk[4]),
            metadata_holds=holds.get(home[0], False),
            home_holds=proof is not None and cited in (0, 1) and chunk[1] == leaf,
            place=places.get((home[0], index)) if chunk[1] == leaf else None,
        ))  # fmt: skip
    return tuple(items)


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
            prev, event_type=event_type, sid=sid, bates=bates, body_json=body_json,
            created_at=created_at,
        )  # fmt: skip
    except (TypeError, ValueError, RecursionError):
        recomputed = None
    if recomputed != digest:
        return ("its record_import event does not hash to its own event_hash",)
    problems = [
        f"its {name} differs from its record_import event"
        for name in differing_fields(_object(body_json), expected)
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
    record present. One line each."""
    problems: list[str] = []
    ids = [int(row[0]) for row in conn.execute("SELECT id FROM imported_records ORDER BY id")]
    seen = set()
    for record_id in ids:
        record = load_imported(conn, record_id)
        seen.add(record.record_hash)
        where = f"imported record {str(record.cache_key)[:12]}… revision {record.revision}"
        problems += [f"{where}: {p}" for p in _record_problems(record)]
    for (body,) in conn.execute("SELECT body FROM audit_events WHERE event_type = 'record_import'"):
        digest = _object(body).get("record_hash")
        if digest not in seen:
            problems.append(
                f"imported record {str(digest)[:12]}…: recorded by a record_import event but missing"
            )
    return problems, len(ids)


def _record_problems(record: CacheRecord) -> list[str]:
    refs = [(e.ref, e.cited) for e in record.evidence]
    problems = []
    try:
        digest = record_hash(
            cache_key=record.cache_key, revision=record.revision, question=record.question,
            answer_text=record.answer_text, audit_mode=record.audit_mode, evidence=refs,
            created_at=record.created_at,
        )  # fmt: skip
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
        for name, value in described.items() if record.dimensions.get(name) != value
    ]  # fmt: skip
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
