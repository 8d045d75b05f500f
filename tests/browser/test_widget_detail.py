"""The forest widget's detail pane in a real JupyterLab: one scroll area, and falsification
that asks first, can be undone, and stays with the revision a turn showed (issue #25,
points 4, 6 and 7)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import Lab, shoot
from tests.browser.test_lab import RENDER_MS, answer_bates, forest_in, row
from tests.browser.test_widget_look import set_theme

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1500, "height": 1000}
ASK = "%%ask\nWhat does statistics.median return?"
CELLS = ["%arborist ingest --demo", ASK, "%arborist"]
ASK_CELL, WIDGET_CELL = 2, 3  # cell 0 is the conftest's setup cell

# Every element inside the pane that scrolls its own content: overflow that lets it
# scroll, and more content than room. The pane itself is the one scroll area.
_SCROLLERS = """(pane) => [...pane.querySelectorAll('*')]
    .filter((e) => {
        const style = getComputedStyle(e);
        const scrolls = (v) => v === 'auto' || v === 'scroll';
        return (scrolls(style.overflowY) && e.scrollHeight > e.clientHeight + 1)
            || (scrolls(style.overflowX) && e.scrollWidth > e.clientWidth + 1);
    })
    .map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${e.clientHeight} px showing ${e.scrollHeight} px`)"""

# Text an element cuts off without a way to scroll to it: taller content than box.
_CLIPPED = """(el) => [el.scrollHeight, el.clientHeight]"""


def open_turn(lab: Lab) -> tuple[Locator, Locator, Locator, str]:
    lab.page.set_viewport_size(VIEWPORT)
    lab.open(lab.server.write_notebook("detail.ipynb", CELLS))
    lab.run_all(len(CELLS) + 1)
    bates = answer_bates(lab, ASK_CELL)
    forest, tree = forest_in(lab, WIDGET_CELL)
    forest.evaluate("(el) => { el.style.width = '1000px'; }")
    row(tree, bates).click()
    detail = forest.get_by_role("region", name="Node detail")
    expect(detail).to_have_attribute("data-rendered", bates, timeout=RENDER_MS)
    return forest, tree, detail, bates


def test_a_cited_chunk_shows_whole_in_the_one_scroll_area_of_the_pane(lab: Lab) -> None:
    forest, _tree, detail, _bates = open_turn(lab)
    detail.locator("button.arb-cite").first.click()
    chunk = detail.locator("blockquote.arb-cited .arb-chunk-text")
    expect(chunk).to_be_visible(timeout=RENDER_MS)
    height, room = chunk.evaluate(_CLIPPED)
    assert height <= room + 1, f"the cited text is cut: {room} px showing {height} px"
    assert height > 200, f"the demo chunk is a long one ({height} px): the test means something"
    assert detail.evaluate(_SCROLLERS) == [], "a scroll box inside the detail pane"
    detail.get_by_text("Proof and cache key").click()
    expect(detail.locator(".arb-dims")).to_be_visible(timeout=RENDER_MS)
    assert detail.evaluate(_SCROLLERS) == [], "a scroll box inside the detail pane"
    shoot(forest, "lab-citation-whole")
    lab.guard.assert_clean()


def falsify(detail: Locator, reason: str) -> None:
    detail.get_by_label("Falsification reason").fill(reason)
    detail.get_by_role("button", name="Falsify answer").click()
    expect(detail.get_by_role("button", name="Confirm falsify")).to_be_visible(timeout=RENDER_MS)
    detail.get_by_role("button", name="Confirm falsify").click()


_ROW_WORDS = """(list) => Object.fromEntries([...list.querySelectorAll('li[data-evidence]')].map(
    (li) => [li.dataset.evidence, [li.dataset.cited, li.querySelector('.arb-proof').textContent]]))"""

_ASK_ROWS = """(cell) => Object.fromEntries([...cell.querySelectorAll('details[data-proof]')].map(
    (d) => [d.id.split('-').pop(), d.querySelector('.arborist-row-check')?.textContent ?? '']))"""


def test_each_evidence_row_says_what_was_checked_for_it_as_the_ask_output_does(
    lab: Lab,
) -> None:
    """Issue #35: the demo's quoted answer: its cited row "quotes verified", every row it
    does not cite "retrieved, not cited", never one word for every row; the %%ask output's
    rows say the same, label by label."""
    forest, _tree, detail, _bates = open_turn(lab)
    expect(detail).to_have_attribute("data-proofs", "pass", timeout=RENDER_MS)
    rows = detail.get_by_role("list", name="Evidence").evaluate(_ROW_WORDS)
    assert len(rows) >= 2, rows
    for label, (cited, said) in rows.items():
        wanted = "✓ quotes verified" if cited == "true" else "✓ retrieved, not cited"
        assert said == wanted, (label, rows)
    assert {cited for cited, _ in rows.values()} == {"true", "false"}, rows
    expect(detail.locator(".arb-audit")).to_have_text("quotes verified (STRICT)")
    ask = lab.cell(ASK_CELL).evaluate(_ASK_ROWS)
    assert {label: f"✓ {words}" for label, words in ask.items()} == {
        label: said for label, (_, said) in rows.items()
    }
    for theme, slug in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
        set_theme(lab, theme)
        shoot(forest, f"lab-evidence-rows-{slug}")


def test_falsify_asks_first_can_be_undone_and_stays_with_its_revision(lab: Lab) -> None:
    forest, tree, detail, first = open_turn(lab)
    notice = forest.get_by_role("status", name="Notice")
    # Asked, then cancelled: nothing happens.
    detail.get_by_label("Falsification reason").fill("the median of an empty list raises")
    detail.get_by_role("button", name="Falsify answer").click()
    confirm = detail.get_by_role("button", name="Confirm falsify")
    expect(confirm).to_be_visible(timeout=RENDER_MS)
    expect(detail.locator(".arb-confirm-text")).to_contain_text("revision 1")
    shoot(forest, "lab-falsify-confirm")
    detail.get_by_role("button", name="Cancel falsify").click()
    expect(confirm).to_have_count(0)
    expect(row(tree, first)).not_to_have_attribute("data-state", "failed")
    # Confirmed: falsified, said in a notice that stays, with an undo.
    detail.get_by_role("button", name="Falsify answer").click()
    detail.get_by_role("button", name="Confirm falsify").click()
    expect(row(tree, first)).to_have_attribute("data-state", "failed", timeout=RENDER_MS)
    expect(row(tree, first).locator(".arb-state"), "the row says why").to_have_attribute(
        "title", "answer failed: the median of an empty list raises"
    )
    expect(notice).to_contain_text("(revision 1) is now failed")
    shoot(forest, "lab-falsified-notice")
    notice.get_by_role("button", name="Undo falsification").click()
    expect(row(tree, first)).not_to_have_attribute("data-state", "failed", timeout=RENDER_MS)
    expect(notice).to_contain_text("falsification undone")
    expect(detail.get_by_role("button", name="Falsify answer")).to_be_enabled(timeout=RENDER_MS)
    # Falsified again, then the cell run again: revision 2 answers, in a turn of its own.
    falsify(detail, "the median of an empty list raises")
    expect(row(tree, first)).to_have_attribute("data-state", "failed", timeout=RENDER_MS)
    lab.run(ASK_CELL)
    second = answer_bates(lab, ASK_CELL)
    if second == first:  # the output may still show the old turn for a moment
        expect(lab.cell(ASK_CELL).locator(".arborist-answer")).not_to_have_attribute(
            "data-bates", first, timeout=RENDER_MS
        )
        second = answer_bates(lab, ASK_CELL)
    expect(row(tree, second)).to_be_visible(timeout=RENDER_MS)
    expect(row(tree, second)).not_to_have_attribute("data-state", "failed")
    expect(row(tree, first), "the old turn still shows its revision falsified").to_have_attribute(
        "data-state", "failed"
    )
    row(tree, first).click()
    expect(detail).to_have_attribute("data-rendered", first, timeout=RENDER_MS)
    expect(detail.get_by_label("Falsification state")).to_have_text(
        "already failed: the median of an empty list raises"
    )
    expect(detail.get_by_label("Later revision")).to_contain_text("revision 2")
    expect(detail.get_by_role("button", name="Undo falsification")).to_have_count(0)
    expect(detail.locator(".arb-state[data-state='failed']")).to_be_visible()
    shoot(forest, "lab-old-revision")
    # The new turn's Falsify acts on revision 2, and leaves the old turn as it was.
    row(tree, second).click()
    expect(detail).to_have_attribute("data-rendered", second, timeout=RENDER_MS)
    falsify(detail, "still wrong")
    expect(row(tree, second)).to_have_attribute("data-state", "failed", timeout=RENDER_MS)
    expect(notice).to_contain_text("(revision 2) is now failed")
    notice.get_by_role("button", name="Undo falsification").click()
    expect(row(tree, second)).not_to_have_attribute("data-state", "failed", timeout=RENDER_MS)
    expect(row(tree, first), "undoing revision 2 leaves revision 1 falsified").to_have_attribute(
        "data-state", "failed"
    )
    lab.guard.assert_clean()
