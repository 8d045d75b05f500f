"""A bundle written from a home (docs/bundle.md): the chosen sessions with everything that
proves them, and nothing else of the home.

:func:`build_bundle` gathers, for the sessions named: their turns (the export's rows, each
with the seq of the event that recorded it), every revision of the records their keys name,
the model profiles and governance policies those records' dimensions name (each once, by its
hash), the documents those records cite (each by its ``document_add`` event), each evidence item's
chunk with its inclusion proof (the text only of a chunk a record cites) and, for each of
the two audit chains, the span from the first event it needs to the chain's head. It writes
them as format 3 does (docs/bundle.md): without what a reader recomputes from the rest (node
and record hashes, event hashes after the span's start, the bodies of the events that record
a bundled turn or record, each evidence item's leaf and size, a cited chunk's leaf, two of a
record's dimensions), hashes in base64url, each document's proof nodes once. It then checks
the bytes it made as a reader would (:func:`arborist._bundles.check.check_bundle`) and
refuses, in one line, to hand over a bundle that does not hold.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from arborist._bundles.check import check_bundle
from arborist._bundles.shape import (
    BUNDLE_FORMAT,
    DIMENSIONS,
    HASHED_DIMENSIONS,
    TAG_LENGTH,
    b64_hex,
    hex_b64,
    read_bundle,
)
from arborist._errors import BadInput, IntegrityError
from arborist._forest.bates import parse_bates
from arborist._forest.shard import node_event_body, session_event_body, titles_json
from arborist._forest.transfer import EXPORT_FORMAT, TURN_FIELDS, export_session
from arborist._proofs.audit import AuditEvent, chain_events
from arborist._proofs.hashing import canonical_json
from arborist._store.cache.events import write_event_body
from arborist._store.cache.records import load_record
from arborist._store.cache.rows import key_records

__all__ = ["BUNDLE_START", "build_bundle", "bundle_export_lines"]

BUNDLE_START = '{"chains":'
"""How every bundle's bytes begin (canonical JSON sorts its keys): what tells a bundle from
the JSON Lines of ``export``, whose first line is a session record."""


def build_bundle(
    sessions_conn: sqlite3.Connection, store_conn: sqlite3.Connection, sids: Sequence[str]
) -> bytes:
    """The bundle of sessions ``sids`` as canonical JSON bytes (see the module's docstring)."""
    if not sids:
        raise BadInput("name at least one session to bundle")
    forest = chain_events(sessions_conn)
    sessions, turns = _turns(sessions_conn, sorted(set(sids)), forest)
    store = chain_events(store_conn)
    records, documents, chunks = _records(store_conn, turns, store)
    spans = {
        "sessions": _span(forest, [t["event_seq"] for t in turns]),
        "store": _span(
            store, [r["event_seq"] for r in records] + [d["event_seq"] for d in documents]
        ),
    }
    _leave_out_bodies(spans, sessions, turns, records)
    bundle = {
        "format": BUNDLE_FORMAT,
        "sessions": sessions,
        "turns": [_turn(turn) for turn in turns],
        "records": sorted(
            map(_compact_record, records), key=lambda r: (r["cache_key"], r["revision"])
        ),
        "profiles": _described(records, "model_profile_hash", "model_profile"),
        "policies": _described(records, "governance_policy_hash", "policy"),
        "documents": [],
        "chunks": [],
        "chains": {name: _compact_span(span) for name, span in spans.items()},
    }
    bundle["documents"], bundle["chunks"] = _proofs(documents, chunks)
    data = canonical_json(bundle)
    report = check_bundle(data)
    if not report.ok:
        raise IntegrityError(
            f"this home does not hold what the bundle would carry ({report.problems[0]}): "
            "run arborist verify"
        )
    return data


def _turns(
    conn: sqlite3.Connection, sids: Sequence[str], events: list[AuditEvent]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The sessions' headers and their turns, each turn with its event's seq."""
    roots = {e.sid: e.seq for e in events if e.event_type in ("session_create", "session_import")}
    inserts = {e.bates: e.seq for e in events if e.event_type == "node_insert"}
    sessions, turns = [], []
    for sid in sids:
        for row in export_session(conn, sid):
            kind = row.pop("type")
            if kind == "session":
                row.pop("format")
                sessions.append(row)
                continue
            row.pop("subtree_hash")
            seq = roots.get(sid) if parse_bates(row["bates"])[1] == 0 else inserts.get(row["bates"])
            if seq is None:
                raise IntegrityError(f"turn {row['bates']}: no event of sessions.db records it")
            turns.append({**row, "event_seq": seq})
    turns.sort(key=lambda turn: turn["bates"])
    return sessions, turns


def _records(
    conn: sqlite3.Connection, turns: Iterable[dict[str, Any]], events: list[AuditEvent]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Every revision under the turns' keys, the documents they cite, their chunks."""
    writes = {
        (e.body.get("cache_key"), e.body.get("revision")): e.seq
        for e in events
        if e.event_type == "cache_write" and isinstance(e.body, dict)
    }
    added = {
        (e.body.get("document_id"), e.body.get("source_root")): e
        for e in events
        if e.event_type == "document_add" and isinstance(e.body, dict)
    }
    records: list[dict[str, Any]] = []
    documents: dict[str, dict[str, Any]] = {}
    chunks: dict[tuple[str, int], dict[str, Any]] = {}
    keys: set[str] = set()
    for turn in turns:
        if parse_bates(turn["bates"])[1] == 0 or turn["cache_key"] in keys:
            continue
        keys.add(turn["cache_key"])
        stored = key_records(conn, turn["cache_key"])
        if not stored:
            raise BadInput(
                f"turn {turn['bates']}: this store holds no record of its answer (an imported "
                "turn): a bundle carries only turns it can prove"
            )
        for row in stored:
            record = load_record(conn, row.id)
            records.append(_record(row, record, writes))
            for item in record.evidence:
                _document(documents, item, added)
                _chunk(chunks, item)
    records.sort(key=lambda record: (record["cache_key"], record["revision"]))
    return records, [documents[k] for k in sorted(documents)], [chunks[k] for k in sorted(chunks)]


def _record(row: Any, record: Any, writes: dict[tuple[Any, Any], int]) -> dict[str, Any]:
    seq = writes.get((row.cache_key, row.revision))
    if seq is None:
        raise IntegrityError(
            f"record {str(row.cache_key)[:12]}… revision {row.revision}: no cache_write event "
            "of store.db records it"
        )
    return {
        "cache_key": row.cache_key,
        "revision": row.revision,
        "question": row.question,
        "answer_text": row.answer_text,
        "audit_mode": row.audit_mode,
        "created_at": row.created_at,
        "dimensions": dict(row.dimensions),
        "evidence": [_evidence(e) for e in record.evidence],
        "record_hash": row.record_hash,
        "model_profile": record.model_profile,
        "policy": record.policy,
        "response_json": row.response_json,
        "state": row.state,
        "state_reason": row.state_reason,
        "event_seq": seq,
    }


def _evidence(item: Any) -> dict[str, Any]:
    """An evidence item as its record's hash covers it."""
    return {
        "source_root": item.source_root,
        "chunk_count": item.chunk_count,
        "chunk_index": item.chunk_index,
        "leaf": item.leaf,
        "cited": item.cited,
    }


def _document(
    documents: dict[str, dict[str, Any]], item: Any, added: dict[tuple[Any, Any], AuditEvent]
) -> None:
    """The document an evidence item cites, by its ``document_add`` event (``added``: the
    events by document id and root)."""
    if item.source_root in documents:
        return
    event = added.get((item.document_id, item.source_root))
    if event is None:
        raise IntegrityError(f"document {item.source_root[:12]}…: no document_add event records it")
    documents[item.source_root] = {
        "source_root": item.source_root,
        "chunk_count": event.body.get("chunk_count"),
        "title": event.body.get("title"),
        "event_seq": event.seq,
    }


def _chunk(chunks: dict[tuple[str, int], dict[str, Any]], item: Any) -> None:
    place = (item.source_root, item.chunk_index)
    chunk = chunks.setdefault(
        place,
        {
            "source_root": item.source_root,
            "chunk_index": item.chunk_index,
            "leaf": item.leaf,
            "proof": list(item.proof),
            "text": None,
        },
    )
    if item.cited:
        if item.text is None:
            raise IntegrityError(
                f"chunk {item.source_root[:12]}… #{item.chunk_index}: its text is not in this "
                "store (a cold chunk): rehydrate it before bundling"
            )
        chunk["text"] = item.text


def _span(events: list[AuditEvent], needed: Sequence[int]) -> dict[str, Any]:
    """The chain from the first event ``needed`` to its head (none when nothing is needed)."""
    if not needed:
        return {"head": None, "events": []}
    first = min(needed)
    span = [
        {
            "seq": e.seq,
            "event_type": e.event_type,
            "sid": e.sid,
            "bates": e.bates,
            "body": e.body,
            "created_at": e.created_at,
            "prev_event_hash": e.prev_event_hash,
            "event_hash": e.event_hash,
        }
        for e in events
        if e.seq >= first
    ]
    return {"head": {"seq": span[-1]["seq"], "event_hash": span[-1]["event_hash"]}, "events": span}


def _leave_out_bodies(
    spans: dict[str, dict[str, Any]],
    sessions: list[dict[str, Any]],
    turns: list[dict[str, Any]],
    records: list[dict[str, Any]],
) -> None:
    """Take out of the spans the body of each event that records a turn or a record of the
    bundle exactly as the reader rebuilds it from that turn or record (a ``cache_write`` with
    redactions keeps its body: the reader cannot rebuild them)."""
    labels = {session["sid"]: session["label"] for session in sessions}
    rebuilt: dict[str, dict[int, dict[str, Any]]] = {"sessions": {}, "store": {}}
    for turn in turns:
        sid, seq = parse_bates(turn["bates"])
        rebuilt["sessions"][turn["event_seq"]] = (
            session_event_body(labels[sid], turn["node_hash"])
            if seq == 0
            else node_event_body(
                turn["node_hash"],
                turn["parent_bates"],
                turn["answer_text"],
                titles_json(turn["cited_titles"]),
            )
        )
    for record in records:
        rebuilt["store"][record["event_seq"]] = write_event_body(
            cache_key=record["cache_key"],
            revision=record["revision"],
            record_hash=record["record_hash"],
            evidence_root=record["dimensions"]["source_root"],
            answer_text=record["answer_text"],
            response_json=record["response_json"],
        )
    for name, span in spans.items():
        for event in span["events"]:
            if rebuilt[name].get(event["seq"], ...) == event["body"]:
                del event["body"]


def _turn(turn: dict[str, Any]) -> dict[str, Any]:
    """A turn as the bundle carries it: no node hash (the reader computes it), its key in
    base64url."""
    kept = {name: value for name, value in turn.items() if name != "node_hash"}
    return {**kept, "cache_key": hex_b64(turn["cache_key"])}


def _compact_record(record: dict[str, Any]) -> dict[str, Any]:
    """A record as the bundle carries it: its evidence items by document and index, its
    dimensions without the evidence root and question hash, no record hash, hashes in
    base64url."""
    dims = record["dimensions"]
    for name in HASHED_DIMENSIONS:
        if dims[name] and b64_hex(hex_b64(dims[name])) != dims[name]:
            raise IntegrityError(f"record {record['cache_key'][:12]}…: its {name} is no hash")
    left_out = ("record_hash", "model_profile", "policy")  # the last two: _described
    kept = {name: value for name, value in record.items() if name not in left_out}
    return {
        **kept,
        "cache_key": hex_b64(record["cache_key"]),
        "dimensions": {
            name: hex_b64(dims[name]) if name in HASHED_DIMENSIONS else dims[name]
            for name in DIMENSIONS
        },
        "evidence": [
            {
                "source_root": hex_b64(e["source_root"]),
                "chunk_index": e["chunk_index"],
                "cited": e["cited"],
            }
            for e in record["evidence"]
        ],
    }


def _described(
    records: list[dict[str, Any]], dimension: str, field: str
) -> dict[str, dict[str, Any]]:
    """The profiles (or policies) the records name, each once, by its hash in base64url (the
    reader holds each to its key)."""
    return {hex_b64(r["dimensions"][dimension]): r[field] for r in records}


def _compact_span(span: dict[str, Any]) -> dict[str, Any]:
    """A chain's span as the bundle carries it: the hash the first event follows, each event
    without its hashes (the reader chains them) but its tag (the first characters of its
    hash's base64url: a locator, docs/bundle.md), the head with its hash."""
    events, head = span["events"], span["head"]
    prev = events[0]["prev_event_hash"] if events else None
    return {
        "head": head and {"seq": head["seq"], "event_hash": hex_b64(head["event_hash"])},
        "prev_event_hash": prev and hex_b64(prev),
        "events": [
            {
                **{k: v for k, v in e.items() if k not in ("prev_event_hash", "event_hash")},
                "tag": hex_b64(e["event_hash"])[:TAG_LENGTH],
            }
            for e in events
        ],
    }


def _proofs(
    documents: list[dict[str, Any]], chunks: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The documents, each with its chunks' proof nodes once (in the order the chunks, by
    index, first use them), and the chunks, each proof as indexes into its document's."""
    nodes: dict[str, dict[str, int]] = {doc["source_root"]: {} for doc in documents}
    held = []
    for chunk in chunks:  # by root, then index
        own = nodes[chunk["source_root"]]
        proof = [own.setdefault(hex_b64(node), len(own)) for node in chunk["proof"]]
        cited = chunk["text"] is not None  # its text, not its leaf (the reader hashes it)
        held.append(
            {
                "source_root": hex_b64(chunk["source_root"]),
                "chunk_index": chunk["chunk_index"],
                "proof": proof,
                **({"text": chunk["text"]} if cited else {"leaf": hex_b64(chunk["leaf"])}),
            }
        )
    docs = [
        {
            **doc,
            "source_root": hex_b64(doc["source_root"]),
            "nodes": list(nodes[doc["source_root"]]),
        }
        for doc in documents
    ]
    docs.sort(key=lambda doc: doc["source_root"])
    held.sort(key=lambda chunk: (chunk["source_root"], chunk["chunk_index"]))
    return docs, held


def bundle_export_lines(data: bytes) -> list[str]:
    """The sessions of the bundle ``data`` as the JSON Lines ``import`` reads, once every
    hash, proof and chain link of the bundle holds: else one line naming the first failure
    (:class:`~arborist._errors.IntegrityError`), before anything is written."""
    report = check_bundle(data)
    if not report.ok:
        more = len(report.problems) - 1
        said = f" (and {more} more: arborist verify --bundle names each)" if more else ""
        raise IntegrityError(f"the bundle does not hold: {report.problems[0]}{said}")
    bundle = read_bundle(data)
    hashes = report.node_hashes
    lines = []
    for session in bundle["sessions"]:
        header = {"type": "session", "format": EXPORT_FORMAT, **session}
        lines.append(json.dumps(header, ensure_ascii=False))
        for turn in bundle["turns"]:
            if parse_bates(turn["bates"])[0] != session["sid"]:
                continue
            node = {
                **turn,
                "cache_key": b64_hex(turn["cache_key"]),
                "node_hash": hashes[turn["bates"]],
            }
            node = {"type": "node", **{f: node[f] for f in TURN_FIELDS}}
            lines.append(json.dumps(node, ensure_ascii=False))
    return lines
