"""A ``%%ask`` cell run again, whatever happened in between (issue #35, item 6): the forest
widget moved the current turn, an answer was falsified and asked again, another cell asked
the same question. A cell is known by the id its front end sends (``cellId``); run again
with the same question it lands where its turn is and never grows a turn that exists, and
its output calls a turn "this cell's earlier answer" only when it is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from arborist_nb._display import Answer

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
EVIL = "# Evil\n\nThe evil document says nothing loudly.\n"

ALONE = "Who created Spider-Man?"
FOLLOW = "And who drew him?"
OTHER = "What does the evil document say?"


@pytest.fixture
def shell(home: Path, tmp_path: Path) -> Iterator[InteractiveShell]:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    (tmp_path / "evil.md").write_text(EVIL, encoding="utf-8")
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    ip.run_line_magic("arborist", f"ingest {tmp_path}")
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def run(ip: InteractiveShell, cell: str | None, question: str, line: str = "") -> Answer:
    """Run a ``%%ask`` cell as a front end does: with its id in the request (None: none sent)."""
    ip.parent_header = {"metadata": {"cellId": cell}} if cell else {}
    with capture_output():
        answer = ip.run_cell_magic("ask", line, question)
    assert isinstance(answer, Answer)
    return answer


def turns(ip: InteractiveShell) -> int:
    conn = ip.magics_manager.registry["ArboristMagics"].app.sessions_conn
    return int(
        conn.execute("SELECT count(*) FROM nodes WHERE parent_bates IS NOT NULL").fetchone()[0]
    )


def widget_request(ip: InteractiveShell, kind: str, **args: Any) -> dict[str, Any]:
    """A request from the forest widget's view (``%arborist``), answered as its comm would."""
    ip.parent_header = {"metadata": {"cellId": "widget-cell"}}
    widget = ip.run_line_magic("arborist", "")
    reply = widget._sync.handle({"id": 1, "kind": kind, **args})
    assert reply is not None and reply["ok"], reply
    return dict(reply["result"])


def test_a_cell_run_again_after_the_widget_moved_the_current_turn_grows_nothing(
    shell: InteractiveShell,
) -> None:
    a = run(shell, "a", ALONE)
    b = run(shell, "b", FOLLOW)
    c = run(shell, "c", OTHER)
    assert b.node.parent_bates == a.bates
    count = turns(shell)
    root = shell.magics_manager.registry["ArboristMagics"].app.session(a.node.sid).root_bates
    for where in (root, c.bates, b.bates, a.bates):  # "Set as current" in the widget
        widget_request(shell, "cd", bates=where)
        again = run(shell, "b", FOLLOW)  # the follow-up cell alone, run again
        assert again.bates == b.bates and again.turn.reused and again.own
        assert again.status().startswith("this cell's earlier answer")
        assert [run(shell, cell, q).bates for cell, q in (("a", ALONE), ("b", FOLLOW), ("c", OTHER))] == [
            a.bates, b.bates, c.bates,
        ]  # fmt: skip
    assert turns(shell) == count


def test_a_cell_that_asked_where_cd_moved_stays_there_when_run_again(
    shell: InteractiveShell,
) -> None:
    """The notebook's ``%arborist cd 1`` cell, then a question: run again without the cd (or
    after the widget moved elsewhere), the question is found where it was, not at the root."""
    a = run(shell, "a", ALONE)
    shell.run_line_magic("arborist", f"cd {a.bates}")
    moved = run(shell, "m", OTHER)
    assert moved.node.parent_bates == a.bates
    count = turns(shell)
    again = run(shell, "m", OTHER)
    assert again.bates == moved.bates and again.own
    widget_request(shell, "cd", bates=moved.bates)
    assert run(shell, "m", OTHER).bates == moved.bates
    assert turns(shell) == count
    shell.run_line_magic("arborist", "cd root")  # a move the user asks for is obeyed
    assert run(shell, "m", OTHER).node.parent_bates != a.bates


def test_a_falsified_answer_asked_again_gets_one_new_turn_that_says_why(
    shell: InteractiveShell,
) -> None:
    """%arborist falsify, then the cell run again: one new turn (a new answer, which says
    what it replaces and why), then nothing more however often the cells run; the
    follow-up cell keeps its turn, and calls it its own."""
    a = run(shell, "a", ALONE)
    b = run(shell, "b", FOLLOW)
    shell.run_line_magic(
        "arborist", f"falsify {a.bates} --state failed --reason 'the year is wrong'"
    )
    count = turns(shell)
    again = run(shell, "a", ALONE)
    assert again.bates != a.bates and not again.hit and again.record.revision == 2
    assert again.status().startswith("new answer (replaces revision 1, failed: the year is wrong)")
    shown = repr(again)
    assert "; replaces revision 1, failed: the year is wrong)" in shown
    assert "\ncache      miss (answered now in " in shown
    assert (
        "the year is wrong" in again._repr_html_()
        and "the year is wrong" in again._repr_markdown_()
    )
    assert turns(shell) == count + 1
    for _ in range(2):
        assert run(shell, "a", ALONE).bates == again.bates
        follow = run(shell, "b", FOLLOW)
        assert follow.bates == b.bates and follow.status().startswith("this cell's earlier answer")
    assert turns(shell) == count + 1


def test_another_cells_turn_is_never_called_this_cells(shell: InteractiveShell) -> None:
    """A second cell with the same question, a turn the widget asked, a front end that
    names no cell: the turn is reused, and said to be asked here before."""
    a = run(shell, "a", ALONE)
    twin = run(shell, "twin", ALONE)
    assert twin.bates == a.bates and twin.turn.reused and not twin.own
    assert twin.status().startswith("asked here before ·")
    assert "\ncache      miss (answered by this turn, " in repr(twin)  # a's, which paid
    assert run(shell, "twin", ALONE).status().startswith("this cell's earlier answer")
    unnamed = run(shell, None, ALONE)
    assert unnamed.bates == a.bates and unnamed.status().startswith("asked here before")
    # The widget re-asks the question after it was falsified: the cell finds that turn.
    shell.run_line_magic("arborist", f"falsify {a.bates} --state failed --reason wrong")
    root = shell.magics_manager.registry["ArboristMagics"].app.session(a.node.sid).root_bates
    widget = shell.run_line_magic("arborist", "")
    widget._sync.handle({"id": 2, "kind": "fork", "bates": root, "question": ALONE})
    widget._handle_message(widget, {"id": 3, "kind": "poll"}, [])  # starts the queued fork
    assert widget.wait(30)
    count = turns(shell)
    found = run(shell, "a", ALONE)
    assert found.bates != a.bates and found.turn.reused and not found.own
    assert found.status().startswith("asked here before")
    assert turns(shell) == count


def test_an_edited_cell_is_asked_as_a_new_question(shell: InteractiveShell) -> None:
    a = run(shell, "a", ALONE)
    b = run(shell, "b", FOLLOW)
    edited = run(shell, "b", "And who inked him?")
    assert edited.bates != b.bates and not edited.turn.reused
    assert edited.node.parent_bates == b.bates, "a follow-up of the turn before it, as ever"
    assert run(shell, "a", ALONE).bates == a.bates


def test_a_cell_whose_parent_flag_was_taken_off_is_filed_as_a_new_question(
    shell: InteractiveShell,
) -> None:
    a = run(shell, "a", ALONE)
    placed = run(shell, "p", OTHER, f"--parent {a.bates}")
    assert placed.node.parent_bates == a.bates
    again = run(shell, "p", OTHER, f"--parent {a.bates}")
    assert again.bates == placed.bates and again.own
    root = shell.magics_manager.registry["ArboristMagics"].app.session(a.node.sid).root_bates
    alone = run(shell, "p", OTHER)  # it stands alone: under the root, as the flag is gone
    assert alone.node.parent_bates == root and not alone.own
