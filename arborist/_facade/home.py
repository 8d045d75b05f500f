"""A home folder, as the facade holds it: its two databases, opened (and migrated) on first
use, its ``config.toml``, and the checks of its files (``verify``, ``chain-check``).

:class:`arborist._facade.app.Arborist` is a :class:`Home` (through
:class:`~arborist._facade.forest.HomeForest`); nothing else makes one.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import overload

from arborist._config import CONFIG_FILE, Config, ConfigFile, allowlist
from arborist._database.db import connect
from arborist._database.migrations import Migration, open_database
from arborist._errors import DamagedDatabase, StorageError
from arborist._facade.checks import ChainCheck, Verification, chain_check, verify_home
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._gate.admission import admit
from arborist._pathref import KEY_FILE
from arborist._private import loose_modes
from arborist._proofs.audit import Checkpoint, has_audit_table
from arborist._proofs.witness import Heads, witnessed_by_database
from arborist._store.schema import STORE_MIGRATIONS

__all__ = ["Home", "SESSIONS_FILE", "STORE_FILE", "default_home"]


STORE_FILE = "store.db"
SESSIONS_FILE = "sessions.db"


def default_home() -> Path:
    """``$ARBORIST_HOME`` if set, else ``~/.arborist``."""
    configured = os.environ.get("ARBORIST_HOME")
    return Path(os.path.expanduser(configured)) if configured else Path.home() / ".arborist"


class Home:
    """An arborist home: its two databases, opened (and migrated) on first use.

    ``store_db`` and ``sessions_db`` override the files' locations. With
    ``create=False`` a missing database is an error instead of a new file,
    and existing files are read as they are, without migrating them.
    ``trust_config``: the user vouches for this home's config.toml, which may then name
    model servers off this machine (:mod:`arborist._config`; ``--trust-config``).
    """

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        store_db: str | Path | None = None,
        sessions_db: str | Path | None = None,
        create: bool = True,
        trust_config: bool = False,
    ) -> None:
        self.home = Path(os.path.expanduser(home)) if home is not None else default_home()
        self.store_path = Path(store_db) if store_db else self.home / STORE_FILE
        self.sessions_path = Path(sessions_db) if sessions_db else self.home / SESSIONS_FILE
        self.create = create
        self._connections: dict[str, sqlite3.Connection] = {}
        self._config = ConfigFile(self.home / CONFIG_FILE, vouched=trust_config)
        self.told: set[str] = set()
        """Lines said once (``Arborist.tell_once``) since a face last cleared this."""

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
        return chain_check(conns, {name: self._path(name) for name in databases}, checkpoints)

    def _conn(self, name: str) -> sqlite3.Connection:
        if name == "store":
            return self.store_conn
        if name == "sessions":
            return self.sessions_conn
        raise ValueError(f"unknown database {name!r}")

    def _path(self, name: str) -> Path:
        return self.store_path if name == "store" else self.sessions_path

    @property
    def config(self) -> Config:
        """``config.toml`` of the home, parsed (empty when there is none).

        Every ask reads it (model profiles, the admission allowlist), so the
        parse is kept until the file's size or mtime changes: one stat per use.
        """
        return self._config.read()

    @property
    def allowlist(self) -> list[str]:
        """Exact strings the admission gate must never redact (``[admission] allowlist``)."""
        return allowlist(self.config)

    @overload
    def admitted(self, text: str) -> str: ...
    @overload
    def admitted(self, text: None) -> None: ...
    def admitted(self, text: str | None) -> str | None:
        """A short text a user sets (a label, a reason, a derived text) through the
        admission gate, as every document and answer is: secrets never reach a file."""
        return None if text is None else admit(text, allowlist=self.allowlist).text

    def verify(self, checkpoints: Sequence[Checkpoint | Heads] = ()) -> Verification:
        """Recompute everything committed in both stores and check both chains.

        Each :class:`Checkpoint` is checked against the chain that holds its event
        hash; one found in neither is reported. Each head of a :class:`Heads` (what
        :meth:`checkpoint` returns and a notebook's witness line records) is checked
        against its own store's chain: a store.db head that store.db no longer holds
        is store.db's problem, whichever chain holds its hash.

        A damaged file is a finding, not an error: one that cannot even be
        opened is one problem line, and in one that opens, what SQLite's integrity
        check finds comes first and every section still readable is checked.
        """
        conns: dict[str, sqlite3.Connection] = {}
        unopened: dict[str, str] = {}
        for name in ("store", "sessions"):
            try:
                conns[name] = self._conn(name)
            except DamagedDatabase as exc:
                unopened[name] = exc.reason
        loose = [cp for cp in checkpoints if isinstance(cp, Checkpoint)]
        pinned = witnessed_by_database([h for h in checkpoints if isinstance(h, Heads)])
        return verify_home(conns, unopened, loose, self._loose_modes(), pinned)

    def _loose_modes(self) -> tuple[str, ...]:
        """The home folder and the files arborist keeps in it (the databases with their
        ``-wal`` and ``-shm``, the config, the redaction key, the REPL's history) that other
        users may read: one line each, with the ``chmod`` that makes it private. A home this
        process cannot write (a read-only mount or snapshot) is not judged: arborist writes
        nothing there, and its modes are not arborist's to keep."""
        if not self.home.is_dir() or not os.access(self.home, os.W_OK):
            return ()
        files = [
            Path(f"{db}{suffix}")
            for db in (self.store_path, self.sessions_path)
            for suffix in ("", "-wal", "-shm")
        ]
        files += [self.home / name for name in (CONFIG_FILE, KEY_FILE, "repl_history")]
        return tuple(loose_modes(self.home, files))

    def close(self) -> None:
        """Close every open connection."""
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()


def _require_audit_table(conn: sqlite3.Connection, path: Path) -> None:
    try:
        found = has_audit_table(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StorageError(f"{path} is not a SQLite database: {exc}") from exc
    except StorageError:  # damaged: the error names the file
        conn.close()
        raise
    if not found:
        conn.close()
        raise StorageError(f"{path} is not an arborist database (no audit_events table)")
