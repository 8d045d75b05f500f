"""The text tree stays readable however deep a session goes (issue #35): past
``DRAWN_LEVELS`` levels a line draws the top levels, then its depth as a number."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arborist._database.migrations import open_database
from arborist._forest.nodes import Node, get_session
from arborist._forest.render import DRAWN_LEVELS, capped, render_tree
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._forest.shard import create_session, insert_turn

KEY = "ab" * 32


@pytest.fixture
def shard(tmp_path: Path) -> sqlite3.Connection:
    return open_database(tmp_path / "sessions.db", SESSIONS_MIGRATIONS)


def ask(conn: sqlite3.Connection, sid: str, parent: str, question: str) -> Node:
    return insert_turn(
        conn,
        sid,
        parent,
        question=question,
        answer_text=f"answer to {question}",
        cache_key=KEY,
        audit_mode="STRICT",
        cited_titles=[],
    )


def mode(node: Node) -> str:
    return node.audit_mode


def prefix(line: str) -> str:
    """What a line draws before its turn's name."""
    return line[: line.index("#")]


def test_a_200_deep_chain_renders_as_narrow_lines_that_say_their_depth(
    shard: sqlite3.Connection,
) -> None:
    s = create_session(shard)
    parent = s.root_bates
    for depth in range(1, 201):
        parent = ask(shard, s.sid, parent, f"question at depth {depth}").bates
    lines = render_tree(shard, get_session(shard, s.sid), audit=mode, short=True).splitlines()[1:]
    assert len(lines) == 200
    widest = max(len(prefix(line)) for line in lines)
    assert widest <= 4 * DRAWN_LEVELS + 8, widest  # drawn, 200 levels would take 800 columns
    # The drawn levels read as before; the deeper ones say how deep they are, in order.
    assert lines[0] == "└── #1  question at depth 1  [STRICT]"
    assert lines[1] == "    └── #2  question at depth 2  [STRICT]"
    assert "‹" not in lines[DRAWN_LEVELS - 1]
    for depth in range(DRAWN_LEVELS + 1, 201):
        line = lines[depth - 1]
        assert f"‹{depth}› └── " in line and f"question at depth {depth} " in line, line
    assert lines[-1].startswith(" " * 4 * (DRAWN_LEVELS - 1) + "‹200› └── * #200")


def test_a_deep_tree_with_branches_keeps_the_bars_of_its_top_levels(
    shard: sqlite3.Connection,
) -> None:
    """Each level has a leaf first and then the turn that goes on: the top levels keep
    their bars (a sibling follows further down); the deep lines keep the top's drawing."""
    s = create_session(shard)
    parent = s.root_bates
    for depth in range(1, 41):
        goes_on = ask(shard, s.sid, parent, f"on {depth}").bates
        ask(shard, s.sid, parent, f"leaf {depth}")
        parent = goes_on
    lines = render_tree(shard, get_session(shard, s.sid), audit=mode, short=True).splitlines()[1:]
    assert len(lines) == 80
    assert max(len(prefix(line)) for line in lines) <= 4 * DRAWN_LEVELS + 8
    deep = next(line for line in lines if "on 30 " in line)
    assert deep.startswith("│   " * (DRAWN_LEVELS - 1) + "‹30› ├── "), deep


def test_capped_leaves_a_shallow_indent_alone_and_numbers_a_deep_one() -> None:
    shallow = "│   " * (DRAWN_LEVELS - 1)
    assert capped(shallow) == shallow
    assert capped("    " * 199) == "    " * (DRAWN_LEVELS - 1) + "‹200› "
