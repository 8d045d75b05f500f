"""The forest widget when its link to the kernel is gone, in a real JupyterLab (issue #25,
point 9): the kernel forgets the widget's comm without a word (as when the comm is closed
behind the page's back), the page's next request goes unanswered by an idle kernel, and
the widget says the link closed and how to recover, not "is it busy or stopped?"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Lab, shoot
from tests.browser.test_lab import ANSWER_CELLS, forest_in, write_documents
from tests.browser.test_widget_look import set_theme

pytestmark = pytest.mark.browser

# The widget's requests wait 3 s here (its request_ms, in place of the default 15 s that
# the suite would otherwise wait out), then a 3 s probe: the verdict comes within about 7 s.
REQUEST_MS = 3_000
LINK_MS = 40_000

CELLS = [
    *ANSWER_CELLS,  # a turn first: in an empty home the widget waits, with no tree
    f"w = %arborist\nw.request_ms = {REQUEST_MS}\nw",
    # The kernel drops the comm from its manager: the page's messages now go nowhere.
    "get_ipython().kernel.comm_manager.comms.pop(w.comm.comm_id) is not None",
]


def test_a_closed_link_says_so_and_how_to_recover(lab: Lab) -> None:
    write_documents(lab)
    lab.open(lab.server.write_notebook("link.ipynb", CELLS))
    lab.run_all(4)  # the notebook's setup cell, the question, the widget
    forest, _tree = forest_in(lab, 3)
    lab.run(4)
    forest.get_by_role("button", name="Refresh tree").click()
    expect(forest, "the view finds the link closed").to_have_attribute(
        "data-link", "closed", timeout=LINK_MS
    )
    status = forest.get_by_role("status", name="Status", exact=True)
    expect(status).to_contain_text(
        "the link to the kernel closed: re-run the cell that shows this widget"
    )
    expect(status).not_to_contain_text("is it busy or stopped")
    # Said once: the notice bar does not repeat the status line (issue #35).
    expect(forest.get_by_label("Notice", exact=True)).to_be_hidden()
    assert forest.inner_text().count("the link to the kernel closed") == 1
    # Nothing can be sent now: every control that would send is disabled, its title saying
    # why; a turn clicked is not fetched, and nothing says the cause a second time.
    for control in (
        forest.get_by_role("button", name="Find", exact=True),
        forest.get_by_label("Search all sessions"),
        forest.get_by_role("button", name="Refresh tree"),
    ):
        expect(control).to_be_disabled()
    tree_rows = forest.get_by_role("tree", name="Session tree").get_by_role("treeitem")
    tree_rows.first.click()
    expect(forest.get_by_role("alert")).to_have_count(0)
    expect(forest.get_by_label("Notice", exact=True)).to_be_hidden()
    assert forest.inner_text().count("the link to the kernel closed") == 1
    for theme, slug in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
        set_theme(lab, theme)
        shoot(forest, f"lab-link-closed-{slug}")
    # Re-running the cell gives a live widget again.
    lab.run(3)
    fresh, _tree = forest_in(lab, 3)
    expect(fresh).not_to_have_attribute("data-link", "closed")
    lab.guard.assert_clean()
