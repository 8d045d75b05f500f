"""Every shipped notebook, run as a person runs it the first time (issue #35, point 1): Run
All, Run All again, Restart & Run All, in JupyterLab and in Notebook 7.

After each run every code cell ran with no error and no traceback, every forest widget
shows its tree in sync (after the requests Run All queued behind the last cell, and one
poll more), and the temporary folder holds only the homes the live kernel's runs made,
each a real store; once the kernel is shut down, nothing. The server runs with its own
TMPDIR, so the folders counted are this test's alone.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    KERNEL_READY_MS,
    REPO,
    Lab,
    LabServer,
    _check_bundle,
    _stop,
    shoot,
    start_server,
)
from tests.browser.test_lab import RENDER_MS
from tests.browser.test_notebook7 import Notebook7

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
QUICKSTART = "01-quickstart.ipynb"
RUN_ALL_MS = 300_000  # a whole notebook: the quickstart ingests the 72 demo documents
SETTLE_MS = 15_000  # the widget's queued requests, then one poll (every 2 s), answered
GONE_S = 30.0  # a shut-down kernel's exit removes its homes

_RUN_ALL = """async (path) => {
    const app = window.jupyterapp;
    const panel = window.__arb.panel(path);
    app.shell.activateById(panel.id);
    await app.commands.execute('notebook:run-all-cells');
    return panel.content.widgets.map((cell) => ({
        type: cell.model.type,
        count: cell.model.type === 'code' ? cell.model.executionCount : 0,
        outputs: cell.model.type === 'code' ? cell.model.outputs.toJSON() : [] }));
}"""

_RESTART = """async (path) => {
    const kernel = window.__arb.panel(path).sessionContext.session.kernel;
    await kernel.restart();
    return kernel.status;
}"""

_IDLE = """(path) => {
    const kernel = window.__arb.panel(path).sessionContext.session?.kernel;
    return kernel && kernel.status === 'idle';
}"""

# Each widget's replies so far: a later count proves the kernel answered after the run.
_REPLIES = """(id) => [...document.querySelectorAll(`[id='${id}'] [data-arborist-forest]`)].map(
    (el) => Number(el.getAttribute('data-traffic-replies') || 0))"""

_ANSWERED_SINCE = """([id, before]) => {
    const now = [...document.querySelectorAll(`[id='${id}'] [data-arborist-forest]`)].map(
        (el) => Number(el.getAttribute('data-traffic-replies') || 0));
    return now.length === before.length && now.every((n, i) => n >= before[i] + 2);
}"""


@pytest.fixture(scope="module", params=["lab", "notebook"])
def run_all_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LabServer, Path, str]]:
    """A JupyterLab or Notebook 7 server whose kernels make their temporary files in a
    folder of this module's (``TMPDIR``), with the shipped notebooks in its root_dir."""
    _check_bundle()
    base = tmp_path_factory.mktemp(f"run-all-{request.param}")
    scratch = base / "tmp"
    scratch.mkdir()
    server, process = start_server(
        base, request.param, {"TMPDIR": str(scratch), "ARBORIST_NB_HOME": ""}
    )
    for name in NOTEBOOKS:
        shutil.copy(REPO / "notebooks" / name, server.root / name)
    try:
        yield server, scratch, request.param
    finally:
        _stop(server.url, process)


@pytest.fixture
def lab_server(run_all_server: tuple[LabServer, Path, str]) -> LabServer:
    """Here the conftest ``lab`` fixture drives this module's server."""
    return run_all_server[0]


def _homes(scratch: Path) -> list[Path]:
    return sorted(scratch.glob("arborist-nb-*"))


def _run_all(lab: Lab, what: str) -> None:
    """Run every cell; each code cell ran, with no error, no traceback, no UsageError."""
    cells: list[dict[str, Any]] = lab._await(
        _RUN_ALL, lab.path, timeout_ms=RUN_ALL_MS, what=f"{what} of {lab.path}"
    )
    for index, cell in enumerate(cells):
        if cell["type"] != "code":
            continue
        assert cell["count"] is not None, f"{what}: cell {index} did not run"
        for output in cell["outputs"]:
            assert output["output_type"] != "error", (
                f"{what}: cell {index}: {output.get('ename')}: {output.get('evalue')}"
            )
            text = output.get("text", "")
            text = "".join(text) if isinstance(text, list) else text
            for bad in ("Traceback", "UsageError"):
                assert bad not in text, f"{what}: cell {index}: {text}"
    lab.page.wait_for_function(_IDLE, arg=lab.path, timeout=KERNEL_READY_MS).dispose()


def _widgets_show_their_trees(lab: Lab, what: str) -> None:
    """Every forest widget of the notebook answered after the run, and shows its tree in
    sync: turns in the tree, an "in sync" status, no error notice."""
    forests = lab.page.locator(f"[id='{lab.panel_id}'] [data-arborist-forest]")
    count = forests.count()
    for index in range(count):
        expect(forests.nth(index), f"{what}: widget {index} syncs").to_have_attribute(
            "data-ready", "true", timeout=RENDER_MS
        )
    before = lab.page.evaluate(_REPLIES, lab.panel_id)
    lab.page.wait_for_function(
        _ANSWERED_SINCE, arg=[lab.panel_id, before], timeout=SETTLE_MS
    ).dispose()
    for index in range(count):
        forest = forests.nth(index)
        tree = forest.get_by_role("tree", name="Session tree")
        expect(tree.get_by_role("treeitem").first, f"{what}: widget {index}'s tree").to_be_visible()
        status = forest.get_by_role("status", name="Status", exact=True)
        expect(status, f"{what}: widget {index}").to_have_attribute("data-status", "ok")
        expect(status, f"{what}: widget {index}").to_contain_text("in sync")
        expect(
            forest.get_by_role("status", name="Notice", exact=True), f"{what}: no notice"
        ).to_be_hidden()


def _stores(scratch: Path, count: int, what: str) -> None:
    """``count`` homes in the temporary folder (one for each run of this kernel; the
    quickstart's runs share their kernel's), each a real store: none re-created empty by a
    widget reading a removed home."""
    homes = _homes(scratch)
    assert len(homes) == count, f"{what}: {[p.name for p in homes]}"
    for home in homes:
        assert (home / "store.db").stat().st_size > 0, f"{what}: {home.name} is empty"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_run_all_twice_then_restart_and_run_all(
    lab: Lab, run_all_server: tuple[LabServer, Path, str], name: str
) -> None:
    _server, scratch, app = run_all_server
    assert _homes(scratch) == [], "a home left by an earlier test"
    driver = Notebook7(lab) if app == "notebook" else lab
    driver.open(name)
    _run_all(driver, "Run All")
    _widgets_show_their_trees(driver, "Run All")
    _stores(scratch, 1, "after Run All")
    _run_all(driver, "Run All again")
    _widgets_show_their_trees(driver, "Run All again")
    again = 1 if name == QUICKSTART else 2  # the quickstart's second run finds its turns
    _stores(scratch, again, "after Run All again")
    driver._await(_RESTART, driver.path, timeout_ms=KERNEL_READY_MS, what="restarting")
    driver.page.wait_for_function(_IDLE, arg=driver.path, timeout=KERNEL_READY_MS).dispose()
    _run_all(driver, "Restart & Run All")
    _widgets_show_their_trees(driver, "Restart & Run All")
    _stores(scratch, 1, "after Restart & Run All (the old kernel's homes went with it)")
    forests = driver.page.locator(f"[id='{driver.panel_id}'] [data-arborist-forest]")
    if forests.count():
        shoot(forests.first, f"{app}-run-all-{Path(name).stem}")
    if isinstance(driver, Notebook7):
        driver.assert_clean()
    else:
        driver.guard.assert_clean()
    driver.server.shut_down_kernels()
    deadline = time.monotonic() + GONE_S
    while _homes(scratch) and time.monotonic() < deadline:
        time.sleep(0.2)  # a process's exit: nothing in the page to wait on
    assert _homes(scratch) == [], "the kernel's exit removes its homes"
