"""WAL checkpoints off the commit path, and a bounded ``-wal`` (arborist._database.db).

Connections that may write have SQLite's auto-checkpoint off (it ran inside a commit);
a commit that leaves the log in the ``-wal`` past WAL_CHECKPOINT_BYTES wakes a daemon
thread that checkpoints PASSIVE on a connection of its own; a writer finishes the job
itself only past WAL_MAX_BYTES; a log that starts over is written in place (the file is
not cut back below WAL_SIZE_LIMIT), so its length is read from the ``-shm``; a connection
that wrote truncates the ``-wal`` when closed. All on real files.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from arborist._database import db, wal
from arborist._database.migrations import open_database
from arborist._forest.nodes import Session
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._forest.shard import create_session, insert_turn
from arborist._forest.verify import verify_forest

ROOT = Path(__file__).resolve().parent.parent
KEY = "ef" * 32


def _turns(conn: sqlite3.Connection, session: Session, n: int, answer: str = "a") -> None:
    parents = [session.root_bates]
    for i in range(n):  # a shallow bush: fan-out 20 under the root, then chains of them
        node = insert_turn(
            conn, session.sid, parents[i % len(parents)], question=f"q{i}",
            answer_text=f"{answer} {i}", cache_key=KEY, audit_mode="STRICT",
        )  # fmt: skip
        parents.append(node.bates)
        if len(parents) > 20:
            parents.pop(0)


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """No checkpoint at all, whatever the -wal holds: what the commit path does alone."""
    monkeypatch.setattr(wal, "WAL_CHECKPOINT_BYTES", 2**40)
    monkeypatch.setattr(wal, "WAL_MAX_BYTES", 2**40)


def test_write_connections_have_autocheckpoint_off_and_a_size_limit(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "a.db")
    assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    assert conn.execute("PRAGMA journal_size_limit").fetchone()[0] == wal.WAL_SIZE_LIMIT
    # A log that starts over is written in place: the writers' bound is under the limit.
    assert wal.WAL_CHECKPOINT_BYTES < wal.WAL_MAX_BYTES < wal.WAL_SIZE_LIMIT
    assert wal.WAL_MAX_BYTES + wal.WAL_CHECKPOINT_BYTES <= wal.WAL_SIZE_LIMIT
    conn.close()


def test_the_log_length_is_read_from_the_shm(tmp_path: Path, quiet: None) -> None:
    """Before the log first starts over, it is the whole -wal; after a checkpoint that
    copied every frame, the next commit starts it over in place: the file keeps its size
    (no cut back, no regrowth) and the log is that one commit's frames."""
    path = tmp_path / "sessions.db"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    session = create_session(conn)
    _turns(conn, session, 100, answer="word " * 200)
    log = tmp_path / "sessions.db-wal"
    assert wal._wal_state(conn) == (_size(log), _size(log) - 32)  # no frame copied yet
    grown = _size(log)
    assert grown > 2**20
    assert conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[0] == 0
    assert wal._wal_state(conn) == (grown, 0)  # every frame copied
    _turns(conn, session, 1)
    assert _size(log) == grown
    length, uncopied = wal._wal_state(conn) or (0, 0)
    assert 0 < length - 32 == uncopied < grown // 10
    conn.close()
    assert not log.exists()


def test_a_file_reached_through_a_symlink_is_known_by_its_real_path(
    tmp_path: Path, quiet: None
) -> None:
    """SQLite keeps the -wal and -shm beside the real file: the log's length is read from
    that -shm, and two names of one file are one file to the checkpointer."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    (real / "file.db").touch()
    (tmp_path / "alias.db").symlink_to(real / "file.db")
    conns = [db.connect(tmp_path / "link" / "file.db"), db.connect(tmp_path / "alias.db")]
    for conn in conns:
        assert conn.wal_path == str((real / "file.db").resolve()) + "-wal"
    with db.transaction(conns[1]):
        conns[1].execute("CREATE TABLE t (x)")
    log = real / "file.db-wal"
    assert wal._wal_state(conns[1]) == (_size(log), _size(log) - 32)
    assert conns[1]._shm not in (None, -1), "its -shm was found and read"
    for conn in conns:
        conn.close()


def test_a_torn_or_unknown_shm_header_gives_no_length() -> None:
    """Two copies that differ are a commit writing them; the caller looks again next time."""
    header = wal._WAL_INDEX_HEADER.pack(3007000, 0, 7, 1, 0, 4096, 10).ljust(48, b"\0")
    copied = wal._NBACKFILL.pack(4)
    assert wal._log_state(header * 2 + copied) == (32 + 10 * 4120, 6 * 4120)
    assert wal._log_state(header + header[:-1] + b"\1" + copied) is None
    unknown = wal._WAL_INDEX_HEADER.pack(3007001, 0, 7, 1, 0, 4096, 10).ljust(48, b"\0")
    assert wal._log_state(unknown * 2 + copied) is None
    assert wal._log_state(header * 2) is None


def test_a_connection_that_cannot_read_its_shm_goes_by_the_file_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The -wal is then cut back at each start, so its size measures the log (as before)."""
    monkeypatch.setattr(wal, "_pread", None)
    conn = db.connect(tmp_path / "a.db")
    with db.transaction(conn):
        conn.execute("CREATE TABLE t (x)")
    assert conn._shm == -1
    size = _size(tmp_path / "a.db-wal")
    assert size > 0 and wal._wal_state(conn) == (size, size)
    limit = conn.execute("PRAGMA journal_size_limit").fetchone()[0]
    assert limit == wal._WAL_SIZE_LIMIT_BLIND < wal.WAL_CHECKPOINT_BYTES
    conn.close()


def test_commits_never_checkpoint(tmp_path: Path, quiet: None) -> None:
    """Past SQLite's 1,000-page auto-checkpoint, nothing has reached the database file."""
    path = tmp_path / "sessions.db"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    session = create_session(conn)
    before = path.read_bytes()
    _turns(conn, session, 120, answer="word " * 8_000)  # 40 KB answers: > 1,000 pages
    assert _size(tmp_path / "sessions.db-wal") > 1_000 * 4096
    assert path.read_bytes() == before
    conn.close()


def test_the_wal_stays_bounded_over_5000_turns(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    log = tmp_path / "sessions.db-wal"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    session = create_session(conn)
    runs = wal.CHECKPOINTER.runs
    largest = 0
    for _ in range(50):
        _turns(conn, session, 100, answer="word " * 200)
        largest = max(largest, _size(log))
    # past the bound by what commits add while the writer's own checkpoint runs, at most
    assert largest <= wal.WAL_MAX_BYTES + wal.WAL_CHECKPOINT_BYTES
    assert wal.CHECKPOINTER.runs > runs  # the background thread did checkpoint
    assert not wal.CHECKPOINTER.failures
    assert verify_forest(conn).ok
    conn.close()
    assert not log.exists()  # the last connection closed: SQLite removed it


@pytest.mark.parametrize(
    ("length", "uncopied", "done"),
    [
        (wal.WAL_CHECKPOINT_BYTES - 1, 0, ""),
        (wal.WAL_CHECKPOINT_BYTES, wal.WAL_CHECKPOINT_BYTES, "asked"),
        (wal.WAL_MAX_BYTES, wal.WAL_BACKLOG_BYTES + 1, "hurried"),
        (wal.WAL_MAX_BYTES, wal.WAL_BACKLOG_BYTES, "finished"),
        (wal.WAL_HARD_BYTES - 1, wal.WAL_HARD_BYTES - 1, "hurried"),
        (wal.WAL_HARD_BYTES, wal.WAL_HARD_BYTES, "finished"),
    ],
)
def test_past_the_bound_the_writer_copies_only_a_short_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, length: int, uncopied: int, done: str
) -> None:
    """Past WAL_MAX_BYTES the thread is hurried while it has much left to copy; the writer
    checkpoints once the tail is short, or past WAL_HARD_BYTES whatever is left."""
    conn = db.connect(tmp_path / "a.db")
    seen: list[str] = []
    monkeypatch.setattr(wal, "_wal_state", lambda _conn: (length, uncopied))
    monkeypatch.setattr(wal, "_finish_checkpoint", lambda _conn: seen.append("finished"))
    monkeypatch.setattr(
        wal.CHECKPOINTER,
        "request",
        lambda _path, hurry=False: seen.append("hurried" if hurry else "asked"),
    )
    wal.after_commit(conn)
    assert seen == ([done] if done else [])
    monkeypatch.undo()
    conn.close()


def test_a_hurried_request_cuts_the_checkpointers_pause_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a run the thread pauses (PAUSE) before the next; a writer past WAL_MAX_BYTES
    asks with hurry, and the next run comes without waiting the pause out."""
    runs: list[float] = []
    ran = threading.Event()

    def record(path: str) -> None:
        runs.append(time.monotonic())
        ran.set()

    monkeypatch.setattr(wal.CHECKPOINTER, "PAUSE", 30.0)
    monkeypatch.setattr(wal.CHECKPOINTER, "_checkpoint", record)
    path = str(tmp_path / "a.db")
    wal.CHECKPOINTER.request(path)
    assert ran.wait(5)
    ran.clear()
    time.sleep(0.05)  # the thread is in its pause now
    wal.CHECKPOINTER.request(path, hurry=True)
    assert ran.wait(5), "the hurried run waited for the 30 s pause"
    assert len(runs) == 2 and runs[1] - runs[0] < 5
    wal.CHECKPOINTER._hurry.set()  # end the pause of the run just made
    wal.CHECKPOINTER.settle(path)


def test_the_checkpointer_is_a_daemon_thread(tmp_path: Path) -> None:
    wal.CHECKPOINTER.request(str(tmp_path / "missing.db"))  # mode=rw: never created
    threads = [t for t in threading.enumerate() if t.name == "arborist-checkpointer"]
    assert len(threads) == 1 and threads[0].daemon
    assert not (tmp_path / "missing.db").exists()


def test_closing_a_writer_empties_the_wal_while_another_connection_reads(
    tmp_path: Path, quiet: None
) -> None:
    """SQLite checkpoints on close only as the last connection; a writer closing beside a
    reader (another kernel, a CLI) leaves no -wal behind it either."""
    path = tmp_path / "sessions.db"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    _turns(conn, create_session(conn), 200, answer="word " * 200)
    reader = db.connect(path)
    count = reader.execute("SELECT count(*) FROM nodes").fetchone()[0]
    assert _size(tmp_path / "sessions.db-wal") > 2**20
    conn.close()
    assert _size(tmp_path / "sessions.db-wal") == 0
    assert reader.execute("SELECT count(*) FROM nodes").fetchone()[0] == count == 201
    reader.close()


def test_a_read_only_open_never_checkpoints(tmp_path: Path, quiet: None) -> None:
    path = tmp_path / "sessions.db"
    writer = open_database(path, SESSIONS_MIGRATIONS)
    _turns(writer, create_session(writer), 100, answer="word " * 200)
    main, log = path.read_bytes(), (tmp_path / "sessions.db-wal").read_bytes()
    reader = db._open_read_only(path, "file:" + str(path) + "?mode=ro")
    assert db.is_read_only(reader) and reader.wal_path is None
    assert reader.execute("SELECT count(*) FROM nodes").fetchone()[0] == 101
    reader.close()
    assert path.read_bytes() == main
    assert (tmp_path / "sessions.db-wal").read_bytes() == log
    writer.close()


def test_a_process_that_writes_then_exits_leaves_a_consistent_file(tmp_path: Path) -> None:
    """Thousands of turns with the checkpointer busy, then an exit without closing: the
    daemon thread does not hold the process, and what it left is whole and verifies."""
    path = tmp_path / "sessions.db"
    script = textwrap.dedent(
        f"""
        from arborist._forest.schema import SESSIONS_MIGRATIONS
        from arborist._forest.shard import create_session, insert_turn
        from arborist._database.migrations import open_database
        from arborist._database import wal
        conn = open_database({str(path)!r}, SESSIONS_MIGRATIONS)
        s = create_session(conn)
        for i in range(1000):
            insert_turn(conn, s.sid, s.root_bates, question=f"q{{i}}",
                        answer_text="word " * 600, cache_key="ab" * 32, audit_mode="STRICT")
        assert wal.CHECKPOINTER.runs > 0
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        env=env,
        cwd=ROOT,
        timeout=300,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr.decode()
    conn = db.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 1001
    assert verify_forest(conn).ok
    conn.close()


def test_closing_a_writer_waits_for_its_files_checkpoint_so_its_folder_can_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background checkpoint holds a connection of its own to the file: a writer
    closed mid-checkpoint used to return first, and the folder removed just after it
    came back non-empty (the thread's -wal and -shm, CI's flake in the ripple test)."""
    folder = tmp_path / "home"
    folder.mkdir()
    path = folder / "sessions.db"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    _turns(conn, create_session(conn), 5)
    started, release, ended = threading.Event(), threading.Event(), []
    real = wal.CHECKPOINTER._checkpoint

    def slow(name: str) -> None:  # the checkpoint as it runs, held open until released
        started.set()
        release.wait(5)
        real(name)
        ended.append(name)

    monkeypatch.setattr(wal.CHECKPOINTER, "_checkpoint", slow)
    log = conn.wal_path
    assert log is not None
    wal.CHECKPOINTER.request(log[: -len("-wal")])
    assert started.wait(5)
    threading.Timer(0.3, release.set).start()
    began = time.monotonic()
    conn.close()  # the close waits for the checkpoint under way...
    assert time.monotonic() - began >= 0.25
    assert ended == [os.path.realpath(path)]
    shutil.rmtree(folder)  # ...so nothing is left open to write into the folder after it
    assert not folder.exists()


def test_closing_a_writer_drops_its_files_pending_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint asked for but not yet started is forgotten when its writer closes:
    the thread never opens the file again (mode=rw would fail on a removed file, but a
    folder being removed could still see it open a -wal between two unlinks)."""
    busy, release, seen = threading.Event(), threading.Event(), []
    real = wal.CHECKPOINTER._checkpoint

    def hold(name: str) -> None:
        seen.append(name)
        if name.endswith("first.db"):
            busy.set()
            release.wait(5)
        real(name)

    monkeypatch.setattr(wal.CHECKPOINTER, "_checkpoint", hold)
    first = db.connect(tmp_path / "first.db")
    first.execute("CREATE TABLE t (x)")
    wal.CHECKPOINTER.request(os.path.realpath(tmp_path / "first.db"))
    assert busy.wait(5)  # the thread is busy with another file...
    second = open_database(tmp_path / "second.db", SESSIONS_MIGRATIONS)
    target = os.path.realpath(tmp_path / "second.db")
    wal.CHECKPOINTER.request(target)  # ...when this one is asked for
    second.close()  # and its writer closes before the thread gets to it
    release.set()
    first.close()
    wal.CHECKPOINTER.request(str(tmp_path / "missing.db"))  # a run after the one held
    deadline = time.monotonic() + 5
    while str(tmp_path / "missing.db") not in seen and time.monotonic() < deadline:
        time.sleep(0.01)
    assert target not in seen


def test_a_close_that_gives_up_waiting_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint that outlasts the wait (a stalled disk) leaves a note where the
    checkpointer's failures are kept, instead of a silent return."""
    started, release = threading.Event(), threading.Event()
    real = wal.CHECKPOINTER._checkpoint

    def stalled(name: str) -> None:
        started.set()
        release.wait(5)
        real(name)

    monkeypatch.setattr(wal.CHECKPOINTER, "_checkpoint", stalled)
    monkeypatch.setattr(wal.CHECKPOINTER, "SETTLE", 0.1)
    monkeypatch.setattr(wal.CHECKPOINTER, "failures", [])
    conn = open_database(tmp_path / "sessions.db", SESSIONS_MIGRATIONS)
    _turns(conn, create_session(conn), 2)
    assert conn.wal_path is not None
    wal.CHECKPOINTER.request(conn.wal_path[: -len("-wal")])
    assert started.wait(5)
    conn.close()
    release.set()
    assert wal.CHECKPOINTER.failures == [
        f"{os.path.realpath(tmp_path / 'sessions.db')}: a checkpoint still running 0.1 s "
        "after its writer closed"
    ]
