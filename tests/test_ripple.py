"""The batched ripple against a straightforward recomputation, on real shards.

``insert_turn`` ripples each new turn's hash up its ancestors in two statements (the
path with every path node's other children, then one UPDATE); these tests rebuild every
``subtree_hash`` from the rows the slow way, children by children, and compare byte for
byte over random forests: several sessions, forks from other sessions' nodes, inserts
under deep chains.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arborist._database.migrations import open_database
from arborist._forest.nodes import Session, get_node
from arborist._forest.schema import SESSIONS_MIGRATIONS
from arborist._forest.shard import create_session, insert_turn, ripple
from arborist._proofs.hashing import subtree_hash
from tests.hypothesis_sizes import scaled_examples

KEY = "cd" * 32


def recomputed(conn: sqlite3.Connection) -> dict[str, str]:
    """Every node's subtree_hash folded from the rows alone, leaves first (no stored hash read)."""
    rows = conn.execute("SELECT bates, parent_bates, node_hash FROM nodes").fetchall()
    kids: dict[str, list[str]] = {}
    for bates, parent, _ in rows:
        if parent is not None:
            kids.setdefault(parent, []).append(bates)
    digest = {bates: node for bates, _, node in rows}
    done: dict[str, str] = {}
    for top in (bates for bates, parent, _ in rows if parent is None):
        stack = [(top, False)]
        while stack:
            bates, expanded = stack.pop()
            if expanded:
                done[bates] = subtree_hash(digest[bates], [done[k] for k in kids.get(bates, [])])
                continue
            stack.append((bates, True))
            stack.extend((k, False) for k in kids.get(bates, []))
    return done


def stored(conn: sqlite3.Connection) -> dict[str, str]:
    """Every node's stored subtree_hash (its ``node_links`` row), as hex."""
    rows = conn.execute(
        "SELECT n.bates, l.subtree_hash FROM nodes AS n JOIN node_links AS l ON l.id = n.id"
    ).fetchall()
    assert len(rows) == conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    return {bates: folded.hex() for bates, folded in rows}


def set_stored(conn: sqlite3.Connection, bates: str, digest: str) -> None:
    conn.execute(
        "UPDATE node_links SET subtree_hash = ? WHERE id = (SELECT id FROM nodes WHERE bates = ?)",
        (bytes.fromhex(digest), bates),
    )


def add(conn: sqlite3.Connection, session: Session, parent: str, n: int) -> str:
    node = insert_turn(
        conn, session.sid, parent, question=f"q{n}", answer_text=f"a{n} ü",
        cache_key=KEY, audit_mode="STRICT", cited_titles=[f"T{n}", "é"],
        label=f"turn {n}" if n % 5 == 0 else None,
    )  # fmt: skip
    assert node == get_node(conn, node.bates)  # the Node returned is the row as stored
    return node.bates


# One step: (session index, how to pick the parent, chain length). The parent is any node of
# the forest (so forks cross sessions), and a chain of 1-30 turns follows it, deep enough
# that later picks land under long paths.
STEPS = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.integers(1, 30)),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=scaled_examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(STEPS)
def test_every_insert_leaves_every_subtree_hash_as_a_full_recomputation(
    steps: list[tuple[int, int, int]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        conn = open_database(Path(folder) / "sessions.db", SESSIONS_MIGRATIONS)
        try:
            sessions = [create_session(conn) for _ in range(3)]
            nodes = [s.root_bates for s in sessions]
            for which, pick, length in steps:
                parent = nodes[pick % len(nodes)]
                for _ in range(length):
                    parent = add(conn, sessions[which], parent, len(nodes))
                    nodes.append(parent)
                assert stored(conn) == recomputed(conn)
            assert all(ripple(conn, bates) == 0 for bates in nodes[::7])  # early stop
        finally:
            conn.close()


@pytest.fixture
def shard(tmp_path: Path) -> sqlite3.Connection:
    return open_database(tmp_path / "sessions.db", SESSIONS_MIGRATIONS)


def test_a_ripple_stops_where_a_hash_comes_out_unchanged(shard: sqlite3.Connection) -> None:
    s = create_session(shard)
    chain = [s.root_bates]
    for n in range(40):
        chain.append(add(shard, s, chain[-1], n))
    assert ripple(shard, chain[-1]) == 0  # all stored hashes already hold
    assert ripple(shard, None) == 0
    # A stale hash 10 levels down: the ripple from its node's child rewrites it and stops
    # at the first ancestor whose hash comes out as stored (its own, refolded).
    good = get_node(shard, chain[30]).subtree_hash
    set_stored(shard, chain[30], "0" * 64)
    assert ripple(shard, chain[30]) == 1
    assert get_node(shard, chain[30]).subtree_hash == good
    assert stored(shard) == recomputed(shard)


def test_an_insert_under_a_460_deep_cross_session_path_matches_the_recomputation(
    shard: sqlite3.Connection,
) -> None:
    """Two sessions, the second grafted under the first's deepest turn: the path the
    ripple reads crosses the graft, and its hashes take two UPDATE batches."""
    first, second = create_session(shard), create_session(shard)
    parent = first.root_bates
    for n in range(260):
        parent = add(shard, first, parent, n)
    for n in range(200):
        parent = add(shard, second, parent, n)
    fork = add(shard, second, get_node(shard, parent).parent_bates or "", 9999)
    assert stored(shard) == recomputed(shard)
    assert get_node(shard, fork).subtree_hash == subtree_hash(get_node(shard, fork).node_hash, [])


def test_a_tampered_cycle_ends_the_ripple_instead_of_looping(shard: sqlite3.Connection) -> None:
    """Only a tampered file holds a cycle; the ripple then refolds each node once and ends."""
    s = create_session(shard)
    a = add(shard, s, s.root_bates, 1)
    b = add(shard, s, a, 2)
    c = add(shard, s, b, 3)
    ids = {b: get_node(shard, b).id for b in (a, c)}
    shard.execute("UPDATE node_links SET parent_id = ? WHERE id = ?", (ids[c], ids[a]))  # a-c-b-a
    set_stored(shard, c, "0" * 64)
    assert ripple(shard, c) == 3
