"""The forest's reads of one session or node: :class:`Session` and :class:`Node` as
``sessions.db`` holds them, a node, its children and ancestors (see
:mod:`arborist._forest.shard`, which writes them)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from arborist._errors import NotFound
from arborist._forest.bates import parse_bates, parse_sid

__all__ = [
    "NODES",
    "NODE_COLUMNS",
    "Node",
    "ROOT_AUDIT_MODE",
    "SESSION_COLUMNS",
    "Session",
    "ancestors",
    "children",
    "get_node",
    "get_session",
    "list_sessions",
    "node_of",
    "session_of",
]

ROOT_AUDIT_MODE = "ROOT"

NODE_COLUMNS = (
    "n.id, n.bates, n.sid, n.seq, n.parent_bates, n.question, n.answer_text, n.cache_key, "
    "n.audit_mode, n.cited_titles_json, n.created_at, n.created_label, n.label, n.node_hash, "
    "lower(hex(l.subtree_hash))"
)
NODES = "nodes AS n LEFT JOIN node_links AS l ON l.id = n.id"
"""Where a :class:`Node` is read from: the turn's row and its Merkle link (by id)."""
SESSION_COLUMNS = "sid, root_bates, current_bates, next_seq, created_at, updated_at, label"


@dataclass(frozen=True)
class Session:
    """A session: a viewport onto the forest with its own root and "you are here"."""

    sid: str
    root_bates: str
    current_bates: str
    next_seq: int
    created_at: str
    updated_at: str
    label: str | None


@dataclass(frozen=True)
class Node:
    """One turn (or a session's synthetic root, seq 0)."""

    id: int
    bates: str
    sid: str
    seq: int
    parent_bates: str | None
    question: str
    answer_text: str
    cache_key: str
    audit_mode: str
    cited_titles: tuple[str, ...]
    created_at: str
    created_label: str | None
    label: str | None
    node_hash: str
    subtree_hash: str

    @property
    def is_root(self) -> bool:
        return self.seq == 0

    def as_json(self) -> dict[str, Any]:
        return {
            "bates": self.bates,
            "sid": self.sid,
            "seq": self.seq,
            "parent_bates": self.parent_bates,
            "question": self.question,
            "answer_text": self.answer_text,
            "cache_key": self.cache_key,
            "audit_mode": self.audit_mode,
            "cited_titles": list(self.cited_titles),
            "created_at": self.created_at,
            "created_label": self.created_label,
            "label": self.label,
            "node_hash": self.node_hash,
            "subtree_hash": self.subtree_hash,
        }


def node_of(row: Any) -> Node:
    values = list(row)
    values[9] = tuple(json.loads(values[9]))
    return Node(*values)


def session_of(row: Any) -> Session:
    return Session(*row)


def get_session(conn: sqlite3.Connection, sid: str) -> Session:
    """The session ``sid``; BadReference if malformed, NotFound if absent."""
    sid = parse_sid(sid)
    row = conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE sid = ?", (sid,)).fetchone()
    if row is None:
        raise NotFound(f"no session {sid}")
    return session_of(row)


def list_sessions(conn: sqlite3.Connection) -> list[tuple[Session, int]]:
    """Every session, oldest first, with its number of turns (root excluded)."""
    rows = conn.execute(
        f"SELECT {', '.join('s.' + c.strip() for c in SESSION_COLUMNS.split(','))}, "
        "(SELECT count(*) FROM nodes AS n WHERE n.sid = s.sid AND n.seq > 0) "
        "FROM sessions AS s ORDER BY s.created_at, s.sid"
    ).fetchall()
    return [(session_of(row[:7]), row[7]) for row in rows]


def get_node(conn: sqlite3.Connection, bates: str) -> Node:
    """The node with this bates number."""
    parse_bates(bates)
    row = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM {NODES} WHERE n.bates = ?", (bates.strip(),)
    ).fetchone()
    if row is None:
        raise NotFound(f"no turn {bates.strip()}")
    return node_of(row)


def children(conn: sqlite3.Connection, bates: str) -> list[Node]:
    """The children of a node, in the order they were created."""
    rows = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM {NODES} WHERE n.parent_bates = ? ORDER BY n.created_at, n.id",
        (bates,),
    ).fetchall()
    return [node_of(row) for row in rows]


def ancestors(conn: sqlite3.Connection, bates: str) -> list[Node]:
    """The parent of a node, its parent, ... up to a root (crossing sessions). Iterative."""
    chain: list[Node] = []
    current = get_node(conn, bates).parent_bates
    seen: set[str] = set()
    while current is not None and current not in seen:
        seen.add(current)
        node = get_node(conn, current)
        chain.append(node)
        current = node.parent_bates
    return chain
