"""The forest widget before its session exists, in real JupyterLab (issue #26): ``%arborist``
in a notebook whose home holds no session writes none and shows an honest empty state
("No turns yet", a box for the first question) that reads at 4.5:1 or better in the light,
dark and high-contrast themes; the first turn, from a ``%%ask`` cell or from the widget's
own box, makes the session, and the widget shows its tree without a restart.

sessions.db is read from the test's process, as another program would read it. With
``ARBORIST_SHOTS=<folder>`` set, the empty state is saved as a PNG per theme.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import Lab, shoot
from tests.browser.contrast import CONTRAST_JS
from tests.browser.test_lab import FORK_MS, RENDER_MS, answer_bates, row, write_documents
from tests.browser.test_widget_look import MIN_CONTRAST, THEMES, set_theme

pytestmark = pytest.mark.browser

QUESTION = "What does the wombat dig burrows with?"
FOLLOW_UP = "And what droppings does the wombat make?"

# Every text the empty widget shows, measured as a reader sees it (tests/browser/contrast.py).
_MEASURE = (
    """(forest) => {
"""
    + CONTRAST_JS
    + """    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const own = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const texts = [...forest.querySelectorAll('*')].filter((e) => own(e) && shown(e));
    return texts
        .map((e) => ({contrast: contrast(e), what: `${e.tagName.toLowerCase()}.${e.className}: ${e.textContent.trim().slice(0, 40)}`}))
        .sort((a, b) => a.contrast - b.contrast);
}"""
)


def sessions_in(lab: Lab, notebook: str) -> list[tuple[str, str | None]]:
    """The sessions the notebook's home holds (sid, label), read apart from the kernel."""
    path = lab.server.homes / Path(notebook).stem / "sessions.db"
    if not path.exists():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return list(conn.execute("SELECT sid, label FROM sessions ORDER BY sid"))


def waiting_forest(lab: Lab, index: int) -> Locator:
    """The widget of cell ``index``, showing its empty state."""
    forest = lab.cell(index).locator("[data-arborist-forest]")
    expect(forest, "the widget renders").to_have_attribute("data-ready", "true", timeout=RENDER_MS)
    expect(forest, "it has no session").to_have_attribute("data-waiting", "true")
    empty = forest.get_by_role("region", name="No turns yet")
    expect(empty).to_be_visible()
    expect(empty).to_contain_text("No turns yet: ask a question with %%ask")
    expect(forest.get_by_role("textbox", name="First question")).to_be_visible()
    expect(forest.get_by_role("tree", name="Session tree"), "no tree to show").to_be_hidden()
    expect(forest.get_by_role("status", name="Status", exact=True)).to_have_text("no turns yet")
    return forest


def test_an_empty_home_shows_no_turns_yet_and_the_first_ask_brings_the_tree(lab: Lab) -> None:
    write_documents(lab)
    cells = ["%arborist", "%arborist ingest wombat.md", f"%%ask\n{QUESTION}"]
    notebook = lab.server.write_notebook("first.ipynb", cells)
    lab.open(notebook)
    lab.run(0)
    lab.run(1)
    forest = waiting_forest(lab, 1)
    assert sessions_in(lab, notebook) == [], "showing the widget wrote a session"

    for theme in THEMES:
        set_theme(lab, theme)
        shoot(forest, "widget-first-" + theme.lower().replace(" ", "-"))
        measured = forest.evaluate(f"(el) => ({_MEASURE})(el)")
        assert len(measured) >= 4, f"{theme}: measured too little: {measured}"
        low = [
            f"{m['what']} ({m['contrast']:.2f})" for m in measured if m["contrast"] < MIN_CONTRAST
        ]
        assert not low, f"{theme}: text below {MIN_CONTRAST}:1: {low}"
    set_theme(lab, THEMES[0])

    lab.run(2)
    assert sessions_in(lab, notebook) == [], "ingesting writes no session either"
    lab.run(3)
    bates = answer_bates(lab, 3)
    [(sid, _label)] = sessions_in(lab, notebook)
    assert bates.startswith(sid + "-")
    expect(forest, "the widget takes the new session").to_have_attribute(
        "data-waiting", "false", timeout=RENDER_MS
    )
    expect(forest).to_have_attribute("data-sid", sid)
    tree = forest.get_by_role("tree", name="Session tree")
    expect(row(tree, bates), "the first turn shows in the tree").to_be_visible(timeout=RENDER_MS)
    expect(row(tree, bates)).to_contain_text(QUESTION)
    expect(forest.get_by_role("region", name="No turns yet")).to_be_hidden()
    expect(forest.get_by_role("status", name="Status", exact=True)).to_have_text(
        "1 turn · in sync", timeout=RENDER_MS
    )
    shoot(forest, "widget-first-after-ask")
    lab.guard.assert_clean()


def test_the_first_question_asked_in_the_widget_makes_the_kernels_session(lab: Lab) -> None:
    write_documents(lab)
    cells = ["%arborist ingest wombat.md", "%arborist", f"%%ask\n{FOLLOW_UP}"]
    notebook = lab.server.write_notebook("first-box.ipynb", cells)
    lab.open(notebook)
    lab.run_all(3)
    forest = waiting_forest(lab, 2)
    assert sessions_in(lab, notebook) == []
    box = forest.get_by_role("textbox", name="First question")
    box.fill(QUESTION)
    box.press("Enter")
    expect(forest, "its turn made the session").to_have_attribute(
        "data-waiting", "false", timeout=FORK_MS
    )
    [(sid, _label)] = sessions_in(lab, notebook)
    tree = forest.get_by_role("tree", name="Session tree")
    first = tree.locator("[role='treeitem']", has_text=QUESTION)
    expect(first).to_have_count(1, timeout=RENDER_MS)
    expect(first).to_have_attribute("data-sid", sid)
    # The kernel works in that session now: the next %%ask lands in it, under the turn.
    lab.run(3)
    bates = answer_bates(lab, 3)
    assert bates.startswith(sid + "-") and sessions_in(lab, notebook) == [(sid, _label)]
    expect(row(tree, bates), "the follow-up shows too").to_be_visible(timeout=RENDER_MS)
    lab.guard.assert_clean()
