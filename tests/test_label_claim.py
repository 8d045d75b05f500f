"""A turn's current label is a claim ``arborist verify`` checks: the one its last ``label``
event (a rename) gave it, else the one it was created with (committed in its hash).

Real homes (real SQLite files, the offline extractive model). A label edited with plain
sqlite3 used to pass ``verify``, while ``show`` and ``tree`` printed the edited label as
the turn's name.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arborist._facade.app import Arborist

DOC = (
    "# Spider-Man\n\n"
    "Spider-Man was created by writer Stan Lee and artist Steve Ditko.\n\n"
    "He first appeared in Amazing Fantasy #15 in August 1962.\n"
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    doc = tmp_path / "spider.md"
    doc.write_text(DOC, encoding="utf-8")
    home = tmp_path / "home"
    with Arborist(home) as app:
        app.ingest([str(doc)])
        first = app.ask_turn("Who created Spider-Man?", sid=None, label="first")
        app.ask_turn("When did Spider-Man first appear?", sid=first.node.sid)
    return home


def _problems(home: Path) -> list[str]:
    with Arborist(home) as app:
        return app.verify().problems


def _turns(home: Path) -> list[tuple[str, str, str | None]]:
    """``(sid, bates, label)`` of every turn that is not a root, in order."""
    with sqlite3.connect(home / "sessions.db") as conn:
        return conn.execute(
            "SELECT sid, bates, label FROM nodes WHERE seq > 0 ORDER BY id"
        ).fetchall()


def _edit_label(home: Path, bates: str, label: str | None) -> None:
    conn = sqlite3.connect(home / "sessions.db")
    with conn:
        conn.execute("UPDATE nodes SET label = ? WHERE bates = ?", (label, bates))
    conn.close()


def test_a_renamed_turns_label_edited_by_hand_is_named_by_verify(home: Path) -> None:
    (sid, first, _), (_, second, _) = _turns(home)
    with Arborist(home) as app:
        app.label(sid, "good", second)
        app.label(sid, "better", second)
        app.label(sid, "", first)  # a label taken off is a rename too
    assert _problems(home) == []
    _edit_label(home, second, "approved-by-reviewer")
    assert _problems(home) == [
        f"sessions.db: turn {second}: its label differs from the one its last label event gave it"
    ]
    _edit_label(home, second, "better")
    _edit_label(home, first, "first")  # back to its creation label, which a rename took off
    assert _problems(home) == [
        f"sessions.db: turn {first}: its label differs from the one its last label event gave it"
    ]


@pytest.mark.parametrize("edited", ["approved-by-reviewer", None])
def test_a_never_renamed_turns_label_edited_by_hand_is_named_by_verify(
    home: Path, edited: str | None
) -> None:
    (_, first, label), _ = _turns(home)
    assert label == "first"
    _edit_label(home, first, edited)
    assert _problems(home) == [
        f"sessions.db: turn {first}: its label differs from the one it was created with, and "
        "no label event renamed it"
    ]


def test_a_turn_renamed_where_it_came_from_is_renamed_here_by_an_event(
    home: Path, tmp_path: Path
) -> None:
    (sid, first, _), _ = _turns(home)
    with Arborist(home) as app:
        app.label(sid, "renamed-there", first)
        records = app.export_session(sid)
    other = tmp_path / "other"
    with Arborist(other) as app:
        app.import_sessions([json.dumps(r) for r in records])
        assert app.node(first, sid).label == "renamed-there"
    assert _problems(other) == []
    with sqlite3.connect(other / "sessions.db") as conn:
        events = conn.execute(
            "SELECT body FROM audit_events WHERE event_type = 'label' AND bates = ?", (first,)
        ).fetchall()
    assert [json.loads(body) for (body,) in events] == [
        {"label": "renamed-there", "previous": "first"}
    ]
    _edit_label(other, first, "first")
    assert _problems(other) == [
        f"sessions.db: turn {first}: its label differs from the one its last label event gave it"
    ]
