"""arborist in a real JupyterLab: the ``%%ask`` output and the forest widget, in headless chromium.

Each test writes its notebook into the server's root_dir, opens it through
``window.jupyterapp``, runs its cells one by one with ``notebook:run-cell``
and asserts with Playwright's auto-waiting ``expect`` (named timeouts). The
``lab`` fixture fails a test on any request beyond loopback, any JS dialog
and any uncaught page error.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import Lab, shoot

pytestmark = pytest.mark.browser

RENDER_MS = 15_000  # an output or a widget update appears
FORK_MS = 30_000  # the kernel answers a fork from the widget on its worker thread
SETTLED_MS = 2_000  # re-check of a page that has already rendered (used where a test may fail)

BATES = re.compile(r"^\d{8}T\d{6}Z-[0-9a-f]{6}-\d{6}$")
REMOTE_IMAGE = "![quokka](http://203.0.113.7/quokka.png)"  # TEST-NET-3: never routable
PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(2)</script>",
    '"><svg onload=alert(3)>',
    "[click me](javascript:alert(5))",
    REMOTE_IMAGE,
]
# Title and text both hostile; the extractive answerer quotes all three sentences.
HOSTILE_DOCUMENT = f"""# Quokka {PAYLOADS[0]} {PAYLOADS[2]} notes

The quokka is a small marsupial of Rottnest Island {PAYLOADS[0]} that smiles {REMOTE_IMAGE} often.
The quokka eats leaves and grasses {PAYLOADS[1]} at night.
More quokka facts live at {PAYLOADS[2]} and {PAYLOADS[3]} and <a href="javascript:alert(6)">here</a>.
"""
WOMBAT_DOCUMENT = """# Wombat field notes

The wombat digs burrows with strong claws.
The wombat makes cube-shaped droppings.
"""
HOSTILE_LABEL = "<img src=x onerror=alert(4)>"
# Anything that could run script or fetch: none may exist inside an answer or the widget.
ACTIVE = "img, script, svg, iframe, object, embed, a[href^='javascript'], [onerror], [onload]"


def write_documents(lab: Lab) -> None:
    (lab.server.root / "hostile.md").write_text(HOSTILE_DOCUMENT, encoding="utf-8")
    (lab.server.root / "wombat.md").write_text(WOMBAT_DOCUMENT, encoding="utf-8")


def answer_bates(lab: Lab, index: int) -> str:
    """The bates an ``%%ask`` cell's rendered output carries."""
    answer = lab.cell(index).locator(".arborist-answer")
    expect(answer, f"cell {index} shows an answer").to_have_attribute(
        "data-bates", BATES, timeout=RENDER_MS
    )
    return str(answer.get_attribute("data-bates"))


def forest_in(lab: Lab, index: int) -> tuple[Locator, Locator]:
    """The widget in cell ``index`` once it has synced, and its tree."""
    forest = lab.cell(index).locator("[data-arborist-forest]")
    tree = forest.get_by_role("tree", name="Session tree")
    expect(tree, "the widget renders its tree").to_be_visible(timeout=RENDER_MS)
    expect(forest, "the widget syncs").to_have_attribute("data-ready", "true", timeout=RENDER_MS)
    return forest, tree


def row(tree: Locator, bates: str) -> Locator:
    return tree.locator(f"[role='treeitem'][data-bates='{bates}']")


# --- the %%ask output ------------------------------------------------------------------------------

ANSWER_CELLS = ["%arborist ingest hostile.md", "%%ask\nWhat does the quokka eat?"]


def test_an_answer_citing_a_hostile_document_renders_its_payloads_as_text(lab: Lab) -> None:
    write_documents(lab)
    lab.open(lab.server.write_notebook("answer.ipynb", ANSWER_CELLS))
    lab.run_all(3)
    answer_bates(lab, 2)

    answer = lab.cell(2).locator(".arborist-answer")
    for payload in PAYLOADS:
        expect(answer, f"{payload} shows as text").to_contain_text(payload, timeout=RENDER_MS)
    expect(answer.locator(ACTIVE), "no active element inside the answer").to_have_count(0)
    expect(answer.locator("details.arborist-cite[data-label='E1']").first).to_be_attached()
    expect(answer.locator("details[data-proof='pass']"), "the evidence verifies").to_have_count(1)
    expect(answer.locator("details[data-proof='fail']")).to_have_count(0)
    status = answer.locator(".arborist-status")
    expect(status, "one plain status line under the answer").to_contain_text("quotes verified")
    facts = answer.locator("details", has_text="turn, sources and proofs").last
    expect(facts.locator("table").first, "the facts are folded away").to_be_hidden()
    shoot(lab.cell(2), "lab-answer")
    lab.guard.assert_clean()


def test_clicking_a_citation_opens_the_cited_chunk(lab: Lab) -> None:
    write_documents(lab)
    lab.open(lab.server.write_notebook("citation.ipynb", ANSWER_CELLS))
    lab.run_all(3)
    answer_bates(lab, 2)

    answer = lab.cell(2).locator(".arborist-answer")
    citation = answer.locator("details.arborist-cite[data-label='E1']").first
    chunk = citation.locator(".arborist-chunk")
    expect(chunk, "the chunk is folded away at first").to_be_hidden(timeout=SETTLED_MS)
    citation.locator("summary").click()
    expect(chunk, "clicking the citation shows the cited chunk").to_be_visible(timeout=SETTLED_MS)


MARKDOWN_ONLY = (
    "from IPython.display import display\ndisplay({'text/markdown': _._repr_markdown_()}, raw=True)"
)


def test_the_markdown_rendering_of_an_answer_keeps_links_and_images_inert(lab: Lab) -> None:
    write_documents(lab)
    lab.open(lab.server.write_notebook("markdown.ipynb", [*ANSWER_CELLS, MARKDOWN_ONLY]))
    lab.run_all(4)

    markdown = lab.cell(3).locator("[data-mime-type='text/markdown']")
    expect(markdown, "the markdown renders").to_contain_text("quokka", timeout=RENDER_MS)
    expect(markdown.locator(ACTIVE), "no link or image comes alive").to_have_count(
        0, timeout=SETTLED_MS
    )
    lab.guard.assert_clean()


# --- the forest widget ---------------------------------------------------------------------------


def test_the_widget_shows_the_turns_and_verifies_a_selected_proof_in_the_browser(
    lab: Lab,
) -> None:
    write_documents(lab)
    path = lab.server.write_notebook(
        "widget.ipynb",
        [
            "%arborist ingest hostile.md",
            "%%ask\nWhat does the quokka eat?",
            "%%ask\nWhere does the quokka live?",
            "%arborist",
        ],
    )
    lab.open(path)
    lab.run_all(5)
    first, second = answer_bates(lab, 2), answer_bates(lab, 3)
    forest, tree = forest_in(lab, 4)
    for bates in (first, second):
        expect(row(tree, bates), f"{bates} is a tree item").to_be_visible(timeout=RENDER_MS)

    row(tree, first).click()
    detail = forest.get_by_role("region", name="Node detail")
    expect(detail).to_have_attribute("data-bates", first, timeout=RENDER_MS)
    expect(detail.get_by_label("Question", exact=True)).to_have_text("What does the quokka eat?")
    answer = detail.get_by_label("Answer", exact=True)
    # The quoted sentence carries one payload; the hostile title (two more) is in the
    # evidence list, where a short citation's title is shown.
    expect(answer, "the sentence's payload shows as text").to_contain_text(
        PAYLOADS[1], timeout=RENDER_MS
    )
    listed = detail.get_by_label("Evidence", exact=True)
    for payload in (PAYLOADS[0], PAYLOADS[2]):
        expect(listed, f"{payload} shows as text").to_contain_text(payload, timeout=RENDER_MS)
    evidence = listed.locator("li[data-evidence]")
    expect(evidence.first, "the proof verifies in the browser").to_have_attribute(
        "data-proof", "pass", timeout=RENDER_MS
    )
    expect(detail).to_have_attribute("data-proofs", "pass", timeout=RENDER_MS)
    expect(forest.locator(ACTIVE), "no active element in the widget").to_have_count(0)

    row(tree, first).focus()
    active_cell = lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    )
    lab.page.keyboard.press("ArrowDown")
    expect(row(tree, second), "ArrowDown moves to the next turn").to_be_focused(timeout=RENDER_MS)
    lab.page.keyboard.press("Enter")
    expect(row(tree, second)).to_have_attribute("aria-selected", "true", timeout=RENDER_MS)
    expect(detail).to_have_attribute("data-bates", second, timeout=RENDER_MS)
    expect(detail.get_by_label("Question", exact=True)).to_have_text("Where does the quokka live?")
    assert active_cell == lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    ), "the widget's arrow keys also moved the notebook's active cell"
    lab.guard.assert_clean()


def test_a_new_ask_and_a_hostile_label_show_in_the_same_widget_view(lab: Lab) -> None:
    write_documents(lab)
    path = lab.server.write_notebook(
        "sync.ipynb",
        [
            "%arborist ingest hostile.md",
            "%%ask\nWhat does the quokka eat?",
            "%arborist",
            "%%ask\nWhere does the quokka live?",
            f"%arborist label {HOSTILE_LABEL}",
        ],
    )
    lab.open(path)
    lab.run_all(4)
    first = answer_bates(lab, 2)
    forest, tree = forest_in(lab, 3)
    expect(row(tree, first)).to_be_visible(timeout=RENDER_MS)
    forest.evaluate("(el) => { el.dataset.testView = 'kept'; }")

    lab.run(4)
    second = answer_bates(lab, 4)
    expect(row(tree, second), "the new turn appears").to_be_visible(timeout=RENDER_MS)
    expect(forest, "in the same view, not a re-render").to_have_attribute("data-test-view", "kept")
    expect(lab.cell(3).locator("[data-arborist-forest]")).to_have_count(1)

    lab.run(5)
    labelled = row(tree, second)
    expect(labelled, "the label reaches the tree").to_have_attribute(
        "data-label", HOSTILE_LABEL, timeout=RENDER_MS
    )
    expect(labelled.locator(".arb-label")).to_have_text(HOSTILE_LABEL)
    expect(forest, "still the same view").to_have_attribute("data-test-view", "kept")
    expect(forest.locator(ACTIVE), "the label is text").to_have_count(0)
    lab.guard.assert_clean()


FORK_QUESTION = "Does the quokka eat at night?"
FORK_CHECK = f"""import contextlib, os, sqlite3
with contextlib.closing(sqlite3.connect(os.path.join(os.environ['ARBORIST_HOME'], 'sessions.db'))) as db:
    for bates, parent in db.execute('SELECT bates, parent_bates FROM nodes WHERE question = ?', ({FORK_QUESTION!r},)):
        print('forked', bates, 'under', parent)"""


def test_search_finds_another_sessions_turn_and_a_fork_adds_a_turn(lab: Lab) -> None:
    write_documents(lab)
    path = lab.server.write_notebook(
        "fork.ipynb",
        [
            "%arborist ingest hostile.md wombat.md",
            "%%ask\nHow does the wombat dig?",
            "%arborist session new",
            "%%ask\nWhat does the quokka eat?",
            "%arborist",
            FORK_CHECK,
        ],
    )
    lab.open(path)
    lab.run_all(6)
    other, mine = answer_bates(lab, 2), answer_bates(lab, 4)
    forest, tree = forest_in(lab, 5)
    expect(row(tree, mine)).to_be_visible(timeout=RENDER_MS)
    expect(row(tree, other), "the other session is not in this tree").to_have_count(0)

    search = forest.get_by_role("searchbox", name="Search all sessions")
    search.fill("wombat burrows")
    search.press("Enter")
    results = forest.get_by_label("Search results")
    expect(results, "Enter in the search box runs the search").to_be_visible(timeout=RENDER_MS)
    hit = results.get_by_role("button", name=f"Open {other}")
    expect(hit, "the search finds the other session's turn").to_have_attribute(
        "data-foreign", "true", timeout=RENDER_MS
    )
    expect(hit.locator("mark").first, "matched words are marked, not «raw»").to_be_visible()
    expect(results, "no raw markers").not_to_contain_text("«")
    group = results.locator(f".arb-hit-group[data-sid='{other[:23]}']")
    expect(group, "hits are grouped by session").to_have_count(1)
    shoot(forest, "lab-search")
    hit.click()
    detail = forest.get_by_role("region", name="Node detail")
    expect(detail).to_have_attribute("data-bates", other, timeout=RENDER_MS)
    expect(detail.get_by_label("Question", exact=True)).to_have_text("How does the wombat dig?")

    row(tree, mine).click()
    expect(detail).to_have_attribute("data-bates", mine, timeout=RENDER_MS)
    turns = tree.get_by_role("treeitem")
    before = turns.count()
    fork = detail.get_by_label("Fork question")
    fork.fill(FORK_QUESTION)
    fork.press("Enter")  # inside a cell, JupyterLab cancels implicit form submission
    expect(detail.get_by_role("status", name="Fork status")).to_have_attribute(
        "data-fork", "done", timeout=FORK_MS
    )
    expect(turns, "the fork adds a turn to the tree").to_have_count(before + 1)
    expect(row(tree, mine), "a fork does not move the kernel's current turn").to_have_attribute(
        "data-current", "true"
    )
    shoot(forest, "lab-fork")
    expect(detail.get_by_label("Question", exact=True)).to_have_text(FORK_QUESTION)
    forked = str(detail.get_attribute("data-bates"))
    assert BATES.match(forked) and forked not in {mine, other}
    expect(row(tree, forked)).to_be_visible()
    expect(detail).to_have_attribute("data-proofs", "pass", timeout=RENDER_MS)

    outputs = lab.run(6)
    printed = "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
    assert f"forked {forked} under {mine}" in printed, "the fork is a row of sessions.db"
    lab.guard.assert_clean()


TAMPER = """import contextlib, os, sqlite3
with contextlib.closing(sqlite3.connect(os.path.join(os.environ['ARBORIST_HOME'], 'store.db'))) as db:
    changed = db.execute("UPDATE chunks SET text = replace(text, 'strong claws', 'tiny spoons')").rowcount
    db.commit()
print('tampered', changed)"""


def test_a_chunk_changed_after_the_answer_fails_its_proof(lab: Lab) -> None:
    write_documents(lab)
    path = lab.server.write_notebook(
        "tamper.ipynb",
        [
            "%arborist ingest wombat.md",
            "%arborist",
            "%%ask\nHow does the wombat dig?",
            "answer = _\n" + TAMPER,
            "answer",
            "%%ask\nHow does the wombat dig?",
        ],
    )
    lab.open(path)
    lab.run_all(3)
    # The view is up before the ask (waiting for the session its first turn makes, issue
    # #26): it would otherwise open the new current turn on its first screen, and a body it
    # holds is shown from its cache (fetched before the tamper).
    expect(lab.cell(2).locator("[data-arborist-forest]")).to_have_attribute(
        "data-waiting", "true", timeout=RENDER_MS
    )
    lab.run(3)
    turn = answer_bates(lab, 3)
    forest, tree = forest_in(lab, 2)
    expect(lab.cell(3).locator("details[data-proof='pass']")).to_have_count(1)
    expect(row(tree, turn)).to_be_visible(timeout=RENDER_MS)

    assert "tampered 1" in "".join(o.get("text", "") for o in lab.run(4))
    row(tree, turn).click()
    detail = forest.get_by_role("region", name="Node detail")
    expect(detail).to_have_attribute("data-bates", turn, timeout=RENDER_MS)
    evidence = detail.get_by_label("Evidence", exact=True).locator("li[data-evidence]")
    expect(evidence.first, "the browser sees the changed text").to_have_attribute(
        "data-proof", "fail", timeout=RENDER_MS
    )
    expect(detail).to_have_attribute("data-proofs", "fail")
    expect(detail.get_by_label("Proof of E1")).to_contain_text("FAILED")

    lab.run(5)
    shown = lab.cell(5).locator(".arborist-answer")
    expect(
        shown.locator("details[data-proof='fail']"),
        "the answer shown again re-reads the store and shows the failure",
    ).to_have_count(1, timeout=RENDER_MS)
    expect(shown, "and claims no audit mode it lost").not_to_contain_text("STRICT")
    expect(shown).to_contain_text("does not hold now")

    outputs = lab.run(6, allow_usage_error=True)
    printed = "".join(o.get("text", "") for o in outputs)
    assert "no longer matches its committed hash" in printed, "asking again is refused"
    lab.guard.assert_clean()


def test_the_detail_pane_lists_related_sources_as_text(lab: Lab) -> None:
    write_documents(lab)
    path = lab.server.write_notebook(
        "related.ipynb",
        [
            "import os\nos.environ['ARBORIST_COACCESS'] = '1'",
            "%arborist ingest hostile.md wombat.md",
            "%%ask\nWhat does the quokka eat?",
            "%%ask\nHow does the wombat dig?",
            "%arborist session new",
            "%%ask\nHow does the wombat dig?",
            "%arborist",
        ],
    )
    lab.open(path)
    lab.run_all(8)
    mine = answer_bates(lab, 6)
    forest, tree = forest_in(lab, 7)
    row(tree, mine).click()
    detail = forest.get_by_role("region", name="Node detail")
    expect(detail).to_have_attribute("data-bates", mine, timeout=RENDER_MS)
    related = detail.get_by_label("Related sources").locator("li[data-related]")
    expect(related.first, "the quokka chunk the other session cited nearby").to_contain_text(
        "Quokka", timeout=RENDER_MS
    )
    expect(related.first.locator(".arb-ev-title")).to_contain_text(PAYLOADS[0])
    expect(forest.locator(ACTIVE), "related titles are text").to_have_count(0)
    lab.guard.assert_clean()
