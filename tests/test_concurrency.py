"""The concurrency suite: four processes share one home for a bounded time.

Each runs :mod:`tests.crash_writer` with every operation weighed alike —
ingests and new versions, asks, forks across sessions, labels, falsifications,
co-access rebuilds, finds and searches — journaling what it finished. Then:

* nothing is lost: every finished ingest's document and every finished
  ask's turn is in the home;
* no seq is reused: bates numbers are unique, each session's seqs are
  distinct and below its ``next_seq``;
* the chains are unforked and ``verify`` is clean;
* the operations per second are printed.

10 seconds in ``make test``, 120 with ``--long``.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arborist import Arborist
from tests.test_crash import ROOT, _check_journal, _integrity, _journal

WRITERS = 4


def test_four_processes_mixing_every_operation_lose_nothing(
    tmp_path: Path, long_run: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    seconds = 120 if long_run else 10
    seed = int(os.environ.get("ARBORIST_CONCURRENCY_SEED", random.randrange(2**31)))
    print(f"concurrency suite: {WRITERS} processes for {seconds} s, seed {seed}")
    home, corpus = tmp_path / "home", tmp_path / "corpus"
    corpus.mkdir()
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    env = {**os.environ, "ARBORIST_HOME": str(home)}
    with Arborist(home) as app:  # one session to share, and the schema in place
        app.new_session("shared")
    journals = [tmp_path / f"journal-{n}" for n in range(WRITERS)]
    started = time.monotonic()
    writers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.crash_writer",
                str(home),
                str(corpus),
                str(seed + n),
                str(journal),
                "mixed",
                str(seconds),
            ],
            cwd=ROOT,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n, journal in enumerate(journals)
    ]
    errors = [w.communicate(timeout=seconds + 300)[1] for w in writers]
    elapsed = time.monotonic() - started
    assert [w.returncode for w in writers] == [0] * WRITERS, "\n".join(errors)

    finished = [op for journal in journals for op, *_ in _journal(journal)[0]]
    problems = _integrity(home)
    with Arborist(home) as app:
        verification = app.verify()
        problems += verification.problems
        for journal in journals:
            problems += _check_journal(app, journal)
        conn = app.sessions_conn
        problems += [
            f"session {sid} reuses seq {seq}"
            for sid, seq in conn.execute(
                "SELECT sid, seq FROM nodes GROUP BY sid, seq HAVING count(*) > 1"
            )
        ]
        problems += [
            f"session {sid}: next_seq {nxt} is not above its last seq {top}"
            for sid, nxt, top in conn.execute(
                "SELECT s.sid, s.next_seq, max(n.seq) FROM sessions AS s "
                "JOIN nodes AS n ON n.sid = s.sid GROUP BY s.sid HAVING s.next_seq <= max(n.seq)"
            )
        ]
        turns = conn.execute("SELECT count(*) FROM nodes WHERE seq > 0").fetchone()[0]
    counts = {op: finished.count(op) for op in sorted(set(finished))}
    print(
        f"  {len(finished)} operations in {elapsed:.1f} s = {len(finished) / elapsed:.1f} ops/s "
        f"({', '.join(f'{op} {n}' for op, n in counts.items())}); {turns} turns"
    )
    assert not problems, "\n".join(problems[:20])
    assert turns == counts.get("ask", 0) + counts.get("fork", 0), "a turn lost or doubled"
    assert {"ingest", "ask", "fork", "label", "find"} <= set(counts), counts
    assert verification.store.chain.ok and verification.forest.chain.ok
