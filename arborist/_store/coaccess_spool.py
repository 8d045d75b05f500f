"""A turn's co-access capture, spooled with the turn and drained into store.db: never lost.

docs/design.md section 7. A turn lives in ``sessions.db`` and its co-access rows
in ``store.db``: two files, so two transactions, and a process killed between
them used to lose the turn's rows for good. So the capture — the admitted leaves
the turn cited, its session and redacted transcript path, keyed by the turn's
bates number (its ``capture_batch_id``) — is written by :func:`spool` in the
``sessions.db`` transaction that writes the turn: the turn and its capture are
there together or not at all.

:func:`drain` replays every capture still spooled, oldest first: in one
``store.db`` transaction it writes the capture's ``record_session`` rows and a
``coaccess_drained`` row whose primary key is the batch id; then it deletes the
captures from the spool. A capture whose batch id ``coaccess_drained`` already
holds (a kill landed between the two) is only deleted: a re-drain writes
nothing twice. The facade drains after each turn and before the related index
is read or rebuilt, so a capture a kill left behind is replayed by the next
ask, ``related`` or rebuild, in any process.

Both tables exist only once the feature has been on (``ARBORIST_COACCESS=1``);
like the rows they feed, they are bookkeeping no hash covers.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from arborist._clock import utc_now
from arborist._database.db import is_read_only, transaction
from arborist._store import coaccess

__all__ = ["Capture", "Drained", "drain", "pending", "spool"]

SPOOL = """
CREATE TABLE IF NOT EXISTS coaccess_spool (
    capture_batch_id TEXT PRIMARY KEY,
    session_id       TEXT NOT NULL,
    transcript_ref   TEXT,
    leaves_json      TEXT NOT NULL,
    created_at       TEXT NOT NULL
)
"""
"""In ``sessions.db``: captures not yet in ``store.db`` (empty between turns)."""

DRAINED = """
CREATE TABLE IF NOT EXISTS coaccess_drained (
    capture_batch_id TEXT PRIMARY KEY,
    rows_written     INTEGER NOT NULL,
    drained_at       TEXT NOT NULL
)
"""
"""In ``store.db``: every capture drained, written in the transaction that wrote its rows."""


@dataclass(frozen=True)
class Capture:
    """What one turn recorded: its batch id (bates), session, transcript and cited leaves."""

    capture_batch_id: str
    session_id: str
    transcript_ref: str | None
    leaves: tuple[str, ...]


@dataclass(frozen=True)
class Drained:
    """One drain: captures written now, captures found written already, rows written."""

    written: int
    already: int
    rows: int


def spool(
    conn: sqlite3.Connection,
    capture_batch_id: str,
    session_id: str,
    transcript_ref: str | None,
    leaves: Sequence[str],
) -> None:
    """Keep a turn's capture in ``sessions.db``, inside the caller's transaction (the
    turn's): its bates number, session, redacted transcript and admitted cited leaves.

    A capture with no leaf records nothing and is not kept. Idempotent on the
    batch id.
    """
    if not leaves:
        return
    conn.execute(SPOOL)
    conn.execute(
        "INSERT INTO coaccess_spool (capture_batch_id, session_id, transcript_ref, "
        "leaves_json, created_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (capture_batch_id) DO NOTHING",
        (capture_batch_id, session_id, transcript_ref, json.dumps(list(leaves)), utc_now()),
    )


def pending(conn: sqlite3.Connection) -> list[Capture]:
    """The captures ``sessions.db`` still spools, oldest first (none without the table)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'coaccess_spool'"
    ).fetchone()
    if exists is None:
        return []
    rows = conn.execute(
        "SELECT capture_batch_id, session_id, transcript_ref, leaves_json FROM coaccess_spool "
        "ORDER BY rowid"
    ).fetchall()
    return [
        Capture(str(batch), str(sid), ref, tuple(_leaves(text))) for batch, sid, ref, text in rows
    ]


def _leaves(text: str) -> list[str]:
    """A spooled capture's leaves (only a hand-edited file holds anything but hex strings)."""
    try:
        leaves = json.loads(text)
    except (TypeError, ValueError):
        return []
    if not isinstance(leaves, list):
        return []
    return [leaf for leaf in leaves if isinstance(leaf, str) and len(leaf) == 64]


def drain(sessions: sqlite3.Connection, store: sqlite3.Connection) -> Drained:
    """Write every spooled capture into ``store.db`` once, then clear the spool.

    Nothing to do (or a file that can only be read) costs one read. Safe for two
    processes at once: the drained mark is read inside the write transaction.
    """
    if is_read_only(sessions) or is_read_only(store):
        return Drained(0, 0, 0)
    captures = pending(sessions)
    if not captures:
        return Drained(0, 0, 0)
    coaccess.ensure_schema(store)
    with transaction(store):
        written, rows = _write(store, captures)
    _clear(sessions, [c.capture_batch_id for c in captures])
    return Drained(written, len(captures) - written, rows)


def _write(store: sqlite3.Connection, captures: Sequence[Capture]) -> tuple[int, int]:
    """Inside the caller's transaction: the rows and drained mark of each capture not
    drained before; the captures written and their rows."""
    store.execute(DRAINED)
    now = utc_now()
    written = rows = 0
    for capture in captures:
        if store.execute(
            "SELECT 1 FROM coaccess_drained WHERE capture_batch_id = ?",
            (capture.capture_batch_id,),
        ).fetchone():
            continue
        count = coaccess.insert_rows(
            store,
            session_id=capture.session_id,
            transcript_ref=capture.transcript_ref,
            capture_batch_id=capture.capture_batch_id,
            leaves=capture.leaves,
            now=now,
        )
        store.execute(
            "INSERT INTO coaccess_drained (capture_batch_id, rows_written, drained_at) "
            "VALUES (?, ?, ?)",
            (capture.capture_batch_id, count, now),
        )
        written += 1
        rows += count
    return written, rows


def _clear(sessions: sqlite3.Connection, batches: Sequence[str]) -> None:
    """Delete drained captures from the spool (their rows are committed in store.db)."""
    with transaction(sessions):
        sessions.executemany(
            "DELETE FROM coaccess_spool WHERE capture_batch_id = ?", [(b,) for b in batches]
        )
