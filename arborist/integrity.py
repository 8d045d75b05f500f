"""Checks of a database file's integrity, for ``arborist verify``: SQLite's own page and
index checks and FTS5's, each reported as findings rather than raised.

A damaged file should still be verified as far as it can be read, so a check
that cannot run says why in one line and the sections still readable run.
The check before a connection's first write is
:func:`~arborist.db.require_writable`'s, not these.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from arborist.db import Connection, is_read_only
from arborist.errors import DamagedDatabase, ReadOnlyDatabase

__all__ = ["check_fts", "integrity_problems", "read_or_report", "scratch_copy"]

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
