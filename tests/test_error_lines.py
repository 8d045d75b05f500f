"""Error lines never echo a credential, whatever its last character, in any face.

An ingest refusal names the path as typed, a fetch that failed its URL, a parser the word
it refused: a token in any of them reached the screen, and a notebook saves what a cell
printed into the ``.ipynb``. Every face now prints its error lines through one boundary,
:func:`arborist._gate.admission.admit_error_line`: the ``arborist`` command's printer, the REPL's
and the magics' ``UsageError``. Each face is driven for real here (a subprocess, a
scripted REPL, an IPython shell) with a loopback server for the URL and the model.

Every "secret" is a fake built by concatenation at run time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from arborist import Arborist
from arborist._faces.repl import Repl, scripted_reader
from arborist._faces.sync import ForestSync
from arborist._gate.admission import admit_error_line
from tests.chat_server import ChatServer
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
KEY = "sk-" + "proj-" + "Zq8vT4mN2pL7xR9wK3bY6cF1hJ5dG0sA"
DOC = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"


def _cases(folder: Path, server: ChatServer) -> dict[str, list[str]]:
    """Each failing command (its words), holding :data:`TOKEN`."""
    unsupported = folder / f"notes-{TOKEN}.xyz"
    unsupported.write_text("notes\n", encoding="utf-8")
    port = server.server_address[1]
    return {
        "a file of a type ingest does not read": ["ingest", str(unsupported)],
        "a missing file": ["ingest", str(folder / f"missing-{TOKEN}.md")],
        "a URL that fails": ["ingest", f"http://127.0.0.1:{port}/notes-{TOKEN}.html?token={TOKEN}"],
        "a URL with a password that fails": ["ingest", f"http://u:{TOKEN}@127.0.0.1:{port}/x"],
        "a word that is no reference": ["show", TOKEN],
        "a word that is no document": ["evict", TOKEN, "--tier", "warm"],
    }


def _model_env(server: ChatServer, last: str) -> dict[str, str]:
    """A remote model whose API key ends in ``last`` (a key read from a file with Windows
    line ends ends in ``\\r``)."""
    return {
        "ARBORIST_BASE_URL": server.url,
        "ARBORIST_MODEL": "test-model",
        "ARBORIST_API_KEY": KEY + last,
    }


def _assert_clean(line: str) -> None:
    assert TOKEN not in line and TOKEN[4:20] not in line, line
    assert KEY not in line and KEY[8:24] not in line, line
    assert "\n" not in line and "\r" not in line and "\x1b" not in line, line


@pytest.fixture
def folder(home: Path, tmp_path: Path) -> Path:
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
    return tmp_path


# --- the arborist command -----------------------------------------------------------------


def _cli(home: Path, words: list[str], env: dict[str, str] | None = None) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), *words],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=120,
        check=False,
    )
    assert run.returncode != 0, run.stdout
    assert run.stderr.startswith("arborist: error: "), run.stderr
    assert run.stderr.count("\n") == 1 and run.stderr.endswith("\n"), run.stderr
    return run.stderr[:-1]


@pytest.mark.parametrize(
    "case",
    [
        "a file of a type ingest does not read",
        "a missing file",
        "a URL that fails",
        "a URL with a password that fails",
        "a word that is no document",
    ],
)
def test_the_commands_error_line_never_echoes_a_token_it_was_given(
    home: Path, folder: Path, chat_server: ChatServer, case: str
) -> None:
    line = _cli(home, _cases(folder, chat_server)[case])
    _assert_clean(line)
    assert "[REDACTED:" in line


@pytest.mark.parametrize("last", ["\r", "\r\n", "\x1b", " "])
def test_the_commands_error_line_never_echoes_a_key_whatever_its_last_character(
    home: Path, folder: Path, chat_server: ChatServer, last: str
) -> None:
    line = _cli(home, ["ask", "--llm", "openai", "Who created Spider-Man?"], {
        **_model_env(chat_server, last)})  # fmt: skip
    _assert_clean(line)
    assert chat_server.requests == 0


# --- the REPL -----------------------------------------------------------------------------


def _repl(home: Path, lines: list[str]) -> list[str]:
    out: list[str] = []
    with Arborist(home) as app:
        Repl(app, None, read=scripted_reader(lines), write=out.append).run()
    return [line for line in out if line.startswith("error: ")]


def test_the_repls_error_lines_never_echo_a_token_it_was_given(
    home: Path, folder: Path, chat_server: ChatServer
) -> None:
    cases = _cases(folder, chat_server)
    errors = _repl(home, ["/" + " ".join(words) for words in cases.values()])
    assert len(errors) == len(cases), errors
    for line in errors:
        _assert_clean(line)
        assert "[REDACTED:" in line


def test_the_repls_error_line_never_echoes_a_key_ending_in_a_line_end(
    home: Path, folder: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in _model_env(chat_server, "\r").items():
        monkeypatch.setenv(name, value)
    errors = _repl(home, ["/llm openai", "Who created Spider-Man?"])
    assert errors, "the key was refused"
    for line in errors:
        _assert_clean(line)
    assert chat_server.requests == 0


# --- the magics ---------------------------------------------------------------------------


@pytest.fixture
def shell(folder: Path) -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def _usage_error(call: Callable[[], object]) -> str:
    with pytest.raises(UsageError) as caught:
        call()
    return str(caught.value)


def test_the_magics_usage_errors_never_echo_a_token_they_were_given(
    shell: InteractiveShell, folder: Path, chat_server: ChatServer
) -> None:
    for words in _cases(folder, chat_server).values():
        line = _usage_error(lambda w=words: shell.run_line_magic("arborist", " ".join(w)))
        _assert_clean(line)
        assert "[REDACTED:" in line
    cell = _usage_error(lambda: shell.run_cell_magic("ask", f"--parent {TOKEN}", "Who?"))
    _assert_clean(cell)
    missing = _usage_error(lambda: shell.run_cell_magic("ask", "", "What is {" + TOKEN + "}?"))
    _assert_clean(missing)


def test_the_magics_usage_error_never_echoes_a_key_ending_in_a_line_end(
    shell: InteractiveShell, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in _model_env(chat_server, "\r").items():
        monkeypatch.setenv(name, value)
    line = _usage_error(lambda: shell.run_cell_magic("ask", "--llm openai", "Who made Spider-Man?"))
    _assert_clean(line)
    assert chat_server.requests == 0


# --- the boundary itself -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        (f"bad key {KEY}\r", "bad key [REDACTED:openai_key]"),
        (f"Authorization: Bearer\n{TOKEN}\x1b[2J", "Authorization: Bearer [REDACTED:"),
        (f"{TOKEN}\x00 was refused", "[REDACTED:github_token]\\0 was refused"),
        ("no such file or folder: notes.md", "no such file or folder: notes.md"),
    ],
)
def test_the_boundary_redacts_then_makes_the_line_inert(message: str, kept: str) -> None:
    line = admit_error_line(message)
    _assert_clean(line)
    assert line.startswith(kept), line


# --- the widget ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["body", "fork", "label", "restore"])
def test_the_widgets_error_line_never_echoes_a_token_it_was_given(home: Path, kind: str) -> None:
    with Arborist(home) as app:
        reply = ForestSync(app).handle({"id": 1, "kind": kind, "bates": TOKEN, "label": "x"})
    assert reply is not None and reply["ok"] is False
    _assert_clean(reply["error"])
    assert "[REDACTED:github_token]" in reply["error"]
