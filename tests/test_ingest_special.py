"""Ingest reads only what it was given (issue #22): a folder walk never leaves the folder
through a symbolic link, survives link loops, and a FIFO, device or socket is refused in
one line without waiting. Real files, real links, real FIFOs and sockets: nothing mocked."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from IPython.core.interactiveshell import InteractiveShell

from arborist import Arborist
from arborist._errors import BadInput, NotFound
from arborist._faces.cli import cli
from arborist._store.loaders import discover, load_path
from arborist._store.reading import read_regular

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX links and FIFOs")

PRIVATE = "The combination of the safe is 31-41-59, written down nowhere else."
NOTE = "Sourdough wants a long cold proof in the fridge overnight.\n"


def _documents(home: Path) -> list[str]:
    """The URIs of the documents ``store.db`` holds (none when there is no store yet)."""
    if not (home / "store.db").exists():
        return []
    conn = sqlite3.connect(home / "store.db")
    try:
        return [uri for (uri,) in conn.execute("SELECT uri FROM documents ORDER BY uri")]
    finally:
        conn.close()


def _home_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.iterdir()) if p.is_file())


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``notes/bread.txt``, beside a private file ``private.txt`` outside the folder."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "bread.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "private.txt").write_text(PRIVATE + "\n", encoding="utf-8")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "diary.md").write_text(f"# Diary\n\n{PRIVATE}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return folder


# --- links out of the folder ------------------------------------------------------------------


def test_a_folder_walk_never_leaves_the_folder_through_a_link(home: Path, notes: Path) -> None:
    (notes / "leak.txt").symlink_to(notes.parent / "private.txt")
    (notes / "elsewhere").symlink_to(notes.parent / "private", target_is_directory=True)
    (notes / "abs.md").symlink_to((notes.parent / "private" / "diary.md").resolve())
    assert discover([notes]) == [notes / "bread.txt"]
    with Arborist(home) as app:
        results = app.ingest([str(notes)])
    assert [r.status for r in results] == ["added"]
    assert _documents(home) == [(notes / "bread.txt").resolve().as_uri()]
    assert PRIVATE.encode() not in _home_bytes(home)


def test_a_link_inside_the_folder_is_kept_once(notes: Path) -> None:
    (notes / "sub").mkdir()
    (notes / "sub" / "rye.md").write_text("# Rye\n\nRye ferments fast.\n", encoding="utf-8")
    (notes / "same.txt").symlink_to("bread.txt")  # relative, inside: read once
    (notes / "alias").symlink_to("sub", target_is_directory=True)
    found = discover([notes])
    assert sorted(p.resolve() for p in found) == sorted(
        [(notes / "bread.txt").resolve(), (notes / "sub" / "rye.md").resolve()]
    )
    assert len(found) == 2


def test_follow_symlinks_lets_the_walk_out(home: Path, notes: Path) -> None:
    (notes / "leak.txt").symlink_to(notes.parent / "private.txt")
    (notes / "elsewhere").symlink_to(notes.parent / "private", target_is_directory=True)
    found = discover([notes], follow_symlinks=True)
    assert [p.relative_to(notes).as_posix() for p in found] == [
        "bread.txt",
        "elsewhere/diary.md",
        "leak.txt",
    ]
    result = CliRunner().invoke(cli, ["ingest", "--follow-symlinks", "notes"])
    assert result.exit_code == 0, result.output
    assert len(_documents(home)) == 3


def test_the_cli_walk_skips_a_link_out_of_the_folder(home: Path, notes: Path) -> None:
    (notes / "leak.txt").symlink_to(notes.parent / "private.txt")
    result = CliRunner().invoke(cli, ["ingest", "notes"])
    assert result.exit_code == 0, result.output
    assert _documents(home) == [(notes / "bread.txt").resolve().as_uri()]
    assert PRIVATE.encode() not in _home_bytes(home)


def test_a_notebook_ingest_takes_follow_symlinks(home: Path, notes: Path) -> None:
    (notes / "leak.txt").symlink_to(notes.parent / "private.txt")
    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        ip.run_line_magic("arborist", f"ingest {notes}")
        assert len(_documents(home)) == 1
        ip.run_line_magic("arborist", f"ingest --follow-symlinks {notes}")
        assert len(_documents(home)) == 2
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


@pytest.mark.parametrize("follow", [False, True], ids=["default", "follow"])
def test_link_loops_end_the_walk(notes: Path, follow: bool) -> None:
    (notes / "sub").mkdir()
    (notes / "sub" / "up").symlink_to("..", target_is_directory=True)  # a folder loop
    (notes / "sub" / "self").symlink_to(".", target_is_directory=True)
    (notes / "a.txt").symlink_to("b.txt")  # a file loop: a -> b -> a
    (notes / "b.txt").symlink_to("a.txt")
    (notes / "gone.md").symlink_to("nowhere.md")  # broken
    found = discover([notes], follow_symlinks=follow)
    assert [p.relative_to(notes).as_posix() for p in found] == ["bread.txt"]


def test_a_link_loop_named_explicitly_is_one_line(notes: Path) -> None:
    (notes / "a.txt").symlink_to("b.txt")
    (notes / "b.txt").symlink_to("a.txt")
    with pytest.raises(NotFound, match=r"^notes/a\.txt: is a symbolic link loop$"):
        discover(["notes/a.txt"])


# --- FIFOs, devices, sockets ------------------------------------------------------------------


@pytest.fixture
def fifo(notes: Path) -> Iterator[Path]:
    """``notes/pipe.txt``, a real FIFO nobody writes to. Released at the end if a reader is
    still stuck on it, so a regression fails the test rather than hanging the run."""
    path = notes / "pipe.txt"
    os.mkfifo(path)
    yield path
    _release(path)


def _release(path: Path) -> None:
    """Open the FIFO for writing without waiting: unblocks a reader stuck in ``open``."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # no reader waiting (ENXIO): nothing to release
        return
    os.close(fd)


def _in_thread(work: Callable[[], object], path: Path) -> BaseException | None:
    """Run ``work()`` in a thread; what it raised. A reader still waiting after 20 s (a FIFO
    opened without O_NONBLOCK) fails the test, and is then released."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the test
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(20)
    stuck = thread.is_alive()
    if stuck:
        _release(path)
        thread.join(5)
    assert not stuck, "reading the FIFO waited for a writer"
    return raised[0] if raised else None


def test_a_fifo_named_explicitly_is_refused_without_waiting(home: Path, fifo: Path) -> None:
    def ingest() -> None:
        with Arborist(home) as app:
            app.store_conn  # noqa: B018  (a store that exists: the refusal writes nothing to it)
            app.ingest(["notes/pipe.txt"])

    raised = _in_thread(ingest, fifo)
    assert isinstance(raised, BadInput)
    assert str(raised) == (
        "notes/pipe.txt: is a named pipe (FIFO), not a regular file; only regular files are read"
    )
    assert _documents(home) == []


def test_the_cli_refuses_a_fifo_in_one_line(home: Path, fifo: Path) -> None:
    result = CliRunner().invoke(cli, ["ingest", "notes/bread.txt", "notes/pipe.txt"])
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "notes/pipe.txt: is a named pipe (FIFO), not a regular file" in lines[0]
    assert "Traceback" not in result.output
    assert _documents(home) == []  # the batch stops before anything is written


def test_load_path_of_a_fifo_does_not_wait(fifo: Path) -> None:
    """Past discovery (a file swapped for a FIFO after the walk): the read still refuses."""
    raised = _in_thread(lambda: load_path(fifo), fifo)
    assert isinstance(raised, BadInput)
    assert "is a named pipe (FIFO)" in str(raised)


def test_a_fifo_in_a_folder_is_skipped(home: Path, fifo: Path, notes: Path) -> None:
    assert discover([notes]) == [notes / "bread.txt"]

    def ingest() -> None:
        with Arborist(home) as app:  # opened, used and closed in the one thread
            app.ingest([str(notes)])

    assert _in_thread(ingest, fifo) is None
    assert _documents(home) == [(notes / "bread.txt").resolve().as_uri()]


def test_a_link_to_a_fifo_is_refused(fifo: Path, notes: Path) -> None:
    (notes / "tap.md").symlink_to("pipe.txt")
    with pytest.raises(BadInput, match=r"^notes/tap\.md: is a named pipe \(FIFO\)"):
        discover(["notes/tap.md"])
    raised = _in_thread(lambda: read_regular(notes / "tap.md"), fifo)
    assert isinstance(raised, BadInput)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_dev_zero_is_refused_before_a_byte_is_read(home: Path, notes: Path) -> None:
    (notes / "zero.txt").symlink_to("/dev/zero")
    with pytest.raises(BadInput) as refused:
        discover(["notes/zero.txt"])
    assert str(refused.value) == (
        "notes/zero.txt: is a character device, not a regular file; only regular files are read"
    )
    with pytest.raises(BadInput, match="is a character device"):
        load_path(notes / "zero.txt")
    # In a folder walk it is a link out of the folder, and not a regular file either way.
    assert discover([notes]) == [notes / "bread.txt"]
    assert discover([notes], follow_symlinks=True) == [notes / "bread.txt"]
    result = CliRunner().invoke(cli, ["ingest", "notes/zero.txt"])
    assert result.exit_code != 0
    assert "notes/zero.txt: is a character device" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_socket_is_refused(notes: Path, tmp_path: Path) -> None:
    path = notes / "sock.txt"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        with pytest.raises(BadInput, match=r"^notes/sock\.txt: is a socket, not a regular file"):
            discover(["notes/sock.txt"])
        with pytest.raises(BadInput, match="is a socket"):
            load_path(path)
        assert discover([notes]) == [notes / "bread.txt"]
    finally:
        server.close()


def test_a_regular_file_still_loads(notes: Path) -> None:
    doc = load_path(notes / "bread.txt")
    assert doc.text.strip() == NOTE.strip()
    assert doc.uri == (notes / "bread.txt").resolve().as_uri()


def test_an_ingest_says_what_its_folder_walk_passed_over_and_why(home: Path, notes: Path) -> None:
    """A walk that skips files a reader expected it to read says so, each with why, its
    names inert; hidden files, unsupported suffixes and excluded names are not listed."""
    os.mkfifo(notes / "pipe.txt")
    (notes / "leak.txt").symlink_to(notes.parent / "private.txt")
    (notes / "gone.md").symlink_to(notes / "nowhere.md")
    (notes / "loop.md").symlink_to(notes / "loop.md")
    (notes / "sub").mkdir()
    os.mkfifo(notes / "sub" / "evil\x1b[2J.txt")
    os.mkfifo(notes / ".hidden.txt")
    os.mkfifo(notes / "tool.exe")
    os.mkfifo(notes / "skipme.txt")
    skipped: list[tuple[str, str]] = []
    found = discover([notes], exclude=["skipme.txt"], skipped=skipped)
    assert found == [notes / "bread.txt"]
    assert skipped == [
        ("gone.md", "a broken link or a link loop"),
        ("leak.txt", "a link leaving the folder (--follow-symlinks follows it)"),
        ("loop.md", "a broken link or a link loop"),
        ("pipe.txt", "a named pipe (FIFO)"),
        ("sub/evil\x1b[2J.txt", "a named pipe (FIFO)"),
    ]
    result = CliRunner().invoke(cli, ["--home", str(home), "ingest", str(notes)])
    assert result.exit_code == 0, result.output
    last = result.output.splitlines()[-1]
    assert last.startswith("skipped 6: gone.md (a broken link or a link loop); leak.txt (")
    assert last.endswith("; and 1 more")  # five named, then how many more
    assert "\x1b" not in result.output and "pipe.txt (a named pipe (FIFO))" in last
    # --json lists each file passed over after the documents, every one of them
    listed = CliRunner().invoke(cli, ["--home", str(home), "ingest", "--json", str(notes)])
    assert listed.exit_code == 0 and "\x1b" not in listed.output, listed.output
    data = json.loads(listed.output)
    assert [d["status"] for d in data] == ["unchanged"] + ["skipped"] * 6
    assert data[1] == {"status": "skipped", "path": "gone.md", "reason": skipped[0][1]}
    # all six, by path (the CLI's walk has no --exclude: skipme.txt is a FIFO it passed over)
    listed_paths = sorted((d["path"], d["reason"]) for d in data[1:])
    assert listed_paths == sorted([*skipped, ("skipme.txt", "a named pipe (FIFO)")])
    # with nothing passed over, nothing is said
    bare = CliRunner().invoke(cli, ["--home", str(home), "ingest", str(notes / "bread.txt")])
    assert "skipped" not in bare.output


def test_a_folder_walk_passes_over_files_that_are_not_text(home: Path, tmp_path: Path) -> None:
    """One Latin-1 file, one binary file or one empty placeholder among a folder's files
    does not stop the folder: each is passed over and said, with why, the rest stored; a
    file named explicitly is still refused in one line, and nothing is written."""
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "kept.md").write_text("Tea is brewed from the leaves of Camellia sinensis.\n")
    (folder / "latin.txt").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (folder / "image.txt").write_bytes(b"GIF89a\x00\x01\x00")
    (folder / "empty.md").write_bytes(b"")
    result = CliRunner().invoke(cli, ["--home", str(home), "ingest", "--json", str(folder)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [d["status"] for d in data] == ["added", "skipped", "skipped", "skipped"]
    assert _documents(home) == [(folder / "kept.md").resolve().as_uri()]
    assert {(Path(d["path"]).name, d["reason"]) for d in data[1:]} == {
        ("empty.md", "has no text"),
        ("image.txt", "contains NUL bytes (binary, not text)"),
        ("latin.txt", "not UTF-8 text: cannot decode UTF-8 (byte 0xe9 at offset 3)"),
    }
    other = tmp_path / "other-home"
    named = CliRunner().invoke(cli, ["--home", str(other), "ingest", str(folder / "latin.txt")])
    assert named.exit_code == 2
    assert named.output.strip().splitlines() == [
        f"arborist: error: {folder / 'latin.txt'}: not UTF-8 text: cannot decode UTF-8 "
        "(byte 0xe9 at offset 3)"
    ]
    with pytest.raises(BadInput, match="has no text"), Arborist(other) as app:
        app.ingest([str(folder / "empty.md"), str(folder / "kept.md")])
    assert _documents(other) == []


def test_the_same_bytes_at_one_uri_are_one_document_and_at_two_uris_two(tmp_path: Path) -> None:
    """README: the same bytes at the same URI twice are one document and nothing is written;
    a copy at another path is a document of its own, cited by its own URI."""
    home = tmp_path / "home"
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bread.txt").write_text(NOTE, encoding="utf-8")
    first = CliRunner().invoke(
        cli, ["--home", str(home), "ingest", str(tmp_path / "a"), str(tmp_path / "b")]
    )
    assert first.exit_code == 0, first.output
    uris = _documents(home)
    assert [u.rsplit("/", 2)[-2:] for u in uris] == [["a", "bread.txt"], ["b", "bread.txt"]]
    before = _home_bytes(home)
    again = CliRunner().invoke(cli, ["--home", str(home), "ingest", str(tmp_path / "a")])
    assert again.exit_code == 0, again.output
    assert again.output.splitlines()[0].startswith("unchanged"), again.output
    assert _documents(home) == uris
    assert _home_bytes(home) == before, "ingesting the same bytes again writes nothing"
