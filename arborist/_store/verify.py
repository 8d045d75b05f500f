"""``arborist verify`` for ``store.db``: recompute everything that is committed, report what differs.

Checked, one problem line each:

* every hot chunk re-hashes to its leaf; every warm chunk decompresses and does;
* every document's leaves fold to its ``source_root`` over exactly ``chunk_count`` chunks,
  and (in the same fold) to exactly the Merkle nodes ``merkle_nodes`` keeps for it, which
  proofs are cut from: a node that differs, is missing or is extra is named by document;
* every document matches the ``document_add`` event that recorded it (and has one);
* every cache record recomputes to the ``record_hash`` its ``cache_write`` event holds,
  and every evidence proof verifies against the evidence's own source_root and size,
  which must be the cited document's;
* every record imported from a bundle recomputes to the hash its ``record_import`` event
  holds, and so do its key, profile, policy and evidence (:mod:`~arborist._store.cache.imported`);
* every derivation recomputes to the hash its event holds;
* both FTS indexes pass SQLite's own integrity check (on a private copy
  when the file can only be read: SQLite runs that check as a write);
* the audit chain is intact and holds every checkpoint given.

A damaged file is reported, never raised: each problem SQLite's
``integrity_check`` finds is a line, reported first; every section that can
still be read is checked, and a section that cannot says so in one line.

Bookkeeping that no hash covers (``hit_count``, ``last_hit_at``, tiers) is not
reported here; it is not evidence of anything.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from arborist._database.integrity import FileChecks, read_or_report
from arborist._proofs.audit import ChainReport, Checkpoint, check_chain_reporting, differing_fields
from arborist._proofs.hashing import cache_key, question_hash
from arborist._proofs.keys import (
    EvidenceRef,
    derivation_hash,
    evidence_root,
    policy_hash,
    profile_hash,
)
from arborist._proofs.merkle import EMPTY_ROOT, tree_levels, upper_nodes
from arborist._store.cache.events import write_event_body
from arborist._store.cache.imported_reads import imported_problems
from arborist._store.cache.records import OK, STALE, SUPERSEDED_REASON
from arborist._store.cache.rows import (
    StoredEvidence,
    StoredRecord,
    recomputed_hash,
    stored_evidence,
    stored_records,
)
from arborist._store.cache.stored import warm_text
from arborist._store.claims import mode_problems, tier_problems, version_problems
from arborist._store.derive import derivation_event_body, hand_written_title
from arborist._store.documents import document_event_body, stored_documents
from arborist._store.proofs import text_matches, verify_evidence
from arborist._store.schema import HOT, NODE_FLOOR, WARM

__all__ = ["STORE_FTS", "StoreVerification", "verify_store"]


@dataclass(frozen=True)
class StoreVerification:
    """Problems found (one line each), the chain report, and how much was checked."""

    problems: tuple[str, ...]
    chain: ChainReport
    documents: int
    chunks: int
    records: int
    imported: int = 0
    """Records imported from a bundle (kept apart from the cache), each checked too."""

    @property
    def ok(self) -> bool:
        return not self.problems and self.chain.ok


def _event_rows(
    conn: sqlite3.Connection, *event_types: str
) -> Iterator[tuple[str, dict[str, object], str]]:
    """``(event_type, body, created_at)`` of the events of these types, in chain order."""
    marks = ", ".join("?" * len(event_types))
    for event_type, body, created_at in conn.execute(
        f"SELECT event_type, body, created_at FROM audit_events WHERE event_type IN ({marks}) "
        "ORDER BY seq",
        event_types,
    ):
        try:
            parsed = json.loads(body)
        except (TypeError, ValueError):
            continue  # the chain check reports an unreadable event
        if isinstance(parsed, dict):
            yield event_type, parsed, created_at


def _events(conn: sqlite3.Connection, event_type: str) -> Iterator[dict[str, object]]:
    for _type, body, _created_at in _event_rows(conn, event_type):
        yield body


def _check_chunks(
    conn: sqlite3.Connection, tiers: dict[tuple[int, str], int], uris: dict[int, str]
) -> tuple[list[str], int, int]:
    """Every chunk's text against its leaf, then every document's leaves, folded once, against
    its ``source_root`` and its stored Merkle nodes; how many of each document's chunks are in
    each tier, and its URI, go into ``tiers`` and ``uris`` (:func:`tier_problems` reads the
    events apart, so a damaged chain leaves this section whole)."""
    problems: list[str] = []
    documents = {
        row[0]: row[1:]
        for row in conn.execute("SELECT id, uri, source_root, chunk_count FROM documents")
    }
    uris.update((doc_id, row[0]) for doc_id, row in documents.items())
    leaves, chunks = _read_leaves(conn, documents, problems, tiers)
    stored = _stored_nodes(conn)
    for doc_id, (uri, root, count) in documents.items():
        got = sorted(leaves.get(doc_id, []))
        nodes = stored.pop(doc_id, {})
        if [i for i, _ in got] != list(range(len(got))) or len(got) != count:
            problems.append(f"document {uri}: has {len(got)} chunks, records chunk_count {count}")
            continue
        levels = tree_levels([leaf for _, leaf in got])
        if (levels[-1][0] if levels[-1] else EMPTY_ROOT).hex() != root:
            problems.append(f"document {uri}: leaves do not fold to its source_root")
        problems += _check_nodes(f"document {uri}", levels, nodes)
    problems += [
        f"document id {doc_id}: {len(nodes)} stored Merkle node(s) of a document that is missing"
        for doc_id, nodes in stored.items()
    ]
    return problems, len(documents), chunks


_READ_BATCH = 1_000
"""Chunks read at a time: a batch is one fetch (rows made in C), and a large corpus's texts
are never all in memory at once."""


def _read_leaves(
    conn: sqlite3.Connection,
    documents: dict[int, tuple[str, str, int]],
    problems: list[str],
    tiers: dict[tuple[int, str], int],
) -> tuple[dict[int, list[tuple[int, bytes]]], int]:
    """Every document's ``(chunk_index, leaf)``, and how many chunks were read; a chunk whose
    text (hot, or warm once decompressed) does not re-hash to its leaf is a problem. How many
    of each document's chunks are in each tier go into ``tiers``, read in the same pass."""
    leaves: dict[int, list[tuple[int, bytes]]] = {doc_id: [] for doc_id in documents}
    chunks = 0
    fromhex = bytes.fromhex
    cursor = conn.execute(
        "SELECT document_id, chunk_index, leaf, tier, text, text_z FROM chunks "
        "ORDER BY document_id, chunk_index"
    )
    rows = (row for batch in iter(lambda: cursor.fetchmany(_READ_BATCH), []) for row in batch)
    for doc_id, index, leaf, tier, text, text_z in rows:  # fetched in C, a batch at a time
        chunks += 1
        tiers[doc_id, tier] = tiers.get((doc_id, tier), 0) + 1
        try:
            leaf_bytes = fromhex(leaf)
        except (TypeError, ValueError):
            problems.append(
                f"{_chunk(documents, doc_id, index)}: leaf {leaf!r} is not a hex digest"
            )
            continue
        found = leaves.get(doc_id)
        if found is None:
            found = leaves[doc_id] = []
        found.append((index, leaf_bytes))
        if tier == HOT:
            body = text
        elif tier == WARM:
            try:
                body = warm_text(text_z)
            except ValueError as exc:
                problems.append(f"{_chunk(documents, doc_id, index)}: {exc}")
                continue
        else:
            continue
        if not text_matches(body, leaf):
            problems.append(f"{_chunk(documents, doc_id, index)}: text does not match its leaf")
    return leaves, chunks


def _chunk(documents: dict[int, tuple[str, str, int]], doc_id: int, index: int) -> str:
    """How a problem line names a chunk."""
    return f"chunk {index} of {documents.get(doc_id, ('?',))[0]}"


def _stored_nodes(conn: sqlite3.Connection) -> dict[object, dict[tuple[object, object], object]]:
    """Every stored Merkle node, by document, then by ``(level, position)``. A key that is
    not an integer comes as hex text, and a node that is not a blob as None, so an edited
    row is read (and reported) however its bytes were typed."""
    stored: dict[object, dict[tuple[object, object], object]] = {}
    for doc_id, level, position, node in conn.execute(
        "SELECT "
        + ", ".join(
            f"CASE typeof({key}) WHEN 'integer' THEN {key} ELSE 'x' || hex({key}) END"
            for key in ("document_id", "level", "position")
        )
        + ", CASE typeof(node) WHEN 'blob' THEN node END FROM merkle_nodes"
    ):
        stored.setdefault(doc_id, {})[(level, position)] = node
    return stored


def _in_order(place: tuple[object, object]) -> list[tuple[int, str]]:
    """Numbers first and by value, anything else (an edited row) after, by its repr."""
    return [(0, f"{v:020d}") if type(v) is int else (1, repr(v)) for v in place]


def _check_nodes(
    where: str, levels: list[list[bytes]], stored: dict[tuple[object, object], object]
) -> list[str]:
    """A document's stored Merkle nodes against those its leaves fold to: one line for the
    nodes that differ, one for those missing, one for those its tree does not have."""
    expected: dict[tuple[object, object], object] = {
        (level, position): node for level, position, node in upper_nodes(levels, NODE_FLOOR)
    }
    differ = [
        place for place in expected.keys() & stored.keys() if stored[place] != expected[place]
    ]
    found = []
    for places, what in (
        (differ, "differ from what its leaves fold to"),
        (list(expected.keys() - stored.keys()), "are missing"),
        (list(stored.keys() - expected.keys()), "are not in its tree"),
    ):
        if places:
            level, position = min(places, key=_in_order)
            found.append(
                f"{where}: {len(places)} stored Merkle node(s) {what} "
                f"(first: level {level!r}, position {position!r})"
            )
    return found


def _check_documents_against_events(conn: sqlite3.Connection) -> list[str]:
    """Every document against its ``document_add`` event, rebuilt from the row by the
    writer's own :func:`~arborist._store.documents.document_event_body` (events before
    ``media_type`` was added lack it); the first field that differs is named."""
    problems = []
    recorded = {}
    for _type, body, created_at in _event_rows(conn, "document_add"):
        recorded[body.get("document_id")] = (body, created_at)
    for document in stored_documents(conn):
        found = recorded.pop(document.id, None)
        if found is None:
            problems.append(f"document {document.uri}: no document_add event records it")
            continue
        event, event_created_at = found
        if document.created_at != event_created_at:
            problems.append(
                f"document {document.uri}: created_at differs from its document_add event"
            )
        expected = document_event_body(
            document,
            redactions=event.get("redactions"),
            metadata_redactions=event.get("metadata_redactions"),
            fetched_from=event.get("fetched_from"),
        )
        differing = differing_fields(event, expected, optional=("media_type",))
        if differing:
            problems.append(
                f"document {document.uri}: {differing[0]} differs from its document_add event"
            )
    for doc_id, (event, _created_at) in recorded.items():
        problems.append(
            f"document {event.get('uri')} (id {doc_id}) is recorded by an event but missing"
        )
    return problems


def _expected_states(
    conn: sqlite3.Connection,
) -> dict[tuple[object, object], tuple[str, str | None]]:
    """Every record's state as its events tell it: ``ok`` when written, then each
    ``cache_state`` event in order; a fresh revision retires the key's ``ok`` one."""
    states: dict[tuple[object, object], tuple[str, str | None]] = {}
    revisions: dict[object, list[object]] = {}  # each key's revisions, to retire its ok one
    for event_type, body, _created_at in _event_rows(conn, "cache_write", "cache_state"):
        if event_type == "cache_write":
            key = body.get("cache_key")
            for revision in revisions.get(key, []):
                if states[(key, revision)][0] == OK:
                    states[(key, revision)] = (STALE, SUPERSEDED_REASON)
            states[(key, body.get("revision"))] = (OK, None)
            revisions.setdefault(key, []).append(body.get("revision"))
            continue
        records = body.get("records")
        for item in records if isinstance(records, list) else []:
            if isinstance(item, dict):
                reason = body.get("reason")
                states[(item.get("cache_key"), item.get("revision"))] = (
                    str(body.get("state")),
                    reason if isinstance(reason, str) else None,
                )
    return states


def _check_records(conn: sqlite3.Connection) -> tuple[list[str], int]:
    problems = []
    written = {(b.get("cache_key"), b.get("revision")): b for b in _events(conn, "cache_write")}
    states = _expected_states(conn)
    doc_roots = dict(conn.execute("SELECT id, source_root FROM documents"))
    core = {doc for (doc,) in conn.execute("SELECT id FROM documents WHERE kind = 'core'")}
    chunk_homes = {  # only the chunks some evidence names: the only ones looked up
        chunk_id: (doc_id, leaf)
        for chunk_id, doc_id, leaf in conn.execute(
            "SELECT id, document_id, leaf FROM chunks "
            "WHERE id IN (SELECT chunk_id FROM cache_evidence)"
        )
    }
    records = stored_records(conn)
    for record in records:
        where = f"cache record {str(record.cache_key)[:12]}… revision {record.revision}"
        found = [f"{where}: {p}" for p in _check_dimensions(record)]
        evidence = stored_evidence(conn, record.id)
        found += [f"{where}: {p}" for p in _check_evidence(evidence, doc_roots, chunk_homes)]
        found += [f"{where}: {p}" for p in mode_problems(record, evidence, core)]
        refs = [(e.ref, bool(e.cited)) for e in evidence]
        try:
            if evidence_root([ref for ref, _cited in refs]) != record.evidence_root:
                found.append(f"{where}: its evidence does not fold to its evidence_root")
        except ValueError:
            found.append(f"{where}: its evidence is malformed")
        recomputed = recomputed_hash(record, refs)
        if recomputed != record.record_hash:
            found.append(f"{where}: answer, question or evidence differ from its record_hash")
        event = written.pop((record.cache_key, record.revision), None)
        if event is None:
            found.append(f"{where}: no cache_write event records it")
        else:
            found += [f"{where}: {p}" for p in _check_write_event(record, recomputed, event)]
            if states.get((record.cache_key, record.revision)) != (
                record.state,
                record.state_reason,
            ):
                found.append(
                    f"{where}: state {record.state!r} differs from what its audit events recorded"
                )
        problems += found
    for key, revision in written:
        problems.append(
            f"cache record {str(key)[:12]}… revision {revision}: recorded by a cache_write event "
            "but missing"
        )
    return problems, len(records)


def _check_dimensions(record: StoredRecord) -> list[str]:
    """The record's dimensions hash to its key, and describe its own question, model
    profile and policy."""
    problems = []
    try:
        if cache_key(record.dimensions) != record.cache_key:
            problems.append("its dimensions do not hash to its key")
    except ValueError:
        problems.append("its dimensions are malformed")
    try:
        described = {
            "question_hash": question_hash(record.question),
            "model_profile_hash": profile_hash(json.loads(record.model_profile_json)),
            "governance_policy_hash": policy_hash(json.loads(record.policy_json)),
        }
    except (TypeError, ValueError):
        described = {}
    for name in ("question_hash", "model_profile_hash", "governance_policy_hash"):
        if described.get(name) != record.dimensions[name]:
            problems.append(f"{name} does not match the record's own fields")
    return problems


def _check_evidence(
    evidence: Sequence[StoredEvidence],
    doc_roots: dict[int, str],
    chunk_homes: dict[int, tuple[int, str]],
) -> list[str]:
    """Ranks and flags are well formed; each item names its document's root and its own
    chunk, and its proof verifies."""
    problems = []
    if [e.rank for e in evidence] != list(range(len(evidence))) or any(
        e.cited not in (0, 1) for e in evidence
    ):
        problems.append("its evidence ranks or cited flags are malformed")
    for e in evidence:
        label = f"E{e.rank + 1}"
        if doc_roots.get(e.document_id) != e.source_root:
            problems.append(f"evidence {label} names a source_root its document lacks")
        if chunk_homes.get(e.chunk_id) != (e.document_id, e.leaf):
            problems.append(f"evidence {label} points at another chunk")
        try:
            proof = json.loads(e.proof_json)
        except (TypeError, ValueError):
            proof = None
        if proof is None or not verify_evidence(e.ref, proof=proof).proof_verifies:
            problems.append(f"the proof of evidence {label} does not verify")
    return problems


_WRITE_EVENT_WORDING = {
    "record_hash": "differs from the record_hash its cache_write event holds",
    "response_hash": "response_json differs from its cache_write event",
}


def _check_write_event(
    record: StoredRecord, recomputed: str | None, event: dict[str, object]
) -> list[str]:
    """The record against its ``cache_write`` event, rebuilt from the row by the writer's
    own :func:`~arborist._store.cache.events.write_event_body` (events before ``response_hash``
    was added lack it)."""
    try:
        expected = write_event_body(
            cache_key=record.cache_key,
            revision=record.revision,
            record_hash=recomputed or "",  # malformed: matches no event
            evidence_root=record.evidence_root,
            answer_text=record.answer_text,
            response_json=str(record.response_json),
            redactions=event.get("redactions"),
        )
    except (AttributeError, TypeError, ValueError):  # a field no longer text: nothing matches
        return ["differs from its cache_write event"]
    return [
        _WRITE_EVENT_WORDING.get(name, f"{name} differs from its cache_write event")
        for name in differing_fields(event, expected, optional=("response_hash",))
    ]


def _check_derivations(conn: sqlite3.Connection) -> list[str]:
    """Every derivation recomputes to its hash, with its sources in order, and matches its
    event as the writer's own :func:`~arborist._store.derive.derivation_event_body` builds it."""
    problems = []
    recorded = {
        body.get("derivation_id"): (body, created_at)
        for _type, body, created_at in _event_rows(conn, "derivation")
    }
    doc_roots = dict(conn.execute("SELECT id, source_root FROM documents"))
    for der_id, kind, core_uri, core_root, title, derived_from, stored, created_at in conn.execute(
        "SELECT v.id, v.kind, d.uri, d.source_root, d.title, v.derived_from, v.derivation_hash, "
        "v.created_at FROM derivations AS v JOIN documents AS d ON d.id = v.core_document_id "
        "ORDER BY v.id"
    ).fetchall():
        where = f"derivation {der_id} ({kind})"
        rows = conn.execute(
            "SELECT position, document_id, source_root, chunk_count, chunk_index, leaf "
            "FROM derivation_sources WHERE derivation_id = ? ORDER BY position",
            (der_id,),
        ).fetchall()
        if [row[0] for row in rows] != list(range(len(rows))):
            problems.append(f"{where}: its sources are out of order or missing")
        if any(doc_roots.get(doc_id) != root for _p, doc_id, root, *_rest in rows):
            problems.append(f"{where}: a source names a source_root its document lacks")
        sources = [EvidenceRef(r, n, i, leaf) for _p, _d, r, n, i, leaf in rows]
        recomputed = derivation_hash(kind, core_root, derived_from, sources)
        event, event_created_at = recorded.pop(der_id, (None, None))
        typed = hand_written_title(kind, title)  # the title's mark and the event's agree
        expected = derivation_event_body(
            der_id, kind, core_uri, derived_from, recomputed, hand_written=typed
        )
        if (
            recomputed != stored
            or event is None
            or differing_fields(event, expected)
            or (event.get("hand_written") is True) is not typed
        ):
            problems.append(f"{where}: differs from what its event recorded")
        elif created_at != event_created_at:
            problems.append(f"{where}: created_at differs from its event")
    for der_id, (event, _created_at) in recorded.items():
        problems.append(
            f"derivation {der_id} ({event.get('kind')}): recorded by an event but missing"
        )
    return problems


STORE_FTS = ("chunks_fts", "documents_fts")
"""The full-text tables of ``store.db``, which FTS5's own check covers."""


def verify_store(
    conn: sqlite3.Connection,
    checkpoints: Sequence[Checkpoint] = (),
    checks: FileChecks | None = None,
) -> StoreVerification:
    """Recompute every committed thing in ``store.db`` and check its chain.

    Never raises for a damaged file: what SQLite's integrity check finds, and
    each section that cannot be read, is a problem line. ``checks`` are SQLite's
    checks of the file, perhaps already under way (:class:`FileChecks`); their
    lines come first, as if they had run first.
    """
    checks = checks or FileChecks(conn, STORE_FTS)
    problems: list[str] = []
    tiers: dict[tuple[int, str], int] = {}
    uris: dict[int, str] = {}
    found = read_or_report(
        problems, "documents and chunks", lambda: _check_chunks(conn, tiers, uris)
    )
    chunk_problems, documents, chunks = found or ([], 0, 0)
    problems += chunk_problems
    problems += read_or_report(problems, "tiers", lambda: tier_problems(conn, tiers, uris)) or []
    problems += (
        read_or_report(problems, "documents", lambda: _check_documents_against_events(conn)) or []
    )
    problems += read_or_report(problems, "versions", lambda: version_problems(conn)) or []
    record_problems, records = read_or_report(
        problems, "cache records", lambda: _check_records(conn)
    ) or ([], 0)
    problems += record_problems
    imported_found, imported = read_or_report(
        problems, "imported records", lambda: imported_problems(conn)
    ) or ([], 0)
    problems += imported_found
    problems += read_or_report(problems, "derivations", lambda: _check_derivations(conn)) or []
    after: list[str] = []  # the chain's lines, found before SQLite's checks are waited for
    chain = check_chain_reporting(conn, checkpoints, after)
    problems += read_or_report(problems, "search indexes", checks.search_indexes) or []
    problems[:0] = checks.integrity()
    return StoreVerification(tuple(problems + after), chain, documents, chunks, records, imported)
