"""A document's path under the user's home is stored as ``~/…`` in every field, by one rule
(:func:`arborist._pathref.home_relative`), and found again as the same document."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arborist import Arborist
from arborist._pathref import expand_home, home_relative
from arborist._store.loaders import file_uri, load_path, local_path

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's home folder (``$HOME``) in a temp folder, with ``papers/notes.md`` in it."""
    folder = tmp_path / "alice-home"
    (folder / "papers").mkdir(parents=True)
    (folder / "papers" / "notes.md").write_text(
        "Oak trees drop their acorns in autumn, and jays bury them.\n", encoding="utf-8"
    )
    (folder / "papers" / "untitled.txt").write_text(
        "Beech trees mast every few years.\n", encoding="utf-8"
    )
    monkeypatch.setenv("HOME", str(folder))
    return folder


def _every_byte(home: Path) -> bytes:
    """store.db, sessions.db and their -wal and -shm files, read raw."""
    return b"".join(p.read_bytes() for p in sorted(home.iterdir()) if ".db" in p.name)


def test_a_path_under_the_home_becomes_a_tilde_path_and_one_outside_stays(
    user_home: Path, tmp_path: Path
) -> None:
    assert home_relative(str(user_home / "papers" / "notes.md")) == "~/papers/notes.md"
    assert home_relative(str(user_home)) == "~"
    beside = str(tmp_path / "alice-home2" / "notes.md")  # shares the home's characters only
    assert home_relative(beside) == beside
    assert home_relative("/etc/hosts") == "/etc/hosts"
    assert expand_home("~/papers/notes.md") == str(user_home / "papers" / "notes.md")
    assert expand_home("/etc/hosts") == "/etc/hosts"


def test_a_file_under_the_home_is_named_by_a_tilde_uri_that_reads_the_same_file(
    user_home: Path, tmp_path: Path
) -> None:
    notes = user_home / "papers" / "notes.md"
    assert file_uri(notes) == "file:~/papers/notes.md"
    assert local_path(file_uri(notes)) == notes
    spaced = user_home / "my papers" / "a b.md"
    spaced.parent.mkdir()
    spaced.write_text("Ash keys spin.\n", encoding="utf-8")
    assert file_uri(spaced) == "file:~/my%20papers/a%20b.md"
    assert local_path(file_uri(spaced)) == spaced
    outside = tmp_path / "elsewhere.md"
    outside.write_text("Elms.\n", encoding="utf-8")
    assert file_uri(outside) == outside.resolve().as_uri()
    assert load_path(outside).uri == outside.resolve().as_uri()


def test_ingest_stores_no_home_path_in_any_field_and_finds_the_same_document_again(
    user_home: Path, home: Path
) -> None:
    notes = user_home / "papers" / "notes.md"
    with Arborist(home) as app:
        first = app.ingest([str(notes), str(user_home / "papers")])
        assert [r.document.uri for r in first] == [
            "file:~/papers/notes.md",
            "file:~/papers/untitled.txt",
        ]
        again = app.ingest([str(notes)])
        assert again[0].status == "unchanged" and again[0].document.id == first[0].document.id
        assert app.search("acorns")[0].uri == "file:~/papers/notes.md"
        session = app.new_session()
        app.ask_turn("When do oak trees drop their acorns?", sid=session.sid)
        app.evict(str(notes), "cold")  # found by the path as typed
        assert app.rehydrate("~/papers/notes.md").changed == 1
        assert app.verify().ok
        assert (home / "store.db-wal").exists() and (home / "sessions.db-wal").exists()
        while_open = _every_byte(home)
    assert str(user_home).encode() not in while_open, "nor while open, -wal files included"
    blob = _every_byte(home)
    assert str(user_home).encode() not in blob, "no byte of either store holds the home path"
    assert b"file:~/papers/notes.md" in blob
    conn = sqlite3.connect(home / "store.db")
    try:
        (title,) = conn.execute(
            "SELECT title FROM documents WHERE uri = 'file:~/papers/untitled.txt'"
        ).fetchone()
    finally:
        conn.close()
    assert title == "untitled.txt"


def test_the_cli_stores_a_tilde_path_for_a_file_named_under_the_home(
    user_home: Path, home: Path
) -> None:
    env = {**os.environ, "HOME": str(user_home), "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), "ingest", "papers/notes.md"],
        cwd=user_home,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "file:~/papers/notes.md" in run.stdout and str(user_home) not in run.stdout
    assert str(user_home).encode() not in _every_byte(home)
