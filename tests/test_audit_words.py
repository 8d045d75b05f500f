"""The audit mode in the same words in every face (issue #35, point 3): the widget's badge
(js/src/detail.js) says what ``%%ask``'s status line says (arborist_nb/display.py), and a
tree row learns when its answer quotes nothing it cites."""

from __future__ import annotations

import re
from pathlib import Path

from arborist.forest.reads import RowSummary
from arborist.forest.tree_sync import Labels, summary
from arborist.qa.standing import Standing
from arborist.qa.support import ANSWERED, Support
from arborist_nb import display

DETAIL_JS = Path(__file__).resolve().parents[1] / "js" / "src" / "detail.js"


def test_the_widget_says_each_audit_mode_in_the_status_lines_words() -> None:
    source = DETAIL_JS.read_text(encoding="utf-8")
    block = source[source.index("export const AUDIT_WORDS") :]
    block = block[: block.index("});")]
    said = dict(re.findall(r'(\w+): "([^"]+)"', block))
    assert said == display._AUDIT_WORDS
    unquoted = re.search(r'export const UNQUOTED_STRICT = "([^"]+)"', source)
    assert unquoted is not None and unquoted.group(1) == display._UNQUOTED_STRICT


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
