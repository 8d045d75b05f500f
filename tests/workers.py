"""Worker processes for the concurrency tests: ``python -m tests.workers KIND PATH N GO_FILE NAME``.

Each worker opens its database, says it is ready, and waits for GO_FILE to
appear, so that all of them start writing at the same moment; then it does
N units of work, one transaction each. Start them with :func:`start_workers`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from arborist._database.db import transaction
from arborist._database.migrations import open_database
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._forest.shard import insert_turn
from arborist._proofs.audit import append_event
from arborist._store.schema import STORE_MIGRATIONS

ROOT = Path(__file__).resolve().parents[1]


def wait_for(go: Path) -> None:
    """Say this worker is ready (``<go>.ready.<pid>``), then wait for the start signal."""
    (go.parent / f"{go.name}.ready.{os.getpid()}").touch()
    deadline = time.monotonic() + 60
    while not go.exists():
        if time.monotonic() > deadline:
            raise SystemExit("start signal never came")
        time.sleep(0.005)


def append(path: str, count: int, go: str, name: str) -> None:
    conn = open_database(path, STORE_MIGRATIONS)
    wait_for(Path(go))
    for i in range(count):
        with transaction(conn):
            append_event(conn, "test_append", body={"worker": name, "i": i})
        # A real writer does other work between turns. Without this pause the
        # lock holder re-takes the lock before SQLite's busy handler wakes the
        # other writer, and the two run one after the other instead of interleaved.
        time.sleep(0.0005)
    conn.close()


def turns(path: str, count: int, go: str, name: str) -> None:
    """Insert ``count`` turns into the first session of a shard, each its own transaction."""
    conn = open_database(path, SESSIONS_MIGRATIONS)
    sid, root = conn.execute("SELECT sid, root_bates FROM sessions ORDER BY sid LIMIT 1").fetchone()
    wait_for(Path(go))
    for i in range(count):
        parent = (
            root
            if i % 2 == 0
            else conn.execute(
                "SELECT current_bates FROM sessions WHERE sid = ?", (sid,)
            ).fetchone()[0]
        )
        insert_turn(
            conn,
            sid,
            parent,
            question=f"{name} question {i}",
            answer_text=f"{name} answer {i}",
            cache_key="ab" * 32,
            audit_mode="STRICT",
            cited_titles=[f"{name} title"],
        )
        time.sleep(0.0005)
    conn.close()


def migrate(path: str, _count: int, go: str, _name: str) -> None:
    wait_for(Path(go))
    open_database(path, STORE_MIGRATIONS).close()


def start_workers(
    kind: str, path: Path, count: int, names: list[str]
) -> list[subprocess.Popen[str]]:
    """Start one worker per name, wait until every one is ready, then let them all go."""
    go = path.parent / f"go-{kind}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.workers", kind, str(path), str(count), str(go), name],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]
    deadline = time.monotonic() + 120
    while len(list(path.parent.glob(f"{go.name}.ready.*"))) < len(procs):
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            break
        time.sleep(0.01)
    go.touch()
    return procs


def finish(procs: list[subprocess.Popen[str]], timeout: float = 600) -> list[str]:
    """Wait for every worker; return their stderr texts."""
    return [p.communicate(timeout=timeout)[1] for p in procs]


if __name__ == "__main__":
    kind, path, count, go, name = sys.argv[1:6]
    {"append": append, "migrate": migrate, "turns": turns}[kind](path, int(count), go, name)
