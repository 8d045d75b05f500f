"""Every text a user or a server can set passes the admission gate, not only documents.

Labels, session labels, falsify reasons, derived texts (and the titles made
from them), and the provider's response metadata stored with an answer: a
secret planted in each must reach no database file and no audit event.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist import Arborist
from arborist._errors import BadInput
from arborist._faces.cli import cli
from tests.chat_server import ChatServer, json_reply
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

# Built by concatenation so this file does not itself look like a leaked key.
API_KEY = "sk-" + "proj-" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
DOC = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"


def _all_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())


def _events(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return json.dumps([row[0] for row in conn.execute("SELECT body FROM audit_events")])
    finally:
        conn.close()


def test_secrets_in_user_set_fields_never_reach_a_file(home: Path, tmp_path: Path) -> None:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
        session = app.new_session(f"session with {API_KEY}")
        assert session.label is not None and API_KEY not in session.label
        turn = app.ask_turn("Who created Spider-Man?", sid=session.sid, label=f"t {GITHUB}")
        assert turn.node.label is not None and "[REDACTED:github_token]" in turn.node.label
        node = app.label(session.sid, f"renamed token={API_KEY}")
        assert node.label is not None and API_KEY not in node.label
        derived = app.derive("summary", turn.node.bates, f"Lee and Ditko; key {API_KEY}")
        assert API_KEY not in derived.core.title
        record = app.falsify(turn.result.cache_key, "failed", f"leaked {GITHUB} in review")
        assert record.state_reason is not None and GITHUB not in record.state_reason
    blob = _all_bytes(home)
    for secret in (API_KEY, GITHUB):
        assert secret.encode() not in blob
        assert secret not in _events(home / "store.db")
        assert secret not in _events(home / "sessions.db")


def test_the_cli_faces_of_those_fields_are_gated_too(home: Path, tmp_path: Path) -> None:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "ingest", str(tmp_path)]).exit_code == 0
    asked = runner.invoke(cli, ["--home", str(home), "ask", "Who created Spider-Man?", "--json"])
    key = json.loads(asked.stdout)["cache_key"]
    for args in (
        ["record", "falsify", key, "--state", "stale", "--reason", f"see {API_KEY}"],
        ["derive", "snippet", "--from", key, "--text", f"Ditko drew it. {GITHUB}"],
    ):
        result = runner.invoke(cli, ["--home", str(home), *args])
        assert result.exit_code == 0, result.output
        assert API_KEY not in result.output and GITHUB not in result.output
    blob = _all_bytes(home)
    assert API_KEY.encode() not in blob and GITHUB.encode() not in blob


def test_provider_metadata_is_gated_before_it_is_stored(
    home: Path, tmp_path: Path, chat_server: ChatServer
) -> None:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    chat_server.script(
        json_reply(
            {
                "id": f"chatcmpl-{GITHUB}",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": "test-model",
                "system_fingerprint": f"fp {API_KEY}",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "Lee and Ditko. [E1]"},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )
    )
    env = {
        "ARBORIST_LLM": "openai",
        "ARBORIST_BASE_URL": chat_server.url,
        "ARBORIST_MODEL": "test-model",
    }
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "ingest", str(tmp_path)]).exit_code == 0
    asked = runner.invoke(cli, ["--home", str(home), "ask", "Who created Spider-Man?"], env=env)
    assert asked.exit_code == 0, asked.output
    with Arborist(home) as app:
        stored = json.dumps(app.records()[0].response)
        assert "REDACTED" in stored  # kept, with the secret replaced
        assert app.verify().ok
    blob = _all_bytes(home)
    assert API_KEY.encode() not in blob and GITHUB.encode() not in blob


def _exported(home: Path, tmp_path: Path) -> tuple[list[dict[str, object]], str]:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
        turn = app.ask_turn("Who created Spider-Man?", sid=None)
        records = app.export_session(turn.node.sid)
    return records, turn.node.sid


def test_an_import_holding_a_secret_or_a_control_is_refused_or_redacted(
    home: Path, tmp_path: Path
) -> None:
    records, sid = _exported(home, tmp_path)
    other = tmp_path / "other"
    header = dict(records[0])
    header["label"] = f"shared {API_KEY}"
    lines = [json.dumps(header), *(json.dumps(r) for r in records[1:])]
    with Arborist(other) as app:
        app.import_sessions(lines)
        label = app.session(sid).label
        assert label is not None and API_KEY not in label and "REDACTED" in label
    assert API_KEY.encode() not in _all_bytes(other)

    for field, value, says in (
        ("question", f"why {API_KEY}?", "holds a secret"),
        ("label", "bad\x1b[2Jlabel", "control characters"),
    ):
        node = dict(records[-1])
        node[field] = value
        tampered = [
            json.dumps(records[0]),
            *(json.dumps(r) for r in records[1:-1]),
            json.dumps(node),
        ]
        fresh = tmp_path / f"fresh-{field}"
        with Arborist(fresh) as app, pytest.raises(BadInput, match=says):
            app.import_sessions(tampered)
        assert API_KEY.encode() not in _all_bytes(fresh)
    header["label"] = "evil\nFORGED"
    with Arborist(tmp_path / "fresh-session") as app, pytest.raises(BadInput, match="control"):
        app.import_sessions([json.dumps(header), *(json.dumps(r) for r in records[1:])])


def test_the_repl_history_file_keeps_no_secret(home: Path) -> None:
    import readline

    from arborist._faces.repl import _save_history

    readline.clear_history()
    readline.add_history(f"why does the deploy fail with password=Hunter2Secret99 and {API_KEY}")
    readline.add_history("/tree")
    history = home / "repl_history"
    home.mkdir(parents=True, exist_ok=True)
    with Arborist(home) as app:
        _save_history(readline, history, app.admitted)
    saved = history.read_text(encoding="utf-8")
    readline.clear_history()
    assert "Hunter2Secret99" not in saved and API_KEY not in saved
    assert "[REDACTED:password]" in saved and "/tree" in saved
    assert history.stat().st_mode & 0o077 == 0
