"""A cache record's state after it is written: falsifying it, undoing that, marking it
stale, and which revision and state each turn shows (see :mod:`arborist._store.cache`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from arborist._database.db import rows_in, transaction
from arborist._errors import BadInput
from arborist._proofs.audit import append_event, bodies_since
from arborist._store.cache.records import (
    FALSIFIED_STATES,
    OK,
    STALE,
    CacheRecord,
    _next_revision,
    load_record,
    resolve_key,
)

__all__ = [
    "RESTORED_REASON",
    "RevisionState",
    "falsify",
    "latest_states",
    "mark_stale",
    "restated_revisions_since",
    "restated_since",
    "restore",
    "revision_states",
    "shown_revision",
    "state_event_body",
]


def latest_states(conn: sqlite3.Connection, keys: Iterable[str]) -> dict[str, str]:
    """The state of each key's latest revision (what a tree row shows: a falsified answer
    reads as such); keys with no record here are left out."""
    rows = rows_in(
        conn,
        "SELECT cache_key, state FROM cache_records AS r WHERE cache_key IN ({marks}) "
        "AND revision = (SELECT max(revision) FROM cache_records WHERE cache_key = r.cache_key)",
        sorted(set(keys)),
    )
    return {str(key): str(state) for key, state in rows}


RevisionState = tuple[int, str, str]
"""One revision of a key: ``(revision, created_at, state)``."""


def revision_states(
    conn: sqlite3.Connection, keys: Iterable[str]
) -> dict[str, list[RevisionState]]:
    """Every revision of each key, oldest first: what :func:`shown_revision` picks from."""
    rows = rows_in(
        conn,
        "SELECT cache_key, revision, created_at, state FROM cache_records "
        "WHERE cache_key IN ({marks}) ORDER BY cache_key, revision",
        sorted(set(keys)),
    )
    out: dict[str, list[RevisionState]] = {}
    for key, revision, created_at, state in rows:
        out.setdefault(str(key), []).append((int(revision), str(created_at), str(state)))
    return out


def shown_revision(revisions: Sequence[RevisionState], asked_at: str) -> RevisionState | None:
    """The revision a turn recorded at ``asked_at`` showed: the latest one written by then
    (an answer is written before the turn that shows it); None when every revision is
    later (a turn imported from another home)."""
    shown = None
    for revision in revisions:
        if revision[1] <= asked_at:
            shown = revision
    return shown


def restated_since(conn: sqlite3.Connection, since: int, limit: int) -> dict[str, str] | None:
    """The state now of every key a ``cache_state`` event after store event ``since``
    moved (a falsify, a stale mark); None when more than ``limit`` events did."""
    bodies = bodies_since(conn, since, "cache_state", limit)
    if bodies is None:
        return None
    keys = [
        record["cache_key"]
        for body in bodies
        for record in body.get("records", [])
        if isinstance(record, dict) and isinstance(record.get("cache_key"), str)
    ]
    return latest_states(conn, keys)


def restated_revisions_since(
    conn: sqlite3.Connection, since: int, limit: int
) -> dict[str, dict[int, str]] | None:
    """The state now of every revision a ``cache_state`` event after store event ``since``
    moved (a falsify, its undoing, a stale mark), by key; None when more than ``limit``
    events did."""
    bodies = bodies_since(conn, since, "cache_state", limit)
    if bodies is None:
        return None
    keys = {
        record["cache_key"]
        for body in bodies
        for record in body.get("records", [])
        if isinstance(record, dict) and isinstance(record.get("cache_key"), str)
    }
    return {
        key: {revision: state for revision, _created_at, state in revisions}
        for key, revisions in revision_states(conn, keys).items()
    }


def state_event_body(
    state: str, reason: str, records: Iterable[tuple[str, int]]
) -> dict[str, object]:
    """What a ``cache_state`` event commits to: the new state, why, and the
    ``(cache_key, revision)`` of every record it moved."""
    return {
        "state": state,
        "reason": reason,
        "records": [{"cache_key": key, "revision": revision} for key, revision in records],
    }


# --- changes of state ----------------------------------------------------------------------------


def _set_state(
    conn: sqlite3.Connection, state: str, reason: str, records: Sequence[tuple[int, str, int]]
) -> None:
    """Move ``(id, cache_key, revision)`` records to ``state`` with one ``cache_state`` event;
    inside the caller's transaction."""
    conn.executemany(
        "UPDATE cache_records SET state = ?, state_reason = ? WHERE id = ?",
        [(state, reason, record_id) for record_id, _key, _revision in records],
    )
    body = state_event_body(state, reason, [(key, rev) for _id, key, rev in records])
    append_event(conn, "cache_state", body=body)


def falsify(
    conn: sqlite3.Connection, ref: str, state: str, reason: str, *, revision: int | None = None
) -> CacheRecord:
    """Take a key's ``ok`` record out of service; the next ask for it is a miss. With
    ``revision``, that revision must be the ``ok`` one (a turn falsifies the answer it
    showed, never a later one)."""
    if state not in FALSIFIED_STATES:
        raise BadInput(f"bad state {state!r}: choose one of {', '.join(FALSIFIED_STATES)}")
    if not reason.strip():
        raise BadInput("say why the answer is wrong: a falsification records its reason")
    record = resolve_key(conn, ref, revision=revision)
    if record.state != OK:
        raise BadInput(
            f"record {record.cache_key[:12]}… revision {record.revision} is already {record.state}"
        )
    with transaction(conn):
        _set_state(conn, state, reason.strip(), [(record.id, record.cache_key, record.revision)])
    return load_record(conn, record.id)


RESTORED_REASON = "falsification undone"
"""The reason a record put back in service by :func:`restore` carries (with what it was)."""


def restore(conn: sqlite3.Connection, ref: str, revision: int) -> CacheRecord:
    """Undo a falsification: put revision ``revision`` of a key back in service (``ok``),
    with one more ``cache_state`` event (the chain is append-only: the falsification stays
    in the record, and so does its undoing). Only while no answer replaced it: the record
    must be the key's latest revision (so no other one serves the key)."""
    with transaction(conn):
        record = resolve_key(conn, ref, revision=revision)
        name = f"record {record.cache_key[:12]}… revision {record.revision}"
        if record.state not in FALSIFIED_STATES:
            raise BadInput(f"{name} is {record.state}: there is no falsification to undo")
        latest = _next_revision(conn, record.cache_key) - 1
        if latest != record.revision:
            raise BadInput(
                f"{name} cannot be put back: revision {latest} has answered the question since"
            )
        was = f"{record.state}: {record.state_reason}" if record.state_reason else record.state
        reason = f"{RESTORED_REASON} (was {was})"
        _set_state(conn, OK, reason, [(record.id, record.cache_key, record.revision)])
    return load_record(conn, record.id)


def mark_stale(conn: sqlite3.Connection, document_id: int, reason: str) -> int:
    """Mark every ``ok`` record citing this document ``stale``; one audit event. Returns the
    count. Runs inside the caller's transaction (a new version, a refused rehydration)."""
    rows = conn.execute(
        f"SELECT id, cache_key, revision FROM cache_records WHERE state = '{OK}' AND id IN "
        "(SELECT record_id FROM cache_evidence WHERE document_id = ?) ORDER BY id",
        (document_id,),
    ).fetchall()
    if rows:
        _set_state(conn, STALE, reason, rows)
    return len(rows)
