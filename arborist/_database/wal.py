"""The ``-wal`` kept short, off the commit path (docs/design.md section 5).

Connections that may write turn SQLite's auto-checkpoint off (it ran inside a commit).
After each commit :func:`after_commit` reads the log's length from the ``-shm``
(:func:`_wal_state`); past :data:`WAL_CHECKPOINT_BYTES` it wakes :data:`CHECKPOINTER`, a
daemon thread that checkpoints PASSIVE on a connection of its own; past
:data:`WAL_MAX_BYTES` the writer finishes the checkpoint itself, and a connection that
wrote empties the ``-wal`` when closed (:func:`checkpoint_on_close`; the thread copies most
of the log first: :data:`WAL_BACKLOG_BYTES`). A log that starts over is written again in
place (:data:`WAL_SIZE_LIMIT`). :mod:`arborist._database.db` makes the connections and calls these.
"""

from __future__ import annotations

import os
import sqlite3
import struct
import sys
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import suppress
from typing import Any, Protocol
from urllib.parse import quote

from arborist._errors import StorageError

__all__ = [
    "CHECKPOINTER",
    "Checkpointer",
    "WAL_BACKLOG_BYTES",
    "WAL_CHECKPOINT_BYTES",
    "WAL_HARD_BYTES",
    "WAL_MAX_BYTES",
    "WAL_SIZE_LIMIT",
    "WalConnection",
    "after_commit",
    "checkpoint_on_close",
]


class WalConnection(Protocol):
    """What the ``-wal``'s bookkeeping reads and keeps on a connection: the one
    :mod:`arborist._database.db` makes is one (its ``-wal``, whether it wrote, its ``-shm``
    descriptor and the finalizer that closes it)."""

    wal_path: str | None
    wrote: bool
    _shm: int | None
    _shm_closer: Callable[[], object] | None

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor: ...


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
The thread copies while the writer goes on writing, so the writer copies a short tail, not
whatever the thread has not reached yet."""

WAL_HARD_BYTES = WAL_MAX_BYTES + WAL_CHECKPOINT_BYTES // 2
"""A log this long is checkpointed by the writer whatever the thread has left (it waits for
one under way, as above): the ``-wal`` stays under :data:`WAL_MAX_BYTES` plus
:data:`WAL_CHECKPOINT_BYTES`, with room for the commits made while the thread hurries."""

WAL_SIZE_LIMIT = WAL_MAX_BYTES + WAL_CHECKPOINT_BYTES
"""``journal_size_limit``: a ``-wal`` longer than this is cut back to it when its log starts
over (one a reader in another process kept from starting over for a while). At least the
length writers keep the log under (:data:`WAL_MAX_BYTES`, plus what commits add while the
writer's own checkpoint runs), so a log that starts over is written again in place, over
pages the file already has, not grown anew each cycle (docs/design.md section 5). So the
file's size is no measure of the log; :func:`_wal_state` reads the log's length from the
``-shm``."""

_WAL_SIZE_LIMIT_BLIND = 2**20
"""``journal_size_limit`` on a connection that cannot read its ``-shm``: it goes by the
``-wal``'s size instead, which means the log's length only if the file is cut back at each
start (below :data:`WAL_CHECKPOINT_BYTES`)."""


def after_commit(conn: WalConnection) -> None:
    """Note the write, and wake the checkpointer once the log has grown past
    :data:`WAL_CHECKPOINT_BYTES` (one read of the ``-shm``, a microsecond or two); past
    :data:`WAL_MAX_BYTES`, hurry it, and finish the checkpoint here once the tail it has
    left is short (:data:`WAL_BACKLOG_BYTES`), or past :data:`WAL_HARD_BYTES` whatever it is."""
    if conn.wal_path is None:
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


def _wal_state(conn: WalConnection) -> tuple[int, int] | None:
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


def _open_shm(conn: WalConnection, wal: str) -> int:
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


def _finish_checkpoint(conn: WalConnection) -> None:
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


def checkpoint_on_close(conn: WalConnection) -> None:
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
