"""The quickstart run as a person runs it with a chat model that writes Markdown (issue #35,
points 1, 2 and 9): Run All, Run All again, Restart & Run All, in JupyterLab and in
Notebook 7, every answer from a real OpenAI-compatible server on loopback whose streamed
answers carry code spans, bold, a list and a link around their citations.

After each run, as in ``test_run_all``: no error, no traceback, every widget shows its tree
in sync, only the live kernel's homes in the temporary folder (none once it is shut down).
And the Markdown is rendered, never shown as characters, in every ``%%ask`` output and in
the widget's detail. Screenshots of an answer and of the widget, light and dark, in both
front ends (ARBORIST_SHOTS).
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

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
from tests.browser.test_run_all import (
    _IDLE,
    _RESTART,
    GONE_S,
    _homes,
    _run_all,
    _stores,
    _widgets_show_their_trees,
)
from tests.browser.test_widget_look import set_theme
from tests.chat_server import _HEADER, ROUTE, ChatServer, RecordedRequest, Reply, stream_reply

pytestmark = pytest.mark.browser

QUICKSTART = "01-quickstart.ipynb"
MODEL = "markdown-writer"
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


def markdown_answer(label: str) -> str:
    """What a chat model writes: Markdown around its citations, one mid-sentence."""
    return (
        f"The evidence says it: `median()` returns **the middle value** [{label}] of the "
        "data, *sorted*.\n\n"
        f"- an empty list raises `StatisticsError` [{label}]\n"
        "- see [the docs](https://docs.python.org/3/library/statistics.html)\n"
    )


class MarkdownServer(ChatServer):
    """A chat server whose every chat answer is :func:`markdown_answer`, citing the first
    evidence label of the prompt, streamed word by word when the client streams."""

    def answer(self, request: RecordedRequest) -> Reply:
        reply = super().answer(request)  # records it; the script is empty
        body = request.body if isinstance(request.body, dict) else {}
        if request.path != ROUTE or not body.get("stream"):
            return reply
        messages = body.get("messages") or [{}]
        header = _HEADER.search(str(messages[-1].get("content", "")))
        label = header.group()[1:].split(" ", 1)[0] if header else "E1"
        return stream_reply(re.split(r"(?<=\S)(?=\s)", markdown_answer(label)), model=MODEL)


@pytest.fixture(scope="module", params=["lab", "notebook"])
def markdown_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LabServer, Path, str, MarkdownServer]]:
    """A JupyterLab or Notebook 7 server whose kernels answer with the Markdown model (its
    ``openai`` profile from the environment) and keep their temporary files in ``TMPDIR``."""
    _check_bundle()
    chat = MarkdownServer()
    chat.start()
    base = tmp_path_factory.mktemp(f"run-all-markdown-{request.param}")
    scratch = base / "tmp"
    scratch.mkdir()
    env = {"TMPDIR": str(scratch), "ARBORIST_NB_HOME": "", "ARBORIST_LLM": "openai",
           "ARBORIST_BASE_URL": chat.url, "ARBORIST_MODEL": MODEL}  # fmt: skip
    try:
        server, process = start_server(base, request.param, env)
        shutil.copy(REPO / "notebooks" / QUICKSTART, server.root / QUICKSTART)
        try:
            yield server, scratch, request.param, chat
        finally:
            _stop(server.url, process)
    finally:
        chat.stop()


@pytest.fixture
def lab_server(markdown_server: tuple[LabServer, Path, str, MarkdownServer]) -> LabServer:
    """Here the conftest ``lab`` fixture drives this module's server."""
    return markdown_server[0]


def _markdown_rendered(lab: Lab, what: str) -> None:
    """Every ``%%ask`` answer and the widget's open answer show the Markdown rendered."""
    answers = lab.page.locator(f"[id='{lab.panel_id}'] .arborist-answer")
    assert answers.count() >= 5, f"{what}: {answers.count()} answers"
    for index in range(answers.count()):
        answer = answers.nth(index)
        expect(answer.locator("strong").first, f"{what}: answer {index}").to_have_text(
            "the middle value", timeout=RENDER_MS
        )
        expect(answer.locator("code").first).to_have_text("median()")
        expect(answer.locator("li"), f"{what}: answer {index}'s list").to_have_count(2)
        expect(answer.locator("a[href^='https://docs.python.org/']")).to_have_text("the docs")
        for raw in ("**the middle value**", "`median()`", "](https://"):
            expect(answer, f"{what}: no Markdown left as characters").not_to_contain_text(raw)
    forest = lab.page.locator(f"[id='{lab.panel_id}'] [data-arborist-forest]").first
    said = forest.get_by_role("region", name="Node detail").get_by_label("Answer", exact=True)
    expect(said.locator("strong").first, f"{what}: the widget").to_have_text(
        "the middle value", timeout=RENDER_MS
    )
    expect(said.locator("li")).to_have_count(2)
    expect(said).not_to_contain_text("**the middle value**")


def _shoot_themes(lab: Lab, app: str) -> None:
    answer = lab.page.locator(f"[id='{lab.panel_id}'] .arborist-answer").first
    forest = lab.page.locator(f"[id='{lab.panel_id}'] [data-arborist-forest]").first
    for slug, theme in THEMES.items():
        set_theme(lab, theme)
        answer.scroll_into_view_if_needed()
        shoot(answer.locator("xpath=ancestor::*[contains(@class,'jp-OutputArea')][1]"),
              f"{app}-quickstart-markdown-answer-{slug}")  # fmt: skip
        forest.scroll_into_view_if_needed()
        shoot(forest, f"{app}-quickstart-markdown-widget-{slug}")
    set_theme(lab, THEMES["light"])


def test_the_quickstart_with_a_markdown_model_run_all_twice_then_restart_and_run_all(
    lab: Lab, markdown_server: tuple[LabServer, Path, str, MarkdownServer]
) -> None:
    _server, scratch, app, chat = markdown_server
    assert _homes(scratch) == [], "a home left by an earlier test"
    driver = Notebook7(lab) if app == "notebook" else lab
    driver.open(QUICKSTART)
    _run_all(driver, "Run All")
    _widgets_show_their_trees(driver, "Run All")
    _markdown_rendered(driver, "Run All")
    assert chat.requests > 0, "the model was asked"
    _stores(scratch, 1, "after Run All")
    asked = sum(r.path == ROUTE for r in chat.received)  # the chat calls: answers paid for
    _run_all(driver, "Run All again")
    _widgets_show_their_trees(driver, "Run All again")
    _markdown_rendered(driver, "Run All again")
    _stores(scratch, 1, "after Run All again (the kernel's home, reused)")
    again = sum(r.path == ROUTE for r in chat.received)  # (a profile's probes may repeat)
    assert again == asked, "run again, every answer is found where it was: no model call"
    driver._await(_RESTART, driver.path, timeout_ms=KERNEL_READY_MS, what="restarting")
    driver.page.wait_for_function(_IDLE, arg=driver.path, timeout=KERNEL_READY_MS).dispose()
    _run_all(driver, "Restart & Run All")
    _widgets_show_their_trees(driver, "Restart & Run All")
    _markdown_rendered(driver, "Restart & Run All")
    _stores(scratch, 1, "after Restart & Run All (the old kernel's homes went with it)")
    _shoot_themes(driver, app)
    assert not chat.errors, chat.errors
    if isinstance(driver, Notebook7):
        driver.assert_clean()
    else:
        driver.guard.assert_clean()
    driver.server.shut_down_kernels()
    deadline = time.monotonic() + GONE_S
    while _homes(scratch) and time.monotonic() < deadline:
        time.sleep(0.2)  # a process's exit: nothing in the page to wait on
    assert _homes(scratch) == [], "the kernel's exit removes its homes"
