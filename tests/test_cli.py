"""The ``arborist`` command: exact output, exit codes, one-line errors."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist import __version__
from arborist._commands.desk import names
from arborist._database.db import transaction
from arborist._database.migrations import open_database
from arborist._faces.cli import cli
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._proofs.audit import append_event
from arborist._store.schema import STORE_MIGRATIONS


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def fill(path: Path, n: int, migrations: tuple = STORE_MIGRATIONS) -> str:
    """Append ``n`` events to the database at ``path``; return the head checkpoint text."""
    conn = open_database(path, migrations)
    with transaction(conn):
        for i in range(n):
            event = append_event(conn, "test", body={"i": i})
    conn.close()
    return f"{event.seq}:{event.event_hash}"


def test_version_prints_the_package_version() -> None:
    assert run("--version") == (0, f"arborist {__version__}\n", "")


def test_chain_check_on_a_fresh_home_creates_it_and_reports_two_empty_chains(home: Path) -> None:
    code, out, err = run("chain-check")
    assert (code, err) == (0, "")
    assert (
        out
        == "store.db     intact  0 events  empty chain\nsessions.db  intact  0 events  empty chain\n"
    )
    assert (home / "store.db").is_file() and (home / "sessions.db").is_file()


def test_chain_check_prints_each_head_as_a_checkpoint(home: Path) -> None:
    store_head = fill(home / "store.db", 3)
    sessions_head = fill(home / "sessions.db", 1, SESSIONS_MIGRATIONS)
    code, out, _ = run("chain-check")
    assert code == 0
    assert out.splitlines() == [
        f"store.db     intact  3 events  checkpoint {store_head}",
        f"sessions.db  intact  1 event  checkpoint {sessions_head}",
    ]


def test_a_printed_checkpoint_passed_back_holds_and_a_truncation_breaks_it(home: Path) -> None:
    head = fill(home / "store.db", 5)
    code, out, _ = run("chain-check", "--checkpoint", head)
    assert code == 0 and "holds 1 checkpoint(s)" in out
    conn = sqlite3.connect(home / "store.db")
    conn.execute("DELETE FROM audit_events WHERE seq = 5")
    conn.execute("UPDATE sqlite_sequence SET seq = 4 WHERE name = 'audit_events'")
    conn.commit()
    code, out, _ = run("chain-check", "--store-db", str(home / "store.db"), "--checkpoint", head)
    assert code == 1
    assert (
        out
        == f"store.db  BROKEN at seq 5: truncated: checkpoint {head} is beyond the chain head (seq 4)\n"
    )


def test_a_checkpoint_in_neither_chain_fails_the_check_of_both(home: Path) -> None:
    fill(home / "store.db", 2)
    code, out, _ = run("chain-check", "--checkpoint", "9:" + "ab" * 32)
    assert code == 1
    assert out.splitlines()[-1] == (
        f"checkpoint 9:{'ab' * 32} is in none of the chains checked: truncated or rewritten"
    )


def test_a_broken_chain_exits_1_with_the_first_bad_seq_on_one_line(home: Path) -> None:
    fill(home / "store.db", 6)
    conn = sqlite3.connect(home / "store.db")
    conn.execute("UPDATE audit_events SET body = '{\"i\":99}' WHERE seq = 4")
    conn.commit()
    code, out, err = run("chain-check")
    assert code == 1 and err == ""
    first = out.splitlines()[0]
    assert first == "store.db     BROKEN at seq 4: modified: content does not match its event_hash"


def test_json_output_carries_the_report(home: Path) -> None:
    head = fill(home / "store.db", 2)
    code, out, _ = run("chain-check", "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    assert data["databases"][0] == {
        "name": "store",
        "path": str(home / "store.db"),
        "ok": True,
        "events_checked": 2,
        "checkpoint": head,
        "first_bad_seq": None,
        "problems": [],
    }


def test_an_explicit_database_is_checked_alone_and_never_created(
    tmp_path: Path, home: Path
) -> None:
    shard = tmp_path / "elsewhere" / "shard.db"
    head = fill(shard, 4, SESSIONS_MIGRATIONS)
    code, out, _ = run("chain-check", "--sessions-db", str(shard))
    assert (code, out) == (0, f"shard.db  intact  4 events  checkpoint {head}\n")
    assert not home.exists()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["chain-check", "--checkpoint", "5:zz"], "bad checkpoint '5:zz'"),
        (["chain-check", "--checkpoint", "0:" + "a" * 64], "SEQ >= 1"),
        (["chain-check", "--store-db", "/no/such/store.db"], "no such file"),
        (["chain-check", "--bogus"], "unrecognized arguments: --bogus"),
        (["no-such-command"], "unknown command arborist no-such-command: try arborist help"),
    ],
)
def test_bad_arguments_are_one_line_errors_with_exit_2(
    args: list[str], fragment: str, home: Path
) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("arborist: error: ") and fragment in err
    assert not home.exists(), "a refused command writes nothing"


def test_a_file_that_is_not_an_arborist_database_is_one_line_exit_1(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)")
    code, _, err = run("chain-check", "--store-db", str(other))
    assert code == 1
    assert err == f"arborist: error: {other} is not an arborist database (no audit_events table)\n"
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\x00garbage" * 100)
    code, _, err = run("chain-check", "--store-db", str(garbage))
    assert code == 1 and err.count("\n") == 1 and "garbage.db" in err


def test_the_installed_console_script_runs(home: Path) -> None:
    exe = Path(sys.executable).parent / "arborist"
    done = subprocess.run([str(exe), "chain-check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "store.db" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "arborist", "--version"], capture_output=True, text=True, check=False
    )
    assert done.stdout == f"arborist {__version__}\n"


def test_every_command_is_documented_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for name in names():
        assert f"arborist {name}" in readme, f"README does not document `arborist {name}`"


def test_retrieval_keywords_without_words_is_one_line_and_nothing_runs(home: Path) -> None:
    """``--retrieval-keywords`` takes its words (tests/test_retrieval_keywords.py): given
    none, one line, and no store is made."""
    result = CliRunner().invoke(cli, ["--home", str(home), "ask", "who?", "--retrieval-keywords"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "--retrieval-keywords" in result.output
    assert not (home / "store.db").exists()
