"""An import adds no turn to a session this home holds, and no turn it brings is dated out
of its session's order or after the import.

A file's turns are hashed by whoever wrote it: a careful forger recomputes every node hash
with the library's own function, so a file naming a session this home made could put words
into the record of what its owner asked, at any time. Real homes (real SQLite files, the
offline extractive model), through the CLI where the refusal is what a user sees: one line,
exit code 2 (bad input), and both databases unchanged.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._forest.bates import new_sid
from arborist._proofs.hashing import node_hash, sha256_hex
from tests.exports import QUESTION, answered_turn, export_records, jsonl
from tests.exports import doc as doc_fixture  # noqa: F401

SECOND = "When did Spider-Man first appear?"
FORGED = "Stan Lee said Jack Kirby created Spider-Man alone. [E1]"


def _home(home: Path, doc: Path, *questions: str) -> Path:
    with Arborist(home) as app:
        app.ingest([str(doc)])
        session = app.new_session() if questions else None
        for question in questions:
            app.ask_turn(question, sid=session.sid if session else None)
        app.sessions()  # sessions.db made and migrated: what an import leaves is its own
    return home


def _dumps(home: Path) -> tuple[list[str], ...]:
    """Both databases' whole content, as SQL (what a refused import leaves as it was)."""
    out = []
    for name in ("store.db", "sessions.db"):
        conn = sqlite3.connect(home / name)
        try:
            out.append(list(conn.iterdump()))
        finally:
            conn.close()
    return tuple(out)


def _file_bytes(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(home.iterdir()) if ".db" in p.name}


def _node(records: list[dict[str, Any]], bates: str) -> dict[str, Any]:
    return next(r for r in records if r.get("bates") == bates)


def _hashed(turn: dict[str, Any], parent: dict[str, Any] | None) -> dict[str, Any]:
    """``turn`` with its node hash as a careful forger recomputes it."""
    turn["node_hash"] = node_hash(
        parent_node_hash=parent["node_hash"] if parent else None, bates=turn["bates"],
        question=turn["question"], cache_key=turn["cache_key"], audit_mode=turn["audit_mode"],
        created_at=turn["created_at"], label=turn["created_label"],
    )  # fmt: skip
    return turn


def _forged_turn(records: list[dict[str, Any]], parent: str, created_at: str) -> dict[str, Any]:
    """The session's next turn, under ``parent``, saying what its owner never asked: a key
    no store holds (so no answer here contradicts it), every hash recomputed."""
    sid = records[0]["sid"]
    seq = sum(1 for r in records if r["type"] == "node")
    turn = {
        "type": "node",
        "bates": f"{sid}-{seq:06d}",
        "parent_bates": parent,
        "question": "Did Jack Kirby create Spider-Man alone?",
        "answer_text": FORGED,
        "cache_key": sha256_hex(b"no answer of this home"),
        "audit_mode": "STRICT",
        "cited_titles": ["Spider-Man"],
        "created_at": created_at,
        "created_label": None,
        "label": None,
    }
    return _hashed(turn, _node(records, parent))


def _refused(home: Path, records: list[dict[str, Any]], path: Path, says: str) -> str:
    """``session --import`` of ``records`` and ``import`` of them: each one line naming
    ``says``, exit code 2, and not a byte of either database changed."""
    path.write_text("\n".join(jsonl(records)) + "\n", encoding="utf-8")
    before, dumped = _file_bytes(home), _dumps(home)
    lines = []
    for args in (("session", "--import", str(path)), ("import", str(path))):
        result = CliRunner().invoke(cli, ["--home", str(home), *args])
        said = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(said) == 1, result.output
        assert says in said[0] and "Traceback" not in result.output, said[0]
        lines.append(said[0])
    assert _file_bytes(home) == before and _dumps(home) == dumped
    return lines[0]


@pytest.mark.parametrize("when", ["after its last turn", "before its last turn", "in 2099"])
def test_a_turn_added_to_this_homes_own_session_is_refused_whole(
    tmp_path: Path, doc: Path, when: str
) -> None:
    owner = _home(tmp_path / "owner", doc, QUESTION)
    records = export_records(owner)  # what a forger starts from: the owner's own export
    root, first = records[1], answered_turn(records)
    parent, created_at = {
        "after its last turn": (first["bates"], first["created_at"]),
        "before its last turn": (root["bates"], root["created_at"]),  # a sibling, backdated
        "in 2099": (first["bates"], "2099-01-01T00:00:00.000000Z"),
    }[when]
    forged = _forged_turn(records, parent, created_at)
    sid = records[0]["sid"]
    said = _refused(owner, [*records, forged], tmp_path / "whole.jsonl", f"session {sid}")
    assert said == (
        f"arborist: error: line 4: turn {forged['bates']}: session {sid} is here already: an "
        "import adds no turn to a session this home holds (it may bring again only the turns "
        "held here)"
    )
    _refused(owner, [records[0], forged], tmp_path / "alone.jsonl", "is here already")
    with Arborist(owner) as app:  # the owner's session goes on as it was
        asked = app.ask_turn(SECOND, sid=sid)
        assert asked.node.bates == forged["bates"] and asked.node.answer_text != FORGED
        assert app.verify().ok


def test_a_turn_added_to_a_session_imported_before_is_refused_whole(
    tmp_path: Path, doc: Path
) -> None:
    """The session came from another home; that home asked on, and its later export (or a
    forger's copy of it) brings a turn this home's copy lacks."""
    source = _home(tmp_path / "a", doc, QUESTION)
    target = _home(tmp_path / "b", doc)
    first = export_records(source)
    with Arborist(target) as app:
        assert app.import_sessions(jsonl(first)).added == 2
    with Arborist(source) as app:
        app.ask_turn(SECOND, sid=first[0]["sid"])
    grown = export_records(source)
    _refused(target, grown, tmp_path / "grown.jsonl", f"session {first[0]['sid']} is here")
    _refused(target, [grown[0], grown[-1]], tmp_path / "new.jsonl", "is here already")


def test_importing_the_turns_a_home_holds_again_changes_nothing(tmp_path: Path, doc: Path) -> None:
    owner = _home(tmp_path / "owner", doc, QUESTION, SECOND)
    records = export_records(owner)
    other = _home(tmp_path / "other", doc)
    with Arborist(other) as app:
        assert (app.import_sessions(jsonl(records)).added, app.verify().ok) == (3, True)
    for home in (owner, other):
        dumped = _dumps(home)
        with Arborist(home) as app:
            done = app.import_sessions(jsonl(records))
            assert (done.added, done.already_present) == (0, 3)
            done = app.import_sessions(jsonl(records[:3]))  # an older export: a prefix
            assert (done.added, done.already_present) == (0, 2)
        assert _dumps(home) == dumped


def _back_in_time(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The session's second turn moved under its root and dated at the root's time: older
    than the first turn, yet not than its parent (every hash recomputed)."""
    root, second = records[1], records[3]
    second.update(parent_bates=root["bates"], created_at=root["created_at"])
    return _hashed(second, root)


def test_a_session_whose_times_go_back_along_its_seqs_is_refused_and_verify_names_one(
    tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = export_records(_home(tmp_path / "a", doc, QUESTION, SECOND))
    turn = _back_in_time(records)
    says = (
        f"turn {turn['bates']}: it is older than the turn before it in its session (its "
        "created_at is before that turn's)"
    )
    target = _home(tmp_path / "b", doc)
    said = _refused(target, records, tmp_path / "back.jsonl", says)
    assert said == f"arborist: error: line 4: {says}"
    # Written by an import that did not look: verify names it by the same rule.
    monkeypatch.setattr("arborist._forest.transfer.time_problem", lambda *_, **__: None)
    with Arborist(target) as app:
        app.import_sessions(jsonl(records))
        assert app.verify().problems == [f"sessions.db: {says}"]


def test_verify_names_a_turn_dated_after_the_event_that_recorded_it(
    tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session dated in 2099 imported by an import that did not look: each of its turns is
    dated after the ``session_import`` or ``node_insert`` event that recorded it here."""
    records = export_records(_home(tmp_path / "a", doc, QUESTION))
    ahead = "2099-01-01T00:00:00.000000Z"
    records[0]["created_at"] = ahead
    parent = None
    for node in records[1:]:
        node["created_at"] = ahead
        parent = _hashed(node, parent)
    target = _home(tmp_path / "b", doc)
    monkeypatch.setattr("arborist._forest.transfer.time_problem", lambda *_, **__: None)
    with Arborist(target) as app:
        app.import_sessions(jsonl(records))
        problems = app.verify().problems
    assert [p.split(": it is dated after")[0] for p in problems] == [
        f"sessions.db: turn {node['bates']}" for node in records[1:]
    ]
    assert all(p.endswith("its time is in the future") for p in problems)


def test_a_new_session_grafted_under_this_homes_turn_stays_the_other_sessions(
    tmp_path: Path, doc: Path
) -> None:
    """A file may graft a new session's turn under a turn of this home's session (an honest
    home asks so: a parent anywhere). It is never the owner's turn: the owner's session
    keeps its turns, and its tree names the graft by its own bates and session, claiming
    nothing (no answer here vouches for it)."""
    owner = _home(tmp_path / "owner", doc, QUESTION)
    records = export_records(owner)
    sid, first = records[0]["sid"], answered_turn(records)
    other = new_sid()  # a session this home lacks
    header = {**records[0], "sid": other, "root_bates": f"{other}-000000", "label": None}
    root = _hashed({**records[1], "bates": f"{other}-000000"}, None)
    graft = _forged_turn([header, root], root["bates"], first["created_at"])
    graft = _hashed({**graft, "parent_bates": first["bates"]}, first)
    with Arborist(owner) as app:
        done = app.import_sessions(jsonl([header, root, graft]))
        assert (done.sessions, done.added) == ((other,), 2)
        assert [app.node(b).sid for b in app.session_bates(sid)] == [sid, sid]
        assert app.verify().ok
    tree = CliRunner().invoke(cli, ["--home", str(owner), "tree", "--sid", sid]).output
    line = next(line for line in tree.splitlines() if graft["bates"] in line)
    assert line.endswith(f"[NONE]  [from {other}]"), tree
