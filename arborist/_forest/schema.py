"""Migrations of ``sessions.db``, the forest shard. Append only.

The shard has no foreign key into ``store.db``: it must stay readable alone
(a node's ``cache_key`` names a store record by value). Tables follow the
first design (docs/design.md section 5) with two additions: ``nodes`` has an explicit
INTEGER PRIMARY KEY for its FTS index (bates stays UNIQUE), and
``created_label`` keeps the label given at creation (the one ``node_hash``
covers) apart from the current, renameable ``label``. Since migration 4 its
``subtree_hash`` lives in ``node_links`` as raw bytes; the view ``nodes_v1``
(migration 6) shows ``nodes`` in the first design's shape again.
"""

from __future__ import annotations

import sqlite3

from arborist._database.migrations import Migration
from arborist._forest.cells import CELL_TURNS_TABLE
from arborist._proofs.audit import AUDIT_MIGRATION

__all__ = ["SESSIONS_MIGRATIONS"]

_FOREST = """
CREATE TABLE sessions (
    sid            TEXT PRIMARY KEY,
    root_bates     TEXT NOT NULL,
    current_bates  TEXT NOT NULL,
    next_seq       INTEGER NOT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    label          TEXT
);

CREATE TABLE nodes (
    id                 INTEGER PRIMARY KEY,
    bates              TEXT NOT NULL UNIQUE,
    sid                TEXT NOT NULL REFERENCES sessions (sid),
    seq                INTEGER NOT NULL,
    parent_bates       TEXT REFERENCES nodes (bates),
    question           TEXT NOT NULL,
    answer_text        TEXT NOT NULL,
    cache_key          TEXT NOT NULL,
    audit_mode         TEXT NOT NULL,
    cited_titles_json  TEXT NOT NULL,
    n_cited_sources    INTEGER NOT NULL,
    created_at         TEXT NOT NULL,
    created_label      TEXT,
    label              TEXT,
    node_hash          TEXT NOT NULL,
    subtree_hash       TEXT NOT NULL,
    UNIQUE (sid, seq)
);
CREATE INDEX nodes_parent ON nodes (parent_bates);
CREATE INDEX nodes_label ON nodes (label) WHERE label IS NOT NULL;

CREATE VIEW nodes_fts_source AS
    SELECT id, question, answer_text, cited_titles_json AS cited_titles FROM nodes;

CREATE VIRTUAL TABLE nodes_fts USING fts5 (
    question, answer_text, cited_titles, content = 'nodes_fts_source', content_rowid = 'id'
);
"""

_NODE_LINKS = """
CREATE TABLE node_links (
    id            INTEGER PRIMARY KEY REFERENCES nodes (id),
    parent_id     INTEGER REFERENCES node_links (id),
    node_hash     BLOB NOT NULL,
    subtree_hash  BLOB NOT NULL
)
"""


def _raw(digest: str | bytes | int | float | None) -> str | bytes | int | float | None:
    """A stored hex digest as its 32 raw bytes; anything else (only a tampered file holds
    it) as it was, for ``arborist verify`` to report rather than the migration to refuse."""
    try:
        return bytes.fromhex(digest) if isinstance(digest, str) and len(digest) == 64 else digest
    except ValueError:
        return digest


def _move_subtree_hashes(conn: sqlite3.Connection) -> None:
    """Migration 4: ``node_links`` takes each node's parent (by id), its node hash and its
    subtree hash as raw digests; ``nodes.subtree_hash`` is dropped, so the narrow table is
    the only copy. The ripple then reads and rewrites ~80-byte rows, not the wide turn rows."""
    conn.execute(_NODE_LINKS)
    conn.create_function("arborist_raw_digest", 1, _raw, deterministic=True)
    conn.execute(  # one statement: its foreign keys hold at its end, whatever the row order
        "INSERT INTO node_links (id, parent_id, node_hash, subtree_hash) "
        "SELECT n.id, p.id, arborist_raw_digest(n.node_hash), arborist_raw_digest(n.subtree_hash) "
        "FROM nodes AS n LEFT JOIN nodes AS p ON p.bates = n.parent_bates ORDER BY n.id"
    )
    conn.create_function("arborist_raw_digest", 1, None)
    conn.execute("CREATE INDEX node_links_parent ON node_links (parent_id)")
    conn.execute("ALTER TABLE nodes DROP COLUMN subtree_hash")


_LABEL_EVENT_INDEX = """
CREATE INDEX audit_label ON audit_events (seq) WHERE event_type = 'label';
"""
"""The ``label`` events (renames) in order, so ``arborist verify`` holds every turn's
current label to its last rename without a scan of the chain (forest/verify.py); the same
query serves a scan should the index be dropped."""


_NODES_V1 = """
CREATE VIEW nodes_v1 AS
    SELECT n.bates, n.sid, n.seq, n.parent_bates, n.question, n.answer_text, n.cache_key,
           n.audit_mode, n.cited_titles_json, n.n_cited_sources, n.created_at, n.label,
           n.node_hash, lower(hex(l.subtree_hash)) AS subtree_hash
    FROM nodes AS n LEFT JOIN node_links AS l ON l.id = n.id;
"""
"""The first design's ``nodes``, column for column, for a reader written against it: keyed
by ``bates`` (UNIQUE in ``nodes``), ``subtree_hash`` as lowercase hex, ``label`` the current
one. A view, so it is read-only, holds no copy and costs the ripple nothing. A turn whose
link row is missing (only a damaged file) shows a NULL ``subtree_hash``: verify reports it."""


SESSIONS_MIGRATIONS: tuple[Migration, ...] = (
    # 1: the one global chain of every state change in the forest.
    AUDIT_MIGRATION,
    # 2: sessions, their nodes (one forest across all sessions), and the FTS index.
    Migration(2, "sessions, nodes, nodes_fts", _FOREST),
    # 3: graft heads (a session's turns under another session's node) by index range,
    #    not by a scan of the session: the widget's refresh asks for them every time.
    Migration(
        3,
        "nodes by session and parent",
        "CREATE INDEX nodes_sid_parent ON nodes (sid, parent_bates);",
    ),
    # 4: the Merkle links in a narrow table of their own (docs/design.md section 5): the
    #    ripple walks integer ids and rewrites small rows; subtree_hash lives only there.
    Migration(
        4, "node_links: subtree hashes by id, nodes.subtree_hash dropped", _move_subtree_hashes
    ),
    # 5: the renames in order: a turn's current label is a claim verify checks (its last
    #    ``label`` event, else the label it was created with), read in one indexed query.
    Migration(5, "label events by seq", _LABEL_EVENT_INDEX),
    # 6: the first design's ``nodes`` as a read-only view (hex subtree_hash from node_links),
    #    for readers of that schema (docs/design.md section 5).
    Migration(6, "nodes_v1: the first design's nodes, read-only", _NODES_V1),
    # 7: the turn each notebook cell showed last, so a kernel restart does not forget it
    #    (forest/cells.py): re-running a cell never grows a turn that exists.
    Migration(7, "cell turns", CELL_TURNS_TABLE),
)
