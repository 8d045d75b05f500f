"""Never a traceback from input, and a failed write leaves the stores verifiable.

Hypothesis drives every face that reads untrusted input: the CLI's argument
parser, the REPL's commands and questions, import files, saved notebooks given
as witnesses and ``config.toml``, with bytes that are not UTF-8, JSON and TOML
nested 100,000 deep and huge values. The contract: a result, or one line
(``arborist: error: ...`` and a non-zero exit at the CLI, ``error: ...`` in the
REPL, which goes on), and a refused command writes nothing (the bytes of both
databases and their ``-wal`` are unchanged).

Then the machine fails a write for real. ``EFBIG``: the file size limit
(``RLIMIT_FSIZE``, as ``ulimit -f`` sets it) is set in the child before it runs
``arborist``, at sizes that make ingest, ask and import fail at different
writes; SIGXFSZ is not touched, since the CLI ignores it itself. ``EIO``: strace
makes the kernel fail the Nth ``pwrite64`` of the process with ``EIO`` (the
syscall is not run), for a range of N. Each time: one line, exit 1, and
``arborist verify`` passes afterwards.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arborist._errors import ArboristError, StorageError, foreign
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader
from tests.hypothesis_sizes import scaled_examples

ROOT = Path(__file__).resolve().parent.parent
SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
DEEP = 100_000


def scaled(examples: int) -> settings:
    """``examples`` in a normal run, ten times as many under ``pytest --long``."""
    return settings(
        max_examples=scaled_examples(examples),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


# --- hostile values ------------------------------------------------------------------------------

undecodable = st.binary(min_size=1, max_size=12).map(
    lambda raw: (b"x" + raw + b"\xe9").decode("utf-8", "surrogateescape")
)
"""Text as Python gives an argument or a typed line whose bytes are not UTF-8 (at least
one byte is not: ``\\xe9`` alone never is)."""

DEEP_OPENINGS = ["[", "{", '{"a":', "[{", "a=["]
HUGE = {"digits": ("9", 20_000), "letters": ("a", 200_000), "accents": ("é", 50_000),
        "words": ("x ", 50_000)}  # fmt: skip
deep = st.sampled_from([f"deep:{opening}" for opening in DEEP_OPENINGS])
huge = st.sampled_from([f"huge:{name}" for name in HUGE])
anything = st.text(max_size=30) | st.sampled_from(["\x00", "a\x00b", "/tmp/\x00", "-", "--"])
hostile = st.one_of(undecodable, deep, huge, anything)
"""A hostile value, or the name of one too big to show in a failure report (:func:`real`)."""


def real(value: str) -> str:
    """The value a name from :data:`deep` or :data:`huge` stands for (else ``value``)."""
    kind, _, name = value.partition(":")
    if kind == "deep" and name in DEEP_OPENINGS:
        return name * DEEP
    if kind == "huge" and name in HUGE:
        unit, count = HUGE[name]
        return unit * count
    return value


CLI_FORMS: list[Callable[[str], list[str]]] = [
    lambda v: ["rehydrate", v],
    lambda v: ["evict", v, "--tier", "warm"],
    lambda v: ["ingest", f"/nonexistent/{v}"],  # never a real folder: it would be ingested
    lambda v: ["ingest", "--include", v, "/nonexistent/folder"],
    lambda v: ["search", v],
    lambda v: ["related", v],
    lambda v: ["derive", "snippet", "--from", v],
    lambda v: ["record", "show", v],
    lambda v: ["record", "falsify", v, "--state", "failed", "--reason", "r"],
    lambda v: ["session", "--tree", "--sid", v],
    lambda v: ["session", "--find", v],
    lambda v: ["session", "--export", v],
    lambda v: ["session", "--sid", v, "--list"],
    lambda v: ["verify", "--checkpoint", v],
    lambda v: ["chain-check", "--checkpoint", v],
    lambda v: ["ask", "q", "--sid", v],
    lambda v: ["ask", "q", "--parent", v],
    lambda v: ["ask", "q", "--llm", v],
    lambda v: [v],
    lambda v: ["stats", v],
]
"""Every subcommand, each with the hostile value where a user types one."""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with one document and one answered turn, copied fresh for each example."""
    home = tmp_path_factory.mktemp("seeded") / "home"
    source = home.parent / "spider.md"
    source.write_text(SPIDER, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "ingest", str(source)]).exit_code == 0
    assert (
        runner.invoke(cli, ["--home", str(home), "ask", "Who created Spider-Man?"]).exit_code == 0
    )
    return home


def _fresh(seeded: Path, tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(seeded, home)
    return home


def _digest(home: Path) -> dict[str, str]:
    """The bytes of both databases and their -wal: what "nothing written" compares (an
    empty -wal, which a reader may leave, holds nothing: as good as none)."""
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(home.iterdir())
        if path.name.endswith((".db", ".db-wal")) and path.stat().st_size
    }


def _assert_one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr[-3000:]
    assert lines[0].startswith("arborist: error: "), lines[0][:300]
    assert "Traceback" not in stderr
    return lines[0]


def _invoke(home: Path, args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a traceback: the test fails with it
    return result.exit_code, result.stdout, result.stderr


# --- the CLI's arguments -------------------------------------------------------------------------


@scaled(60)
@given(form=st.sampled_from(CLI_FORMS), value=hostile)
def test_any_argument_gives_a_result_or_one_line_and_a_refusal_writes_nothing(
    seeded: Path, tmp_path: Path, form: Callable[[str], list[str]], value: str
) -> None:
    home = _fresh(seeded, tmp_path, "cli")
    before = _digest(home)
    code, _, stderr = _invoke(home, form(real(value)))
    if code != 0:
        _assert_one_error_line(stderr)
        assert _digest(home) == before, "a refused command wrote"
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in value):
        assert code == 2 and "not UTF-8 text" in stderr, stderr  # bad arguments


def test_a_non_utf8_argument_is_one_line_at_a_real_command_line(
    seeded: Path, tmp_path: Path
) -> None:
    home = _fresh(seeded, tmp_path, "argv")
    before = _digest(home)
    for args in ([b"rehydrate", b"\xe9"], [b"evict", b"\xe9", b"--tier", b"cold"],
                 [b"ingest", b"http://example.org/\xe9"], [b"ask", b"caf\xe9?"]):  # fmt: skip
        done = subprocess.run(
            [os.fsencode(sys.executable), b"-m", b"arborist", *args],
            check=False,
            capture_output=True,
            cwd=ROOT,
            env={**os.environ, "ARBORIST_HOME": str(home)},
        )
        line = _assert_one_error_line(done.stderr.decode())
        assert done.returncode == 2 and "not UTF-8 text" in line and "\\xe9" in line, line
    assert _digest(home) == before


# --- files: import, witness, config.toml ---------------------------------------------------------

EXPORT_LINE = json.dumps({"type": "session", "format": "x"})
BIG_BODIES = {
    **{f"deep {o!r}": o * DEEP for o in (b"[", b"{", b'{"type": ', b'{"a":[', b"a = [", b"x = {y = ")},
    "huge string": b'"' + b"a" * 300_000 + b'"',
    "huge number": b"9" * 30_000,
    "long line": EXPORT_LINE.encode() * 1000,
}  # fmt: skip
file_bodies = st.one_of(
    st.binary(max_size=64).map(lambda raw: b"\xff" + raw),  # never UTF-8: 0xff cannot start
    st.binary(max_size=200),
    st.sampled_from(sorted(BIG_BODIES)),  # by name: the bytes are too big to report
    st.text(max_size=100).map(str.encode),
)


def body_of(drawn: bytes | str) -> bytes:
    return BIG_BODIES[drawn] if isinstance(drawn, str) else drawn


@scaled(40)
@given(body=file_bodies)
def test_any_import_file_is_imported_or_one_line_and_nothing_written(
    seeded: Path, tmp_path: Path, body: bytes | str
) -> None:
    home = _fresh(seeded, tmp_path, "import")
    before = _digest(home)
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(body_of(body))
    code, _, stderr = _invoke(home, ["session", "--import", str(path)])
    if code == 0:
        return  # nothing to import (an empty file): nothing was
    _assert_one_error_line(stderr)
    assert _digest(home) == before
    with Arborist(home) as app:  # the REPL's and %arborist's import
        out = _repl(app, [f"/import {path}"])
    assert _digest(home) == before
    assert [line for line in out if line.startswith("error: ")], out


@scaled(40)
@given(body=file_bodies)
def test_any_witness_notebook_is_one_line_and_nothing_written(
    seeded: Path, tmp_path: Path, body: bytes | str
) -> None:
    home = _fresh(seeded, tmp_path, "witness")
    before = _digest(home)
    path = tmp_path / "hostile.ipynb"
    path.write_bytes(body_of(body))
    code, _, stderr = _invoke(home, ["verify", "--witness", str(path)])
    assert code != 0, "no checkpoint in any of these"
    _assert_one_error_line(stderr)
    assert _digest(home) == before


@scaled(40)
@given(
    body=file_bodies,
    command=st.sampled_from([["stats"], ["ask", "Who drew him?"], ["search", "Ditko"]]),
)
def test_any_config_toml_gives_a_result_or_one_line_and_a_refusal_writes_nothing(
    seeded: Path, tmp_path: Path, body: bytes | str, command: list[str]
) -> None:
    home = _fresh(seeded, tmp_path, "config")
    (home / "config.toml").write_bytes(body_of(body))
    before = _digest(home)
    code, _, stderr = _invoke(home, command)
    if code != 0:
        line = _assert_one_error_line(stderr)
        assert "config.toml" in line, line
        assert _digest(home) == before


def test_config_nested_100000_deep_is_one_line_for_every_command(
    seeded: Path, tmp_path: Path
) -> None:
    home = _fresh(seeded, tmp_path, "deep-config")
    (home / "config.toml").write_text("a = " + "[" * DEEP, encoding="utf-8")
    before = _digest(home)
    refused = []
    for args in (["stats"], ["ask", "Who drew him?"], ["session", "--list"], ["verify"]):
        code, _, stderr = _invoke(home, args)
        if stderr:  # verify reads no config; it may fail for its own reasons, on stdout
            assert "nested deeper than 100 levels" in _assert_one_error_line(stderr)
            assert code == 2
            refused.append(args[0])
    assert "ask" in refused  # an ask reads the config (models, the allowlist)
    assert _digest(home) == before


# --- the REPL ------------------------------------------------------------------------------------

REPL_FORMS: list[Callable[[str], str]] = [
    lambda v: v,  # a question
    lambda v: f"/evict {v} --tier warm",
    lambda v: f"/rehydrate {v}",
    lambda v: f"/search {v}",
    lambda v: f"/cd {v}",
    lambda v: f"/show {v}",
    lambda v: f"/label {v}",
    lambda v: f"/import {v}",
    lambda v: f"/verify --witness {v}",
    lambda v: f"/ingest {v}",
    lambda v: f"/{v}",
]


def _repl(app: Arborist, script: list[str]) -> list[str]:
    out: list[str] = []
    sid = app.sessions()[0][0].sid
    Repl(app, sid, read=scripted_reader([*script, "/sid"]), write=out.append).run()
    assert out[-2] == sid, "the REPL went on after every line"
    return out


@scaled(20)
@given(form=st.sampled_from(REPL_FORMS), value=st.one_of(undecodable, deep, huge))
def test_any_repl_line_gives_a_result_or_one_error_line_and_the_repl_goes_on(
    seeded: Path, tmp_path: Path, form: Callable[[str], str], value: str
) -> None:
    home = _fresh(seeded, tmp_path, "repl")
    before = _digest(home)
    line = form(real(value)).replace("\n", " ")
    with Arborist(home) as app:
        out = _repl(app, [line])
    errors = [text for text in out if text.startswith("error: ")]
    for text in errors:
        assert "\n" not in text, text[:300]
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in value):
        assert errors and "not UTF-8 text" in errors[0], out
    if errors:
        assert _digest(home) == before, "a refused line wrote"


def test_the_repl_reads_a_non_utf8_line_from_a_pipe_and_goes_on(
    seeded: Path, tmp_path: Path
) -> None:
    home = _fresh(seeded, tmp_path, "repl-pipe")
    with Arborist(home) as app:
        sid = app.sessions()[0][0].sid
    before = _digest(home)
    done = subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), "session", "--sid", sid],
        check=False,
        input=b"/evict \xe9 --tier warm\nwhat is caf\xe9\n/root\n",
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"},
    )
    assert done.returncode == 0 and not done.stderr, done.stderr.decode()[-2000:]
    out = done.stdout.decode()
    assert out.count("error: the line: not UTF-8 text") == 2, out
    lines = out.splitlines()
    assert "-000000" in lines[-3] and lines[-2].startswith("session_root "), out  # /root, after
    assert _digest(home) == before


# --- the machine fails a write -------------------------------------------------------------------


def test_foreign_errors_are_one_line_storage_errors() -> None:
    for exc in (
        sqlite3.OperationalError("database or disk is full"),
        sqlite3.OperationalError("disk I/O error"),
        OSError(errno.EFBIG, "File too large", "/h/store.db-wal"),
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EIO, "Input/output error", "/h/repl_history"),
    ):
        translated = foreign(exc)
        assert isinstance(translated, StorageError), exc
        assert "\n" not in str(translated) and "arborist verify" in str(translated)
    assert isinstance(foreign(OSError(errno.EACCES, "Permission denied", "/x")), ArboristError)
    assert isinstance(foreign(RecursionError()), ArboristError)
    assert isinstance(foreign(ValueError("embedded null byte")), ArboristError)
    assert isinstance(foreign(UnicodeEncodeError(
        "utf-8", "\udce9", 0, 1, "surrogates not allowed")), ArboristError)  # fmt: skip
    assert foreign(ValueError("a bug")) is None
    assert foreign(sqlite3.OperationalError("database is locked")) is None  # relied upon
    assert foreign(KeyError("a bug")) is None  # keeps its traceback


def _arborist(home: Path, args: list[str], *, limit: int | None = None, eio: int | None = None,
              stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """``arborist ARGS`` in a child: under a file size limit of ``limit`` bytes (EFBIG past
    it), or with its ``eio``-th ``pwrite64`` and every later one failing with EIO."""
    command = [sys.executable, "-m", "arborist", "--home", str(home), *args]
    if eio is not None:
        strace = shutil.which("strace")
        assert strace, "the EIO tests need strace (apt-get install strace)"
        command = [strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64",
                   "-e", f"inject=pwrite64:error=EIO:when={eio}+", *command]  # fmt: skip

    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        command, check=False, capture_output=True, text=True, cwd=ROOT, preexec_fn=limited,
        input=None if stdin is None else stdin.decode(),
    )  # fmt: skip


def _verified(home: Path) -> None:
    done = _arborist(home, ["verify"])
    assert done.returncode == 0, done.stdout + done.stderr


WRITES = [
    ("ingest", ["ingest", "BIG"]),
    ("ask", ["ask", "Who drew Spider-Man, and when?", "--no-cache"]),
    ("import", ["session", "--import", "EXPORT"]),
]
"""A command of each kind that writes: a document, an answer and its turn, sessions."""


@pytest.fixture(scope="module")
def export_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session of another home, exported: importing it writes a session and its turns."""
    home = tmp_path_factory.mktemp("exporter") / "home"
    source = home.parent / "spider.md"
    source.write_text(SPIDER, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["--home", str(home), "ingest", str(source)]).exit_code == 0
    for question in ("Who created Spider-Man?", "Who was the artist?"):
        assert runner.invoke(cli, ["--home", str(home), "ask", question]).exit_code == 0
    with Arborist(home) as app:
        sid = app.sessions()[0][0].sid
    path = home.parent / "export.jsonl"
    done = runner.invoke(cli, ["--home", str(home), "session", "--export", sid])
    path.write_text(done.stdout, encoding="utf-8")
    return path


def _sized_args(args: list[str], big: Path, export: Path) -> list[str]:
    return [str(big) if a == "BIG" else str(export) if a == "EXPORT" else a for a in args]


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.md"
    path.write_text(("Lorem ipsum dolor sit amet, Ditko. " * 30 + "\n\n") * 400, encoding="utf-8")
    return path


def test_efbig_during_any_write_is_one_line_and_the_stores_verify(
    seeded: Path, tmp_path: Path, big_file: Path, export_file: Path, long_run: bool
) -> None:
    store = (seeded / "store.db").stat().st_size
    limits = [0, store // 2, store + 65536]
    if long_run:
        limits += list(range(store - 40_000, store + 400_000, 9_973))
    failures = 0
    for name, args in WRITES:
        for limit in limits:
            home = _fresh(seeded, tmp_path, f"efbig-{name}")
            done = _arborist(home, _sized_args(args, big_file, export_file), limit=limit)
            if done.returncode != 0:
                failures += 1
                line = _assert_one_error_line(done.stderr)
                assert done.returncode == 1, line
            _verified(home)
    print(f"EFBIG: {len(WRITES) * len(limits)} runs, {failures} failed a write")  # the figure
    assert failures >= len(limits), "the size limits made writes fail"


def test_eio_during_any_write_is_one_line_and_the_stores_verify(
    seeded: Path, tmp_path: Path, big_file: Path, export_file: Path, long_run: bool
) -> None:
    nths = [1, 5, 40] + (list(range(2, 200, 3)) if long_run else [])
    failures = 0
    for name, args in WRITES:
        for nth in nths:
            home = _fresh(seeded, tmp_path, f"eio-{name}")
            done = _arborist(home, _sized_args(args, big_file, export_file), eio=nth)
            if done.returncode != 0:
                failures += 1
                line = _assert_one_error_line(done.stderr)
                assert done.returncode == 1 and "I/O error" in line, line
            _verified(home)
    print(f"EIO: {len(WRITES) * len(nths)} runs, {failures} failed a write")  # the figure
    assert failures >= len(nths), "the injected EIO made writes fail"


@pytest.mark.parametrize("ref", ["~0", "~no-such-user-here/notes.md"])
def test_a_tilde_of_no_user_is_a_path_not_a_traceback(home: Path, ref: str) -> None:
    """``~0`` names no user: pathlib's expanduser raises RuntimeError for it, so every place
    that expands a typed path expands it as os.path does (left as typed) — found by this
    file's fuzz test, which drew ``rehydrate ~0``."""
    result = CliRunner().invoke(cli, ["--home", str(home), "rehydrate", ref])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and f"no document {ref!r}" in result.output
