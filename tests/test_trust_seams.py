"""What is shown as verified is what is committed: the seams between a turn, its answer's
record and the documents it cites, tried as an attacker with write access would.

Each test makes real homes (real SQLite files, the offline extractive model), edits a
field by hand or forges an export, and checks every face that labels the turn: the
library's ``audit_now``, ``session --tree``, ``session --find --json``, ``session
--show`` (the REPL's ``/show``), the widget's row and detail, a cache hit and
``Answer.verify()``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arborist._errors import BadInput, IntegrityError
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.repl import Repl, scripted_reader
from arborist._faces.sync import body
from arborist._forest.tree_sync import node_summary
from arborist._proofs.hashing import node_hash
from arborist._qa.standing import DIFFERS, NOT_HERE
from tests.exports import QUESTION, answered_turn, export_records, jsonl
from tests.exports import doc as doc_fixture  # noqa: F401


def _home(root: Path, name: str, doc: Path, *, ask: bool) -> Path:
    home = root / name
    with Arborist(home) as app:
        app.ingest([str(doc)])
        if ask:
            app.ask_turn(QUESTION, sid=None)
    return home


def _rehash(records: list[dict[str, Any]], turn: dict[str, Any]) -> None:
    """What a careful forger does: recompute the turn's node hash after editing it."""
    parent = next(r for r in records if r.get("bates") == turn["parent_bates"])
    turn["node_hash"] = node_hash(
        parent_node_hash=parent["node_hash"],
        bates=turn["bates"],
        question=turn["question"],
        cache_key=turn["cache_key"],
        audit_mode=turn["audit_mode"],
        created_at=turn["created_at"],
        label=turn["created_label"],
    )


def _file_bytes(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(home.iterdir()) if p.name.endswith(".db")}


def _cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--home", str(home), *args])


# --- import ------------------------------------------------------------------------------------


FORGERIES = {
    "answer_text": lambda t: t.update(answer_text="Spider-Man was created by Jack Kirby [E1]."),
    "cited_titles": lambda t: t.update(cited_titles=["The Official Marvel Encyclopaedia"]),
    "audit_mode": lambda t: t.update(audit_mode="HYBRID"),
    "question": lambda t: t.update(question="Did Steve Ditko alone create Spider-Man?"),
}


@pytest.mark.parametrize("field", sorted(FORGERIES))
def test_an_export_forged_against_a_record_here_is_refused_whole(
    tmp_path: Path, doc: Path, field: str
) -> None:
    source = _home(tmp_path, "a", doc, ask=True)
    target = _home(tmp_path, "b", doc, ask=True)  # the same corpus and model: the same key
    records = export_records(source)
    turn = answered_turn(records)
    FORGERIES[field](turn)
    _rehash(records, turn)  # the node hash does not cover the answer; a forger fixes the rest
    before = _file_bytes(target)
    with Arborist(target) as app, pytest.raises(BadInput) as caught:
        app.import_sessions(jsonl(records))
    message = str(caught.value)
    assert "\n" not in message and "contradicts the answer this home holds" in message
    assert f"turn {turn['bates']}" in message and "nothing was imported" in message
    assert _file_bytes(target) == before  # nothing written


def test_a_forged_export_fails_through_the_cli_with_one_line(tmp_path: Path, doc: Path) -> None:
    source = _home(tmp_path, "a", doc, ask=True)
    target = _home(tmp_path, "b", doc, ask=True)
    records = export_records(source)
    FORGERIES["answer_text"](answered_turn(records))
    export = tmp_path / "forged.jsonl"
    export.write_text("\n".join(jsonl(records)) + "\n", encoding="utf-8")
    before = _file_bytes(target)
    result = _cli(target, "session", "--import", str(export))
    assert result.exit_code == 2, result.output  # bad input
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "contradicts the answer this home holds" in lines[0]
    assert _file_bytes(target) == before


def test_an_invented_turn_with_recomputed_hashes_is_refused(tmp_path: Path, doc: Path) -> None:
    target = _home(tmp_path, "b", doc, ask=True)
    records = export_records(target)
    turn = answered_turn(records)
    # A turn no one asked: another bates in an invented session, the real key, a lie.
    sid = "20990101T000000Z-abcdef"
    root = next(r for r in records if r["type"] == "node" and r["parent_bates"] is None)
    header = next(r for r in records if r["type"] == "session")
    invented_root = {**root, "bates": f"{sid}-000000"}
    invented_root["node_hash"] = node_hash(
        parent_node_hash=None, bates=invented_root["bates"], question="", cache_key="",
        audit_mode="ROOT", created_at=root["created_at"], label=root["created_label"],
    )  # fmt: skip
    invented = {
        **turn,
        "bates": f"{sid}-000001",
        "parent_bates": invented_root["bates"],
        "answer_text": "Spider-Man was created by Jack Kirby alone [E1].",
    }
    forged = [{**header, "sid": sid, "root_bates": invented_root["bates"]}, invented_root, invented]
    _rehash(forged, invented)
    before = _file_bytes(target)
    with Arborist(target) as app, pytest.raises(BadInput, match="contradicts"):
        app.import_sessions(jsonl(forged))
    assert _file_bytes(target) == before


def test_a_turn_whose_record_is_not_here_claims_nothing_until_one_agrees(
    tmp_path: Path, doc: Path
) -> None:
    source = _home(tmp_path, "a", doc, ask=True)
    target = _home(tmp_path, "c", doc, ask=False)  # the corpus, but no answer yet
    honest = export_records(source)
    forged = json.loads(json.dumps(honest))
    for record in forged:  # a second session: its own sid, the same question and key
        for name in ("sid", "bates", "parent_bates", "root_bates"):
            if isinstance(record.get(name), str):
                record[name] = record[name].replace(record[name][:23], "20990101T000000Z-abcdef")
    forged_turn = answered_turn(forged)
    forged_turn["answer_text"] = "Spider-Man was created by Jack Kirby [E1]."
    for record in forged:
        if record["type"] == "node":
            parent = next(
                (r for r in forged if r["type"] == "node" and r["bates"] == record["parent_bates"]),
                None,
            )
            record["node_hash"] = node_hash(
                parent_node_hash=parent["node_hash"] if parent else None,
                bates=record["bates"], question=record["question"],
                cache_key=record["cache_key"], audit_mode=record["audit_mode"],
                created_at=record["created_at"], label=record["created_label"],
            )  # fmt: skip
    with Arborist(target) as app:
        app.import_sessions(jsonl(honest))
        app.import_sessions(jsonl(forged))  # no record here to contradict: imported
        honest_node, forged_node = (app.node(answered_turn(r)["bates"]) for r in (honest, forged))
        for node in (honest_node, forged_node):
            now = app.audit_now(node)
            assert (now.mode, now.reason) == ("NONE", NOT_HERE)
        sid = honest_node.sid
        assert "STRICT" not in app.tree(sid)
        summary = node_summary(app.sessions_conn, honest_node, sid, app.store_conn)
        assert summary["audit_mode"] == "NONE"
        detail = body(app, honest_node.bates, sid)
        assert detail["audit_mode"] == "NONE" and detail["audit_reason"] == NOT_HERE
        # The same question asked here: the record now exists and agrees with the honest
        # turn only.
        app.ask_turn(QUESTION, sid=None)
        assert app.audit_now(honest_node).mode == "STRICT"
        assert app.audit_now(forged_node).reason == DIFFERS
    found = json.loads(_cli(target, "session", "--find", "Kirby", "--json").output)
    assert [(f["audit_now"], f["audit_reason"]) for f in found] == [("NONE", DIFFERS)]
    out: list[str] = []
    with Arborist(target) as app:
        script = scripted_reader([f"/show {forged_node.bates}"])
        Repl(app, forged_node.sid, read=script, write=out.append).run()
    assert "audit        NONE: its answer differs" in "\n".join(out)


# --- document metadata ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "value"), [("uri", "https://evil.example/spider.md"), ("title", "Forged Title")]
)
def test_an_edited_title_or_uri_is_never_served_or_committed(
    tmp_path: Path, doc: Path, column: str, value: str
) -> None:
    home = _home(tmp_path, "h", doc, ask=True)
    store = home / "store.db"
    conn = sqlite3.connect(store)
    with conn:
        (original,) = conn.execute(f"SELECT {column} FROM documents").fetchone()
        conn.execute(f"UPDATE documents SET {column} = ?", (value,))
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        turn = app.node(answered_turn(export_records(home))["bates"])
        turns_before = len(export_records(home))
        with pytest.raises(IntegrityError, match="differs from what its ingest committed"):
            app.ask_turn(QUESTION, sid=session.sid)  # a hit: refused, not served as STRICT
        with pytest.raises(IntegrityError):
            app.ask_turn(QUESTION, sid=session.sid, use_cache=False)  # a miss: not committed
        assert len(export_records(home)) == turns_before
        check = app.check_answer(app.record(turn.cache_key).id)  # Answer.verify()
        assert not check and "differs from what its ingest committed" in check.summary
        assert app.audit_now(turn).mode == "NONE"
        assert f"{column} differs from its document_add event" in " ".join(
            app.verify().store.problems
        )
    with conn:
        conn.execute(f"UPDATE documents SET {column} = ?", (original,))
    conn.close()
    with Arborist(home) as app:
        assert app.audit_now(turn).mode == "STRICT"
        assert app.ask_turn(QUESTION, sid=session.sid).result.hit
        assert app.verify().ok


# --- stale labels -----------------------------------------------------------------------------


EDITS = {
    "answer_text": "UPDATE cache_records SET answer_text = answer_text || ' (and Jack Kirby)'",
    "cited flag": "UPDATE cache_evidence SET cited = 1 - cited WHERE rank = 0",
    "audit mode": "UPDATE cache_records SET audit_mode = 'VISUAL'",
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_record_takes_the_label_off_every_turn_view(
    tmp_path: Path, doc: Path, edit: str
) -> None:
    home = _home(tmp_path, "h", doc, ask=True)
    conn = sqlite3.connect(home / "store.db")
    with conn:
        conn.execute(EDITS[edit])
    conn.close()
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        turn = app.node(answered_turn(export_records(home))["bates"])
        assert app.audit_now(turn).mode == "NONE"
        assert "STRICT" not in app.tree(session.sid)
        summary = node_summary(app.sessions_conn, turn, session.sid, app.store_conn)
        assert summary["audit_mode"] == "NONE"
        assert body(app, turn.bates, session.sid)["audit_mode"] == "NONE"
    tree = _cli(home, "session", "--tree", "--sid", session.sid).output
    assert "STRICT" not in tree and "NONE" in tree
    found = json.loads(_cli(home, "session", "--find", "Spider", "--json").output)
    assert found and all(f["audit_now"] == "NONE" for f in found)


def test_an_unedited_home_still_claims_strict_everywhere(tmp_path: Path, doc: Path) -> None:
    """The control: the same views on an honest home say STRICT (the tests above can fail)."""
    home = _home(tmp_path, "h", doc, ask=True)
    with Arborist(home) as app:
        ((session, _),) = app.sessions()
        turn = app.node(answered_turn(export_records(home))["bates"])
        assert app.audit_now(turn).mode == "STRICT" and app.audit_now(turn).reason is None
        assert "STRICT" in app.tree(session.sid)
        summary = node_summary(app.sessions_conn, turn, session.sid, app.store_conn)
        assert summary["audit_mode"] == "STRICT"
        assert body(app, turn.bates, session.sid)["audit_mode"] == "STRICT"
    found = json.loads(_cli(home, "session", "--find", "Spider", "--json").output)
    assert [f["audit_now"] for f in found] == ["STRICT"]
    with Arborist(home) as app:
        assert app.verify().ok


def test_a_dropped_index_or_an_event_that_is_not_json_is_no_traceback(
    tmp_path: Path, doc: Path
) -> None:
    """The lookup of a document's event works without migration 11's index (a scan), and an
    event body edited into something that is not JSON makes that document not hold."""
    home = _home(tmp_path, "h", doc, ask=True)
    conn = sqlite3.connect(home / "store.db")
    with conn:
        conn.execute("DROP INDEX audit_document_add")
    with Arborist(home) as app:
        assert app.ask_turn(QUESTION, sid=None).result.hit
    with conn:
        conn.execute("UPDATE audit_events SET body = '{not json' WHERE event_type = 'document_add'")
    conn.close()
    with Arborist(home) as app:
        with pytest.raises(IntegrityError, match="differs from what its ingest committed"):
            app.ask_turn(QUESTION, sid=None)
        assert not app.verify().ok
