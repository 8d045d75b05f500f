"""``arborist verify`` for ``sessions.db``: recompute every node, fold and answer; check the chain.

One problem line each, naming the turn:

* ``node_hash`` recomputed from the row (parent's hash, bates, question,
  cache key, audit mode, created_at, creation label) differs: an edited
  question, timestamp or mode, or a re-pointed parent;
* ``subtree_hash`` does not fold from the node's hash and its children's
  stored subtree hashes: an altered hash, or a child deleted or moved;
* its Merkle link (its ``node_links`` row, where the ripple reads and writes
  subtree hashes) is missing, names another parent than ``parent_bates``, or
  holds another node hash; a ``node_links`` row no turn has;
* the row differs from its ``node_insert`` event (node hash, parent, the
  answer's hash): an edited ``answer_text``, or a node rewritten together
  with its hashes; a turn an event records is missing;
* it is none an honest writer makes (:mod:`arborist._forest.shape`): a turn other than
  its session's root without a parent, a root holding a question, answer, key or cited
  titles, a turn whose cache key is empty or not a key's shape (no record can vouch for
  it, so it is never skipped as if it were checked), or whose mode no answer is given in;
* the FTS index fails SQLite's integrity check (run on a private copy when
  the file can only be read);
* the audit chain is broken or lacks a checkpoint.

A damaged file is reported, never raised: what SQLite's ``integrity_check``
finds comes first, then every section that can still be read; one that
cannot says so.

* its current ``label`` is not what its events leave it: the label of its last ``label``
  event (a rename), else the label it was created with (an edit by hand of a label);
* its time is none an honest writer gives (:func:`~arborist._forest.shape.time_problem`,
  the rule import refuses by): older than its parent (a backdated turn, which would read as
  having shown an earlier revision of its answer) or than the turn before it in its
  session, or after the event that recorded it here (dated in the future);
* it is the first turn of its session numbered past a gap
  (:func:`~arborist._forest.shape.past_gap`), as an edited ``next_seq`` numbers one;

The sessions' "you are here" pointers are bookkeeping no hash covers; they are not
reported.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arborist._database.integrity import FileChecks, read_or_report
from arborist._forest.bates import MAX_SEQ, is_bates, is_sid, parse_bates
from arborist._forest.reads import TurnAnswer, cited_titles
from arborist._forest.shape import is_honest_turn, past_gap, shape_problem, time_problem
from arborist._forest.shard import node_event_body, node_event_text, session_event_body
from arborist._proofs.audit import ChainReport, Checkpoint, check_chain_reporting, differing_fields
from arborist._proofs.hashing import node_row_hash, subtree_hash_bytes

__all__ = ["ForestVerification", "SESSIONS_FTS", "verify_forest"]


@dataclass(frozen=True)
class ForestVerification:
    """Problems found (one line each), the chain report, and how many nodes were checked."""

    problems: tuple[str, ...]
    chain: ChainReport
    sessions: int
    nodes: int
    answers: tuple[TurnAnswer, ...] = ()
    """What each answered turn showed, read with the turns: the rows
    :func:`arborist._forest.reads.turn_answers` gives, which verify holds against store.db's
    records (:func:`arborist._facade.checks.turns_against_answers`) without reading them twice."""

    @property
    def ok(self) -> bool:
        return not self.problems and self.chain.ok


def _renames(conn: sqlite3.Connection) -> dict[str, object]:
    """Every renamed turn's last ``label`` event body as stored, by the turn it names: one
    query over the events' own index (migration 5), parsed only for the turn it checks."""
    return {
        bates: body
        for bates, body in conn.execute(
            "SELECT bates, body FROM audit_events WHERE event_type = 'label' ORDER BY seq"
        ).fetchall()
        if isinstance(bates, str)
    }


_NO_LABEL = object()
"""A ``label`` event that names no label (not an object with ``label`` as text or null)."""


def _renamed_to(body: object) -> object:
    """The label a ``label`` event leaves its turn (``None``: taken off), or
    :data:`_NO_LABEL` for a body that says none."""
    try:
        event = json.loads(body)  # type: ignore[arg-type]
    except (TypeError, ValueError, RecursionError):
        return _NO_LABEL
    if not isinstance(event, dict) or "label" not in event:
        return _NO_LABEL
    label = event["label"]
    return label if label is None or isinstance(label, str) else _NO_LABEL


def _label_problems(row: Any, renames: dict[str, object]) -> list[str]:
    """A turn's current label against its events: its last rename's, else the label it was
    created with (committed in its hash)."""
    bates, created, current = row[0], row[7], row[18]
    body = renames.get(bates, _NO_LABEL)
    if body is _NO_LABEL:
        if current == created:
            return []  # the usual case: never renamed
        return [
            f"turn {bates}: its label differs from the one it was created with, and no "
            "label event renamed it"
        ]
    if current == _renamed_to(body):
        return []
    return [f"turn {bates}: its label differs from the one its last label event gave it"]


def _events(conn: sqlite3.Connection) -> dict[str, object]:
    """Every ``node_insert`` event's body as stored, by the turn it names (the later one
    where two name one turn): parsed only if it differs from the body rebuilt from its row."""
    return {
        bates: body
        for bates, body in conn.execute(
            "SELECT bates, body FROM audit_events WHERE event_type = 'node_insert' ORDER BY seq"
        ).fetchall()  # in C: a forest's events, not a Python step each
        if isinstance(bates, str)
    }


def _recorded(conn: sqlite3.Connection) -> dict[object, object]:
    """When each turn was recorded here: its ``node_insert`` event's time by its bates, a
    root's by its sid (its session's ``session_create`` or ``session_import``; the first)."""
    found: dict[object, object] = {}
    for name, created_at in conn.execute(
        "SELECT CASE event_type WHEN 'node_insert' THEN bates ELSE sid END, created_at "
        "FROM audit_events WHERE event_type IN ('node_insert', 'session_create', "
        "'session_import') ORDER BY seq"
    ):
        found.setdefault(name, created_at)
    return found


SESSIONS_FTS = ("nodes_fts",)
"""The full-text table of ``sessions.db``, which FTS5's own check covers."""


def verify_forest(
    conn: sqlite3.Connection,
    checkpoints: Sequence[Checkpoint] = (),
    checks: FileChecks | None = None,
) -> ForestVerification:
    """Recompute every node and fold of the shard from its rows and check its chain.

    Never raises for a damaged file: what SQLite's integrity check finds, and
    each section that cannot be read, is a problem line. ``checks`` are SQLite's
    checks of the file, perhaps already under way (:class:`FileChecks`); their
    lines come first, as if they had run first.
    """
    checks = checks or FileChecks(conn, SESSIONS_FTS)
    problems: list[str] = []
    found = read_or_report(problems, "turns", lambda: _check_nodes(conn))
    by_bates: dict[str, Any] = {}
    answers: list[TurnAnswer] = []
    if found is not None:
        node_problems, by_bates, answers = found
        problems += node_problems
    after: list[str] = []  # found before SQLite's checks are waited for, reported after them
    if found is not None:  # sessions are checked against their root turns
        after += read_or_report(after, "sessions", lambda: _check_sessions(conn, by_bates)) or []
    sessions = read_or_report(
        after, "sessions", lambda: conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
    )
    chain = check_chain_reporting(conn, checkpoints, after)
    problems += read_or_report(problems, "search index", checks.search_indexes) or []
    problems[:0] = checks.integrity()
    return ForestVerification(
        tuple(problems + after), chain, sessions or 0, len(by_bates), tuple(answers)
    )


_UNREAD = object()
"""Cited titles that are not JSON (an edit): counted as none, and the turn's answer is not
held against store.db (its event names it)."""


def _read_titles(stored: object) -> object:
    try:
        return json.loads(stored)  # type: ignore[arg-type]
    except (TypeError, ValueError, RecursionError):
        return _UNREAD


def _check_nodes(conn: sqlite3.Connection) -> tuple[list[str], dict[str, Any], list[TurnAnswer]]:
    """Every turn against its fields, its children, its bates number and its event; and what
    each answered turn showed (:data:`~arborist._forest.reads.TurnAnswer`, as
    :func:`~arborist._forest.reads.turn_answers` reads it: a key, and cited titles that are a
    JSON list of text)."""
    rows = conn.execute(
        "SELECT n.bates, n.parent_bates, n.question, n.answer_text, n.cache_key, n.audit_mode, "
        "n.created_at, n.created_label, n.node_hash, l.subtree_hash, n.seq, n.sid, "
        "n.cited_titles_json, n.n_cited_sources, n.id, l.id, l.parent_id, l.node_hash, n.label "
        "FROM nodes AS n LEFT JOIN node_links AS l ON l.id = n.id ORDER BY n.id"
    ).fetchall()
    by_bates = {row[0]: row for row in rows}
    kids: dict[str, list[bytes]] = {}
    for row in rows:
        if row[1] is not None:
            kids.setdefault(row[1], []).append(row[9])
    inserts = _events(conn)
    recorded = _recorded(conn)
    times = {(row[11], row[10]): row[6] for row in rows}
    renames = _renames(conn)
    problems = _stray_links(conn)
    answers: list[TurnAnswer] = []
    for row in rows:
        bates, parent, seq = row[0], row[1], row[10]
        parent_row = by_bates.get(parent) if parent is not None else None
        if parent is not None and parent_row is None:
            problems.append(f"turn {bates}: its parent {parent} is missing")
        titles = _read_titles(row[12])
        shown = cited_titles(titles)
        if is_honest_turn(seq, parent, row[2], row[4], row[5]):  # the usual case, quickly
            if shown is not None:  # as turn_answers reads
                answers.append((bates, row[4], row[3], shown, row[5], row[2]))
        else:
            problems += _shape_problems(row)
        problems += _field_problems(row, parent_row, kids.get(bates, []), titles)
        problems += _link_problems(row, parent_row)
        if row[18] != row[7] or bates in renames:  # else never renamed: as created
            problems += _label_problems(row, renames)
        wrong = time_problem(
            row[6],
            parent=None if parent_row is None else parent_row[6],
            before=times.get((row[11], seq - 1)) if type(seq) is int else None,
            recorded=recorded.get(row[11] if seq == 0 else bates),
        )
        if wrong:
            problems.append(f"turn {bates}: {wrong}")
        if seq == 0:
            continue
        event = inserts.pop(bates, None)
        if event is None:
            problems.append(f"turn {bates}: no node_insert event records it")
            continue
        problems += _event_problems(row, event)
    for bates in inserts:
        problems.append(f"turn {bates}: recorded by an event but missing")
    return problems, by_bates, answers


def _shape_problems(row: Any) -> list[str]:
    """A root, or a turn of a shape no honest writer makes (:func:`shape_problem`): a line
    when it is the second, none when the first."""
    bates, parent, question, answer, key, mode, _, label = row[:8]
    shape = shape_problem(
        seq=row[10],
        parent=parent,
        question=question,
        answer=answer,
        key=key,
        mode=mode,
        titles=row[12],
        created_label=label,
    )
    return [] if shape is None else [f"turn {bates}: {shape}"]


def _field_problems(row: Any, parent_row: Any, children: list[bytes], titles: object) -> list[str]:
    """One turn against what its own row recomputes to: its hash, its fold over its
    children's subtree hashes, its bates number and its count of cited titles (``titles``,
    as :func:`_read_titles` read them)."""
    bates, _, question, _, key, mode, created, label, digest, folded, seq = row[:11]
    sid, n_cited = row[11], row[13]
    problems = []
    try:
        parent_hash = parent_row[8] if parent_row else None
        expected = node_row_hash(parent_hash, bates, question, key, mode, created, label)
    except ValueError:
        expected = None
    if expected != digest:
        problems.append(f"turn {bates}: node_hash does not match its fields")
    try:
        fold = subtree_hash_bytes(bytes.fromhex(digest), children)
    except (TypeError, ValueError):
        fold = None
    if fold is None or fold != folded:
        problems.append(f"turn {bates}: subtree_hash does not fold from its children")
    if not _names(bates, sid, seq):
        problems.append(f"turn {bates}: its sid or seq does not match its bates number")
    try:
        counted = -1 if titles is _UNREAD else len(titles)  # type: ignore[arg-type]
    except TypeError:
        counted = -1
    if counted != n_cited:
        problems.append(f"turn {bates}: n_cited_sources does not count its cited titles")
    return problems


def _link_problems(row: Any, parent_row: Any) -> list[str]:
    """A turn's Merkle link (its ``node_links`` row) against the turn: there, under the
    parent ``parent_bates`` names (by id), holding the turn's node hash (raw)."""
    bates, digest, link, link_parent, link_digest = row[0], row[8], row[15], row[16], row[17]
    if link is None:
        return [f"turn {bates}: its node_links row (its subtree hash) is missing"]
    problems = []
    if link_parent != (parent_row[14] if parent_row is not None else None):
        problems.append(f"turn {bates}: its node_links parent differs from its parent_bates")
    try:
        same = bytes.fromhex(digest) == link_digest
    except (TypeError, ValueError):
        same = False
    if not same:
        problems.append(f"turn {bates}: its node_links node_hash differs from its node_hash")
    return problems


def _stray_links(conn: sqlite3.Connection) -> list[str]:
    """``node_links`` rows no turn has, named by the turn they hang under where there is one
    (the ripple would fold them into that turn's subtree hash)."""
    problems = []
    for link, under in conn.execute(
        "SELECT l.id, p.bates FROM node_links AS l LEFT JOIN nodes AS p ON p.id = l.parent_id "
        "WHERE NOT EXISTS (SELECT 1 FROM nodes AS n WHERE n.id = l.id) ORDER BY l.id"
    ):
        where = f"turn {under}" if under is not None else "a missing turn"
        problems.append(f"{where}: node_links row {link} is no turn's (no turn has id {link})")
    return problems


def _names(bates: object, sid: object, seq: object) -> bool:
    """Whether ``bates`` is a well-formed bates number naming turn ``seq`` of session
    ``sid``: ``parse_bates(bates) == (sid, seq)``, without parsing (six digits are one
    int only as ``f"{seq:06d}"``, and a well-formed sid with them is a well-formed bates
    number: the sid is checked once per session, not once per turn)."""
    return (
        type(seq) is int
        and 0 <= seq <= MAX_SEQ
        and type(sid) is str
        and _is_sid(sid)
        and bates == f"{sid}-{seq:06d}"
    )


@functools.lru_cache(maxsize=4096)
def _is_sid(sid: str) -> bool:
    return is_sid(sid)


_INSERT_EVENT_WORDING = {
    "node_hash": "differs from its node_insert event",
    "parent_bates": "differs from its node_insert event",
    "answer_hash": "answer_text differs from the answer its event recorded",
    "titles_hash": "cited titles differ from those its event recorded",
}


def _event_problems(row: Any, body: object) -> list[str]:
    """A turn's row against its ``node_insert`` event (``body`` as stored), rebuilt from the
    row by the writer's own :func:`~arborist._forest.shard.node_event_body` (events before
    ``titles_hash`` was added lack it)."""
    bates, parent, answer, digest, titles = row[0], row[1], row[3], row[8], row[12]
    if not isinstance(answer, str) or not isinstance(titles, str):
        return [f"turn {bates}: its answer or cited titles are no longer text"]
    if type(body) is str and node_event_text(digest, parent, answer, titles) == body:
        return []  # the usual case: as written
    expected = node_event_body(digest, parent, answer, titles)
    try:
        event = json.loads(body)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        event = None
    if not isinstance(event, dict):
        return [f"turn {bates}: its node_insert event is not an object of fields"]
    if event == expected:  # the same fields, written otherwise
        return []
    wording = [
        _INSERT_EVENT_WORDING[name]
        for name in differing_fields(event, expected, optional=("titles_hash",))
    ]
    return [f"turn {bates}: {text}" for text in dict.fromkeys(wording)]


def _check_sessions(conn: sqlite3.Connection, by_bates: dict[str, Any]) -> list[str]:
    """Every session against the event that created (or imported) it, and its root turn."""
    problems = []
    created: dict[str, dict[str, object]] = {}
    for sid, body in conn.execute(
        "SELECT sid, body FROM audit_events WHERE event_type IN ('session_create', "
        "'session_import') ORDER BY seq"
    ):
        try:
            parsed = json.loads(body)
        except (TypeError, ValueError):
            continue
        if isinstance(sid, str) and isinstance(parsed, dict):
            created.setdefault(sid, parsed)
    for sid, root_bates, created_at, label in conn.execute(
        "SELECT sid, root_bates, created_at, label FROM sessions ORDER BY sid"
    ):
        event = created.pop(sid, None)
        if event is None:
            problems.append(f"session {sid}: no session_create event records it")
            continue
        root = by_bates.get(root_bates)
        differing = differing_fields(event, session_event_body(label, root[8] if root else ""))
        if not is_bates(root_bates) or parse_bates(root_bates) != (sid, 0) or root is None:
            problems.append(f"session {sid}: its root turn {root_bates} is missing or misnamed")
        elif "root_node_hash" in differing or root[6] != created_at:
            problems.append(f"session {sid}: its root turn differs from its session_create event")
        if "label" in differing:
            problems.append(f"session {sid}: label differs from its session_create event")
    for sid in created:
        problems.append(f"session {sid}: recorded by a session_create event but missing")
    known = {row[0] for row in conn.execute("SELECT sid FROM sessions")}
    # A well-formed bates number is "<sid>-<6 digits>": its sid is all but the last 7.
    orphaned = sorted({b[:-7] for b in by_bates if is_bates(b)} - known)
    problems += [f"session {sid}: missing, though turns of it remain" for sid in orphaned]
    seqs: dict[object, set[int]] = {}
    for row in by_bates.values():
        if type(row[10]) is int:
            seqs.setdefault(row[11], set()).add(row[10])
    for sid, held in sorted(seqs.items(), key=lambda item: str(item[0])):
        found = past_gap(held)  # an edited next_seq hands out a seq past a gap
        if found is not None:
            problems.append(f"turn {sid}-{found[0]:06d}: {found[1]}")
    return problems
