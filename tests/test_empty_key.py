"""A turn whose cache key is empty or not a key arborist makes names no answer, so it claims
``NONE`` with a one-line reason in every face, whatever mode it stored: ``show``, ``tree``,
``find``, ``branches``, their ``--json``, ``Arborist.audit_now`` and the widget's rows and
detail. Its node hash commits the key, so an attacker recomputes it; either way (an
import, an edit of the row) no face may read the stored mode as earned."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._faces.sync import body
from arborist._proofs.hashing import node_hash
from arborist._qa.standing import BAD_KEY, NO_KEY, is_cache_key

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
QUESTION = "Who created Spider-Man?"
REAL = "c705a66e33bcef37824a7c6a2838dfe991718b80ef1b76acc4375bed70710207"

KEYS = [
    pytest.param("", NO_KEY, id="empty"),
    pytest.param(REAL.upper(), BAD_KEY, id="upper-case"),
    pytest.param(REAL[:63], BAD_KEY, id="short"),
    pytest.param(" " + REAL[1:], BAD_KEY, id="space"),
    pytest.param("'; DROP TABLE nodes; --", BAD_KEY, id="words"),
]


def cli_out(home: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    assert result.exit_code == 0, result.output
    return result.output


def _edited(home: Path, tmp_path: Path, key: str) -> tuple[str, str]:
    """A real turn whose row an attacker rewrote: ``key`` for its cache key, its node hash
    recomputed (the row still says STRICT). Returns ``(sid, bates)``."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md")])
        session = app.new_session()
        turn = app.ask_turn(QUESTION, sid=session.sid)
        for follow in ("Who drew Spider-Man?", "Who wrote Spider-Man?"):
            app.ask_turn(follow, sid=session.sid, parent=turn.node.bates)
        node = app.node(turn.node.bates)
        parent = app.node(node.parent_bates or "")
    assert node.audit_mode == "STRICT"
    forged = node_hash(
        parent_node_hash=parent.node_hash, bates=node.bates, question=node.question,
        cache_key=key, audit_mode="STRICT", created_at=node.created_at, label=node.created_label,
    )  # fmt: skip
    with sqlite3.connect(home / "sessions.db") as conn:
        conn.execute(
            "UPDATE nodes SET cache_key = ?, node_hash = ? WHERE bates = ?",
            (key, forged, node.bates),
        )
    return session.sid, node.bates


@pytest.mark.parametrize(("key", "reason"), KEYS)
def test_an_edited_turn_without_a_real_key_is_none_in_every_face(
    home: Path, tmp_path: Path, key: str, reason: str
) -> None:
    sid, bates = _edited(home, tmp_path, key)
    with Arborist(home) as app:
        node = app.node(bates)
        assert (node.cache_key, node.audit_mode) == (key, "STRICT")
        now = app.audit_now(node)
        assert (now.mode, now.reason, now.support) == ("NONE", reason, None)
        view = app.forest_view()
        tree = view.expand(sid, {}, [view.state(sid).root_bates], 100, None)
        rows = {c["bates"]: c["summary"] for n in tree["nodes"].values() for c in n["children"]}
        assert rows[bates]["audit_mode"] == "NONE"  # why: the detail says (below)
        assert "support" not in rows[bates]
        assert view.summary(node, sid)["audit_mode"] == "NONE"
        detail = body(app, bates, sid)
        assert (detail["audit_mode"], detail["audit_reason"]) == ("NONE", reason)
        assert detail["support"] is None
    shown = cli_out(home, "show", bates)
    assert f"audit        NONE: {reason}" in shown and "STRICT" not in shown
    tree_text = cli_out(home, "tree", "--sid", sid)
    line = next(row for row in tree_text.splitlines() if QUESTION in row)
    assert "[NONE]" in line and "STRICT" not in line
    found = cli_out(home, "find", "created")
    assert f"{bates}  [NONE]  {QUESTION}" in found
    branches = cli_out(home, "branches", "--sid", sid)
    assert "[NONE]" in branches and "STRICT" not in branches
    for args in (["show", bates], ["find", "created"], ["branches", "--sid", sid]):
        data = json.loads(cli_out(home, *args, "--json"))
        turn = data if isinstance(data, dict) else next(t for t in data if t["bates"] == bates)
        assert (turn["audit_now"], turn["audit_reason"], turn["support"]) == ("NONE", reason, None)
    turns = json.loads(cli_out(home, "tree", "--sid", sid, "--json"))["turns"]
    turn = next(t for t in turns if t["bates"] == bates)
    assert (turn["audit_now"], turn["audit_reason"]) == ("NONE", reason)


def test_an_imported_turn_with_an_empty_key_claiming_strict_is_none(
    home: Path, tmp_path: Path
) -> None:
    """The reported attack: export, blank the key, recompute the node hash, import into a
    home that holds the document. If an import refuses the turn, nothing shows it at all;
    if it takes it, every face reads NONE."""
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    with Arborist(tmp_path / "theirs") as theirs:
        theirs.ingest([str(tmp_path / "spider.md")])
        session = theirs.new_session()
        turn = theirs.ask_turn(QUESTION, sid=session.sid)
        records = theirs.export_session(session.sid)
    nodes = [r for r in records if r.get("type") == "node"]
    root = next(r for r in nodes if r["parent_bates"] is None)
    item = next(r for r in nodes if r["bates"] == turn.node.bates)
    item["cache_key"] = ""
    item["node_hash"] = node_hash(
        parent_node_hash=root["node_hash"], bates=item["bates"], question=item["question"],
        cache_key="", audit_mode="STRICT", created_at=item["created_at"],
        label=item["created_label"],
    )  # fmt: skip
    path = tmp_path / "forged.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    imported = CliRunner().invoke(cli, ["--home", str(home), "session", "--import", str(path)])
    if imported.exit_code != 0:  # refused with one line, nothing written
        assert len(imported.output.strip().splitlines()) == 1
        with Arborist(home) as app:
            assert app.sessions() == []
        return
    with Arborist(home) as app:
        now = app.audit_now(app.node(item["bates"]))
        assert (now.mode, now.reason) == ("NONE", NO_KEY)
    assert f"audit        NONE: {NO_KEY}" in cli_out(home, "show", item["bates"])
    assert "[NONE]" in cli_out(home, "tree", "--sid", session.sid)


def test_a_root_claims_nothing_to_check_whatever_it_stored(home: Path) -> None:
    with Arborist(home) as app:
        session = app.new_session()
        root = app.node(session.root_bates)
        assert app.audit_now(root).mode == "ROOT" and app.audit_now(root).holds


def test_only_what_the_hashing_module_makes_is_a_cache_key() -> None:
    assert is_cache_key(REAL)
    for bad in ("", REAL.upper(), REAL + "0", REAL[:-1] + "g", None, 7, REAL + "\n"):
        assert not is_cache_key(bad)
