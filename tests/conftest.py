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
    config.addinivalue_line(
        "markers",
        "bundle: rebuilds arborist_nb/static, the widget bundle the browser tests load "
        "(under pytest-xdist it runs on their worker, never beside them)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``make test`` runs ``-n 2 --dist loadgroup``) the browser tests
    run one after another on one worker, as they were written to (one JupyterLab and one
    chromium at a time, their timeouts set for that), with the tests that rebuild the
    bundle they load; the other worker takes everything else."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("browser") or item.get_closest_marker("bundle"):
            item.add_marker(pytest.mark.xdist_group("browser"))


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
