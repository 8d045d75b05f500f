"""Damaged and read-only homes (issue #11), on real files, through the real command line.

* A damaged ``store.db`` or ``sessions.db`` (pages overwritten with garbage,
  or its header) is one line naming the file from every command, never a
  traceback; ``verify`` reports the damage as findings and checks what it
  can still read.
* Nothing is written into a damaged file: ``ingest`` and ``ask`` refuse,
  and the file's bytes stay as they were, even when the write would not
  have touched a damaged page (``PRAGMA quick_check`` runs before a
  connection's first write).
* A read-only home (a read-only bind mount: a real read-only filesystem;
  or, when not root, ``chmod -R a-w``) can be verified, searched and
  listed; writing commands say it is read-only in one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._database.db import connect, transaction
from arborist._database.migrations import open_database
from arborist._errors import DamagedDatabase, ReadOnlyDatabase, StorageError
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._store.schema import STORE_MIGRATIONS

ROOT = Path(__file__).resolve().parents[1]

QUESTIONS = (
    "What does statistics.median return?",
    "What does json.loads do?",
    "What is itertools.groupby?",
)
NEW_DOC = "# Tides\n\nThe tides rise twice a day, pulled by the moon and the sun.\n"


# --- homes and damage -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``arborist ingest --demo`` and a few asks (the offline extractive model), closed
    cleanly: no -wal or -shm, so the files can be copied."""
    home = tmp_path_factory.mktemp("damaged") / "home"
    code, _, err = run_cli("--home", str(home), "ingest", "--demo")
    assert code == 0, err
    for question in QUESTIONS:
        code, _, err = run_cli("--home", str(home), "ask", question)
        assert code == 0, err
    assert sorted(p.name for p in home.iterdir()) == ["sessions.db", "store.db"]
    return home


@pytest.fixture
def copy(pristine: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(pristine, target)
    return target


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run ``arborist`` in this process; a Python exception escaping it fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"arborist {' '.join(args)} raised {result.exception!r}")
    return result.exit_code, result.stdout, result.stderr


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def page_size(path: Path) -> int:
    size = int.from_bytes(path.read_bytes()[16:18], "big")
    return 65536 if size == 1 else size


def overwrite(path: Path, start: int, length: int, seed: int = 11) -> None:
    """Overwrite ``length`` bytes at ``start`` with garbage, as a failing disk or a stray
    write would."""
    garbage = random.Random(seed).randbytes(length)
    with path.open("r+b") as f:
        f.seek(start)
        f.write(garbage)


def damage_pages(path: Path, first: int = 3, last: int = 6) -> None:
    """Garbage over pages ``first``..``last`` (numbered from 1, as SQLite does)."""
    size = page_size(path)
    overwrite(path, (first - 1) * size, (last - first + 1) * size)


def damage_header(path: Path) -> None:
    overwrite(path, 0, 100)


def damage_table(path: Path, table: str) -> None:
    """Garbage over the root page of ``table`` only: a page no ask or ingest reads."""
    conn = sqlite3.connect(path)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    conn.close()
    damage_pages(path, root, root)


DAMAGES: dict[str, Callable[[Path], None]] = {
    "pages 3-6": damage_pages,
    "header": damage_header,
}


def one_line_error(code: int, err: str) -> str:
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("arborist: error: "), err
    return err


# --- 1. a damaged file is one line from every command; verify reports it ------------------------

COMMANDS = (
    ("stats",),
    ("search", "median"),
    ("ask", "What does heapq.heappush do?"),
    ("session", "--find", "median"),
    ("session", "--list"),
    ("chain-check",),
)


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("name", ["store.db", "sessions.db"])
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_on_a_damaged_file_is_one_line_naming_it(
    copy: Path, name: str, damage: str, args: tuple[str, ...]
) -> None:
    DAMAGES[damage](copy / name)
    code, _, err = run_cli("--home", str(copy), *args)
    if code == 0:  # this command read no damaged page of that file
        assert err == ""
        assert damage != "header" or name not in _files_read(args), "it cannot be opened"
        return
    line = one_line_error(code, err)
    assert f"{copy / name} is damaged (" in line, line
    assert "restore it from a backup, or run `arborist verify`" in line


def _files_read(args: tuple[str, ...]) -> set[str]:
    if args[0] in ("stats", "search"):
        return {"store.db"}
    if args[0] == "session" and args[1] != "--chain-check":
        return {"sessions.db"}
    return {"store.db", "sessions.db"}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("name", ["store.db", "sessions.db"])
def test_verify_reports_damage_as_findings_and_checks_what_it_can_read(
    copy: Path, name: str, damage: str
) -> None:
    DAMAGES[damage](copy / name)
    code, out, err = run_cli("--home", str(copy), "verify")
    assert (code, err) == (1, ""), err
    lines = out.splitlines()
    assert lines and all(line.startswith(f"{name}: ") for line in lines), out
    if damage == "header":
        assert lines == [f"{name}: cannot be opened: file is not a database"]
    else:
        assert lines[0].startswith(f"{name}: SQLite integrity check: Page "), out
    other = "sessions.db" if name == "store.db" else "store.db"
    assert not any(line.startswith(other) for line in lines), "the other file is sound"


def test_verify_goes_on_past_a_section_it_cannot_read(copy: Path) -> None:
    damage_table(copy / "store.db", "audit_events")
    code, out, _ = run_cli("--home", str(copy), "verify")
    assert code == 1
    assert "store.db: audit chain: cannot be read (database disk image is malformed)" in out
    # the chunks were still read and re-hashed: no line says they could not be
    assert "documents and chunks: cannot be read" not in out


def test_the_facade_raises_one_storage_error_naming_the_file(copy: Path) -> None:
    damage_pages(copy / "store.db")
    with Arborist(copy) as app, pytest.raises(DamagedDatabase) as caught:
        app.stats()
    assert isinstance(caught.value, StorageError)
    assert caught.value.path == str(copy / "store.db")
    assert str(caught.value).count("\n") == 0
    with Arborist(copy) as app:
        report = app.verify()
    assert not report.ok and report.problems[0].startswith("store.db: SQLite integrity check")


# --- 2. nothing is written into a damaged file -------------------------------------------------


WRITES = [
    (command, name, damage)
    for name, damage in [
        ("store.db", "pages 3-6"),
        ("store.db", "header"),
        ("store.db", "derivations"),  # a page the ask and the ingest never read
        ("sessions.db", "pages 3-6"),
        ("sessions.db", "header"),
    ]
    for command in ("ingest", "ask")
    if command == "ask" or name == "store.db"  # ingest writes store.db only
]


@pytest.mark.parametrize(("command", "name", "damage"), WRITES)
def test_ingest_and_ask_refuse_a_damaged_file_and_leave_its_bytes_unchanged(
    copy: Path, tmp_path: Path, name: str, damage: str, command: str
) -> None:
    path = copy / name
    if damage == "derivations":
        damage_table(path, "derivations")
    else:
        DAMAGES[damage](path)
    before = sha256(path)
    doc = tmp_path / "tides.md"
    doc.write_text(NEW_DOC, encoding="utf-8")
    args = ["ingest", str(doc)] if command == "ingest" else ["ask", "Why do the tides rise?"]
    line = one_line_error(*run_cli("--home", str(copy), *args)[::2])
    assert f"{path} is damaged (" in line
    assert sha256(path) == before, "nothing was written into the damaged file"
    assert (
        not path.with_name(name + "-wal").exists()
        or path.with_name(name + "-wal").stat().st_size == 0
    )


def test_quick_check_runs_once_per_connection_before_its_first_write(tmp_path: Path) -> None:
    open_database(tmp_path / "store.db", STORE_MIGRATIONS).close()
    conn = connect(tmp_path / "store.db")
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    for _ in range(3):
        with transaction(conn):
            conn.execute("INSERT INTO schema_migrations VALUES (99, 'x', NULL, 'now')")
            conn.execute("DELETE FROM schema_migrations WHERE version = 99")
    checks = [s for s in seen if "quick_check" in s]
    assert checks == ["PRAGMA quick_check(1)"]
    assert seen.index(checks[0]) < seen.index("BEGIN IMMEDIATE")


def test_a_connection_that_saw_damage_writes_nothing_more(copy: Path) -> None:
    path = copy / "store.db"
    damage_table(path, "derivations")
    conn = connect(path)
    with pytest.raises(DamagedDatabase):
        conn.execute("SELECT * FROM derivations").fetchall()
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    with pytest.raises(DamagedDatabase, match=r"store\.db is damaged"), transaction(conn):
        raise AssertionError("never reached")
    assert seen == [], "refused before any statement"
    conn.close()


def test_lock_constraint_and_syntax_errors_pass_through_as_sqlite_errors(tmp_path: Path) -> None:
    conn = open_database(tmp_path / "a.db", SESSIONS_MIGRATIONS)
    conn.execute("CREATE TABLE t (x UNIQUE)")
    conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.OperationalError, match="syntax"):
        conn.execute("SELEC 1")
    other = connect(tmp_path / "a.db")
    other.execute("PRAGMA busy_timeout = 0")
    with transaction(conn), pytest.raises(sqlite3.OperationalError, match="locked"):
        other.execute("BEGIN IMMEDIATE")
    assert conn.damage is None and conn.read_only is False


def test_corruption_is_recognised_by_its_wording_without_an_error_code(tmp_path: Path) -> None:
    """Python 3.10's sqlite3 errors carry no code: SQLite's own words are enough."""
    conn = connect(tmp_path / "a.db")
    failure = conn.failure(sqlite3.DatabaseError("database disk image is malformed"))
    assert isinstance(failure, DamagedDatabase) and conn.damage is not None
    assert isinstance(
        conn.failure(sqlite3.OperationalError("attempt to write a readonly database")),
        ReadOnlyDatabase,
    )
    assert conn.failure(sqlite3.OperationalError("database is locked")) is None


# --- 3. a read-only home ----------------------------------------------------------------------


def _mount_works(folder: Path) -> bool:
    if not shutil.which("unshare") or not shutil.which("mount"):
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", _RO_MOUNT + ' && ! touch "$0/x" 2>/dev/null', str(folder)],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0 and not (folder / "x").exists()


_RO_MOUNT = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0"'

# Root ignores permission bits through these two capabilities; without them it obeys them.
_NO_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def _chmod_works(folder: Path) -> bool:
    if os.geteuid() != 0:
        return True
    if not shutil.which("setpriv"):
        return False
    folder.chmod(0o555)
    try:
        probe = subprocess.run(
            [*_NO_OVERRIDE, "touch", str(folder / "x")], capture_output=True, check=False
        )
    finally:
        folder.chmod(0o755)
    return probe.returncode != 0 and not (folder / "x").exists()


@pytest.fixture(scope="module")
def read_only_ways(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """How this machine can make a folder read-only: a read-only bind mount in a private
    mount namespace (root with CAP_SYS_ADMIN: a real read-only filesystem, EROFS), and
    permission bits (EACCES; as root, run without the capabilities that ignore them)."""
    ways = []
    if _mount_works(tmp_path_factory.mktemp("probe")):
        ways.append("mount")
    if _chmod_works(tmp_path_factory.mktemp("probe")):
        ways.append("chmod")
    # Permission bits work for any user but root, and root here lacks neither setpriv nor
    # mount: one way at least must run, or the read-only promise would go untested.
    assert ways, "neither a read-only mount nor permission bits can be tried on this machine"
    return ways


@pytest.fixture(params=["mount", "chmod"])
def run_read_only(
    request: pytest.FixtureRequest, read_only_ways: list[str]
) -> Iterator[Callable[..., tuple[int, str, str]]]:
    """``run(home, *args)``: ``arborist --home HOME ARGS`` in a subprocess that sees HOME
    read-only; ``run(home, "-c", code)`` runs Python code instead."""
    way = request.param
    if way not in read_only_ways:
        pytest.skip(f"cannot make a folder read-only by {way} here")
    locked: list[Path] = []

    def run(home: Path, *args: str) -> tuple[int, str, str]:
        python = (
            [sys.executable, *args]
            if args[0] == "-c"
            else [
                sys.executable,
                "-m",
                "arborist",
                "--home",
                str(home),
                *args,
            ]
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        if way == "mount":
            command = ["unshare", "-m", "sh", "-c", _RO_MOUNT + ' && exec "$@"', str(home)]
            command += python
        else:
            for path in [home, *home.iterdir()]:
                path.chmod(path.stat().st_mode & 0o555)
            locked.append(home)
            command = [*_NO_OVERRIDE, *python] if os.geteuid() == 0 else python
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        return done.returncode, done.stdout, done.stderr

    yield run
    for home in locked:
        for path in [home, *home.iterdir()]:
            path.chmod(path.stat().st_mode | 0o200)


def test_reading_commands_work_on_a_read_only_home(
    copy: Path, run_read_only: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, err = run_read_only(copy, "verify")
    assert (code, err) == (0, ""), err
    assert out.startswith("store.db     ok  72 documents") and "sessions.db  ok" in out
    code, out, err = run_read_only(copy, "chain-check")
    assert (code, err) == (0, "") and out.count("intact") == 2, err
    code, out, err = run_read_only(copy, "stats")
    assert (code, err) == (0, "") and "cached answers 3 ok" in out, err
    code, out, err = run_read_only(copy, "search", "median")
    assert (code, err) == (0, "") and "statistics" in out, err
    code, out, err = run_read_only(copy, "session", "--find", "median")
    assert (code, err) == (0, "") and "statistics.median" in out, err
    code, out, err = run_read_only(copy, "session", "--list", "--json")
    assert (code, err) == (0, ""), err
    sessions = json.loads(out)
    assert len(sessions) == len(QUESTIONS)
    code, out, err = run_read_only(copy, "session", "--tree", "--sid", sessions[0]["sid"])
    assert (code, err) == (0, "") and sessions[0]["sid"] in out, err
    assert sorted(p.name for p in copy.iterdir()) == ["sessions.db", "store.db"]


def test_the_facade_verifies_a_read_only_home(
    copy: Path, run_read_only: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, err = run_read_only(
        copy,
        "-c",
        "import sys\nfrom arborist._facade.app import Arborist\n"
        f"app = Arborist({str(copy)!r})\n"
        "report = app.verify()\n"
        "print(report.ok, report.store.documents, bool(app.search('median')))\n"
        "print(app.store_conn.read_only, app.sessions_conn.read_only)",
    )
    assert (code, err) == (0, ""), err
    assert out.splitlines() == ["True 72 True", "True True"]


@pytest.mark.parametrize("command", ["ingest", "ask"])
def test_writing_commands_on_a_read_only_home_are_one_line(
    copy: Path,
    tmp_path: Path,
    run_read_only: Callable[..., tuple[int, str, str]],
    command: str,
) -> None:
    doc = tmp_path / "tides.md"
    doc.write_text(NEW_DOC, encoding="utf-8")
    before = {p.name: sha256(p) for p in copy.iterdir()}
    args = ["ingest", str(doc)] if command == "ingest" else ["ask", "Why do the tides rise?"]
    code, out, err = run_read_only(copy, *args)
    line = one_line_error(code, err)
    assert "store.db is read-only" in line and "verify, search, stats" in line, line
    assert out == ""
    assert {p.name: sha256(p) for p in copy.iterdir()} == before


def _snapshot_in_use(pristine: Path, target: Path, suffixes: tuple[str, ...]) -> str:
    """Copy a home while a process has a turn committed only to its -wal (no checkpoint),
    as a backup or archive taken during a session would; return the turn's bates."""
    script = (
        "import os, shutil, sys\n"
        "from arborist._facade.app import Arborist\n"
        "home, target, suffixes = sys.argv[1], sys.argv[2], sys.argv[3].split(',')\n"
        "app = Arborist(home)\n"
        "for conn in (app.store_conn, app.sessions_conn):\n"
        "    conn.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "sid = app.new_session('in use').sid\n"
        "turn = app.ask_turn('What does the zebra marker in zipfile do?', sid=sid)\n"
        "os.makedirs(target)\n"
        "for name in ('store.db', 'sessions.db'):\n"
        "    for suffix in suffixes:\n"
        "        shutil.copy(os.path.join(home, name + suffix), os.path.join(target, name + suffix))\n"
        "print(turn.node.bates)\n"
        "sys.stdout.flush()\n"
        "os._exit(0)  # no close, no checkpoint\n"
    )
    live = target.parent / (target.name + "-live")
    shutil.copytree(pristine, live)
    done = subprocess.run(
        [sys.executable, "-c", script, str(live), str(target), ",".join(suffixes)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    assert (target / "store.db-wal").stat().st_size > 32
    return done.stdout.strip()


@pytest.mark.parametrize("suffixes", [("", "-wal", "-shm"), ("", "-wal")], ids=["wal+shm", "wal"])
def test_a_read_only_copy_taken_while_in_use_shows_its_last_commits(
    pristine: Path,
    tmp_path: Path,
    run_read_only: Callable[..., tuple[int, str, str]],
    suffixes: tuple[str, ...],
) -> None:
    home = tmp_path / "snapshot"
    bates = _snapshot_in_use(pristine, home, suffixes)
    code, out, err = run_read_only(home, "session", "--find", "zebra")
    assert (code, err) == (0, ""), err
    assert out.startswith(bates)
    code, out, err = run_read_only(home, "verify")
    assert (code, err) == (0, ""), err
    assert "4 cached answers" in out


def test_an_old_schema_on_a_read_only_home_is_refused_with_one_line(
    tmp_path: Path, run_read_only: Callable[..., tuple[int, str, str]]
) -> None:
    home = tmp_path / "old"
    open_database(home / "store.db", STORE_MIGRATIONS[:-1]).close()
    open_database(home / "sessions.db", SESSIONS_MIGRATIONS).close()
    for args in (["search", "x"], ["verify"]):
        line = one_line_error(*run_read_only(home, *args)[::2])
        assert f"{home / 'store.db'} needs migrating" in line and "read-only" in line, line


def test_a_coaccess_capture_a_kill_left_waits_while_the_home_is_read_only(
    tmp_path: Path,
    run_read_only: Callable[..., tuple[int, str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``related`` on a read-only home with a capture still spooled (the asking process was
    killed after its turn committed): answered from what store.db holds, nothing written;
    the capture waits for a home that can be written."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tides.md").write_text(
        "# Tides\n\nTides rise and fall twice a day because the moon pulls the oceans.\n\n"
        "## Spring tides\n\nSpring tides happen when the sun and moon align.\n",
        encoding="utf-8",
    )
    home = tmp_path / "spooled"
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        first = app.ask_turn("why do tides rise", session_label="one").node.bates
        app.rebuild_related()
    killed = subprocess.run(
        [sys.executable, "-m", "tests.coaccess_kill", str(home), "turn", "when do spring tides happen"],
        cwd=ROOT, env={**os.environ, "ARBORIST_HOME": str(home)}, capture_output=True, check=False,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    for name in ("store.db", "sessions.db"):  # the kill's -wal folded in, as a later close would
        raw = sqlite3.connect(home / name)
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        raw.close()
    before = {p.name: sha256(p) for p in home.iterdir()}
    code, out, err = run_read_only(home, "related", first, "--json")
    assert (code, err) == (0, ""), err
    assert json.loads(out)["sources"]
    assert {p.name: sha256(p) for p in home.iterdir()} == before
    spooled = sqlite3.connect(home / "sessions.db")
    try:
        assert spooled.execute("SELECT count(*) FROM coaccess_spool").fetchone() == (1,)
    finally:
        spooled.close()
