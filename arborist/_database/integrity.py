"""Checks of a database file's integrity, for ``arborist verify``: SQLite's own page and
index checks and FTS5's, each reported as findings rather than raised.

A damaged file should still be verified as far as it can be read, so a check
that cannot run says why in one line and the sections still readable run.
The check before a connection's first write is
:func:`~arborist._database.db.require_writable`'s, not these.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from arborist._database.db import Connection, connect, is_read_only
from arborist._errors import DamagedDatabase, ReadOnlyDatabase, StorageError

__all__ = ["FileChecks", "check_fts", "integrity_problems", "read_or_report", "scratch_copy"]

MAX_INTEGRITY_LINES = 20
"""How many of SQLite's ``integrity_check`` messages ``verify`` reports per file."""


def integrity_problems(conn: sqlite3.Connection, limit: int = MAX_INTEGRITY_LINES) -> list[str]:
    """What SQLite's ``PRAGMA integrity_check`` finds wrong with the file, one line
    each (at most ``limit``, then one saying there are more); empty when it passes.

    A file too damaged to be checked at all is one line saying why. A
    connection whose file fails is marked damaged: nothing is written through it.
    """
    found: list[str] = []
    why = ""
    # A full check can stop at a page it cannot read and say nothing else; a
    # quick one, or one that stops at the first problem, may still name them.
    attempts = (f"integrity_check({limit + 1})", f"quick_check({limit + 1})", "quick_check(5)")
    for pragma in (*attempts, "quick_check(1)"):
        try:
            rows = conn.execute(f"PRAGMA {pragma}").fetchall()
        except (DamagedDatabase, sqlite3.DatabaseError) as exc:
            why = exc.reason if isinstance(exc, DamagedDatabase) else str(exc)
            continue
        found = [
            " ".join(line.split())
            for row in rows
            for line in str(row[0]).splitlines()
            if line.strip() and not line.startswith("*** in database")
        ]
        break
    if not found:
        return [f"SQLite cannot check the file: {why}"]
    if found == ["ok"]:
        return []
    if isinstance(conn, Connection):
        conn.damage = conn.damage or found[0]
    lines = [f"SQLite integrity check: {line}" for line in found[:limit]]
    if len(found) > limit:
        lines.append("SQLite integrity check: more problems not shown")
    return lines


T = TypeVar("T")


def read_or_report(problems: list[str], what: str, check: Callable[[], T]) -> T | None:
    """Run one section of a check; if the file cannot be read for it (damaged,
    or not what arborist wrote), add one line saying so to ``problems`` and
    return None, so that the sections still readable run."""
    try:
        return check()
    except DamagedDatabase as exc:
        problems.append(f"{what}: cannot be read ({exc.reason})")
    except sqlite3.DatabaseError as exc:
        problems.append(f"{what}: cannot be read ({exc})")
    return None


@contextmanager
def scratch_copy(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A private, writable copy of ``conn``'s database in a temporary folder, for the
    checks SQLite runs as writes (FTS5 ``integrity-check``) on a file that can only
    be read. Removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="arborist-check-") as folder:
        copy = sqlite3.connect(Path(folder) / "copy.db", isolation_level=None, factory=Connection)
        copy.path = getattr(conn, "path", "") or "database"
        try:
            try:
                conn.backup(copy)
            except sqlite3.DatabaseError as exc:
                failure = conn.failure(exc) if isinstance(conn, Connection) else None
                if failure is None:
                    raise
                raise failure from exc
            yield copy
        finally:
            copy.close()


def check_fts(conn: sqlite3.Connection, tables: Sequence[str]) -> list[str]:
    """FTS5's own ``integrity-check`` of each table, one line per failure. SQLite
    runs it as a write, so a file that can only be read is checked on a copy."""
    if is_read_only(conn):
        with scratch_copy(conn) as copy:
            return _fts_problems(copy, tables)
    try:
        return _fts_problems(conn, tables)
    except ReadOnlyDatabase:  # SQLite opened the file read-only by itself
        with scratch_copy(conn) as copy:
            return _fts_problems(copy, tables)


def _fts_problems(conn: sqlite3.Connection, tables: Sequence[str]) -> list[str]:
    problems = []
    for table in tables:
        try:
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)")
        except DamagedDatabase as exc:
            problems.append(f"search index {table}: {exc.reason}")
        except sqlite3.DatabaseError as exc:
            problems.append(f"search index {table}: {exc}")
    return problems


_Outcome = tuple[list[str], str | None, list[str] | BaseException]
"""What the checks found apart: integrity lines, the damage SQLite named, FTS5's lines or error."""


class FileChecks:
    """SQLite's checks of one file for ``verify``: ``PRAGMA integrity_check`` and FTS5's
    ``integrity-check`` of its full-text tables, which between them cost more than
    everything ``verify`` recomputes in Python.

    Given a ``pool``, and a file that another connection can open as ``conn`` did
    (written to, not read-only or a private copy, not inside a transaction), both
    run at once on the pool's thread over a connection of their own: SQLite lets
    go of the GIL while it checks, so they overlap the hashing. Otherwise, or when
    that connection cannot be opened, each runs on ``conn`` when it is asked for,
    exactly as :func:`integrity_problems` and :func:`check_fts` do. The answers
    are the same either way, and so is what a damaged file does to ``conn``.
    """

    def __init__(
        self, conn: sqlite3.Connection, tables: Sequence[str], pool: Executor | None = None
    ) -> None:
        self._conn, self._tables = conn, tuple(tables)
        self._apart: Future[_Outcome | None] | None = None
        path = _reopenable(conn)
        if pool is not None and path is not None:
            self._apart = pool.submit(_checks_apart, path, self._tables)

    def _outcome(self) -> _Outcome | None:
        return self._apart.result() if self._apart is not None else None

    def integrity(self) -> list[str]:
        """What :func:`integrity_problems` says of the file; marks ``conn`` damaged as it does."""
        outcome = self._outcome()
        if outcome is None:
            return integrity_problems(self._conn)
        lines, damage, _ = outcome
        if damage is not None and isinstance(self._conn, Connection):
            self._conn.damage = self._conn.damage or damage
        return lines

    def search_indexes(self) -> list[str]:
        """What :func:`check_fts` says of the tables, or raises what it raises."""
        outcome = self._outcome()
        if outcome is None:
            return check_fts(self._conn, self._tables)
        fts = outcome[2]
        if isinstance(fts, BaseException):
            raise fts
        return fts


def _reopenable(conn: sqlite3.Connection) -> str | None:
    """The path another connection can open ``conn``'s file by, as ``conn`` did; None when
    it cannot be (or would not see what ``conn`` sees)."""
    if (
        isinstance(conn, Connection)
        and conn.path
        and conn.wal_path is not None  # opened for writing, on a file of its own
        and not conn.read_only
        and conn._scratch is None
        and not conn.in_transaction  # another connection would not see what it has not committed
    ):
        return conn.path
    return None


def _checks_apart(path: str, tables: tuple[str, ...]) -> _Outcome | None:
    """Both checks on a connection of this thread's own; None when it cannot be opened
    (the caller then runs them on its own connection)."""
    try:
        conn = connect(path, must_exist=True)
    except (StorageError, sqlite3.Error):
        return None
    try:
        if is_read_only(conn):  # the file changed under us: let the caller check it as it is
            return None
        lines = integrity_problems(conn)
        fts: list[str] | BaseException
        try:
            fts = check_fts(conn, tables)
        except (StorageError, sqlite3.Error) as exc:
            fts = exc
        return lines, conn.damage, fts
    finally:
        conn.close()
