"""The home is private (issue #22): the folder arborist creates is 0700, every database with
its ``-wal`` and ``-shm`` and the redaction key 0600, whatever the umask; an existing home
that other users can read is named by ``arborist verify``, with the chmod that fixes it."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist import Arborist
from arborist._database.db import connect
from arborist._faces.cli import cli
from arborist._pathref import load_or_create_key

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")

NOTE = "# Bread\n\nSourdough wants a long cold proof in the fridge overnight.\n"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o000], ids=["umask022", "umask000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """The process umask for the test, put back after it."""
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _all_files(home: Path) -> dict[str, int]:
    return {p.name: mode(p) for p in sorted(home.iterdir())}


def test_a_new_home_and_every_file_in_it_are_private(
    home: Path, tmp_path: Path, umask: int
) -> None:
    nested = tmp_path / "deep" / "er" / "home"  # its parents are made too
    doc = tmp_path / "bread.md"
    doc.write_text(NOTE, encoding="utf-8")
    with Arborist(nested) as app:
        app.ingest([str(doc)])
        session = app.new_session("bread")
        assert session is not None
        load_or_create_key(app.home)
        # While both databases are open their -wal and -shm exist: they are private too.
        files = _all_files(nested)
        assert {"store.db", "store.db-wal", "store.db-shm"} <= set(files)
        assert {"sessions.db", "sessions.db-wal", "sessions.db-shm"} <= set(files)
        assert "redaction.key" in files
        assert files == dict.fromkeys(files, 0o600), files
        assert Arborist(nested).verify().modes == ()
    assert mode(nested) == 0o700
    assert _all_files(nested) == dict.fromkeys(_all_files(nested), 0o600)


def test_a_database_outside_any_home_is_private(tmp_path: Path, umask: int) -> None:
    conn = connect(tmp_path / "new" / "x.db")
    try:
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
        names = {p.name: mode(p) for p in (tmp_path / "new").iterdir()}
        assert names == {"x.db": 0o600, "x.db-wal": 0o600, "x.db-shm": 0o600}
    finally:
        conn.close()
    assert mode(tmp_path / "new") == 0o700


def test_an_empty_folder_made_for_the_home_becomes_private(home: Path, umask: int) -> None:
    home.mkdir()  # by the user, with the umask's mode
    assert mode(home) == 0o777 & ~umask
    with Arborist(home) as app:
        app.store_conn  # noqa: B018
    assert mode(home) == 0o700


def test_a_folder_that_already_holds_files_is_left_as_it_is(home: Path, umask: int) -> None:
    home.mkdir()
    (home / "README").write_text("mine\n", encoding="utf-8")
    with Arborist(home) as app:
        app.store_conn  # noqa: B018
    assert mode(home) == 0o777 & ~umask  # not arborist's to change: verify reports it
    assert mode(home / "store.db") == 0o600


def test_the_cli_makes_a_private_home_under_any_umask(tmp_path: Path) -> None:
    doc = tmp_path / "bread.md"
    doc.write_text(NOTE, encoding="utf-8")
    for umask in (0o022, 0o000):
        home = tmp_path / f"home-{umask:o}"
        env = {**os.environ, "ARBORIST_HOME": str(home)}
        done = subprocess.run(
            [sys.executable, "-m", "arborist", "ingest", str(doc)],
            env=env,
            umask=umask,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert mode(home) == 0o700
        files = _all_files(home)
        assert "store.db" in files
        assert files == dict.fromkeys(files, 0o600), files


# --- an existing home that others can read ---------------------------------------------------


@pytest.fixture
def loose_home(home: Path, tmp_path: Path) -> Path:
    """A home arborist made, then opened up the way an old umask-022 home was."""
    doc = tmp_path / "bread.md"
    doc.write_text(NOTE, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(doc)])
        app.new_session("bread")
    (home / "config.toml").write_text("[admission]\nallowlist = []\n", encoding="utf-8")
    home.chmod(0o755)
    (home / "store.db").chmod(0o644)
    (home / "sessions.db").chmod(0o640)
    (home / "config.toml").chmod(0o604)
    return home


def test_verify_names_each_file_others_can_read_and_how_to_fix_it(loose_home: Path) -> None:
    home = loose_home
    report = Arborist(home).verify()
    assert not report.ok
    # verify opens both databases, so SQLite makes their -wal and -shm with each one's mode.
    loose = {"store.db": "0644", "sessions.db": "0640"}
    who = {"0644": "group and other", "0640": "group"}
    expected = [
        f"{home}: the home folder has mode 0755, open to group and other users: "
        f"run `chmod 700 {home}`",
        *(
            f"{home / (db + suffix)}: the file has mode {loose[db]}, open to {who[loose[db]]} "
            f"users: run `chmod 600 {home / (db + suffix)}`"
            for db in ("store.db", "sessions.db")
            for suffix in ("", "-wal", "-shm")
        ),
        f"{home / 'config.toml'}: the file has mode 0604, open to other users: "
        f"run `chmod 600 {home / 'config.toml'}`",
    ]
    assert list(report.modes) == expected
    assert report.problems[: len(report.modes)] == list(report.modes)
    assert len(report.problems) == len(report.modes)  # nothing else is wrong with it


def test_the_cli_verify_exits_1_with_the_lines_and_0_once_fixed(loose_home: Path) -> None:
    home = loose_home
    result = CliRunner().invoke(cli, ["verify"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 8  # the folder, both databases with their -wal and -shm, the config
    assert all("run `chmod " in line for line in lines)
    assert f"run `chmod 700 {home}`" in lines[0]
    home.chmod(0o700)
    for name in ("store.db", "sessions.db", "config.toml"):
        (home / name).chmod(0o600)
    fixed = CliRunner().invoke(cli, ["verify"])
    assert fixed.exit_code == 0, fixed.output
    assert "store.db     ok" in fixed.output


def test_a_loose_wal_is_named_too(home: Path, tmp_path: Path) -> None:
    """An old home's database at 0644 gets a 0644 -wal from SQLite: verify names both."""
    doc = tmp_path / "bread.md"
    doc.write_text(NOTE, encoding="utf-8")
    with Arborist(home) as app:
        app.store_conn  # noqa: B018
    (home / "store.db").chmod(0o644)
    with Arborist(home) as app:
        app.ingest([str(doc)])
        assert mode(home / "store.db-wal") == 0o644
        lines = app.verify().modes
    assert any(
        line.startswith(f"{home / 'store.db-wal'}: the file has mode 0644") for line in lines
    )
