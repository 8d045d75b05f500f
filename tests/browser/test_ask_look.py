"""How ``%%ask``'s output reads in real JupyterLab themes (issue #25, point 10): every text
it draws — the answer, a citation, the cited chunk, the status line, the landing line, the
folded facts, dimensions and evidence — keeps a contrast of at least 4.5:1 (WCAG AA)
against what is behind it, in JupyterLab Light, Dark and Dark High Contrast, with every
fold open. Colours come from computed styles after the host's CSS; an element's opacity
(and its ancestors') fades its text, so it counts."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Lab, shoot
from tests.browser.contrast import CONTRAST_JS
from tests.browser.test_lab import RENDER_MS, answer_bates
from tests.browser.test_widget_look import MIN_CONTRAST, THEMES, set_theme

pytestmark = pytest.mark.browser

CELLS = [
    "%arborist ingest --demo",
    "%%ask\nWhat does statistics.median return?",
    "%%ask\nWhat does it raise on an empty list?",
]
ASKS = (2, 3)  # cell 0 is the conftest's setup cell

_MEASURE = (
    """(outputs) => {
"""
    + CONTRAST_JS
    + """    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const own = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const texts = outputs.flatMap((o) => [o, ...o.querySelectorAll('*')]).filter((e) => own(e) && shown(e));
    return {
        count: texts.length,
        kinds: [...new Set(texts.map((e) => e.tagName.toLowerCase()))].sort(),
        worst: texts
            .map((e) => ({contrast: contrast(e), what: `${e.tagName.toLowerCase()}.${e.className}: ${e.textContent.trim().slice(0, 40)}`}))
            .sort((a, b) => a.contrast - b.contrast)
            .slice(0, 8),
    };
}"""
)


def test_every_text_of_an_answer_reads_in_every_jupyterlab_theme(lab: Lab) -> None:
    lab.page.set_viewport_size({"width": 1400, "height": 1000})
    lab.open(lab.server.write_notebook("ask-look.ipynb", CELLS))
    lab.run_all(len(CELLS) + 1)
    for index in ASKS:
        answer_bates(lab, index)
        outputs = lab.cell(index).locator(".arborist-answer, .arborist-landing")
        expect(outputs.first).to_be_visible(timeout=RENDER_MS)

    def folds(open_: bool) -> None:  # every fold: the facts, each evidence item, citation
        for index in ASKS:
            lab.cell(index).locator(".arborist-answer").evaluate(
                "(el, open) => el.querySelectorAll('details').forEach((d) => { d.open = open; })",
                open_,
            )

    for theme in THEMES:
        set_theme(lab, theme)
        folds(False)
        shoot(lab.cell(ASKS[1]), "ask-" + theme.lower().replace(" ", "-"))
        folds(True)
        for index in ASKS:
            look = lab.cell(index).evaluate(
                f"(cell) => ({_MEASURE})("
                "[...cell.querySelectorAll('.arborist-answer, .arborist-landing')])"
            )
            assert look["count"] > 20, f"{theme}: cell {index} measured too little: {look}"
            assert {"summary", "th", "code", "pre"} <= set(look["kinds"]), look["kinds"]
            low = [
                f"{w['what']} ({w['contrast']:.2f})"
                for w in look["worst"]
                if w["contrast"] < MIN_CONTRAST
            ]
            assert not low, f"{theme}, cell {index}: text below {MIN_CONTRAST}:1: {low}"
    # The measure sees a faded text: the status line at a third of its opacity fails.
    faded = lab.cell(ASKS[0]).evaluate(
        "(cell) => { cell.querySelector('.arborist-status').style.opacity = '0.3'; "
        f"return ({_MEASURE})([cell.querySelector('.arborist-answer')]); }}"
    )
    assert faded["worst"][0]["contrast"] < MIN_CONTRAST, faded["worst"][0]
    assert "arborist-status" in faded["worst"][0]["what"]
    set_theme(lab, THEMES[0])
    lab.guard.assert_clean()
