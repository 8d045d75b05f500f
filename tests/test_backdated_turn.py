"""A turn is never older than its parent, and no later revision in service stands for a turn
whose answer an earlier revision, taken out of service, gave.

A turn backdated to 2001 under a parent of today used to import, and read ``[STRICT
answered]`` after its key's answer was falsified and asked again (revision 2, the same
words), because a turn older than every revision read as having shown the latest one.
Real homes (real SQLite files; the offline extractive model, or a chat server on loopback
where two revisions must say different words).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arborist._errors import BadInput
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._proofs.hashing import node_hash
from tests.chat_server import ChatServer, completion
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401
from tests.chat_server import loopback as loopback_fixture  # noqa: F401
from tests.exports import QUESTION, answered_turn, export_records, jsonl
from tests.exports import doc as doc_fixture  # noqa: F401

REASON = "Ditko disputed it"
BACKDATED = "2001-01-01T00:00:00.000000Z"


def _home(home: Path, doc: Path, *, ask: bool = True, **fields: Any) -> Path:
    with Arborist(home) as app:
        app.ingest([str(doc)])
        if ask:
            app.ask_turn(QUESTION, sid=None, **fields)
        app.sessions()  # sessions.db made and migrated: what an import leaves is its own
    return home


def _backdate(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The turn backdated to 2001, its node hash recomputed as a forger would."""
    root = next(r for r in records if r["type"] == "node" and r["parent_bates"] is None)
    turn = answered_turn(records)
    turn["created_at"] = BACKDATED
    turn["node_hash"] = node_hash(
        parent_node_hash=root["node_hash"], bates=turn["bates"], question=turn["question"],
        cache_key=turn["cache_key"], audit_mode=turn["audit_mode"],
        created_at=turn["created_at"], label=turn["created_label"],
    )  # fmt: skip
    return turn


def _file_bytes(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(home.iterdir()) if ".db" in p.name}


def _cli(home: Path, *args: str) -> str:
    return CliRunner().invoke(cli, ["--home", str(home), *args]).output


def test_an_import_refuses_a_turn_older_than_its_parent_in_one_line_writing_nothing(
    tmp_path: Path, doc: Path
) -> None:
    records = export_records(_home(tmp_path / "a", doc))
    turn = _backdate(records)
    target = _home(tmp_path / "b", doc)
    before = _file_bytes(target)
    with Arborist(target) as app, pytest.raises(BadInput) as caught:
        app.import_sessions(jsonl(records))
    assert str(caught.value) == (
        f"line {records.index(turn) + 1}: turn {turn['bates']}: it is older than its parent "
        "(its created_at is before its parent's)"
    )
    assert _file_bytes(target) == before


def test_verify_names_a_turn_older_than_its_parent(
    tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written as an import that did not look (the library's own writer, every hash, event
    and fold as it makes them): only the times tell."""
    records = export_records(_home(tmp_path / "a", doc))
    turn = _backdate(records)
    target = _home(tmp_path / "b", doc, ask=False)
    monkeypatch.setattr("arborist._forest.transfer.time_problem", lambda *_, **__: None)
    with Arborist(target) as app:
        app.import_sessions(jsonl(records))
        assert app.verify().problems == [
            f"sessions.db: turn {turn['bates']}: it is older than its parent (its created_at "
            "is before its parent's)"
        ]


def test_a_turn_answered_elsewhere_first_reads_the_earliest_revision_with_its_answer(
    tmp_path: Path, doc: Path
) -> None:
    """An honest import older than every revision here: its answer was given here first by
    revision 1, since falsified; revision 2 says the same words and is in service. The turn
    reads failed, with revision 1's reason, in every face, never revision 2's ok."""
    elsewhere = export_records(_home(tmp_path / "elsewhere", doc))
    here = _home(tmp_path / "here", doc)
    with Arborist(here) as app:
        key = answered_turn(elsewhere)["cache_key"]
        app.falsify(key, "failed", REASON)
        ((session, _),) = app.sessions()
        again = app.ask_turn(QUESTION, sid=session.sid)
        assert (again.result.record.revision, again.result.record.cache_key) == (2, key)
        assert again.result.record.answer_text == answered_turn(elsewhere)["answer_text"]
        app.import_sessions(jsonl(elsewhere))
        imported = app.node(answered_turn(elsewhere)["bates"])
        now = app.audit_now(imported)
        assert (now.revision, now.state, now.state_reason) == (1, "failed", REASON)
        shown = app.forest_view().shown(imported, now.revision)
        assert shown is not None and shown[0] == 1
        assert app.verify().problems == []
    assert f"[STRICT failed: {REASON}]" in _cli(here, "tree", "--sid", imported.sid)
    assert f"(STRICT), answer failed: {REASON}" in _cli(here, "show", imported.bates)


def test_the_detail_pane_names_the_revision_with_the_turns_answer_not_a_later_one(
    tmp_path: Path, doc: Path, loopback: ChatServer
) -> None:
    """Revision 1 (falsified) and revision 2 (in service) say different words; a turn asked
    elsewhere after both, with revision 1's words, showed revision 1: the row and the detail
    pane both say so, not the latest revision written by the turn's time."""
    first, second = "Stan Lee and Steve Ditko created him. [E1]", "Steve Ditko drew him. [E1]"
    loopback.script(completion(first))
    here = _home(tmp_path / "here", doc, llm="openai")
    with Arborist(here) as app:
        ((session, _),) = app.sessions()
        key = answered_turn(app.export_session(session.sid))["cache_key"]
        app.falsify(key, "failed", REASON)
        loopback.script(completion(second))
        again = app.ask_turn(QUESTION, sid=session.sid, llm="openai")
        assert (again.result.record.revision, again.result.record.answer_text) == (2, second)
    loopback.script(completion(first))
    elsewhere = export_records(_home(tmp_path / "elsewhere", doc, llm="openai"))
    assert answered_turn(elsewhere)["cache_key"] == key
    with Arborist(here) as app:
        app.import_sessions(jsonl(elsewhere))
        imported = app.node(answered_turn(elsewhere)["bates"])
        now = app.audit_now(imported)
        assert (now.revision, now.state) == (1, "failed")
        shown = app.forest_view().shown(imported, now.revision)
        assert shown is not None and shown[0] == 1 and shown[2] == "failed"


def test_a_session_dated_ahead_of_the_import_is_refused_whole(tmp_path: Path, doc: Path) -> None:
    """A session whose every time is later than now here (dated by hand, or from a clock
    running ahead): a turn from the future would sort after every turn asked since, so the
    import refuses it in one line, writing nothing."""
    ahead = "2099-01-01T00:00:00.000000Z"
    records = export_records(_home(tmp_path / "ahead", doc))
    records[0]["created_at"] = ahead
    root = next(r for r in records if r["type"] == "node" and r["parent_bates"] is None)
    root["created_at"] = ahead
    root["node_hash"] = node_hash(
        parent_node_hash=None, bates=root["bates"], question="", cache_key="",
        audit_mode=root["audit_mode"], created_at=ahead, label=None,
    )  # fmt: skip
    turn = answered_turn(records)
    turn["created_at"] = ahead
    turn["node_hash"] = node_hash(
        parent_node_hash=root["node_hash"], bates=turn["bates"], question=turn["question"],
        cache_key=turn["cache_key"], audit_mode=turn["audit_mode"], created_at=ahead,
        label=turn["created_label"],
    )  # fmt: skip
    here = _home(tmp_path / "here", doc, ask=False)
    before = _file_bytes(here)
    with Arborist(here) as app, pytest.raises(BadInput) as caught:
        app.import_sessions(jsonl(records))
    said = str(caught.value)
    assert said.startswith(f"line {records.index(root) + 1}: turn {root['bates']}: it is dated ")
    assert said.endswith(": its time is in the future") and "\n" not in said
    assert _file_bytes(here) == before


def test_a_turn_asked_after_the_clock_stepped_back_is_not_older_than_its_session(
    tmp_path: Path, doc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock steps back an hour between two asks: the second, under the session's root
    (not under the first turn), takes the first turn's time, so an honest home never holds a
    turn verify would call older than its parent or than the turn before it."""
    home = _home(tmp_path / "here", doc)
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        first = app.node("1", session.sid)
        monkeypatch.setattr("arborist._forest.shard.utc_now", lambda: "2001-01-01T00:00:00.000000Z")
        asked = app.ask_turn(
            "When did Spider-Man first appear?", sid=session.sid, parent=session.root_bates
        )
        assert asked.node.seq == 2 and asked.node.parent_bates == session.root_bates
        assert asked.node.created_at == first.created_at
        assert app.verify().problems == []
