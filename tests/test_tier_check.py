"""chunks' tier CHECK (store migration 10): three comparisons, the same rule as the IN list
migration 2 wrote, edited into the table's CREATE text in place. Real store files."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arborist import Arborist
from arborist._database.db import transaction
from arborist._errors import StorageError
from arborist._store import schema

IN_LIST = "CHECK (tier IN ('hot', 'warm', 'cold'))"
COMPARED = "CHECK (tier = 'hot' OR tier = 'warm' OR tier = 'cold')"


def chunks_sql(conn: sqlite3.Connection) -> str:
    return str(conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'chunks'").fetchone()[0])


def undo_tier_check(path: Path) -> None:
    """Put a store's chunks table back to migration 2's IN list, as a store of schema 9 has
    it (migration 10's history row goes too)."""
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    version = raw.execute("PRAGMA schema_version").fetchone()[0]
    raw.execute("PRAGMA writable_schema = ON")
    raw.execute(
        "UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE name = 'chunks'",
        (COMPARED, IN_LIST),
    )
    raw.execute(f"PRAGMA schema_version = {version + 1}")
    raw.execute("PRAGMA writable_schema = OFF")
    raw.execute("DELETE FROM schema_migrations WHERE version = 10")
    raw.execute("COMMIT")
    assert IN_LIST in chunks_sql(raw)
    raw.close()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, words in (("a.md", "alpha"), ("b.md", "beta"), ("c.md", "gamma")):
        text = "\n\n".join(f"## {words} {n}\n\n" + f"{words} spins silk. " * 60 for n in range(4))
        (folder / name).write_text(f"# {words}\n\n{text}\n", encoding="utf-8")
    return folder


def rows(conn: sqlite3.Connection) -> list[Any]:
    return conn.execute("SELECT * FROM chunks ORDER BY id").fetchall()


def refuses_a_bad_tier(conn: sqlite3.Connection) -> bool:
    try:
        with transaction(conn):
            conn.execute("UPDATE chunks SET tier = 'lukewarm' WHERE id = 1")
    except sqlite3.IntegrityError as exc:
        return "CHECK constraint failed" in str(exc)
    return False


def test_a_new_store_checks_the_tier_by_comparisons(home: Path, docs: Path) -> None:
    with Arborist(home) as app:
        app.ingest([str(docs)])
        conn = app.store_conn
        assert COMPARED in chunks_sql(conn) and IN_LIST not in chunks_sql(conn)
        assert refuses_a_bad_tier(conn)
        app.evict(str(docs / "a.md"), "warm")
        app.evict(str(docs / "b.md"), "cold")
        tiers = {t for (t,) in conn.execute("SELECT DISTINCT tier FROM chunks")}
        assert tiers == {"hot", "warm", "cold"}
        assert app.verify().ok


def test_migration_10_edits_a_store_of_schema_9_in_place(home: Path, docs: Path) -> None:
    with Arborist(home) as app:
        app.ingest([str(docs)])
        app.evict(str(docs / "a.md"), "warm")
        app.evict(str(docs / "b.md"), "cold")
        before = rows(app.store_conn)
    undo_tier_check(home / "store.db")
    with Arborist(home) as app:
        conn = app.store_conn
        assert COMPARED in chunks_sql(conn) and IN_LIST not in chunks_sql(conn)
        assert rows(conn) == before
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert refuses_a_bad_tier(conn)
        assert [h.chunk_index for h in app.search("gamma", limit=3)]
        app.ingest([str(docs / "a.md")])  # restores its warm chunks
        assert app.verify().ok
    other = sqlite3.connect(home / "store.db")  # a connection opened afterwards reads it too
    assert COMPARED in chunks_sql(other)
    other.close()


def test_migration_10_refuses_to_run_twice_when_its_history_row_was_deleted(home: Path) -> None:
    with Arborist(home) as app:
        app.store_conn  # noqa: B018 - opening it migrates
    raw = sqlite3.connect(home / "store.db", isolation_level=None)
    raw.execute("DELETE FROM schema_migrations WHERE version = 10")
    raw.close()
    with pytest.raises(StorageError, match="history row was deleted"), Arborist(home) as app:
        app.store_conn  # noqa: B018 - opening it migrates


class _Defensive:
    """A connection on which SQLite refuses to edit its schema, as in defensive mode:
    ``writable_schema`` is ignored, so an UPDATE of sqlite_schema fails."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql == "PRAGMA writable_schema = ON":
            sql = "PRAGMA writable_schema = OFF"
        return self.conn.execute(sql, *args)


def test_migration_10_leaves_the_list_where_sqlite_refuses_to_edit_its_schema(
    home: Path, docs: Path
) -> None:
    with Arborist(home) as app:
        app.ingest([str(docs)])
    undo_tier_check(home / "store.db")
    raw = sqlite3.connect(home / "store.db", isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    schema._tier_check_by_comparisons(_Defensive(raw))  # type: ignore[arg-type]
    raw.execute("COMMIT")
    assert IN_LIST in chunks_sql(raw) and COMPARED not in chunks_sql(raw)
    assert raw.execute("PRAGMA writable_schema").fetchone()[0] == 0
    raw.close()
