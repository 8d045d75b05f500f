"""A turn's co-access capture survives a kill -9 (docs/design.md section 7).

The capture is spooled in the sessions.db transaction that writes the turn and
drained into store.db after; a real process is killed with SIGKILL between the
two writes (:mod:`tests.coaccess_kill`), and the next process replays it:
its rows present exactly once, whichever of the two writes the kill fell after.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arborist import Arborist
from arborist._database.db import transaction
from arborist._store.coaccess_spool import Drained, drain, pending, spool
from tests.test_coaccess import TOPICS

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "why do tides rise"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in TOPICS.items():  # the vault's key abstains: it is never recorded
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _rows(store: sqlite3.Connection, batch: str) -> list[tuple[str, int]]:
    return store.execute(
        "SELECT content_hash, ordinal FROM record_session WHERE capture_batch_id = ? "
        "ORDER BY ordinal",
        (batch,),
    ).fetchall()


def _count(conn: sqlite3.Connection, table: str) -> int:
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] if exists else 0


def _killed(home: Path, point: str) -> None:
    """Run the asking process, and see it die by SIGKILL at ``point``."""
    env = {**os.environ, "ARBORIST_HOME": str(home), "ARBORIST_COACCESS": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "tests.coaccess_kill", str(home), point, QUESTION],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == -signal.SIGKILL, run.stderr


def _expected(home: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The leaves the same turn records in a home no kill touched, in order."""
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        turn = app.ask_turn(QUESTION, session_label="whole")
        leaves = [leaf for leaf, _ordinal in _rows(app.store_conn, turn.node.bates)]
    assert leaves, "the question cites nothing: the test would prove nothing"
    return leaves


@pytest.mark.parametrize("point", ["turn", "rows"])
def test_a_kill_between_the_turn_and_its_rows_loses_nothing_and_writes_nothing_twice(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    expected = _expected(tmp_path / "whole", corpus, monkeypatch)
    home = tmp_path / "killed"
    with Arborist(home) as app:
        app.ingest([str(corpus)])
    _killed(home, point)
    with Arborist(home) as app:  # what the kill left, read without draining
        (bates,) = app.sessions_conn.execute(
            "SELECT bates FROM nodes WHERE question = ?", (QUESTION,)
        ).fetchone()
        assert [c.capture_batch_id for c in pending(app.sessions_conn)] == [bates]
        held = _count(app.store_conn, "record_session")  # the store has no table before one
        assert held == (0 if point == "turn" else len(expected))
    env = {**os.environ, "ARBORIST_HOME": str(home), "ARBORIST_COACCESS": "1"}
    related = subprocess.run(  # the next process replays it
        [sys.executable, "-m", "arborist", "related", bates, "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert related.returncode == 0, related.stderr
    assert json.loads(related.stdout)["sources"] == expected
    with Arborist(home) as app:
        store = app.store_conn
        assert [leaf for leaf, _ in _rows(store, bates)] == expected  # once each, in order
        assert [o for _, o in _rows(store, bates)] == list(range(len(expected)))
        assert _count(store, "record_session") == len(expected)
        assert store.execute("SELECT capture_batch_id FROM coaccess_drained").fetchall() == [
            (bates,)
        ]
        assert pending(app.sessions_conn) == [] and app.verify().ok


def test_a_second_drain_writes_nothing(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    with Arborist(tmp_path / "h") as app:
        app.ingest([str(corpus)])
        turn = app.ask_turn(QUESTION, session_label="one")
        sessions, store = app.sessions_conn, app.store_conn
        rows = store.execute("SELECT * FROM record_session ORDER BY 1, 2").fetchall()
        marks = store.execute("SELECT * FROM coaccess_drained").fetchall()
        assert rows and [m[:2] for m in marks] == [(turn.node.bates, len(rows))]
        changes = (store.total_changes, sessions.total_changes)
        assert drain(sessions, store) == Drained(0, 0, 0)  # nothing spooled: only a read
        assert (store.total_changes, sessions.total_changes) == changes
        # The spool as a kill after the rows' commit leaves it: the capture drained again.
        leaves = [r[0] for r in rows]
        with transaction(sessions):
            spool(sessions, turn.node.bates, turn.node.sid, None, leaves)
        assert drain(sessions, store) == Drained(0, 1, 0)
        assert store.execute("SELECT * FROM record_session ORDER BY 1, 2").fetchall() == rows
        assert store.execute("SELECT * FROM coaccess_drained").fetchall() == marks
        assert pending(sessions) == []


def test_captures_left_by_kills_drain_oldest_first_before_the_next_turns(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "h"
    with Arborist(home) as app:
        app.ingest([str(corpus)])
    _killed(home, "turn")
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    with Arborist(home) as app:
        (sid, first) = app.sessions_conn.execute(
            "SELECT sid, bates FROM nodes WHERE question = ?", (QUESTION,)
        ).fetchone()
        second = app.ask_turn("what are the phases of the moon", sid=sid).node.bates
        order = app.store_conn.execute(
            "SELECT capture_batch_id, min(ordinal) FROM record_session WHERE session_id = ? "
            "GROUP BY capture_batch_id ORDER BY 2",
            (sid,),
        ).fetchall()
    assert [batch for batch, _ in order] == [first, second] and order[0][1] == 0


def test_with_the_flag_off_a_spooled_capture_waits_and_nothing_is_written(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "h"
    with Arborist(home) as app:
        app.ingest([str(corpus)])
    _killed(home, "turn")
    monkeypatch.setenv("ARBORIST_COACCESS", "0")
    with Arborist(home) as app:
        sid = app.sessions_conn.execute("SELECT sid FROM sessions").fetchone()[0]
        app.ask_turn("what is lava", sid=sid)
        assert (
            len(pending(app.sessions_conn)) == 1 and _count(app.store_conn, "record_session") == 0
        )
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    with Arborist(home) as app:
        app.rebuild_related()  # on again: the capture is replayed before the index is built
        assert pending(app.sessions_conn) == [] and _count(app.store_conn, "record_session") > 0


def test_a_capture_spooled_without_leaves_is_not_kept(tmp_path: Path) -> None:
    with Arborist(tmp_path / "h") as app:
        conn = app.sessions_conn
        with transaction(conn):
            spool(conn, "b", "s", None, [])
        assert pending(conn) == []
        assert (
            conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'coaccess_spool'").fetchone()
            is None
        )
