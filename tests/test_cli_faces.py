"""One command table, three faces: the ``arborist`` command, the REPL and ``%arborist``
accept every command with the same flags and print the same text and JSON (issue #26)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from arborist import Arborist
from arborist._commands.desk import COMMANDS, flags
from arborist._errors import ArboristError
from arborist._facade.asks import Ask
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
QUOKKA = "# Quokkas\n\nThe quokka is a small wallaby that lives on Rottnest Island.\n"


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def corpus(home: Path, tmp_path: Path) -> Path:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    (tmp_path / "quokka.md").write_text(QUOKKA, encoding="utf-8")
    code, _, err = run("ingest", str(tmp_path / "spider.md"), str(tmp_path / "quokka.md"))
    assert code == 0, err
    return tmp_path


@pytest.fixture
def shell(home: Path) -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def repl_says(home: Path, sid: str | None, line: str) -> str:
    """What the REPL writes for ``line`` (an error as its one line)."""
    out: list[str] = []
    with Arborist(home) as app:
        repl = Repl(app, sid, read=scripted_reader([]), write=out.append)
        try:
            repl.handle(line)
        except ArboristError as exc:
            out.append(f"error: {exc}")
    return "\n".join(out)


def notebook_says(shell: InteractiveShell, line: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            shell.run_line_magic("arborist", line)
        except UsageError as exc:
            return f"error: {exc}"
    return buffer.getvalue().rstrip("\n")


def cell_says(shell: InteractiveShell, magic: str, line: str, cell: str) -> str:
    """What a cell magic prints for ``line`` (an error as its one line)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            shell.run_cell_magic(magic, line, cell)
        except UsageError as exc:
            return f"error: {exc}"
    return buffer.getvalue().rstrip("\n")


def _flags_in(help_text: str) -> list[str]:
    """The flags a --help's usage (its first paragraph) names."""
    usage = help_text.split("\n\n", 1)[0]
    return sorted(set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", usage)))


def _words(text: str, prefix: str) -> str:
    """``text`` without the face's prefix, its whitespace (argparse wraps the usage at a
    width that depends on the prefix) made single spaces."""
    return " ".join(text.replace(f"usage: {prefix}", "usage: ").split())


def _unopened(help_text: str) -> str:
    """The ``arborist`` command's --help without the flags that open other stores (their
    usage words and their option paragraphs), which only that face offers."""
    text = re.sub(r" ?\[--(?:store|sessions)-db PATH\]", "", help_text)
    return re.sub(r"\n  --(?:store|sessions)-db PATH[^\n]*(?:\n {6,}[^ -][^\n]*)*", "", text)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_face_takes_every_command_with_the_same_flags(
    name: str, home: Path, shell: InteractiveShell
) -> None:
    """The table walked: each command's --help, in each face, lists exactly its parser's
    flags, and each face writes the command its own way and nothing else differs, but for
    ``--sessions-db``: only the ``arborist`` command, which opens the stores, offers it."""
    command = COMMANDS[name]
    code, cli_help, err = run(*name.split(), "--help")
    assert (code, err) == (0, ""), err
    faces = {
        "arborist ": cli_help.rstrip("\n"),
        "/": repl_says(home, None, f"/{name} --help"),
        "%arborist ": notebook_says(shell, f"{name} --help"),
    }
    if name == "ask":  # a question's own face: its line, with the cell for the question
        faces["%%"] = cell_says(shell, "ask", "--help", "the cell's text")
    for prefix, shown in faces.items():
        assert shown.startswith(f"usage: {prefix}{name}"), (prefix, shown)
        assert _flags_in(shown) == flags(command, prefix), (prefix, shown)
        assert ("--sessions-db" in shown) == (
            prefix == "arborist " and "--sessions-db" in flags(command)
        )
    bodies = {
        _words(_unopened(shown) if prefix == "arborist " else shown, prefix)
        for prefix, shown in faces.items()
    }
    assert len(bodies) == 1, bodies


def test_help_needs_no_home_and_shows_a_commands_flags(home: Path) -> None:
    code, out, _ = run("help", "search")
    assert code == 0 and out.startswith("usage: arborist search [--limit N] [--json] QUERY")
    code, out, _ = run("help")
    assert code == 0 and all(f"arborist {name}" in out for name in COMMANDS)
    assert not home.exists()


DATA_WITHOUT_JSON = {"help", "session new", "session resume", "cd", "back", "sid", "export"}
"""Commands that print no data but a message (export prints JSON Lines whatever is asked);
``label`` and ``import`` print the turn and the counts they made (tests/test_json_facts.py)."""


def test_every_command_that_prints_data_takes_json() -> None:
    without = {name for name, command in COMMANDS.items() if "--json" not in flags(command)}
    assert without == DATA_WITHOUT_JSON


def _ask_cli(*extra: str) -> dict:
    code, out, err = run("ask", "Who created Spider-Man?", "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_the_json_of_every_data_command_is_the_same_in_every_face(
    corpus: Path, home: Path, shell: InteractiveShell
) -> None:
    turn = _ask_cli("--label", "spidey")
    bates, sid, key = turn["bates"], turn["sid"], turn["cache_key"]
    lines = [
        "search Ditko --json", "search --json -- -Ditko", "find created --json",
        f"tree --sid {sid} --json", f"show {bates} --json", f"branches --sid {sid} --json",
        "verify --json", "stats --json", "record list --json", f"record show {key} --json",
        "session list --json", f"session --tree --sid {sid} --json", "session --list --json",
        "session --find created --json", "session --chain-check --json", "chain-check --json",
        f"root --sid {sid} --json", "llm --json",
    ]  # fmt: skip
    for line in lines:
        code, out, err = run(*line.split())
        assert code == 0, (line, err)
        data = json.loads(out)
        assert json.loads(repl_says(home, None, "/" + line)) == data, line
        assert json.loads(notebook_says(shell, line)) == data, line
    tree = json.loads(run("session", "--tree", "--sid", sid, "--json")[1])
    assert [t["label"] for t in tree["turns"]] == [None, "spidey"] and tree["sid"] == sid
    chain = json.loads(run("session", "--chain-check", "--json")[1])
    assert chain["ok"] and [d["name"] for d in chain["databases"]] == ["sessions"]


def test_the_actions_print_json_too(corpus: Path) -> None:
    bates = _ask_cli()["bates"]
    code, out, err = run("derive", "snippet", "--from", bates, "--json")
    assert code == 0, err
    assert json.loads(out)["kind"] == "snippet"
    code, out, err = run("evict", str(corpus / "quokka.md"), "--tier", "cold", "--json")
    assert code == 0 and json.loads(out)["tier"] == "cold", err
    code, out, err = run("falsify", bates, "--state", "stale", "--reason", "test", "--json")
    assert code == 0 and json.loads(out)["state"] == "stale", err


@pytest.mark.parametrize(
    "line",
    ["search -quokkas", "search quokkas -- --rottnest", "find -quokka", "search -q", "search -5"],
)
def test_a_word_starting_with_a_dash_is_a_word_of_the_query(
    line: str, corpus: Path, home: Path
) -> None:
    """Query syntax is never interpreted (README, "arborist search"): ``-quokkas`` is the
    word, as in every face; only the command's own flags are flags."""
    code, out, err = run(*line.split())
    assert (code, err) == (0, ""), err
    assert repl_says(home, None, "/" + line) == out.rstrip("\n")
    if line.startswith("search -quokka"):
        assert "Rottnest" in out


def test_a_range_is_the_same_in_every_face(home: Path, shell: InteractiveShell) -> None:
    code, _, err = run("record", "show", "a" * 64, "--revision", "0")
    message = "argument --revision: must be at least 1"
    assert code == 2 and message in err and err.count("\n") == 1
    assert message in repl_says(home, None, f"/record show {'a' * 64} --revision 0")
    assert message in notebook_says(shell, f"record show {'a' * 64} --revision 0")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["session", "--list", "--limit", "3"], "--limit does not go with --list"),
        (["session", "--list", "--tree"], "choose one of --list, --tree"),
        (["session", "--tree", "--label", "x", "--sid", "s"], "--label does not go with --tree"),
        (["session", "--export", "s", "--json"], "--json does not go with --export"),
        (["session", "--sid", "s", "--limit", "2"], "--limit does not go with starting a session"),
        (["session", "--sid", "s", "--label", "x"], "--label names a new session: not with --sid"),
        (["ask", "Who?", "--bogus"], "unrecognized arguments: --bogus"),
        (["search", "x", "--limt", "2"], "unrecognized arguments: --limt"),
    ],
)
def test_no_flag_is_ever_silently_ignored(args: list[str], says: str, home: Path) -> None:
    code, out, err = run(*args)
    assert (code, out) == (2, "") and says in err and err.count("\n") == 1, err
    assert not home.exists(), "refused before anything is opened"


def test_the_cli_asks_with_every_flag_of_a_question(corpus: Path, home: Path) -> None:
    first = _ask_cli("--label", "origin")
    again = _ask_cli("--sid", first["sid"], "--thread", "--no-cache")
    assert again["sid"] == first["sid"] and again["hit"] is False
    code, out, _ = run("show", "origin", "--sid", first["sid"], "--json")
    assert code == 0 and json.loads(out)["label"] == "origin"
    code, out, err = run("label", "again", "--ref", again["bates"])
    assert code == 0 and "is now labelled 'again'" in out, err
    code, out, _ = run("branches", "--sid", first["sid"])
    assert code == 0 and out == "no branch points\n"


def test_the_repl_takes_a_questions_flags(corpus: Path, home: Path) -> None:
    out: list[str] = []
    with Arborist(home) as app:
        Repl(app, None, read=scripted_reader([
            "Who created Spider-Man?",
            "/ask --no-cache --label fresh Who created Spider-Man?",
            "/ask --thread Who drew him?",
            "/ask --related Who drew him?",
            "/show fresh",
        ]), write=out.append).run()  # fmt: skip
        sessions = app.sessions()
    text = "\n".join(out)
    assert len(sessions) == 1 and sessions[0][1] == 3, sessions  # made by the first question
    assert text.count("cache   miss") == 3 and "label        fresh" in text
    assert "error: --related: this store has no co-access index" in text  # taken, not ignored


def test_a_session_is_made_by_its_first_turn_never_by_starting(corpus: Path, home: Path) -> None:
    code, out, err = run("session", input="/sid\n/tree\n/quit\n")
    assert code == 0, err
    assert out.startswith("a new session, made by its first question")
    assert "error: no session yet" in out
    assert run("session", "--list", "--json")[1] == "[]\n"
    code, out, _ = run("session", "--label", "kept", input="Where does the quokka live?\n")
    assert code == 0 and "Rottnest" in out
    listed = json.loads(run("session", "--list", "--json")[1])
    assert [(s["label"], s["turns"]) for s in listed] == [("kept", 1)]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_model_that_cannot_answer_is_refused_when_the_repl_starts(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBORIST_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    monkeypatch.setenv("ARBORIST_MODEL", "m")
    code, out, err = run("session", "--llm", "openai", input="never read\n")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "cannot be reached" in err and "choose another --llm" in err
    code, _, err = run("session", "--llm", "nonesuch")
    assert code == 2 and "unknown model 'nonesuch'" in err


def test_an_unreachable_url_is_a_runtime_failure_not_a_usage_error(home: Path) -> None:
    """README: exit 2 is for bad arguments; a URL that cannot be fetched now may be fetched
    later, so it is exit 1 (an error), with one line."""
    code, _, err = run("ingest", f"http://127.0.0.1:{_closed_port()}/page.html")
    assert code == 1 and err.count("\n") == 1 and "cannot fetch URL" in err
    code, _, err = run("evict", "doc", "--tier", "hot")  # a bad argument is still exit 2
    assert code == 2 and "invalid choice: 'hot'" in err


def test_the_seeds_session_forms_and_the_subcommands_agree(corpus: Path, tmp_path: Path) -> None:
    sid = _ask_cli()["sid"]
    assert run("session", "--list")[1] == run("session", "list")[1]
    assert run("session", "--tree", "--sid", sid)[1] == run("tree", "--sid", sid)[1]
    assert run("session", "--find", "created")[1] == run("find", "created")[1]
    exported = run("session", "--export", sid)[1]
    assert exported == run("export", sid)[1]
    (tmp_path / "s.jsonl").write_text(exported, encoding="utf-8")
    shard = str(tmp_path / "other.db")
    code, out, _ = run("session", "--import", str(tmp_path / "s.jsonl"), "--sessions-db", shard)
    assert code == 0 and out.startswith("imported 2 node(s)")
    code, out, _ = run("session", "--import", "-", "--sessions-db", shard, input=exported)
    assert code == 0 and "2 already present" in out
    assert run("session", "--chain-check")[0] == 0


def test_session_with_flags_in_a_running_face_is_session_new_or_resume(
    corpus: Path, home: Path, shell: InteractiveShell
) -> None:
    said = notebook_says(shell, "session --label kept --llm stub")
    assert said == "a new session 'kept': it starts with the first question"
    assert notebook_says(shell, "llm") == "model: stub"
    with Arborist(home) as app:
        assert app.sessions() == [], "made by its first question, not before"
    notebook_says(shell, "ask Who created Spider-Man?")
    with Arborist(home) as app:
        assert [(s.label, turns) for s, turns in app.sessions()] == [("kept", 1)]
        sid = app.sessions()[0][0].sid
    assert repl_says(home, None, f"/session --sid {sid}") == f"session {sid}"


def test_a_flag_for_another_face_is_refused_not_ignored(home: Path, tmp_path: Path) -> None:
    said = repl_says(home, None, f"/ask Who? --sessions-db {tmp_path / 'x.db'}")
    assert said.startswith("error: --sessions-db opens other stores: give it to the arborist")
    said = repl_says(home, None, "/import -")
    assert said.startswith("error: '-' (standard input) is for the arborist command")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("--timeout 0", "argument --timeout: must be above 0 and at most 86400 seconds"),
        ("--retries -1", "argument --retries: must be between 0 and 1000"),
        ("--retries x", "argument --retries: 'x' is not a whole number"),
        ("--bogus", "unrecognized arguments: --bogus"),
        ("--lab x", "unrecognized arguments: --lab"),
    ],
)
def test_a_cells_question_takes_the_flags_of_every_faces_ask(
    line: str, says: str, home: Path, shell: InteractiveShell
) -> None:
    """``%%ask``'s line is parsed by the table's ``ask``: the same ranges and the same
    one-line errors as ``arborist ask`` and ``%arborist ask``, a mistyped flag's "did you
    mean" included."""
    hint = " (did you mean --label?)" if line.startswith("--lab ") else ""
    code, _, err = run("ask", "Who?", *line.split())
    assert code == 2 and says in err and hint in err, err
    assert says in notebook_says(shell, f"ask Who? {line}")
    assert hint in notebook_says(shell, f"ask Who? {line}")
    shown = cell_says(shell, "ask", line, "Who?")
    assert shown.startswith(f"error: {says}{hint}: usage: %%ask ") and "\n" not in shown, shown


def test_a_cells_question_honours_every_flag_it_takes(
    corpus: Path, home: Path, shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No flag of ``%%ask`` is ignored: --json prints every face's ``ask --json``, --sid asks
    in that session, --timeout and --retries reach the model; a word that is no flag, and
    --sessions-db (the arborist command's), are refused in one line."""
    first = _ask_cli("--label", "origin")
    data = json.loads(cell_says(shell, "ask", f"--json --sid {first['sid']}",
                                "Who created Spider-Man?"))  # fmt: skip
    assert (data["sid"], data["bates"]) == (first["sid"], first["bates"])  # there: reused
    moved = ("hit", "elapsed_ms", "hit_count", "last_hit_at", "facts")  # this ask was a hit
    same = {k: v for k, v in first.items() if k not in moved}
    assert {k: data[k] for k in same} == same and set(data) == set(first)
    ask_own = ("cache", "elapsed_ms", "hits")  # what the ask that made the turn knew
    assert {k: v for k, v in data["facts"].items() if k not in ask_own} == {
        k: v for k, v in first["facts"].items() if k not in ask_own
    }
    app = shell.magics_manager.registry["ArboristMagics"].app
    asked: list[Ask] = []
    real = app.ask_turn
    monkeypatch.setattr(app, "ask_turn", lambda a, **kw: asked.append(a) or real(a, **kw))
    cell_says(shell, "ask", "--timeout 2.5 --retries 3 --no-cache", "Who created Spider-Man?")
    assert (asked[0].timeout, asked[0].retries, asked[0].use_cache) == (2.5, 3, False)
    for line, says in (
        ("stray --label x", "'stray': the question is the cell's text, the line takes only flags"),
        ("--sessions-db other.db", "--sessions-db opens other stores"),
    ):
        said = cell_says(shell, "ask", line, "Who created Spider-Man?")
        assert said.startswith(f"error: {says}"), line
        # The usage each error ends with offers only what this face honours.
        assert "--sessions-db" not in said.partition("usage:")[2]
    assert len(asked) == 1, "nothing asked by a refused line"


def test_a_record_has_one_json_shape_in_every_command(corpus: Path) -> None:
    """``record list --json`` and ``record show --json`` print a record alike (its
    ``as_json``, with whether it holds): no command keeps a shape of its own (issue #26)."""
    key = _ask_cli()["cache_key"]
    code, out, err = run("record", "list", "--json")
    assert code == 0, err
    (row,) = json.loads(out)
    code, out, err = run("record", "show", key, "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown.pop("problems") == [] and row == shown and row["holds"] is True


def test_llm_at_a_shell_says_it_lasts_for_that_command_only(home: Path) -> None:
    """A shell's ``arborist llm NAME`` ends with its process: it says so and how to keep
    the model, where a REPL or a notebook keeps it for the session."""
    code, out, _ = run("llm", "stub")
    assert code == 0
    assert out.strip() == (
        "model: stub for this command only: pass --llm stub or set ARBORIST_LLM to keep it"
    )
    code, out, _ = run("llm", "stub", "--json")
    assert code == 0 and json.loads(out) == {"model": "stub", "default": False}
    assert run("llm")[1].strip() == "model: default (extractive)"


def test_an_exported_file_is_its_owners_alone(corpus: Path, tmp_path: Path) -> None:
    """An export holds what the home holds: 0600 whatever the umask, and an existing
    file given to --out is narrowed to it too."""
    sid = _ask_cli()["sid"]
    out = tmp_path / "s.jsonl"
    out.write_text("old", encoding="utf-8")
    out.chmod(0o644)
    old = os.umask(0)
    try:
        assert run("export", sid, "--out", str(out))[0] == 0
        fresh = tmp_path / "fresh.jsonl"
        assert run("export", sid, "--out", str(fresh))[0] == 0
    finally:
        os.umask(old)
    for path in (out, fresh):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert out.read_text(encoding="utf-8") == run("export", sid)[1]


@pytest.mark.parametrize("flag", ["--out", "--bundle", "--html"])
def test_an_export_is_never_written_over_the_homes_files_or_through_a_link(
    corpus: Path, tmp_path: Path, home: Path, flag: str
) -> None:
    """A slip of the name (``--out store.db`` in the home) destroyed the store with exit 0,
    and a link planted at the name had the export overwrite its target: each is refused in
    one line, and the file stays as it was."""
    sid = _ask_cli()["sid"]
    for kept in ("store.db", "sessions.db", "store.db-wal"):
        target = home / kept
        before = target.read_bytes() if target.exists() else None
        code, _out, err = run("export", sid, flag, str(target))
        assert code != 0 and "one of the home's own files" in err and err.count("\n") == 1
        assert (target.read_bytes() if target.exists() else None) == before
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    link = tmp_path / "out_link.json"
    link.symlink_to(victim)
    code, _out, err = run("export", sid, flag, str(link))
    assert code != 0 and "symbolic link" in err and err.count("\n") == 1
    assert victim.read_text(encoding="utf-8") == "precious"
    assert run("verify")[0] == 0


def test_a_query_that_starts_with_a_dash_is_told_how_to_be_searched(home: Path) -> None:
    """``search --rebase-merges`` is read as an option, leaving no query: the one line says
    so and how to search it (``--``), which then works."""
    code, _out, err = run("search", "--rebase-merges")
    assert code == 2 and err.count("\n") == 1
    assert "--rebase-merges was read as an option: put -- before it" in err
    assert run("search", "--", "--rebase-merges")[0] == 0
