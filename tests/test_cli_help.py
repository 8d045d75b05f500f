"""The command line tells the truth about itself: every ``--help`` exits 0, the list of
commands starts where a newcomer starts (with an example of each that parses), a typo gets
"did you mean", and a command that needs a session works at a shell on the latest one."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from arborist import Arborist
from arborist._commands.desk import COMMANDS, names, parse
from arborist._commands.help import GUIDE, guide_order
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader

ROOT = Path(__file__).resolve().parents[1]
SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
FACES = ("arborist ", "/", "%arborist ")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def shell(home: Path) -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def repl_says(home: Path, *lines: str) -> str:
    out: list[str] = []
    with Arborist(home) as app:
        Repl(app, None, read=scripted_reader(lines), write=out.append).run()
    return "\n".join(out[1:]).rstrip("\n")  # after the greeting, before the goodbye


def notebook_says(shell: InteractiveShell, line: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            shell.run_line_magic("arborist", line)
        except UsageError as exc:
            return f"error: {exc}"
    return buffer.getvalue().rstrip("\n")


# --- --help -------------------------------------------------------------------------------


EVERY_WORD = sorted(set(names()) | set(COMMANDS))
"""Every command, and every word a command line can start with (``record`` alone too)."""


@pytest.mark.parametrize("words", EVERY_WORD)
def test_every_help_exits_0_with_the_help_on_stdout(words: str, home: Path) -> None:
    shown = set()
    for line in ([*words.split(), "--help"], [*words.split(), "-h"], ["help", *words.split()]):
        code, out, err = run(*line)
        assert (code, err) == (0, ""), (line, err)
        assert out.startswith(f"usage: arborist {words}"), (line, out)
        shown.add(out)
    assert len(shown) == 1, "--help, -h and help COMMAND show the same"
    assert not home.exists(), "help opens no home"


def test_a_group_lists_its_commands_in_every_face(home: Path, shell: InteractiveShell) -> None:
    """``record --help`` (exit 2 before: ``record`` alone is no command) lists ``record``'s
    commands, each with its usage and summary, the same in every face; a real process too."""
    done = subprocess.run(
        [sys.executable, "-m", "arborist", "record", "--help"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "ARBORIST_HOME": str(home)},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "usage: arborist record list|show|falsify ..."
    for name in ("record list", "record show", "record falsify"):
        at = next(i for i, line in enumerate(lines) if line.startswith(f"arborist {name} "))
        assert lines[at + 1] == f"    {COMMANDS[name].summary}"
    text = done.stdout.rstrip("\n")
    assert repl_says(home, "/record --help") == text.replace("arborist ", "/")
    assert notebook_says(shell, "record -h") == text.replace("arborist ", "%arborist ")


# --- the list -------------------------------------------------------------------------------


def _listed(text: str, prefix: str) -> list[str]:
    """The commands a list names, in its order: each row's example, read back to the
    command it runs (the longest command name it starts with)."""
    rows = [line[2:] for line in text.splitlines() if line.startswith(f"  {prefix}")]
    found = []
    for row in rows:
        words = row.removeprefix(prefix).split()
        two = " ".join(words[:2])
        found.append(two if two in COMMANDS else words[0])
    return found


def test_no_command_and_help_list_every_command_where_a_newcomer_starts(home: Path) -> None:
    code, out, err = run("help")
    assert (code, err) == (0, "")
    listed = _listed(out, "arborist ")
    assert listed[:5] == ["ingest", "ask", "search", "show", "verify"]
    assert sorted(listed) == sorted(COMMANDS) and len(listed) == len(set(listed))
    assert listed == guide_order()
    code, out_alone, err = run()  # no command: the same list, as a usage error
    assert (code, out_alone, err) == (2, "", out)
    assert "global options: --home PATH" in out and "COMMAND --help shows its flags" in out
    assert not home.exists()


def test_the_guide_names_every_command_once_with_an_example_that_parses() -> None:
    """Each example is a command line of the command it stands beside, in every face."""
    assert sorted(guide_order()) == sorted(COMMANDS)
    assert len(guide_order()) == len(set(guide_order()))
    for _title, entries in GUIDE:
        for name, example in entries:
            for prefix in FACES:
                command, args = parse(shlex.split(example), prefix)
                assert command.name == name and args is not None, (prefix, example)


def _words(text: str, prefix: str) -> str:
    """A list as words, each command written without the face's prefix, up to its last
    line (what else the face does)."""
    body = text.split("COMMAND --help shows its flags", maxsplit=1)[0].replace(prefix, "")
    return " ".join(body.split())


def test_the_repl_and_the_notebook_list_the_same_in_the_same_order(
    home: Path, shell: InteractiveShell
) -> None:
    repl = repl_says(home, "/help")
    assert _listed(repl, "/") == [*guide_order(), "quit"]
    notebook = notebook_says(shell, "help")
    assert _listed(notebook, "%arborist ") == guide_order()
    words = _words(run("help")[1], "arborist ")
    assert _words(notebook, "%arborist ") == words
    repl_words = _words(repl, "/")
    assert repl_words.startswith(words) and repl_words.endswith(
        "in this face: quit leave (or Ctrl-D)"
    )


# --- did you mean ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "says"),
    [
        (["serach", "Ditko"], "unknown command arborist serach: did you mean arborist search?"),
        (["verfy"], "unknown command arborist verfy: did you mean arborist verify?"),
        (["record", "shwo", "1"], "(did you mean arborist record show?)"),
        (["session", "lsit"], "(did you mean arborist session list?)"),
        (["search", "--jsno", "Ditko"], "unrecognized arguments: --jsno (did you mean --json?)"),
        (["help", "tre"], "unknown command arborist tre: did you mean arborist tree?"),
        (["frobnicate"], "unknown command arborist frobnicate: try arborist help"),
    ],
)
def test_a_typo_gets_did_you_mean_in_one_line(words: list[str], says: str, home: Path) -> None:
    code, out, err = run(*words)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("arborist: error: ") and says in err, err
    assert not home.exists(), "a refused command writes nothing"


def test_every_face_guesses_the_same(home: Path, shell: InteractiveShell) -> None:
    assert repl_says(home, "/tre") == "error: unknown command /tre: did you mean /tree?"
    assert notebook_says(shell, "verfy") == (
        "error: unknown command %arborist verfy: did you mean %arborist verify?"
    )


# --- the latest session ---------------------------------------------------------------------


def _sessions() -> list[dict]:
    code, out, _ = run("session", "list", "--json")
    assert code == 0
    return json.loads(out)


def test_a_session_command_at_a_shell_works_on_the_latest_session(tmp_path: Path) -> None:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    assert run("ingest", str(tmp_path / "spider.md"))[0] == 0
    for words in (["tree"], ["cd", "1"], ["back"], ["label", "x"], ["show", "1"], ["sid"]):
        code, out, err = run(*words)  # no session yet: one line says how to start one
        assert (code, out) == (1, ""), words
        assert err == "arborist: error: no session yet: arborist ask QUESTION starts one\n"
    assert run("ask", "Who created Spider-Man?")[0] == 0  # each shell ask: a new session
    assert run("ask", "Who drew Spider-Man?")[0] == 0
    first, second = (s["sid"] for s in _sessions())
    said = f"(session {second}, the latest: --sid SID picks another)\n"
    code, out, err = run("tree")
    assert (code, out, err) == (0, run("tree", "--sid", second)[1], said)
    assert run("session", "--tree") == (0, out, said)
    assert run("sid") == (0, f"{second}\n", said)

    code, out, err = run("cd", "1", "--sid", first)  # a move: that session is the latest now
    assert code == 0 and out == f"now at {first}-000001\n"
    assert err == f"(arborist ask --sid {first} QUESTION asks there)\n"
    said = f"(session {first}, the latest: --sid SID picks another)\n"
    assert run("sid") == (0, f"{first}\n", said)
    code, out, err = run("show", "1")  # a seq: the latest session's turn
    assert code == 0 and err == said and "question     Who created Spider-Man?" in out
    assert run("label", "creators")[0] == 0
    assert json.loads(run("show", "creators", "--json")[1])["bates"] == f"{first}-000001"
    assert run("record", "show", "creators")[0] == 0
    code, out, err = run("export")
    assert code == 0 and err == said and json.loads(out.splitlines()[0])["sid"] == first
    code, out, err = run("back")
    assert code == 0 and out == f"now at {first}-000000\n"
    assert err == said + f"(arborist ask --sid {first} QUESTION asks there)\n"
    code, out, err = run("show", f"{second}-000001")  # a bates number names its own turn
    assert (code, err) == (0, "") and "Who drew Spider-Man?" in out
