"""The hash-chained audit log: one chain per database file, checked and checkpointed.

Every state change appends one event inside the caller's write transaction,
so the change and its event commit together or not at all. Each event's
hash covers the previous event's hash (:func:`arborist._proofs.hashing.event_hash`),
its ``seq`` runs 1, 2, 3, ... without gaps, and ``prev_event_hash`` is
UNIQUE (with at most one genesis event): two writers can never fork the
chain, because the head is read inside the ``BEGIN IMMEDIATE`` transaction.

:func:`check_chain` walks the chain and reports what is broken instead of
raising. A chain alone cannot reveal a truncated tail or a rewritten
suffix; a :class:`Checkpoint` ``<seq>:<event_hash>`` taken earlier can
(docs/design.md section 5b).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from arborist._clock import utc_now
from arborist._database.migrations import Migration
from arborist._errors import BadReference, CanonicalJSONError, DamagedDatabase, StorageError
from arborist._proofs.hashing import canonical_json, event_row_hash, stored_event_hash

__all__ = [
    "AUDIT_MIGRATION",
    "AuditEvent",
    "ChainProblem",
    "ChainReport",
    "Checkpoint",
    "ProblemKind",
    "append_event",
    "bodies_since",
    "chain_events",
    "check_chain",
    "check_chain_reporting",
    "differing_fields",
    "event_count",
    "has_audit_table",
    "head_checkpoint",
    "head_seq",
    "holds_event",
]

AUDIT_MIGRATION = Migration(
    version=1,
    name="audit_events",
    apply="""
CREATE TABLE audit_events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    event_type      TEXT NOT NULL,
    sid             TEXT,
    bates           TEXT,
    prev_event_hash TEXT UNIQUE,
    event_hash      TEXT NOT NULL UNIQUE,
    body            TEXT NOT NULL,
    created_at      TEXT NOT NULL
);
-- UNIQUE lets many NULLs through; this index allows a single genesis event.
CREATE UNIQUE INDEX audit_events_one_genesis
    ON audit_events ((prev_event_hash IS NULL)) WHERE prev_event_hash IS NULL;
""",
)
"""First migration of every arborist database (store.db and sessions.db)."""

ProblemKind = Literal["modified", "deleted", "reordered", "forked", "truncated", "rewritten"]

_CHECKPOINT = re.compile(r"([0-9]{1,18}):([0-9a-fA-F]{64})")


@dataclass(frozen=True, order=True)
class Checkpoint:
    """A chain head as ``<seq>:<event_hash>``: a witness of one exact history."""

    seq: int
    event_hash: str

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """Parse ``SEQ:HASH``; raise :class:`BadReference` with one line otherwise."""
        match = _CHECKPOINT.fullmatch(text.strip())
        if not match or int(match.group(1)) < 1:
            raise BadReference(
                f"bad checkpoint {text!r}: expected SEQ:HASH with SEQ >= 1 and a 64-hex event hash"
            )
        return cls(int(match.group(1)), match.group(2).lower())

    def __str__(self) -> str:
        return f"{self.seq}:{self.event_hash}"


@dataclass(frozen=True)
class AuditEvent:
    """One row of ``audit_events`` with its body decoded."""

    seq: int
    event_type: str
    sid: str | None
    bates: str | None
    prev_event_hash: str | None
    event_hash: str
    body: Any
    created_at: str

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self.seq, self.event_hash)


@dataclass(frozen=True)
class ChainProblem:
    """One thing wrong with a chain, at the first seq where it shows."""

    seq: int
    kind: ProblemKind
    detail: str

    def __str__(self) -> str:
        return f"seq {self.seq}: {self.kind}: {self.detail}"


@dataclass(frozen=True)
class ChainReport:
    """What :func:`check_chain` found. ``ok`` means intact and consistent with every checkpoint."""

    events_checked: int
    head: Checkpoint | None
    problems: tuple[ChainProblem, ...]
    checkpoints_checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first_bad_seq(self) -> int | None:
        return min((p.seq for p in self.problems), default=None)

    @property
    def first_problem(self) -> ChainProblem | None:
        return min(self.problems, key=lambda p: p.seq, default=None)


_HEAD_SQL = "SELECT seq, event_hash FROM audit_events ORDER BY seq DESC LIMIT 1"


def head_checkpoint(conn: sqlite3.Connection) -> Checkpoint | None:
    """The last event as a checkpoint, or None for an empty chain."""
    row = conn.execute(_HEAD_SQL).fetchone()
    return Checkpoint(row[0], row[1]) if row else None


def head_seq(conn: sqlite3.Connection) -> int:
    """The chain head's seq (0 for an empty chain): it moves on every state change."""
    head = head_checkpoint(conn)
    return head.seq if head else 0


def bodies_since(
    conn: sqlite3.Connection, since: int, event_type: str, limit: int
) -> list[dict[str, Any]] | None:
    """The bodies of the ``event_type`` events after event ``since``, oldest first; None
    when there are more than ``limit`` (a reader then starts over instead)."""
    rows = conn.execute(
        "SELECT body FROM audit_events WHERE seq > ? AND event_type = ? ORDER BY seq LIMIT ?",
        (since, event_type, limit + 1),
    ).fetchall()
    if len(rows) > limit:
        return None
    bodies = []
    for (body,) in rows:
        try:
            parsed = json.loads(body)
        except (TypeError, ValueError):
            continue  # a damaged body: verify reports it; a reader skips it
        if isinstance(parsed, dict):
            bodies.append(parsed)
    return bodies


def chain_events(conn: sqlite3.Connection, first_seq: int = 1) -> list[AuditEvent]:
    """Every event from ``first_seq`` to the head, in order, each body decoded (a body that
    is not JSON is kept as its stored text: whoever hashes it again then fails to match)."""
    events = []
    for seq, event_type, sid, bates, prev, digest, body, created_at in conn.execute(
        "SELECT seq, event_type, sid, bates, prev_event_hash, event_hash, body, created_at "
        "FROM audit_events WHERE seq >= ? ORDER BY seq",
        (first_seq,),
    ):
        try:
            decoded = json.loads(body)
        except (TypeError, ValueError, RecursionError):
            decoded = body
        events.append(AuditEvent(seq, event_type, sid, bates, prev, digest, decoded, created_at))
    return events


def event_count(conn: sqlite3.Connection) -> int:
    """How many events the chain holds."""
    return int(conn.execute("SELECT count(*) FROM audit_events").fetchone()[0])


def holds_event(conn: sqlite3.Connection, event_hash: str) -> bool:
    """Whether this database's chain holds the event ``event_hash``."""
    found = conn.execute(
        "SELECT 1 FROM audit_events WHERE event_hash = ?", (event_hash,)
    ).fetchone()
    return found is not None


def has_audit_table(conn: sqlite3.Connection) -> bool:
    """Whether the database has an audit chain at all (an arborist database does)."""
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_events'"
    ).fetchone()
    return found is not None


def append_event(
    conn: sqlite3.Connection,
    event_type: str,
    *,
    body: Any,
    sid: str | None = None,
    bates: str | None = None,
    created_at: str | None = None,
) -> AuditEvent:
    """Append one event inside the caller's open write transaction and return it.

    Refuses to run outside a transaction: an event committed apart from the
    change it records would make the log lie after a crash.
    """
    if not conn.in_transaction:
        raise StorageError("audit events must be appended inside a write transaction")
    body_json = canonical_json(body).decode("utf-8")
    created_at = created_at or utc_now()
    head = conn.execute(_HEAD_SQL).fetchone()  # head_checkpoint's row, read as one
    seq = head[0] + 1 if head else 1
    prev = head[1] if head else None
    digest = stored_event_hash(
        prev,
        event_type=event_type,
        sid=sid,
        bates=bates,
        body_json=body_json,
        created_at=created_at,
    )
    conn.execute(
        "INSERT INTO audit_events "
        "(seq, event_type, sid, bates, prev_event_hash, event_hash, body, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (seq, event_type, sid, bates, prev, digest, body_json, created_at),
    )
    return AuditEvent(seq, event_type, sid, bates, prev, digest, body, created_at)


def differing_fields(
    recorded: Mapping[str, object],
    expected: Mapping[str, object],
    *,
    optional: Collection[str] = (),
) -> list[str]:
    """The fields of ``expected`` that ``recorded`` holds otherwise, in ``expected``'s order.

    ``expected`` is an event's body rebuilt from the rows it describes by the very
    function that wrote it, ``recorded`` the body as stored: so a verifier compares
    exactly what the writer committed to. A field in ``optional`` that ``recorded``
    lacks is not compared (events written before the field was added).
    """
    return [
        name
        for name, value in expected.items()
        if (name in recorded or name not in optional) and recorded.get(name) != value
    ]


def _recomputed(row: tuple[Any, ...]) -> str | None:
    """The hash a stored row (as the walk selects it) should carry, or None if the row
    cannot be hashed at all."""
    prev, event_type, sid, bates, body, created_at, _seq, _digest = row
    if not isinstance(body, str) or (prev is not None and not isinstance(prev, str)):
        return None
    try:
        return stored_event_hash(
            prev,
            event_type=event_type,
            sid=sid,
            bates=bates,
            body_json=body,
            created_at=created_at,
        )
    except (CanonicalJSONError, TypeError, ValueError):
        return None


def _link_problem(
    conn: sqlite3.Connection, seq: int, prev: object, expected_prev: str | None
) -> ChainProblem:
    """Say why ``prev`` is not the previous event's hash: fork, reorder, or edit."""
    if prev is None:
        return ChainProblem(seq, "modified", "claims to be the first event but is not")
    forks = conn.execute(
        "SELECT count(*) FROM audit_events WHERE prev_event_hash = ?", (prev,)
    ).fetchone()[0]
    if forks > 1:
        return ChainProblem(seq, "forked", f"{forks} events claim the same predecessor")
    found = conn.execute("SELECT seq FROM audit_events WHERE event_hash = ?", (prev,)).fetchone()
    if found is not None:
        return ChainProblem(seq, "reordered", f"follows event {found[0]}, not event {seq - 1}")
    if expected_prev is None:
        return ChainProblem(seq, "modified", "first event names a predecessor")
    return ChainProblem(seq, "modified", f"prev_event_hash does not match event {seq - 1}")


def check_chain(conn: sqlite3.Connection, checkpoints: Sequence[Checkpoint] = ()) -> ChainReport:
    """Walk the whole chain and report what is wrong; never raises for bad data.

    Detects: an edited field or hash (``modified``), a missing event in the
    middle or at the tail as far as SQLite's own counter remembers
    (``deleted``), events in the wrong place (``reordered``), two events on
    one predecessor (``forked``), and, against each checkpoint, a chain that
    ends before it (``truncated``) or holds a different event there
    (``rewritten``). Happy path: one sequential scan, no extra queries.
    """
    try:
        return _check_chain(conn, tuple(checkpoints))
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"cannot read the audit chain: {exc}") from exc


def check_chain_reporting(
    conn: sqlite3.Connection, checkpoints: Sequence[Checkpoint], problems: list[str]
) -> ChainReport:
    """:func:`check_chain` for ``verify``: a chain that cannot be read (a damaged file)
    is one line in ``problems`` and an empty report, not an exception."""
    try:
        return check_chain(conn, checkpoints)
    except DamagedDatabase as exc:
        problems.append(f"audit chain: cannot be read ({exc.reason})")
    except StorageError as exc:
        problems.append(f"audit chain: {exc}")
    return ChainReport(0, None, ())


_WALK_SQL = (
    "SELECT prev_event_hash, event_type, sid, bates, body, created_at, seq, event_hash "
    "FROM audit_events ORDER BY seq"
)
_WALK_BATCH = 2048
"""Rows fetched at a time: one call into the cursor per batch, not per row."""


class _Walk:
    """What the walk has found so far, for the rows that leave its fast path."""

    def __init__(self, conn: sqlite3.Connection, checkpoints: tuple[Checkpoint, ...]) -> None:
        self.conn = conn
        # Several checkpoints may name one seq (two notebooks, or a forged one beside the
        # true one): each is held to the event there, none shadows another.
        self.wanted: dict[int, list[Checkpoint]] = {}
        for cp in checkpoints:
            self.wanted.setdefault(cp.seq, []).append(cp)
        self.seen_checkpoints: set[int] = set()
        self.problems: list[ChainProblem] = []

    def step(
        self, row: tuple[Any, ...], expected_seq: int, expected_prev: str | None, after_bad: bool
    ) -> tuple[int, str | None, bool]:
        """One row, every check spelled out; returns the walk's next expected seq and prev
        and whether this row was modified (the next row's link is then not judged)."""
        prev, seq, digest = row[0], row[6], row[7]
        problems = self.problems
        gap = seq != expected_seq
        if seq > expected_seq:
            missing = (
                f"event {expected_seq} is missing"
                if seq == expected_seq + 1
                else f"events {expected_seq}..{seq - 1} are missing"
            )
            problems.append(ChainProblem(expected_seq, "deleted", missing))
        elif seq < expected_seq:
            problems.append(ChainProblem(seq, "modified", f"seq {seq} is not a chain position"))
        modified = _recomputed(row) != digest
        if modified:
            problems.append(ChainProblem(seq, "modified", "content does not match its event_hash"))
        if prev != expected_prev and not gap and not after_bad:
            problems.append(_link_problem(self.conn, seq, prev, expected_prev))
        if seq in self.wanted:
            self.seen_checkpoints.add(seq)
            problems += [
                ChainProblem(seq, "rewritten", f"event {seq} differs from checkpoint {cp}")
                for cp in dict.fromkeys(self.wanted[seq])
                if cp.event_hash != digest
            ]
        return max(seq + 1, expected_seq), digest if isinstance(digest, str) else None, modified


def _check_chain(
    conn: sqlite3.Connection, checkpoints: tuple[Checkpoint, ...], *, fast: bool = True
) -> ChainReport:
    """The walk. A row that is where the chain expects it, links to its predecessor, is
    no checkpoint's and re-hashes to its event_hash by :func:`event_row_hash` passes in
    a few comparisons; any other row (and every row, with ``fast`` false) goes through
    :meth:`_Walk.step`, which checks it from scratch with :func:`stored_event_hash`, so
    a report is the same either way (the tests compare the two)."""
    walk = _Walk(conn, checkpoints)
    wanted = walk.wanted if fast else None
    row_hash = event_row_hash
    expected_seq, expected_prev, after_bad = 1, None, False
    checked, last = 0, None
    cursor = conn.execute(_WALK_SQL)
    while batch := cursor.fetchmany(_WALK_BATCH):
        checked += len(batch)
        last = batch[-1]
        for row in batch:
            prev, event_type, sid, bates, body, created_at, seq, digest = row
            if (
                wanted is not None
                and not after_bad
                and seq == expected_seq
                and prev == expected_prev
                and seq not in wanted
            ):
                try:
                    if row_hash(prev, event_type, sid, bates, body, created_at) == digest:
                        expected_seq, expected_prev = seq + 1, digest
                        continue
                except (TypeError, ValueError):
                    pass  # not all text: the step below hashes it as stored_event_hash does
            expected_seq, expected_prev, after_bad = walk.step(
                row, expected_seq, expected_prev, after_bad
            )
    problems = walk.problems
    problems += _tail_removed(conn, expected_seq)
    problems += _missing_checkpoints(checkpoints, walk.seen_checkpoints, last[6] if last else 0)
    head = Checkpoint(last[6], str(last[7])) if last else None
    problems.sort(key=lambda p: p.seq)
    return ChainReport(checked, head, tuple(problems), len(checkpoints))


def _tail_removed(conn: sqlite3.Connection, expected_seq: int) -> list[ChainProblem]:
    """Events cut from the chain's end: AUTOINCREMENT's high-water mark remembers them."""
    high_water = conn.execute(
        "SELECT seq FROM sqlite_sequence WHERE name = 'audit_events'"
    ).fetchone()
    if high_water and high_water[0] >= expected_seq:
        return [
            ChainProblem(
                expected_seq,
                "deleted",
                f"events {expected_seq}..{high_water[0]} were removed from the tail",
            )
        ]
    return []


def _missing_checkpoints(
    checkpoints: Sequence[Checkpoint], seen: set[int], head_at: int
) -> list[ChainProblem]:
    """A problem for each checkpoint whose event the walk never met."""
    problems = []
    for cp in dict.fromkeys(checkpoints):
        if cp.seq in seen:
            continue
        if cp.seq > head_at:
            problems.append(
                ChainProblem(
                    cp.seq, "truncated", f"checkpoint {cp} is beyond the chain head (seq {head_at})"
                )
            )
        else:
            problems.append(
                ChainProblem(cp.seq, "rewritten", f"event {cp.seq} of checkpoint {cp} is gone")
            )
    return problems
