"""The audit mode, and the words beside it, the same in every face (issue #35, point 3;
issue #36, item 6).

The kernel is the one place that decides and words a turn's badge: which key it shows
(:func:`arborist._qa.support.audit_key`: ``STRICT-unquoted`` for a STRICT answer that quotes
nothing it cites) and what each key says (:func:`arborist._facts.vocabulary`, sent to the
widget once as its ``vocabulary`` trait and written into the page ``export --html`` makes).
The widget's script and the page only look the key up. Here real turns (an answer that
quotes its source, a model's paraphrase from a chat server on loopback, an answer since
falsified) are shown by every face, and each face says the same words: the CLI's ``ask``
and ``show`` (text and ``--json``), ``%%ask``, the widget's detail payload and tree row as
its script words them, and the page. So are the words beside it the kernel sends the same
way: what each evidence row says was checked (the facts name each row's key:
:func:`arborist._qa.support.row_key`), each cache-key dimension's name and what it binds
(:data:`arborist._proofs.keys.DIMENSION_WORDS`), and an answer's state out of service
(:func:`arborist._qa.standing.state_words`).
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from IPython.core.interactiveshell import InteractiveShell

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.sync import body
from arborist._facts import vocabulary
from arborist._forest.reads import RowSummary
from arborist._forest.tree_sync import Labels, summary
from arborist._proofs.hashing import CACHE_KEY_DIMENSIONS
from arborist._proofs.keys import DIMENSION_WORDS
from arborist._qa.standing import STATE_WORDS, Standing, state_words
from arborist._qa.support import (
    ANSWERED,
    ROW_WORDS,
    UNQUOTED,
    UNQUOTED_STRICT,
    Support,
    audit_key,
    row_key,
)
from arborist._store.cache.records import FALSIFIED_STATES
from arborist._store.search import AUDIT_MODES
from arborist_nb._display import Answer
from arborist_nb._widget import ForestWidget
from tests.chat_server import ChatServer, completion
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

FIXTURE = Path(__file__).resolve().parents[1] / "js" / "test" / "fixtures" / "vocabulary.json"
"""The vocabulary the JS tests give the widget's script (``make vocabulary`` writes it)."""

VOCABULARY_BYTES = 4_096
"""Most bytes the vocabulary may cost the widget's first state message: it is sent once,
whatever the forest holds, beside a few hashes."""

QUOTED = "quotes verified (STRICT)"
DOC = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
OTHER = "# Heroes\n\nThe Man of Steel is another hero of the comics.\n"
"""A passage retrieved beside DOC's (it names a man) and cited by no answer here."""
PARAPHRASE = "Two men, Lee and Ditko, dreamed up Spider-Man. [E1]"
REASON = "the <b>year</b> is wrong"


def test_the_js_tests_give_the_script_the_words_the_widget_is_sent(home: Path) -> None:
    """The fixture the JS tests read is what the kernel sends a widget, key for key: a
    word changed in Python and not here (or here and not in Python) fails."""
    with Arborist(home) as app:
        sent = ForestWidget(app=app).vocabulary
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == sent == vocabulary(), (
        "run `make vocabulary`"
    )
    size = len(json.dumps(sent, ensure_ascii=False, separators=(",", ":")).encode())
    assert size <= VOCABULARY_BYTES, size


def test_every_badge_key_the_kernel_can_decide_has_words() -> None:
    quoted, unquoted = Support(ANSWERED, (), True), Support(ANSWERED, (), False)
    keys = {
        audit_key(m, s) for m in (*AUDIT_MODES, "NONE", "ROOT") for s in (None, quoted, unquoted)
    }
    assert keys == {*AUDIT_MODES, UNQUOTED, "NONE", "ROOT"}
    said = vocabulary()["audit"]
    assert keys == set(said)
    assert said["STRICT"]["words"] == QUOTED
    assert said[UNQUOTED]["words"] == UNQUOTED_STRICT
    assert said[UNQUOTED]["mark"] == said["STRICT"]["mark"] == "S", "a row's letter is the mode's"


def test_the_words_beside_the_badge_are_one_table_each() -> None:
    """Every dimension of the key has a reader's name, in the order the key hashes them;
    every state an answer can be taken out of service in (and ``imported``) has words;
    every key :func:`row_key` decides has words: the vocabulary sends each table whole."""
    said = vocabulary()
    assert tuple(DIMENSION_WORDS) == CACHE_KEY_DIMENSIONS
    assert said["dimensions"] == [[k, n, w] for k, (n, w) in DIMENSION_WORDS.items()]
    assert set(FALSIFIED_STATES) < set(STATE_WORDS)
    assert said["states"] == STATE_WORDS and said["rows"] == ROW_WORDS
    answer = "Spider-Man was created by writer Stan Lee. [E1] Lee and Ditko made him. [E2]"
    chunk = DOC.splitlines()[2]
    keys = {
        row_key(chunk, answer, label, cited) for label in ("E1", "E2") for cited in (True, False)
    }
    assert keys == set(ROW_WORDS)
    assert state_words("failed", REASON) == f"answer failed: {REASON}"
    assert state_words("<odd>", None) == "<odd>", "a state without words: as it is"


def test_a_tree_row_carries_the_badge_the_kernel_decided() -> None:
    row = RowSummary(
        bates="20260101T000000Z-abcdef-000002",
        parent_bates="20260101T000000Z-abcdef-000000",
        subtree_hash="0" * 64,
        sid="20260101T000000Z-abcdef",
        seq=2,
        question="What does statistics.median return?",
        audit_mode="STRICT",
        label=None,
        cache_key="ab" * 32,
        n_children=0,
    )
    shown: dict[object, dict[str, object]] = {}
    for quoted in (True, False, None):
        held = None if quoted is None else Support(ANSWERED, (), quoted)
        labels = Labels(revisions={}, standings={row.bates: Standing("STRICT", support=held)})
        shown[quoted] = summary(row, row.sid, labels)
    assert shown[True]["support"] == shown[False]["support"] == ANSWERED
    assert "audit" not in shown[True], "a badge that is the mode itself costs the row no byte"
    assert shown[False]["audit"] == shown[None]["audit"] == UNQUOTED
    assert shown[True]["audit_mode"] == shown[False]["audit_mode"] == "STRICT"


def _cli(home: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    assert result.exit_code == 0, result.output
    return result.output


def _audit_line(text: str) -> str:
    """The words of a CLI text's ``audit`` line, before a withdrawn answer's state."""
    found = re.search(r"^audit +(.+)$", text, re.MULTILINE)
    assert found is not None, text
    return found.group(1).split(", answer ")[0]


def _bates(output: str) -> str:
    found = re.search(r"^bates +(\S+)$", output, re.MULTILINE)
    assert found is not None, output
    return found.group(1)


def _cell(ip: InteractiveShell, question: str, line: str = "") -> Answer:
    with contextlib.redirect_stdout(io.StringIO()):
        answer = ip.run_cell_magic("ask", line, question)
    assert isinstance(answer, Answer)
    return answer


def _widget_words(said: dict[str, Any], key: str) -> str:
    """What the widget's script shows for ``key``: the vocabulary's words, else the key."""
    entry = said["audit"].get(key)
    return str(entry["words"]) if entry else key


_ASK_ROWS = re.compile(
    r'<details id="[^"]*-(E\d+)" data-proof="pass">.*?class="arborist-row-check">([^<]*)</span>',
    re.DOTALL,
)
_ASK_DIMENSIONS = re.compile(r'<tr><th title="([^"]*)" [^>]*>([^<]*)</th>')


def _rows_alike(
    ip: InteractiveShell, answer: Answer, detail: dict[str, Any], sent: dict[str, Any]
) -> set[str]:
    """Each evidence row says what was checked for it in the same words in the ``%%ask``
    output and the widget's detail (the key the facts name, in the words it was sent):
    the words said."""
    markup = ip.display_formatter.format(answer)[0]["text/html"]
    ask = {label: html.unescape(words) for label, words in _ASK_ROWS.findall(markup)}
    widget = {
        s["label"]: sent["rows"].get(s["checked"], s["checked"]) for s in detail["facts"]["sources"]
    }
    assert ask and ask == widget, (ask, widget)
    return set(ask.values())


def _dimensions_alike(ip: InteractiveShell, answer: Answer, sent: dict[str, Any]) -> None:
    """The ``%%ask`` output's fold names each dimension of the key, and says what it binds,
    as the widget's proof section does (``dimensionRows``: the name, ``key: what`` on hover)."""
    markup = ip.display_formatter.format(answer)[0]["text/html"]
    ask = [(html.unescape(t), html.unescape(n)) for t, n in _ASK_DIMENSIONS.findall(markup)]
    widget = [(f"{k}: {w}", n) for k, n, w in sent["dimensions"] if k in answer.record.dimensions]
    assert len(widget) == len(CACHE_KEY_DIMENSIONS) and ask == widget, (ask, widget)


def test_every_face_says_a_turns_audit_in_the_same_words(
    home: Path, tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "loopback-model")
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "heroes.md").write_text(OTHER, encoding="utf-8")
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ip.run_line_magic(
                "arborist", f"ingest {tmp_path / 'spider.md'} {tmp_path / 'heroes.md'}"
            )
        quoted = _cell(ip, "Who created Spider-Man?")  # the extractive answerer quotes
        chat_server.script(completion(PARAPHRASE))
        unquoted = _cell(ip, "Who created Spider-Man?", "--llm openai --no-cache")
        chat_server.script(completion(f"{DOC.splitlines()[2]} [E1]"))  # a verbatim quote
        falsified = _cell(ip, "Who made Spider-Man?", "--llm openai --no-cache")
        app: Arborist = ip.magics_manager.registry["ArboristMagics"].app
        app.falsify(falsified.cache_key, "failed", REASON)
        wanted = {quoted.bates: QUOTED, unquoted.bates: UNQUOTED_STRICT}
        page = tmp_path / "page.html"
        _cli(home, "export", "--html", str(page), quoted.node.sid)
        words = re.search(r'<main id="bp-forest" data-words="([^"]*)">', page.read_text("utf-8"))
        assert words is not None
        on_page = json.loads(html.unescape(words.group(1)))
        sent = vocabulary()
        assert on_page["vocabulary"] == sent, "the page holds the words the widget is sent"
        shown: dict[str, dict[str, str]] = {}
        rows: set[str] = set()
        for answer in (quoted, unquoted, falsified):
            bates, sid = answer.bates, answer.node.sid
            plain = ip.display_formatter.format(answer)[0]["text/plain"]
            detail = body(app, bates, sid)
            row = app.forest_view().summary(app.node(bates), sid)
            shown[bates] = {
                "show": _audit_line(_cli(home, "show", bates)),
                "show --json": json.loads(_cli(home, "show", bates, "--json"))["facts"]["audit"],
                "widget detail": _widget_words(sent, detail["facts"]["badge"]),
                "widget row": _widget_words(sent, row.get("audit", row["audit_mode"])),
                "page": _widget_words(on_page["vocabulary"], on_page["audit"][bates]),
            }
            said = shown[bates]["show"]
            assert said in plain, ("%%ask", plain)
            for other in {QUOTED, UNQUOTED_STRICT} - {said}:
                assert other not in plain, ("%%ask says both", plain)
            assert shown[bates]["show --json"].split(", answer ")[0] == said
            faces = {v for k, v in shown[bates].items() if k != "show --json"}
            assert faces == {said}, shown
            rows.update(_rows_alike(ip, answer, detail, sent))
        _dimensions_alike(ip, quoted, sent)
        assert rows == set(ROW_WORDS.values()), "a quoted, a paraphrased and an uncited row"
        assert {b: shown[b]["show"] for b in wanted} == wanted
        # the falsified answer quoted its source: its words are STRICT's, its state beside
        assert shown[falsified.bates]["show"] == QUOTED
        assert shown[falsified.bates]["show --json"] == f"{QUOTED}, answer failed: {REASON}"
        assert body(app, falsified.bates, falsified.node.sid)["record"]["state"] == "failed"
        # the state and why, beside the mode: show, %%ask's status line, the widget's row (as
        # stateTitle words it: the state's words, then the reason) and the page's
        state = f"{sent['states']['failed']}: {REASON}"
        assert state == f"answer failed: {REASON}"
        row = app.forest_view().summary(app.node(falsified.bates), falsified.node.sid)
        assert f"{sent['states'][row['state']]}: {row['state_reason']}" == state
        assert f"{on_page['vocabulary']['states']['failed']}: {REASON}" == state
        assert _cli(home, "show", falsified.bates).count(f", {state}\n") == 1
        assert f" · {state} · " in falsified.status()
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def test_the_cli_says_the_audit_mode_in_the_same_words(
    home: Path, tmp_path: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ask`` and ``show`` say "quotes verified (STRICT)" only when the answer quotes what
    it cites (``support.quoted`` in the JSON), and a model's paraphrase over the same proven
    sources "sources verified, wording not quoted (STRICT)": the words of ``%%ask`` and the
    widget, the mode beside them unchanged."""
    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "loopback-model")
    (tmp_path / "spider.md").write_text(DOC, encoding="utf-8")
    runner = CliRunner()
    base = ["--home", str(home)]
    assert runner.invoke(cli, [*base, "ingest", str(tmp_path / "spider.md")]).exit_code == 0
    quoted = runner.invoke(cli, [*base, "ask", "Who created Spider-Man?"])
    assert quoted.exit_code == 0, quoted.output
    assert f"\naudit   {QUOTED}\n" in quoted.output
    shown = runner.invoke(cli, [*base, "show", _bates(quoted.output)]).output
    assert f"\naudit        {QUOTED}\n" in shown
    chat_server.script(completion(PARAPHRASE))
    asked = [*base, "ask", "Who created Spider-Man?", "--llm", "openai", "--no-cache"]
    said = runner.invoke(cli, asked)
    assert said.exit_code == 0, said.output
    assert f"\naudit   {UNQUOTED_STRICT}\n" in said.output
    shown = runner.invoke(cli, [*base, "show", _bates(said.output)]).output
    assert f"\naudit        {UNQUOTED_STRICT}\n" in shown
    turn = json.loads(runner.invoke(cli, [*base, "show", _bates(said.output), "--json"]).output)
    assert turn["audit_now"] == "STRICT" and turn["support"]["quoted"] is False
