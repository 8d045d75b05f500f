"""A real JupyterLab on loopback, driven by Playwright through Debian's chromium.

``lab_server`` starts one JupyterLab for the session (root_dir, settings,
workspaces, runtime files and ARBORIST_HOME all in temporary folders) and
shuts it down through its REST API (per pytest-xdist worker). Each test module
gets a fresh chromium profile whose every request to a non-loopback host is
blocked and recorded, whose JS dialogs (``alert``) are recorded and dismissed,
and whose uncaught page errors are recorded: any of them fails the test that
runs when it happens. The module's tests share its page (``lab``): JupyterLab
loads once, and each test opens its notebook in it once the test before has
closed its tabs and shut its kernels down. A screenshot is saved next to the
test's tmp_path when a test fails, and the page is left blank, so the next test
loads JupyterLab anew.

JupyterLab is driven through ``window.jupyterapp`` (the server exposes it):
``docmanager:open`` to open a notebook, the session context to wait for the
kernel, ``notebook:run-cell`` to run one cell. Assertions are Playwright's
auto-waiting ``expect`` with named timeouts, never sleeps.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from playwright.sync_api import (
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Locator,
    Page,
    Playwright,
    Request,
    Route,
    WebSocket,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "arborist_nb" / "static"
JS_SOURCES = REPO / "js" / "src"  # absent from an installed package: nothing to compare
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
LOCAL_SCHEMES = frozenset({"data", "blob", "about"})  # never leave the page

# Named timeouts (milliseconds for Playwright, seconds for the server).
SERVER_START_S = 60.0
SERVER_STOP_S = 20.0
LAB_READY_MS = 60_000
KERNEL_READY_MS = 60_000
CELL_MS = 60_000
VIEWPORT = {"width": 1400, "height": 1000}  # each test starts with it

# Settings JupyterLab reads from JUPYTERLAB_SETTINGS_DIR (docs/design.md section 9):
# every cell rendered (off-screen widgets render too), no news toast, no update check.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives a real JupyterLab in headless chromium (tests/browser)"
    )


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item so ``lab`` can screenshot a failed test."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


# --- the server ----------------------------------------------------------------------------------


@dataclass
class LabServer:
    """A running JupyterLab: its URL, its root_dir (where notebooks go) and its log."""

    url: str
    root: Path
    log: Path
    homes: Path

    def write_notebook(self, name: str, cells: list[str]) -> str:
        """Write ``cells`` (code sources) as ``name`` into the root_dir; return its lab path.

        The first cell points this notebook's kernel at its own ARBORIST_HOME and
        loads the magics, so the notebooks never share a store.
        """
        home = self.homes / Path(name).stem
        setup = f"import os\nos.environ['ARBORIST_HOME'] = {str(home)!r}\n%load_ext arborist_nb"
        notebook = new_notebook(
            cells=[new_code_cell(source) for source in [setup, *cells]],
            metadata={
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
            },
        )
        nbformat.write(notebook, self.root / name)
        return name

    def shut_down_kernel(self, kernel: str) -> None:
        """Shut kernel ``kernel`` down through the REST API, as the Running panel does."""
        _request(self.url + f"api/kernels/{kernel}", method="DELETE", timeout=30.0)

    def shut_down_kernels(self) -> None:
        """End every session (and its kernel) so the next test starts from a quiet server."""
        for session in json.loads(_request(self.url + "api/sessions")):
            _request(self.url + f"api/sessions/{session['id']}", method="DELETE", timeout=30.0)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _request(url: str, method: str = "GET", timeout: float = 2.0) -> bytes:
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with _DIRECT.open(request, timeout=timeout) as response:
        return bytes(response.read())


def _wait_until_answering(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        try:
            _request(url + "api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        try:  # wait a little for the process: it doubles as "did it die?"
            code = process.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            continue
        raise RuntimeError(f"jupyter lab exited with {code}:\n{log.read_text(errors='replace')}")
    raise RuntimeError(
        f"jupyter lab did not answer {url}api/status in {SERVER_START_S:.0f} s:\n"
        + log.read_text(errors="replace")
    )


def _stop(url: str, process: subprocess.Popen[bytes]) -> None:
    """Shut down through the API (kernels first), then signals if it does not exit."""
    with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError):
        _request(url + "api/shutdown", method="POST")
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            process.send_signal(sig)
        try:
            process.wait(timeout=SERVER_STOP_S)
            return
        except subprocess.TimeoutExpired:
            continue


def _check_bundle() -> None:
    """The kernel loads the widget from the built bundle: a stale one would test old code."""
    bundle = STATIC / "widget.js"
    if not bundle.is_file():
        pytest.fail(f"{bundle} is missing: run `make js`")
    sources = [p for p in JS_SOURCES.glob("*") if p.suffix in {".js", ".css"}]
    newer = [p.name for p in sources if p.stat().st_mtime > bundle.stat().st_mtime]
    if newer:
        pytest.fail(f"{bundle} is older than js/src/{', '.join(sorted(newer))}: run `make js`")


APP_FLAGS = {
    "lab": "--LabApp.expose_app_in_browser=True",
    "notebook": "--JupyterNotebookApp.expose_app_in_browser=True",
}


def start_server(
    base: Path, app: str = "lab", env: dict[str, str] | None = None
) -> tuple[LabServer, subprocess.Popen[bytes]]:
    """Start ``jupyter lab`` or ``jupyter notebook`` (7) on loopback with every folder it
    writes under ``base`` (``env``: more of the server's, and so its kernels', environment);
    return once it answers. Used by the fixtures and by bench/widget.py."""
    root, settings, homes = base / "root", base / "settings", base / "homes"
    for folder in (root, settings, homes, base / "workspaces", base / "runtime", base / "config"):
        folder.mkdir()
    for relative, values in LAB_SETTINGS.items():  # Notebook 7 reads the lab settings dir too
        path = settings / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "IPYTHONDIR": str(base / "ipython"),
        "ARBORIST_HOME": str(homes / "default"),
        "PYTHONUNBUFFERED": "1",
        # The kernels import this checkout (and serve its widget bundle), not whichever one
        # an editable install points at: a worktree's browser tests test the worktree.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        **(env or {}),
    }
    command = [
        sys.executable,
        "-m",
        "jupyter",
        app,
        "--allow-root",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True",
        APP_FLAGS[app],
        f"--ServerApp.root_dir={root}",
    ]
    log = base / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, env=env
        )
    try:
        _wait_until_answering(url, process, log)
    except BaseException:
        _stop(url, process)
        raise
    return LabServer(url=url, root=root, log=log, homes=homes), process


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    _check_bundle()
    server, process = start_server(tmp_path_factory.mktemp("lab"), "lab")
    try:
        yield server
    finally:
        _stop(server.url, process)


# --- the browser ---------------------------------------------------------------------------------


@dataclass
class Guard:
    """What the page must never do: reach beyond loopback, open a dialog, throw."""

    offsite: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def note_request(self, url: str) -> bool:
        """Record ``url`` if it leaves loopback; True when it does."""
        parts = urlsplit(url)
        local = parts.scheme in LOCAL_SCHEMES or parts.hostname in LOOPBACK
        if not local and url not in self.offsite:
            self.offsite.append(url)
        return not local

    def reset(self) -> None:
        """Forget what was recorded: the next test on a shared page starts clean."""
        self.offsite.clear()
        self.dialogs.clear()
        self.page_errors.clear()

    def problems(self) -> list[str]:
        return (
            [f"request to a non-loopback host: {u}" for u in self.offsite]
            + [f"JS dialog opened: {d}" for d in self.dialogs]
            + [f"uncaught error in the page: {e}" for e in self.page_errors]
        )

    def assert_clean(self) -> None:
        problems = self.problems()
        assert not problems, "\n".join(problems)


# Installed once per page: a task table, so every long JS promise (open a notebook, run a
# cell) is awaited by Playwright's wait_for_function with a named timeout, never forever.
_HELPERS = """() => {
    const app = window.jupyterapp;
    window.__arb = {
        tasks: [],
        start(work) {
            const task = { done: false, value: null, error: null };
            this.tasks.push(task);
            Promise.resolve()
                .then(work)
                .then((value) => { task.value = value; task.done = true; },
                      (error) => { task.error = String((error && error.stack) || error);
                                   task.done = true; });
            return this.tasks.length - 1;
        },
        panel(path) {
            const panel = [...app.shell.widgets('main')].find(
                (w) => w.context !== undefined && w.context.path === path);
            if (panel === undefined) throw new Error(`${path} is not open`);
            return panel;
        },
    };
}"""

_OPEN = """async (path) => {
    const app = window.jupyterapp;
    await app.started;
    await app.restored;
    const panel = await app.commands.execute('docmanager:open', { path, factory: 'Notebook' });
    await panel.context.ready;
    await panel.sessionContext.ready;
    await panel.sessionContext.session.kernel.info;
    app.shell.activateById(panel.id);
    return panel.id;
}"""

_KERNEL_IDLE = """(path) => {
    const kernel = window.__arb.panel(path).sessionContext.session?.kernel;
    return kernel !== undefined && kernel !== null && kernel.status === 'idle';
}"""

_RUN_CELL = """async ({ path, index }) => {
    const app = window.jupyterapp;
    const panel = window.__arb.panel(path);
    app.shell.activateById(panel.id);
    const notebook = panel.content;
    notebook.activeCellIndex = index;
    notebook.deselectAll();
    await app.commands.execute('notebook:run-cell');
    const model = notebook.widgets[index].model;
    return { count: model.executionCount, outputs: model.outputs.toJSON() };
}"""


# What a test leaves open, closed as a person closes its tab (after _FORGET_CHANGES, so
# closing asks nothing). True when the main area is empty after and no dialog shows.
_CLOSE_ALL = """async () => {
    const app = window.jupyterapp;
    for (const widget of [...app.shell.widgets("main")]) widget.close();
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    return [...app.shell.widgets("main")].length === 0
        && document.querySelector(".jp-Dialog") === null;
}"""

_FORGET_CHANGES = """() => {
    const app = window.jupyterapp;
    if (!app) return;
    for (const widget of app.shell.widgets("main")) {
        const model = widget.context && widget.context.model;
        if (model) model.dirty = false;
    }
}"""


class Lab:
    """One chromium page on the lab server; JupyterLab is driven through ``window.jupyterapp``."""

    def __init__(self, page: Page, server: LabServer, guard: Guard) -> None:
        self.page = page
        self.server = server
        self.guard = guard
        self.path = ""
        self.panel_id = ""

    def _await(self, script: str, arg: Any, *, timeout_ms: float, what: str) -> Any:
        task = self.page.evaluate(f"(arg) => window.__arb.start(() => ({script})(arg))", arg)
        self.page.wait_for_function(
            "(task) => window.__arb.tasks[task].done", arg=task, timeout=timeout_ms
        ).dispose()
        result = self.page.evaluate("(task) => window.__arb.tasks[task]", task)
        if result["error"]:
            raise AssertionError(f"{what} failed in the page: {result['error']}")
        return result["value"]

    def loaded(self) -> bool:
        """True when the page is this server's JupyterLab, loaded, with the helpers installed."""
        if not self.page.url.startswith(self.server.url + "lab"):
            return False
        return bool(
            self.page.evaluate(
                "() => window.jupyterapp !== undefined && window.__arb !== undefined"
            )
        )

    def close_all(self) -> bool:
        """Close every open notebook (its changes forgotten); True when nothing is left open
        and no dialog shows, so the next test may open its notebook in this page."""
        if not self.loaded():
            return False
        self.page.evaluate(_FORGET_CHANGES)
        return bool(self._await(_CLOSE_ALL, None, timeout_ms=CELL_MS, what="closing the tabs"))

    def open(self, path: str, *, reload: bool = False) -> None:
        """Open ``path`` with ``docmanager:open`` and wait for its kernel to be ready and idle.

        In a page that already shows this server's JupyterLab with nothing open (the module's
        earlier test closed its tabs), the notebook opens there, as a person opens a second
        notebook; otherwise, or with ``reload``, JupyterLab is loaded anew first."""
        if reload or not self.close_all():
            self._load()
        self.panel_id = self._await(_OPEN, path, timeout_ms=KERNEL_READY_MS, what=f"opening {path}")
        self.page.wait_for_function(_KERNEL_IDLE, arg=path, timeout=KERNEL_READY_MS).dispose()
        self.path = path

    def _load(self) -> None:
        # A notebook that ran cells is dirty: leaving it would raise a beforeunload prompt,
        # which the guard dismisses, aborting the navigation. Its cells were run on purpose.
        self.page.evaluate(_FORGET_CHANGES)
        # ?reset: start from an empty workspace, not the previous test's open tabs.
        self.page.goto(self.server.url + "lab?reset", timeout=LAB_READY_MS)
        self.page.wait_for_function(
            "() => window.jupyterapp !== undefined", timeout=LAB_READY_MS
        ).dispose()
        self.page.evaluate(_HELPERS)

    def run(
        self, index: int, *, timeout_ms: float = CELL_MS, allow_usage_error: bool = False
    ) -> list[dict[str, Any]]:
        """Run cell ``index`` with ``notebook:run-cell``; fail on an error or a UsageError
        (unless ``allow_usage_error``: a refusal the test expects, one line on stderr)."""
        result = self._await(
            _RUN_CELL,
            {"path": self.path, "index": index},
            timeout_ms=timeout_ms,
            what=f"running cell {index}",
        )
        outputs: list[dict[str, Any]] = result["outputs"]
        assert result["count"] is not None, f"cell {index} did not run"
        for output in outputs:
            assert output["output_type"] != "error", (
                f"cell {index}: {output.get('ename')}: {output.get('evalue')}"
            )
            if output["output_type"] == "stream" and output["name"] == "stderr":
                text = (
                    "".join(output["text"]) if isinstance(output["text"], list) else output["text"]
                )
                assert "Traceback" not in text, f"cell {index}: {text}"
                assert allow_usage_error or "UsageError" not in text, f"cell {index}: {text}"
        return outputs

    def run_all(self, count: int) -> None:
        for index in range(count):
            self.run(index)

    def cell(self, index: int) -> Locator:
        """Locator of cell ``index`` of the open notebook."""
        return self.page.locator(f"[id='{self.panel_id}'] .jp-Notebook .jp-Cell").nth(index)


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} is missing: `apt-get install -y chromium` (never `playwright install`)"
        )
    driver = sync_playwright().start()
    try:
        yield driver
    finally:
        driver.stop()


@contextlib.contextmanager
def guarded_browser(
    driver: Playwright, profile: Path, guard: Guard
) -> Iterator[tuple[BrowserContext, Page]]:
    """A fresh headless chromium profile whose every request, dialog and uncaught error
    goes to ``guard``; requests beyond loopback are blocked. Removed on exit."""
    context = driver.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(CHROMIUM),
        args=CHROMIUM_ARGS,
        headless=True,
        service_workers="block",
        viewport=VIEWPORT,
    )
    try:

        def route(route: Route) -> None:
            if guard.note_request(route.request.url):
                route.abort("blockedbyclient")
            else:
                route.continue_()

        def on_request(sent: Request) -> None:
            guard.note_request(sent.url)

        def on_dialog(dialog: Dialog) -> None:
            guard.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()

        context.route("**/*", route)
        context.on("request", on_request)
        page = context.pages[0] if context.pages else context.new_page()
        page.on("dialog", on_dialog)
        page.on("pageerror", lambda error: guard.page_errors.append(str(error)))
        yield context, page
    finally:
        context.close()
        shutil.rmtree(profile, ignore_errors=True)


@dataclass
class SharedPage:
    """One guarded chromium page for a module's tests, and what its handlers record for the
    test that runs now (the guard and the console, cleared before each test)."""

    page: Page
    guard: Guard
    console: list[str]


@pytest.fixture(scope="module")
def shared_page(
    playwright_driver: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedPage]:
    """A fresh chromium profile for the module, guarded: loopback only, no dialogs, no throws.
    Its tests share the page, so JupyterLab loads once per module (loading it is most of a
    short test's cost: about 4.5 CPU-seconds, against 1 to open a notebook in it)."""
    guard = Guard()
    console: list[str] = []
    profile = tmp_path_factory.mktemp("chromium") / "profile"
    with guarded_browser(playwright_driver, profile, guard) as (_ctx, page):

        def on_websocket(socket: WebSocket) -> None:
            guard.note_request(socket.url)

        def on_console(message: ConsoleMessage) -> None:
            if message.type in {"error", "warning"}:
                console.append(f"{message.type}: {message.text}")

        page.on("websocket", on_websocket)
        page.on("console", on_console)
        yield SharedPage(page, guard, console)


@pytest.fixture
def lab(
    shared_page: SharedPage, lab_server: LabServer, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Lab]:
    """The module's page on the lab server, its guard and console cleared for this test.

    The test opens its notebook in the JupyterLab the module's earlier test left loaded, with
    every tab closed (``Lab.open``); after it, its tabs are closed and its kernels shut down.
    A test that fails leaves the page blank, so the next one loads JupyterLab anew."""
    page, guard, console = shared_page.page, shared_page.guard, shared_page.console
    guard.reset()
    console.clear()
    page.set_viewport_size(VIEWPORT)
    lab = Lab(page, lab_server, guard)
    try:
        yield lab
        call = getattr(request.node, "report_call", None)
        if call is not None and call.failed:
            shot, dom = tmp_path / "failure.png", tmp_path / "failure.html"
            page.screenshot(path=str(shot), full_page=True)
            dom.write_text(page.content(), encoding="utf-8")
            request.node.add_report_section(
                "teardown",
                "browser",
                f"screenshot: {shot}\npage: {dom}\nserver log: {lab_server.log}\n"
                "console:\n" + "\n".join(console),
            )
            _blank(lab)
        else:  # what the test did is judged; closing a dead kernel's tab throws in JupyterLab
            problems = guard.problems()
            closed = _closed(lab)
            if problems or not closed:
                _blank(lab)
            if call is not None and call.passed and problems:
                pytest.fail("\n".join(problems))
    finally:
        lab_server.shut_down_kernels()


def _closed(lab: Lab) -> bool:
    """Close the test's tabs before its kernels go; False if that could not be done."""
    try:
        return lab.close_all()
    except (AssertionError, PlaywrightError):
        return False


def _blank(lab: Lab) -> None:
    """Leave the page (its changes forgotten), so the next test loads JupyterLab anew."""
    with contextlib.suppress(PlaywrightError):
        lab.page.evaluate(_FORGET_CHANGES)
        lab.page.goto("about:blank", timeout=LAB_READY_MS)


def shoot(locator: Locator, name: str) -> None:
    """Save ``locator`` as ``name``.png when ARBORIST_SHOTS names a folder."""
    folder = os.environ.get("ARBORIST_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        locator.screenshot(path=str(Path(folder) / f"{name}.png"))
