"""The forest as the widget's sync protocol reads it (docs/design.md section 6): the
session's state, its roots, a poll of its hashes, children by ``subtree_hash``, and what
each row says of its turn. The diffing half of :mod:`arborist._faces.sync`, which answers the
requests; this half only reads.

A row's audit mode is its turn's standing now (:mod:`arborist._qa.standing`) and its
revision the one its answer showed (:mod:`arborist._store.cache`): each is read from
store.db, the tree from sessions.db. :class:`ForestView` binds one facade's two
connections (``Arborist.forest_view``), so the protocol's face never touches one.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from arborist._database.db import rows_in, snapshot
from arborist._errors import NotFound, one_line
from arborist._forest.nodes import Node, ancestors, get_session
from arborist._forest.reads import (
    RowSummary,
    child_count,
    child_rows,
    created_times,
    first_turn_since,
    graft_heads,
    inserted_since,
    relabelled_since,
    reveal_path,
    session_head,
    subtree_hash_of,
    subtree_hashes,
    turn_answers,
    turn_count,
)
from arborist._proofs.audit import head_seq
from arborist._qa.standing import NO_CLAIM, Standing, standings, unchecked
from arborist._qa.support import audit_key
from arborist._store.cache.records import OK
from arborist._store.cache.states import (
    RevisionState,
    restated_revisions_since,
    revision_states,
    shown_revision,
)

__all__ = [
    "CACHE_KEY_PREFIX",
    "ForestView",
    "JSON",
    "Labels",
    "MAX_ADDED",
    "QUESTION_WIDTH",
    "TreeState",
    "expand",
    "node_summary",
    "poll",
    "roots",
    "summary",
    "tree_state",
    "turn_revisions",
]

JSON = dict[str, Any]
"""A JSON-ready object: what travels over the widget's comm."""

QUESTION_WIDTH = 100
"""Characters of a question a tree row shows; the body carries it whole."""

UNREADABLE = "its cited titles are not a list of text: nothing can be checked"
"""Why a row whose stored fields an edit made unreadable claims ``NONE``."""

NO_STORE = "no store.db to check its answer against"
"""Why a row read without a store claims ``NONE``."""

CACHE_KEY_PREFIX = 12
"""Hex digits of a cache key a tree row carries (enough to tell answers apart)."""

MAX_ADDED = 50
"""Most turns a ``roots`` answer lists as added since the view's chain head; beyond
that (an import, a long absence) the view walks by hashes instead."""


# --- the tree --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeState:
    """What a widget's traits mirror: the session's root hash, grafts, current node, size."""

    sid: str
    root_bates: str
    root_hash: str
    graft_hashes: dict[str, str]
    current_bates: str
    next_seq: int
    label: str | None
    turns: int


def tree_state(conn: sqlite3.Connection, sid: str) -> TreeState:
    """The state a widget mirrors in its traits, read in one snapshot."""
    return _tree_state(conn, sid)[0]


def _tree_state(conn: sqlite3.Connection, sid: str) -> tuple[TreeState, list[RowSummary]]:
    """The tree state and the graft heads it was read from."""
    with snapshot(conn):
        session = get_session(conn, sid)
        root_hash = subtree_hash_of(conn, session.root_bates)
        if root_hash is None:
            raise NotFound(f"session {session.sid} has no root node")
        heads = graft_heads(conn, session.sid)
        turns = turn_count(conn, session.sid)
    state = TreeState(
        sid=session.sid,
        root_bates=session.root_bates,
        root_hash=root_hash,
        graft_hashes={head.bates: head.subtree_hash for head in heads},
        current_bates=session.current_bates,
        next_seq=session.next_seq,
        label=session.label,
        turns=turns,
    )
    return state, heads


class Labels(NamedTuple):
    """What the store says of the rows a reply summarises, by bates: the revision of its
    answer each row showed and that revision's state (:func:`turn_revisions`), and each
    row's standing now (:mod:`arborist._qa.standing`): its audit mode, why it is ``NONE``,
    its support level where it holds, and the state and reason of a withdrawn answer."""

    revisions: Mapping[str, RevisionState]
    standings: Mapping[str, Standing]


def summary(row: RowSummary, viewer_sid: str, labels: Labels) -> JSON:
    """What a tree row shows of a node. ``foreign``: minted by a session other than the
    viewer's; ``revision``, the revision of its answer the turn showed; ``state`` and
    ``state_reason``, only when that revision is out of service (falsified, stale...: a
    later revision answering the question again changes nothing of it); ``audit_mode``,
    what the turn can claim now (``NONE`` when its key is empty or malformed, or its answer
    is not here or does not hold: why is the detail's ``audit_reason``, not every row's
    bytes), never merely what it claimed when it was written; ``support``, how well its
    cited evidence covers its question, only while it holds; ``audit``, the badge the row
    shows (:func:`~arborist._qa.support.audit_key`: ``STRICT-unquoted`` for a STRICT answer
    that quotes nothing it cites), only where it is not ``audit_mode`` itself."""
    now = unchecked(row.parent_bates is None, row.cache_key) or labels.standings.get(
        row.bates, Standing(NO_CLAIM, NO_STORE)
    )
    out: JSON = {
        "question": one_line(row.question, QUESTION_WIDTH),
        "audit_mode": now.mode,
        "label": row.label,
        "sid": row.sid,
        "seq": row.seq,
        "foreign": row.sid != viewer_sid,
        "n_children": row.n_children,
        "cache_key": row.cache_key[:CACHE_KEY_PREFIX] if isinstance(row.cache_key, str) else "",
    }
    shown = labels.revisions.get(row.bates)
    if now.revision is not None:
        out["revision"] = now.revision
    elif shown is not None and now.imported is None:  # an imported record: none of this home's
        out["revision"] = shown[0]
    state = now.state if now.state is not None else (shown[2] if shown is not None else OK)
    if state != OK:
        out["state"] = state
        if now.withdrawn and now.state_reason:
            out["state_reason"] = now.state_reason
    if now.support is not None:
        out["support"] = now.support.level
    if (badge := audit_key(now.mode, now.support)) != now.mode:  # "wording not quoted" (#35)
        out["audit"] = badge
    return out


def turn_revisions(
    conn: sqlite3.Connection,
    store: sqlite3.Connection,
    turns: Sequence[tuple[str, str]],
    fallback: Mapping[str, int | None] | None = None,
    times: Mapping[str, str] | None = None,
) -> dict[str, RevisionState]:
    """The revision of its answer each ``(bates, cache_key)`` turn showed, with its state
    now: the one ``fallback`` names (its standing's, :func:`~arborist._qa.standing.standing`:
    among the revisions with the turn's answer, the latest written by the turn's time, else
    the earliest), so the detail pane names the revision every face reads; without one, the
    latest written by the time the turn was, else the latest. A later revision in service
    never stands for a turn whose answer an earlier one gave. Turns whose key the store does
    not hold are left out. ``times``: when each turn was recorded, when the caller has read
    it already."""
    turns = [(b, k) for b, k in turns if k]
    if not turns:
        return {}
    if times is None:
        times = created_times(conn, [b for b, _k in turns])
    held = revision_states(store, [k for _b, k in turns])
    out: dict[str, RevisionState] = {}
    for bates, key in turns:
        revisions = held.get(key)
        if not revisions:
            continue
        wanted = (fallback or {}).get(bates)
        shown = next((r for r in revisions if r[0] == wanted), None)
        if shown is None:
            shown = shown_revision(revisions, times.get(bates, "")) or revisions[-1]
        out[bates] = shown
    return out


def _states(
    conn: sqlite3.Connection, store: sqlite3.Connection | None, rows: Sequence[RowSummary]
) -> Labels:
    """The revision behind each row and its state, and each row's standing now, from the
    store (none without one: every answered row then claims ``NONE``)."""
    answered = [r for r in rows if unchecked(r.parent_bates is None, r.cache_key) is None]
    if store is None or not answered:
        return Labels({}, {r.bates: Standing(NO_CLAIM, NO_STORE) for r in answered})
    fields = turn_answers(conn, [r.bates for r in answered])
    times = created_times(conn, [r.bates for r in answered])  # read once, for both below
    now = standings(store).many((*turn[1:], times.get(turn[0])) for turn in fields)
    found = {r.bates: Standing(NO_CLAIM, UNREADABLE) for r in answered}  # unless read below
    found.update((turn[0], standing) for turn, standing in zip(fields, now, strict=True))
    fallback = {bates: standing.revision for bates, standing in found.items()}
    turns = [(r.bates, r.cache_key) for r in answered]
    revisions = turn_revisions(conn, store, turns, fallback, times)
    return Labels(revisions, found)


def node_summary(
    conn: sqlite3.Connection,
    node: Node,
    viewer_sid: str,
    store: sqlite3.Connection | None = None,
) -> JSON:
    """:func:`summary` of a loaded node (counts its children)."""
    row = RowSummary(
        bates=node.bates,
        parent_bates=node.parent_bates,
        subtree_hash=node.subtree_hash,
        sid=node.sid,
        seq=node.seq,
        question=node.question,
        audit_mode=node.audit_mode,
        label=node.label,
        cache_key=node.cache_key,
        n_children=child_count(conn, node.bates),
    )
    return summary(row, viewer_sid, _states(conn, store, [row]))


def _entry(row: RowSummary, viewer_sid: str, known: Mapping[str, str], states: Labels) -> JSON:
    """One child as the view receives it: just its bates when the view holds its exact hash."""
    if known.get(row.bates) == row.subtree_hash:
        return {"bates": row.bates}
    return {
        "bates": row.bates,
        "subtree_hash": row.subtree_hash,
        "summary": summary(row, viewer_sid, states),
    }


def roots(
    conn: sqlite3.Connection,
    sid: str,
    known: Mapping[str, str] | None = None,
    since: int | None = None,
    store: sqlite3.Connection | None = None,
) -> JSON:
    """Where a refresh starts: the root's hash and each graft head (summary unless held).

    ``event_seq`` is the audit chain head. Given the head a view saw last
    (``since``), ``relabelled`` maps every node renamed after it, in any
    session, to its current label, so renames reach the view too; and
    ``added`` lists the turns inserted after it (None when there are more than
    :data:`MAX_ADDED`): the hashes told the view *that* something changed,
    the chain tells it *what*, in bytes that do not grow with the depth.
    """
    known = known or {}
    with snapshot(conn):
        state, heads = _tree_state(conn, sid)
        event_seq = head_seq(conn)
        relabelled = relabelled_since(conn, since) if since is not None else {}
        added = inserted_since(conn, since, MAX_ADDED) if since is not None else None
    states = _states(conn, store, [*heads, *(added or [])])
    grafts = []
    for head in heads:
        graft: JSON = {
            "bates": head.bates,
            "parent_bates": head.parent_bates,
            "subtree_hash": head.subtree_hash,
        }
        if known.get(head.bates) != head.subtree_hash:
            graft["summary"] = summary(head, state.sid, states)
        grafts.append(graft)
    return {
        "sid": state.sid,
        "label": state.label,
        "root_bates": state.root_bates,
        "root_hash": state.root_hash,
        "current_bates": state.current_bates,
        "next_seq": state.next_seq,
        "turns": state.turns,
        "grafts": grafts,
        "event_seq": event_seq,
        "relabelled": relabelled,
        "added": None
        if added is None
        else [
            {
                "bates": row.bates,
                "parent_bates": row.parent_bates,
                "subtree_hash": row.subtree_hash,
                "summary": summary(row, state.sid, states),
            }
            for row in added
        ],
    }


def poll(conn: sqlite3.Connection, sid: str, grafts: Sequence[str] = ()) -> JSON:
    """The root hash, next seq, current node and chain head, plus the named graft heads' hashes.

    Point lookups by primary key and bates only: cheap enough to repeat
    every few seconds. A new graft shows up as a new ``next_seq``, a rename
    (which changes no hash) as a new ``event_seq``.
    """
    with snapshot(conn):
        head = session_head(conn, sid)
        if head is None:
            raise NotFound(f"no session {sid}")
        hashes = subtree_hashes(conn, grafts) if grafts else {}
        event_seq = head_seq(conn)
    current_bates, next_seq, root_hash = head
    return {
        "root_hash": root_hash,
        "next_seq": next_seq,
        "current_bates": current_bates,
        "graft_hashes": hashes,
        "event_seq": event_seq,
    }


def expand(
    conn: sqlite3.Connection,
    sid: str,
    known: Mapping[str, str],
    bates: Sequence[str],
    budget: int = 0,
    reveal: str | None = None,
    store: sqlite3.Connection | None = None,
) -> JSON:
    """Children of each requested node whose ``subtree_hash`` differs from ``known``,
    then, breadth first, of their descendants, until ``budget`` child rows are sent.

    ``known`` maps bates to the hash the view holds: for a requested node,
    the hash its children list was fetched at; for a child, the hash its
    summary was fetched at. Unchanged requested nodes answer nothing; a
    child whose hash the view holds comes as ``{"bates"}`` alone (its place
    in the order), any other child as ``{"bates", "subtree_hash",
    "summary"}``. So an unchanged sibling costs its bates, and an unchanged
    subtree nothing at all. Requested nodes that do not exist are listed in
    ``missing``. With a ``budget``, a subtree (a deep chain, a first screen)
    comes in one reply instead of one request per level; a node's children
    always come whole. With ``reveal``, the ancestors of that turn in the
    view's tree (:func:`reveal_path`) count as requested: a first screen
    shows the current turn, however deep, without a second round trip.
    """
    wanted = list(dict.fromkeys(bates))
    nodes: dict[str, JSON] = {}
    missing: list[str] = []
    sent = 0
    with snapshot(conn):
        if reveal is not None:
            wanted += [b for b in reveal_path(conn, sid, reveal) if b not in wanted]
        asked = set(wanted)
        current = subtree_hashes(conn, wanted)
        queue: deque[tuple[str, str]] = deque()
        for name in wanted:
            digest = current.get(name)
            if digest is None:
                missing.append(name)
            elif known.get(name) != digest:
                queue.append((name, digest))
        while queue:
            name, digest = queue.popleft()
            if name in nodes:  # a requested node met again below another one
                continue
            if name not in asked and sent >= budget:
                break
            rows = child_rows(conn, name)
            states = _states(conn, store, [r for r in rows if known.get(r.bates) != r.subtree_hash])
            nodes[name] = {
                "subtree_hash": digest,
                "children": [_entry(r, sid, known, states) for r in rows],
            }
            sent += len(rows) if name not in asked else 0
            queue.extend(
                (r.bates, r.subtree_hash)
                for r in rows
                if r.n_children and known.get(r.bates) != r.subtree_hash and r.bates not in nodes
            )
    return {"nodes": nodes, "missing": missing}


@dataclass(frozen=True)
class ForestView:
    """The reads above, over one facade's connections to sessions.db and store.db (what
    ``Arborist.forest_view`` hands a face instead of the connections themselves)."""

    sessions: sqlite3.Connection
    store: sqlite3.Connection

    def state(self, sid: str) -> TreeState:
        """See :func:`tree_state`."""
        return tree_state(self.sessions, sid)

    def roots(self, sid: str, known: Mapping[str, str], since: int | None) -> JSON:
        """See :func:`roots`."""
        return roots(self.sessions, sid, known, since, self.store)

    def poll(self, sid: str, grafts: Sequence[str]) -> JSON:
        """See :func:`poll`."""
        return poll(self.sessions, sid, grafts)

    def expand(
        self,
        sid: str,
        known: Mapping[str, str],
        bates: Sequence[str],
        budget: int,
        reveal: str | None,
    ) -> JSON:
        """See :func:`expand`."""
        return expand(self.sessions, sid, known, bates, budget, reveal, self.store)

    def summary(self, node: Node, viewer_sid: str) -> JSON:
        """See :func:`node_summary`."""
        return node_summary(self.sessions, node, viewer_sid, self.store)

    def shown(self, node: Node, revision: int | None) -> RevisionState | None:
        """The revision of its answer ``node`` showed (``revision`` for a turn older than
        every revision here), with its state now; None when the store holds none."""
        turns = [(node.bates, node.cache_key)]
        return turn_revisions(self.sessions, self.store, turns, {node.bates: revision}).get(
            node.bates
        )

    def revisions(self, cache_key: str) -> list[RevisionState]:
        """Every revision of ``cache_key``'s answer, oldest first, with its state."""
        return revision_states(self.store, [cache_key]).get(cache_key, [])

    def restated_since(self, seq: int, limit: int) -> dict[str, dict[int, str]] | None:
        """Answers whose state changed after store event ``seq`` (None: more than ``limit``)."""
        return restated_revisions_since(self.store, seq, limit)

    def state_reasons(self, keys: Iterable[str]) -> dict[str, dict[int, str]]:
        """Why each revision of ``keys`` out of service was taken out (a falsification's
        reason, a stale mark's), by key and revision: what a row restated by a sync shows
        beside its state. Revisions in service, or with no reason, are left out."""
        rows = rows_in(
            self.store,
            "SELECT cache_key, revision, state_reason FROM cache_records "
            f"WHERE cache_key IN ({{marks}}) AND state != '{OK}' AND state_reason IS NOT NULL",
            sorted(set(keys)),
        )
        out: dict[str, dict[int, str]] = {}
        for key, revision, reason in rows:
            out.setdefault(str(key), {})[int(revision)] = str(reason)
        return out

    def store_head(self) -> int:
        """The store's chain head: a falsify, evict or rehydrate anywhere moves it."""
        return head_seq(self.store)

    def first_turn_since(self, cache_key: str, created_at: str) -> tuple[str, str] | None:
        """``(bates, created_at)`` of the first turn holding ``cache_key`` since ``created_at``."""
        return first_turn_since(self.sessions, cache_key, created_at)

    def path(self, bates: str) -> list[str]:
        """The ancestors of ``bates``, top first."""
        return [n.bates for n in reversed(ancestors(self.sessions, bates))]
