"""What the forged-export tests share: a one-page document, the question it answers, and
a session's export as records to edit and as the JSON Lines an import reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arborist._facade.app import Arborist

__all__ = ["DOC", "QUESTION", "answered_turn", "doc", "export_records", "jsonl"]

DOC = (
    "# Spider-Man\n\n"
    "Spider-Man was created by writer Stan Lee and artist Steve Ditko.\n\n"
    "He first appeared in Amazing Fantasy #15 in August 1962.\n"
)
QUESTION = "Who created Spider-Man?"


@pytest.fixture(name="doc")
def doc(tmp_path: Path) -> Path:
    """:data:`DOC` as a Markdown file in the test's folder."""
    path = tmp_path / "spider.md"
    path.write_text(DOC, encoding="utf-8")
    return path


def export_records(home: Path) -> list[dict[str, Any]]:
    """The export of ``home``'s one session, as records."""
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        return app.export_session(session.sid)


def jsonl(records: list[dict[str, Any]]) -> list[str]:
    """``records`` as the lines of an export file."""
    return [json.dumps(r, ensure_ascii=False) for r in records]


def answered_turn(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The first turn of an export that is not its session's root."""
    return next(r for r in records if r["type"] == "node" and r["parent_bates"] is not None)
