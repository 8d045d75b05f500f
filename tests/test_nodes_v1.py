"""``nodes_v1``: the first design's ``nodes`` table, readable as a view (docs/design.md
section 5), against the real tables of a real sessions.db."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist import Arborist
from arborist._faces.cli import cli

COLUMNS = [  # the first design's nodes, in its order
    "bates", "sid", "seq", "parent_bates", "question", "answer_text", "cache_key", "audit_mode",
    "cited_titles_json", "n_cited_sources", "created_at", "label", "node_hash", "subtree_hash",
]  # fmt: skip
NATIVE = ", ".join(f"n.{c}" for c in COLUMNS[:-1])


@pytest.fixture
def forest(tmp_path: Path) -> Path:
    """A home with two sessions, a fork across them, labels (one renamed) and a deep thread."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tides.md").write_text(
        "# Tides\n\nTides rise and fall twice a day because the moon pulls the oceans.\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        one = app.new_session("one")
        first = app.ask_turn("why do tides rise", sid=one.sid, label="start")
        for i in range(4):
            app.ask_turn(f"and then {i}?", sid=one.sid)
        two = app.new_session("two")
        app.cd(two.sid, first.node.bates)
        fork = app.ask_turn("what pulls the oceans", sid=two.sid)
        app.label(two.sid, "renamed", fork.node.bates)
    return home


def _check_agrees(conn: sqlite3.Connection) -> int:
    """Every row of the view against ``nodes`` and ``node_links``; the rows checked."""
    cursor = conn.execute("SELECT * FROM nodes_v1 ORDER BY bates")
    assert [d[0] for d in cursor.description] == COLUMNS
    view = cursor.fetchall()
    real = conn.execute(
        f"SELECT {NATIVE}, l.subtree_hash FROM nodes AS n JOIN node_links AS l ON l.id = n.id "
        "ORDER BY n.bates"
    ).fetchall()
    assert len(view) == len(real) == conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    for shown, (*fields, raw) in zip(view, real, strict=True):
        assert list(shown[:-1]) == fields
        assert re.fullmatch("[0-9a-f]{64}", shown[-1]) and bytes.fromhex(shown[-1]) == raw
    return len(view)


def test_every_row_of_the_view_agrees_with_the_real_tables(forest: Path) -> None:
    with Arborist(forest) as app:
        conn = app.sessions_conn
        assert _check_agrees(conn) == 8  # two roots and six turns
        for bates, subtree in conn.execute("SELECT bates, subtree_hash FROM nodes_v1"):
            assert app.node(bates).subtree_hash == subtree  # what every face shows
        sid, tip = conn.execute(
            "SELECT sid, current_bates FROM sessions WHERE label = 'one'"
        ).fetchone()
        before = dict(conn.execute("SELECT bates, subtree_hash FROM nodes_v1").fetchall())
        app.ask_turn("one more?", sid=sid)  # the ripple shows at once, up to the root
        after = dict(conn.execute("SELECT bates, subtree_hash FROM nodes_v1").fetchall())
        changed = {b for b in before if after[b] != before[b]}
        assert tip in changed and len(after) == len(before) + 1 and _check_agrees(conn) == 9
        plan = conn.execute("EXPLAIN QUERY PLAN SELECT * FROM nodes_v1 WHERE bates = ?", (tip,))
        steps = [row[3] for row in plan]  # a lookup by bates, the old key, is an index probe
        assert "USING INDEX" in steps[0] and not any("SCAN" in step for step in steps)
        labels = dict(conn.execute("SELECT label, bates FROM nodes_v1 WHERE label IS NOT NULL"))
        assert set(labels) == {"start", "renamed"}  # the current label, as the first design's


@pytest.mark.parametrize(
    "write",
    [
        "INSERT INTO nodes_v1 (bates) VALUES ('x')",
        "UPDATE nodes_v1 SET question = 'changed'",
        "DELETE FROM nodes_v1",
    ],
)
def test_the_view_cannot_be_written(forest: Path, write: str) -> None:
    conn = sqlite3.connect(forest / "sessions.db")
    try:
        before = conn.execute("SELECT * FROM nodes_v1 ORDER BY bates").fetchall()
        with pytest.raises(sqlite3.OperationalError, match="cannot modify nodes_v1"):
            conn.execute(write)
        assert conn.execute("SELECT * FROM nodes_v1 ORDER BY bates").fetchall() == before
    finally:
        conn.close()


def test_a_home_from_before_the_view_gains_it_on_open_and_verifies(forest: Path) -> None:
    conn = sqlite3.connect(forest / "sessions.db", isolation_level=None)
    try:  # the sessions.db an arborist without migration 6 (nor the 7th, after it) wrote
        conn.execute("DROP VIEW nodes_v1")
        conn.execute("DROP TABLE cell_turns")
        conn.execute("DELETE FROM schema_migrations WHERE version >= 6")
        assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone() == (5,)
    finally:
        conn.close()
    with Arborist(forest) as app:
        assert _check_agrees(app.sessions_conn) == 8
        assert app.verify().ok
    result = CliRunner().invoke(cli, ["verify"], env={"ARBORIST_HOME": str(forest)})
    assert result.exit_code == 0, result.output
