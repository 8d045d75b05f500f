"""The forest widget over the notebook's changes, in a real JupyterLab (issue #35, item 6): a
falsified answer asked again in a cell leaves no Undo the kernel would refuse, in the pane
or the notice; the reason is shown as text wherever the state is; the search hits follow
the kernel; and cells run again after the widget moved the current turn find their turns
(JupyterLab names each cell in its requests)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Lab, shoot
from tests.browser.test_lab import RENDER_MS, answer_bates, forest_in, row

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1500, "height": 1000}
REASON = "the median of an <b>empty</b> list raises"
ASK = "%%ask\nWhat does statistics.median return?"
FOLLOW = "%%ask\nWhat about the low median?"
CELLS = ["%arborist ingest --demo", ASK, FOLLOW, "%arborist"]
ASK_CELL, FOLLOW_CELL, WIDGET_CELL = 2, 3, 4  # cell 0 is the conftest's setup cell


def answered(outputs: list[dict[str, Any]]) -> tuple[str, str]:
    """The bates and the status line of the answer a ``%%ask`` cell's run returned."""
    (result,) = [o for o in outputs if o["output_type"] == "execute_result"]
    found = re.search(r'data-bates="([^"]+)"', result["data"]["text/html"])
    assert found is not None
    text = result["data"]["text/plain"]
    lines = (text if isinstance(text, str) else "".join(text)).splitlines()
    status = [line for line in lines if re.search(r" · turn #\d+$", line)]  # the status line
    return found.group(1), status[-1]


def test_the_widget_follows_a_falsified_answer_asked_again_and_the_cells_grow_nothing(
    lab: Lab,
) -> None:
    lab.page.set_viewport_size(VIEWPORT)
    lab.open(lab.server.write_notebook("state.ipynb", CELLS))
    lab.run_all(len(CELLS) + 1)
    first, follow = answer_bates(lab, ASK_CELL), answer_bates(lab, FOLLOW_CELL)
    forest, tree = forest_in(lab, WIDGET_CELL)
    forest.evaluate("(el) => { el.style.width = '1000px'; }")
    notice = forest.get_by_role("status", name="Notice")
    results = forest.get_by_role("list", name="Search results")
    forest.get_by_label("Search all sessions").fill("median")
    forest.get_by_role("button", name="Find", exact=True).click()
    expect(results).to_have_attribute("data-count", "2", timeout=RENDER_MS)

    # Falsified in the pane: the reason is text in the row, the pane and the search hit.
    row(tree, first).click()
    detail = forest.get_by_role("region", name="Node detail")
    expect(detail).to_have_attribute("data-rendered", first, timeout=RENDER_MS)
    detail.get_by_label("Falsification reason").fill(REASON)
    detail.get_by_role("button", name="Falsify answer").click()
    detail.get_by_role("button", name="Confirm falsify").click()
    expect(row(tree, first).get_by_label("Why")).to_have_text(REASON, timeout=RENDER_MS)
    # Measured in one frame, from the row as it stands then: a render may replace the row
    # between a locator resolving it and an evaluate reading it.
    name, edge = lab.page.wait_for_function(
        """([root, bates]) => {
          const r = root.querySelector(`[role=treeitem][data-bates="${bates}"]`);
          const n = r && r.querySelector('.arb-name'), t = r && r.closest('[role=tree]');
          return n && t && r.isConnected
            ? [n.getBoundingClientRect().right, t.getBoundingClientRect().right] : null;
        }""",
        arg=[forest.element_handle(), first],
        timeout=RENDER_MS,
    ).json_value()
    assert name <= edge, f"the reason pushes the turn's name out of the tree ({name} > {edge})"
    expect(detail.locator(".arb-detail-head").get_by_label("Why")).to_have_text(REASON)
    expect(detail.get_by_label("Falsification state")).to_have_text(f"already failed: {REASON}")
    hit = results.locator(f"[data-bates='{first}']")
    expect(hit, "the hit is searched again").to_have_attribute("data-state", "failed")
    expect(hit.get_by_label("Why")).to_have_text(REASON)
    expect(notice.get_by_role("button", name="Undo falsification")).to_be_visible()
    expect(detail.get_by_role("button", name="Undo falsification")).to_be_visible()
    assert forest.locator("b", has_text="empty").count() == 0, "the reason is text, never markup"
    shoot(forest, "lab-falsified-reason")

    # The cell asked again: revision 2, a turn of its own, which says what it replaces.
    second, said = answered(lab.run(ASK_CELL))
    assert second != first
    assert said.startswith(f"new answer (replaces revision 1, failed: {REASON})"), said
    # Without a click: the pane and the notice no longer offer an Undo the kernel refuses,
    # and the search shows the new turn.
    expect(detail.get_by_label("Later revision")).to_contain_text("revision 2", timeout=RENDER_MS)
    expect(detail.get_by_role("button", name="Undo falsification")).to_have_count(0)
    expect(notice.get_by_role("button", name="Undo falsification")).to_have_count(0)
    expect(notice).to_contain_text("revision 2 has answered the question since")
    expect(results).to_have_attribute("data-count", "3", timeout=RENDER_MS)
    expect(results.locator(f"[data-bates='{second}']")).not_to_have_attribute(
        "data-state", "failed"
    )
    shoot(forest, "lab-answered-again")
    rows = tree.get_by_role("treeitem").count()

    # The widget moves the current turn; the cells run again find their turns, and say so.
    for target in (first, second):
        row(tree, target).click()
        expect(detail).to_have_attribute("data-rendered", target, timeout=RENDER_MS)
        detail.get_by_role("button", name="Make this the current node").click()
        expect(row(tree, target)).to_have_attribute("data-current", "true", timeout=RENDER_MS)
        bates, said = answered(lab.run(FOLLOW_CELL))
        assert bates == follow and said.startswith("this cell's earlier answer"), said
    bates, said = answered(lab.run(ASK_CELL))
    assert bates == second and said.startswith("this cell's earlier answer"), said
    expect(tree.get_by_role("treeitem")).to_have_count(rows, timeout=RENDER_MS)
    lab.guard.assert_clean()
