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


# What runs one test at a time, on one pytest-xdist worker (``make test`` runs ``-n 2``):
# the browser tests, written for one JupyterLab and one chromium at a time (their timeouts
# set for that), the bench smoke run that drives JupyterLab and chromium too, and the wheel
# build, whose hook rewrites the widget bundle the browser tests load. The other worker
# takes every other test, one at a time, as the load mode would.
ONE_WORKER = (
    "tests/browser/",
    "tests/test_bench_smoke.py::test_bench_script_runs_quick[widget]",
    "tests/test_packaging.py::test_the_wheel_contains_the_widget_bundle_and_installs_without_node",
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's load-scope scheduler with one scope for :data:`ONE_WORKER` and one for each
    other test. (``--dist loadgroup`` would say the same with marks, but its grouping
    renames node ids, which pytest 9.2 no longer lets it do: it silently groups nothing.)"""
    from xdist.scheduler import LoadScopeScheduling

    class OneWorkerForTheBrowser(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "one worker" if nodeid.startswith(ONE_WORKER) else nodeid

    return OneWorkerForTheBrowser(config, log)


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
