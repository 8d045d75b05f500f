"""Shared fixtures: every test gets its own ARBORIST_HOME; vectors load from tests/vectors.

``pytest --long`` (or ``make test-long``) runs the fault, fuzz and concurrency
suites at full size: the ``scale`` fixture says which size to use, and the
Hypothesis profile ``long`` multiplies every property's examples by 10.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.kernels import serve_nbval_over_ipc

VECTORS = Path(__file__).parent / "vectors"

settings.register_profile("long", max_examples=1000, deadline=None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--long",
        action="store_true",
        default=False,
        help="run the crash, concurrency, tamper and fuzz suites at full size",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--long"):
        settings.load_profile("long")
    serve_nbval_over_ipc()  # the notebooks' kernels: no TCP port another test can take


# How ``make test``'s pytest-xdist workers (three, on two cores) share the tests: each browser
# module is one scope, run whole on one worker (its fixtures start a JupyterLab, or a Notebook
# 7, once for the module's tests, and the worker's own JupyterLab serves the rest); every
# other test is a scope of its own. At most BROWSER_STREAMS workers hold browser modules at
# once, so at most two chromiums run (the browser tests' timeouts are set for that), and the
# others take the tests that need the processor while the browser tests wait on the page
# (measured idle: the browser tests alone keep two cores 53% busy). ``make test`` runs the
# notebooks (nbval) in the same run: each notebook is one scope too (its cells run in order
# on one kernel), queued right after the browser modules so that none is left for the end.
BROWSER = "tests/browser/"
BROWSER_STREAMS = 2
NOTEBOOK = ".ipynb::"


def _whole(nodeid: str) -> bool:
    """Whether a test runs in one scope with the rest of its file: a browser module's, or a
    notebook's cells."""
    return nodeid.startswith(BROWSER) or NOTEBOOK in nodeid


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The notebooks' cells right after the browser modules (kept in their order), so the
    scheduler hands them out early rather than last."""

    def rank(item: pytest.Item) -> int:
        return 0 if item.nodeid.startswith(BROWSER) else 1 if NOTEBOOK in item.nodeid else 2

    items.sort(key=rank)  # a stable sort: each group keeps its order


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's load-scope scheduler with one scope for each browser module and one for each
    other test, the browser modules held by at most :data:`BROWSER_STREAMS` workers at a
    time. (``--dist loadgroup`` would say the same with marks, but its grouping renames
    node ids, which pytest 9.2 no longer lets it do: it silently groups nothing.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ModulesForTheBrowser(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid.split("::", 1)[0] if _whole(nodeid) else nodeid

        def _holds_browser_work(self, node: Any) -> bool:
            return any(
                scope.startswith(BROWSER) and not all(done.values())
                for scope, done in self.assigned_work.get(node, {}).items()
            )

        def _assign_work_unit(self, node: Any) -> None:
            """The queue's first scope, unless it is a browser module and this worker holds
            none while enough others do: then the first other scope, if one is left."""
            if not next(iter(self.workqueue)).startswith(BROWSER):  # so once they are all out
                return super()._assign_work_unit(node)  # the assigned scopes are not scanned
            holders = sum(self._holds_browser_work(n) for n in self.assigned_work if n is not node)
            if holders >= BROWSER_STREAMS and not self._holds_browser_work(node):
                other = next((s for s in self.workqueue if not s.startswith(BROWSER)), None)
                if other is not None:
                    self.workqueue.move_to_end(other, last=False)
            super()._assign_work_unit(node)

    return ModulesForTheBrowser(config, log)


@pytest.fixture(scope="session")
def long_run(request: pytest.FixtureRequest) -> bool:
    """True under ``pytest --long``: suites pick their bigger size."""
    return bool(request.config.getoption("--long"))


def load_vectors(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty, private ARBORIST_HOME (and cache folder) for each test: no test sees another's
    files."""
    path = tmp_path / "home"
    monkeypatch.setenv("ARBORIST_HOME", str(path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the local model's ONNX graph
    monkeypatch.delenv("ARBORIST_COACCESS", raising=False)  # off unless a test turns it on
    return path
