"""A bundle checked on its own, with no home (docs/bundle.md): every hash, proof and chain
link recomputed, each failure named in one line.

:func:`check_bundle` reads the bytes (:mod:`arborist._bundles.shape`: canonical JSON of the
format, every field of its type, every list in order and without repeats), then:

* the turns' order (:func:`arborist._forest.shape.order_problems`, the rule ``verify`` and
  ``import`` hold a home's turns to): none older than its parent, no session numbered with
  a gap;
* each turn: its node hash computed under its parent's, and the body of the event at its
  ``event_seq`` (its ``node_insert``; a root: its session's ``session_create`` or
  ``session_import``) rebuilt from it (or, when the bundle carries that body, compared);
  its label what its ``label`` events leave it, and the record that holds its answer;
* each record: its evidence items completed from their chunks (the leaf) and documents
  (the size) and folded to the evidence root, its question hashed, its key the hash of its
  dimensions and those two, its record hash computed and the body of its ``cache_write``
  event rebuilt (or compared), its state what the events after it leave it;
* each chain span (:mod:`arborist._bundles.chain`): consecutive seqs, each event hashed onto
  the one before it (from the ``prev_event_hash`` the span starts from), the last one's hash
  the span's head: what ties every rebuilt body, so every turn and record, to the head; the
  first event whose hash is not its tag named by its turn, record or document;
* each record's model profile and governance policy: the bundle's entry under each hash
  its dimensions name, whose canonical JSON hashes to that key (and no entry unnamed);
* each document: its ``document_add`` event, which commits its root, size and title;
* each chunk: its proof (its document's proof nodes, by index) against its document's
  root at the document's size, its text (a cited chunk's) re-hashed to its leaf.

:func:`witness_problems` holds the heads a saved notebook recorded to the bundle's spans.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arborist._bundles.chain import Bodies, Events, chain_problems, event_owners, record_name
from arborist._bundles.shape import (
    CHAINS,
    DESCRIBED,
    HASHED_DIMENSIONS,
    BytesMemo,
    HexMemo,
    Named,
    b64_bytes,
    b64_hex,
    read_bundle,
    shape_problems,
)
from arborist._forest.bates import parse_bates
from arborist._forest.shape import order_problems
from arborist._forest.shard import node_event_body, session_event_body, titles_json
from arborist._proofs.audit import Checkpoint
from arborist._proofs.hashing import (
    cache_key,
    canonical_text,
    leaf_hash,
    node_row_hash,
    question_hash,
    sha256_hex,
)
from arborist._proofs.keys import EVIDENCE_ROOT_DIMENSION, EvidenceRef, record_hash
from arborist._proofs.merkle import merkle_root, verify_inclusion
from arborist._proofs.witness import Heads
from arborist._store.cache.events import write_event_body
from arborist._store.cache.records import SUPERSEDED_REASON
from arborist._store.claims import earned_problems

__all__ = ["BundleReport", "check_bundle", "witness_problems"]


@dataclass(frozen=True)
class BundleReport:
    """What :func:`check_bundle` found: the problems (none: every check holds), what the
    bundle holds, each chain's span as ``seq -> event_hash`` and each turn's node hash (all
    recomputed: a bundle states neither)."""

    problems: tuple[str, ...]
    sessions: int = 0
    turns: int = 0
    records: int = 0
    documents: int = 0
    chunks: int = 0
    spans: dict[str, dict[int, str]] = field(default_factory=dict)
    node_hashes: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def head(self, chain: str) -> Checkpoint | None:
        """The head of ``chain``'s span (None: the bundle carries none of it)."""
        span = self.spans.get(chain) or {}
        return Checkpoint(max(span), span[max(span)]) if span else None


def check_bundle(data: bytes) -> BundleReport:
    """Check the bundle ``data`` holds; :class:`~arborist._bundles.shape.BundleUnreadable`
    (one line) when the bytes are no bundle at all."""
    bundle = read_bundle(data)
    problems = shape_problems(bundle) or (
        [] if bundle["sessions"] else ["the bundle holds no session: it proves nothing"]
    )
    if problems:
        return BundleReport(tuple(problems))
    spans: dict[str, Events] = {
        name: {event["seq"]: event for event in bundle["chains"][name]["events"]} for name in CHAINS
    }
    built: dict[str, Bodies] = {name: {} for name in CHAINS}
    order = ((t["bates"], t["parent_bates"], t["created_at"]) for t in bundle["turns"])
    problems += [f"turn {bates}: {problem}" for bates, problem in order_problems(order)]
    nodes = _node_hashes(bundle)
    problems += _turn_events(bundle, nodes, spans["sessions"], built["sessions"])
    leaves = {  # a cited chunk's leaf is its text's hash
        (c["source_root"], c["chunk_index"]): leaf_hash(c["text"].encode())
        if "text" in c
        else b64_bytes(c["leaf"])
        for c in bundle["chunks"]
    }
    records = _Records(bundle, leaves, HexMemo())
    problems += records.events(spans["store"], built["store"])
    hashes: dict[str, dict[int, str]] = {}
    owners = event_owners(bundle, spans["sessions"])
    for name in CHAINS:
        problems += chain_problems(name, bundle["chains"][name], built[name], hashes, owners[name])
    bodies = {name: _bodies(spans[name], built[name]) for name in CHAINS}
    problems += _turn_problems(bundle, nodes, records, spans["sessions"], bodies["sessions"])
    problems += records.states(spans["store"], bodies["store"])
    problems += _described_problems(bundle, records.hexes)
    problems += _document_problems(bundle, spans["store"])
    problems += _chunk_problems(bundle, leaves, BytesMemo())
    return BundleReport(
        tuple(problems),
        sessions=len(bundle["sessions"]),
        turns=len(bundle["turns"]),
        records=len(bundle["records"]),
        documents=len(bundle["documents"]),
        chunks=len(bundle["chunks"]),
        spans=hashes,
        node_hashes={bates: digest for bates, digest in nodes.items() if digest is not None},
    )


def _evidence_leaf(ref: EvidenceRef) -> bytes:
    """:func:`arborist._proofs.keys.evidence_leaf` of an item whose root and leaf are hex this reader
    decoded and whose index is an integer: its canonical JSON written directly (nothing in
    it needs escaping)."""
    text = (
        f'{{"chunk_index":{ref.chunk_index},"leaf":"{ref.leaf}","source_root":"{ref.source_root}"}}'
    )
    return leaf_hash(text.encode("ascii"))


def _held(value: Any) -> bytes:
    """``canonical_json`` of a value of the bundle, without its checks: ``read_bundle``
    held the bundle's whole text to them (no float, no integer out of range, no lone
    surrogate) and ``shape_problems`` each field to its type, so the bytes are the same."""
    return canonical_text(value).encode("utf-8")


def _node_hashes(bundle: dict[str, Any]) -> dict[str, str | None]:
    """Each turn's node hash, under its parent's (None: its parent is not in the bundle, is
    of another session, or comes after it). Turns are in bates order, so a parent (a lower
    seq of the same session) is hashed before its children."""
    hashes: dict[str, str | None] = {}
    for turn in bundle["turns"]:
        parent = turn["parent_bates"]
        if parent is None:
            above = None
        elif parent in hashes and parse_bates(parent)[0] == parse_bates(turn["bates"])[0]:
            above = hashes[parent]
            if above is None:
                hashes[turn["bates"]] = None
                continue
        else:
            hashes[turn["bates"]] = None
            continue
        hashes[turn["bates"]] = node_row_hash(
            above,
            turn["bates"],
            turn["question"],
            b64_hex(turn["cache_key"]),
            turn["audit_mode"],
            turn["created_at"],
            turn["created_label"],
        )
    return hashes


def _claim(
    events: Events, built: Bodies, seq: int, kinds: Sequence[str], body: dict[str, Any]
) -> bool:
    """Give the event at ``seq`` (of one of ``kinds``) the body ``body`` rebuilt: True when it
    holds (no other item claims the event, and it carries no body, or, a ``cache_write``
    with ``redactions``, which the reader cannot rebuild, that body with them: a body is
    written one way)."""
    event = events.get(seq)
    if event is None or event["event_type"] not in kinds or seq in built:
        return False
    built[seq] = body
    if "body" not in event:
        return True
    held = event["body"]
    if kinds != ("cache_write",) or type(held) is not dict or "redactions" not in held:
        return False
    return bool(held == {**body, "redactions": held["redactions"]})


def _turn_events(
    bundle: dict[str, Any], nodes: dict[str, str | None], events: Events, built: Bodies
) -> Iterator[str]:
    """Each turn's event: its body rebuilt (or held to the one carried), its sid and bates."""
    sessions = {session["sid"]: session for session in bundle["sessions"]}
    for turn in bundle["turns"]:
        digest = nodes[turn["bates"]]
        sid, seq = parse_bates(turn["bates"])
        if digest is None or sid not in sessions:
            continue  # _turn_problems names it
        if seq == 0:
            kinds: tuple[str, ...] = ("session_create", "session_import")
            body = session_event_body(sessions[sid]["label"], digest)
        else:
            kinds = ("node_insert",)
            titles = titles_json(turn["cited_titles"])
            body = node_event_body(digest, turn["parent_bates"], turn["answer_text"], titles)
        event = events.get(turn["event_seq"])
        where = (sid, None if seq == 0 else turn["bates"])
        if (
            not _claim(events, built, turn["event_seq"], kinds, body)
            or event is None
            or (event["sid"], event["bates"]) != where
        ):
            yield (
                f"turn {turn['bates']}: the {kinds[0]} event at its event_seq does not record "
                "it as it is"
            )


def _bodies(events: Events, built: Bodies) -> Bodies:
    """Every event's body: the one carried, else the one rebuilt."""
    return {seq: e["body"] if "body" in e else built.get(seq) for seq, e in events.items()}


def _event(events: Events, seq: int, event_type: Sequence[str]) -> dict[str, Any] | None:
    event = events.get(seq)
    return event if event is not None and event["event_type"] in event_type else None


def _turn_problems(
    bundle: dict[str, Any],
    nodes: dict[str, str | None],
    records: _Records,
    events: Events,
    bodies: Bodies,
) -> Iterator[str]:
    turns = {turn["bates"]: turn for turn in bundle["turns"]}
    sessions = {session["sid"]: session for session in bundle["sessions"]}
    for sid, session in sessions.items():
        root = turns.get(session["root_bates"])
        if parse_bates(session["root_bates"]) != (sid, 0) or root is None:
            yield f"session {sid}: its root turn is not in the bundle"
        elif root["created_at"] != session["created_at"]:
            yield f"session {sid}: its created_at is not its root turn's"
    renames: dict[str, list[tuple[int, Any]]] = {}  # each turn's label events, in order
    for seq in sorted(events):
        if events[seq]["event_type"] == "label" and type(events[seq]["bates"]) is str:
            renames.setdefault(events[seq]["bates"], []).append((seq, bodies[seq]))
    for bates, turn in turns.items():
        sid, seq = parse_bates(bates)
        problem = None
        if sid not in sessions:
            problem = "its session is not in the bundle"
        elif nodes[bates] is None:
            problem = "its parent is not in the bundle"
        else:
            renamed = [b for s, b in renames.get(bates, []) if s > turn["event_seq"]]
            last = renamed[-1] if renamed else {"label": turn["created_label"]}
            if type(last) is not dict or last.get("label") != turn["label"]:
                problem = "its label is not the one its label events leave it"
            elif seq > 0 and not records.answers(turn):
                problem = (
                    "no record in the bundle holds its answer, mode, cited titles and question"
                )
        if problem is not None:
            yield f"turn {bates}: {problem}"


class _Records:
    """The bundle's records, each completed as its hashes need it: its evidence items'
    leaves (their chunks') and sizes (their documents'), its evidence root and question hash
    computed."""

    def __init__(
        self, bundle: dict[str, Any], leaves: dict[tuple[str, int], bytes], hexes: HexMemo
    ) -> None:
        self.hexes = hexes
        self.records = bundle["records"]
        self.sizes = {doc["source_root"]: doc["chunk_count"] for doc in bundle["documents"]}
        self.titles = {doc["source_root"]: doc["title"] for doc in bundle["documents"]}
        self.leaves = leaves
        self.by_key: dict[str, list[dict[str, Any]]] = {}
        for record in self.records:
            self.by_key.setdefault(record["cache_key"], []).append(record)
        self.asked: dict[int, str] = {}  # id(record) -> its question's hash
        self.held: set[int] = set()  # id(record) of each whose cache_write holds it

    name = staticmethod(record_name)

    def events(self, events: Events, built: Bodies) -> Iterator[str]:
        """Each record's hashes, and its ``cache_write`` event's body rebuilt (or compared)."""
        for record in self.records:
            problems = list(self._record_problems(record, events, built))
            for problem in problems:
                yield f"{self.name(record)}: {problem}"

    def _record_problems(
        self, record: dict[str, Any], events: Events, built: Bodies
    ) -> Iterator[str]:
        refs: list[tuple[EvidenceRef, bool]] = []
        for item in record["evidence"]:
            root, index = item["source_root"], item["chunk_index"]
            size, leaf = self.sizes.get(root), self.leaves.get((root, index))
            if size is None:
                yield f"evidence {b64_hex(root)[:12]}… #{index} names no document of the bundle"
            elif leaf is None:
                yield f"evidence {b64_hex(root)[:12]}… #{index}: an evidence item with no chunk"
            else:
                ref = EvidenceRef(self.hexes[root], size, index, leaf.hex())
                refs.append((ref, item["cited"]))
        if len(refs) != len(record["evidence"]):
            return
        rows = [(rank, bool(cited), None) for rank, (_ref, cited) in enumerate(refs)]
        yield from earned_problems(record["answer_text"], record["audit_mode"], rows)
        dims = {
            name: self.hexes[v] if name in HASHED_DIMENSIONS else v
            for name, v in record["dimensions"].items()
        }
        key = b64_hex(record["cache_key"])
        root = merkle_root([_evidence_leaf(ref) for ref, _ in refs]).hex()
        asked = self.asked[id(record)] = question_hash(record["question"])
        if cache_key({**dims, EVIDENCE_ROOT_DIMENSION: root, "question_hash": asked}, _held) != key:
            yield "its cache_key is not the hash of its dimensions, evidence root and question"
        digest = record_hash(
            cache_key=key,
            revision=record["revision"],
            question=record["question"],
            answer_text=record["answer_text"],
            audit_mode=record["audit_mode"],
            evidence=refs,
            created_at=record["created_at"],
            encode=_held,
        )
        body = write_event_body(
            cache_key=key,
            revision=record["revision"],
            record_hash=digest,
            evidence_root=root,
            answer_text=record["answer_text"],
            response_json=record["response_json"],
        )
        if _claim(events, built, record["event_seq"], ("cache_write",), body):
            self.held.add(id(record))
        else:
            yield "the cache_write event at its event_seq does not record it as it is"

    def answers(self, turn: dict[str, Any]) -> bool:
        """Whether a record of the bundle holds the turn's answer as the turn shows it."""
        for record in self.by_key.get(turn["cache_key"], []):
            cited = list(  # each cited document's title, once, in rank order (qa/standing.py)
                dict.fromkeys(
                    self.titles.get(e["source_root"]) for e in record["evidence"] if e["cited"]
                )
            )
            if (
                record["answer_text"] == turn["answer_text"]
                and record["audit_mode"] == turn["audit_mode"]
                and cited == turn["cited_titles"]
                and self.asked.get(id(record)) == question_hash(turn["question"])
            ):
                return True
        return False

    def states(self, events: Events, bodies: Bodies) -> Iterator[str]:
        changes = _changes(events, bodies)
        for record in self.records:
            if id(record) not in self.held:
                continue
            state = _replayed(record, events, bodies, changes)
            if state != (record["state"], record["state_reason"]):
                yield (
                    f"{self.name(record)}: its state {record['state']!r} is not what its audit "
                    "events leave it"
                )


Changes = dict[Any, list[int]]


def _changes(events: Events, bodies: Bodies) -> Changes:
    """The seqs of the events that can move a record's state, in order, by what they name:
    a ``cache_write`` by its key, a ``cache_state`` by each ``(cache_key, revision)`` of its
    ``records`` (so a record's replay reads its own events, not the whole span's)."""
    changes: Changes = {}
    for seq in sorted(events):
        event, body = events[seq], bodies[seq]
        if type(body) is not dict:
            continue
        if event["event_type"] == "cache_write":
            key = body.get("cache_key")
            named: list[tuple[str, ...]] = [("write", key)] if type(key) is str else []
        elif event["event_type"] == "cache_state" and type(body.get("records")) is list:
            named = [
                ("state", item["cache_key"], str(int(item["revision"])))
                for item in body["records"]
                if type(item) is dict
                and item.keys() == {"cache_key", "revision"}
                and type(item["cache_key"]) is str
                and type(item["revision"]) in (int, bool)
            ]
        else:
            continue
        for name in dict.fromkeys(named):
            changes.setdefault(name, []).append(seq)
    return changes


def _replayed(
    record: dict[str, Any], events: Events, bodies: Bodies, changes: Changes
) -> tuple[str, str | None]:
    """The state and reason the events after the record's ``cache_write`` leave it in
    (:mod:`arborist._store.cache.events`): a later revision of its key written while it is
    ``ok`` makes it ``stale``; each ``cache_state`` event naming it sets both."""
    key, revision, since = b64_hex(record["cache_key"]), record["revision"], record["event_seq"]
    writes = changes.get(("write", key), [])
    named = sorted(
        writes[bisect_right(writes, since) :]
        + [s for s in changes.get(("state", key, str(revision)), []) if s > since]
    )
    state: tuple[Any, Any] = ("ok", None)
    for seq in named:
        if events[seq]["event_type"] == "cache_write":
            if state[0] == "ok":
                state = ("stale", SUPERSEDED_REASON)
        else:
            state = (bodies[seq].get("state"), bodies[seq].get("reason"))
    return state


def _described_problems(bundle: dict[str, Any], hexes: HexMemo) -> Iterator[str]:
    """Each record's profile and policy in the bundle under the hash its dimensions name,
    each entry's canonical JSON hashing to its key, and no entry that no record names."""
    for member, dimension in DESCRIBED:
        entries, kind = bundle[member], "profile" if member == "profiles" else "policy"
        named = {record["dimensions"][dimension] for record in bundle["records"]}
        for record in bundle["records"]:
            if record["dimensions"][dimension] not in entries:
                yield f"{record_name(record)}: its {dimension} names no {kind} of the bundle"
        for key, value in entries.items():
            if sha256_hex(_held(value)) != hexes[key]:
                yield f"{kind} {hexes[key][:12]}…: its text does not hash to its key"
            if key not in named:
                yield f"{kind} {hexes[key][:12]}…: no record of the bundle names it"


def _document_problems(bundle: dict[str, Any], events: Events) -> Iterator[str]:
    cited = {item["source_root"] for r in bundle["records"] for item in r["evidence"]}
    for doc in bundle["documents"]:
        root = b64_hex(doc["source_root"])
        name = f"document {root[:12]}…"
        event = _event(events, doc["event_seq"], ("document_add",))
        body = event.get("body") if event is not None else None
        held = {"source_root": root, "chunk_count": doc["chunk_count"], "title": doc["title"]}
        if type(body) is not dict or any(body.get(f) != v for f, v in held.items()):
            yield f"{name}: the document_add event at its event_seq does not record it as it is"
        if doc["source_root"] not in cited:
            yield f"{name}: no record in the bundle cites it"


def _chunk_problems(
    bundle: dict[str, Any], leaves: dict[tuple[str, int], bytes], raw: BytesMemo
) -> Iterator[str]:
    documents = {doc["source_root"]: doc for doc in bundle["documents"]}
    used: dict[tuple[str, int], list[bool]] = {}
    for record in bundle["records"]:
        for item in record["evidence"]:
            used.setdefault((item["source_root"], item["chunk_index"]), []).append(item["cited"])
    seen: dict[str, int] = {}  # how many of each document's proof nodes were met so far
    disordered: set[str] = set()
    for chunk in bundle["chunks"]:
        root, index = chunk["source_root"], chunk["chunk_index"]
        name = Named("chunk", root, f" #{index}")
        uses = used.get((root, index))
        if not uses:
            yield f"{name}: it is no evidence item of the bundle's records"
        elif ("text" in chunk) != any(uses):
            yield f"{name}: its text is carried (and its leaf not) exactly when a record cites it"
        doc = documents.get(root)
        nodes = doc["nodes"] if doc is not None else []
        met = seen.get(root, 0)
        for at in chunk["proof"]:
            if at == met:
                met += 1
            elif at > met:
                disordered.add(root)
        seen[root] = met
        proof = [raw[nodes[at]] for at in chunk["proof"] if at < len(nodes)]
        size = doc["chunk_count"] if doc is not None else 0
        if len(proof) != len(chunk["proof"]) or not verify_inclusion(
            leaves[root, index], index, size, proof, raw[root]
        ):
            yield (
                f"{name}: its proof does not verify against its document's root and size (from "
                f"its {'text' if 'text' in chunk else 'leaf'})"
            )
    for doc in bundle["documents"]:
        root, nodes = doc["source_root"], doc["nodes"]
        if root in disordered or seen.get(root, 0) != len(nodes) or len(set(nodes)) != len(nodes):
            yield (
                f"document {b64_hex(root)[:12]}…: its proof nodes are not its "
                "chunks' proofs' nodes, each once, in the order they are first used"
            )


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
