"""What a store's rows claim beyond what their hashes cover, held to what an honest writer
sets: the audit mode a record's citations earn, which version of a document is current, and
which tier its chunks are in.
``arborist verify`` (:mod:`arborist._store.verify`) reports each line these return.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence

from arborist._proofs.citations import cited_labels
from arborist._store.cache.records import OK
from arborist._store.cache.rows import StoredEvidence, StoredRecord
from arborist._store.documents import Document, stored_documents
from arborist._store.schema import HOT

__all__ = ["earned_problems", "mode_problems", "tier_problems", "version_problems"]


def mode_problems(
    record: StoredRecord, evidence: Sequence[StoredEvidence], core: set[int]
) -> list[str]:
    """:func:`earned_problems` of a stored record (``core``: the ids of core documents)."""
    rows = [(e.rank, bool(e.cited), e.document_id in core) for e in evidence]
    return earned_problems(record.answer_text, record.audit_mode, rows)


def earned_problems(
    answer: object, mode: object, rows: Sequence[tuple[int, bool, bool | None]]
) -> list[str]:
    """A record's cited flags and audit mode against its answer, as the writer sets them
    (``rows``: each evidence row's rank, cited flag, and whether its document is a core
    record, None when that is not known): a row is cited exactly when the answer cites its
    label (``E1`` for rank 0), and the mode is the weakest of the cited rows' (``VISUAL``
    when none is cited, ``HYBRID`` for a core record's; a rehydrated chunk's HYBRID is not
    known after the fact, so a cited row allows either of the others). Hashing the mode
    does not make it earned: a rewritten home, or a bundle made from one, could claim
    STRICT for an answer citing nothing."""
    labels = set(cited_labels(answer)) if isinstance(answer, str) else set()
    flagged = {f"E{rank + 1}" for rank, cited, _core in rows if cited}
    problems = []
    if flagged != labels & {f"E{rank + 1}" for rank, _cited, _core in rows}:
        problems.append("its cited evidence differs from the labels its answer cites")
    if not flagged:
        earned = {"VISUAL"}
    elif any(core for _rank, cited, core in rows if cited):
        earned = {"HYBRID"}
    else:
        earned = {"STRICT", "HYBRID"}
    if mode not in earned:
        problems.append(f"its audit mode {mode} is not what its cited evidence earns")
    return problems


def version_problems(conn: sqlite3.Connection) -> list[str]:
    """Which version of each URI is current, as the versions the ``document_add`` events
    commit make it (a re-ingest supersedes the version before it, and nothing else moves a
    status): the newest current, every older one superseded. And no ``ok`` record cites a
    superseded version: a re-ingest marks the records citing the old one stale, and
    retrieval reads current versions only. A status flipped by hand would serve an old
    version as STRICT, and leave records that cite it ``ok`` once flipped back."""
    documents = stored_documents(conn)
    newest: dict[object, Document] = {}
    for document in documents:
        held = newest.get(document.uri)
        if held is None or _later(document.version, held.version):
            newest[document.uri] = document
    problems, superseded = [], set()
    for document in documents:
        status = "current" if newest[document.uri] is document else "superseded"
        if status == "superseded":
            superseded.add(document.id)
        if document.status != status:
            problems.append(
                f"document {document.uri} version {document.version}: its status is "
                f"{document.status}, but its versions make it {status}"
            )
    for key, revision, doc_id in conn.execute(
        f"SELECT DISTINCT r.cache_key, r.revision, e.document_id FROM cache_records AS r "
        f"JOIN cache_evidence AS e ON e.record_id = r.id WHERE r.state = '{OK}' ORDER BY r.id"
    ):
        if doc_id in superseded:
            problems.append(
                f"cache record {key} (revision {revision}) is ok, but cites a superseded "
                "version of a document (a new version marks the records citing the old stale)"
            )
    return problems


def _later(version: object, than: object) -> bool:
    return type(version) is int and (type(than) is not int or version > than)


def tier_problems(
    conn: sqlite3.Connection, tiers: Mapping[tuple[int, str], int], uris: Mapping[int, str]
) -> list[str]:
    """Each document's chunks (``tiers``: how many of a document's are in each tier, as
    :mod:`arborist._store.verify` read them) in the tier its ``tier_change`` events leave
    them: hot as ingested, then the tier of its last move (an eviction moves every chunk
    down, a rehydration or a re-ingest every one back). Moved by hand, a document drops out
    of retrieval (or comes back) with no event to say so, and ``ask`` silently misses it."""
    moved: dict[object, object] = {}
    for (body,) in conn.execute(
        "SELECT body FROM audit_events WHERE event_type = 'tier_change' ORDER BY seq"
    ):
        try:
            event = json.loads(body)
        except (TypeError, ValueError):
            continue  # the chain check reports an unreadable event
        if isinstance(event, dict):
            moved[event.get("document_id")] = event.get("tier")
    problems = []
    for (doc_id, tier), count in sorted(tiers.items(), key=lambda held: str(held[0])):
        expected = moved.get(doc_id, HOT)
        if tier != expected:
            problems.append(
                f"document {uris.get(doc_id, doc_id)}: {count} chunk(s) {tier}, where its "
                f"tier_change events leave it {expected}"
            )
    return problems
