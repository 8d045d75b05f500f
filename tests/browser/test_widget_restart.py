"""Restart & Run All in a real JupyterLab (issue #25, point 8): the notebook goes on in its
own session (Jupyter Server tells the kernel the notebook's path), says so in one line,
and the widget shows the same session with both runs' turns."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import KERNEL_READY_MS, Lab, shoot
from tests.browser.test_lab import RENDER_MS, answer_bates, forest_in, row

pytestmark = pytest.mark.browser

CELLS = [
    "%arborist ingest --demo",
    "%%ask\nWhat does statistics.median return?",
    "%%ask --no-cache\nWhat does statistics.median return?",
    "%arborist",
]

_RESTART = """async (path) => {
    const kernel = window.__arb.panel(path).sessionContext.session.kernel;
    await kernel.restart();
    return kernel.status;
}"""


def _sid(bates: str) -> str:
    return bates.rsplit("-", 1)[0]


def test_restart_and_run_all_continues_the_notebooks_session(lab: Lab) -> None:
    lab.open(lab.server.write_notebook("restart.ipynb", CELLS))
    lab.run_all(len(CELLS) + 1)
    before = answer_bates(lab, 2)
    lab._await(_RESTART, lab.path, timeout_ms=KERNEL_READY_MS, what="restarting the kernel")
    lab.page.wait_for_function(
        "(path) => window.__arb.panel(path).sessionContext.session.kernel.status === 'idle'",
        arg=lab.path,
        timeout=KERNEL_READY_MS,
    ).dispose()
    outputs = [o for index in range(3) for o in lab.run(index)]
    said = "".join(
        "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
        for o in outputs
        if o["output_type"] == "stream"
    )
    assert f"continuing this notebook's session {_sid(before)} (restart.ipynb" in said, said
    lab.run(3)
    after = answer_bates(lab, 3)
    assert _sid(after) == _sid(before), "Restart & Run All went on in the notebook's session"
    lab.run(4)
    forest, tree = forest_in(lab, 4)
    expect(row(tree, before), "the first run's turn is in the tree").to_be_visible(
        timeout=RENDER_MS
    )
    expect(row(tree, after)).to_be_visible(timeout=RENDER_MS)
    shoot(forest, "lab-after-restart")
    lab.guard.assert_clean()
