"""One ask, one value (issue #26): every face builds an :class:`~arborist._facade.asks.Ask` and hands
it down whole, the client resolved once and the session read once; and no face writes a
session before its first turn."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from arborist import Arborist
from arborist._errors import BadInput
from arborist._facade.asks import Ask
from arborist._facade.forest import HomeForest
from arborist._faces.repl import Repl, scripted_reader
from tests import test_cli_faces as faces
from tests.test_cli_faces import cell_says, notebook_says, run

corpus, shell = faces.corpus, faces.shell
"""The fixtures of every face's tests: a home with two documents, a shell with arborist_nb."""

QUESTION = "Who created Spider-Man?"


def on_disk(home: Path) -> list[tuple[str | None, int]]:
    """What sessions.db holds: each session's label and number of turns."""
    with Arborist(home) as app:
        return [(session.label, turns) for session, turns in app.sessions()]


def notebook(shell: InteractiveShell, line: str, cell: str | None = None) -> str:
    """What ``%arborist LINE`` (or ``%%ask LINE`` over ``cell``) prints; an error its line."""
    return notebook_says(shell, line) if cell is None else cell_says(shell, "ask", line, cell)


def repl(app: Arborist, lines: list[str]) -> list[str]:
    out: list[str] = []
    Repl(app, None, read=scripted_reader(lines), write=out.append).run()
    return out


def test_no_face_writes_a_session_before_its_first_turn(
    corpus: Path, home: Path, shell: InteractiveShell
) -> None:
    """``session new`` and ``session --label`` in every face, the REPL's start, a kernel's
    start and ``cd root`` leave sessions.db without a session; the first question makes it,
    with the label asked for, and its turn."""
    for words in (["session", "new", "--label", "shell"], ["session"], ["session", "--label", "x"]):
        code, out, err = run(*words)  # the REPL opens in the new session; input ends at once
        assert (code, err) == (0, "") and "made by its first question" in out, out
    assert on_disk(home) == []
    with Arborist(home) as app:
        out = repl(app, ["/session new --label r", "/cd root", "/session list", "/sid"])
    assert out[1:4] == [
        "a new session 'r': it starts with the first question",
        "now at the root of a new session 'r': it starts with the first question",
        "no sessions\n(new, no turns yet)  r",
    ]
    assert out[4].startswith("error: no session yet") and on_disk(home) == []
    assert notebook(shell, "session new --label lab") == (
        "a new session 'lab': it starts with the first question"
    )
    assert notebook(shell, "session --label lab2").startswith("a new session 'lab2'")
    assert notebook(shell, "session list") == "no sessions\n(new, no turns yet)  lab2"
    assert notebook(shell, "session list --json") == "[]", "the JSON is the forest's alone"
    assert on_disk(home) == []
    notebook(shell, "", QUESTION)
    assert on_disk(home) == [("lab2", 1)]
    assert "no turns yet" not in notebook(shell, "session list")


def test_a_first_turn_that_cannot_be_written_leaves_no_session(corpus: Path, home: Path) -> None:
    """The new session and its first turn are one transaction: a turn refused as it is
    written (a label that reads as a seq) takes its session with it."""
    with Arborist(home) as app:
        with pytest.raises(BadInput, match="seq"):
            app.ask_turn(Ask(QUESTION, label="12"))
        assert app.sessions() == []
        turn = app.ask_turn(Ask(QUESTION, label="first", session_label="kept"))
        assert turn.node.seq == 1 and turn.node.label == "first"
    assert on_disk(home) == [("kept", 1)]


def test_an_ask_that_names_no_label_makes_an_unlabelled_session(corpus: Path, home: Path) -> None:
    """No face's name is a default: a session made by an ``Ask`` that names no label (a
    caller of the facade, not the CLI) has none, and is not filed as the CLI's."""
    with Arborist(home) as app:
        app.ask_turn(Ask(QUESTION))
    assert on_disk(home) == [(None, 1)]


def test_cd_before_the_session_exists_files_its_first_question_there(
    corpus: Path, home: Path, shell: InteractiveShell
) -> None:
    with Arborist(home) as app:
        first = app.ask_turn(Ask(QUESTION, session_label="a")).node
        out = repl(app, ["/session new --label b", f"/cd {first.bates}", "/back",
                         f"/cd {first.bates}", "And who drew him?"])  # fmt: skip
        assert out[2:4] == [f"now at {first.bates}", f"now at {first.parent_bates}"]
        assert on_disk(home) == [("a", 1), ("b", 1)]
        fork = next(s for s, _ in app.sessions() if s.label == "b")
        node = app.node(fork.current_bates)
        assert node.parent_bates == first.bates and node.sid == fork.sid
    notebook(shell, "session new --label c")
    assert notebook(shell, f"cd {first.bates}") == f"now at {first.bates}"
    with contextlib.redirect_stdout(io.StringIO()):
        answer = shell.run_cell_magic("ask", "", "Who drew him?")
    assert answer.turn.node.parent_bates == first.bates and answer.turn.node.sid != first.sid
    assert on_disk(home)[-1] == ("c", 1)


def test_every_face_hands_the_facade_one_ask_built_alike(
    corpus: Path, home: Path, shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same flags make the same Ask in the ``arborist`` command, the REPL, ``%arborist
    ask`` and ``%%ask`` (where it goes differs by face), each ask resolving its client once."""
    asked: list[Ask] = []
    resolved: list[str | None] = []
    real_turn, real_client = Arborist.ask_turn, Arborist.client

    def ask_turn(self: Arborist, ask: Ask | str, /, **kw: Any) -> Any:
        asked.append(ask)  # type: ignore[arg-type]
        return real_turn(self, ask, **kw)

    def client(self: Arborist, name: str | None = None, **kw: Any) -> Any:
        resolved.append(name)
        return real_client(self, name, **kw)

    monkeypatch.setattr(Arborist, "ask_turn", ask_turn)
    monkeypatch.setattr(Arborist, "client", client)
    flags = "--no-cache --thread --llm extractive --timeout 2.5 --retries 3"
    code, _, err = run("ask", QUESTION, *flags.split())
    assert code == 0, err
    with Arborist(home) as app:
        repl(app, [f"/ask {flags} -- {QUESTION}"])
    notebook(shell, f"ask {flags} -- {QUESTION}")
    notebook(shell, flags, QUESTION)
    assert len(asked) == 4 and all(isinstance(a, Ask) for a in asked)
    assert len(resolved) == 4, "one client per ask"
    where = {"sid": None, "session_label": None, "parent": None, "reuse": False,
             "transcript": None}  # fmt: skip
    alike = {dataclasses.replace(a, **where) for a in asked}
    same = Ask(QUESTION, session_label=None, llm="extractive", timeout=2.5, retries=3,
               use_cache=False, thread=True)  # fmt: skip
    assert alike == {same}
    assert [a.session_label for a in asked[:2]] == ["cli", None]  # the shell's, the REPL's


def test_an_ask_reads_its_session_once(corpus: Path, home: Path, shell: InteractiveShell,
                                       monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """The facade reads the session an ask names once (where to ask, where to record); a
    cell reads it once more, for where it lands (was five times)."""
    reads: list[str] = []
    real = HomeForest.session
    monkeypatch.setattr(
        HomeForest, "session", lambda self, sid: reads.append(sid) or real(self, sid)
    )
    with Arborist(home) as app:
        sid = app.ask_turn(Ask(QUESTION)).node.sid
        reads.clear()
        app.ask_turn(Ask("And who drew him?", sid=sid, parent="1"))
        assert reads == [sid]
    notebook(shell, f"session resume {sid}")
    reads.clear()
    notebook(shell, "", "And what did he draw?")
    assert reads == [sid, sid]


TURN_OWN = {"bates", "seq", "node_hash", "subtree_hash", "served", "cache", "first_answered",
            "hits", "elapsed_ms", "replaces"}  # fmt: skip
"""The facts of one turn that another turn with the same answer says otherwise: itself, and
whether it paid for the answer (each ask's own)."""


def same_answer_facts(facts: dict[str, object], other: dict[str, object]) -> bool:
    """Whether two turns' facts (``ask --json``'s ``facts``) say the same of one answer."""
    return set(facts) == set(other) and {k: v for k, v in facts.items() if k not in TURN_OWN} == {
        k: v for k, v in other.items() if k not in TURN_OWN
    }


def test_ask_json_is_one_shape_in_every_face(
    corpus: Path, home: Path, shell: InteractiveShell
) -> None:
    """``ask --json`` at a shell, in the REPL, ``%arborist ask --json`` and ``%%ask --json``
    print one function's JSON (commands_answers.ask_json): the same turn, the same keys."""
    code, out, err = run("ask", QUESTION, "--json")
    assert code == 0, err
    first = json.loads(out)
    sid = first["sid"]
    with Arborist(home) as app:
        shown = repl(app, [f"/ask --json --sid {sid} --parent root -- {QUESTION}"])[1]
    faces = [
        json.loads(shown),
        json.loads(notebook(shell, f"ask --json --sid {sid} --parent root -- {QUESTION}")),
        json.loads(notebook(shell, f"--json --sid {sid}", QUESTION)),
    ]
    moved = ("hit", "elapsed_ms", "hit_count", "last_hit_at", "facts")
    for data in faces:
        assert set(data) == set(first) and data["hit"] is True
        assert {k: v for k, v in data.items() if k not in (*moved, "bates")} == {
            k: v for k, v in first.items() if k not in (*moved, "bates")
        }
        assert same_answer_facts(data["facts"], first["facts"])
    asked_before = {first["bates"], faces[0]["bates"], faces[1]["bates"]}
    assert len(asked_before) == 3 and faces[-1]["bates"] in asked_before, "the cell reuses one"
