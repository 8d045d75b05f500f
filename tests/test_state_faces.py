"""A falsified, stale or quarantined answer says so, and why, in every face that shows its
turn or record: CLI text and --json (tree, find, show, branches, record show), the REPL,
``%arborist``, ``%%ask``'s output, the widget's rows and detail. Its reason is untrusted
text: inert in a terminal, escaped in HTML."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from IPython.core.interactiveshell import InteractiveShell

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader
from arborist._faces.sync import body
from arborist_nb._display import Answer

SPIDER = (
    "# Spider-Man\n\n"
    "Spider-Man was created by writer Stan Lee and artist Steve Ditko.\n\n"
    "He first appeared in Amazing Fantasy #15 in August 1962.\n"
)
QUESTION = "Who created Spider-Man?"
REASON = "Ditko left \x1b[2J<script>alert(1)</script> in 1966"
"""A reason with a terminal control sequence and HTML: both must be inert in every face."""
SHOWN = "Ditko left \\x1b[2J<script>alert(1)</script> in 1966"
"""The reason as a terminal face prints it (:func:`arborist._text.terminal.inert`)."""
STATES = ["failed", "stale", "quarantined"]


@dataclass
class Home:
    path: Path
    sid: str
    bates: str
    key: str
    state: str


def _home(home: Path, tmp_path: Path, state: str) -> Home:
    """A real home: one document, a turn answering QUESTION with two follow-ups under it
    (so it is a branch point), its answer then taken out of service as ``state``."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
        session = app.new_session("faces")
        turn = app.ask_turn(QUESTION, sid=session.sid)
        for follow in ("When did Spider-Man first appear?", "Who drew Spider-Man?"):
            app.ask_turn(follow, sid=session.sid, parent=turn.node.bates)
        key = turn.result.record.cache_key
        app.falsify(key, state, REASON)
    return Home(home, session.sid, turn.node.bates, key, state)


@pytest.fixture(params=STATES)
def withdrawn(request: pytest.FixtureRequest, home: Path, tmp_path: Path) -> Home:
    return _home(home, tmp_path, request.param)


def cli_out(home: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    assert result.exit_code == 0, result.output
    return result.output


def said(text: str, state: str) -> None:
    """``text`` (a terminal face) says the state and the inert reason, and nothing raw."""
    assert f"{state}: {SHOWN}" in text, text
    assert "\x1b" not in text


def test_show_says_the_state_and_reason_beside_the_mode(withdrawn: Home) -> None:
    shown = cli_out(withdrawn.path, "show", withdrawn.bates)
    audit = next(line for line in shown.splitlines() if line.startswith("audit"))
    assert audit == f"audit        quotes verified (STRICT), answer {withdrawn.state}: {SHOWN}"
    said(shown, withdrawn.state)


def test_tree_find_and_branches_say_the_state_and_reason(withdrawn: Home) -> None:
    tree = cli_out(withdrawn.path, "tree", "--sid", withdrawn.sid)
    line = next(row for row in tree.splitlines() if QUESTION in row)
    assert f"[STRICT {withdrawn.state}: {SHOWN}]" in line
    assert "answered" not in line  # the support never stands alone beside a withdrawn answer
    found = cli_out(withdrawn.path, "find", "created", "Spider-Man")
    line = next(row for row in found.splitlines() if withdrawn.bates in row)
    assert f"[STRICT {withdrawn.state}: {SHOWN}]" in line
    branches = cli_out(withdrawn.path, "branches", "--sid", withdrawn.sid)
    assert f"[STRICT {withdrawn.state}: {SHOWN}]" in branches, branches
    assert "\x1b" not in tree + found + branches


def test_every_json_face_carries_the_state_and_reason(withdrawn: Home) -> None:
    home, bates = withdrawn.path, withdrawn.bates
    shown = json.loads(cli_out(home, "show", bates, "--json"))
    tree = json.loads(cli_out(home, "tree", "--sid", withdrawn.sid, "--json"))
    found = json.loads(cli_out(home, "find", "created", "Spider-Man", "--json"))
    branches = json.loads(cli_out(home, "branches", "--sid", withdrawn.sid, "--json"))
    turns = [
        shown,
        next(t for t in tree["turns"] if t["bates"] == bates),
        next(t for t in found if t["bates"] == bates),
        next(t for t in branches if t["bates"] == bates),
    ]
    for turn in turns:
        assert turn["audit_now"] == "STRICT"
        assert (turn["state"], turn["state_reason"]) == (withdrawn.state, REASON)
    other = next(t for t in tree["turns"] if t["bates"] != bates and t["parent_bates"])
    assert (other["state"], other["state_reason"]) == ("ok", None)


def test_record_show_says_the_state_and_reason_beside_the_mode(withdrawn: Home) -> None:
    shown = cli_out(withdrawn.path, "record", "show", withdrawn.key)
    audit = next(line for line in shown.splitlines() if line.startswith("audit"))
    assert audit.startswith(f"audit      STRICT, answer {withdrawn.state}: {SHOWN}   hits")
    listed = cli_out(withdrawn.path, "record", "list")
    line = next(row for row in listed.splitlines() if row.startswith(withdrawn.key[:16]))
    assert withdrawn.state in line and SHOWN in line
    said(shown + listed, withdrawn.state)


def test_the_repl_says_the_state_and_reason(withdrawn: Home) -> None:
    out: list[str] = []
    script = [f"/show {withdrawn.bates}", "/tree", "/find created Spider-Man", "/branches"]
    with Arborist(withdrawn.path) as app:
        Repl(app, withdrawn.sid, read=scripted_reader(script), write=out.append).run()
    written = "\n".join(out)
    assert f"quotes verified (STRICT), answer {withdrawn.state}: {SHOWN}" in written
    assert written.count(f"[STRICT {withdrawn.state}: {SHOWN}]") == 3  # tree, find, branches
    assert "\x1b" not in written


@pytest.fixture
def shell(home: Path) -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def test_percent_arborist_says_the_state_and_reason(
    withdrawn: Home, shell: InteractiveShell
) -> None:
    shell.run_line_magic("arborist", f"session resume {withdrawn.sid}")
    printed = {}
    for line in (f"show {withdrawn.bates}", "tree", "find created Spider-Man", "branches",
                 f"show {withdrawn.bates} --json", f"record show {withdrawn.key}"):  # fmt: skip
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            shell.run_line_magic("arborist", line)
        printed[line] = buffer.getvalue()
    for line in ("tree", "find created Spider-Man", "branches"):
        assert f"[STRICT {withdrawn.state}: {SHOWN}]" in printed[line], printed[line]
    assert (
        f"audit        quotes verified (STRICT), answer {withdrawn.state}: {SHOWN}"
        in printed[f"show {withdrawn.bates}"]
    )
    assert f"STRICT, answer {withdrawn.state}: {SHOWN}" in printed[f"record show {withdrawn.key}"]
    assert json.loads(printed[f"show {withdrawn.bates} --json"])["state_reason"] == REASON
    assert "\x1b" not in "".join(printed.values())


@pytest.mark.parametrize("state", STATES)
def test_an_ask_cells_answer_shown_again_says_it_was_withdrawn(
    shell: InteractiveShell, home: Path, tmp_path: Path, state: str
) -> None:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    shell.run_line_magic("arborist", f"ingest {tmp_path / 'spider.md'}")
    answer = shell.run_cell_magic("ask", "", QUESTION)
    assert isinstance(answer, Answer)
    before, _meta = shell.display_formatter.format(answer)
    assert "answer " + state not in before["text/plain"]
    app = shell.magics_manager.registry["ArboristMagics"].app
    app.falsify(answer.cache_key, state, REASON)
    bundle, _meta = shell.display_formatter.format(answer)
    status = bundle["text/plain"].split("\n\n")[1]
    assert status.endswith(f"quotes verified (STRICT) · answer {state}: {SHOWN} · turn #1")
    assert f"audit      quotes verified (STRICT), answer {state}: {SHOWN}" in bundle["text/plain"]
    assert "\x1b" not in "".join(bundle.values())
    assert "<script>" not in bundle["text/html"]
    assert f"answer {state}: Ditko left \\x1b[2J&lt;script&gt;" in bundle["text/html"]
    markdown = bundle["text/markdown"]  # a code span shows its text as it is: only there
    assert f"**audit** `quotes verified (STRICT), answer {state}: {SHOWN}`" in markdown
    assert "<script>" not in re.sub(r"`[^`\n]*`", "", markdown)
    assert f"answer {state}\\: Ditko left" in markdown and "&lt;script&gt;alert" in markdown


def _row(app: Arborist, sid: str, bates: str) -> dict[str, object]:
    """The summary the widget's tree row shows for ``bates`` (a first screen's expand)."""
    view = app.forest_view()
    state = view.state(sid)
    tree = view.expand(sid, {}, [state.root_bates], 100, None)
    rows = {
        child["bates"]: child["summary"]
        for node in tree["nodes"].values()
        for child in node["children"]
    }
    return rows[bates]


def test_widget_rows_and_detail_carry_the_state_and_reason(withdrawn: Home) -> None:
    with Arborist(withdrawn.path) as app:
        row = _row(app, withdrawn.sid, withdrawn.bates)
        assert (row["audit_mode"], row["state"]) == ("STRICT", withdrawn.state)
        assert row["state_reason"] == REASON and "support" in row
        detail = body(app, withdrawn.bates, withdrawn.sid)
        assert detail["summary"]["state_reason"] == REASON
        record = detail["record"]
        assert (record["state"], record["state_reason"]) == (withdrawn.state, REASON)
        others = [
            r["bates"] for r in app.export_session(withdrawn.sid)
            if r.get("type") == "node" and r["parent_bates"] and r["bates"] != withdrawn.bates
        ]  # fmt: skip
        assert len(others) == 2
        for other in others:
            assert "state" not in _row(app, withdrawn.sid, other)


def test_a_turn_keeps_its_withdrawn_answer_after_the_same_words_answer_again(
    home: Path, tmp_path: Path
) -> None:
    """Asked again after a falsification, the key's new revision says the same words: the
    turn that showed the falsified revision still says failed in every face; the new one
    says ok (its support, no state)."""
    old = _home(home, tmp_path, "failed")
    with Arborist(home) as app:
        again = app.ask_turn(QUESTION, sid=old.sid)
        assert again.result.record.revision == 2 and not again.result.hit
        assert again.result.record.answer_text == app.node(old.bates).answer_text
        first, second = app.audit_now(app.node(old.bates)), app.audit_now(again.node)
        assert (first.state, first.revision, second.state, second.revision) == (
            "failed",
            1,
            "ok",
            2,
        )
        row = _row(app, old.sid, old.bates)
        assert (row["state"], row["revision"]) == ("failed", 1)
        assert "state" not in _row(app, old.sid, again.node.bates)
    tree = cli_out(home, "tree", "--sid", old.sid)
    assert tree.count(f"[STRICT failed: {SHOWN}]") == 1
    assert "[STRICT answered]" in tree


def test_a_document_changed_since_makes_its_answer_stale_in_every_text_face(
    home: Path, tmp_path: Path
) -> None:
    """Stale by a real re-ingest (no falsify): the reason is the store's own."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
        session = app.new_session()
        turn = app.ask_turn(QUESTION, sid=session.sid)
        (tmp_path / "spider.md").write_text(SPIDER + "\nA new paragraph.\n", encoding="utf-8")
        app.ingest([str(tmp_path / "spider.md")])
        now = app.audit_now(app.node(turn.node.bates))
        assert now.state == "stale" and now.state_reason
    tree = cli_out(home, "tree", "--sid", session.sid)
    assert f"[STRICT stale: {now.state_reason}]" in tree
    shown = cli_out(home, "show", turn.node.bates)
    assert f"quotes verified (STRICT), answer stale: {now.state_reason}" in shown
