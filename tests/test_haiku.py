"""A derivation may be a haiku, the seeds' third core kind (haiku, equation, snippet), on a
new store and on one written before store migration 12 widened the kind's CHECK."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arborist._errors import BadInput
from arborist._facade.app import Arborist

DOC = "# Medians\n\nThe median is the middle value of sorted data.\n"
HAIKU = "Sorted in a row\nthe middle one speaks for all\nhalfway, the median"
THREE = "CHECK (kind IN ('snippet', 'equation', 'summary'))"
FOUR = "CHECK (kind IN ('snippet', 'equation', 'summary', 'haiku'))"


def undo_haiku_kind(path: Path) -> None:
    """Put a store's derivations table back to migration 2's three kinds, as a store of
    schema 11 has it (migration 12's history row goes too)."""
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    version = raw.execute("PRAGMA schema_version").fetchone()[0]
    raw.execute("PRAGMA writable_schema = ON")
    raw.execute(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = 'derivations'",
        (FOUR, THREE),
    )
    raw.execute(f"PRAGMA schema_version = {version + 1}")
    raw.execute("PRAGMA writable_schema = OFF")
    raw.execute("DELETE FROM schema_migrations WHERE version = 12")
    raw.execute("COMMIT")
    raw.close()


def _asked(home: Path, tmp_path: Path) -> str:
    (tmp_path / "median.md").write_text(DOC, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "median.md")])
        return app.ask("What is the median?").cache_key


def test_a_haiku_is_saved_and_verified(home: Path, tmp_path: Path) -> None:
    key = _asked(home, tmp_path)
    with Arborist(home) as app:
        saved = app.derive("haiku", key, HAIKU)
        assert saved.core.uri.startswith("core:haiku:") and saved.core.kind == "core"
        assert app.verify().ok
        with pytest.raises(BadInput, match="a haiku is three lines"):
            app.derive("haiku", key, "one line is not a haiku")
        distilled = app.derive("haiku", key)  # none given: the offline model distils one
        assert len(distilled.text.splitlines()) == 3 and app.verify().ok
        with pytest.raises(BadInput, match="the offline model does not write a summary"):
            app.derive("summary", key)
    done = subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), "derive", "haiku", "--from",
         key, "--text", HAIKU.replace("speaks", "stands")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "saved haiku (hand-written) core:haiku:" in done.stdout  # the user typed it


def test_a_store_from_before_migration_12_takes_a_haiku_once_migrated(
    home: Path, tmp_path: Path
) -> None:
    key = _asked(home, tmp_path)
    with Arborist(home) as app:
        app.derive("summary", key, "The median is the middle value.")
    undo_haiku_kind(home / "store.db")
    raw = sqlite3.connect(home / "store.db")
    with pytest.raises(sqlite3.IntegrityError), raw:  # the old rule really refuses a haiku
        raw.execute(
            "INSERT INTO derivations (core_document_id, kind, derived_from, "
            "derivation_hash, created_at) SELECT id, 'haiku', '', '', '' FROM documents "
            "WHERE kind = 'surface' LIMIT 1"
        )
    raw.close()
    with Arborist(home) as app:
        app.derive("haiku", key, HAIKU)  # migration 12 runs on open
        assert app.verify().ok
    raw = sqlite3.connect(home / "store.db")
    sql = raw.execute("SELECT sql FROM sqlite_master WHERE name = 'derivations'").fetchone()[0]
    raw.close()
    assert FOUR in sql and THREE not in sql
