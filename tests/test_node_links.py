"""``node_links``, the narrow table of Merkle links, and migration 4 that moved them there.

Migration 4 takes every node's parent (by id), node hash and subtree hash out of the wide
``nodes`` rows into ``node_links`` and drops ``nodes.subtree_hash``. These tests build a
real shard, put it back in the shape it had before (schema 3: ``nodes.subtree_hash`` as
hex, no ``node_links``), reopen it, and check that every hash read, exported and
verified comes out byte for byte as before, and that later turns ripple through it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from arborist._database.migrations import open_database
from arborist._forest.nodes import Session, get_node
from arborist._forest.reads import child_rows, subtree_hashes
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._forest.shard import create_session, insert_turn
from arborist._forest.transfer import export_session
from arborist._forest.verify import verify_forest

KEY = "ab" * 32


def grow(conn: sqlite3.Connection) -> tuple[Session, list[str]]:
    """Two sessions, the second grafted under the first: a chain with a fork."""
    first, second = create_session(conn), create_session(conn)
    made = [first.root_bates]
    for n in range(6):
        parent = made[-1] if n != 4 else made[2]
        made.append(turn(conn, first, parent, n))
    made.append(turn(conn, second, made[3], 99))
    return first, made


def turn(conn: sqlite3.Connection, session: Session, parent: str, n: int) -> str:
    return insert_turn(
        conn, session.sid, parent, question=f"q{n}", answer_text=f"a{n}", cache_key=KEY,
        audit_mode="STRICT", cited_titles=[f"T{n}"],
    ).bates  # fmt: skip


def as_schema_3(path: Path) -> None:
    """Put a shard back as migration 3 left it: subtree hashes as hex in ``nodes``."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(
        "BEGIN;"
        "ALTER TABLE nodes ADD COLUMN subtree_hash TEXT NOT NULL DEFAULT '';"
        "UPDATE nodes SET subtree_hash = "
        "(SELECT lower(hex(subtree_hash)) FROM node_links AS l WHERE l.id = nodes.id);"
        "DROP TABLE node_links;"
        "DELETE FROM schema_migrations WHERE version = 4;"
        "COMMIT;"
    )
    conn.close()


def snapshot(conn: sqlite3.Connection, sid: str) -> tuple[object, ...]:
    """Every hash a reader sees: the nodes, the widget's reads, the export."""
    made = conn.execute("SELECT bates FROM nodes ORDER BY id").fetchall()
    nodes = [get_node(conn, bates).as_json() for (bates,) in made]
    rows = [row for (bates,) in made for row in child_rows(conn, bates)]
    exported = [json.dumps(line, sort_keys=True) for line in export_session(conn, sid)]
    return nodes, rows, subtree_hashes(conn, [b for (b,) in made]), exported


def test_migration_4_moves_every_subtree_hash_without_changing_a_byte(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    first, made = grow(conn)
    before = snapshot(conn, first.sid)
    conn.close()
    as_schema_3(path)
    old = sqlite3.connect(path)
    tables = old.execute("SELECT count(*) FROM sqlite_master WHERE name = 'node_links'")
    assert tables.fetchone() == (0,)
    assert "subtree_hash" in {r[1] for r in old.execute("PRAGMA table_info(nodes)")}
    old.close()

    conn = open_database(path, SESSIONS_MIGRATIONS)
    assert "subtree_hash" not in {r[1] for r in conn.execute("PRAGMA table_info(nodes)")}
    types = conn.execute("SELECT DISTINCT typeof(node_hash), typeof(subtree_hash) FROM node_links")
    assert types.fetchall() == [("blob", "blob")]
    assert snapshot(conn, first.sid) == before
    assert verify_forest(conn).ok
    tip = turn(conn, first, made[-2], 7)  # a ripple through migrated links
    assert get_node(conn, made[0]).subtree_hash != before[0][0]["subtree_hash"]  # type: ignore[index]
    result = verify_forest(conn)
    assert result.ok, result.problems
    assert get_node(conn, tip).parent_bates == made[-2]


def test_a_tampered_hash_before_migration_is_carried_over_for_verify_to_report(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    _, made = grow(conn)
    conn.close()
    as_schema_3(path)
    old = sqlite3.connect(path)
    old.execute("UPDATE nodes SET subtree_hash = 'not hex' WHERE bates = ?", (made[2],))
    old.commit()
    old.close()
    conn = open_database(path, SESSIONS_MIGRATIONS)  # opens: verify reports, not the migration
    problems = verify_forest(conn).problems
    # the turn, and its parent (whose stored fold took the turn's true hash)
    assert problems == tuple(
        f"turn {bates}: subtree_hash does not fold from its children" for bates in made[1:3]
    )
