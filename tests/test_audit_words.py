"""The audit mode in the same words in every face (issue #35, point 3): the widget's badge
(js/src/detail.js) says what ``%%ask``'s status line says (arborist_nb/display.py), and a
tree row learns when its answer quotes nothing it cites."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist.cli import cli
from arborist.forest.reads import RowSummary
from arborist.forest.tree_sync import Labels, summary
from arborist.qa.standing import Standing
from arborist.qa.support import ANSWERED, AUDIT_WORDS, UNQUOTED_STRICT, Support
from tests.chat_server import ChatServer, completion
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

DETAIL_JS = Path(__file__).resolve().parents[1] / "js" / "src" / "detail.js"


def test_the_widget_says_each_audit_mode_in_the_status_lines_words() -> None:
    source = DETAIL_JS.read_text(encoding="utf-8")
    block = source[source.index("export const AUDIT_WORDS") :]
    block = block[: block.index("});")]
    said = dict(re.findall(r'(\w+): "([^"]+)"', block))
    assert said == AUDIT_WORDS
    unquoted = re.search(r'export const UNQUOTED_STRICT = "([^"]+)"', source)
    assert unquoted is not None and unquoted.group(1) == UNQUOTED_STRICT


def test_a_tree_row_says_when_its_answer_quotes_nothing_it_cites() -> None:
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
    shown: dict[bool, dict[str, object]] = {}
    for quoted in (True, False):
        now = Standing("STRICT", support=Support(ANSWERED, (), quoted))
        labels = Labels(revisions={}, standings={row.bates: now})
        shown[quoted] = summary(row, row.sid, labels)
    assert shown[True]["support"] == shown[False]["support"] == ANSWERED
    assert "unquoted" not in shown[True], "a quoted answer costs the row no byte"
    assert shown[False]["unquoted"] is True


def _bates(output: str) -> str:
    found = re.search(r"^bates   (\S+)$", output, re.MULTILINE)
    assert found is not None, output
    return found.group(1)


DOC = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"


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
    assert "\naudit   quotes verified (STRICT)\n" in quoted.output
    shown = runner.invoke(cli, [*base, "show", _bates(quoted.output)]).output
    assert "\naudit        quotes verified (STRICT)\n" in shown
    chat_server.script(completion("Two men, Lee and Ditko, dreamed up Spider-Man. [E1]"))
    asked = [*base, "ask", "Who created Spider-Man?", "--llm", "openai", "--no-cache"]
    said = runner.invoke(cli, asked)
    assert said.exit_code == 0, said.output
    assert f"\naudit   {UNQUOTED_STRICT}\n" in said.output
    shown = runner.invoke(cli, [*base, "show", _bates(said.output)]).output
    assert f"\naudit        {UNQUOTED_STRICT}\n" in shown
    turn = json.loads(runner.invoke(cli, [*base, "show", _bates(said.output), "--json"]).output)
    assert turn["audit_now"] == "STRICT" and turn["support"]["quoted"] is False
