"""Numbered schema migrations, and opening a database at the schema this code needs.

Migrations are numbered from 1 and append-only; each is applied in its own
transaction (:func:`~arborist._database.db.transaction`) and recorded in
``schema_migrations`` with a checksum of its SQL, so a migration edited after
release is refused rather than silently diverging, and a file written by a
newer arborist is refused rather than misread. Opening an up-to-date file runs
no write at all, and a file that can only be read is never migrated: an
out-of-date one is refused with one line saying so.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arborist._clock import utc_now
from arborist._database.db import Connection, connect, transaction
from arborist._errors import MigrationError, ReadOnlyDatabase, StorageError

__all__ = [
    "Migration",
    "migrate",
    "open_database",
    "require_migrated",
    "schema_version",
    "split_sql",
]


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


def require_migrated(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> None:
    """Refuse (one line) a file that lacks a migration, without writing anything:
    what :func:`open_database` does for a file it can only read."""
    _check_numbering(migrations)
    applied = _applied(conn)
    _check_history(applied, migrations)
    if not all(m.version in applied for m in migrations):
        raise ReadOnlyDatabase(_needs_migrating(conn, applied, migrations))


def _needs_migrating(
    conn: sqlite3.Connection,
    applied: dict[int, tuple[str, str | None]],
    migrations: Sequence[Migration],
) -> str:
    path = getattr(conn, "path", "") or "the database"
    return (
        f"{path} needs migrating (schema {max(applied, default=0)}, this arborist needs "
        f"{len(migrations)}) but is read-only: open it once where it can be written"
    )


def open_database(
    path: str | Path, migrations: Sequence[Migration], *, must_exist: bool = False
) -> Connection:
    """Connect to ``path`` and bring its schema up to date.

    A file opened read-only is never migrated: an out-of-date one is refused
    with one line saying it needs migrating and is read-only.
    """
    conn = connect(path, must_exist=must_exist)
    try:
        if conn.read_only:
            require_migrated(conn, migrations)
        else:
            try:
                migrate(conn, migrations)
            except ReadOnlyDatabase as exc:  # SQLite opened a read-only file for reading
                raise ReadOnlyDatabase(_needs_migrating(conn, _applied(conn), migrations)) from exc
    except BaseException:
        conn.close()
        raise
    return conn
