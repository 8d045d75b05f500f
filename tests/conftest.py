"""Shared fixtures: every test gets its own ARBORIST_HOME; vectors load from tests/vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

VECTORS = Path(__file__).parent / "vectors"


def load_vectors(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty, private ARBORIST_HOME for each test: no test sees another's files."""
    path = tmp_path / "home"
    monkeypatch.setenv("ARBORIST_HOME", str(path))
    monkeypatch.delenv("ARBORIST_COACCESS", raising=False)  # off unless a test turns it on
    return path
