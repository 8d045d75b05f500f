"""The turn each notebook cell showed last, kept in ``sessions.db`` so a kernel restart does
not forget it (issue #35, item 6): re-running a ``%%ask`` cell after Restart lands where its
turn is instead of growing a duplicate.

A row is keyed by the notebook (its keyed path hash, :func:`arborist._pathref.redact_path`:
the home's secret key, so no other notebook can name it) and the front end's cell id, and
holds only the turn's bates and why it was filed there. Everything else a caller trusts (the
turn's session, parent and question) is read from the turn itself, so a row written by hand
can at most name a turn that exists, never say another question was asked where it was.
"""

from __future__ import annotations

import sqlite3

from arborist._database.db import transaction
from arborist._errors import BadReference, NotFound
from arborist._forest.nodes import Node, get_node

__all__ = ["CELL_TURNS_TABLE", "cell_turn", "remember_cell_turn"]

CELL_TURNS_TABLE = """
CREATE TABLE cell_turns (
    notebook  TEXT NOT NULL,
    cell      TEXT NOT NULL,
    bates     TEXT NOT NULL,
    why       TEXT NOT NULL,
    PRIMARY KEY (notebook, cell)
) WITHOUT ROWID;
"""
"""Migration 6 of ``sessions.db``: no foreign key into ``nodes`` (a row is a cache of where
a cell's turn is, checked against the turn on every read, never a claim ``verify`` holds)."""


def remember_cell_turn(
    conn: sqlite3.Connection, notebook: str, cell: str, bates: str, why: str
) -> None:
    """Cell ``cell`` of ``notebook`` showed turn ``bates``, filed there for ``why``."""
    with transaction(conn):
        conn.execute(
            "INSERT INTO cell_turns (notebook, cell, bates, why) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (notebook, cell) DO UPDATE SET bates = excluded.bates, why = excluded.why",
            (notebook, cell, bates, why),
        )


def cell_turn(conn: sqlite3.Connection, notebook: str, cell: str) -> tuple[Node, str] | None:
    """The turn cell ``cell`` of ``notebook`` showed last and why it was filed there; None
    when none is kept, or the turn it names is gone or is a session's root."""
    row = conn.execute(
        "SELECT bates, why FROM cell_turns WHERE notebook = ? AND cell = ?", (notebook, cell)
    ).fetchone()
    if row is None:
        return None
    try:
        node = get_node(conn, row[0])
    except (NotFound, BadReference):
        return None
    return (node, str(row[1])) if node.parent_bates is not None else None
