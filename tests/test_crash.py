"""The crash suite: a writer killed with SIGKILL at random moments, and what survives.

:mod:`tests.crash_writer` ingests, revises, asks, forks, labels, falsifies and
rebuilds the co-access index on one home, journaling ``begin``/``done``
around each operation. This suite has it forked from one warm interpreter
(``python -m tests.crash_writer --serve``: fifty writers without fifty
interpreter start-ups), kills it (``kill -9``) after a random delay, and after
every kill checks the home:

* ``PRAGMA integrity_check`` is ``ok`` for both files, and every FTS5 index
  passes its own ``integrity-check``;
* ``verify`` is clean: every document has all its chunks and its event, every
  turn its event, every answer its record, both chains intact;
* what the journal says finished is there (durability), and what was
  interrupted is either wholly there or wholly absent (atomicity): a document
  by its URI, a turn by its question;
* the co-access index, rebuilt after the kill, equals one computed from
  scratch; no co-access row names a turn that does not exist, and every turn
  that cited admitted chunks has its capture drained (none lost to the kill).

50 kills in ``make test``, 300 with ``--long``; the seed is printed, and
``ARBORIST_CRASH_SEED`` replays a run. Every :data:`KILLS_PER_HOME` kills the
writer starts on a fresh home: each check re-verifies the whole home, so one
home growing through 300 kills made the suite quadratic (it once reached its
600 s timeout on a loaded machine); rounds keep it linear in the kills.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from arborist import Arborist
from arborist._database.migrations import schema_version
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._store.coaccess import admitted_leaves, compute_edges
from arborist._store.coaccess_spool import pending
from arborist._store.schema import STORE_MIGRATIONS
from tests.crash_writer import OPERATIONS

ROOT = Path(__file__).resolve().parents[1]
KILLS_PER_HOME = 25
FTS_TABLES = {"store.db": ("chunks_fts", "documents_fts"), "sessions.db": ("nodes_fts",)}
MIGRATIONS = {"store.db": STORE_MIGRATIONS, "sessions.db": SESSIONS_MIGRATIONS}


def _integrity(home: Path) -> list[str]:
    problems = []
    for name, tables in FTS_TABLES.items():
        if not (home / name).exists():
            # Killed before the writer made this file: nothing is half done, and opening it
            # here would make it, with the umask's mode rather than arborist's private one.
            continue
        conn = sqlite3.connect(home / name)
        try:
            result = conn.execute("PRAGMA integrity_check").fetchall()
            if result != [("ok",)]:
                problems.append(f"{name}: integrity_check: {result[:3]}")
            migrated = schema_version(conn) == len(MIGRATIONS[name])
            for table in tables:
                if not migrated and not _exists(conn, table):
                    # Killed during the file's first migrations (each one commits whole):
                    # the next open finishes them, and verify checks the index then.
                    continue
                try:
                    conn.execute(
                        f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)"
                    )
                except sqlite3.DatabaseError as exc:
                    problems.append(f"{name}: {table}: {exc}")
        finally:
            conn.close()
    return problems


def _exists(conn: sqlite3.Connection, table: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None
    )


def _journal(path: Path) -> tuple[list[list[str]], list[str] | None]:
    """Finished operations, and the one the kill interrupted (if any)."""
    done, pending = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        word, _, rest = line.partition(" ")
        if word == "begin":
            pending = rest.split(" ")
        elif word == "done":
            done.append(rest.split(" "))
            pending = None
        elif word == "refused":
            pending = None
    return done, pending


def _check_journal(app: Arborist, journal: Path) -> list[str]:
    problems = []
    done, pending = _journal(journal)
    uris = {uri for (uri,) in app.store_conn.execute("SELECT uri FROM documents")}
    questions = {q for (q,) in app.sessions_conn.execute("SELECT question FROM nodes")}
    for op, *detail in done:
        if op in ("ingest", "revise") and detail[0] not in uris:
            problems.append(f"lost: finished {op} of {detail[0]}")
        if op in ("ask", "fork") and " ".join(detail[:-1]) not in questions:
            problems.append(f"lost: finished {op} {' '.join(detail)}")
    if pending and pending[0] in ("ask", "fork"):
        question = " ".join(pending[1:])
        nodes = app.sessions_conn.execute(
            "SELECT count(*) FROM nodes WHERE question = ?", (question,)
        ).fetchone()[0]
        if nodes > 1:
            problems.append(f"interrupted {pending[0]} left {nodes} turns")
    return problems


def _check_coaccess(app: Arborist) -> list[str]:
    conn = app.store_conn
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'record_session'").fetchone():
        return []
    bates = {b for (b,) in app.sessions_conn.execute("SELECT bates FROM nodes")}
    batches = {b for (b,) in conn.execute("SELECT DISTINCT capture_batch_id FROM record_session")}
    problems = [f"co-access rows name a missing turn {b}" for b in sorted(batches - bates)]
    report = app.rebuild_related()
    rows = conn.execute("SELECT session_id, ordinal, content_hash FROM record_session").fetchall()
    expected = {
        (s, r, score)
        for s, neighbours in compute_edges(rows, window=4, fanout=8).items()
        for r, score in neighbours.items()
    }
    stored = set(
        conn.execute(
            "SELECT source_hash, related_hash, freq_score FROM related_hashes "
            "WHERE index_version = ?",
            (report.index_version,),
        ).fetchall()
    )
    if stored != expected:
        problems.append(f"co-access index differs from a rebuild from scratch ({report})")
    return problems + _lost_captures(app)


def _lost_captures(app: Arborist) -> list[str]:
    """Turns that cited admitted chunks yet have no drained capture, after the rebuild
    (which drains what a kill left spooled): their co-access rows were lost."""
    conn = app.store_conn
    if not _exists(conn, "coaccess_drained"):
        return []
    drained = {b for (b,) in conn.execute("SELECT capture_batch_id FROM coaccess_drained")}
    problems = [f"co-access capture of {b} still spooled" for b in _spooled(app)]
    for bates, key in app.sessions_conn.execute(
        "SELECT bates, cache_key FROM nodes WHERE seq > 0"
    ).fetchall():
        cited = [(e.leaf, e.text) for e in app.record(key).evidence if e.cited]
        if admitted_leaves(cited)[0] and bates not in drained:
            problems.append(f"turn {bates} lost its co-access rows")
    return problems


def _spooled(app: Arborist) -> list[str]:
    return [c.capture_batch_id for c in pending(app.sessions_conn)]


def _fork_writer(
    server: subprocess.Popen[str], home: Path, corpus: Path, seed: int, journal: Path, focus: str
) -> int:
    """Have the warm server fork a writer; its pid."""
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write("\t".join([str(home), str(corpus), str(seed), str(journal), focus]) + "\n")
    server.stdin.flush()
    word, pid = server.stdout.readline().split()
    assert word == "pid", word
    return int(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # a writer the server has reaped is gone
    except ProcessLookupError:
        return False
    return True


def _exit_code(server: subprocess.Popen[str]) -> int:
    """The last forked writer's exit code, as the server saw it (-9: killed by SIGKILL)."""
    assert server.stdout is not None
    line = server.stdout.readline()
    assert line.startswith("exit "), f"the writer server said {line!r}: {server.stderr}"
    return int(line.split()[1])


def test_kill_9_at_random_moments_loses_nothing_and_leaves_nothing_half_done(
    tmp_path: Path, long_run: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    kills = 300 if long_run else 50
    seed = int(os.environ.get("ARBORIST_CRASH_SEED", random.randrange(2**32)))
    print(f"crash suite: {kills} kills, seed {seed} (ARBORIST_CRASH_SEED={seed} replays)")
    rng = random.Random(seed)
    journal = tmp_path / "journal"
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    interrupted: Counter[str] = Counter()
    failures: list[str] = []
    started = time.monotonic()
    # One warm interpreter forks every writer (tests.crash_writer --serve): each writer is
    # still a process of its own that opens the home afresh and dies by SIGKILL.
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_writer", "--serve"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    running = None  # the pid of a writer the server has not yet reaped
    try:
        for kill in range(kills):
            home = tmp_path / f"home{kill // KILLS_PER_HOME}"
            corpus = tmp_path / f"corpus{kill // KILLS_PER_HOME}"
            corpus.mkdir(exist_ok=True)
            journal.write_text("", encoding="utf-8")
            pid = running = _fork_writer(
                server,
                home,
                corpus,
                rng.randrange(2**31),
                journal,
                OPERATIONS[kill % len(OPERATIONS)],
            )
            deadline = time.monotonic() + 60
            while "ready" not in journal.read_text(encoding="utf-8"):
                if not _alive(pid):
                    running = None
                    pytest.fail(f"the writer died: exit {_exit_code(server)}")
                assert time.monotonic() < deadline, "the writer never got ready"
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.4))
            os.kill(pid, signal.SIGKILL)
            code = _exit_code(server)
            running = None
            assert code == -signal.SIGKILL, f"the writer stopped on its own: exit {code}"
            _done, pending = _journal(journal)
            interrupted[pending[0] if pending else "between operations"] += 1
            problems = _integrity(home)
            with Arborist(home) as app:
                problems += app.verify().problems
                problems += _check_journal(app, journal)
                problems += _check_coaccess(app)
            failures += [f"kill {kill} (seed {seed}): {p}" for p in problems]
            if failures:
                break
    finally:
        if running is not None:  # a failed check left a writer: the server waits for it
            os.kill(running, signal.SIGKILL)
        _out, err = server.communicate("", timeout=60)
    assert server.returncode == 0, f"the writer server failed: {err}"
    elapsed = time.monotonic() - started
    with Arborist(home) as app:
        stats = app.stats()
    print(
        f"  {kills} kills in {elapsed:.0f} s; interrupted: "
        + ", ".join(f"{op} {n}" for op, n in interrupted.most_common())
        + f"; home: {stats['documents']['surface']} documents, "
        f"{sum(stats['cache_records'].values())} answers"
    )
    assert not failures, "\n".join(failures[:20])
    assert sum(n for op, n in interrupted.items() if op != "between operations") >= kills // 3
