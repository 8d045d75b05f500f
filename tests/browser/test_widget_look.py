"""How the forest widget looks in real JupyterLab and Notebook 7, from computed styles.

The host pages style outputs themselves (``.jp-OutputArea-output dl``,
``table``, headings...). These tests measure what a reader sees, after the
host's CSS and the widget's are both applied: the cache-key dimensions lay
out as a two-column grid with every name in its own cell on one line; the
text of a selected and of a normal row keeps a contrast of at least 4.5:1
(WCAG AA) in the light, dark and high-contrast themes; and at 1,000 px no
row's question is narrower than 40% of the tree pane.

With ``ARBORIST_SHOTS=<folder>`` set, each state is also saved as a PNG
there, for a person to look at.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import Lab, shoot
from tests.browser.contrast import CONTRAST_JS
from tests.browser.test_lab import RENDER_MS, answer_bates, forest_in, row

pytestmark = pytest.mark.browser

THEME_MS = 15_000
MIN_CONTRAST = 4.5
MIN_QUESTION_SHARE = 0.40
WIDGET_WIDTH_PX = 1000
VIEWPORT = {"width": 1500, "height": 1000}  # the notebook's output area is wider than the widget
THEMES = ["JupyterLab Light", "JupyterLab Dark", "JupyterLab Dark High Contrast"]

QUESTIONS = [
    "What does statistics.median return?",
    "How do I shuffle a list in place with random.shuffle?",
    "What does it raise on an empty list?",
]
CELLS = [
    "%arborist ingest --demo",
    *(f"%%ask\n{q}" for q in QUESTIONS),
    "%arborist label follow-up",
    "%arborist",
]
WIDGET_CELL = len(CELLS)  # cell 0 is the conftest's setup cell

# Measured in the page (tests/browser/contrast.py: backgrounds and opacity composited up
# the tree), with the grid's geometry.
_MEASURE = (
    """(forest) => {
"""
    + CONTRAST_JS
    + """    const tree = forest.querySelector('[role=tree]');
    const rows = [...forest.querySelectorAll('[role=treeitem]')];
    const selected = rows.find((r) => r.getAttribute('aria-selected') === 'true');
    const normal = rows.find((r) => r.getAttribute('aria-selected') !== 'true');
    const grid = forest.querySelector('.arb-dims');
    const cells = [...grid.querySelectorAll('.arb-grid-row')].map((r) => {
        const name = r.querySelector('.arb-grid-name').getBoundingClientRect();
        const value = r.querySelector('.arb-grid-value').getBoundingClientRect();
        const line = parseFloat(getComputedStyle(r.querySelector('.arb-grid-name')).lineHeight);
        return {key: r.dataset.dimension, nameLeft: name.left, nameRight: name.right,
                nameHeight: name.height, valueLeft: value.left, top: name.top,
                valueTop: value.top, line};
    });
    const pane = tree.clientWidth;
    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const own = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const texts = [...forest.querySelectorAll('*')].filter((e) => own(e) && shown(e));
    const worst = texts
        .map((e) => ({contrast: contrast(e), what: `${e.tagName.toLowerCase()}.${e.className}: ${e.textContent.trim().slice(0, 40)}`}))
        .sort((a, b) => a.contrast - b.contrast)
        .slice(0, 8);
    return {
        worst,
        gridDisplay: getComputedStyle(grid).display,
        cells,
        selected: selected ? contrast(selected.querySelector('.arb-question')) : null,
        normal: normal ? contrast(normal.querySelector('.arb-question')) : null,
        questionShares: rows.map((r) => r.querySelector('.arb-question').getBoundingClientRect().width / pane),
        theme: document.body.dataset.jpThemeName || '',
    };
}"""
)


def set_theme(lab: Lab, theme: str) -> None:
    lab.page.evaluate(
        "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme
    )
    lab.page.wait_for_function(
        "(theme) => document.body.dataset.jpThemeName === theme", arg=theme, timeout=THEME_MS
    ).dispose()
    # A theme change shows JupyterLab's splash screen and removes it 200 ms after it
    # fades; a second change inside that window makes JupyterLab remove it twice (its
    # own uncaught NotFoundError). Wait for it to be gone, as a person would.
    lab.page.wait_for_function(
        "() => document.getElementById('jupyterlab-splash') === null", timeout=THEME_MS
    ).dispose()


def open_widget(lab: Lab) -> tuple[Locator, Locator, list[str]]:
    """Run the notebook, size the widget to 1,000 px, select the first turn, open the proof."""
    lab.page.set_viewport_size(VIEWPORT)
    lab.run_all(len(CELLS) + 1)
    turns = [answer_bates(lab, index) for index in range(2, 2 + len(QUESTIONS))]
    forest, tree = forest_in(lab, WIDGET_CELL)
    forest.evaluate(f"(el) => {{ el.style.width = '{WIDGET_WIDTH_PX}px'; }}")
    for bates in turns:
        expect(row(tree, bates)).to_be_visible(timeout=RENDER_MS)
    row(tree, turns[0]).click()
    detail = forest.get_by_role("region", name="Node detail")
    # The current turn's detail may be up already (the view opens it on its own), with
    # proofs that pass: wait for the clicked turn's, or its fold would be opened and lost.
    expect(detail).to_have_attribute("data-rendered", turns[0], timeout=RENDER_MS)
    expect(detail).to_have_attribute("data-proofs", "pass", timeout=RENDER_MS)
    detail.get_by_text("Proof and cache key").click()
    expect(detail.locator(".arb-dims")).to_be_visible(timeout=RENDER_MS)
    return forest, detail, turns


def check_look(forest: Locator, where: str) -> dict[str, Any]:
    look: dict[str, Any] = forest.evaluate(_MEASURE)
    assert look["gridDisplay"] == "grid", f"{where}: the dimensions are not a grid"
    assert len(look["cells"]) == 9, f"{where}: the cache key and its eight dimensions"
    for cell in look["cells"]:
        assert cell["valueLeft"] >= cell["nameRight"], f"{where}: {cell['key']}'s value overlaps"
        assert abs(cell["valueTop"] - cell["top"]) < 2, f"{where}: {cell['key']} is not one row"
        assert cell["nameHeight"] < 1.5 * cell["line"], f"{where}: {cell['key']}'s name wraps"
    lefts = {round(cell["valueLeft"]) for cell in look["cells"]}
    assert len(lefts) == 1, f"{where}: the values do not share one column: {lefts}"
    assert look["selected"] >= MIN_CONTRAST, f"{where}: selected row contrast {look['selected']}"
    assert look["normal"] >= MIN_CONTRAST, f"{where}: normal row contrast {look['normal']}"
    low = [
        f"{w['what']} ({w['contrast']:.2f})" for w in look["worst"] if w["contrast"] < MIN_CONTRAST
    ]
    assert not low, f"{where}: text below {MIN_CONTRAST}:1: {low}"
    narrow = min(look["questionShares"])
    assert narrow >= MIN_QUESTION_SHARE, f"{where}: a question is {narrow:.0%} of the pane"
    return look


def test_the_widget_reads_well_in_every_jupyterlab_theme(lab: Lab) -> None:
    lab.open(lab.server.write_notebook("look.ipynb", CELLS))
    forest, detail, turns = open_widget(lab)
    for theme in THEMES:
        set_theme(lab, theme)
        look = check_look(forest, theme)
        assert look["theme"] == theme
        shoot(forest, "lab-" + theme.lower().replace(" ", "-"))
    set_theme(lab, THEMES[0])
    detail.evaluate("(el) => { el.scrollTop = el.scrollHeight; }")
    shoot(forest, "lab-proof-open")
    detail.evaluate("(el) => { el.scrollTop = 0; }")
    detail.locator("button.arb-cite").first.click()
    expect(detail.locator("blockquote.arb-cited mark").first).to_be_visible(timeout=RENDER_MS)
    shoot(forest, "lab-citation-open")
    detail.get_by_label("Falsification reason").fill("the median of an empty list raises")
    detail.get_by_role("button", name="Falsify answer").click()
    detail.get_by_role("button", name="Confirm falsify").click()
    falsified = forest.locator(f"[role='treeitem'][data-bates='{turns[0]}']")
    expect(falsified, "the row shows the answer is out of service").to_have_attribute(
        "data-state", "failed", timeout=RENDER_MS
    )
    expect(detail.get_by_role("button", name="Falsify answer")).to_be_disabled(timeout=RENDER_MS)
    expect(detail.get_by_label("Falsification state")).to_have_text(
        "already failed: the median of an empty list raises"
    )
    shoot(forest, "lab-falsified")
    lab.guard.assert_clean()


DEPTH = 40
DEEP_CHAIN = f"""from arborist import Arborist
deep = Arborist()
sid = deep.new_session("deep chain").sid
parent = None
questions = {QUESTIONS!r}
for i in range({DEPTH}):
    parent = deep.ask_turn(questions[i % 3], sid=sid, parent=parent).node.bates
deep.close()
print(sid)"""


def test_a_deep_chain_reads_down_the_page_in_one_short_run(lab: Lab) -> None:
    lab.page.set_viewport_size(VIEWPORT)
    lab.open(
        lab.server.write_notebook(
            "deep.ipynb",
            ["%arborist ingest --demo", DEEP_CHAIN, "%arborist session resume {sid}", "%arborist"],
        )
    )
    lab.run_all(5)
    forest, tree = forest_in(lab, 4)
    expect(tree).to_have_attribute("data-rows", "6", timeout=RENDER_MS)  # 3 + run + last 2
    run = tree.locator("[data-run]")
    expect(run).to_have_attribute("data-run", str(DEPTH - 5))
    widths = tree.evaluate("(t) => [t.scrollWidth, t.clientWidth]")
    assert widths[0] <= widths[1], f"the tree runs off to the right: {widths}"
    shoot(forest, "lab-deep-chain")
    run.click()
    expect(tree).to_have_attribute("data-rows", str(DEPTH), timeout=RENDER_MS)
    lefts = tree.evaluate(
        "(t) => [...t.querySelectorAll('[role=treeitem] .arb-question')]"
        ".map((q) => Math.round(q.getBoundingClientRect().left))"
    )
    assert max(lefts) - min(lefts) < 30, f"a line of follow-ups indents: {sorted(set(lefts))}"
    shoot(forest, "lab-deep-chain-open")
    lab.guard.assert_clean()
