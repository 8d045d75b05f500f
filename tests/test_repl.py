"""The session REPL driven by a script: every command, errors on one line, Ctrl-D."""

from __future__ import annotations

from pathlib import Path

import pytest

from arborist import Arborist
from arborist.repl import COMMANDS, Repl, scripted_reader

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
    assert session.sid in out and session.root_bates in out
    assert "Bob Kane" in text and f"[{session.sid}-000001  miss  STRICT]" in text
    assert f"{session.sid}-000001 is now labelled 'bats'" in text
    assert f"now at {session.root_bates}" in text
    assert f"grafted at {spider.bates}:" in text
    assert f"[{session.sid}-000002  " in text  # the fork under yesterday's turn
    assert f"{session.sid}-000004  hit  STRICT]" in text  # same question, same evidence: a hit
    assert "2 children" in text  # the root now has two children
    assert "error: /cd needs a bates number, a seq, a label or root" in out
    assert "error: /label needs a name" in out
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
