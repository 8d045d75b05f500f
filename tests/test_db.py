"""SQLite connections, the transaction helper and migrations, on real files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arborist._database.db import BUSY_TIMEOUT_MS, connect, transaction
from arborist._database.migrations import (
    Migration,
    migrate,
    open_database,
    schema_version,
    split_sql,
)
from arborist._errors import MigrationError, StorageError
from arborist._store.schema import STORE_MIGRATIONS
from tests.workers import finish, start_workers

STEPS = (
    Migration(1, "items", "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"),
    Migration(
        2,
        "item log trigger",
        """
CREATE TABLE item_log (id INTEGER PRIMARY KEY, item_id INTEGER REFERENCES items(id));
CREATE TRIGGER items_logged AFTER INSERT ON items BEGIN
    INSERT INTO item_log (item_id) VALUES (new.id);
END;
""",
    ),
)


def test_connect_uses_wal_busy_timeout_foreign_keys_and_no_implicit_transactions(
    tmp_path: Path,
) -> None:
    conn = connect(tmp_path / "a.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.isolation_level is None
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    assert not conn.in_transaction, "a plain insert must not leave the write lock held"


def test_connect_must_exist_refuses_a_missing_file_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="no database at"):
        connect(tmp_path / "missing.db", must_exist=True)
    assert not (tmp_path / "missing.db").exists()


def test_connect_names_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"this is not sqlite at all, just some text " * 40)
    with pytest.raises(StorageError, match=r"notes\.db"):
        connect(path)
    assert path.read_bytes().startswith(b"this is not sqlite")


def test_transaction_commits_on_success_and_rolls_back_on_error(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", STEPS)
    with transaction(conn):
        conn.execute("INSERT INTO items (name) VALUES ('kept')")
    with pytest.raises(RuntimeError), transaction(conn):
        conn.execute("INSERT INTO items (name) VALUES ('lost')")
        raise RuntimeError("boom")
    assert [r[0] for r in conn.execute("SELECT name FROM items")] == ["kept"]
    assert not conn.in_transaction


def test_transaction_begins_immediate_so_it_holds_the_write_lock_from_the_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.db"
    conn = open_database(path, STEPS)
    other = connect(path)
    other.execute("PRAGMA busy_timeout = 0")
    # No write has happened yet, but the lock is taken: another writer cannot start.
    with transaction(conn), pytest.raises(sqlite3.OperationalError, match="locked"):
        other.execute("BEGIN IMMEDIATE")
    other.execute("BEGIN IMMEDIATE")
    other.execute("ROLLBACK")


def test_nested_transactions_are_savepoints(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", STEPS)
    with transaction(conn):
        conn.execute("INSERT INTO items (name) VALUES ('outer')")
        with pytest.raises(ValueError), transaction(conn):
            conn.execute("INSERT INTO items (name) VALUES ('inner, undone')")
            raise ValueError("inner fails")
        with transaction(conn):
            conn.execute("INSERT INTO items (name) VALUES ('inner, kept')")
        assert conn.in_transaction
    names = [r[0] for r in conn.execute("SELECT name FROM items ORDER BY id")]
    assert names == ["outer", "inner, kept"]


def test_an_outer_failure_undoes_inner_savepoints_too(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", STEPS)
    with pytest.raises(KeyError), transaction(conn):
        with transaction(conn):
            conn.execute("INSERT INTO items (name) VALUES ('inner')")
        raise KeyError("outer fails")
    assert conn.execute("SELECT count(*) FROM items").fetchone()[0] == 0


def test_migrations_apply_in_order_each_recorded(tmp_path: Path) -> None:
    conn = connect(tmp_path / "a.db")
    assert migrate(conn, STEPS) == [1, 2]
    assert schema_version(conn) == 2
    rows = conn.execute(
        "SELECT version, name, checksum IS NOT NULL FROM schema_migrations"
    ).fetchall()
    assert rows == [(1, "items", 1), (2, "item log trigger", 1)]
    conn.execute("INSERT INTO items (name) VALUES ('x')")
    assert conn.execute("SELECT count(*) FROM item_log").fetchone()[0] == 1, (
        "trigger body kept whole"
    )


def test_opening_an_up_to_date_file_runs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    open_database(path, STEPS).close()
    conn = connect(path)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    assert migrate(conn, STEPS) == []
    writes = [s for s in statements if not s.lstrip().upper().startswith("SELECT")]
    assert writes == [], writes
    assert conn.total_changes == 0


def test_a_new_migration_applies_alone_on_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    open_database(path, STEPS[:1]).close()
    conn = connect(path)
    assert migrate(conn, STEPS) == [2]


def test_a_failing_migration_leaves_no_trace_of_itself(tmp_path: Path) -> None:
    broken = (
        *STEPS,
        Migration(3, "half done", "CREATE TABLE t3 (x);\nINSERT INTO nope VALUES (1);"),
    )
    conn = connect(tmp_path / "a.db")
    with pytest.raises(StorageError, match="migration failed"):
        migrate(conn, broken)
    assert schema_version(conn) == 2
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "t3" not in tables


def test_a_migration_changed_after_it_was_applied_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    open_database(path, STEPS).close()
    edited = (STEPS[0], Migration(2, "item log trigger", "CREATE TABLE something_else (x);"))
    with pytest.raises(MigrationError, match="migration 2"):
        open_database(path, edited)


def test_a_database_from_a_newer_arborist_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    open_database(path, STEPS).close()
    with pytest.raises(MigrationError, match="newer"):
        open_database(path, STEPS[:1])


@pytest.mark.parametrize("versions", [(2,), (1, 1), (1, 3), (0, 1)])
def test_migrations_must_be_numbered_from_one_without_gaps(
    tmp_path: Path, versions: tuple[int, ...]
) -> None:
    steps = [Migration(v, f"m{i}", f"CREATE TABLE m{i} (x);") for i, v in enumerate(versions)]
    with pytest.raises(MigrationError, match="numbered"):
        migrate(connect(tmp_path / "a.db"), steps)


def test_a_function_migration_runs_inside_its_transaction(tmp_path: Path) -> None:
    seen: list[bool] = []

    def backfill(conn: sqlite3.Connection) -> None:
        seen.append(conn.in_transaction)
        conn.execute("INSERT INTO items (name) VALUES ('seeded')")

    conn = connect(tmp_path / "a.db")
    migrate(conn, (*STEPS, Migration(3, "seed items", backfill)))
    assert seen == [True]
    assert conn.execute("SELECT name FROM items").fetchall() == [("seeded",)]


def test_split_sql_keeps_trigger_bodies_and_drops_empty_statements() -> None:
    statements = split_sql(STEPS[1].apply + "\n;\n")  # type: ignore[operator]
    assert len(statements) == 2
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")


def test_split_sql_refuses_an_unterminated_statement() -> None:
    with pytest.raises(MigrationError, match="incomplete"):
        split_sql("CREATE TABLE a (x);\nCREATE TABLE b (y)")


def test_two_processes_opening_a_new_file_at_once_migrate_it_once(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    procs = start_workers("migrate", path, 0, ["a", "b", "c", "d"])
    errors = finish(procs, timeout=120)
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
    conn = connect(path)
    applied = conn.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    assert applied == [(m.version,) for m in STORE_MIGRATIONS]
