"""Named reads of the forest for the faces (the widget protocol, the facade, the REPL).

Every SQL statement a face needs against ``sessions.db`` lives here or in
:mod:`arborist._forest.shard` (the writer and its lookups), so a change of
schema touches the forest only. The reads are plain: callers that need
several of them to agree take one :func:`arborist._database.db.snapshot` around them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arborist._database.db import rows_in

__all__ = [
    "MAX_REVEAL_DEPTH",
    "RowSummary",
    "child_count",
    "child_rows",
    "created_times",
    "first_turn",
    "first_turn_since",
    "graft_heads",
    "inserted_since",
    "label_names",
    "relabelled_since",
    "reusable_turn",
    "reveal_path",
    "session_bates",
    "session_head",
    "subtree_hash_of",
    "subtree_hashes",
    "turn_answers",
    "turn_count",
]

_ROW_COLUMNS = (
    "n.bates, n.parent_bates, lower(hex(l.subtree_hash)), n.sid, n.seq, n.question, "
    "n.audit_mode, n.label, n.cache_key, "
    "(SELECT count(*) FROM nodes AS k WHERE k.parent_bates = n.bates)"
)
_NODES = "nodes AS n LEFT JOIN node_links AS l ON l.id = n.id"
"""A turn with its Merkle link: ``subtree_hash`` lives in ``node_links`` (raw digests, read
as lowercase hex), the one copy the ripple keeps."""


@dataclass(frozen=True)
class RowSummary:
    """What a tree row needs of a node, without its answer text."""

    bates: str
    parent_bates: str | None
    subtree_hash: str
    sid: str
    seq: int
    question: str
    audit_mode: str
    label: str | None
    cache_key: str
    n_children: int


def graft_heads(conn: sqlite3.Connection, sid: str) -> list[RowSummary]:
    """Heads of ``sid``'s grafts (turns it minted under another session's node), oldest first."""
    # A bates number starts with its session's sid, so a parent in another session sorts
    # outside [sid-, sid-~]: two index ranges (nodes_sid_parent), not a scan of the session.
    rows = conn.execute(
        f"SELECT {_ROW_COLUMNS} FROM {_NODES} WHERE n.id IN "
        "(SELECT id FROM nodes WHERE sid = ?1 AND parent_bates < ?2 "
        "UNION ALL SELECT id FROM nodes WHERE sid = ?1 AND parent_bates > ?3) ORDER BY n.seq",
        (sid, sid + "-", sid + "-~"),
    ).fetchall()
    return [RowSummary(*row) for row in rows]


def child_rows(conn: sqlite3.Connection, bates: str) -> list[RowSummary]:
    """Children of ``bates`` in creation order (the order of the text tree)."""
    rows = conn.execute(
        f"SELECT {_ROW_COLUMNS} FROM {_NODES} WHERE n.parent_bates = ? ORDER BY n.created_at, n.id",
        (bates,),
    ).fetchall()
    return [RowSummary(*row) for row in rows]


def child_count(conn: sqlite3.Connection, bates: str) -> int:
    """How many children ``bates`` has."""
    row = conn.execute("SELECT count(*) FROM nodes WHERE parent_bates = ?", (bates,)).fetchone()
    return int(row[0])


def turn_count(conn: sqlite3.Connection, sid: str) -> int:
    """Turns session ``sid`` minted (its root excluded)."""
    row = conn.execute("SELECT count(*) FROM nodes WHERE sid = ? AND seq > 0", (sid,)).fetchone()
    return int(row[0])


def subtree_hash_of(conn: sqlite3.Connection, bates: str) -> str | None:
    """The ``subtree_hash`` of one node, None when there is no such node."""
    row = conn.execute(
        f"SELECT lower(hex(l.subtree_hash)) FROM {_NODES} WHERE n.bates = ?", (bates,)
    ).fetchone()
    return str(row[0]) if row else None


def subtree_hashes(conn: sqlite3.Connection, bates: Iterable[str]) -> dict[str, str]:
    """``bates -> subtree_hash`` for those of ``bates`` that exist."""
    rows = rows_in(
        conn,
        f"SELECT n.bates, lower(hex(l.subtree_hash)) FROM {_NODES} WHERE n.bates IN ({{marks}})",
        list(bates),
    )
    return {str(name): str(digest) for name, digest in rows}


def session_head(conn: sqlite3.Connection, sid: str) -> tuple[str, int, str] | None:
    """``(current_bates, next_seq, root subtree_hash)`` of a session in one lookup."""
    row = conn.execute(
        "SELECT s.current_bates, s.next_seq, lower(hex(l.subtree_hash)) FROM sessions AS s "
        "JOIN nodes AS n ON n.bates = s.root_bates LEFT JOIN node_links AS l ON l.id = n.id "
        "WHERE s.sid = ?",
        (sid,),
    ).fetchone()
    return (str(row[0]), int(row[1]), str(row[2])) if row else None


def inserted_since(conn: sqlite3.Connection, since: int, limit: int) -> list[RowSummary] | None:
    """Turns inserted after audit event ``since``, oldest first; None when there are more
    than ``limit`` (a caller then walks the tree by hashes instead)."""
    rows = conn.execute(
        f"SELECT {_ROW_COLUMNS} FROM {_NODES} JOIN "
        "(SELECT bates, seq AS event FROM audit_events WHERE seq > ? "
        "AND event_type = 'node_insert' ORDER BY seq LIMIT ?) AS e ON e.bates = n.bates "
        "ORDER BY e.event",
        (since, limit + 1),
    ).fetchall()
    if len(rows) > limit:
        return None
    return [RowSummary(*row) for row in rows]


def relabelled_since(conn: sqlite3.Connection, since: int) -> dict[str, str | None]:
    """Current labels of the nodes renamed after audit event ``since``.

    A rename changes no hash (``node_hash`` keeps the creation label), so a
    walk by hashes cannot notice it; the chain's ``label`` events can.
    """
    rows = conn.execute(
        "SELECT bates, label FROM nodes WHERE bates IN "
        "(SELECT bates FROM audit_events WHERE seq > ? AND event_type = 'label')",
        (since,),
    ).fetchall()
    return {str(bates): label for bates, label in rows}


def first_turn(conn: sqlite3.Connection, cache_key: str) -> str | None:
    """The earliest turn holding ``cache_key``: where its answer was first paid for."""
    row = conn.execute(
        "SELECT bates FROM nodes WHERE cache_key = ? ORDER BY created_at, id LIMIT 1",
        (cache_key,),
    ).fetchone()
    return str(row[0]) if row else None


def first_turn_since(
    conn: sqlite3.Connection, cache_key: str, created_at: str
) -> tuple[str, str] | None:
    """``(bates, created_at)`` of the earliest turn holding ``cache_key`` at or after
    ``created_at`` (the turn that paid for one revision of an answer)."""
    row = conn.execute(
        "SELECT bates, created_at FROM nodes WHERE cache_key = ? AND created_at >= ? "
        "ORDER BY created_at, id LIMIT 1",
        (cache_key, created_at),
    ).fetchone()
    return (str(row[0]), str(row[1])) if row else None


def reusable_turn(
    conn: sqlite3.Connection, parent: str, sid: str, cache_key: str, question: str
) -> str | None:
    """The newest turn of ``sid`` under ``parent`` that asked ``question`` with ``cache_key``:
    what a re-run cell reuses instead of growing a duplicate branch."""
    row = conn.execute(
        "SELECT bates FROM nodes WHERE parent_bates = ? AND sid = ? AND cache_key = ? "
        "AND question = ? ORDER BY seq DESC LIMIT 1",
        (parent, sid, cache_key, question),
    ).fetchone()
    return str(row[0]) if row else None


def label_names(conn: sqlite3.Connection) -> list[str]:
    """Every label in use, in any session (what a completer offers)."""
    rows = conn.execute("SELECT DISTINCT label FROM nodes WHERE label IS NOT NULL").fetchall()
    return [str(row[0]) for row in rows]


MAX_REVEAL_DEPTH = 500
"""Deepest turn :func:`reveal_path` walks up from (a view opens deeper ones itself)."""


def reveal_path(conn: sqlite3.Connection, sid: str, bates: str) -> list[str]:
    """The ancestors of ``bates``, top first, from the top of session ``sid``'s tree they
    hang from (its root, or a graft head: a turn of ``sid`` under another session's).

    Empty when ``bates`` is a top, is not in that tree (a turn of another session
    never grafted onto), does not exist, or lies deeper than :data:`MAX_REVEAL_DEPTH`:
    the view then opens the way itself, after the turn's body.
    """
    path: list[str] = []
    row = conn.execute("SELECT parent_bates FROM nodes WHERE bates = ?", (bates,)).fetchone()
    at = row[0] if row else None
    while at is not None and len(path) < MAX_REVEAL_DEPTH:
        row = conn.execute("SELECT sid, parent_bates FROM nodes WHERE bates = ?", (at,)).fetchone()
        if row is None:
            return []
        path.append(at)
        owner, parent = row
        if owner == sid and (parent is None or not parent.startswith(f"{sid}-")):
            return path[::-1]  # a top: the session's root or a graft head
        at = parent
    return []


def session_bates(conn: sqlite3.Connection, sid: str) -> list[str]:
    """Bates numbers of every node session ``sid`` minted."""
    return [str(row[0]) for row in conn.execute("SELECT bates FROM nodes WHERE sid = ?", (sid,))]


TurnAnswer = tuple[str, str, str, tuple[str, ...], str, str]
"""``(bates, cache_key, answer_text, cited_titles, audit_mode, question)`` of an answered
turn."""

_ANSWER_COLUMNS = "bates, cache_key, answer_text, cited_titles_json, audit_mode, question"


def turn_answers(conn: sqlite3.Connection, bates: Sequence[str] | None = None) -> list[TurnAnswer]:
    """What each answered turn showed (of ``bates``, or of every turn): what its standing
    is judged on (:mod:`arborist._qa.standing`). A row whose fields an edit made unreadable
    (cited titles that are not a JSON list of text) is left out: ``arborist verify`` names
    it against its event."""
    rows: Iterable[tuple[Any, ...]]
    if bates is None:
        rows = conn.execute(
            f"SELECT {_ANSWER_COLUMNS} FROM nodes WHERE cache_key != '' ORDER BY id"
        ).fetchall()  # in C: a whole forest's rows, not a Python step each
    else:
        rows = rows_in(
            conn,
            f"SELECT {_ANSWER_COLUMNS} FROM nodes WHERE cache_key != '' AND bates IN ({{marks}})",
            list(bates),
        )
    out = []
    read: dict[object, tuple[str, ...] | None] = {}  # turns share their cited titles' text
    for name, key, answer, titles_json, mode, question in rows:
        if titles_json not in read:
            read[titles_json] = _titles(titles_json)
        titles = read[titles_json]
        if titles is not None:
            out.append((name, key, answer, titles, mode, question))
    return out


def _titles(titles_json: object) -> tuple[str, ...] | None:
    """Cited titles as stored (a JSON list of text), or None when an edit left otherwise."""
    try:
        titles = json.loads(titles_json) if isinstance(titles_json, str) else None
    except (ValueError, RecursionError):
        return None
    return cited_titles(titles)


def cited_titles(parsed: object) -> tuple[str, ...] | None:
    """Cited titles read from their stored JSON (``parsed``): a list of text, or None when
    an edit left something else (what a turn's answer is judged with, and what verify
    holds against store.db)."""
    if isinstance(parsed, list) and all(isinstance(t, str) for t in parsed):
        return tuple(parsed)
    return None


def created_times(conn: sqlite3.Connection, bates: Sequence[str]) -> dict[str, str]:
    """When each of ``bates`` was recorded: which revision of its answer a turn showed is
    the one its key held then (a view shows that revision's state, not a later one's)."""
    rows = rows_in(
        conn, "SELECT bates, created_at FROM nodes WHERE bates IN ({marks})", sorted(set(bates))
    )
    return {str(name): str(when) for name, when in rows}
