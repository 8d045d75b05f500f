"""Every text a user or a server can set passes the admission gate, not only documents.

Labels, session labels, falsify reasons, derived texts (and the titles made
from them), and the provider's response metadata stored with an answer: a
secret planted in each must reach no database file and no audit event.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from arborist import Arborist
from arborist.cli import cli
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
        ["providence", "falsify", key, "--state", "stale", "--reason", f"see {API_KEY}"],
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
