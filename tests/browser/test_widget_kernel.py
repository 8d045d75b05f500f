"""The forest widget over its kernel's life, in a real JupyterLab (issue #35, point 4): a
restart, a kernel killed, one shut down, and the notebook opened anew with a new kernel.
Each time, within 5 s, one plain sentence says what happened and to re-run `%arborist`;
never "in sync" while the link is down."""

from __future__ import annotations

import os
import signal

import pytest
from playwright.sync_api import Locator, expect

from tests.browser.conftest import KERNEL_READY_MS, Lab, shoot
from tests.browser.test_lab import ANSWER_CELLS, forest_in, write_documents

pytestmark = pytest.mark.browser

SAID_MS = 5_000  # the bound: the widget says what happened within 5 s
RESTARTED = "the kernel restarted, so this widget lost its kernel side: re-run the cell"
STOPPED = "the kernel stopped or is disconnected: start it again, then re-run the cell"
HINT = "re-run this cell (%arborist) to show it"

CELLS = [*ANSWER_CELLS, "%arborist", "import os\nos.getpid()"]
WIDGET = 3  # the cell of %arborist (after the setup cell and ANSWER_CELLS)

_RESTART_NOW = """(path) => {
    window.__arb.panel(path).sessionContext.session.kernel.restart();  // not awaited
}"""

_RESTART = """async (path) => {
    await window.__arb.panel(path).sessionContext.session.kernel.restart();
}"""

_CHANGE = """async (path) => {
    await window.__arb.panel(path).sessionContext.changeKernel({ name: 'python3' });
}"""

_IDLE = """(path) => window.__arb.panel(path).sessionContext.session?.kernel?.status === 'idle'"""

_KERNEL_ID = """(path) => window.__arb.panel(path).sessionContext.session.kernel.id"""

_SAVE = """async (path) => { await window.__arb.panel(path).context.save(); }"""


def _live_widget(lab: Lab) -> Locator:
    lab.run_all(len(CELLS) + 1)
    forest, _tree = forest_in(lab, WIDGET)
    status = forest.get_by_role("status", name="Status", exact=True)
    expect(status).to_contain_text("in sync")
    expect(
        lab.cell(WIDGET).locator(".arborist-widget-hint"), "hidden by a live widget"
    ).to_be_hidden()
    return forest


def _says(forest: Locator, words: str) -> None:
    status = forest.get_by_role("status", name="Status", exact=True)
    expect(status, "said within 5 s").to_contain_text(words, timeout=SAID_MS)
    expect(status).to_have_attribute("data-status", "error")
    expect(status).not_to_contain_text("in sync")
    expect(status).not_to_contain_text("could not send")
    expect(forest).to_have_attribute("data-link", "closed")


def test_a_restart_is_said_at_once_and_how_to_recover(lab: Lab) -> None:
    write_documents(lab)
    lab.open(lab.server.write_notebook("kernel-restart.ipynb", CELLS))
    forest = _live_widget(lab)
    lab.page.evaluate(_RESTART_NOW, lab.path)
    _says(forest, RESTARTED)
    # What would send to the lost kernel is disabled; the tree and the shown answer stay.
    expect(forest.get_by_role("button", name="Find", exact=True)).to_be_disabled()
    expect(forest.get_by_label("Search all sessions")).to_be_disabled()
    shoot(forest, "lab-kernel-restarted")
    lab.page.wait_for_function(
        "(path) => window.__arb.panel(path).sessionContext.session.kernel.status === 'idle'",
        arg=lab.path,
        timeout=KERNEL_READY_MS,
    ).dispose()
    _says(forest, RESTARTED)  # a poll later, still what happened, never "in sync"
    for index in range(WIDGET + 1):  # re-run the cells down to %arborist: a live widget again
        lab.run(index)
    fresh, _tree = forest_in(lab, WIDGET)
    expect(fresh).not_to_have_attribute("data-link", "closed")
    lab.guard.assert_clean()


def test_a_killed_kernel_is_said_at_once(lab: Lab) -> None:
    write_documents(lab)
    lab.open(lab.server.write_notebook("kernel-death.ipynb", CELLS))
    forest = _live_widget(lab)
    pid = int(lab.run(WIDGET + 1)[0]["data"]["text/plain"])
    os.kill(pid, signal.SIGKILL)  # the server restarts a dead kernel by itself
    _says(forest, "re-run the cell")
    status = forest.get_by_role("status", name="Status", exact=True)
    assert any(words in (status.text_content() or "") for words in (RESTARTED, STOPPED))
    shoot(forest, "lab-kernel-killed")
    lab.guard.assert_clean()


@pytest.mark.parametrize("how", ["restart", "kill", "change"])
def test_a_kernel_shut_down_from_elsewhere_after_a_restart_is_said_at_once(
    lab: Lab, how: str
) -> None:
    """Restarted (the Restart command, killed and restarted by the server, or changed for a
    new kernel, whose connection is a new object in the page), the widget
    shown again is live; then the kernel is shut down through the server's REST API (as
    the Running panel or another page does): said within 5 s, never "in sync"."""
    write_documents(lab)
    lab.open(lab.server.write_notebook(f"kernel-shut-{how}.ipynb", CELLS))
    forest = _live_widget(lab)
    if how == "restart":
        lab._await(_RESTART, lab.path, timeout_ms=KERNEL_READY_MS, what="restarting the kernel")
    elif how == "change":  # Kernel > Change Kernel: a new kernel, a new connection object
        lab._await(_CHANGE, lab.path, timeout_ms=KERNEL_READY_MS, what="changing the kernel")
    else:
        os.kill(int(lab.run(WIDGET + 1)[0]["data"]["text/plain"]), signal.SIGKILL)
    _says(forest, "re-run the cell")
    lab.page.wait_for_function(_IDLE, arg=lab.path, timeout=KERNEL_READY_MS).dispose()
    for index in range(WIDGET + 1):
        lab.run(index)
    fresh, _tree = forest_in(lab, WIDGET)
    status = fresh.get_by_role("status", name="Status", exact=True)
    expect(status, "the widget shown again is live").to_contain_text("in sync")
    lab.server.shut_down_kernel(lab.page.evaluate(_KERNEL_ID, lab.path))
    _says(fresh, STOPPED)
    shoot(fresh, f"lab-kernel-shut-down-after-{how}")
    lab.guard.assert_clean()


def test_a_notebook_opened_anew_says_to_re_run_the_widgets_cell(lab: Lab) -> None:
    write_documents(lab)
    lab.open(lab.server.write_notebook("kernel-reopen.ipynb", CELLS))
    _live_widget(lab)
    lab._await(_SAVE, lab.path, timeout_ms=KERNEL_READY_MS, what="saving")
    lab.server.shut_down_kernels()
    lab.open(lab.path, reload=True)  # a new page, a new kernel: the widget's model is gone
    hint = lab.cell(WIDGET).locator(".arborist-widget-hint")
    expect(hint, "the line says what to do").to_be_visible(timeout=SAID_MS)
    expect(hint).to_contain_text(HINT)
    shoot(lab.cell(WIDGET), "lab-reopened")
    lab.run(0)
    lab.run(WIDGET)
    forest_in(lab, WIDGET)
    expect(hint, "a live widget hides it").to_be_hidden()
    lab.guard.assert_clean()
