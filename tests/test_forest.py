"""The conversation forest on a real shard: turns, ripple, cross-session forks, verify, transfer."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from arborist._database.migrations import open_database
from arborist._errors import BadInput, BadReference, NotFound
from arborist._forest.bates import format_bates, new_sid, parse_bates
from arborist._forest.nodes import Node, Session, ancestors, get_node, get_session
from arborist._forest.render import branch_points, render_tree
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._forest.shard import create_session, find, insert_turn, resolve_ref, set_label
from arborist._forest.transfer import export_session, import_lines
from arborist._forest.verify import _names, verify_forest
from arborist._proofs.hashing import node_hash, subtree_hash
from tests.workers import finish, start_workers

KEY = "ab" * 32


@pytest.fixture
def shard(tmp_path: Path) -> sqlite3.Connection:
    return open_database(tmp_path / "sessions.db", SESSIONS_MIGRATIONS)


def turn(conn: sqlite3.Connection, session: Session, parent: str, question: str, **kw: object):  # type: ignore[no-untyped-def]
    return insert_turn(
        conn,
        session.sid,
        parent,
        question=question,
        answer_text=f"answer to {question}",
        cache_key=KEY,
        audit_mode="STRICT",
        cited_titles=["A Title"],
        **kw,  # type: ignore[arg-type]
    )


def stored_mode(node: Node) -> str:
    """The mode a turn stored: what these store-less shard tests render (a face never does:
    it renders what the turn can claim now)."""
    return node.audit_mode


def test_sid_and_bates_formats() -> None:
    sid = new_sid()
    assert parse_bates(format_bates(sid, 7)) == (sid, 7)
    for bad in ("", "x", f"{sid}-7", f"{sid}-0000001", "20261129T120000Z-ABCDEF-000001"):
        with pytest.raises(BadReference):
            parse_bates(bad)


def test_a_new_session_has_a_synthetic_root(shard: sqlite3.Connection) -> None:
    session = create_session(shard, label="notes")
    root = get_node(shard, session.root_bates)
    assert (root.seq, root.question, root.cache_key, root.audit_mode, root.parent_bates) == (
        0,
        "",
        "",
        "ROOT",
        None,
    )
    assert root.node_hash == node_hash(
        parent_node_hash=None,
        bates=root.bates,
        question="",
        cache_key="",
        audit_mode="ROOT",
        created_at=root.created_at,
        label=None,
    )
    assert root.subtree_hash == subtree_hash(root.node_hash, [])


def test_turns_get_consecutive_seqs_and_ripple_up(shard: sqlite3.Connection) -> None:
    s = create_session(shard)
    a = turn(shard, s, s.root_bates, "first")
    b = turn(shard, s, a.bates, "second")
    assert (a.seq, b.seq) == (1, 2)
    assert get_session(shard, s.sid).current_bates == b.bates
    root = get_node(shard, s.root_bates)
    a = get_node(shard, a.bates)
    assert a.subtree_hash == subtree_hash(a.node_hash, [b.subtree_hash])
    assert root.subtree_hash == subtree_hash(root.node_hash, [a.subtree_hash])
    assert verify_forest(shard).ok


def test_a_cross_session_fork_changes_the_other_sessions_ancestors_only(
    shard: sqlite3.Connection,
) -> None:
    yesterday = create_session(shard)
    a = turn(shard, yesterday, yesterday.root_bates, "Who created Spider-Man?")
    sibling = turn(shard, yesterday, yesterday.root_bates, "Who created Batman?")
    deep = turn(shard, yesterday, sibling.bates, "When did Batman first appear?")
    before = {
        n: get_node(shard, n).subtree_hash
        for n in (yesterday.root_bates, a.bates, sibling.bates, deep.bates)
    }
    today = create_session(shard)
    fork = turn(shard, today, a.bates, "Who else worked on him?")
    assert parse_bates(fork.bates)[0] == today.sid and fork.parent_bates == a.bates
    after = {n: get_node(shard, n).subtree_hash for n in before}
    assert after[a.bates] != before[a.bates]
    assert after[yesterday.root_bates] != before[yesterday.root_bates]
    assert after[sibling.bates] == before[sibling.bates]
    assert after[deep.bates] == before[deep.bates]
    assert [n.bates for n in ancestors(shard, fork.bates)] == [a.bates, yesterday.root_bates]
    assert verify_forest(shard).ok


def test_tree_rendering_tags_foreign_children_and_shows_grafts(shard: sqlite3.Connection) -> None:
    yesterday = create_session(shard, label="comics")
    a = turn(shard, yesterday, yesterday.root_bates, "Who created Spider-Man?")
    today = create_session(shard)
    turn(shard, today, today.root_bates, "A fresh question")
    fork = turn(shard, today, a.bates, "Who else worked on him?")
    turn(shard, today, fork.bates, "And the inker?")
    theirs = render_tree(shard, get_session(shard, yesterday.sid), audit=stored_mode).splitlines()
    assert theirs[0] == f"session {yesterday.sid}  (comics)"
    assert theirs[1] == "└── * 000001  Who created Spider-Man?  [STRICT]"  # its current turn
    assert (
        theirs[2] == f"    └── {fork.bates}  Who else worked on him?  [STRICT]  [from {today.sid}]"
    )
    ours = render_tree(shard, get_session(shard, today.sid), audit=stored_mode).splitlines()
    assert ours[1] == "└── 000001  A fresh question  [STRICT]"
    assert ours[2] == f"grafted at {a.bates}:"
    assert ours[3] == "└── 000002  Who else worked on him?  [STRICT]"
    assert ours[4] == "    └── * 000003  And the inker?  [STRICT]"


def test_refs_labels_and_branches(shard: sqlite3.Connection) -> None:
    s = create_session(shard)
    a = turn(shard, s, s.root_bates, "one", label="start")
    turn(shard, s, a.bates, "two")
    turn(shard, s, a.bates, "three")
    s = get_session(shard, s.sid)
    assert resolve_ref(shard, s, "1").bates == a.bates
    assert resolve_ref(shard, s, "start").bates == a.bates
    assert resolve_ref(shard, s, "root").bates == s.root_bates
    assert resolve_ref(shard, s, a.bates).bates == a.bates
    renamed = set_label(shard, a.bates, "beginning")
    assert renamed.label == "beginning" and renamed.created_label == "start"
    assert renamed.node_hash == a.node_hash, "a later label never changes node_hash"
    assert [(n.bates, c) for n, c in branch_points(shard, s)] == [(a.bates, 2)]
    for bad in ("", "nope", "999999", f"{s.sid}-000099"):
        with pytest.raises((BadReference, NotFound)):
            resolve_ref(shard, s, bad)
    for bad_label in ("", "42", "root", s.root_bates):
        with pytest.raises(BadInput):
            set_label(shard, a.bates, bad_label)
    with pytest.raises(BadInput, match="already names"):
        turn(shard, s, a.bates, "four", label="beginning")


def test_find_searches_every_session_and_quotes_hostile_input(shard: sqlite3.Connection) -> None:
    one, two = create_session(shard), create_session(shard)
    turn(shard, one, one.root_bates, "Who created Spider-Man?")
    turn(shard, two, two.root_bates, "Where does Spider-Man live?")
    assert len(find(shard, "spider man")) == 2
    for hostile in ('"', "NEAR(", "spider*", "col:x", "AND OR NOT", "-", "a\x00b", "x" * 1_000_000):
        try:
            find(shard, hostile)
        except BadInput as err:
            assert "\n" not in str(err)


def test_a_10000_turn_chain_inserts_verifies_and_renders_without_recursion(
    shard: sqlite3.Connection,
) -> None:
    """Built through import (one bottom-up fold) as a session this shard lacks (an import
    adds no turn to one it holds), then one more turn through the insert path, whose ripple
    climbs all 10,000 ancestors iteratively."""
    sid, at = new_sid(), "2026-01-01T00:00:00.000000Z"
    root_bates = format_bates(sid, 0)
    root_fields = {"bates": root_bates, "question": "", "cache_key": "", "audit_mode": "ROOT"}
    root_hash = node_hash(parent_node_hash=None, created_at=at, label=None, **root_fields)
    lines = [
        json.dumps(
            {
                "type": "session",
                "format": "arborist-session/1",
                "sid": sid,
                "label": None,
                "created_at": at,
                "root_bates": root_bates,
            }
        ),
        json.dumps(
            {
                "type": "node",
                "parent_bates": None,
                "answer_text": "",
                "cited_titles": [],
                "created_at": at,
                "created_label": None,
                "label": None,
                "node_hash": root_hash,
                **root_fields,
            }
        ),
    ]
    parent, parent_hash = root_bates, root_hash
    for seq in range(1, 10_000):
        bates = format_bates(sid, seq)
        fields = {
            "parent_node_hash": parent_hash,
            "bates": bates,
            "question": f"q{seq}",
            "cache_key": KEY,
            "audit_mode": "STRICT",
            "created_at": at,
            "label": None,
        }
        digest = node_hash(**fields)
        lines.append(
            json.dumps(
                {
                    "type": "node",
                    "bates": bates,
                    "parent_bates": parent,
                    "question": f"q{seq}",
                    "answer_text": f"a{seq}",
                    "cache_key": KEY,
                    "audit_mode": "STRICT",
                    "cited_titles": [],
                    "created_at": at,
                    "created_label": None,
                    "label": None,
                    "node_hash": digest,
                }
            )
        )
        parent, parent_hash = bates, digest
    done = import_lines(shard, lines)
    assert done.added == 10_000 and done.already_present == 0
    tip = turn(shard, get_session(shard, sid), parent, "the 10,000th turn")
    assert tip.seq == 10_000
    assert len(ancestors(shard, tip.bates)) == 10_000
    assert verify_forest(shard).ok
    assert render_tree(shard, get_session(shard, sid), audit=stored_mode).count("\n") == 10_000
    assert sum(1 for _ in export_session(shard, sid)) == 10_002


def _tamper(path: Path, sql: str, params: tuple = ()) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


@pytest.fixture
def populated(tmp_path: Path) -> tuple[Path, Session, list[str]]:
    path = tmp_path / "sessions.db"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    s = create_session(conn)
    a = turn(conn, s, s.root_bates, "alpha")
    b = turn(conn, s, a.bates, "beta")
    c = turn(conn, s, a.bates, "gamma")
    d = turn(conn, s, c.bates, "delta")
    conn.close()
    return path, s, [a.bates, b.bates, c.bates, d.bates]


SEQ_2 = "(SELECT id FROM nodes WHERE seq = 2)"


@pytest.mark.parametrize(
    ("what", "sql", "expect"),
    [
        (
            "an edited question",
            "UPDATE nodes SET question = 'ALPHA' WHERE seq = 1",
            "node_hash does not match",
        ),
        (
            "an edited answer",
            "UPDATE nodes SET answer_text = 'forged' WHERE seq = 2",
            "answer_text differs",
        ),
        (
            "a changed created_at",
            "UPDATE nodes SET created_at = '2000-01-01T00:00:00.000000Z' WHERE seq = 3",
            "node_hash does not match",
        ),
        ("a deleted node", "DELETE FROM nodes WHERE seq = 4", "recorded by an event but missing"),
        (
            "a re-pointed parent",
            "UPDATE nodes SET parent_bates = (SELECT bates FROM nodes WHERE seq = 2) WHERE seq = 4",
            "node_hash does not match",
        ),
        (
            "an altered subtree_hash",
            "UPDATE node_links SET subtree_hash = zeroblob(32) WHERE id = " + SEQ_2,
            "does not fold",
        ),
        (
            "a subtree_hash made hex text",
            "UPDATE node_links SET subtree_hash = lower(hex(subtree_hash)) WHERE id = " + SEQ_2,
            "does not fold",
        ),
        (
            "a deleted Merkle link",
            "DELETE FROM node_links WHERE id = " + SEQ_2,
            "node_links row (its subtree hash) is missing",
        ),
        (
            "a Merkle link re-pointed to another parent",
            "UPDATE node_links SET parent_id = 1 WHERE id = " + SEQ_2,
            "node_links parent differs from its parent_bates",
        ),
        (
            "a Merkle link holding another node hash",
            "UPDATE node_links SET node_hash = zeroblob(32) WHERE id = " + SEQ_2,
            "node_links node_hash differs",
        ),
        (
            "a stray Merkle link under a turn",
            "INSERT INTO node_links SELECT 999, id, node_hash, subtree_hash FROM node_links "
            "WHERE id = " + SEQ_2,
            "node_links row 999 is no turn's",
        ),
        ("a deleted audit event", "DELETE FROM audit_events WHERE seq = 3", "audit chain"),
        ("a renumbered turn", "UPDATE nodes SET seq = 7 WHERE seq = 2", "does not match its bates"),
        ("a negative seq", "UPDATE nodes SET seq = -2 WHERE seq = 2", "does not match its bates"),
        (
            "a seq made text",
            "UPDATE nodes SET seq = 'two' WHERE seq = 2",
            "does not match its bates",
        ),
        (
            "a turn moved to another session",
            "UPDATE nodes SET sid = '20000101T000000Z-abcdef' WHERE seq = 2",
            "does not match its bates",
        ),
        (
            "a bates number with a space",
            "UPDATE nodes SET bates = bates || ' ' WHERE seq = 4",
            "does not match its bates",
        ),
        (
            "cited titles edited",
            "UPDATE nodes SET cited_titles_json = '[]' WHERE seq = 2",
            "cited titles differ",
        ),
        (
            "a node_insert event naming another parent",
            "UPDATE audit_events SET body = replace(body, '-000001', '-000000') "
            "WHERE event_type = 'node_insert' AND bates LIKE '%-000002'",
            "differs from its node_insert event",
        ),
        ("a deleted session", "DELETE FROM sessions", "missing, though turns of it remain"),
        (
            "a node_insert event that is not an object",
            "UPDATE audit_events SET body = '[]' "
            "WHERE event_type = 'node_insert' AND bates LIKE '%-000002'",
            "its node_insert event is not an object of fields",
        ),
        (
            "a node_insert event that is not JSON",
            "UPDATE audit_events SET body = x'7b' "
            "WHERE event_type = 'node_insert' AND bates LIKE '%-000002'",
            "its node_insert event is not an object of fields",
        ),
        (
            "a node_insert event with its fields in another order and the answer's hash changed",
            "UPDATE audit_events SET body = json_object('titles_hash', body ->> 'titles_hash', "
            "'parent_bates', body ->> 'parent_bates', 'node_hash', body ->> 'node_hash', "
            "'answer_hash', '00') WHERE event_type = 'node_insert' AND bates LIKE '%-000002'",
            "answer_text differs from the answer its event recorded",
        ),
    ],
)
def test_verify_detects(
    populated: tuple[Path, Session, list[str]], what: str, sql: str, expect: str
) -> None:
    path, _, _ = populated
    if any(f"{verb} {table}" in sql for verb in ("DELETE FROM", "INSERT INTO")
           for table in ("nodes", "sessions", "node_links")):  # fmt: skip
        _tamper(path, "PRAGMA foreign_keys = OFF")
    _tamper(path, sql)
    result = verify_forest(open_database(path, SESSIONS_MIGRATIONS))
    lines = [*result.problems, *(f"audit chain: {p}" for p in result.chain.problems)]
    assert any(expect in line for line in lines), (what, lines)


def test_verify_detects_a_truncated_chain_against_an_earlier_checkpoint(
    populated: tuple[Path, Session, list[str]],
) -> None:
    path, s, _ = populated
    conn = open_database(path, SESSIONS_MIGRATIONS)
    head = verify_forest(conn).chain.head
    assert head is not None
    turn(conn, get_session(conn, s.sid), s.root_bates, "epsilon")
    conn.execute("DELETE FROM audit_events WHERE seq > ?", (head.seq - 1,))
    conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit_events'", (head.seq - 1,))
    result = verify_forest(conn, [head])
    assert any(p.kind == "truncated" for p in result.chain.problems)


def test_export_then_import_in_any_order_gives_the_same_hashes(
    populated: tuple[Path, Session, list[str]], tmp_path: Path
) -> None:
    path, s, _ = populated
    source = open_database(path, SESSIONS_MIGRATIONS)
    lines = [json.dumps(r) for r in export_session(source, s.sid)]
    hashes = (
        "SELECT n.bates, n.node_hash, l.subtree_hash FROM nodes AS n "
        "JOIN node_links AS l ON l.id = n.id"
    )
    expected = {r[0]: r[1:] for r in source.execute(hashes)}
    assert len(expected) == 5
    for seed in range(3):
        shuffled = [lines[0], *random.Random(seed).sample(lines[1:], len(lines) - 1)]
        target = open_database(tmp_path / f"t{seed}.db", SESSIONS_MIGRATIONS)
        assert import_lines(target, shuffled).added == 5
        got = {r[0]: r[1:] for r in target.execute(hashes)}
        assert got == expected
        assert verify_forest(target).ok
        assert import_lines(target, lines).already_present == 5, "importing twice changes nothing"


def test_import_refuses_a_tampered_line_and_writes_nothing(
    populated: tuple[Path, Session, list[str]], tmp_path: Path
) -> None:
    path, s, _ = populated
    records = list(export_session(open_database(path, SESSIONS_MIGRATIONS), s.sid))
    records[2]["question"] = "edited in transit"
    target = open_database(tmp_path / "t.db", SESSIONS_MIGRATIONS)
    with pytest.raises(BadInput, match="does not match its node_hash"):
        import_lines(target, [json.dumps(r) for r in records])
    assert target.execute("SELECT count(*) FROM nodes").fetchone()[0] == 0
    for bad in (["not json"], ['{"type": "other"}']):
        with pytest.raises(BadInput):
            import_lines(target, bad)


@pytest.mark.slow
def test_two_processes_500_turns_each_lose_nothing_and_reuse_no_seq(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    conn = open_database(path, SESSIONS_MIGRATIONS)
    s = create_session(conn)
    conn.close()
    errors = finish(start_workers("turns", path, 500, ["a", "b"]))
    assert not any(errors), errors
    conn = open_database(path, SESSIONS_MIGRATIONS)
    seqs = [
        r[0] for r in conn.execute("SELECT seq FROM nodes WHERE sid = ? ORDER BY seq", (s.sid,))
    ]
    assert seqs == list(range(1001))
    counts = dict(
        conn.execute("SELECT substr(question, 1, 1), count(*) FROM nodes WHERE seq > 0 GROUP BY 1")
    )
    assert counts == {"a": 500, "b": 500}
    assert verify_forest(conn).ok


_SIDS = st.sampled_from(
    ["20261202T160000Z-abc123", "20261202T160000Z-ABC123", "2026120T160000Z-abc123", "x", ""]
)


_SID = "20261202T160000Z-abc123"


@example(_SID, 1_000_000, True, "")  # seven digits: no bates number
@example(_SID, -1, True, "")
@example(_SID, 999_999, True, "")
@example(_SID, 0, True, "")
@example("2026120T160000Z-abc123", 5, True, "")  # a malformed sid
@example(_SID, True, True, "")  # a bool is no seq
@given(
    _SIDS | st.none() | st.integers(),
    st.sampled_from([-1, 0, 1, 999_999, 1_000_000])
    | st.integers(min_value=-2, max_value=1_000_001)
    | st.none()
    | st.text(max_size=3),
    st.booleans(),
    st.text(max_size=4),
)
def test_a_turn_is_named_by_its_bates_exactly_when_parse_bates_says_so(
    sid: object, seq: object, formatted: bool, noise: str
) -> None:
    """verify checks a turn's bates number against its sid and seq without parsing it; that
    must agree with parsing for every row an edit can leave, malformed ones included."""
    bates: object = f"{sid}-{seq:06d}" if formatted and isinstance(seq, int) else f"{sid}{noise}"
    try:
        expected = parse_bates(str(bates)) == (sid, seq) and str(bates) == bates.strip()  # type: ignore[union-attr]
    except BadReference:
        expected = False
    assert _names(bates, sid, seq) == (expected and type(seq) is int)
