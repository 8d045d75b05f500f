"""A bundle checked on its own, with no home (docs/bundle.md): every hash, proof and chain
link recomputed, each failure named in one line.

:func:`check_bundle` reads the bytes (:mod:`arborist.bundle_shape`: canonical JSON of the
format, every field of its type, every list in order and without repeats), then holds:

* each chain span: consecutive seqs, each event's ``prev_event_hash`` the one before it,
  each ``event_hash`` recomputed from its fields, the last event the span's head;
* each turn: its ``node_hash`` recomputed under its parent's, its ``node_insert`` event (a
  root: its session's ``session_create`` or ``session_import``) at its ``event_seq``, its
  label what its ``label`` events leave it, and the record that holds its answer;
* each record: its key the hash of its dimensions, its evidence folding to the evidence
  root, its question to the question hash, its ``record_hash``, its ``cache_write`` event
  at its ``event_seq``, its state what the events after it leave it;
* each document: its ``document_add`` event, which commits its root, size and title;
* each chunk: its proof against its document's root at the document's size, its text (a
  cited chunk's) re-hashed to its leaf.

:func:`witness_problems` holds the heads a saved notebook recorded to the bundle's spans.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arborist.audit import Checkpoint
from arborist.bundle_shape import CHAINS, read_bundle, shape_problems
from arborist.forest.bates import parse_bates
from arborist.forest.shard import node_event_body, session_event_body, titles_json
from arborist.hashing import (
    cache_key,
    canonical_text,
    event_row_hash,
    leaf_hash,
    node_row_hash,
    question_hash,
)
from arborist.keys import EVIDENCE_ROOT_DIMENSION, EvidenceRef, evidence_root, record_hash
from arborist.merkle import verify_inclusion
from arborist.store.cache import SUPERSEDED_REASON, write_event_body
from arborist.witness import Heads

__all__ = ["BundleReport", "check_bundle", "witness_problems"]

Events = dict[int, dict[str, Any]]


@dataclass(frozen=True)
class BundleReport:
    """What :func:`check_bundle` found: the problems (none: every check holds), what the
    bundle holds, and each chain's span as ``seq -> event_hash``."""

    problems: tuple[str, ...]
    sessions: int = 0
    turns: int = 0
    records: int = 0
    documents: int = 0
    chunks: int = 0
    spans: dict[str, dict[int, str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def head(self, chain: str) -> Checkpoint | None:
        """The head of ``chain``'s span (None: the bundle carries none of it)."""
        span = self.spans.get(chain) or {}
        return Checkpoint(max(span), span[max(span)]) if span else None


def check_bundle(data: bytes) -> BundleReport:
    """Check the bundle ``data`` holds; :class:`~arborist.bundle_shape.BundleUnreadable`
    (one line) when the bytes are no bundle at all."""
    bundle = read_bundle(data)
    problems = shape_problems(bundle) or (
        [] if bundle["sessions"] else ["the bundle holds no session: it proves nothing"]
    )
    if problems:
        return BundleReport(tuple(problems))
    spans: dict[str, Events] = {}
    for name in CHAINS:
        problems += _chain_problems(name, bundle["chains"][name], spans)
    problems += _turn_problems(bundle, spans["sessions"])
    problems += _record_problems(bundle, spans["store"])
    problems += _document_problems(bundle, spans["store"])
    problems += _chunk_problems(bundle)
    return BundleReport(
        tuple(problems),
        sessions=len(bundle["sessions"]),
        turns=len(bundle["turns"]),
        records=len(bundle["records"]),
        documents=len(bundle["documents"]),
        chunks=len(bundle["chunks"]),
        spans={n: {s: e["event_hash"] for s, e in spans[n].items()} for n in CHAINS},
    )


def _chain_problems(name: str, chain: dict[str, Any], spans: dict[str, Events]) -> list[str]:
    """The span's links, each event's hash and its head; ``spans[name]`` gets its events."""
    what = f"{name}.db chain"
    events, head = chain["events"], chain["head"]
    spans[name] = {event["seq"]: event for event in events}
    if not events:
        return [] if head is None else [f"{what}: a head but no event leads to it"]
    problems = []
    first = events[0]
    if (first["seq"] == 1) != (first["prev_event_hash"] is None):
        problems.append(f"{what}: seq {first['seq']}: its prev_event_hash does not fit its seq")
    for before, event in zip([None, *events], events, strict=False):
        seq = event["seq"]
        if before is not None and seq != before["seq"] + 1:
            problems.append(f"{what}: seq {seq} follows seq {before['seq']}: the span has a gap")
        elif before is not None and event["prev_event_hash"] != before["event_hash"]:
            problems.append(f"{what}: seq {seq}: its prev_event_hash is not seq {seq - 1}'s hash")
        recomputed = event_row_hash(  # the body as the file wrote it: canonical already
            event["prev_event_hash"], event["event_type"], event["sid"], event["bates"],
            canonical_text(event["body"]), event["created_at"],
        )  # fmt: skip
        if recomputed != event["event_hash"]:
            problems.append(f"{what}: seq {seq}: its event_hash does not recompute")
    last = events[-1]
    if head != {"seq": last["seq"], "event_hash": last["event_hash"]}:
        problems.append(f"{what}: its head is not its last event")
    return problems


def _event(events: Events, seq: int, event_type: Sequence[str]) -> dict[str, Any] | None:
    event = events.get(seq)
    return event if event is not None and event["event_type"] in event_type else None


def _turn_problems(bundle: dict[str, Any], events: Events) -> Iterator[str]:
    turns = {turn["bates"]: turn for turn in bundle["turns"]}
    sessions = {session["sid"]: session for session in bundle["sessions"]}
    for sid, session in sessions.items():
        root = turns.get(session["root_bates"])
        if parse_bates(session["root_bates"]) != (sid, 0) or root is None:
            yield f"session {sid}: its root turn is not in the bundle"
        elif root["created_at"] != session["created_at"]:
            yield f"session {sid}: its created_at is not its root turn's"
    records: dict[str, list[dict[str, Any]]] = {}
    for record in bundle["records"]:
        records.setdefault(record["cache_key"], []).append(record)
    titles = {doc["source_root"]: doc["title"] for doc in bundle["documents"]}
    renames: dict[str, list[tuple[int, Any]]] = {}  # each turn's label events, in order
    for seq in sorted(events):
        if events[seq]["event_type"] == "label" and type(events[seq]["bates"]) is str:
            renames.setdefault(events[seq]["bates"], []).append((seq, events[seq]["body"]))
    for bates, turn in turns.items():
        sid, seq = parse_bates(bates)
        problem = _turn_problem(turn, turns, sessions.get(sid), events, renames)
        if problem is None and seq > 0:
            problem = _answer_problem(turn, records.get(turn["cache_key"], []), titles)
        if problem is not None:
            yield f"turn {bates}: {problem}"


def _turn_problem(
    turn: dict[str, Any],
    turns: dict[str, Any],
    session: dict[str, Any] | None,
    events: Events,
    renames: dict[str, list[tuple[int, Any]]],
) -> str | None:
    sid, seq = parse_bates(turn["bates"])
    if session is None:
        return "its session is not in the bundle"
    parent = turns.get(turn["parent_bates"]) if turn["parent_bates"] is not None else None
    if seq > 0 and (parent is None or parse_bates(parent["bates"])[0] != sid):
        return "its parent is not in the bundle"
    digest = node_row_hash(
        parent["node_hash"] if parent else None, turn["bates"], turn["question"],
        turn["cache_key"], turn["audit_mode"], turn["created_at"], turn["created_label"],
    )  # fmt: skip
    if digest != turn["node_hash"]:
        return "its node_hash does not recompute from its fields and its parent's"
    kinds = ("session_create", "session_import") if seq == 0 else ("node_insert",)
    event = _event(events, turn["event_seq"], kinds)
    if seq == 0:
        body = session_event_body(session["label"], digest)
    else:
        titles = titles_json(turn["cited_titles"])
        body = node_event_body(digest, turn["parent_bates"], turn["answer_text"], titles)
    where = (sid, None if seq == 0 else turn["bates"])
    if event is None or (event["sid"], event["bates"]) != where or event["body"] != body:
        return f"the {kinds[0]} event at its event_seq does not record it as it is"
    renamed = [body for seq, body in renames.get(turn["bates"], []) if seq > turn["event_seq"]]
    last = renamed[-1] if renamed else {"label": turn["created_label"]}
    if type(last) is not dict or last.get("label") != turn["label"]:
        return "its label is not the one its label events leave it"
    return None


def _answer_problem(
    turn: dict[str, Any], records: list[dict[str, Any]], titles: dict[str, str]
) -> str | None:
    """Why no record of the bundle holds the turn's answer as the turn shows it, or None."""
    for record in records:
        cited = list(  # each cited document's title, once, in rank order (qa/standing.py)
            dict.fromkeys(titles.get(e["source_root"]) for e in record["evidence"] if e["cited"])
        )
        if (
            record["answer_text"] == turn["answer_text"]
            and record["audit_mode"] == turn["audit_mode"]
            and cited == turn["cited_titles"]
            and record["dimensions"]["question_hash"] == question_hash(turn["question"])
        ):
            return None
    return "no record in the bundle holds its answer, mode, cited titles and question"


def _held(value: Any) -> bytes:
    """``canonical_json`` of a value of the bundle, without its checks: ``read_bundle``
    held the bundle's whole text to them (no float, no integer out of range, no lone
    surrogate) and ``shape_problems`` each field to its type, so the bytes are the same."""
    return canonical_text(value).encode("utf-8")


def _record_problems(bundle: dict[str, Any], events: Events) -> Iterator[str]:
    changes = _changes(events)
    for record in bundle["records"]:
        name = f"record {record['cache_key'][:12]}… revision {record['revision']}"
        for problem in _record_problem(record, events, changes):
            yield f"{name}: {problem}"


Changes = dict[Any, list[int]]


def _changes(events: Events) -> Changes:
    """The seqs of the events that can move a record's state, in order, by what they name:
    a ``cache_write`` by its key, a ``cache_state`` by each ``(cache_key, revision)`` of its
    ``records`` (so a record's replay reads its own events, not the whole span's)."""
    changes: Changes = {}
    for seq in sorted(events):
        event, body = events[seq], events[seq]["body"]
        if type(body) is not dict:
            continue
        if event["event_type"] == "cache_write":
            key = body.get("cache_key")
            named: list[tuple[str, ...]] = [("write", key)] if type(key) is str else []
        elif event["event_type"] == "cache_state" and type(body.get("records")) is list:
            named = [
                ("state", item["cache_key"], str(int(item["revision"])))
                for item in body["records"]
                if type(item) is dict and item.keys() == {"cache_key", "revision"}
                and type(item["cache_key"]) is str and type(item["revision"]) in (int, bool)
            ]  # fmt: skip
        else:
            continue
        for name in dict.fromkeys(named):
            changes.setdefault(name, []).append(seq)
    return changes


def _record_problem(record: dict[str, Any], events: Events, changes: Changes) -> Iterator[str]:
    dims = record["dimensions"]
    refs = [
        (EvidenceRef(e["source_root"], e["chunk_count"], e["chunk_index"], e["leaf"]), e["cited"])
        for e in record["evidence"]
    ]
    if cache_key(dims, _held) != record["cache_key"]:
        yield "its cache_key is not the hash of its dimensions"
    if evidence_root([ref for ref, _ in refs], _held) != dims[EVIDENCE_ROOT_DIMENSION]:
        yield "its evidence does not fold to its evidence root"
    if question_hash(record["question"]) != dims["question_hash"]:
        yield "its question is not the one its question_hash names"
    digest = record_hash(
        cache_key=record["cache_key"], revision=record["revision"], question=record["question"],
        answer_text=record["answer_text"], audit_mode=record["audit_mode"], evidence=refs,
        created_at=record["created_at"], encode=_held,
    )  # fmt: skip
    if digest != record["record_hash"]:
        yield "its record_hash does not recompute from its fields"
    event = _event(events, record["event_seq"], ("cache_write",))
    body = write_event_body(
        cache_key=record["cache_key"], revision=record["revision"],
        record_hash=record["record_hash"], evidence_root=dims[EVIDENCE_ROOT_DIMENSION],
        answer_text=record["answer_text"], response_json=record["response_json"],
    )  # fmt: skip
    held = event["body"] if event is not None else None
    if type(held) is dict and "redactions" in held:
        body["redactions"] = held["redactions"]
    if held != body:
        yield "the cache_write event at its event_seq does not record it as it is"
    elif _replayed(record, events, changes) != (record["state"], record["state_reason"]):
        yield f"its state {record['state']!r} is not what its audit events leave it"


def _replayed(record: dict[str, Any], events: Events, changes: Changes) -> tuple[str, str | None]:
    """The state and reason the events after the record's ``cache_write`` leave it in
    (:mod:`arborist.store.cache.events`): a later revision of its key written while it is
    ``ok`` makes it ``stale``; each ``cache_state`` event naming it sets both."""
    key, revision, since = record["cache_key"], record["revision"], record["event_seq"]
    writes = changes.get(("write", key), [])
    named = sorted(writes[bisect_right(writes, since) :]
                   + [s for s in changes.get(("state", key, str(revision)), []) if s > since])  # fmt: skip
    state: tuple[Any, Any] = ("ok", None)
    for seq in named:
        event, body = events[seq], events[seq]["body"]
        if event["event_type"] == "cache_write":
            if state[0] == "ok":
                state = ("stale", SUPERSEDED_REASON)
        else:
            state = (body.get("state"), body.get("reason"))
    return state


def _document_problems(bundle: dict[str, Any], events: Events) -> Iterator[str]:
    cited = {item["source_root"] for r in bundle["records"] for item in r["evidence"]}
    for doc in bundle["documents"]:
        name = f"document {doc['source_root'][:12]}…"
        event = _event(events, doc["event_seq"], ("document_add",))
        body = event["body"] if event is not None else None
        fields = ("source_root", "chunk_count", "title")
        if type(body) is not dict or any(body.get(f) != doc[f] for f in fields):
            yield f"{name}: the document_add event at its event_seq does not record it as it is"
        if doc["source_root"] not in cited:
            yield f"{name}: no record in the bundle cites it"
    documents = {doc["source_root"]: doc["chunk_count"] for doc in bundle["documents"]}
    for record in bundle["records"]:
        for item in record["evidence"]:
            if documents.get(item["source_root"]) != item["chunk_count"]:
                yield (
                    f"record {record['cache_key'][:12]}… revision {record['revision']}: "
                    f"evidence {item['source_root'][:12]}… #{item['chunk_index']} names no "
                    "document of the bundle at its size"
                )


def _chunk_problems(bundle: dict[str, Any]) -> Iterator[str]:
    documents = {doc["source_root"]: doc["chunk_count"] for doc in bundle["documents"]}
    used: dict[tuple[str, int], set[tuple[str, bool]]] = {}
    for record in bundle["records"]:
        for item in record["evidence"]:
            place = (item["source_root"], item["chunk_index"])
            used.setdefault(place, set()).add((item["leaf"], item["cited"]))
    for chunk in bundle["chunks"]:
        root, index, leaf = chunk["source_root"], chunk["chunk_index"], chunk["leaf"]
        name = f"chunk {root[:12]}… #{index}"
        uses = used.pop((root, index), set())
        if not uses or {lf for lf, _cited in uses} != {leaf}:
            yield f"{name}: it is no evidence item of the bundle's records"
        elif (chunk["text"] is not None) != any(cited for _lf, cited in uses):
            yield f"{name}: its text is carried only when a record cites it"
        proof = [bytes.fromhex(h) for h in chunk["proof"]]
        size = documents.get(root, 0)
        if not verify_inclusion(bytes.fromhex(leaf), index, size, proof, bytes.fromhex(root)):
            yield f"{name}: its proof does not verify against its document's root and size"
        if chunk["text"] is not None and leaf_hash(chunk["text"].encode()).hex() != leaf:
            yield f"{name}: its text does not hash to its leaf"
    for root, index in sorted(used):
        yield f"chunk {root[:12]}… #{index}: an evidence item with no chunk in the bundle"


def witness_problems(report: BundleReport, witnesses: Sequence[Heads]) -> list[str]:
    """Each head a notebook recorded held to the bundle's span of its own chain: an event
    at its seq with its hash (never matched against the other chain)."""
    problems = []
    for heads in witnesses:
        for name, head in heads.named().items():
            span = report.spans.get(name) or {}
            held = span.get(head.seq)
            if held == head.event_hash:
                continue
            if held is None:
                reach = f"seqs {min(span)}..{max(span)}" if span else "no event"
                problems.append(f"{name}.db head {head}: outside the bundle's span ({reach})")
            else:
                problems.append(
                    f"{name}.db head {head}: differs from the bundle's event {head.seq}"
                )
    return problems
