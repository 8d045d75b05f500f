"""Labels that claim no more than was checked: a hit re-checks what it serves, verify()
reads the store now, and a witness that records nothing is refused everywhere."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from arborist._errors import IntegrityError
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader
from arborist_nb._display import Answer
from tests.chat_server import ChatServer, Reply, silent
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

DOC = (
    "# Spider-Man\n\n"
    "Spider-Man was created by writer Stan Lee and artist Steve Ditko.\n\n"
    "He first appeared in Amazing Fantasy #15 in August 1962.\n"
)
QUESTION = "Who created Spider-Man?"


def _edit_cited_chunk(store: Path, record_id: int) -> None:
    """What an attacker with write access does: change the text a cached answer cites."""
    conn = sqlite3.connect(store)
    with conn:
        chunk_id = conn.execute(
            "SELECT chunk_id FROM cache_evidence WHERE record_id = ? AND cited = 1 ORDER BY rank",
            (record_id,),
        ).fetchone()[0]
        conn.execute(
            "UPDATE chunks SET text = replace(text, 'Steve Ditko', 'Jack Kirby') WHERE id = ?",
            (chunk_id,),
        )
        conn.execute(
            "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')"
        )  # the attacker keeps the index consistent too
    conn.close()


def _counts(store: Path) -> tuple[int, int, int]:
    conn = sqlite3.connect(store)
    try:
        events = conn.execute("SELECT count(*) FROM audit_events").fetchone()[0]
        records = conn.execute("SELECT count(*) FROM cache_records").fetchone()[0]
        hits = conn.execute("SELECT coalesce(sum(hit_count), 0) FROM cache_records").fetchone()[0]
    finally:
        conn.close()
    return events, records, hits


@pytest.fixture
def asked(home: Path, tmp_path: Path) -> Iterator[tuple[Arborist, int]]:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
        first = app.ask(QUESTION)
        assert first.record.audit_mode == "STRICT" and "Ditko" in first.answer
        yield app, first.record.id


def test_a_hit_on_edited_evidence_is_refused_with_the_reason(
    asked: tuple[Arborist, int], home: Path
) -> None:
    app, record_id = asked
    assert app.ask(QUESTION).hit  # served while it holds
    _edit_cited_chunk(home / "store.db", record_id)
    before = _counts(home / "store.db")
    with pytest.raises(IntegrityError) as caught:
        app.ask(QUESTION)
    message = str(caught.value)
    assert "\n" not in message
    assert "Spider-Man" in message and "arborist verify" in message
    assert "no longer matches its committed hash" in message
    assert _counts(home / "store.db") == before  # nothing written, not even a hit count


def test_a_hit_whose_record_was_edited_is_refused(asked: tuple[Arborist, int], home: Path) -> None:
    app, record_id = asked
    conn = sqlite3.connect(home / "store.db")
    with conn:
        conn.execute(
            "UPDATE cache_records SET answer_text = 'Jack Kirby created him. [E1]' WHERE id = ?",
            (record_id,),
        )
    conn.close()
    with pytest.raises(IntegrityError, match="no longer holds: answer, question or evidence"):
        app.ask(QUESTION)


def test_the_cli_never_prints_strict_for_an_edited_hit(
    asked: tuple[Arborist, int], home: Path
) -> None:
    _app, record_id = asked
    runner = CliRunner()
    served = runner.invoke(cli, ["--home", str(home), "ask", QUESTION])
    assert served.exit_code == 0 and "audit   quotes verified (STRICT)" in served.output
    _edit_cited_chunk(home / "store.db", record_id)
    refused = runner.invoke(cli, ["--home", str(home), "ask", QUESTION])
    assert refused.exit_code == 1
    assert "STRICT" not in refused.output
    assert refused.stderr.count("\n") == 1 and "arborist verify" in refused.stderr
    key = app_key(home, record_id)
    shown = runner.invoke(cli, ["--home", str(home), "record", "show", key])
    assert shown.exit_code == 0
    audit_line = next(line for line in shown.output.splitlines() if line.startswith("audit"))
    assert "STRICT" not in audit_line and "does not hold" in audit_line
    as_json = json.loads(
        runner.invoke(cli, ["--home", str(home), "record", "show", key, "--json"]).output
    )
    assert as_json["holds"] is False and as_json["problems"]


def app_key(home: Path, record_id: int) -> str:
    conn = sqlite3.connect(home / "store.db")
    try:
        return str(
            conn.execute(
                "SELECT cache_key FROM cache_records WHERE id = ?", (record_id,)
            ).fetchone()[0]
        )
    finally:
        conn.close()


def test_a_miss_over_edited_evidence_is_refused_and_writes_nothing(
    home: Path, tmp_path: Path
) -> None:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
        conn = sqlite3.connect(home / "store.db")
        with conn:
            conn.execute("UPDATE chunks SET text = replace(text, 'Steve Ditko', 'Jack Kirby')")
        conn.close()
        before = _counts(home / "store.db")
        with pytest.raises(IntegrityError, match="edited after it was ingested"):
            app.ask(QUESTION)
        assert _counts(home / "store.db") == before


# --- Answer.verify() -------------------------------------------------------------------------


@pytest.fixture
def shell(home: Path, tmp_path: Path) -> Iterator[InteractiveShell]:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    ip.run_line_magic("arborist", f"ingest {tmp_path / 'spider.md'}")
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def test_answer_verify_is_falsy_once_the_store_is_edited(
    shell: InteractiveShell, home: Path
) -> None:
    answer = shell.run_cell_magic("ask", "", QUESTION)
    assert isinstance(answer, Answer)
    check = answer.verify()
    assert check and check.ok and not check.problems
    assert all(item.verified for item in check) and len(check) == len(answer.evidence)
    assert "audit      quotes verified (STRICT)" in repr(answer)

    _edit_cited_chunk(home / "store.db", answer.record.id)
    check = answer.verify()
    assert not check  # `if answer.verify():` is now false
    assert any(not item.verified for item in check)
    assert "does not match its leaf" in check.problems[0]
    text = repr(answer)
    assert "STRICT" not in text and "does not hold" in text
    page = answer._repr_html_()
    assert "STRICT" not in page and 'data-proof="fail"' in page
    assert "STRICT" not in answer._repr_markdown_()
    with pytest.raises(UsageError, match="no longer matches its committed hash"):
        shell.run_cell_magic("ask", "", QUESTION)


def test_verify_witness_without_a_checkpoint_is_refused_in_both_faces(
    shell: InteractiveShell, home: Path, tmp_path: Path
) -> None:
    notebook = tmp_path / "empty.ipynb"
    notebook.write_text(
        json.dumps({"cells": [{"cell_type": "code", "source": "1", "outputs": []}]}),
        encoding="utf-8",
    )
    with pytest.raises(UsageError, match="records no checkpoint"):
        shell.run_line_magic("arborist", f"verify --witness {notebook}")
    result = CliRunner().invoke(cli, ["--home", str(home), "verify", "--witness", str(notebook)])
    assert result.exit_code == 2 and "records no checkpoint" in result.stderr


def _forest_counts(sessions: Path) -> tuple[int, int]:
    conn = sqlite3.connect(sessions)
    try:
        return (
            conn.execute("SELECT count(*) FROM sessions").fetchone()[0],
            conn.execute("SELECT count(*) FROM audit_events").fetchone()[0],
        )
    finally:
        conn.close()


def test_a_failed_ask_writes_no_session_and_no_event(home: Path, tmp_path: Path) -> None:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "ingest", str(tmp_path)]).exit_code == 0
    assert runner.invoke(cli, ["--home", str(home), "ask", QUESTION]).exit_code == 0
    before = _forest_counts(home / "sessions.db")
    assert before[0] == 1
    failures = [
        (["--llm", "no-such-model"], {}),  # unknown model
        (["--llm", "openai"], {"ARBORIST_BASE_URL": "", "ARBORIST_MODEL": "m"}),  # no server set
        (  # a server that is down (nothing listens on the discard port)
            ["--llm", "openai"],
            {
                "ARBORIST_BASE_URL": "http://127.0.0.1:9/v1",
                "ARBORIST_MODEL": "m",
                "ARBORIST_RETRIES": "0",
            },
        ),
    ]
    for flags, env in failures:
        failed = runner.invoke(cli, ["--home", str(home), "ask", "Who drew him?", *flags], env=env)
        assert failed.exit_code in (1, 2), failed.output
        assert failed.stderr.count("\n") == 1, failed.stderr
    assert _forest_counts(home / "sessions.db") == before


def test_timeout_and_retries_on_the_command_line_bound_a_hung_server(
    home: Path, tmp_path: Path, chat_server: ChatServer
) -> None:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "ingest", str(tmp_path)]).exit_code == 0
    chat_server.script(silent(), silent(), silent())
    env = {"ARBORIST_BASE_URL": chat_server.url, "ARBORIST_MODEL": "m", "ARBORIST_TIMEOUT": "600"}
    started = time.monotonic()
    limits = ["--timeout", "0.5", "--retries", "0"]
    result = runner.invoke(
        cli, ["--home", str(home), "ask", QUESTION, "--llm", "openai", *limits], env=env
    )
    elapsed = time.monotonic() - started
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.output
    assert chat_server.requests == 1  # no retry
    assert elapsed < 30  # the flag wins over the environment's 600 s
    bad = runner.invoke(cli, ["--home", str(home), "ask", QUESTION, "--timeout", "0"])
    assert bad.exit_code == 2 and "--timeout" in bad.stderr


def test_a_server_trickling_its_reply_is_bounded_by_the_timeout(
    home: Path, tmp_path: Path, chat_server: ChatServer
) -> None:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "ingest", str(tmp_path)]).exit_code == 0
    # A byte every 0.2 s for 80 s: each read is quick, the whole reply never comes.
    trickle = Reply(
        headers=(("Content-Type", "application/json"),),
        chunks=(b" ",) * 400,
        chunked=True,
        pause=0.2,
    )
    chat_server.script(trickle)
    env = {"ARBORIST_BASE_URL": chat_server.url, "ARBORIST_MODEL": "m"}
    started = time.monotonic()
    result = runner.invoke(
        cli,
        [
            "--home",
            str(home),
            "ask",
            QUESTION,
            "--llm",
            "openai",
            "--timeout",
            "1",
            "--retries",
            "0",
        ],
        env=env,
    )
    assert result.exit_code == 1 and "still arriving when its time ran out" in result.stderr
    assert time.monotonic() - started < 20  # the server would have trickled for 80 s


# --- views that print an audit mode, and lines that cannot be forged -----------------------------


def test_every_view_of_an_edited_answer_claims_no_mode(
    asked: tuple[Arborist, int], home: Path
) -> None:
    app, record_id = asked
    turn = app.ask_turn(QUESTION, sid=None)
    sid = turn.node.sid
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--home", str(home), *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    assert "[STRICT answered]" in run("session", "--tree", "--sid", sid)
    _edit_cited_chunk(home / "store.db", record_id)
    tree = run("session", "--tree", "--sid", sid)
    found = run("session", "--find", "Spider-Man")
    listed = run("record", "list")
    for text in (tree, found, listed):
        assert "STRICT" not in text and "NONE" in text, text
    assert json.loads(run("session", "--find", "Spider-Man", "--json"))[0]["audit_now"] == "NONE"
    assert json.loads(run("record", "list", "--json"))[0]["holds"] is False
    out: list[str] = []
    Repl(app, sid, read=scripted_reader(["/show"]), write=out.append).run()
    assert "audit        NONE" in "\n".join(out)


def test_a_newline_in_a_field_cannot_forge_a_line(home: Path, tmp_path: Path) -> None:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "ingest", str(tmp_path)]).exit_code == 0
    forged = "Who created Spider-Man?\naudit      STRICT FORGED"
    asked = runner.invoke(cli, ["--home", str(home), "ask", forged, "--json"])
    key = json.loads(asked.stdout)["cache_key"]
    reason = "bad\n3fbd3b19ead24798  r1  ok  STRICT forged"
    for args in (
        ["record", "falsify", key, "--state", "failed", "--reason", reason],
        ["record", "show", key],
        ["record", "list"],
        ["session", "--find", "Spider"],
        ["session", "--list"],
    ):
        result = runner.invoke(cli, ["--home", str(home), *args])
        assert result.exit_code == 0, result.output
        assert not any(
            line.startswith(("audit      STRICT FORGED", "3fbd3b19"))
            for line in result.stdout.splitlines()
        ), result.stdout
