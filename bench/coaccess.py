"""Co-access: the substrate write and the related-index rebuild over 100,000 rows.

    python bench/coaccess.py [--quick] [--rows N] [--sessions S] [--seed SEED]

``--quick`` is a smoke run: 3,000 rows over 60 sessions, in a second or two.

Machines here are shared and noisy, so every figure sits next to a baseline
measured in the same process on the same data:

1. **Write**: ``record_session`` for every turn (3 cited chunks per turn, one
   transaction each) vs. a bare ``INSERT OR IGNORE`` of the same rows with the
   same transaction count into a plain table; and the ask path's write as it
   is, the capture spooled in sessions.db (here in a transaction of its own:
   on the ask path it shares the turn's) then drained into store.db
   (``coaccess_spool``: the rows and the drained mark, then the spool cleared).
2. **Rebuild** of ``related_hashes`` from N rows (default 100,000): a full
   build into an empty index, a re-run with nothing new (idempotent: writes
   nothing), and a re-run after 1% more rows; each vs. the bare scan of the
   substrate it must read (``SELECT session_id, ordinal, content_hash``).
3. **Lookup**: ``related_edges`` for one turn's cited leaves, median of 200.

Sessions draw chunks from a pool with Zipf-distributed popularity and a
per-session topic, so some chunks co-occur across many sessions and most in
few. Everything is written under a temporary directory.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arborist._database.db import connect, transaction
from arborist._database.migrations import open_database
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._store.coaccess import (
    DEFAULT_FANOUT,
    DEFAULT_WINDOW,
    ensure_schema,
    index_version,
    rebuild_related,
    record_session,
    related_edges,
)
from arborist._store.coaccess_spool import drain, spool
from arborist._store.schema import STORE_MIGRATIONS

CITED_PER_TURN = 3

Workload = list[tuple[str, list[list[str]]]]
"""``[(session_id, [one turn's cited leaves, ...]), ...]``."""


def _leaf(i: int) -> str:
    return hashlib.sha256(f"chunk {i}".encode()).hexdigest()


def workload(rows: int, sessions: int, seed: int) -> Workload:
    """``[(session_id, [turn's cited leaves, ...]), ...]`` adding up to ``rows`` distinct rows."""
    rng = random.Random(seed)
    pool = max(rows // 5, 100)
    weights = [1 / (rank + 1) ** 1.1 for rank in range(pool)]
    per_session = rows // sessions
    out = []
    for s in range(sessions):
        topic = rng.randrange(pool)
        chosen: dict[int, None] = {}
        while len(chosen) < per_session:
            if rng.random() < 0.6:  # near the session's topic
                pick = (topic + rng.randrange(-40, 41)) % pool
            else:
                pick = rng.choices(range(pool), weights)[0]
            chosen.setdefault(pick, None)
        leaves = [_leaf(i) for i in chosen]
        turns = [leaves[i : i + CITED_PER_TURN] for i in range(0, len(leaves), CITED_PER_TURN)]
        out.append((f"s{s:06d}", turns))
    return out


def timed(call: object) -> float:
    started = time.perf_counter()
    call()  # type: ignore[operator]
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--rows", type=int, default=None, help="default 100,000 (quick 3,000)")
    parser.add_argument("--sessions", type=int, default=None, help="default 2,000 (quick 60)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rows = args.rows or (3_000 if args.quick else 100_000)
    sessions = args.sessions or (60 if args.quick else 2_000)
    work = workload(rows, sessions, args.seed)
    total = sum(len(t) for _s, turns in work for t in turns)
    print(f"co-access bench  {platform.python_version()}  sqlite {sqlite3.sqlite_version}")
    print(f"  {total:,} record_session rows, {len(work):,} sessions, seed {args.seed}")

    with tempfile.TemporaryDirectory(prefix="arborist-bench-coaccess-") as tmp:
        conn = open_database(Path(tmp) / "store.db", STORE_MIGRATIONS)  # co-access joins chunks
        ensure_schema(conn)
        bare = connect(Path(tmp) / "bare.db")
        bare.execute(
            "CREATE TABLE rows (content_hash TEXT, session_id TEXT, ordinal INTEGER, "
            "PRIMARY KEY (content_hash, session_id))"
        )
        ours_write = bench_write(conn, bare, work)
        bench_spool(Path(tmp), work, ours_write)
        bench_rebuild(conn, work, total, args.seed)
        bench_lookup(conn, work, args.seed)
        conn.close()
        bare.close()


def bench_write(conn: sqlite3.Connection, bare: sqlite3.Connection, work: Workload) -> float:
    """1. ``record_session`` per turn vs. a bare insert of the same rows, as many transactions;
    the seconds ``record_session`` took."""

    def write_ours() -> None:
        for sid, turns in work:
            for n, cited in enumerate(turns):
                record_session(
                    conn,
                    session_id=sid,
                    transcript_ref="0123456789abcdef:bench.ipynb",
                    capture_batch_id=f"{sid}-{n:06d}",
                    chunks=[(leaf, "plain chunk text") for leaf in cited],
                )

    def write_bare() -> None:
        for sid, turns in work:
            ordinal = 0
            for cited in turns:
                with transaction(bare):
                    for leaf in cited:
                        bare.execute(
                            "INSERT OR IGNORE INTO rows VALUES (?, ?, ?)", (leaf, sid, ordinal)
                        )
                        ordinal += 1

    ours_write, bare_write = timed(write_ours), timed(write_bare)
    turns = sum(len(t) for _s, t in work)
    print("\n1. write (one transaction per turn)")
    print(
        f"  record_session {ours_write / turns * 1e6:8.1f} us/turn   bare insert "
        f"{bare_write / turns * 1e6:8.1f} us/turn   ratio {ours_write / bare_write:.2f}"
    )
    return ours_write


def bench_spool(tmp: Path, work: Workload, direct: float) -> None:
    """1b. The ask path's write: each turn's capture spooled, then drained, vs. writing the
    rows directly (``direct`` seconds, from :func:`bench_write`)."""
    store = open_database(tmp / "spooled-store.db", STORE_MIGRATIONS)
    sessions = open_database(tmp / "sessions.db", SESSIONS_MIGRATIONS)
    ensure_schema(store)
    spooled = drained = 0.0
    for sid, turns in work:
        for n, cited in enumerate(turns):
            started = time.perf_counter()
            with transaction(sessions):
                spool(sessions, f"{sid}-{n:06d}", sid, "0123456789abcdef:bench.ipynb", cited)
            middle = time.perf_counter()
            drain(sessions, store)
            spooled, drained = spooled + middle - started, drained + time.perf_counter() - middle
    rows = store.execute("SELECT count(*) FROM record_session").fetchone()[0]
    assert rows == sum(len({c for t in turns for c in t}) for _s, turns in work)
    assert drain(sessions, store).written == 0  # nothing left, nothing written twice
    count = sum(len(t) for _s, t in work)
    print(
        f"  spool + drain  {(spooled + drained) / count * 1e6:8.1f} us/turn   (spool "
        f"{spooled / count * 1e6:.1f}, drain {drained / count * 1e6:.1f})   ratio to "
        f"record_session {(spooled + drained) / direct:.2f}"
    )
    store.close()
    sessions.close()


def bench_rebuild(conn: sqlite3.Connection, work: Workload, total: int, seed: int) -> None:
    """2. Rebuilds (full, idempotent re-run, after 1% more rows) vs. the bare scan they read."""

    def scan() -> None:
        conn.execute("SELECT session_id, ordinal, content_hash FROM record_session").fetchall()

    baseline = min(timed(scan) for _ in range(3))
    full = rebuild_related(conn)
    conn.execute("DELETE FROM related_hashes")
    conn.execute("DELETE FROM related_builds")
    report = None

    def build() -> None:
        nonlocal report
        report = rebuild_related(conn)

    first = timed(build)
    assert report is not None and report.edges == full.edges
    again = timed(build)
    assert report.inserted == report.updated == report.deleted == 0
    extra = workload(total // 100, max(len(work) // 100, 1), seed + 1)
    for sid, turns_ in extra:
        for n, cited in enumerate(turns_):
            record_session(
                conn,
                session_id="x" + sid,
                transcript_ref=None,
                capture_batch_id=f"x{sid}-{n}",
                chunks=[(leaf, "text") for leaf in cited],
            )
    grown = timed(build)
    distinct = conn.execute("SELECT count(DISTINCT content_hash) FROM record_session").fetchone()[0]
    edges = conn.execute("SELECT count(*) FROM related_hashes").fetchone()[0]
    print(f"\n2. rebuild (window {DEFAULT_WINDOW}, fanout {DEFAULT_FANOUT})")
    print(f"  bare scan of the substrate   {baseline * 1000:9.1f} ms")
    print(f"  full build, empty index      {first * 1000:9.1f} ms   ratio {first / baseline:6.1f}")
    print(f"  re-run, nothing new          {again * 1000:9.1f} ms   ratio {again / baseline:6.1f}")
    print(f"  re-run after +1% rows        {grown * 1000:9.1f} ms   ratio {grown / baseline:6.1f}")
    print(
        f"  {edges:,} edges over {distinct:,} chunks "
        f"(cap K*N = {DEFAULT_FANOUT * distinct:,}; clique would be {distinct * (distinct - 1):,})"
    )
    assert edges <= DEFAULT_FANOUT * distinct


def bench_lookup(conn: sqlite3.Connection, work: Workload, seed: int) -> None:
    """3. ``related_edges`` for one turn's cited leaves, median of 200."""
    version = index_version(DEFAULT_WINDOW, DEFAULT_FANOUT)
    rng = random.Random(seed)
    samples = []
    for _ in range(200):
        _sid, turns_ = rng.choice(work)
        cited = rng.choice(turns_)
        started_at = time.perf_counter()
        related_edges(conn, cited, version=version, limit=10)
        samples.append(time.perf_counter() - started_at)
    print("\n3. lookup")
    print(f"  related_edges for one turn   median {statistics.median(samples) * 1e6:7.1f} us")


if __name__ == "__main__":
    main()
