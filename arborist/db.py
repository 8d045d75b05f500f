"""SQLite connections, the one ``transaction()`` helper, and numbered migrations.

The discipline (DESIGN.md section 5, measured in NOTES.md):

* connections use ``isolation_level=None``: nothing starts a transaction
  behind our back, and nothing holds the write lock between cells;
* every write goes through :func:`transaction`, which opens ``BEGIN
  IMMEDIATE`` (a deferred read that upgrades to a write cannot wait for a
  second writer and fails) and nests as savepoints;
* WAL journal, a busy timeout, foreign keys on;
* migrations are numbered from 1, append-only, each applied in its own
  transaction and recorded in ``schema_migrations`` with a checksum of its
  SQL, so a migration edited after release is refused rather than silently
  diverging. Opening an up-to-date file runs no write at all.
"""

from __future__ import annotations

import hashlib
import itertools
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arborist.clock import utc_now
from arborist.errors import MigrationError, StorageError

__all__ = [
    "BUSY_TIMEOUT_MS",
    "Migration",
    "connect",
    "migrate",
    "open_database",
    "schema_version",
    "snapshot",
    "split_sql",
    "transaction",
]

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's write lock before giving up."""

_savepoint_ids = itertools.count(1)


def connect(path: str | Path, *, must_exist: bool = False) -> sqlite3.Connection:
    """Open ``path`` with arborist's settings; ``must_exist`` refuses to create a file.

    Raises :class:`StorageError` with one line naming the file when it is
    missing (with ``must_exist``), unreadable, or not a SQLite database.
    """
    path = Path(path)
    if must_exist and not path.is_file():
        raise StorageError(f"no database at {path}")
    try:
        if not must_exist:
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except (sqlite3.Error, OSError) as exc:
        raise StorageError(f"cannot open database {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = _wal(conn)
        if mode != "wal":
            raise StorageError(f"cannot use WAL journal for {path} (got {mode})")
        # NORMAL is durable across process crashes in WAL mode; only a power
        # loss can drop the last commits, never corrupt the file or the chain.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StorageError(f"cannot use database {path}: {exc}") from exc
    except StorageError:
        conn.close()
        raise
    return conn


def _wal(conn: sqlite3.Connection) -> str:
    """Switch to WAL, retrying while another process holds the lock the switch needs.

    Several processes opening a *new* file at once race to convert it; SQLite
    can answer "database is locked" at once there, without its busy handler,
    so the wait is done here, up to the same busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.005
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block in one write transaction: all of it commits or none of it does.

    The outermost call opens ``BEGIN IMMEDIATE`` (taking the write lock now,
    waiting up to the busy timeout for another writer); nested calls become
    savepoints, so an inner failure rolls back only the inner block when the
    caller catches it.
    """
    if conn.in_transaction:
        name = f"arborist_sp_{next(_savepoint_ids)}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
        except BaseException:
            conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
            conn.execute(f"RELEASE SAVEPOINT {name}")
            raise
        conn.execute(f"RELEASE SAVEPOINT {name}")
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        raise StorageError(f"cannot start a write transaction: {exc}") from exc
    try:
        yield conn
    except BaseException:
        _rollback(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise StorageError(f"commit failed: {exc}") from exc


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run several reads against one snapshot of the database (a WAL read transaction).

    What one statement ranked and what the next reads then belong to the same
    moment, even while another process writes. Never writes, so a deferred
    BEGIN is safe; inside an open transaction it adds nothing.
    """
    opened = not conn.in_transaction
    if opened:
        conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if opened and conn.in_transaction:
            conn.execute("COMMIT")


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is still open (SQLite may already have ended it)."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


@dataclass(frozen=True)
class Migration:
    """One numbered schema step. ``apply`` is SQL (one or more statements) or a function.

    SQL migrations are checksummed when applied; a function migration is
    identified by its name alone, so give it a name that says what it does.
    """

    version: int
    name: str
    apply: str | Callable[[sqlite3.Connection], None]

    @property
    def checksum(self) -> str | None:
        if isinstance(self.apply, str):
            return hashlib.sha256(self.apply.encode("utf-8")).hexdigest()
        return None


_MIGRATIONS_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    checksum    TEXT,
    applied_at  TEXT NOT NULL
)
"""


def split_sql(script: str) -> list[str]:
    """Split a script into complete statements (trigger bodies stay whole).

    ``sqlite3.executescript`` commits any open transaction first, so
    migrations run their statements one by one inside their own transaction.
    """
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip().strip(";").strip():
                statements.append(pending.strip())
            pending = ""
    if pending.strip():
        raise MigrationError(f"incomplete SQL statement in migration: {pending.strip()[:60]!r}")
    return statements


def _check_numbering(migrations: Sequence[Migration]) -> None:
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise MigrationError(
                f"migrations must be numbered 1, 2, 3, ...: found {migration.version} "
                f"where {expected} belongs"
            )


def _applied(conn: sqlite3.Connection) -> dict[int, tuple[str, str | None]]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return {}
    rows = conn.execute("SELECT version, name, checksum FROM schema_migrations").fetchall()
    return {version: (name, checksum) for version, name, checksum in rows}


def _check_history(
    applied: dict[int, tuple[str, str | None]], migrations: Sequence[Migration]
) -> None:
    known = {m.version: m for m in migrations}
    for version, (name, checksum) in sorted(applied.items()):
        migration = known.get(version)
        if migration is None:
            raise MigrationError(
                f"database has migration {version} ({name}) that this arborist does not know: "
                "it was written by a newer version"
            )
        if migration.name != name or migration.checksum != checksum:
            raise MigrationError(
                f"migration {version} ({name}) differs from the one this database applied"
            )


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> list[int]:
    """Apply every migration the database lacks, each in its own transaction.

    Returns the versions applied (empty when the file was up to date, in
    which case nothing was written). Safe when two processes open a new
    file at once: each step re-reads the history inside its transaction.
    """
    _check_numbering(migrations)
    try:
        applied = _applied(conn)
        _check_history(applied, migrations)
        if all(m.version in applied for m in migrations):
            return []
        done: list[int] = []
        for migration in migrations:
            if migration.version in applied:
                continue
            with transaction(conn):
                conn.execute(_MIGRATIONS_TABLE)
                applied = _applied(conn)
                _check_history(applied, migrations)
                if migration.version in applied:
                    continue
                if isinstance(migration.apply, str):
                    for statement in split_sql(migration.apply):
                        conn.execute(statement)
                else:
                    migration.apply(conn)
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at) "
                    "VALUES (?, ?, ?, ?)",
                    (migration.version, migration.name, migration.checksum, utc_now()),
                )
            done.append(migration.version)
        return done
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"migration failed: {exc}") from exc


def schema_version(conn: sqlite3.Connection) -> int:
    """Highest migration applied to this database (0 for a new file)."""
    return max(_applied(conn), default=0)


def open_database(
    path: str | Path, migrations: Sequence[Migration], *, must_exist: bool = False
) -> sqlite3.Connection:
    """Connect to ``path`` and bring its schema up to date."""
    conn = connect(path, must_exist=must_exist)
    try:
        migrate(conn, migrations)
    except BaseException:
        conn.close()
        raise
    return conn
