"""SQLite connections, the one ``transaction()`` helper, and the gate before a write.

The discipline (docs/design.md section 5, each pitfall measured):

* connections use ``isolation_level=None``: nothing starts a transaction
  behind our back, and nothing holds the write lock between cells;
* every write goes through :func:`transaction`, which opens ``BEGIN
  IMMEDIATE`` (a deferred read that upgrades to a write cannot wait for a
  second writer and fails) and nests as savepoints;
* WAL journal, a busy timeout, foreign keys on;
* no checkpoint inside a commit: connections that may write turn SQLite's
  auto-checkpoint off; a commit that leaves the log in the ``-wal`` longer than
  :data:`WAL_CHECKPOINT_BYTES` wakes :data:`CHECKPOINTER`, a daemon thread
  that checkpoints PASSIVE on a connection of its own; past
  :data:`WAL_MAX_BYTES` the writer finishes the checkpoint itself, and a
  connection that wrote empties the ``-wal`` when closed (the thread copies
  most of the log first: :data:`WAL_BACKLOG_BYTES`). A log that starts over
  is written again in place (:data:`WAL_SIZE_LIMIT`).

Schemas are brought up to date by :mod:`arborist.migrations`, and ``arborist
verify``'s checks of a whole file are in :mod:`arborist.integrity`.

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

Private files (docs/guarantees.md, "Privacy"): a folder :func:`connect` creates for a
database is mode 0700 (:func:`make_private_folder`), and so is an empty one it creates
the first database in; a database file it creates is 0600 before SQLite opens it, so
the ``-wal`` and ``-shm`` SQLite makes beside it (with the database's own mode) are 0600
too, whatever the umask. :func:`loose_modes` names what is open to other users in an
existing home, for ``arborist verify``.
"""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import sqlite3
import struct
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

from arborist.errors import DamagedDatabase, ReadOnlyDatabase, StorageError

__all__ = [
    "BUSY_TIMEOUT_MS",
    "Connection",
    "IN_BATCH",
    "PRIVATE_FILE_MODE",
    "PRIVATE_FOLDER_MODE",
    "WAL_CHECKPOINT_BYTES",
    "WAL_MAX_BYTES",
    "WAL_SIZE_LIMIT",
    "connect",
    "is_read_only",
    "loose_modes",
    "make_private_folder",
    "require_writable",
    "rows_in",
    "snapshot",
    "transaction",
]

PRIVATE_FOLDER_MODE = 0o700
"""The mode of a home folder arborist creates: its owner's alone."""
PRIVATE_FILE_MODE = 0o600
"""The mode of every database, ``-wal``, ``-shm`` and key file arborist creates."""

IN_BATCH = 500
"""Values per ``IN (...)`` list in :func:`rows_in`: far below SQLite's bound-parameter limit."""

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's write lock before giving up."""

WAL_CHECKPOINT_BYTES = 4 * 2**20
"""A log this long in the ``-wal`` after a commit (:func:`_wal_state`: what was written since
it last started over) wakes the checkpointer (about SQLite's own 1,000-page auto-checkpoint,
which connections that write turn off: it ran inside a commit)."""

WAL_MAX_BYTES = 4 * WAL_CHECKPOINT_BYTES
"""A log this long after a commit is checkpointed by the writer itself (PASSIVE, the
tail the checkpointer has not copied yet) once that tail is short (:data:`WAL_BACKLOG_BYTES`).
SQLite starts a log over only when a writer begins just after a checkpoint copied every
frame; back-to-back writes never leave the background one that moment, so this bounds the
``-wal`` (quiet writers never reach it)."""

WAL_BACKLOG_BYTES = 2**20
"""Past :data:`WAL_MAX_BYTES`, the writer checkpoints once the checkpointer has left at most
this much of the log uncopied; until then it asks the thread to go again without its pause.
The thread copies while the writer goes on writing; the writer, which used to copy whatever
the thread had not reached (up to 10 MB, several milliseconds a time), copies a short tail."""

WAL_HARD_BYTES = WAL_MAX_BYTES + WAL_CHECKPOINT_BYTES // 2
"""A log this long is checkpointed by the writer whatever the thread has left (it waits for
one under way, as above): the ``-wal`` stays under :data:`WAL_MAX_BYTES` plus
:data:`WAL_CHECKPOINT_BYTES`, with room for the commits made while the thread hurries."""

WAL_SIZE_LIMIT = WAL_MAX_BYTES + WAL_CHECKPOINT_BYTES
"""``journal_size_limit``: a ``-wal`` longer than this is cut back to it when its log starts
over (one a reader in another process kept from starting over for a while). At least the
length writers keep the log under (:data:`WAL_MAX_BYTES`, plus what commits add while the
writer's own checkpoint runs), so a log that starts over is written again in place, over
pages the file already has: cut back to 1 MiB at every start, as it once was, the ``-wal``
was grown anew each cycle, about a tenth of an ingest's time. So the file's size is no
measure of the log; :func:`_wal_state` reads the log's length from the ``-shm``."""

_WAL_SIZE_LIMIT_BLIND = 2**20
"""``journal_size_limit`` on a connection that cannot read its ``-shm``: it goes by the
``-wal``'s size instead, which means the log's length only if the file is cut back at each
start (below :data:`WAL_CHECKPOINT_BYTES`)."""

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
            _checkpoint_on_close(self)
        if self._shm_closer is not None:
            self._shm_closer()
        super().close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


# The base class's methods, called directly: a super() per row would cost a fifth more.
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
    does (about 0.1 µs more per row fetched, 1 µs per statement)."""

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


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` (and its parents) if it is missing; the folder itself is made
    :data:`PRIVATE_FOLDER_MODE` whatever the umask (its parents keep the umask's mode). An
    existing folder is left as it is. OSError for a folder that cannot be made."""
    if folder.is_dir():
        return
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=PRIVATE_FOLDER_MODE)
    except FileExistsError:
        return  # made meanwhile by another process (or not a folder: the open names it)
    os.chmod(folder, PRIVATE_FOLDER_MODE)


def _create_private_file(path: Path) -> None:
    """Create the database file ``path`` empty and :data:`PRIVATE_FILE_MODE` if it does not
    exist (an empty file is an empty database to SQLite), so that SQLite, which gives its
    ``-wal`` and ``-shm`` the database's mode, makes them private too. An empty folder
    receiving its first database is made :data:`PRIVATE_FOLDER_MODE` (a folder the user
    made for the home beforehand). Best effort: a file that cannot be created here is left
    for SQLite to refuse in its own words."""
    try:
        with os.scandir(path.parent) as entries:
            empty = next(entries, None) is None
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    except OSError:  # exists already (or was just made by another process), or cannot be
        return
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
    except OSError:
        pass
    finally:
        os.close(fd)
    if empty:
        with suppress(OSError):
            if os.stat(path.parent).st_uid == os.geteuid():
                os.chmod(path.parent, PRIVATE_FOLDER_MODE)


def loose_modes(folder: Path, files: Iterable[Path]) -> list[str]:
    """One line for ``folder`` and for each of ``files`` that exists and that group or other
    users may read, write or (a folder) enter, naming its mode and the ``chmod`` that makes
    it private; nothing on a system without POSIX modes."""
    if os.name != "posix":
        return []
    found: list[str] = []
    checks = [(folder, PRIVATE_FOLDER_MODE, True)]
    checks += [(Path(f), PRIVATE_FILE_MODE, False) for f in files]
    for path, private, is_folder in checks:
        try:
            mode = stat_mode(path)
        except OSError:
            continue
        if mode is None or not mode & 0o077:
            continue
        who = "group" if not mode & 0o007 else "other" if not mode & 0o070 else "group and other"
        what = "the home folder" if is_folder else "the file"
        found.append(
            f"{path}: {what} has mode {mode:04o}, open to {who} users: "
            f"run `chmod {private:o} {shlex.quote(str(path))}`"
        )
    return found


def stat_mode(path: Path) -> int | None:
    """The permission bits of ``path`` (a link followed), None when it is not there."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        return None


def _connect_writable(path: Path, *, must_exist: bool) -> Connection:
    try:
        if not must_exist:
            make_private_folder(path.parent)
            _create_private_file(path)
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
    wal = path.with_name(path.name + "-wal")
    if wal.is_file() and wal.stat().st_size > 32:  # a header alone holds no commit
        return _open_private_copy(path, wal)
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


def _open_private_copy(path: Path, wal: Path) -> Connection:
    scratch = tempfile.mkdtemp(prefix="arborist-readonly-")
    try:
        shutil.copyfile(path, Path(scratch) / path.name)
        shutil.copyfile(wal, Path(scratch) / wal.name)
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
    _after_commit(conn)


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
            conn.damage = " ".join(said.split()) or "quick_check found a problem"
    if conn.damage is not None:
        raise DamagedDatabase(conn.path, conn.damage)


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is still open (SQLite may already have ended it)."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _after_commit(conn: sqlite3.Connection) -> None:
    """Note the write, and wake the checkpointer once the log has grown past
    :data:`WAL_CHECKPOINT_BYTES` (one read of the ``-shm``, a microsecond or two); past
    :data:`WAL_MAX_BYTES`, hurry it, and finish the checkpoint here once the tail it has
    left is short (:data:`WAL_BACKLOG_BYTES`), or past :data:`WAL_HARD_BYTES` whatever it is."""
    if not isinstance(conn, Connection) or conn.wal_path is None:
        return
    conn.wrote = True
    state = _wal_state(conn)
    if state is None:
        return
    size, backlog = state
    if size >= WAL_HARD_BYTES or (size >= WAL_MAX_BYTES and backlog <= WAL_BACKLOG_BYTES):
        with suppress(sqlite3.Error, StorageError):  # the commit stands; the next one retries
            _finish_checkpoint(conn)
    elif size >= WAL_CHECKPOINT_BYTES:
        CHECKPOINTER.request(conn.wal_path[: -len("-wal")], hurry=size >= WAL_MAX_BYTES)


_WAL_INDEX_HEADER = struct.Struct("=IIIBBHI")
"""The start of the WAL-index header (native byte order): version, unused, change counter,
initialised, big-endian checksums, page size (1 for 65536), ``mxFrame``."""
_WAL_INDEX_VERSION = 3007000
_NBACKFILL = struct.Struct("=I")
"""``nBackfill``, the first field of the checkpoint information after the header's two copies."""
_pread = getattr(os, "pread", None)


def _wal_state(conn: Connection) -> tuple[int, int] | None:
    """The log in the ``-wal`` since it last started over: its length in bytes (its 32-byte
    header and ``mxFrame`` frames of a page and a 24-byte frame header each) and how many of
    those bytes no checkpoint has copied yet (the frames past ``nBackfill``).

    Both are read from the start of the ``-shm``, which every connection to the file reads
    and writes in place (https://www.sqlite.org/walformat.html: its layout is fixed, since
    SQLite versions share it). The WAL-index header is kept twice, written one copy after
    the other: two copies that differ are a commit writing them (None: the next commit
    looks again). A connection that cannot read its ``-shm`` (a platform without
    ``pread``, a file it may not open) goes by the ``-wal``'s size, all of it uncopied, and
    has the file cut back at each start so that the size measures the log
    (:data:`_WAL_SIZE_LIMIT_BLIND`), as every connection did before.
    """
    wal = conn.wal_path
    if wal is None:
        return None
    if conn._shm is None:
        conn._shm = _open_shm(conn, wal)
    try:
        if conn._shm >= 0 and _pread is not None:
            return _log_state(_pread(conn._shm, 100, 0))
        size = os.stat(wal).st_size
    except OSError:
        return None
    return size, size


def _log_state(start: bytes) -> tuple[int, int] | None:
    """The log's length and uncopied bytes from the first 100 bytes of a ``-shm``
    (see :func:`_wal_state`)."""
    if len(start) != 100 or start[:48] != start[48:96]:
        return None
    version, _, _, ready, _, page, frames = _WAL_INDEX_HEADER.unpack_from(start)
    if version != _WAL_INDEX_VERSION or not ready:
        return None
    frame = (65536 if page == 1 else int(page)) + 24
    (copied,) = _NBACKFILL.unpack_from(start, 96)
    return 32 + int(frames) * frame, max(0, int(frames) - int(copied)) * frame


def _open_shm(conn: Connection, wal: str) -> int:
    """A read-only descriptor of the connection's ``-shm``, closed with it; -1 when it
    cannot be read, after setting the connection's ``journal_size_limit`` to
    :data:`_WAL_SIZE_LIMIT_BLIND`."""
    fd = -1
    if _pread is not None:
        with suppress(OSError):
            fd = os.open(wal[: -len("-wal")] + "-shm", os.O_RDONLY)
    if fd >= 0:
        conn._shm_closer = weakref.finalize(conn, os.close, fd)
    else:
        with suppress(sqlite3.Error, StorageError):
            conn.execute(f"PRAGMA journal_size_limit = {_WAL_SIZE_LIMIT_BLIND}")
    return fd


def _finish_checkpoint(conn: sqlite3.Connection) -> None:
    """PASSIVE, on the writer's own connection; while another checkpoint holds the lock
    (the background one, mid-copy), wait for it, up to half a second in all."""
    deadline = time.monotonic() + 0.5
    while conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[0] and (
        time.monotonic() < deadline
    ):
        time.sleep(0.002)


class Checkpointer:
    """PASSIVE checkpoints off the commit path: one daemon thread per process, started on
    the first request, which checkpoints each file asked for on a connection of its own,
    opened, used and closed in that thread (no connection crosses threads, none stays
    open to keep a ``-wal`` from being removed when the last writer closes).

    A PASSIVE checkpoint waits for no one: it copies what no reader still needs and
    leaves the rest to the next run. A checkpoint cut short by the process exiting is
    a crash in the middle of one, which SQLite recovers from (the ``-wal`` is only reset
    once every frame is in the database file)."""

    PAUSE = 0.05
    """Seconds between runs: a ``-wal`` that a long reader keeps from resetting asks after
    every commit, and is then checkpointed at most this often (a writer past
    :data:`WAL_MAX_BYTES` and short of :data:`WAL_HARD_BYTES` cuts a pause short)."""

    SETTLE = 5.0
    """Seconds a closing writer waits at most for a checkpoint of its file already under
    way (the checkpoint's own busy timeout is one second)."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._wake = threading.Event()
        self._hurry = threading.Event()  # a writer past WAL_MAX_BYTES: skip the next pause
        self._pending: set[str] = set()
        self._current: str | None = None  # the file being checkpointed now
        self._thread: threading.Thread | None = None
        self.runs = 0  # checkpoints attempted
        self.failures: list[str] = []  # the last few errors (a checkpoint is best effort)
        os.register_at_fork(after_in_child=self._forked)

    def _forked(self) -> None:
        """A forked child has no checkpointer thread, and perhaps a lock held in the parent."""
        self._lock, self._wake = threading.Condition(), threading.Event()
        self._hurry = threading.Event()
        self._pending, self._current, self._thread = set(), None, None

    def request(self, path: str, *, hurry: bool = False) -> None:
        """Checkpoint ``path`` soon, in the background; with ``hurry``, without the pause
        that follows the run under way (a writer past :data:`WAL_MAX_BYTES`)."""
        if hurry:
            self._hurry.set()
        with self._lock:
            self._pending.add(path)
            if self._thread is None or not self._thread.is_alive():  # none yet, or forked
                self._thread = threading.Thread(
                    target=self._serve, name="arborist-checkpointer", daemon=True
                )
                self._thread.start()
        self._wake.set()

    def settle(self, path: str) -> None:
        """Forget a pending request for ``path`` and wait for a checkpoint of it already
        under way to end: after this, the thread has no connection to ``path`` open and
        opens none, so a writer that closes leaves no file behind it (a folder removed
        just after closing is removed whole)."""
        with self._lock:
            self._pending.discard(path)
            if sys.is_finalizing():  # the thread is frozen mid-run: waiting would only stall
                return
            if not self._lock.wait_for(lambda: self._current != path, timeout=self.SETTLE):
                note = (
                    f"{path}: a checkpoint still running {self.SETTLE:g} s after its writer closed"
                )
                self.failures = [*self.failures[-9:], note]

    def _serve(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            self._hurry.clear()  # a hurry asked for from here on cuts the pause below short
            with self._lock:
                batch = sorted(self._pending)
            for path in batch:  # what was asked before this run; later asks wait a pause
                with self._lock:
                    if path not in self._pending:  # settled by its writer's close meanwhile
                        continue
                    self._pending.discard(path)
                    self._current = path
                try:
                    self._checkpoint(path)
                finally:
                    with self._lock:
                        self._current = None
                        self._lock.notify_all()
            self._hurry.wait(self.PAUSE)

    def _checkpoint(self, path: str) -> None:
        self.runs += 1
        try:  # mode=rw: a file removed meanwhile is not created again
            conn = sqlite3.connect(
                "file:" + quote(path) + "?mode=rw", uri=True, timeout=1.0, isolation_level=None
            )
            try:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            finally:
                conn.close()
        except (sqlite3.Error, OSError) as exc:
            self.failures = [*self.failures[-9:], f"{path}: {exc}"]


CHECKPOINTER = Checkpointer()
"""The process's checkpointer (:func:`transaction` wakes it after a commit)."""


def _checkpoint_on_close(conn: Connection) -> None:
    """Leave an empty ``-wal`` behind a connection that wrote, when it is closed: a
    TRUNCATE checkpoint that waits at most a tenth of a second for other processes'
    readers (busy, it does what it can; SQLite itself removes the ``-wal`` when the last
    connection closes). Never fails the close."""
    if conn.in_transaction:
        return
    try:
        conn.execute("PRAGMA busy_timeout = 100")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except (sqlite3.Error, StorageError):
        return  # best effort: a busy or damaged file keeps its -wal; the close goes on
