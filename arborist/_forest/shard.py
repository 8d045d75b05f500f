"""The conversation forest in ``sessions.db``: sessions, turns, the Merkle ripple, lookups.

Every turn is one transaction (docs/design.md section 5): the node row, its FTS
row, its Merkle link (``node_links``: parent id, node hash, subtree hash), the
``subtree_hash`` ripple up its ancestors (crossing sessions), the
session's counters, and one ``node_insert`` audit event whose body commits
to the node's hash and its answer's hash. The seq is read inside that
``BEGIN IMMEDIATE`` transaction, so two processes writing one shard never
reuse a seq and never lose a turn.

The ripple reads the whole ancestor path, with each ancestor's other
children's stored subtree hashes, in one statement, refolds it in Python
and writes what changed in one more, all on the narrow ``node_links`` rows
(integer ids, raw digests), never the wide turn rows: a few microseconds per
level, O(depth + the path's fan-out) rows. Unrelated subtrees keep their hashes, which is
what lets the widget fetch only what changed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from operator import itemgetter

from arborist._clock import format_timestamp, utc_now
from arborist._database.db import transaction
from arborist._database.fts import checked_terms, fts_match_all
from arborist._errors import BadInput, BadReference, NotFound
from arborist._forest.bates import MAX_SEQ, format_bates, is_bates, new_sid, parse_sid
from arborist._forest.nodes import (
    NODE_COLUMNS,
    NODES,
    ROOT_AUDIT_MODE,
    Node,
    Session,
    get_node,
    get_session,
    node_of,
)
from arborist._proofs.audit import append_event
from arborist._proofs.hashing import (
    canonical_text,
    encode_text,
    fold_one,
    node_hash,
    sha256_hex,
    subtree_hash_bytes,
)

__all__ = [
    "FIND_POOL",
    "FindHit",
    "create_session",
    "find",
    "insert_turn",
    "node_event_body",
    "resolve_ref",
    "ripple",
    "session_event_body",
    "set_current",
    "set_label",
    "titles_json",
]


def create_session(
    conn: sqlite3.Connection, *, label: str | None = None, now: datetime | None = None
) -> Session:
    """A new session with its synthetic root (seq 0), in one transaction with its event."""
    if label is not None and not label.isprintable():
        raise BadInput("session labels cannot hold control characters (newlines, escapes)")
    moment = now or datetime.now(timezone.utc)
    created_at = format_timestamp(moment)
    with transaction(conn):
        sid = new_sid(moment)
        while conn.execute("SELECT 1 FROM sessions WHERE sid = ?", (sid,)).fetchone():
            sid = new_sid(moment)
        root = format_bates(sid, 0)
        root_hash = node_hash(
            parent_node_hash=None,
            bates=root,
            question="",
            cache_key="",
            audit_mode=ROOT_AUDIT_MODE,
            created_at=created_at,
            label=None,
        )
        conn.execute(
            "INSERT INTO sessions (sid, root_bates, current_bates, next_seq, created_at, updated_at, "
            "label) VALUES (?, ?, ?, 1, ?, ?, ?)",
            (sid, root, root, created_at, created_at, label),
        )
        _insert_node_row(
            conn,
            bates=root,
            sid=sid,
            seq=0,
            parent=None,
            question="",
            answer_text="",
            cache_key="",
            audit_mode=ROOT_AUDIT_MODE,
            cited_titles=(),
            created_at=created_at,
            label=None,
            digest=root_hash,
        )
        append_event(
            conn,
            "session_create",
            sid=sid,
            body=session_event_body(label, root_hash),
            created_at=created_at,
        )
        return get_session(conn, sid)


def titles_json(cited_titles: Sequence[str]) -> str:
    """How a turn's cited titles are stored (and hashed into its ``node_insert`` event)."""
    return json.dumps(list(cited_titles), ensure_ascii=False)


def node_event_body(
    digest: str, parent_bates: str | None, answer_text: str, stored_titles: str
) -> dict[str, object]:
    """What a ``node_insert`` event commits to: the node's hash and parent, and the hashes of
    the two things the node hash leaves out, its answer and its cited titles (as stored,
    :func:`titles_json`). ``arborist verify`` rebuilds it from the row."""
    return {
        "node_hash": digest,
        "parent_bates": parent_bates,
        "answer_hash": sha256_hex(answer_text.encode("utf-8")),
        "titles_hash": sha256_hex(stored_titles.encode("utf-8")),
    }


def node_event_text(
    digest: str, parent_bates: str | None, answer_text: str, stored_titles: str
) -> str:
    """:func:`~arborist._proofs.hashing.canonical_text` of :func:`node_event_body`: the body as the
    writer stores it, built without the general encoder (what ``arborist verify`` compares
    every turn's event with; the tests pin that it is the same text)."""
    if type(digest) is not str or not (parent_bates is None or type(parent_bates) is str):
        return canonical_text(node_event_body(digest, parent_bates, answer_text, stored_titles))
    parent = "null" if parent_bates is None else encode_text(parent_bates)
    return (
        f'{{"answer_hash":"{sha256_hex(answer_text.encode("utf-8"))}",'
        f'"node_hash":{encode_text(digest)},"parent_bates":{parent},'
        f'"titles_hash":"{sha256_hex(stored_titles.encode("utf-8"))}"}}'
    )


def session_event_body(label: str | None, root_node_hash: str) -> dict[str, object]:
    """What a ``session_create`` (or ``session_import``) event commits to: the session's
    label and its root turn's hash. ``arborist verify`` rebuilds it from the rows."""
    return {"label": label, "root_node_hash": root_node_hash}


_INSERT_NODE = (
    "INSERT INTO nodes (bates, sid, seq, parent_bates, question, answer_text, cache_key, "
    "audit_mode, cited_titles_json, n_cited_sources, created_at, created_label, label, "
    "node_hash) VALUES (:bates, :sid, :seq, :parent_bates, :question, :answer_text, :cache_key, "
    ":audit_mode, :cited_titles, :n_cited, :created_at, :created_label, :label, :node_hash)"
)


def _insert_node_row(
    conn: sqlite3.Connection,
    *,
    bates: str,
    sid: str,
    seq: int,
    parent: str | None,
    question: str,
    answer_text: str,
    cache_key: str,
    audit_mode: str,
    cited_titles: Sequence[str],
    created_at: str,
    label: str | None,
    digest: str,
) -> Node:
    """Write a turn's row, its search row and its Merkle link; the row as written (a leaf:
    its subtree hash is its leaf fold), not read back."""
    stored_titles = titles_json(cited_titles)
    raw = bytes.fromhex(digest)
    leaf_fold = subtree_hash_bytes(raw, [])
    row = Node(
        0,
        bates,
        sid,
        seq,
        parent,
        question,
        answer_text,
        cache_key,
        audit_mode,
        tuple(json.loads(stored_titles)),
        created_at,
        label,
        label,
        digest,
        leaf_fold.hex(),
    )
    stored = {**vars(row), "cited_titles": stored_titles, "n_cited": len(cited_titles)}
    node_id = int(conn.execute(_INSERT_NODE, stored).lastrowid or 0)
    conn.execute(
        "INSERT INTO nodes_fts (rowid, question, answer_text, cited_titles) VALUES (?, ?, ?, ?)",
        (node_id, question, answer_text, stored_titles),
    )
    conn.execute(  # its Merkle link: the parent by id, its hash, its fold as a leaf
        "INSERT INTO node_links (id, parent_id, node_hash, subtree_hash) "
        "VALUES (?1, (SELECT id FROM nodes WHERE bates = ?2), ?3, ?4)",
        (node_id, parent, raw, leaf_fold),
    )
    return replace(row, id=node_id)


_PATH_SQL = """
WITH RECURSIVE path (depth, id, below) AS (
    SELECT 0, ?1, NULL
    UNION ALL
    SELECT p.depth + 1, l.parent_id, l.id FROM path AS p JOIN node_links AS l ON l.id = p.id
    WHERE l.parent_id IS NOT NULL AND p.depth < (SELECT max(id) FROM node_links)
)
SELECT p.depth, l.id, l.node_hash, l.subtree_hash, c.id, c.subtree_hash
FROM path AS p JOIN node_links AS l ON l.id = p.id
LEFT JOIN node_links AS c ON c.parent_id = p.id AND c.id IS NOT p.below
"""
"""A node and its ancestors up to a root (crossing sessions), with each one's other children,
in one statement over the narrow ``node_links`` (integer ids, raw digests): (depth, id,
node_hash, subtree_hash, child id, child subtree_hash) rows. The recursion carries only
ids (carrying the rows measured slower); no path is longer than there are rows (max(id))
unless a tampered file holds a cycle."""

_WRITE_SQL = (
    "UPDATE node_links SET subtree_hash = substr(?2, 32 * j.key + 1, 32) "
    "FROM json_each(?1) AS j WHERE node_links.id = j.value"
)
"""The ripple's write: the ``j.key``-th id of the array ``?1`` gets the ``j.key``-th 32 bytes of
``?2``. Half the cost a level of an ``UPDATE ... FROM (VALUES ...)`` (measured), and two
parameters whatever the depth."""


def ripple(conn: sqlite3.Connection, start_bates: str | None) -> int:
    """Refold ``subtree_hash`` from ``start_bates`` up to its root; returns nodes updated."""
    if start_bates is None:
        return 0
    row = conn.execute("SELECT id FROM nodes WHERE bates = ?", (start_bates,)).fetchone()
    return _ripple_from(conn, int(row[0])) if row else 0


def _ripple_from(conn: sqlite3.Connection, start_id: int) -> int:
    """Refold the subtree hashes of node ``start_id`` and its ancestors; returns rows updated.

    Two statements whatever the depth, both on ``node_links``: one reads the
    path to the root with every path node's other children's stored hashes,
    one writes the hashes that changed. The fold runs bottom-up in Python on
    raw digests, in the same pass that reads the rows: each node's hash is
    refolded from its children's stored hashes (so unchanged siblings are
    reused, never recomputed) and its path child's new one, and it stops early
    when a hash comes out unchanged, as everything above it is then unchanged
    too. A path that comes back on itself (only a tampered file holds a cycle)
    ends where it turns.
    """
    rows = conn.execute(_PATH_SQL, (start_id,)).fetchall()  # in C: no Python step per row
    rows.sort(key=_DEPTH)  # a level's rows (one per other child) side by side, nearest first
    ids: list[str] = []  # the nodes whose hash changed, nearest first, and their new hashes
    hashes: list[bytes] = []
    seen: set[int] = set()
    below: bytes | None = None  # the new hash of the path child just refolded
    i, n = 0, len(rows)
    while i < n:
        depth, node_id, digest, old, kid, kid_hash = rows[i]
        i += 1
        if node_id in seen:
            break
        seen.add(node_id)
        if kid is None and (i == n or rows[i][0] != depth):  # no other child: most levels
            new = fold_one(digest, below)
        else:
            kids = [kid_hash] if kid is not None else []
            while i < n and rows[i][0] == depth:
                kids.append(rows[i][5])
                i += 1
            if below is not None:
                kids.append(below)
            new = subtree_hash_bytes(digest, kids)
        if new == old:
            break
        ids.append(str(node_id))
        hashes.append(new)
        below = new
    if ids:  # one statement: the ids as a JSON array, the hashes end to end in one blob
        conn.execute(_WRITE_SQL, ("[" + ",".join(ids) + "]", b"".join(hashes)))
    return len(ids)


_DEPTH = itemgetter(0)


def insert_turn(
    conn: sqlite3.Connection,
    sid: str,
    parent_bates: str,
    *,
    question: str,
    answer_text: str,
    cache_key: str,
    audit_mode: str,
    cited_titles: Sequence[str] = (),
    label: str | None = None,
    created_at: str | None = None,
    make_current: bool = True,
) -> Node:
    """Record one turn of session ``sid`` under ``parent_bates`` (any session's node);
    it becomes the session's current turn unless ``make_current`` is false."""
    if not question.strip():
        raise BadInput("empty question")
    if label is not None:
        label = _checked_label(label)
    with transaction(conn):
        session = get_session(conn, sid)
        parent = get_node(conn, parent_bates)
        seq = _next_seq(conn, session, label)
        bates = format_bates(sid, seq)
        if created_at is None:
            created_at = _not_before(conn, parent, session)
        digest = node_hash(
            parent_node_hash=parent.node_hash,
            bates=bates,
            question=question,
            cache_key=cache_key,
            audit_mode=audit_mode,
            created_at=created_at,
            label=label,
        )
        node = _insert_node_row(
            conn,
            bates=bates,
            sid=sid,
            seq=seq,
            parent=parent.bates,
            question=question,
            answer_text=answer_text,
            cache_key=cache_key,
            audit_mode=audit_mode,
            cited_titles=cited_titles,
            created_at=created_at,
            label=label,
            digest=digest,
        )
        _ripple_from(conn, parent.id)
        _advance(conn, session, node, make_current=make_current)
    return node


def _not_before(conn: sqlite3.Connection, parent: Node, session: Session) -> str:
    """Now, or the latest of its parent's time and its session's last turn's when the clock
    is behind them (stepped back, or another machine's): a turn is never older than its
    parent, nor than the turn before it in its session (``time_problem``)."""
    last = conn.execute(
        "SELECT created_at FROM nodes WHERE sid = ? ORDER BY seq DESC LIMIT 1", (session.sid,)
    ).fetchone()
    times = [t for t in (parent.created_at, last[0] if last else None) if isinstance(t, str)]
    return max([utc_now(), *times])


def _advance(conn: sqlite3.Connection, session: Session, node: Node, *, make_current: bool) -> None:
    """A new turn's session moves on (its next seq, its current turn unless not
    ``make_current``), and the chain gets the turn's ``node_insert`` event."""
    conn.execute(
        "UPDATE sessions SET next_seq = ?, current_bates = ?, updated_at = ? WHERE sid = ?",
        (
            node.seq + 1,
            node.bates if make_current else session.current_bates,
            node.created_at,
            session.sid,
        ),
    )
    body = node_event_body(
        node.node_hash, node.parent_bates, node.answer_text, titles_json(node.cited_titles)
    )
    append_event(
        conn,
        "node_insert",
        sid=session.sid,
        bates=node.bates,
        body=body,
        created_at=node.created_at,
    )


def _next_seq(conn: sqlite3.Connection, session: Session, label: str | None) -> int:
    """The seq a new turn of ``session`` gets, once the session has room and the label is free."""
    if session.next_seq > MAX_SEQ:
        raise BadInput(f"session {session.sid} is full ({MAX_SEQ} turns): start a new one")
    if label is not None:
        _check_label_free(conn, session.sid, label)
    return session.next_seq


def _checked_label(label: str) -> str:
    label = " ".join(label.split())
    if not label:
        raise BadInput("empty label")
    if not label.isprintable():
        raise BadInput("labels cannot hold control characters: they are typed to find a turn")
    if label.isdigit() or is_bates(label) or label.lower() == "root":
        raise BadInput(f"label {label!r} would read as a seq, a bates number or 'root'")
    if len(label) > 80:
        raise BadInput("labels are at most 80 characters")
    return label


def _check_label_free(conn: sqlite3.Connection, sid: str, label: str) -> None:
    taken = conn.execute(
        "SELECT bates FROM nodes WHERE sid = ? AND label = ?", (sid, label)
    ).fetchone()
    if taken:
        raise BadInput(f"label {label!r} already names {taken[0]} in this session")


def set_label(conn: sqlite3.Connection, bates: str, label: str | None) -> Node:
    """Rename a node, or take its label off with ``None`` (its ``node_hash`` keeps the
    creation label); one audit event, none when nothing changes."""
    label = None if label is None else _checked_label(label)
    with transaction(conn):
        node = get_node(conn, bates)
        if node.label == label:
            return node
        if label is not None:
            _check_label_free(conn, node.sid, label)
        conn.execute("UPDATE nodes SET label = ? WHERE bates = ?", (label, node.bates))
        append_event(
            conn,
            "label",
            sid=node.sid,
            bates=node.bates,
            body={"label": label, "previous": node.label},
        )
        return get_node(conn, node.bates)


def set_current(conn: sqlite3.Connection, sid: str, bates: str) -> Session:
    """Move a session's "you are here" pointer (bookkeeping; no hash covers it)."""
    get_node(conn, bates)
    with transaction(conn):
        conn.execute(
            "UPDATE sessions SET current_bates = ?, updated_at = ? WHERE sid = ?",
            (bates, utc_now(), parse_sid(sid)),
        )
    return get_session(conn, sid)


def resolve_ref(conn: sqlite3.Connection, session: Session, ref: str) -> Node:
    """A node named by a bates number, a seq of ``session``, ``root``, or a label.

    Labels resolve in ``session`` first, then across the forest if unique there.
    """
    ref = ref.strip()
    if not ref:
        raise BadReference("empty node reference: give a bates number, a seq or a label")
    if ref == "root":
        return get_node(conn, session.root_bates)
    if ref.isdigit():
        if int(ref) > MAX_SEQ:
            raise BadReference(f"seq {ref} is outside 0..{MAX_SEQ}")
        return get_node(conn, format_bates(session.sid, int(ref)))
    if is_bates(ref):
        return get_node(conn, ref)
    row = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM {NODES} WHERE n.sid = ? AND n.label = ?",
        (session.sid, ref),
    ).fetchone()
    if row:
        return node_of(row)
    rows = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM {NODES} WHERE n.label = ? LIMIT 2", (ref,)
    ).fetchall()
    if len(rows) == 1:
        return node_of(rows[0])
    if len(rows) > 1:
        raise BadReference(f"label {ref!r} names turns in several sessions: use the bates number")
    raise NotFound(f"no turn {ref!r}: give a bates number, a seq of this session, or a label")


@dataclass(frozen=True)
class FindHit:
    """A turn found by :func:`find`, with a snippet of what matched."""

    node: Node
    snippet: str


FIND_POOL = 2_000
"""Most matching turns one find ranks: the newest. A word in nearly every turn of a large
forest is then ranked among these, not across all of them (the cost stays flat)."""


def find(conn: sqlite3.Connection, query: str, *, limit: int = 10) -> list[FindHit]:
    """Turns of every session whose question, answer or cited titles hold every word of
    ``query``, best first (BM25 over the newest :data:`FIND_POOL` matches).

    Ranked in the index first; only the turns returned are joined and snippeted."""
    if limit < 1:
        raise BadInput("--limit must be at least 1")
    match = fts_match_all(checked_terms(query))
    ranked = conn.execute(
        "SELECT rowid FROM (SELECT rowid, bm25(nodes_fts) AS score FROM nodes_fts "
        "WHERE nodes_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2) ORDER BY score, rowid LIMIT ?3",
        (match, FIND_POOL, limit),
    ).fetchall()
    hits = []
    for (rowid,) in ranked:
        row = conn.execute(
            f"SELECT {NODE_COLUMNS}, snippet(nodes_fts, -1, '«', '»', '…', 12), "
            "snippet(nodes_fts, 2, '«', '»', '…', 12) "
            "FROM nodes_fts JOIN nodes AS n ON n.id = nodes_fts.rowid "
            "LEFT JOIN node_links AS l ON l.id = n.id "
            "WHERE nodes_fts MATCH ? AND nodes_fts.rowid = ?",
            (match, rowid),
        ).fetchone()
        if row is not None:
            best, in_titles = row[15], row[16]
            hits.append(FindHit(node_of(row[:15]), _titles(best) if best == in_titles else best))
    return hits


def _titles(snippet: str) -> str:
    """A snippet cut from the cited titles column (a JSON list) as the titles it lists,
    ``json — «JSON» encoder and decoder · …``, never the list's brackets and quotes."""
    lead, trail = snippet.startswith("…"), snippet.endswith("…")
    core = snippet[1 if lead else 0 : len(snippet) - 1 if trail else len(snippet)].strip()
    core = core.removeprefix("[").removesuffix("]").strip().removeprefix('"').removesuffix('"')
    core = core.replace('", "', " · ").replace('\\"', '"').replace("\\\\", "\\")
    return ("…" if lead else "") + core + ("…" if trail else "")
