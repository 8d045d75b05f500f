"""``arborist session`` and the forest side of ``ask``, ``derive`` and ``verify``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._faces.cli import cli

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(autouse=True)
def corpus(tmp_path: Path) -> None:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    assert run("ingest", str(tmp_path / "spider.md"))[0] == 0


def test_every_ask_is_a_turn_printed_with_its_bates() -> None:
    code, out, _ = run("ask", "Who created Spider-Man?")
    assert code == 0
    bates = next(line.split()[1] for line in out.splitlines() if line.startswith("bates "))
    code, out, _ = run("session", "--list", "--json")
    [session] = json.loads(out)
    assert session["label"] == "cli" and session["turns"] == 1 and bates.startswith(session["sid"])
    code, out, _ = run("ask", "Who drew Spider-Man?", "--sid", session["sid"], "--json")
    data = json.loads(out)
    assert data["bates"] == f"{session['sid']}-000002" and data["sid"] == session["sid"]
    code, out, _ = run("session", "--tree", "--sid", session["sid"])
    assert out.splitlines()[1:] == [
        "└── 000001  Who created Spider-Man?  [STRICT answered]",
        # "artist Steve Ditko" says who drew him (extractive-v19; v18 refused, no passage
        # saying "drew"); the label, lexical, still lists "drew" as unsaid: partly
        "    └── * 000002  Who drew Spider-Man?  [STRICT partly]",
    ]


def test_session_list_find_and_chain_check() -> None:
    run("ask", "Who created Spider-Man?")
    code, out, _ = run("session", "--list")
    assert (
        code == 0 and out.count("\n") == 1 and "1 turn(s)" in out and out.rstrip().endswith("cli")
    )
    code, out, _ = run("session", "--find", "spider man")
    assert code == 0 and "Who created Spider-Man?" in out.splitlines()[0]
    assert (
        json.loads(run("session", "--find", "spider", "--json")[1])[0]["question"]
        == "Who created Spider-Man?"
    )
    code, out, _ = run("session", "--find", '"')
    assert code == 2
    code, out, _ = run("session", "--chain-check")
    assert code == 0 and out.startswith(
        "sessions.db  intact  2 events  checkpoint 2:"
    )  # create + turn


def test_bad_session_arguments_are_one_line() -> None:
    for args, fragment in (
        (["session", "--tree"], "no session yet: arborist ask QUESTION starts one"),
        (["session", "--list", "--tree", "--sid", "x"], "choose one of"),
        (["session", "--tree", "--sid", "nope"], "bad session id"),
        (["session", "--tree", "--sid", "20261129T120000Z-abcdef"], "no session"),
        (["ask", "Q?", "--sid", "20261129T120000Z-abcdef"], "no session"),
        (["ask", "   "], "empty question"),
    ):
        code, _, err = run(*args)
        assert code in (1, 2) and err.count("\n") == 1 and fragment in err, (args, err)


def test_export_and_import_into_another_shard(tmp_path: Path) -> None:
    run("ask", "Who created Spider-Man?")
    sid = json.loads(run("session", "--list", "--json")[1])[0]["sid"]
    code, out, _ = run("session", "--export", sid)
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["type"] for r in records] == ["session", "node", "node"]
    dump = tmp_path / "export.jsonl"
    dump.write_text(out, encoding="utf-8")
    other = tmp_path / "other.db"
    code, out, _ = run("session", "--import", str(dump), "--sessions-db", str(other))
    assert code == 0 and out == f"imported 2 node(s), 0 already present, session(s) {sid}\n"
    code, out, _ = run("session", "--export", sid, "--sessions-db", str(other))
    assert [json.loads(line) for line in out.splitlines()] == records
    code, _, err = run("session", "--import", "-", "--sessions-db", str(other), input="{broken\n")
    assert code == 2 and err.startswith("arborist: error: line 1: not JSON")


def test_the_repl_runs_from_the_command_line() -> None:
    code, out, _ = run(
        "session", "--label", "cli-repl", input="Who created Spider-Man?\n/tree\n/quit\n"
    )
    assert code == 0
    assert "Ditko" in out and "└── * 000001  Who created Spider-Man?  [STRICT answered]" in out


def test_derive_from_a_bates_number() -> None:
    _, out, _ = run("ask", "Who created Spider-Man?", "--json")
    bates = json.loads(out)["bates"]
    code, out, _ = run("derive", "snippet", "--from", bates)
    assert code == 0 and out.startswith("saved snippet core:snippet:")
    sid = bates.rsplit("-", 1)[0]
    code, _, err = run("derive", "snippet", "--from", f"{sid}-000000")
    assert code == 2 and "session root" in err


def test_verify_covers_the_forest(home: Path) -> None:
    run("ask", "Who created Spider-Man?")
    code, out, _ = run("verify")
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("sessions.db  ok  1 sessions, 2 nodes; checkpoint 2:")
    conn = sqlite3.connect(home / "sessions.db")
    conn.execute("UPDATE nodes SET answer_text = 'Jack Kirby did.' WHERE seq = 1")
    conn.commit()
    conn.close()
    code, out, _ = run("verify")
    assert code == 1
    assert any(
        line.startswith("sessions.db: turn ") and "answer_text differs" in line
        for line in out.splitlines()
    )
