"""``verify`` runs SQLite's own checks (``PRAGMA integrity_check``, FTS5's
``integrity-check``) on a thread of their own, beside the hashing: the same
findings, in the same order, as when they run in place, and a damaged file
found there marks the caller's connection damaged just as in place.

Real files: a home built through the facade, then edited with a plain
``sqlite3`` connection as anyone holding the files could.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from arborist import Arborist
from arborist._database import integrity
from arborist._database.db import connect, transaction
from arborist._database.integrity import FileChecks
from arborist._errors import DamagedDatabase
from arborist._forest.verify import SESSIONS_FTS, verify_forest
from arborist._store.verify import STORE_FTS, verify_store

DOCS = {
    "tides.md": "# Tides\n\nTides rise and fall twice a day because the moon pulls the oceans.\n\n"
    "## Spring tides\n\nSpring tides happen when the sun and moon align.\n",
    "volcano.md": "# Volcanoes\n\nA volcano erupts when magma rises through the crust.\n\n"
    "## Lava\n\nLava is magma that reached the surface of the earth.\n",
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("apart")
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    home = root / "home"
    with Arborist(home) as app:
        app.ingest([root / name for name in DOCS])
        first = app.ask_turn("Why do tides rise?", sid=None, llm="extractive")
        app.ask_turn("What is lava?", sid=first.node.sid, llm="extractive")
    return home


@pytest.fixture
def home(pristine: Path, tmp_path: Path) -> Path:
    target = tmp_path / "home"
    shutil.copytree(pristine, target)
    return target


def edit(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    for sql in statements:
        conn.execute(sql)
    conn.close()


def garble_root_page(path: Path, name: str) -> None:
    """Garbage over the root page of table or index ``name``."""
    conn = sqlite3.connect(path)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with path.open("r+b") as f:
        f.seek((root - 1) * size)
        f.write(bytes([0x5A]) * size)


def both_ways(
    conn: sqlite3.Connection, verify: Callable[..., Any], tables: tuple[str, ...]
) -> tuple[tuple[tuple[str, ...], Any], tuple[tuple[str, ...], Any]]:
    """``verify``'s findings (problems and chain report) with the checks in place, then
    with them apart."""
    in_place = verify(conn)
    with ThreadPoolExecutor(1) as pool:
        apart = verify(conn, (), FileChecks(conn, tables, pool))
    return (in_place.problems, in_place.chain), (apart.problems, apart.chain)


def test_a_tampered_store_gives_the_same_lines_in_the_same_order_either_way(home: Path) -> None:
    store = home / "store.db"
    # a chunk's text edited under its index (its leaf and FTS5's check see it), an event
    # edited (the chain and the document's check see it), an index page garbled (only
    # SQLite's integrity check sees it)
    edit(
        store,
        "UPDATE chunks SET text = text || ' and the wind' WHERE id = (SELECT min(id) FROM chunks)",
        "UPDATE audit_events SET created_at = '1999-01-01T00:00:00Z' WHERE seq = 2",
    )
    garble_root_page(store, "sqlite_autoindex_cache_evidence_1")
    conn = connect(store)
    in_place, apart = both_ways(conn, verify_store, STORE_FTS)
    conn.close()
    assert apart == in_place
    problems, chain = apart
    kinds = ("SQLite integrity check", "text does not match its leaf", "search index chunks_fts")
    for kind in (*kinds, "differs from its document_add event"):
        assert any(kind in line for line in problems), (kind, problems)
    assert problems[0].startswith("SQLite integrity check"), "SQLite's lines come first"
    assert not chain.ok


def test_a_tampered_forest_gives_the_same_lines_in_the_same_order_either_way(home: Path) -> None:
    sessions = home / "sessions.db"
    edit(
        sessions,
        "UPDATE nodes SET answer_text = 'something else entirely' WHERE seq = 1",
        "DELETE FROM sessions",
    )
    garble_root_page(sessions, "sqlite_autoindex_nodes_1")
    conn = connect(sessions)
    in_place, apart = both_ways(conn, verify_forest, SESSIONS_FTS)
    conn.close()
    assert apart == in_place
    problems, _chain = apart
    for kind in ("SQLite integrity check", "answer_text differs", "search index", "session "):
        assert any(kind in line for line in problems), (kind, problems)


def test_damage_found_apart_marks_the_callers_connection(home: Path) -> None:
    """The garbled page is an index ``verify``'s own reads never touch: only the check on
    the other thread sees it, and still nothing more is written through the app's connection."""
    garble_root_page(home / "store.db", "cache_evidence_document")
    with Arborist(home) as app:
        result = app.verify()
        assert any("SQLite integrity check" in line for line in result.store.problems)
        conn = app.store_conn
        assert getattr(conn, "damage", None), "the damage was handed back to the caller"
        with pytest.raises(DamagedDatabase, match=r"store\.db is damaged"), transaction(conn):
            raise AssertionError("never reached")


def test_the_checks_run_on_another_thread_unless_the_file_cannot_be_reopened(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    original = integrity.integrity_problems

    def spy(conn: sqlite3.Connection, *args: int) -> list[str]:
        seen.append(threading.current_thread().name)
        return original(conn, *args)

    monkeypatch.setattr(integrity, "integrity_problems", spy)
    conn = connect(home / "sessions.db")
    with ThreadPoolExecutor(1, thread_name_prefix="beside") as pool:
        assert verify_forest(conn, (), FileChecks(conn, SESSIONS_FTS, pool)).ok
        assert seen[-1].startswith("beside"), seen
        # inside a transaction, another connection would not see what this one holds
        conn.execute("BEGIN")
        assert verify_forest(conn, (), FileChecks(conn, SESSIONS_FTS, pool)).ok
        conn.execute("ROLLBACK")
        assert seen[-1] == threading.current_thread().name, seen
    conn.close()


def test_cited_titles_nested_past_the_parser_name_the_turn_and_verify_goes_on(home: Path) -> None:
    """An edit that nests a turn's cited titles deeper than JSON's parser goes is one turn's
    problem: verify names it and still checks everything else (it used to stop there, with
    one line for the whole home)."""
    deep = "[" * 200_000 + "]" * 200_000
    conn = sqlite3.connect(home / "sessions.db", isolation_level=None)
    (bates,) = conn.execute("SELECT bates FROM nodes WHERE seq = 1 LIMIT 1").fetchone()
    conn.execute("UPDATE nodes SET cited_titles_json = ? WHERE bates = ?", (deep, bates))
    conn.close()
    edit(home / "store.db", "UPDATE chunks SET text = text || '!' WHERE id = (SELECT min(id) FROM chunks)")  # fmt: skip
    with Arborist(home) as app:
        report = app.verify()
    lines = [*report.forest.problems, *report.store.problems]
    assert f"turn {bates}: n_cited_sources does not count its cited titles" in lines, lines
    assert any(line.startswith("chunk ") and "leaf" in line for line in report.store.problems), (
        lines
    )
