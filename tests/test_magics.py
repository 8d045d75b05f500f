"""The magics in a real IPython shell: %%ask, %arborist subcommands, one-line errors, escaped HTML."""

from __future__ import annotations

import contextlib
import html
import io
import json
import os
import re
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.display import HTML
from IPython.utils.capture import capture_output

from arborist._commands.desk import COMMANDS
from arborist._faces.cli import cli
from arborist_nb._display import Answer, Landing, answer_markup
from arborist_nb._magics import Lines, interpolate
from tests.chat_server import ChatServer, completion, silent
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
HOSTILE = (
    "# Evil <img src=x onerror=alert(1)>\n\n"
    'The evil document says <script>alert(2)</script> and "><svg onload=alert(3)> loudly.\n'
)


@pytest.fixture
def shell(home: Path, tmp_path: Path) -> Iterator[InteractiveShell]:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    (tmp_path / "evil.md").write_text(HOSTILE, encoding="utf-8")
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    ip.user_ns["docs"] = str(tmp_path)
    assert ip.run_line_magic("arborist", f"ingest {tmp_path}") is None
    yield ip
    ip.run_line_magic("unload_ext", "arborist_nb")
    InteractiveShell.clear_instance()


def ask(ip: InteractiveShell, question: str, line: str = "") -> Answer:
    result = ip.run_cell_magic("ask", line, question)
    assert isinstance(result, Answer)
    return result


def test_ask_returns_an_answer_that_underscore_holds(shell: InteractiveShell) -> None:
    outcome = shell.run_cell("%%ask\nWho created Spider-Man?")
    assert outcome.success
    answer = shell.user_ns["_"]
    assert isinstance(answer, Answer)
    assert "Ditko" in answer.text and answer.audit_mode == "STRICT" and not answer.hit
    assert all(status.verified for status in answer.verify())
    assert {"source_root", "chunk_count", "chunk_index", "leaf", "proof", "text"} <= set(
        answer.proofs[0]
    )
    text = repr(answer)
    assert f"bates      {answer.bates}" in text
    assert re.search(
        r"^witness +sessions\.db \d+:[0-9a-f]{64}, store\.db \d+:[0-9a-f]{64}$", text, re.M
    )


def test_a_display_checks_the_answer_once_for_every_mimetype(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    """One check per display, however many mimetypes it carries (it was one per mimetype:
    three reloads and checks a cell), and none when the Answer is made; shown again after
    the store was edited, it shows the failure."""
    app = shell.magics_manager.registry["ArboristMagics"].app
    real, calls = app.check_answer, []
    monkeypatch.setattr(app, "check_answer", lambda rid: calls.append(rid) or real(rid))
    answer = ask(shell, "Who created Spider-Man?")
    assert calls == []
    bundle, _meta = shell.display_formatter.format(answer)
    assert set(bundle) == {"text/plain", "text/markdown", "text/html"}
    assert calls == [answer.record.id]
    assert bundle["text/plain"] == repr(answer) and "Ditko" in bundle["text/plain"]
    assert bundle["text/html"] == answer._repr_html_() and "STRICT" in bundle["text/plain"]
    assert bundle["text/markdown"] == answer._repr_markdown_()
    # the text and the markdown say the facts (their standing checks the answer, once while
    # the store is unchanged); the HTML's proof rows check it once more
    assert len(calls) == 2, "_repr_html_: one check"
    with sqlite3.connect(home / "store.db") as conn:
        conn.execute("UPDATE chunks SET text = 'tampered' WHERE text LIKE '%Ditko%'")
    again, _meta = shell.display_formatter.format(answer)
    assert len(calls) == 3 and "STRICT" not in again["text/plain"]
    assert 'data-proof="fail"' in again["text/html"]


def test_interpolation_from_the_namespace(shell: InteractiveShell) -> None:
    shell.user_ns["hero"] = "Spider-Man"
    answer = ask(shell, "Who created {hero}?")
    assert answer.record.question == "Who created Spider-Man?"
    assert interpolate("{{literal}} {x}", {"x": 1}) == "{literal} 1"
    with pytest.raises(UsageError, match="villain"):
        interpolate("Who is {villain}?", {})
    with pytest.raises(UsageError):
        interpolate("{a.b!r", {})


def test_a_cell_asks_about_another_cells_input_output_and_error(shell: InteractiveShell) -> None:
    """``{In[n]}``, ``{Out[n]}``, ``{Err[n]}`` as jupyter-ai takes them, by number or counted
    back from the asking cell; a cell that has none is one line, and nothing is asked."""
    n = shell.execution_count  # cells are numbered as a kernel numbers them (stored history)
    assert shell.run_cell("6 * 7", store_history=True).success  # cell n: Out[n] = 42
    assert not shell.run_cell("raise KeyError('spider_ratio')", store_history=True).success
    ask_cell = f"%%ask\nWhy {{In[{n}]}} gives {{Out[{n}]}} and {{Err[-1]}}?"
    outcome = shell.run_cell(ask_cell, store_history=True)
    assert outcome.success, outcome.error_in_exec
    question = shell.user_ns["_"].record.question
    assert question.startswith("Why 6 * 7 gives 42 and Traceback (most recent call last):")
    assert question.rstrip("?").endswith("KeyError: 'spider_ratio'")
    for field, says in (
        (f"{{Err[{n}]}}", f"{{Err[{n}]}}: no cell {n} that raised an error before this one"),
        (f"{{Out[{n + 1}]}}", f"{{Out[{n + 1}]}}: no cell {n + 1} with an output before this one"),
        ("{In[999]}", "{In[999]}: no cell 999 before this one"),
        ("{In[-100]}", "no cell"),
        ("{Args[1]}", "is not a variable name or a cell (In[n], Out[n], Err[n])"),
    ):
        with pytest.raises(UsageError, match=re.escape(says)):
            shell.run_cell_magic("ask", "", f"What about {field}?")


def test_rerunning_a_cell_reuses_its_turn_and_a_follow_up_nests(shell: InteractiveShell) -> None:
    first = ask(shell, "Who created Spider-Man?")
    again = ask(shell, "Who created Spider-Man?")
    assert again.bates == first.bates and again.turn.reused
    follow = ask(shell, "Who drew him?")
    assert follow.node.parent_bates == first.bates
    labelled = ask(shell, "Who created Spider-Man?", "--label origin")  # a re-run, now labelled
    assert labelled.bates == first.bates and labelled.turn.reused
    assert labelled.node.label == "origin"  # the label is not dropped by the reuse


def test_running_the_notebook_twice_gives_the_same_turns_and_grows_nothing(
    shell: InteractiveShell,
) -> None:
    cells = [
        ("", "Who created Spider-Man?"),  # stands alone: under the root
        ("", "And who drew him?"),  # a follow-up: under the cell before
        ("", "What does the evil document say?"),  # stands alone again: under the root
        ("--parent root", "Who created Spider-Man?"),
    ]
    magics = shell.magics_manager.registry["ArboristMagics"]
    conn = magics.app.sessions_conn
    first = [ask(shell, cell, line) for line, cell in cells]
    root = magics.app.session(magics.sid).root_bates
    assert [a.node.parent_bates for a in first[:3]] == [root, first[0].bates, root]
    nodes = conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    second = [ask(shell, cell, line) for line, cell in cells]
    assert [a.bates for a in second] == [a.bates for a in first]
    assert [a.text for a in second] == [a.text for a in first]
    assert conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == nodes


def test_a_cell_is_read_under_the_turn_it_would_follow(shell: InteractiveShell) -> None:
    """Whole alone, a question that picks "the second one" is a follow-up under a turn that
    named a pair, and is filed under it; under a turn that named none it stands alone."""
    question = "Is there a film about the second one?"
    pair = ask(shell, "Who created Spider-Man and Batman?")
    follow = ask(shell, question)
    assert follow.node.parent_bates == pair.bates
    single = ask(shell, "Who is Spider-Man?")  # stands alone: the current turn now
    alone = ask(shell, question.replace("Is there", "Was there"))
    root = shell.magics_manager.registry["ArboristMagics"].app.session(single.node.sid).root_bates
    assert single.node.parent_bates == root and alone.node.parent_bates == root


def landed(ip: InteractiveShell, question: str, line: str = "") -> tuple[Answer, dict[str, str]]:
    """Ask, and the one line the cell showed (every rendering) saying where the turn was filed."""
    with capture_output() as captured:
        answer = ask(ip, question, line)
    (shown,) = captured.outputs
    return answer, shown.data


def test_each_ask_says_where_its_turn_was_filed_and_how_to_file_it_elsewhere(
    shell: InteractiveShell,
) -> None:
    first, shown = landed(shell, "Who created Spider-Man?")
    assert shown["text/plain"] == "filed under the session's root: it stands alone"
    follow, shown = landed(shell, "Who drew him?")
    assert follow.node.parent_bates == first.bates
    assert shown["text/plain"] == (
        f"filed under #{first.node.seq} as a follow-up · %%ask --parent root to ask it alone"
    )
    assert "`%%ask --parent root`" in shown["text/markdown"]
    assert "<code>%%ask --parent root</code>" in shown["text/html"]
    again, shown = landed(shell, "Who drew him?")  # a re-run: the same turn, the same place
    assert again.bates == follow.bates and "as a follow-up" in shown["text/plain"]
    alone, shown = landed(shell, "What does the evil document say?")
    seq = follow.node.seq
    assert shown["text/plain"] == (
        "filed under the session's root: it stands alone · "
        f"%%ask --parent {seq} to ask it as a follow-up of #{seq}"
    )
    # the options shown do what they say
    moved, shown = landed(shell, "What does the evil document say?", f"--parent {seq}")
    assert moved.node.parent_bates == follow.bates
    assert shown["text/plain"] == f"filed under #{seq} (--parent)"
    apart, shown = landed(shell, "Who drew him?", "--parent root")
    assert apart.node.parent_bates == alone.node.parent_bates
    assert shown["text/plain"] == "filed under the session's root (--parent)"
    shell.run_line_magic("arborist", f"cd {first.bates}")
    _, shown = landed(shell, "What does the evil document say?")
    assert shown["text/plain"] == f"filed under #{first.node.seq}, where %arborist cd moved"


def test_a_follow_up_with_nothing_above_it_says_so(shell: InteractiveShell) -> None:
    answer, shown = landed(shell, "And who drew him?")
    root = shell.magics_manager.registry["ArboristMagics"].app.session(answer.node.sid).root_bates
    assert answer.node.parent_bates == root
    assert shown["text/plain"] == (
        "filed under the session's root: a follow-up, with no turn above it to follow"
    )


def test_the_landing_line_is_escaped_in_every_rendering() -> None:
    line = Landing("filed under <img src=x onerror=alert(1)> *x*", "%%ask `--x` <b>", "to <i>")
    page = line._repr_html_()
    assert "<img" not in page and "<b>" not in page and "<i>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    markdown = line._repr_markdown_()
    assert "<img" not in markdown and "\\*x\\*" in markdown
    assert markdown.count("`") == 2, "the option is one code span"
    assert "\n" not in repr(Landing("filed\nunder"))


def test_after_cd_the_next_question_lands_where_the_user_moved(shell: InteractiveShell) -> None:
    first = ask(shell, "Who created Spider-Man?")
    ask(shell, "What does the evil document say?")
    shell.run_line_magic("arborist", f"cd {first.bates}")
    moved = ask(shell, "What does the evil document say?")
    assert moved.node.parent_bates == first.bates
    after = ask(shell, "What does the evil document say loudly?")  # the move is used once
    assert (
        after.node.parent_bates
        == shell.magics_manager.registry["ArboristMagics"].app.session(moved.node.sid).root_bates
    )


def test_an_ask_before_any_ingest_names_the_notebook_command(tmp_path: Path) -> None:
    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        with pytest.raises(UsageError, match=r"%arborist ingest --demo") as err:
            ip.run_cell_magic("ask", "", "What does json.loads do?")
        assert "\n" not in str(err.value)
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def test_bad_input_is_a_one_line_usage_error_and_writes_nothing(shell: InteractiveShell) -> None:
    magics = shell.magics_manager.registry["ArboristMagics"]
    before = magics.app.sessions_conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    for line, cell in (
        ("", "   "),
        ("--parent nope", "Who?"),
        ("--llm nonesuch", "Who?"),
        ("--bogus", "Who?"),
    ):
        with pytest.raises(UsageError) as err:
            shell.run_cell_magic("ask", line, cell)
        assert "\n" not in str(err.value)
    for line in (
        "bogus",
        "cd",
        "cd nope",
        "label",
        "falsify 1",
        "session resume nope",
        "verify --witness",
        "llm nonesuch",
        "find",
    ):
        with pytest.raises(UsageError) as err:
            shell.run_line_magic("arborist", line)
        assert "\n" not in str(err.value), line
    after = magics.app.sessions_conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    assert after - before <= 1, "at most the session root of the kernel's session"


def test_every_subcommand_runs(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first = ask(shell, "Who created Spider-Man?")
    commands = [
        "help",
        "tree",
        "branches",
        "find spider",
        "cd root",
        "sid",
        "root",
        f"cd {first.bates}",
        "back",
        "label creators",
        "show",
        "show creators",
        "chain-check",
        "search Ditko",
        "verify",
        "stats",
        "llm",
        "llm extractive",
        "session list",
        f"falsify {first.bates} --state quarantined --reason disputed",
        "session new",
    ]
    for command in commands:
        shell.run_line_magic("arborist", command)
    out = capsys.readouterr().out
    assert "%arborist tree" in out and "now at" in out and "is now labelled 'creators'" in out
    assert "intact" in out and "store.db     ok" in out and "is now quarantined" in out
    assert len(COMMANDS) >= 25


def test_cross_session_cd_and_fork(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    first = ask(shell, "Who created Spider-Man?")
    shell.run_line_magic("arborist", "session new")
    shell.run_line_magic("arborist", f"cd {first.bates}")
    fork, shown = landed(shell, "Who drew him?")
    assert fork.node.parent_bates == first.bates and fork.node.sid != first.node.sid
    where = f"#{first.node.seq} of session {first.node.sid}"  # another session's turn, in full
    assert shown["text/plain"] == f"filed under {where}, where %arborist cd moved"
    _, shown = landed(shell, "Who drew Spider-Man?")  # stands alone: this session's root
    seq = fork.node.seq  # the fork is a turn of this session, grafted under the other's
    assert shown["text/plain"] == (
        "filed under the session's root: it stands alone · "
        f"%%ask --parent {seq} to ask it as a follow-up of #{seq}"
    )
    shell.run_line_magic("arborist", "tree")
    assert f"grafted at {first.bates}:" in capsys.readouterr().out


def test_html_escapes_hostile_answers_and_documents(shell: InteractiveShell) -> None:
    answer = ask(shell, "What does the evil document say loudly?")
    rendered = answer._repr_html_()
    assert "<script" not in rendered and "<img" not in rendered and "<svg" not in rendered
    assert html.escape("<script>alert(2)</script>") in rendered
    assert 'data-proof="pass"' in rendered
    markdown = answer._repr_markdown_()
    assert "<script" not in markdown and "<img" not in markdown
    assert "](" not in markdown.replace("\\](", ""), "no markdown link can form from answer text"


def test_a_hit_says_where_it_was_first_answered(shell: InteractiveShell) -> None:
    first = ask(shell, "Who created Spider-Man?")
    shell.run_line_magic("arborist", "session new")
    hit = ask(shell, "Who created Spider-Man?")
    assert hit.hit and f"hit (first answered at {first.bates}" in repr(hit)


def test_an_openai_answer_streams_into_the_output_then_renders(
    shell: InteractiveShell, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tokens from a real (loopback) OpenAI-compatible server update one output as they arrive."""
    import arborist_nb._magics as magics_module

    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "loopback-model")
    shown: list[str] = []
    waited: list[str] = []  # "waiting for ...: N s" lines, when the first token is slow
    landed: list[int] = []

    def show(obj: object) -> None:
        data = obj.data  # type: ignore[attr-defined]
        (waited if data and not isinstance(obj, HTML) else shown).append(data)

    class Handle:
        def update(self, obj: object, raw: bool = False) -> None:
            if raw:  # a bundle published as it is: what the notebook saves
                assert obj == {"text/plain": ""}, obj
                shown.append("")
            else:
                show(obj)

    def fake_display(obj: object, display_id: bool = False) -> Handle:
        if isinstance(obj, Landing):  # the line saying where the turn was filed
            landed.append(len(shown))
        else:
            show(obj)
        return Handle()

    monkeypatch.setattr(magics_module, "display", fake_display)
    monkeypatch.setattr(
        magics_module,
        "time",
        type("Clock", (), {"monotonic": staticmethod(iter(range(0, 10**6)).__next__)}),
    )
    answer = ask(shell, "Who created Spider-Man?", "--llm openai")
    assert chat_server.requests == 1 and not answer.hit
    partial = [text for text in shown if text]
    assert len(partial) >= 2, "the answer appeared piece by piece"
    prefixes = [answer_markup(answer.text[:n]) for n in range(1, len(answer.text) + 1)]
    assert partial[0] in prefixes and partial[-1] == answer_markup(answer.text)
    assert "[E1 |" in partial[-1], "streamed tokens are rendered as the final answer is"
    assert shown[-1] == "", "the streaming output is cleared once the answer renders"
    assert landed == [len(shown)], "then one line says where the turn was filed"
    assert all("s of at most" in line for line in waited), "nothing else is shown"


def test_a_models_paraphrase_is_sources_verified_not_quotes_verified(
    shell: InteractiveShell, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The status line says what was checked: a model's own sentences over proven sources
    are "sources verified, wording not quoted"; the mode (STRICT) is unchanged."""
    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "loopback-model")
    chat_server.script(completion("Two men, Lee and Ditko, dreamed up Spider-Man. [E1]"))
    answer = ask(shell, "Who created Spider-Man?", "--llm openai --no-cache")
    assert answer.audit_mode == "STRICT"
    status = repr(answer).split("\n\n")[1]
    assert status.startswith("new answer · sources verified, wording not quoted (STRICT) · ")
    quoted = ask(shell, "Who created Spider-Man?")  # the extractive answerer quotes
    assert " · quotes verified (STRICT) · " in repr(quoted).split("\n\n")[1]


def test_a_model_that_never_answers_is_named_while_waited_for_and_an_interrupt_is_one_line(
    shell: InteractiveShell, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loopback server that accepts and says nothing: within a second the cell's output
    names the model, the server and the deadline, counting up; the user's interrupt (a
    real SIGINT) ends the cell in one line and writes no turn."""
    import arborist_nb._magics as magics_module

    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "loopback-model")
    chat_server.script(silent())
    shown: list[tuple[float, str]] = []
    interrupt = threading.Event()

    class Handle:
        def update(self, obj: object, raw: bool = False) -> None:
            data = obj["text/plain"] if raw else obj.data  # type: ignore[attr-defined,index]
            shown.append((time.monotonic(), data))
            if len(shown) >= 3:  # the line, then two updates: now the user presses Ctrl-C
                interrupt.set()

    def fake_display(obj: object, display_id: bool = False) -> Handle:
        shown.append((time.monotonic(), obj.data))  # type: ignore[attr-defined]
        return Handle()

    monkeypatch.setattr(magics_module, "display", fake_display)
    # Ctrl-C as a kernel has it: a pytest-xdist worker ignores SIGINT, a kernel never does.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(
        target=lambda: interrupt.wait(30) and os.kill(os.getpid(), signal.SIGINT), daemon=True
    ).start()
    started = time.monotonic()
    try:
        with pytest.raises(UsageError) as caught:
            shell.run_cell_magic("ask", "--llm openai", "Who created Spider-Man?")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert str(caught.value) == "interrupted while waiting for loopback-model: no turn was written"
    first_at, first = shown[0]
    assert first_at - started < 1.0, "the waiting line shows within a second"
    server = chat_server.url.rstrip("/")
    assert re.fullmatch(
        rf"waiting for loopback-model at {re.escape(server)}[^:]*: 0 s of at most 120 s "
        r"\(interrupt to stop\)",
        first.replace("\\", ""),
    ), first
    assert "1 s of at most" in shown[1][1] and shown[-1][1] == "", "counted up, then cleared"
    app = shell.magics_manager.registry["ArboristMagics"].app
    assert app.sessions() == [], "no turn (and so no session) was written"


def test_coaccess_from_a_notebook_records_its_path_redacted_and_answers_related(
    shell: InteractiveShell,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
) -> None:
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    shell.user_ns["__vsc_ipynb_file__"] = str(Path.home() / "private" / "Lab Book.ipynb")
    first = ask(shell, "Who created Spider-Man?")
    shell.run_line_magic("arborist", "session new")
    ask(shell, "Who created Spider-Man?")
    ask(shell, "What does the evil document say?")
    shell.run_line_magic("arborist", f"related {first.bates}")
    assert "related to turn" in capsys.readouterr().out
    widened = ask(shell, "Who created Spider-Man?", "--related")
    assert len(widened.evidence) > len(first.evidence)
    magics = shell.magics_manager.registry["ArboristMagics"]
    refs = {
        row[0] for row in magics.app.store_conn.execute("SELECT transcript_ref FROM record_session")
    }
    assert len(refs) == 1 and refs.pop().endswith(":Lab_Book.ipynb")
    raw = b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())
    assert str(Path.home()).encode() not in raw and b"private" not in raw
    with pytest.raises(UsageError, match=r"required: REF: usage: %arborist related .*REF$"):
        shell.run_line_magic("arborist", "related")


def test_subcommand_flags_parse_like_the_cli(shell: InteractiveShell) -> None:
    first = ask(shell, "Who created Spider-Man?")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        shell.run_line_magic("arborist", "find Spider --json")  # a flag, not a search word
        found = json.loads(buffer.getvalue())
    assert [hit["bates"] for hit in found] == [first.bates]
    assert found[0]["audit_now"] == "STRICT"
    for line in ("search Ditko --limit 1 --json", "stats --json"):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            shell.run_line_magic("arborist", line)
        assert json.loads(buffer.getvalue())
    # Flags in any order, as at the CLI.
    shell.run_line_magic(
        "arborist", f"falsify --reason 'disputed origin' --state quarantined {first.bates}"
    )
    assert shell.magics_manager.registry["ArboristMagics"].app.record(first.cache_key).state == (
        "quarantined"
    )
    for bad, says in (
        ("find", "the following arguments are required"),
        ("search Ditko --limit 0", "--limit: must be between 1 and 1000"),
        ("falsify X --state wrong --reason r", "invalid choice"),
        ("stats --frobnicate", "unrecognized arguments"),
    ):
        with pytest.raises(UsageError, match=says) as caught:
            shell.run_line_magic("arborist", bad)
        assert "\n" not in str(caught.value) and "usage: %arborist" in str(caught.value)


def _printed(shell: InteractiveShell, line: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        shell.run_line_magic("arborist", line)
    return buffer.getvalue()


def test_help_lists_every_command_and_each_shows_its_flags(shell: InteractiveShell) -> None:
    listed = _printed(shell, "help")
    for name in COMMANDS:
        assert f"%arborist {name} " in listed
    assert "--help shows its flags" in listed and "forest widget" in listed
    for line in ("search --help", "help search", "search -h"):
        shown = _printed(shell, line)
        assert shown.startswith("usage: %arborist search [--limit N] [--json] QUERY")
        assert "--limit N" in shown and "--json" in shown and len(shown.splitlines()) < 15
    assert "--witness NOTEBOOK" in _printed(shell, "verify --help")
    assert "%%ask outputs" in _printed(shell, "verify --help")
    for line, says in (
        ("session", "usage: %arborist session new|resume|list"),
        ("record frob", "usage: %arborist record list|show|falsify"),
        ("help nonesuch", "unknown command %arborist nonesuch"),
        ("ingest", "give files, folders or URLs to ingest, or --demo: usage: %arborist ingest"),
        ("search 'unclosed", "cannot parse the arguments"),
    ):
        with pytest.raises(UsageError, match=says) as caught:
            shell.run_line_magic("arborist", line)
        assert "\n" not in str(caught.value)


def test_every_json_flag_prints_the_clis_json(
    shell: InteractiveShell, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBORIST_COACCESS", "1")
    first = ask(shell, "Who created Spider-Man?")
    lines = [
        ("chain-check --json", lambda d: d["ok"] and len(d["databases"]) == 2),
        (f"ingest {tmp_path / 'spider.md'} --json", lambda d: d[0]["status"] == "unchanged"),
        (f"related {first.bates} --json", lambda d: d["kind"] == "turn"),
        ("session list --json", lambda d: d[0]["label"] == "notebook"),
        ("record list --limit 1 --json", lambda d: d[0]["holds"] is True),
        (f"record show {first.cache_key[:12]} --json", lambda d: d["holds"] is True),
        ("providence show 1 --json", lambda d: d["cache_key"] == first.cache_key),
        ("find --limit 1 Spider --json", lambda d: d[0]["bates"] == first.bates),
    ]
    for line, holds in lines:
        data = json.loads(_printed(shell, line))
        assert holds(data), line
    text = _printed(shell, "providence show 1")
    assert text.startswith(f"key        {first.cache_key}")


def test_checkpoints_given_to_chain_check_and_verify(shell: InteractiveShell) -> None:
    ask(shell, "Who created Spider-Man?")
    head = shell.magics_manager.registry["ArboristMagics"].app.checkpoint().sessions
    assert head is not None
    assert "holds 1 checkpoint(s)" in _printed(shell, f"chain-check --checkpoint {head}")
    assert "every checkpoint holds (1)" in _printed(shell, f"verify --checkpoint {head}")
    forged = f"{head.seq}:{'0' * 64}"
    with pytest.raises(UsageError, match="an audit chain is broken"):
        shell.run_line_magic("arborist", f"chain-check --checkpoint {forged}")
    with pytest.raises(UsageError, match="argument --checkpoint: bad checkpoint"):
        shell.run_line_magic("arborist", "verify --checkpoint nope")


def test_evict_rehydrate_and_derive_in_a_notebook(shell: InteractiveShell, tmp_path: Path) -> None:
    first = ask(shell, "Who created Spider-Man?")
    spider = tmp_path / "spider.md"
    assert "moved to warm" in _printed(shell, f"evict {spider} --tier warm")
    assert "back to hot, every leaf verified" in _printed(shell, f"rehydrate {spider}")
    assert _printed(shell, "derive snippet --from 1").startswith("saved snippet core:snippet:")
    assert "saved summary" in _printed(
        shell, f"derive summary --from {first.cache_key} --text 'Lee and Ditko'"
    )
    with pytest.raises(UsageError, match="invalid choice"):
        shell.run_line_magic("arborist", f"evict {spider} --tier frozen")


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_export_shows_returns_or_writes_what_the_cli_exports(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    first = ask(shell, "Who created Spider-Man?")
    expected = _cli("session", "--export", first.node.sid)
    shown = shell.run_line_magic("arborist", "export")  # this kernel's session
    assert isinstance(shown, Lines) and shown + "\n" == expected
    plain = shell.display_formatter.format(shown)[0]["text/plain"]
    assert plain == expected.rstrip("\n"), "shown as its lines, not as a quoted string"
    assert [json.loads(line)["type"] for line in shown.splitlines()] == ["session", "node", "node"]
    out = tmp_path / "exported.jsonl"
    said = _printed(shell, f"export {first.node.sid} --out {out}")
    assert said == f"exported session {first.node.sid} (2 node(s)) to {out}\n"
    assert out.read_text(encoding="utf-8") == expected
    with pytest.raises(UsageError, match="cannot write"):
        shell.run_line_magic("arborist", f"export --out {tmp_path / 'no' / 'such' / 'dir.jsonl'}")


def test_import_admits_what_the_cli_admits_and_bad_input_writes_nothing(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    other = tmp_path / "other.db"
    data = json.loads(_cli("ask", "Who created Spider-Man?", "--sessions-db", str(other), "--json"))
    exported = tmp_path / "other.jsonl"
    exported.write_text(_cli("session", "--export", data["sid"], "--sessions-db", str(other)))
    said = _printed(shell, f"import {exported}")
    assert said == f"imported 2 node(s), 0 already present, session(s) {data['sid']}\n"
    assert "Who created Spider-Man?" in _printed(shell, f"tree --sid {data['sid']}")
    assert _printed(shell, f"import {exported}").startswith("imported 0 node(s), 2 already")
    records = [json.loads(line) for line in exported.read_text().splitlines()]
    records[-1]["label"] = "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    secret = tmp_path / "secret.jsonl"
    secret.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{broken\n")
    conn = shell.magics_manager.registry["ArboristMagics"].app.sessions_conn
    before = conn.execute("SELECT count(*), max(seq) FROM nodes").fetchone()
    for path in (secret, broken):
        cli_error = CliRunner().invoke(cli, ["session", "--import", str(path)]).stderr
        with pytest.raises(UsageError) as caught:
            shell.run_line_magic("arborist", f"import {path}")
        assert cli_error == f"arborist: error: {caught.value}\n", "the same check, the same line"
    for line, says in (
        (f"import {tmp_path / 'missing.jsonl'}", "cannot read"),
        ("import -", "standard input"),
        ("import", "required: FILE"),
    ):
        with pytest.raises(UsageError, match=says) as caught:
            shell.run_line_magic("arborist", line)
        assert "\n" not in str(caught.value)
    assert conn.execute("SELECT count(*), max(seq) FROM nodes").fetchone() == before


def test_a_kernels_session_is_named_after_its_notebook_file_only(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JPY_SESSION_NAME", "/home/ada/secret-project/quokka notes.ipynb")
    answer = ask(shell, "Who created Spider-Man?")
    assert answer.app is not None
    session = answer.app.session(answer.node.sid)
    assert session.label == "quokka notes.ipynb", "the name, never the folders above it"


def _restart(ip: InteractiveShell) -> None:
    """What a kernel restart does to the magics: a new instance, with no session yet."""
    ip.run_line_magic("unload_ext", "arborist_nb")
    assert ip.run_cell("%load_ext arborist_nb").success


def test_a_restarted_kernel_continues_its_notebooks_session(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #25, point 8: Restart & Run All goes on in the notebook's own session (the
    latest named after the notebook file), says so in one line, and ``session new`` still
    starts a new one; a notebook whose name is unknown starts its own each time."""
    monkeypatch.setenv("JPY_SESSION_NAME", "/home/ada/work/quokka.ipynb")
    first = ask(shell, "Who created Spider-Man?").node.sid
    _restart(shell)
    with capture_output() as captured:
        again = ask(shell, "Who created Spider-Man?")
    assert again.node.sid == first, "the same notebook, the same session"
    said = captured.stdout.strip()
    assert said == (
        f"continuing this notebook's session {first} (quokka.ipynb, 1 turn); "
        "%arborist session new starts a new one"
    )
    with capture_output() as quiet:
        ask(shell, "Who created Spider-Man?")
    assert "continuing" not in quiet.stdout, "said once per kernel"
    shell.run_line_magic("arborist", "session new")
    fresh = ask(shell, "Who created Spider-Man?").node.sid
    assert fresh != first, "session new is obeyed, never taken back"
    _restart(shell)
    assert ask(shell, "Who created Spider-Man?").node.sid == fresh, "the latest of its sessions"
    _restart(shell)
    shell.run_line_magic("arborist", "cd root")  # a command needing a session continues too
    assert shell.magics_manager.registry["ArboristMagics"].sid == fresh
    monkeypatch.delenv("JPY_SESSION_NAME")
    _restart(shell)
    unnamed = ask(shell, "Who created Spider-Man?").node.sid
    _restart(shell)
    assert ask(shell, "Who created Spider-Man?").node.sid not in (unnamed, first, fresh)


def test_only_widgets_still_shown_are_refreshed(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #25, point 8: a cell run again replaces the widget it showed (closed, dropped),
    a widget closed elsewhere is dropped, and an ask refreshes only those left."""
    magics = shell.magics_manager.registry["ArboristMagics"]
    monkeypatch.setattr(shell, "parent_header", {"metadata": {"cellId": "cell-a"}}, raising=False)
    shown = [shell.run_line_magic("arborist", "") for _ in range(3)]
    assert magics.widgets == [shown[2]], "one cell, one widget: the last it showed"
    assert shown[0].comm is None and shown[1].comm is None, "the replaced ones are closed"
    monkeypatch.setattr(shell, "parent_header", {"metadata": {"cellId": "cell-b"}})
    other = shell.run_line_magic("arborist", "")
    closed = shell.run_line_magic("arborist", "")  # cell-b again: replaces `other`
    assert magics.widgets == [shown[2], closed]
    assert other.comm is None
    closed.close()  # closed by the front end or the user
    refreshed: list[object] = []
    for widget in (*shown, other, closed):
        monkeypatch.setattr(widget, "refresh", lambda w=widget: refreshed.append(w))
    ask(shell, "Who created Spider-Man?")
    assert refreshed == [shown[2]], "only the widget still shown"
    assert magics.widgets == [shown[2]]


def test_a_literal_from_pydoc_shows_as_code_in_the_answer(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    """Issue #25, point 11: ``name`` (reStructuredText, as pydoc writes it) in an answer is
    shown as code in the HTML output, its text still escaped, never as raw backticks."""
    doc = tmp_path / "lit" / "median.md"
    doc.parent.mkdir()
    doc.write_text(
        "# Median notes\n\nThe ``median(<data>)`` function returns the middle value of data.\n",
        encoding="utf-8",
    )
    shell.run_line_magic("arborist", f"ingest {doc}")
    answer = ask(shell, "What does the median function return?")
    assert "``median(<data>)``" in answer.text
    shown = answer._repr_html_()
    assert "<code>median(&lt;data&gt;)</code>" in shown
    assert "``" not in shown.split('class="arborist-status"')[0].split("arborist-chunk")[0]
    markdown = answer._repr_markdown_()
    assert "`median(<data>)`" in markdown, "a code span: its text shown as it is, no HTML"
    assert "\\`\\`" not in markdown.split("*new answer")[0]


def test_the_tree_names_turns_as_the_widget_does(shell: InteractiveShell) -> None:
    """Issue #25, point 11: ``%arborist tree`` says ``#1`` where the widget does, not
    ``000001`` (the CLI keeps its form)."""
    first = ask(shell, "Who created Spider-Man?")
    ask(shell, "And who drew him?")
    for line in ("tree", "session --tree"):
        shown = _printed(shell, line).splitlines()
        assert shown[0] == f"session {first.node.sid}  (notebook)"
        assert shown[1] == "└── #1  Who created Spider-Man?  [STRICT answered]", shown
        assert shown[2].startswith("    └── * #2  And who drew him?  ["), shown
        assert "000001" not in "\n".join(shown[1:])
    assert json.loads(_printed(shell, "tree --json")), "--json is left as it is"


def test_a_widget_the_front_end_closed_is_dropped(shell: InteractiveShell) -> None:
    """A comm closed from the browser (``comm_close``) closes the widget in the kernel,
    and the next ask no longer refreshes it."""
    magics = shell.magics_manager.registry["ArboristMagics"]
    widget = shell.run_line_magic("arborist", "")
    assert magics.widgets == [widget]
    widget.comm.handle_close({"content": {"comm_id": widget.comm.comm_id, "data": {}}})
    assert widget.comm is None
    ask(shell, "Who created Spider-Man?")
    assert magics.widgets == []


def test_a_cells_retrieval_keywords_steer_retrieval_only_and_key_the_answer(
    shell: InteractiveShell,
) -> None:
    """``%%ask --retrieval-keywords WORDS``: the words pull in the document they name, the
    question is kept as the cell wrote it, and the words are in the record's policy, so its
    key: the same words again are a hit, none a miss (tests/test_retrieval_keywords.py)."""
    plain = ask(shell, "What does it say?")
    steered = ask(shell, "What does it say?", "--retrieval-keywords Spider-Man")
    assert "spider.md" not in " ".join(e.uri for e in plain.record.evidence)
    assert any(e.uri.endswith("spider.md") for e in steered.record.evidence)
    assert steered.record.question == "What does it say?" and not steered.turn.result.hit
    assert steered.record.policy["retrieval_keywords"] == "Spider-Man"
    assert steered.record.cache_key != plain.record.cache_key
    again = ask(shell, "What does it say?", "--retrieval-keywords 'Spider-Man '")
    assert again.turn.result.hit and again.record.cache_key == steered.record.cache_key
