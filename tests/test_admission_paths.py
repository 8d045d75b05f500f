"""Secrets never get past the admission gate: questions, answers and documents, end to end."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist import Arborist
from arborist._errors import BadInput
from arborist._faces.cli import cli

# Built by concatenation so this file does not itself look like a leaked key.
API_KEY = "sk-" + "proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
AWS_KEY = "AKIA" + "Q3ZLN7V2RKD4WX6M"
DOC = "# Deploy notes\n\nThe deploy script reads the token from the vault before it runs.\n"


def _all_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())


@pytest.fixture
def app(home: Path, tmp_path: Path) -> Arborist:
    (tmp_path / "deploy.md").write_text(
        DOC + f"\nOld config: aws key {AWS_KEY} (rotated).\n", encoding="utf-8"
    )
    with Arborist(home) as arborist:
        arborist.ingest([str(tmp_path / "deploy.md")])
        yield arborist  # type: ignore[misc]


def test_a_pasted_api_key_is_stored_indexed_exported_and_shown_only_as_a_placeholder(
    app: Arborist, home: Path
) -> None:
    session = app.new_session()
    turn = app.ask_turn(f"Why does the deploy fail with key {API_KEY}?", sid=session.sid)
    assert API_KEY not in turn.node.question
    assert "[REDACTED:openai_key]" in turn.node.question
    assert "[REDACTED:openai_key]" in app.tree(session.sid) or "REDACTED" in turn.node.question
    assert API_KEY not in json.dumps(app.export_session(session.sid))
    assert app.find("REDACTED")
    code = CliRunner().invoke(cli, ["session", "--export", session.sid])
    assert API_KEY not in code.stdout
    app.close()
    blob = _all_bytes(home)
    assert API_KEY.encode() not in blob, "the key is nowhere in the database files"
    assert AWS_KEY.encode() not in blob
    events = (
        sqlite3.connect(home / "store.db")
        .execute(
            "SELECT body FROM audit_events WHERE event_type IN ('cache_write', 'document_add')"
        )
        .fetchall()
    )
    recorded = [json.loads(b)["redactions"] for (b,) in events if "redactions" in json.loads(b)]
    assert recorded, "each redaction is recorded (kind and position), never the secret"
    assert all(API_KEY not in json.dumps(r) for r in recorded)


def test_a_document_that_is_mostly_secret_is_refused_and_nothing_is_written(
    app: Arborist, tmp_path: Path
) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text("\n".join(f"{API_KEY}{i}" for i in range(20)), encoding="utf-8")
    before = app.store_conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    with pytest.raises(BadInput, match="mostly secret"):
        app.ingest([str(keys)])
    assert app.store_conn.execute("SELECT count(*) FROM documents").fetchone()[0] == before


def test_the_allowlist_lets_a_false_positive_through(home: Path, tmp_path: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[admission]\nallowlist = ["{AWS_KEY}"]\n', encoding="utf-8")
    (tmp_path / "example.md").write_text(
        f"# Example\n\nThe documented example key is {AWS_KEY}.\n", encoding="utf-8"
    )
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "example.md")])
        assert app.search(AWS_KEY.lower()), "the allowlisted string is stored and searchable"
