"""SQLite connections, the one ``transaction()`` helper, and the gate before a write.

The discipline (docs/design.md section 5, each pitfall measured):

* connections use ``isolation_level=None``: nothing starts a transaction
  behind our back, and nothing holds the write lock between cells;
* every write goes through :func:`transaction`, which opens ``BEGIN
  IMMEDIATE`` (a deferred read that upgrades to a write cannot wait for a
  second writer and fails) and nests as savepoints;
* WAL journal, a busy timeout, foreign keys on;
* no checkpoint inside a commit: connections that may write turn SQLite's
  auto-checkpoint off, and :mod:`arborist._database.wal` keeps the ``-wal`` short after each
  commit (a background checkpointer; the writer itself past a bound; an empty ``-wal``
  behind a connection that wrote, once closed).

Schemas are brought up to date by :mod:`arborist._database.migrations`, and ``arborist
verify``'s checks of a whole file are in :mod:`arborist._database.integrity`.

Damaged and read-only files (docs/guarantees.md, "Damaged and read-only homes"):

* every connection is a :class:`Connection`: SQLite's corruption errors
  ("database disk image is malformed", "file is not a database") become
  :class:`DamagedDatabase` and its read-only refusal :class:`ReadOnlyDatabase`,
  one line naming the file, wherever a statement runs or a row is fetched;
  locks, constraints and syntax errors pass through unchanged;
* before its first write a connection runs ``PRAGMA quick_check`` once; a
  file that fails it, or that has raised a corruption error on that
  connection, is never written again through it;
* a file that cannot be opened for writing (a read-only mount, folder or
  file) is opened read-only (``mode=ro``; ``immutable=1`` when not even its
  ``-shm`` can be created, which only a read-only filesystem or folder
  prevents, so no writer can be active) and is never migrated.

Private files (docs/guarantees.md, "Privacy") are :mod:`arborist._private`'s.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import tempfile
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

from arborist._database.wal import CHECKPOINTER, WAL_SIZE_LIMIT, after_commit, checkpoint_on_close
from arborist._errors import DamagedDatabase, ReadOnlyDatabase, StorageError, one_line
from arborist._private import (
    create_private_file,
    make_private_folder,
)

__all__ = [
    "BUSY_TIMEOUT_MS",
    "Connection",
    "IN_BATCH",
    "connect",
    "is_read_only",
    "require_writable",
    "rows_in",
    "snapshot",
    "transaction",
]

IN_BATCH = 500
"""Values per ``IN (...)`` list in :func:`rows_in`: far below SQLite's bound-parameter limit."""

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's write lock before giving up."""

_savepoint_ids = itertools.count(1)

# SQLite's primary result codes that arborist names (an extended code keeps them in its low byte).
_READONLY = 8
_CORRUPT = 11
_CANTOPEN = 14
_NOTADB = 26

_READ_ONLY_HINT = (
    "this command writes to it; commands that only read (verify, search, stats) still work"
)

_WORDING = {  # Python 3.10 exceptions carry no code: recognise SQLite's own messages
    "database disk image is malformed": _CORRUPT,
    "file is not a database": _NOTADB,
    "attempt to write a readonly database": _READONLY,
    "unable to open database file": _CANTOPEN,
}


def _code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    text = str(exc)
    return next((code for words, code in _WORDING.items() if words in text), None)


class Connection(sqlite3.Connection):
    """A connection that names its file when SQLite finds the file damaged or read-only.

    Every statement run through it, and every row fetched from its cursors,
    turns SQLite's corruption errors into :class:`DamagedDatabase` and its
    read-only refusal into :class:`ReadOnlyDatabase`; every other error
    (busy, locked, constraint, syntax) passes through unchanged, since
    callers rely on those. Made by :func:`connect`; ``path`` is the file as
    the user named it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.path = str(args[0]) if args else ""
        self.read_only = False  # opened with mode=ro (or immutable, or as a private copy)
        self.immutable = False
        self.damage: str | None = None  # what SQLite said, once it found the file damaged
        self.checked = False  # quick_check passed (run once, before the first write)
        self.wrote = False  # a write transaction committed through it
        self.wal_path: str | None = None  # its -wal file, on a connection that may write
        self._scratch: str | None = None  # a private copy's folder, removed on close
        self._shm: int | None = None  # its -shm, opened read-only by _wal_state (-1: cannot be)
        self._shm_closer: Callable[[], object] | None = None  # closes it with the connection

    def failure(self, exc: BaseException) -> StorageError | None:
        """The arborist error ``exc`` stands for, or None to let it through as it is."""
        code = _code(exc)
        if code in (_CORRUPT, _NOTADB):
            self.damage = self.damage or str(exc)
            return DamagedDatabase(self.path, str(exc))
        if code == _READONLY:
            return ReadOnlyDatabase(f"{self.path} is read-only ({exc}): {_READ_ONLY_HINT}")
        return None

    def cursor(self, factory: Any = None) -> Any:
        return super().cursor(factory or Cursor)

    # sqlite3's own execute makes its cursor without calling cursor(): make it here.
    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        cursor = Cursor(self)
        try:
            return _execute(cursor, sql, parameters)
        except sqlite3.DatabaseError as exc:
            _reraise(self, exc)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> sqlite3.Cursor:
        cursor = Cursor(self)
        try:
            return _executemany(cursor, sql, parameters)
        except sqlite3.DatabaseError as exc:
            _reraise(self, exc)

    def close(self) -> None:
        if self.wrote and self.wal_path is not None:  # no checkpoint it asked for outlives it
            CHECKPOINTER.settle(self.wal_path[: -len("-wal")])
        if self.wrote and self.damage is None:
            checkpoint_on_close(self)
        if self._shm_closer is not None:
            self._shm_closer()
        super().close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


# The base class's methods, called directly: a super() on every row fetched is the hot path's
# own cost (docs/design.md section 5).
_execute = sqlite3.Cursor.execute
_executemany = sqlite3.Cursor.executemany
_fetchone = sqlite3.Cursor.fetchone
_fetchmany = sqlite3.Cursor.fetchmany
_fetchall = sqlite3.Cursor.fetchall
_next = sqlite3.Cursor.__next__


def _reraise(conn: object, exc: sqlite3.DatabaseError) -> NoReturn:
    failure = conn.failure(exc) if isinstance(conn, Connection) else None
    if failure is None:
        raise exc
    raise failure from exc


class Cursor(sqlite3.Cursor):
    """A cursor whose statements and fetches translate errors as its :class:`Connection`
    does (its cost per row and per statement: docs/design.md section 5)."""

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        try:
            return _execute(self, sql, parameters)
        except sqlite3.DatabaseError as exc:
            _reraise(self.connection, exc)

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> Cursor:
        try:
            return _executemany(self, sql, seq_of_parameters)
        except sqlite3.DatabaseError as exc:
            _reraise(self.connection, exc)

    def fetchone(self) -> Any:
        try:
            return _fetchone(self)
        except sqlite3.DatabaseError as exc:
            _reraise(self.connection, exc)

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            return _fetchmany(self, size)
        except sqlite3.DatabaseError as exc:
            _reraise(self.connection, exc)

    def fetchall(self) -> list[Any]:
        try:
            return _fetchall(self)
        except sqlite3.DatabaseError as exc:
            _reraise(self.connection, exc)

    def __next__(self) -> Any:
        try:
            return _next(self)
        except sqlite3.DatabaseError as exc:
            _reraise(self.connection, exc)


def is_read_only(conn: sqlite3.Connection) -> bool:
    """True for a connection :func:`connect` had to open read-only."""
    return bool(getattr(conn, "read_only", False))


def connect(path: str | Path, *, must_exist: bool = False) -> Connection:
    """Open ``path`` with arborist's settings; ``must_exist`` refuses to create a file.

    A file that cannot be opened for writing (a read-only mount, folder or
    file) is opened read-only instead (see :func:`_connect_read_only`): reads
    work, and any write raises :class:`ReadOnlyDatabase`.

    Raises :class:`StorageError` with one line naming the file when it is
    missing (with ``must_exist``) or unreadable, and :class:`DamagedDatabase`
    when it is not a SQLite database or SQLite finds it corrupt.
    """
    path = Path(path)
    if must_exist and not path.is_file():
        raise StorageError(f"no database at {path}")
    try:
        return _connect_writable(path, must_exist=must_exist)
    except _CannotWrite as exc:
        if path.exists() and not path.is_file():
            raise StorageError(f"cannot open database {path}: {exc}") from exc
        if not path.exists():
            raise StorageError(
                f"cannot create database {path}: its folder cannot be written ({exc})"
            ) from exc
        return _connect_read_only(path)


class _CannotWrite(Exception):
    """The file, its folder or its filesystem refused a writer (tried read-only next)."""


def _connect_writable(path: Path, *, must_exist: bool) -> Connection:
    try:
        if not must_exist:
            make_private_folder(path.parent)
            create_private_file(path)
        conn = sqlite3.connect(
            path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, factory=Connection
        )
    except (sqlite3.Error, OSError) as exc:
        if _code(exc) == _CANTOPEN and path.parent.is_dir():
            raise _CannotWrite(str(exc)) from exc
        raise StorageError(f"cannot open database {path}: {exc}") from exc
    conn.path = str(path)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = _wal(conn)
        if mode != "wal":
            raise StorageError(f"cannot use WAL journal for {path} (got {mode})")
        # NORMAL is durable across process crashes in WAL mode; only a power
        # loss can drop the last commits, never corrupt the file or the chain.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # Checkpoints run off the commit path (CHECKPOINTER), and a reset -wal is cut back.
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
        conn.wal_path = os.path.realpath(path) + "-wal"  # SQLite keeps it beside the real file
    except ReadOnlyDatabase as exc:  # a read-only file not yet in WAL mode
        conn.close()
        raise _CannotWrite(str(exc.__cause__ or exc)) from exc
    except sqlite3.DatabaseError as exc:
        conn.close()
        if _code(exc) == _CANTOPEN:  # its -shm cannot be created: a read-only folder
            raise _CannotWrite(str(exc)) from exc
        raise StorageError(f"cannot use database {path}: {exc}") from exc
    except StorageError:
        conn.close()
        raise
    return conn


def _connect_read_only(path: Path) -> Connection:
    """Open a file that cannot be written: ``mode=ro`` first, which reads the WAL
    through its ``-shm`` when one exists (a copy or a mount of a home in use);
    with no ``-shm`` and none creatable, ``immutable=1``, which only a
    read-only folder or filesystem makes necessary, so no writer can be
    active. ``immutable`` ignores a ``-wal``: when one holds commits the file
    does not, the pair is read from a private copy instead, so nothing
    committed is missed."""
    uri = "file:" + quote(str(path.absolute()))
    try:
        return _open_read_only(path, f"{uri}?mode=ro")
    except _CannotWrite:
        pass
    log = path.with_name(path.name + "-wal")
    if log.is_file() and log.stat().st_size > 32:  # a header alone holds no commit
        return _open_private_copy(path, log)
    try:
        conn = _open_read_only(path, f"{uri}?mode=ro&immutable=1")
    except _CannotWrite as exc:  # not even readable
        raise StorageError(f"cannot open database {path}: {exc}") from exc
    conn.immutable = True
    return conn


def _open_read_only(path: Path, uri: str) -> Connection:
    try:
        conn = sqlite3.connect(
            uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, factory=Connection
        )
    except sqlite3.Error as exc:
        raise StorageError(f"cannot open database {path}: {exc}") from exc
    conn.path, conn.read_only = str(path), True
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # header, WAL index
    except ReadOnlyDatabase as exc:  # no -wal, and a folder that refuses to hold one
        conn.close()
        raise _CannotWrite(str(exc.__cause__ or exc)) from exc
    except sqlite3.DatabaseError as exc:
        conn.close()
        if _code(exc) == _CANTOPEN:  # no -shm, and none can be made
            raise _CannotWrite(str(exc)) from exc
        raise StorageError(f"cannot read database {path}: {exc}") from exc
    except StorageError:
        conn.close()
        raise
    return conn


def _open_private_copy(path: Path, log: Path) -> Connection:
    scratch = tempfile.mkdtemp(prefix="arborist-readonly-")
    try:
        shutil.copyfile(path, Path(scratch) / path.name)
        shutil.copyfile(log, Path(scratch) / log.name)
        conn = _open_read_only(path, "file:" + quote(str(Path(scratch) / path.name)))
    except _CannotWrite as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        raise StorageError(f"cannot open database {path}: {exc}") from exc
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    conn._scratch = scratch
    weakref.finalize(conn, shutil.rmtree, scratch, ignore_errors=True)
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


def rows_in(conn: sqlite3.Connection, sql: str, values: Sequence[str]) -> list[Any]:
    """The rows of ``sql`` (whose ``{marks}`` is the ``IN`` list) for every value, asked
    :data:`IN_BATCH` values at a time so any number of them fits in a statement."""
    rows: list[Any] = []
    for start in range(0, len(values), IN_BATCH):
        batch = values[start : start + IN_BATCH]
        marks = ", ".join("?" for _ in batch)
        rows += conn.execute(sql.format(marks=marks), tuple(batch)).fetchall()
    return rows


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block in one write transaction: all of it commits or none of it does.

    The outermost call opens ``BEGIN IMMEDIATE`` (taking the write lock now,
    waiting up to the busy timeout for another writer); nested calls become
    savepoints, so an inner failure rolls back only the inner block when the
    caller catches it.

    Before a connection's first write, ``PRAGMA quick_check`` must pass (once
    per connection); a read-only file, or one found damaged, is refused here
    with one line naming it, before anything is written.
    """
    require_writable(conn)
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
    if isinstance(conn, Connection) and conn.wal_path is not None:
        after_commit(conn)


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


QUICK_CHECK_MAX_BYTES = 256 * 2**20
"""Files up to this size are read whole (``quick_check``) before their first write on a
connection: at 2-3 ms per MB, up to about half a second. A bigger file would cost every
CLI command that writes seconds, so its writes rely on SQLite's check of each page they
touch, and ``arborist verify`` checks every page."""


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def require_writable(conn: sqlite3.Connection) -> None:
    """Raise unless ``conn`` may be written: :class:`ReadOnlyDatabase` for a file
    opened read-only, :class:`DamagedDatabase` for one found damaged. The first
    time on a connection it runs ``PRAGMA quick_check`` (every page read once,
    about 3 ms per MB; docs/guarantees.md) on a file of at most
    :data:`QUICK_CHECK_MAX_BYTES`. :func:`transaction` calls it; call
    it yourself to refuse before costly work (a model call) that ends in a write."""
    if not isinstance(conn, Connection):
        return
    if conn.read_only:
        raise ReadOnlyDatabase(f"{conn.path} is read-only: {_READ_ONLY_HINT}")
    if not conn.checked and conn.damage is None and _size(conn.path) > QUICK_CHECK_MAX_BYTES:
        conn.checked = True  # too big to read whole before every command: SQLite checks each page
    if not conn.checked and conn.damage is None:
        found = [str(row[0]) for row in conn.execute("PRAGMA quick_check(1)").fetchall()]
        if found == ["ok"]:
            conn.checked = True
        else:
            said = " ".join(found).replace("*** in database main ***", "")
            conn.damage = one_line(said) or "quick_check found a problem"
    if conn.damage is not None:
        raise DamagedDatabase(conn.path, conn.damage)


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is still open (SQLite may already have ended it)."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")
