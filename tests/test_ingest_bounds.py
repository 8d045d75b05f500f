"""Ingest reads only the file it found, and no file over its size cap: a file or folder
swapped for a link after the walk is refused, not read; a huge (sparse) file is refused
by its size before a byte is read, in one line, with nothing written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from arborist import Arborist
from arborist._config import max_file_bytes
from arborist._errors import BadInput
from arborist._store.loaders import discover, load_path
from arborist._store.reading import DEFAULT_MAX_FILE_BYTES, read_regular

ROOT = Path(__file__).resolve().parent.parent
PRIVATE = "The vault combination is forty-two left, seven right."


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    """``notes/a.md`` and ``notes/sub/b.md``, and ``outside/`` beside them holding a
    private ``a.md`` and ``b.md`` no ingest of ``notes`` may read."""
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("Alders fix nitrogen in their roots.\n", encoding="utf-8")
    (folder / "sub" / "b.md").write_text("Birches colonise open ground.\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("a.md", "b.md"):
        (outside / name).write_text(PRIVATE + "\n", encoding="utf-8")
    return folder


def _store_bytes(home: Path) -> bytes:
    if not home.exists():
        return b""
    return b"".join(p.read_bytes() for p in sorted(home.iterdir()) if ".db" in p.name)


def _documents(home: Path) -> int:
    """How many documents store.db holds (none when the refusal left no store.db at all)."""
    if not (home / "store.db").exists():
        return 0
    conn = sqlite3.connect(f"file:{home / 'store.db'}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
    finally:
        conn.close()


def _swap_file_for_link(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


def _swap_folder_for_link(folder: Path, target: Path) -> None:
    folder.rename(folder.with_name(folder.name + ".old"))
    folder.symlink_to(target, target_is_directory=True)


def test_a_file_swapped_for_a_link_after_the_walk_is_refused_not_read(notes: Path) -> None:
    found = discover([notes])
    _swap_file_for_link(notes / "a.md", notes.parent / "outside" / "a.md")
    with pytest.raises(BadInput) as caught:
        load_path(found[0])
    assert (
        str(caught.value)
        == f"{notes / 'a.md'}: became a symbolic link since it was found; not read"
    )


def test_a_folder_swapped_for_a_link_after_the_walk_is_refused_not_read(notes: Path) -> None:
    found = discover([notes])
    _swap_folder_for_link(notes / "sub", notes.parent / "outside")
    with pytest.raises(BadInput, match="since it was found; not read"):
        load_path(found[1])


def test_a_walked_folder_swapped_above_the_file_is_refused_by_its_identity(
    notes: Path, tmp_path: Path
) -> None:
    """The folder above the file's own folder is swapped: every name on the way is a real
    folder again, but not the one the walk saw, so fstat of the opened folder refuses."""
    found = discover([notes])
    twin = tmp_path / "twin"
    (twin / "sub").mkdir(parents=True)
    (twin / "sub" / "b.md").write_text(PRIVATE + "\n", encoding="utf-8")
    notes.rename(tmp_path / "notes.old")
    twin.rename(notes)
    with pytest.raises(BadInput, match="its folder changed since it was found; not read"):
        load_path(found[1])


def test_a_file_replaced_by_another_after_the_walk_is_refused(notes: Path) -> None:
    found = discover([notes])
    (notes / "a.md").rename(notes / "a.md.old")  # kept, so its inode is not handed out again
    (notes / "a.md").write_text(PRIVATE + "\n", encoding="utf-8")
    with pytest.raises(BadInput, match="was replaced since it was found; not read"):
        read_regular(found[0])


def test_an_ingest_whose_file_is_swapped_between_walk_and_read_writes_nothing(
    home: Path, notes: Path
) -> None:
    """A real race hook: the progress wrapper, which sees the walked paths just before
    each is read, swaps a file for a link to an outside file."""

    def swap_then_read(paths: Iterable[Path]) -> Iterator[Path]:
        for path in paths:
            if path.name == "b.md":
                _swap_file_for_link(path, notes.parent / "outside" / "b.md")
            yield path

    with Arborist(home) as app, pytest.raises(BadInput) as caught:
        app.ingest([str(notes)], track=swap_then_read)
    assert "\n" not in str(caught.value) and "since it was found" in str(caught.value)
    assert PRIVATE.encode() not in _store_bytes(home)
    assert _documents(home) == 0


def test_a_link_named_explicitly_is_still_followed(notes: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.md"
    link.symlink_to(notes / "a.md")
    assert "Alders" in load_path(link).text
    assert "Alders" in load_path(discover([link])[0]).text


def test_a_file_over_the_cap_is_refused_by_its_size_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"word " * 200)
    assert load_path(path, max_bytes=1000).text.startswith("word")
    with pytest.raises(BadInput) as caught:
        load_path(path, max_bytes=999)
    assert str(caught.value) == (
        f"{path}: too large (1000 bytes; the limit is 999: set ARBORIST_MAX_FILE_BYTES "
        "or [ingest] max_file_bytes to read more)"
    )


def test_the_cap_comes_from_the_environment_then_config_then_the_default() -> None:
    assert DEFAULT_MAX_FILE_BYTES == 64 * 1024 * 1024
    assert max_file_bytes({}, {}) == DEFAULT_MAX_FILE_BYTES
    assert max_file_bytes({"ingest": {"max_file_bytes": 500}}, {}) == 500
    assert (
        max_file_bytes({"ingest": {"max_file_bytes": 500}}, {"ARBORIST_MAX_FILE_BYTES": "70"}) == 70
    )
    for bad in (0, -1, "5", 1.5, True):
        with pytest.raises(BadInput, match=r"^config.toml: \[ingest\] max_file_bytes must be"):
            max_file_bytes({"ingest": {"max_file_bytes": bad}}, {})
    with pytest.raises(BadInput, match=r"^ARBORIST_MAX_FILE_BYTES must be"):
        max_file_bytes({}, {"ARBORIST_MAX_FILE_BYTES": "64MiB"})


def test_the_home_config_caps_an_ingest_and_nothing_is_written(home: Path, tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text("Hazel coppices well. " * 20, encoding="utf-8")
    home.mkdir(parents=True)
    (home / "config.toml").write_text("[ingest]\nmax_file_bytes = 100\n", encoding="utf-8")
    with Arborist(home) as app:
        with pytest.raises(BadInput, match="too large"):
            app.ingest([str(tmp_path / "doc.md")])
        assert _documents(home) == 0


_RSS_PROBE = """
import resource, sys
from arborist._errors import BadInput
from arborist._store.loaders import load_path

def peak_kib():
    # The peak RSS of this process's own memory: /proc's VmHWM starts afresh at exec,
    # where getrusage's ru_maxrss may carry the forking parent's peak over.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

before = peak_kib()
try:
    load_path(sys.argv[1])
except BadInput as exc:
    print(exc)
print(before, peak_kib())
"""


def test_a_two_gigabyte_sparse_file_is_refused_without_a_big_allocation(
    tmp_path: Path, home: Path
) -> None:
    big = tmp_path / "huge.txt"
    with open(big, "wb") as out:
        out.truncate(2 * 1024**3)  # sparse: no disk, but 2 GiB to whoever reads it
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    probe = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, str(big)],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    refusal, peaks = probe.stdout.splitlines()
    before, after = map(int, peaks.split())
    assert refusal.startswith(f"{big}: too large (2147483648 bytes; the limit is 67108864")
    assert after - before < 16 * 1024, "the refusal adds under 16 MiB to the peak (KiB)"
    assert after < 512 * 1024
    cli = subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), "ingest", str(big)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert cli.returncode != 0
    assert cli.stderr.count("\n") == 1 and "too large" in cli.stderr
    assert not (home / "store.db").exists() or b"huge.txt" not in _store_bytes(home)


@pytest.mark.parametrize("typed", ["\u00b2", "\uff11\uff12\uff13", "\u0663", "9" * 5000, "1e6"])
def test_a_cap_of_anything_but_ascii_digits_is_refused_in_one_line(typed: str) -> None:
    """``str.isdigit`` calls ``²`` and full-width ``１２３`` digits (``int`` takes the one
    and chokes on the other); a cap is ASCII digits only, and no longer than a size is."""
    with pytest.raises(BadInput, match=r"^ARBORIST_MAX_FILE_BYTES must be a whole number"):
        max_file_bytes({}, {"ARBORIST_MAX_FILE_BYTES": typed})
    assert max_file_bytes({}, {"ARBORIST_MAX_FILE_BYTES": " 123 "}) == 123


def test_the_cli_refuses_a_superscript_cap_in_one_line_and_writes_nothing(
    home: Path, tmp_path: Path
) -> None:
    (tmp_path / "doc.md").write_text("Hazel coppices well.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARBORIST_MAX_FILE_BYTES": "\u00b2"}
    run = subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), "ingest", str(tmp_path / "doc.md")],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1 and "ARBORIST_MAX_FILE_BYTES must be" in run.stderr
    assert _documents(home) == 0


def test_rehydration_reads_a_file_under_the_home_config_cap_as_ingest_does(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("Hazel coppices well. " * 20, encoding="utf-8")
    monkeypatch.delenv("ARBORIST_MAX_FILE_BYTES", raising=False)
    with Arborist(home) as app:
        app.ingest([str(doc)])
        app.evict(str(doc), "cold")
    (home / "config.toml").write_text("[ingest]\nmax_file_bytes = 100\n", encoding="utf-8")
    with (
        Arborist(home) as app,
        pytest.raises(BadInput, match=r"too large \(420 bytes; the limit is 100"),
    ):
        app.rehydrate(str(doc))
    (home / "config.toml").write_text("[ingest]\nmax_file_bytes = 420\n", encoding="utf-8")
    with Arborist(home) as app:
        assert app.rehydrate(str(doc)).changed > 0
