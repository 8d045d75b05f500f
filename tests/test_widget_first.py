"""The forest widget before its session exists (issue #26: a session is created only when
its first turn is): shown in an empty home, or in a kernel with no session yet, it writes
nothing to sessions.db; the first turn, a ``%%ask`` cell or the widget's own ``ask``, makes
the session, and the widget shows its tree from then on, without a restart.

sessions.db is read with a connection of its own, as another process would read it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from arborist._facade.app import Arborist
from arborist._faces.sync import NO_SESSION, ForestSync
from arborist._forest.nodes import children
from arborist_nb._widget import ForestWidget
from tests.test_widget import BATMAN, SPIDER, View

FIRST = "Who created Spider-Man?"


def sessions_in(path: Path) -> list[tuple[str, str | None]]:
    """The sessions sessions.db holds (sid, label), read apart from the facade."""
    if not path.exists():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return list(conn.execute("SELECT sid, label FROM sessions ORDER BY sid"))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Arborist]:
    """A home with documents and no session."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    (tmp_path / "batman.md").write_text(BATMAN, encoding="utf-8")
    with Arborist(tmp_path / "home") as opened:
        opened.ingest([str(tmp_path / "spider.md"), str(tmp_path / "batman.md")])
        assert sessions_in(opened.sessions_path) == []
        yield opened


@pytest.fixture
def shell(home: Path, tmp_path: Path) -> Iterator[InteractiveShell]:
    """A kernel with the magics loaded, documents ingested, no session yet."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    assert ip.run_line_magic("arborist", f"ingest {tmp_path / 'spider.md'}") is None
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def test_a_sync_in_an_empty_home_writes_no_session_and_says_there_is_none(
    app: Arborist,
) -> None:
    sync = ForestSync(app)
    assert (sync.sid, sync.state()) == (None, None)
    for kind in ("roots", "poll", "expand"):
        answer = sync.handle({"id": 1, "kind": kind, "bates": []})
        assert answer == {"id": 1, "ok": False, "error": NO_SESSION}, kind
    found = sync.handle({"id": 2, "kind": "find", "query": "Spider-Man"})
    assert found is not None and found["ok"] is True and found["result"]["hits"] == []
    sync.close()
    assert sessions_in(app.sessions_path) == []


def test_a_widget_in_an_empty_home_writes_no_session_and_waits(
    app: Arborist, monkeypatch: pytest.MonkeyPatch
) -> None:
    widget = ForestWidget(app=app)
    assert (widget.sid, widget.root_bates, widget.root_hash) == ("", "", "")
    assert (widget.title, repr(widget)) == ("new session", "ForestWidget(sid=None, turns=0)")
    assert widget.refresh() is None and widget.revision == 0, "nothing to show yet"
    reply = View(widget, monkeypatch).answer({"id": "r", "kind": "roots"})
    assert reply == {"id": "r", "ok": False, "error": NO_SESSION}
    widget.close()
    assert sessions_in(app.sessions_path) == []
    assert app.verify().ok


def test_the_widgets_own_first_question_makes_the_session_and_shows_its_tree(
    app: Arborist, monkeypatch: pytest.MonkeyPatch
) -> None:
    widget = ForestWidget(app=app)
    view = View(widget, monkeypatch)
    assert view.request("ask", question=FIRST) == {"pending": True, "parent": None}
    assert widget.wait(30), "the first question was never answered"
    [event] = view.events()
    assert event["kind"] == "turn_done" and event["ok"] is True, event
    [(sid, label)] = sessions_in(app.sessions_path)
    turn = app.node(event["bates"])
    assert (turn.sid, turn.question, label) == (sid, FIRST, None)
    # The widget shows the new session: its traits, and a walk of its tree by hashes.
    session = app.session(sid)
    assert (widget.sid, widget.root_bates, widget.title) == (
        sid,
        session.root_bates,
        f"session {sid}",
    )
    assert (widget.root_hash, widget.current_bates) == (
        app.node(session.root_bates).subtree_hash,
        turn.bates,
    )
    assert widget.revision == 1 and repr(widget) == f"ForestWidget(sid={sid!r}, turns=1)"
    view.sync()
    assert view.nodes[view.root]["children"] == [turn.bates]
    assert view.nodes[turn.bates]["summary"]["question"] == FIRST
    # Asked once: the view has a session now, so a second ``ask`` is refused, a fork is not.
    again = view.answer({"id": "a2", "kind": "ask", "question": "Who created Batman?"})
    assert again["ok"] is False and "ask under one of them" in again["error"]
    view.request("fork", bates=turn.bates, question="Who drew him?")
    assert widget.wait(30)
    assert [s.sid for s, n in app.sessions() if n == 2] == [sid]
    widget.close()


def test_a_second_first_question_waits_for_the_first(
    app: Arborist, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two first questions at once would make two sessions: the second is refused."""
    widget = ForestWidget(app=app)
    view = View(widget, monkeypatch)
    started: list[Any] = []
    monkeypatch.setattr(widget, "_fork", lambda *args: started.append(args))
    view.request("ask", question=FIRST)
    refused = view.answer({"id": "a2", "kind": "ask", "question": "Who created Batman?"})
    assert refused["ok"] is False and "is being answered" in refused["error"]
    empty = view.answer({"id": "a3", "kind": "ask", "question": "  "})
    assert empty["ok"] is False and "empty question" in empty["error"]
    assert widget.wait(5) and len(started) == 1
    widget.close()
    assert sessions_in(app.sessions_path) == []


def test_showing_arborist_in_a_kernel_with_no_session_writes_nothing_until_its_first_ask(
    shell: InteractiveShell, home: Path
) -> None:
    magics = shell.magics_manager.registry["ArboristMagics"]
    widget = shell.run_line_magic("arborist", "")
    assert isinstance(widget, ForestWidget)
    assert (magics.sid, widget.sid, widget.title) == (None, "", "notebook")
    assert sessions_in(home / "sessions.db") == []
    assert shell.run_cell(f"%%ask\n{FIRST}").success
    # The cell's turn made the kernel's session; the widget shows it without a restart.
    [(sid, label)] = sessions_in(home / "sessions.db")
    assert (magics.sid, widget.sid, label, widget.title) == (sid, sid, "notebook", "notebook")
    assert widget.revision == 1 and widget.current_bates == magics.app.session(sid).current_bates
    roots = widget._sync.handle({"id": 1, "kind": "roots"})
    assert roots is not None and roots["ok"] and roots["result"]["turns"] == 1
    expand = widget._sync.handle({"id": 2, "kind": "expand", "bates": [widget.root_bates]})
    assert expand is not None and expand["ok"]
    [child] = expand["result"]["nodes"][widget.root_bates]["children"]
    assert child["summary"]["question"] == FIRST


def test_the_first_question_asked_in_the_widget_is_the_kernels(
    shell: InteractiveShell, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked in the widget, the first question is asked as the kernel's would be (its
    session's label) and the kernel works in that session from then on."""
    magics = shell.magics_manager.registry["ArboristMagics"]
    widget = shell.run_line_magic("arborist", "")
    view = View(widget, monkeypatch)
    view.request("ask", question=FIRST)
    assert widget.wait(30)
    [(sid, label)] = sessions_in(home / "sessions.db")
    assert (label, magics.sid, widget.sid) == ("notebook", sid, sid)
    assert shell.run_cell("%%ask\nAnd who drew him?").success
    assert sessions_in(home / "sessions.db") == [(sid, "notebook")], "the same session"
    assert [n for s, n in magics.app.sessions()] == [2]
    # A second widget shows the kernel's session at once.
    other = shell.run_line_magic("arborist", "")
    assert other.sid == sid


def test_a_fork_in_the_widget_is_answered_by_the_kernels_model(
    shell: InteractiveShell, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``%arborist llm NAME`` in the kernel: a fork asked in the widget is answered by that
    model, as the kernel's next ``%%ask`` would be, not by the home's default."""
    assert shell.run_cell(f"%%ask\n{FIRST}").success  # by the default, extractive
    shell.run_line_magic("arborist", "llm stub")
    widget = shell.run_line_magic("arborist", "")
    view = View(widget, monkeypatch)
    magics = shell.magics_manager.registry["ArboristMagics"]
    first = magics.app.node(magics.app.session(widget.sid).current_bates)
    view.request("fork", bates=first.bates, question="And who drew him?")
    assert widget.wait(30)
    forked = [
        n
        for n in children(magics.app.sessions_conn, first.bates)
        if n.question == "And who drew him?"
    ]
    assert len(forked) == 1
    record = magics.app.record(forked[0].cache_key)
    assert record.model_profile["provider"] == "stub"


def test_a_first_question_over_an_empty_store_names_the_notebooks_ingest_magic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a notebook the ingest command is the magic (issue #35): the widget's refusal says
    ``%arborist ingest --demo``, never the shell's ``arborist ingest``."""
    with Arborist(tmp_path / "empty") as empty:
        widget = ForestWidget(app=empty)
        view = View(widget, monkeypatch)
        view.request("ask", question=FIRST)
        assert widget.wait(30)
        [event] = view.events()
        assert event["ok"] is False, event
        assert "Run `%arborist ingest --demo`" in event["error"], event["error"]
        widget.close()
        assert sessions_in(empty.sessions_path) == []
