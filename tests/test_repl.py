"""The session REPL driven by a script: every command, errors on one line, Ctrl-D."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from arborist import Arborist
from arborist._errors import ArboristError
from arborist._faces.repl import COMMANDS, Repl, scripted_reader

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
BATMAN = "# Batman\n\nBatman was created by artist Bob Kane and writer Bill Finger.\n"


@pytest.fixture
def app(home: Path, tmp_path: Path) -> Arborist:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    (tmp_path / "batman.md").write_text(BATMAN, encoding="utf-8")
    with Arborist(home) as arborist:
        arborist.ingest([str(tmp_path / "spider.md"), str(tmp_path / "batman.md")])
        yield arborist  # type: ignore[misc]


def drive(app: Arborist, sid: str, script: list[str]) -> list[str]:
    out: list[str] = []
    prompts: list[str] = []
    read = scripted_reader(script)

    def reader(prompt: str) -> str:
        prompts.append(prompt)
        return read(prompt)

    Repl(app, sid, read=reader, write=out.append).run()
    return out


def test_a_scripted_session_exercises_every_command(app: Arborist) -> None:
    other = app.new_session("yesterday")
    spider = app.ask_turn("Who created Spider-Man?", sid=other.sid).node
    session = app.new_session("today")
    out = drive(
        app,
        session.sid,
        [
            "/help",
            "/sid",
            "/root",
            "Who created Batman?",
            "/label bats",
            "/show",
            "/back",
            "/tree",
            f"/cd {spider.bates}",
            "Who drew him?",
            "/tree",
            "/cd bats",
            "When did he first appear?",
            "/branches",
            "/cd root",
            "Who created Batman?",
            "/branches",
            "/find created",
            "/show 1",
            "/cd",
            "/cd nope",
            "/label",
            "/frobnicate",
            "/cd 999999",
            "/quit",
            "never read",
        ],
    )
    text = "\n".join(out)
    assert out[0] == f"session {session.sid}: ask a question, or /help"
    for name in COMMANDS:
        assert name in text
    assert session.sid in out
    roots = [o for o in out if o.startswith(f"{session.root_bates}\nsession_root ")]
    assert len(roots) == 1 and re.fullmatch(r"[0-9a-f]{64}", roots[0].split()[-1])
    assert "Bob Kane" in text  # an answer as every face shows one: its bates, cache, mode...
    assert (
        f"bates   {session.sid}-000001\ncache   miss" in text
        and "audit   quotes verified (STRICT)" in text
    )
    assert f"{session.sid}-000001 is now labelled 'bats'" in text
    assert f"now at {session.root_bates}" in text
    assert f"grafted at {spider.bates}:" in text
    assert f"bates   {session.sid}-000002\n" in text  # the fork under yesterday's turn
    hit = f"bates   {session.sid}-000004\ncache   hit"  # same question, same evidence
    assert hit in text
    assert "2 children" in text  # the root now has two children
    assert "error: the following arguments are required: REF: usage: /cd [--sid SID] REF" in out
    label_usage = "usage: /label [--ref REF] [--sid SID] [--json] NAME [NAME ...]"
    assert f"error: the following arguments are required: NAME: {label_usage}" in out
    assert "error: unknown command /frobnicate: try /help" in out
    assert any(line.startswith("error: no turn 'nope'") for line in out)
    assert any(
        line.startswith("error: seq 999999") or line.startswith("error: no turn") for line in out
    )
    errors = [line for line in out if line.startswith("error:")]
    assert all("\n" not in line for line in errors)
    assert "never read" not in text
    tree = app.tree(other.sid)
    assert f"[from {session.sid}]" in tree
    assert app.verify().ok


def test_ctrl_d_ends_the_loop(app: Arborist) -> None:
    session = app.new_session()
    out = drive(app, session.sid, ["/sid"])
    assert out[-1] == ""


def test_completion_offers_commands_labels_and_bates(app: Arborist) -> None:
    session = app.new_session()
    app.ask_turn("Who created Batman?", sid=session.sid, label="bats")
    repl = Repl(app, session.sid, read=scripted_reader([]), write=lambda _: None)
    assert repl.completions("/b") == ["/back", "/branches"]
    assert repl.completions("/cd ba") == ["bats"]
    assert repl.completions(f"/cd {session.sid}-00000") == [
        f"{session.sid}-000000",
        f"{session.sid}-000001",
    ]


def each(app: Arborist, sid: str, lines: list[str]) -> dict[str, str]:
    """What the REPL writes for each line, line by line (a line's errors included)."""
    out: list[str] = []
    repl = Repl(app, sid, read=scripted_reader([]), write=out.append)
    shown: dict[str, str] = {}
    for line in lines:
        out.clear()
        try:
            repl.handle(line)
        except ArboristError as exc:
            out.append(f"error: {exc}")
        shown[line] = "\n".join(out)
    return shown


def test_the_repl_has_the_notebooks_commands_with_its_parser(app: Arborist, tmp_path: Path) -> None:
    session = app.new_session("today")
    dump = tmp_path / "today.jsonl"
    shown = each(
        app,
        session.sid,
        [
            "Who created Batman?",
            "/search Kane --limit 1",
            "/search --json Kane",
            "/stats --json",
            "/verify",
            "/chain-check",
            "/llm",
            "/llm stub",
            "/record list",
            "/record show 1 --json",
            f"/export --out {dump}",
            "/export",
            "/session list --json",
            "/search --help",
            "/help find",
            "/session new --label tomorrow",
            "/sid",
            "/session --list",
            "Who is Batman?",
            "/session list",
            "/root --json",
            "/search --limit 0 Kane",
            "/session",
            "/show 'unclosed",
            "/frobnicate",
        ],
    )
    assert shown["/search Kane --limit 1"].startswith("1. [STRICT] Batman")
    for line in ("/search --json Kane", "/stats --json", "/record show 1 --json"):
        assert json.loads(shown[line]), line
    assert shown["/verify"].startswith("store.db     ok")
    assert "\nsessions.db  intact" in shown["/chain-check"]
    assert (shown["/llm"], shown["/llm stub"]) == ("model: default (extractive)", "model: stub")
    assert "Who created Batman?" in shown["/record list"]
    said = shown[f"/export --out {dump}"]
    assert said == f"exported session {session.sid} (2 node(s)) to {dump}"
    assert shown["/export"] + "\n" == dump.read_text(encoding="utf-8")
    assert [s["label"] for s in json.loads(shown["/session list --json"])] == ["today"]
    assert shown["/search --help"].startswith("usage: /search [--limit N] [--json] QUERY")
    assert shown["/help find"].startswith("usage: /find [--limit N] [--json] QUERY")
    said = shown["/session new --label tomorrow"]
    assert said == "a new session 'tomorrow': it starts with the first question"
    assert shown["/sid"] == (
        "error: no session yet: it starts with the first question (or session resume SID)"
    )
    waiting = shown["/session --list"].splitlines()
    assert waiting[1:] == ["(new, no turns yet)  tomorrow"] and waiting[0].endswith("today")
    moved = json.loads(shown["/root --json"])["sid"]
    assert moved != session.sid and [s.label for s, _ in app.sessions()] == ["today", "tomorrow"]
    assert "tomorrow" in shown["/session list"] and "no turns yet" not in shown["/session list"]
    assert shown["Who is Batman?"].count(f"bates   {moved}-000001") == 1
    assert shown["/search --limit 0 Kane"] == (
        "error: argument --limit: must be between 1 and 1000: "
        "usage: /search [--limit N] [--json] QUERY [QUERY ...]"
    )
    assert shown["/session"].startswith(
        "error: usage: /session new|resume|list ..., or /session --list"
    )
    assert shown["/show 'unclosed"].startswith("error: cannot parse the arguments")
    assert shown["/frobnicate"] == "error: unknown command /frobnicate: try /help"


def test_a_command_shows_the_same_in_the_repl_and_the_notebook(
    app: Arborist, home: Path, tmp_path: Path
) -> None:
    """One house: the REPL and %arborist run one command the same way (the views)."""
    session = app.new_session("shared")
    app.ask_turn("Who created Batman?", sid=session.sid)
    lines = ["search Kane", "search Kane --json", "stats", "find created --json", "tree",
             "branches", "show 1", "providence list", "session list", "verify"]  # fmt: skip
    repl = each(app, session.sid, [f"/{line}" for line in lines])
    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        ip.run_line_magic("arborist", f"session resume {session.sid}")
        for line in lines:
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                ip.run_line_magic("arborist", line)
            # A notebook names a tree's turns #1, as its widget does: the renderer's option
            shown = repl[f"/{line}"]
            if line == "tree":
                assert shown == app.tree(session.sid)
                shown = app.tree(session.sid, short=True)
            assert buffer.getvalue() == shown + "\n", line
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()
