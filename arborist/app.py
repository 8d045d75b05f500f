"""The facade: one object, opened on a home folder, that the CLI and the notebook share.

A feature is written once here (or in the service it calls) and gets two
faces, ``arborist`` on the command line and ``%arborist`` in a notebook.

Home layout (DESIGN.md section 1)::

    $ARBORIST_HOME/          default ~/.arborist
        store.db             documents, chunks, cache, its own audit chain
        sessions.db          the conversation forest shard
        config.toml          model profiles and options
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from arborist.audit import ChainReport, Checkpoint, check_chain
from arborist.db import Migration, connect, open_database
from arborist.errors import StorageError
from arborist.forest import SESSIONS_MIGRATIONS
from arborist.store import STORE_MIGRATIONS

__all__ = ["Arborist", "ChainCheck", "DatabaseReport", "default_home"]

STORE_FILE = "store.db"
SESSIONS_FILE = "sessions.db"


def default_home() -> Path:
    """``$ARBORIST_HOME`` if set, else ``~/.arborist``."""
    configured = os.environ.get("ARBORIST_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".arborist"


@dataclass(frozen=True)
class DatabaseReport:
    """The chain report of one database file."""

    name: str
    path: Path
    report: ChainReport


@dataclass(frozen=True)
class ChainCheck:
    """Chain reports of the databases checked, plus checkpoints that matched none of them."""

    databases: tuple[DatabaseReport, ...]
    unmatched: tuple[Checkpoint, ...]

    @property
    def ok(self) -> bool:
        return not self.unmatched and all(db.report.ok for db in self.databases)


class Arborist:
    """An arborist home: its two databases, opened (and migrated) on first use.

    ``store_db`` and ``sessions_db`` override the files' locations. With
    ``create=False`` a missing database is an error instead of a new file,
    and existing files are read as they are, without migrating them.
    """

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        store_db: str | Path | None = None,
        sessions_db: str | Path | None = None,
        create: bool = True,
    ) -> None:
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.store_path = Path(store_db) if store_db else self.home / STORE_FILE
        self.sessions_path = Path(sessions_db) if sessions_db else self.home / SESSIONS_FILE
        self.create = create
        self._connections: dict[str, sqlite3.Connection] = {}

    def __repr__(self) -> str:
        return f"Arborist(home={str(self.home)!r})"

    def _open(self, name: str, path: Path, migrations: tuple[Migration, ...]) -> sqlite3.Connection:
        conn = self._connections.get(name)
        if conn is None:
            if self.create:
                conn = open_database(path, migrations)
            else:
                conn = connect(path, must_exist=True)
                _require_audit_table(conn, path)
            self._connections[name] = conn
        return conn

    @property
    def store_conn(self) -> sqlite3.Connection:
        """Connection to ``store.db``."""
        return self._open("store", self.store_path, STORE_MIGRATIONS)

    @property
    def sessions_conn(self) -> sqlite3.Connection:
        """Connection to ``sessions.db``."""
        return self._open("sessions", self.sessions_path, SESSIONS_MIGRATIONS)

    def chain_check(
        self,
        checkpoints: tuple[Checkpoint, ...] | list[Checkpoint] = (),
        *,
        databases: tuple[str, ...] = ("store", "sessions"),
    ) -> ChainCheck:
        """Check the audit chain of each named database against the checkpoints.

        A checkpoint belongs to the database whose chain holds its event hash.
        When only one database is checked, every checkpoint is checked there
        (so a truncated tail is named as such); otherwise a checkpoint found in
        no chain is returned in ``unmatched``: that history is gone from both.
        """
        conns = {name: self._conn(name) for name in databases}
        assigned: dict[str, list[Checkpoint]] = {name: [] for name in databases}
        unmatched: list[Checkpoint] = []
        for checkpoint in checkpoints:
            owner = _owner(conns, checkpoint)
            if owner is None and len(databases) == 1:
                owner = databases[0]
            if owner is None:
                unmatched.append(checkpoint)
            else:
                assigned[owner].append(checkpoint)
        reports = tuple(
            DatabaseReport(name, self._path(name), check_chain(conn, assigned[name]))
            for name, conn in conns.items()
        )
        return ChainCheck(reports, tuple(unmatched))

    def _conn(self, name: str) -> sqlite3.Connection:
        if name == "store":
            return self.store_conn
        if name == "sessions":
            return self.sessions_conn
        raise ValueError(f"unknown database {name!r}")

    def _path(self, name: str) -> Path:
        return self.store_path if name == "store" else self.sessions_path

    def close(self) -> None:
        """Close every open connection."""
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()

    def __enter__(self) -> Arborist:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _owner(conns: dict[str, sqlite3.Connection], checkpoint: Checkpoint) -> str | None:
    for name, conn in conns.items():
        found = conn.execute(
            "SELECT 1 FROM audit_events WHERE event_hash = ?", (checkpoint.event_hash,)
        ).fetchone()
        if found:
            return name
    return None


def _require_audit_table(conn: sqlite3.Connection, path: Path) -> None:
    try:
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_events'"
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StorageError(f"{path} is not a SQLite database: {exc}") from exc
    if not found:
        conn.close()
        raise StorageError(f"{path} is not an arborist database (no audit_events table)")
