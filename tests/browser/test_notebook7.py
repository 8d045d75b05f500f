"""The same notebook features in a real Notebook 7 (not only JupyterLab 4).

A module-scoped Notebook 7 server (``jupyter notebook``, same loopback, token-less,
xsrf-off, temp-folder setup as the lab server) replaces ``lab_server`` for this module
only, so the conftest ``lab`` fixture's guarded chromium profile (loopback only, no
dialogs, no page errors, screenshot on failure) drives it unchanged. Notebook 7 exposes
``window.jupyterapp`` too (``--JupyterNotebookApp.expose_app_in_browser``); what differs
is how a notebook opens: its own page, ``/notebooks/<path>``, opens it (there is no
``docmanager:open`` into a tab), and cells run with ``notebook:run-all-cells``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Error, expect

from tests.browser.conftest import (
    _HELPERS,
    CELL_MS,
    KERNEL_READY_MS,
    LAB_READY_MS,
    Lab,
    LabServer,
    _check_bundle,
    _stop,
    shoot,
    start_server,
)
from tests.browser.test_lab import (
    ACTIVE,
    ANSWER_CELLS,
    PAYLOADS,
    RENDER_MS,
    answer_bates,
    forest_in,
    row,
    write_documents,
)
from tests.browser.test_widget_kernel import _KERNEL_ID, _RESTART, RESTARTED, STOPPED
from tests.browser.test_widget_kernel import _says as says
from tests.browser.test_widget_look import (
    CELLS,
    THEMES,
    check_look,
    open_widget,
    set_theme,
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def notebook_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """A Notebook 7 server with every folder it writes in a temporary one."""
    _check_bundle()
    server, process = start_server(tmp_path_factory.mktemp("notebook7"), "notebook")
    try:
        yield server
    finally:
        _stop(server.url, process)


@pytest.fixture(scope="module")
def lab_server(notebook_server: LabServer) -> LabServer:
    """In this module the conftest ``lab`` fixture drives the Notebook 7 server."""
    return notebook_server


# Notebook 7 opens the notebook of its /notebooks/<path> page by itself: wait for that panel.
_NOTEBOOK_OPENED = """(path) => {
    const app = window.jupyterapp;
    if (app === undefined) return false;
    const panel = [...app.shell.widgets('main')].find(
        (w) => w.context !== undefined && w.context.path === path);
    return panel !== undefined;
}"""

_READY = """async (path) => {
    const app = window.jupyterapp;
    await app.started;
    await app.restored;
    const panel = window.__arb.panel(path);
    await panel.context.ready;
    await panel.sessionContext.ready;
    await panel.sessionContext.session.kernel.info;
    return panel.id;
}"""

_KERNEL_IDLE = """(path) => {
    const kernel = window.__arb.panel(path).sessionContext.session?.kernel;
    return kernel !== undefined && kernel !== null && kernel.status === 'idle';
}"""

_RUN_ALL = """async (path) => {
    const app = window.jupyterapp;
    const panel = window.__arb.panel(path);
    if (app.shell.currentWidget !== panel) throw new Error('the notebook is not the current widget');
    await app.commands.execute('notebook:run-all-cells');
    return panel.content.widgets.map((cell) => ({
        count: cell.model.executionCount, outputs: cell.model.outputs.toJSON() }));
}"""


# Notebook 7.6.5's own bundle throws this on every notebook page, with or without arborist:
# apparently its bundled @jupyterlab/shortcuts-extension handler for `pluginChanged` reads
# `registry.plugins['@jupyterlab/shortcuts-extension:shortcuts'].schema`, a plugin Notebook 7
# does not load (it has `@jupyter-notebook/application-extension:shortcuts`), when the
# docmanager settings reload. Only this message thrown from notebook_core is excused.
UPSTREAM_ERROR = "Cannot read properties of undefined (reading 'schema')"
UPSTREAM_BUNDLE = "/static/notebook/notebook_core."


class Notebook7(Lab):
    """``Lab``, but a notebook opens at ``/notebooks/<path>`` and runs with run-all-cells."""

    def __init__(self, lab: Lab) -> None:
        super().__init__(lab.page, lab.server, lab.guard)
        self.upstream_errors = 0
        self.page.on("pageerror", self._note_error)

    def _note_error(self, error: Error) -> None:
        stack = (error.stack or "").splitlines()
        top = next((line for line in stack if line.strip().startswith("at ")), "")
        if error.message == UPSTREAM_ERROR and UPSTREAM_BUNDLE in top:
            self.upstream_errors += 1

    def assert_clean(self) -> None:
        """``Guard.assert_clean``, less the known Notebook 7 error (from its own bundle only)."""
        for _ in range(self.upstream_errors):
            self.guard.page_errors.remove(UPSTREAM_ERROR)
        self.upstream_errors = 0
        self.guard.assert_clean()

    def open(self, path: str) -> None:
        self.page.goto(self.server.url + f"notebooks/{path}", timeout=LAB_READY_MS)
        self.page.wait_for_function(_NOTEBOOK_OPENED, arg=path, timeout=LAB_READY_MS).dispose()
        self.page.evaluate(_HELPERS)
        self.panel_id = self._await(
            _READY, path, timeout_ms=KERNEL_READY_MS, what=f"opening {path}"
        )
        self.page.wait_for_function(_KERNEL_IDLE, arg=path, timeout=KERNEL_READY_MS).dispose()
        self.path = path

    def run_all(self, count: int) -> None:
        """Run every cell with ``notebook:run-all-cells``; fail on an error or a UsageError."""
        cells: list[dict[str, Any]] = self._await(
            _RUN_ALL, self.path, timeout_ms=CELL_MS, what="running all cells"
        )
        assert len(cells) == count, f"{len(cells)} cells, expected {count}"
        for index, cell in enumerate(cells):
            assert cell["count"] is not None, f"cell {index} did not run"
            for output in cell["outputs"]:
                assert output["output_type"] != "error", (
                    f"cell {index}: {output.get('ename')}: {output.get('evalue')}"
                )
                text = output.get("text", "")
                text = "".join(text) if isinstance(text, list) else text
                assert "UsageError" not in text and "Traceback" not in text, f"cell {index}: {text}"


@pytest.fixture
def notebook(lab: Lab) -> Notebook7:
    return Notebook7(lab)


def test_notebook7_exposes_its_app_and_runs_the_magics(notebook: Notebook7) -> None:
    notebook.open(notebook.server.write_notebook("plain.ipynb", ["print('hello from nb7')"]))
    notebook.run_all(2)
    expect(notebook.cell(1).locator(".jp-OutputArea-output")).to_contain_text(
        "hello from nb7", timeout=RENDER_MS
    )
    assert notebook.page.url.endswith("/notebooks/plain.ipynb"), "Notebook 7, not Lab"
    assert notebook.page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"
    notebook.assert_clean()


def test_an_answer_renders_its_payloads_as_text_in_notebook7(notebook: Notebook7) -> None:
    write_documents(notebook)
    notebook.open(notebook.server.write_notebook("answer.ipynb", ANSWER_CELLS))
    notebook.run_all(3)
    answer_bates(notebook, 2)

    answer = notebook.cell(2).locator(".arborist-answer")
    for payload in PAYLOADS:
        expect(answer, f"{payload} shows as text").to_contain_text(payload, timeout=RENDER_MS)
    expect(answer.locator(ACTIVE), "no active element inside the answer").to_have_count(0)
    expect(answer.locator("details[data-proof='pass']"), "the evidence verifies").to_have_count(1)
    expect(answer.locator("details[data-proof='fail']")).to_have_count(0)
    notebook.assert_clean()


def test_the_forest_widget_renders_and_verifies_a_proof_in_notebook7(notebook: Notebook7) -> None:
    write_documents(notebook)
    path = notebook.server.write_notebook(
        "widget.ipynb",
        [
            "%arborist ingest hostile.md",
            "%%ask\nWhat does the quokka eat?",
            "%%ask\nWhere does the quokka live?",
            "%arborist",
        ],
    )
    notebook.open(path)
    notebook.run_all(5)
    first, second = answer_bates(notebook, 2), answer_bates(notebook, 3)
    forest, tree = forest_in(notebook, 4)
    for bates in (first, second):
        expect(row(tree, bates), f"{bates} is a tree item").to_be_visible(timeout=RENDER_MS)

    row(tree, first).click()
    detail = forest.get_by_role("region", name="Node detail")
    expect(detail).to_have_attribute("data-bates", first, timeout=RENDER_MS)
    expect(detail.get_by_label("Question", exact=True)).to_have_text("What does the quokka eat?")
    evidence = detail.get_by_label("Evidence", exact=True).locator("li[data-evidence]")
    expect(evidence.first, "the proof verifies in the browser").to_have_attribute(
        "data-proof", "pass", timeout=RENDER_MS
    )
    expect(detail).to_have_attribute("data-proofs", "pass", timeout=RENDER_MS)
    expect(forest.locator(ACTIVE), "no active element in the widget").to_have_count(0)
    notebook.assert_clean()


def test_the_widget_reads_well_in_notebook7(notebook: Notebook7) -> None:
    notebook.open(notebook.server.write_notebook("look7.ipynb", CELLS))
    forest, _detail, _turns = open_widget(notebook)
    check_look(forest, "Notebook 7")
    shoot(forest, "notebook7-light")
    set_theme(notebook, THEMES[1])
    check_look(forest, "Notebook 7 dark")
    shoot(forest, "notebook7-dark")
    notebook.assert_clean()


# The widget's requests wait 3 s here (its request_ms, in place of the default 15 s that
# the test would otherwise wait out twice), then a 3 s probe.
REQUEST_MS = 3_000
LINK_MS = 40_000


def test_a_closed_link_says_so_in_notebook7_with_the_tree_tab_open(notebook: Notebook7) -> None:
    """Issue #25, point 9, where it was seen: Notebook 7 with its file browser (the tree
    tab) open beside the notebook. Whatever the tab does to the link, the widget never
    says "is it busy or stopped?" of an idle kernel; once the kernel forgets its comm, it
    says the link closed and to re-run the cell."""
    write_documents(notebook)  # a turn first: the widget shows its tree
    notebook.open(
        notebook.server.write_notebook(
            "link7.ipynb", [*ANSWER_CELLS, f"w = %arborist\nw.request_ms = {REQUEST_MS}\nw"]
        )
    )
    notebook.run_all(4)  # the notebook's setup cell, then these three
    forest, _tree = forest_in(notebook, 3)
    tree_tab = notebook.page.context.new_page()
    tree_tab.goto(notebook.server.url + "tree", timeout=LAB_READY_MS)
    expect(tree_tab.get_by_text("link7.ipynb").first).to_be_visible(timeout=LAB_READY_MS)
    notebook.page.bring_to_front()
    status = forest.get_by_role("status", name="Status", exact=True)
    forest.get_by_role("button", name="Refresh tree").click()
    expect(status).to_contain_text(
        re.compile("in sync|the link to the kernel closed"), timeout=LINK_MS
    )
    notebook.page.evaluate(
        "(path) => window.__arb.panel(path).sessionContext.session.kernel.requestExecute("
        "{code: 'get_ipython().kernel.comm_manager.comms.pop(w.comm.comm_id)'}).done",
        notebook.path,
    )
    forest.get_by_role("button", name="Refresh tree").click()
    expect(forest).to_have_attribute("data-link", "closed", timeout=LINK_MS)
    expect(status).to_contain_text("the link to the kernel closed: re-run the cell")
    expect(status).not_to_contain_text("is it busy or stopped")
    shoot(forest, "notebook7-link-closed")
    tree_tab.close()
    notebook.assert_clean()


def test_a_kernel_shut_down_after_a_restart_is_said_at_once_in_notebook7(
    notebook: Notebook7,
) -> None:
    """Issue #35, point 4, in Notebook 7: restarted, the widget says so; run again, it is
    live; the kernel then shut down through the REST API (the Running tab, another page)
    is said within 5 s, never "in sync"."""
    write_documents(notebook)
    notebook.open(notebook.server.write_notebook("kernel7.ipynb", [*ANSWER_CELLS, "%arborist"]))
    notebook.run_all(4)
    forest, _tree = forest_in(notebook, 3)
    notebook._await(_RESTART, notebook.path, timeout_ms=KERNEL_READY_MS, what="restarting")
    says(forest, RESTARTED)
    notebook.page.wait_for_function(
        _KERNEL_IDLE, arg=notebook.path, timeout=KERNEL_READY_MS
    ).dispose()
    notebook.run_all(4)
    fresh, _tree = forest_in(notebook, 3)
    expect(fresh.get_by_role("status", name="Status", exact=True)).to_contain_text("in sync")
    notebook.server.shut_down_kernel(notebook.page.evaluate(_KERNEL_ID, notebook.path))
    says(fresh, STOPPED)
    shoot(fresh, "notebook7-kernel-shut-down-after-restart")
    notebook.assert_clean()
