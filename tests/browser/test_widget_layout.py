"""Layout, marks, focus and keys of the forest widget and the ``%%ask`` output, in a real
JupyterLab (issue #35, item 7): a row's marks stay inside the tree pane at 1,280 px; the
tree and the detail size to their content (the detail is never a scroll box inside the
notebook's scroll); the widget marks exactly the quoted spans of a cited chunk, as the
``%%ask`` output does; the output's facts and dimensions share one table's columns and
stay inside 800 px; every text reads at 4.5:1 with a citation open; focus stays where the
reader was after an action and a dismissed notice, and Escape closes what is open."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import Lab, shoot
from tests.browser.contrast import CONTRAST_JS
from tests.browser.test_lab import RENDER_MS, answer_bates, forest_in, row
from tests.browser.test_widget_look import MIN_CONTRAST, THEMES, set_theme

pytestmark = pytest.mark.browser

DOCUMENT = """\
# statistics

median(data)
    Return the median (middle value) of numeric data.

    When the number of data points is odd, return the middle data point.
    When the number of data points is even, the median is interpolated by
    taking the average of the two middle values.

median_high(data)
    Return the high median of data.

    When the number of data points is odd, the middle value is returned.
    When it is even, the larger of the two middle values is returned.
"""
LABEL = "median of numeric data"
REASON = "the median of an empty list raises"
CELLS = [
    "%arborist ingest stats.md",
    "%%ask\nWhat does median return?",
    f"first = _\n%arborist label {LABEL}",
    f'%arborist falsify {{first.bates}} --state failed --reason "{REASON}"',
    "%%ask --parent root\nWhat does median_high return?",
    "%arborist",
]
ASK = 2  # cell 0 is the conftest's setup cell
WIDGET = len(CELLS)

_ROWS = """(tree) => {
    const pane = tree.getBoundingClientRect();
    const right = pane.left + tree.clientLeft + tree.clientWidth;
    return [...tree.querySelectorAll('[role=treeitem]')].map((r) => ({
        bates: r.dataset.bates,
        past: Math.max(...[...r.querySelectorAll('.arb-marks > *')].map((m) => m.getBoundingClientRect().right)) - right,
        scroll: tree.scrollWidth - tree.clientWidth,
        widths: [tree.clientWidth, ...[...r.children].map((c) => `${c.className}:${Math.round(c.getBoundingClientRect().width)}`),
                 ...[...r.querySelectorAll('.arb-marks > *')].map((m) => `${m.className}:${Math.round(m.getBoundingClientRect().width)}`)],
    }));
}"""

_BOXES = """(forest) => [forest.querySelector('[role=tree]'), forest.querySelector('.arb-detail')]
    .map((e) => ({overflowY: getComputedStyle(e).overflowY, scroll: e.scrollHeight - e.clientHeight}))"""

_TEXTS = (
    """(root) => {
"""
    + CONTRAST_JS
    + """    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const own = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    return [root, ...root.querySelectorAll('*')].filter((e) => own(e) && shown(e))
        .map((e) => ({contrast: contrast(e), what: `${e.closest('[role=treeitem]') ? 'row ' : ''}${e.tagName.toLowerCase()}.${e.className}: ${e.textContent.trim().slice(0, 40)}`}))
        .sort((a, b) => a.contrast - b.contrast).slice(0, 6);
}"""
)

_TABLES = """(answer) => {
    const fold = answer.querySelector('details.arborist-fold') || answer.querySelector(':scope > details');
    const out = answer.closest('.jp-OutputArea-output') || answer.parentElement;
    const heads = [...fold.querySelectorAll('tr > th:first-child:not([colspan])')].map((th) => th.getBoundingClientRect());
    const cells = [...fold.querySelectorAll('tr > td')].map((td) => td.getBoundingClientRect());
    const edge = out.getBoundingClientRect().right;
    const past = [...fold.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right - edge);
    return {
        tables: fold.querySelectorAll('table').length,
        rows: heads.length,
        headRights: [...new Set(heads.map((r) => Math.round(r.right)))],
        cellLefts: [...new Set(cells.map((r) => Math.round(r.left)))],
        past: Math.max(...past),
        outScroll: out.scrollWidth - out.clientWidth,
    };
}"""


def active(lab: Lab) -> dict[str, Any]:
    """What has the focus: its role, its accessible name and its row's bates."""
    found: dict[str, Any] = lab.page.evaluate(
        """() => { const e = document.activeElement;
        return {tag: e.tagName.toLowerCase(), role: e.getAttribute('role'),
                label: e.getAttribute('aria-label'), bates: e.dataset ? e.dataset.bates : null,
                inForest: Boolean(e.closest('[data-arborist-forest]'))}; }"""
    )
    return found


def worst_texts(locator: Locator, where: str) -> None:
    worst = locator.evaluate(_TEXTS)
    low = [f"{w['what']} ({w['contrast']:.2f})" for w in worst if w["contrast"] < MIN_CONTRAST]
    assert not low, f"{where}: text below {MIN_CONTRAST}:1: {low}"


def open_widget(lab: Lab, name: str, width: int) -> tuple[Locator, Locator, Locator, str, str]:
    (lab.server.root / "stats.md").write_text(DOCUMENT, encoding="utf-8")
    lab.page.set_viewport_size({"width": width, "height": 900})
    lab.open(lab.server.write_notebook(f"{name}.ipynb", CELLS))
    lab.run_all(len(CELLS) + 1)
    first = answer_bates(lab, ASK)
    second = answer_bates(lab, 5)
    forest, tree = forest_in(lab, WIDGET)
    expect(row(tree, first)).to_have_attribute("data-state", "failed", timeout=RENDER_MS)
    expect(row(tree, first)).to_have_attribute("data-label", LABEL)
    detail = forest.get_by_role("region", name="Node detail")
    return forest, tree, detail, first, second


def test_rows_boxes_marks_and_contrast_of_the_widget(lab: Lab) -> None:
    forest, tree, detail, first, _second = open_widget(lab, "layout-rows", 1280)
    # 1. A row with a label and a failed mark keeps its marks inside the pane.
    for found in tree.evaluate(_ROWS):
        assert found["past"] <= 0, (
            f"row {found['bates']}: its marks end {found['past']} px past the pane: {found['widths']}"
        )
        assert found["scroll"] <= 0, f"the tree scrolls sideways by {found['scroll']} px"
    shoot(forest, "layout-1280-light")
    # 4. The cited chunk marks exactly what the answer quotes: median's sentences, never
    # median_high's look-alike ones.
    row(tree, first).click()
    expect(detail).to_have_attribute("data-rendered", first, timeout=RENDER_MS)
    detail.locator("button.arb-cite").first.click()
    cited = detail.get_by_label("Cited text", exact=True)
    marks = cited.locator("mark")
    expect(marks.first).to_be_visible(timeout=RENDER_MS)
    said = " ".join(marks.all_text_contents())
    assert "Return the median (middle value) of numeric data" in said, said
    assert "the middle value is returned" not in said and "high median" not in said, said
    # The %%ask output marks the same spans in its citation.
    output = lab.cell(ASK).locator(".arborist-answer")
    cite_marks = output.locator("details.arborist-cite mark")
    expect(cite_marks.first).to_be_attached()
    assert cite_marks.all_text_contents() == marks.all_text_contents()
    # 2. The detail is not a scroll box inside the notebook's: it is as tall as its content;
    # the tree (three rows) too.
    detail.locator("details[data-fold]").evaluate_all(
        "(ds) => ds.forEach((d) => { d.open = true; })"
    )
    for box, name in zip(forest.evaluate(_BOXES), ("tree", "detail"), strict=True):
        assert box["scroll"] <= 1, f"the {name} scrolls inside the notebook: {box}"
    assert forest.evaluate(_BOXES)[1]["overflowY"] == "visible"
    # 6. Every text of the widget, the open citation's head included, reads at 4.5:1.
    lab.page.set_viewport_size({"width": 1280, "height": 1800})  # the whole widget in a shot
    for theme in THEMES:
        set_theme(lab, theme)
        worst_texts(forest, theme)
        slug = theme.lower().replace(" ", "-")
        shoot(forest, f"layout-citation-{slug}")
    set_theme(lab, THEMES[0])
    lab.guard.assert_clean()


def test_the_ask_folds_tables_line_up_and_stay_inside_800_px(lab: Lab) -> None:
    _forest, _tree, _detail, _first, _second = open_widget(lab, "layout-ask", 800)
    output = lab.cell(ASK).locator(".arborist-answer")
    output.evaluate("(a) => a.querySelectorAll('details').forEach((d) => { d.open = true; })")
    tables = output.evaluate(_TABLES)
    # bates, cache, audit, support, key, witness; the dimensions' heading; the eight dimensions
    assert tables["rows"] >= 14, tables
    assert len(tables["headRights"]) == 1, f"the names end at different places: {tables}"
    assert len(tables["cellLefts"]) == 1, f"the values start at different places: {tables}"
    assert tables["past"] <= 1 and tables["outScroll"] <= 0, f"the fold overflows: {tables}"
    lab.page.set_viewport_size({"width": 800, "height": 2600})  # the whole output in a shot
    for theme in THEMES:
        set_theme(lab, theme)
        worst_texts(output, theme)
        shoot(lab.cell(ASK), "layout-ask-800-" + theme.lower().replace(" ", "-"))
    set_theme(lab, THEMES[0])
    lab.guard.assert_clean()


def test_focus_stays_with_the_reader_and_escape_closes_what_is_open(lab: Lab) -> None:
    forest, tree, detail, _first, second = open_widget(lab, "layout-focus", 1280)
    notice = forest.get_by_role("status", name="Notice", exact=True)
    row(tree, second).click()
    expect(detail).to_have_attribute("data-rendered", second, timeout=RENDER_MS)
    # An action: the focus stays on what the reader used, not the detail's container.
    label = detail.get_by_label("Label", exact=True)
    label.fill("high")
    label.press("Enter")
    expect(notice).to_contain_text("labelled", timeout=RENDER_MS)
    expect(row(tree, second)).to_have_attribute("data-label", "high", timeout=RENDER_MS)
    lab.page.wait_for_timeout(300)  # the re-render after the label's sync
    now = active(lab)
    assert now["inForest"] and now["label"] == "Label", f"the focus went to {now}"
    # × on the notice: the focus goes to the current row, not <body>.
    forest.get_by_role("button", name="Dismiss notice").focus()
    lab.page.keyboard.press("Enter")
    expect(notice).to_be_hidden()
    now = active(lab)
    assert now["role"] == "treeitem" and now["bates"] == second, f"the focus went to {now}"
    # Escape closes the open fold (the focus on its summary), then the citation, then
    # returns to the tree; and it closes the notice.
    proof = detail.locator("details[data-fold='proof']")
    proof.locator("summary").click()
    expect(proof).to_have_attribute("open", "")
    proof.locator("summary").press("Escape")
    expect(proof).not_to_have_attribute("open", "")
    detail.locator("button.arb-cite").first.click()
    cited = detail.get_by_label("Cited text", exact=True)
    expect(cited).to_be_visible()
    lab.page.keyboard.press("Escape")
    expect(cited).to_be_hidden()
    now = active(lab)
    assert now["tag"] == "button" and "cited text" in (now["label"] or "").lower(), now
    lab.page.keyboard.press("Escape")
    now = active(lab)
    assert now["role"] == "treeitem" and now["bates"] == second, f"Escape went to {now}"
    forest.evaluate("(f) => f.querySelector('.arb-query').focus()")
    lab.page.keyboard.type("median")
    lab.page.keyboard.press("Enter")
    results = forest.get_by_label("Search results")
    expect(results).to_be_visible(timeout=RENDER_MS)
    lab.page.keyboard.press("Escape")
    expect(results).to_be_hidden()
    shoot(forest, "layout-focus")
    lab.guard.assert_clean()
