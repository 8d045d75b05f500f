"""The kernel side of the forest widget's sync protocol (docs/design.md section 6), without Jupyter.

The browser asks and the kernel answers, because messages a kernel sends
before a view exists are lost. Every request is a JSON object ``{"id",
"kind", ...}``; every answer is ``{"id", "ok": true, "result"}`` or ``{"id",
"ok": false, "error": "<one line>"}``. :class:`ForestSync` turns one request
into one answer and never raises, so a bad message from a front end can
never put a traceback into someone's notebook.

Node data never lives in a widget trait (ipywidgets re-sends a whole trait
on any change). The view holds ``bates -> (subtree_hash, summary)`` for
what it has shown and walks down from the roots sending the hashes it
holds; :func:`expand` answers only for nodes whose ``subtree_hash``
differs, and leaves out the summary of every child whose hash the view
already holds, and with a row budget sends a whole subtree (a first screen,
a deep chain) in one reply, and with ``reveal`` the way down to one turn
(the current one, on a first screen) in the same reply. A new turn changes
the hashes of its ancestors only (the ripple in
:mod:`arborist.forest.shard`); the root hash tells a view that something
changed, and ``roots`` then lists the turns added since the chain head the
view saw, so a refresh after one new turn costs the same few hundred bytes
at depth 2 or 200. A view that missed too much walks the
tree by hashes again.

Kinds:

``roots``     the session's root hash, its grafts (heads it minted under another
              session's node), current node, next seq, audit chain head, the
              nodes renamed and the turns added since the head the view saw
              last, the store's chain head (``store_seq``: records falsified,
              evicted...) and, given the store head the view saw
              (``store_since``), the state now of every answer that changed
              state since (``restated``, by cache-key prefix)
``poll``      the root hash, both chain heads and the given graft heads' hashes:
              cheap lookups the view repeats to notice other kernels' writes
``expand``    children of the requested nodes whose hash differs from the view's,
              of their descendants up to a ``budget`` of rows, and of the ancestors
              of a node to ``reveal``
``body``      one node's question, answer, record, evidence, proofs, related sources (on open)
``find``      turns of every session matching a query
``cd``        move the session's current node
``label``     rename a node
``falsify``   take the revision of its answer a node showed out of service
``restore``   undo that falsification (a new state event), while no later revision replaced it
``fork``      ask under a node in the background; answered ``{"pending": true}`` at
              once, then an unsolicited ``{"kind": "turn_done", ...}`` message

This module imports nothing from Jupyter: the widget (``arborist_nb.widget``)
only wires it to a comm and to threads.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arborist.app import Arborist
from arborist.audit import head_seq
from arborist.db import snapshot
from arborist.errors import ArboristError, BadInput, NotFound
from arborist.forest.bates import parse_bates
from arborist.forest.reads import (
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
from arborist.forest.shard import FindHit, Node, ancestors, get_session
from arborist.qa.standing import NO_CLAIM, standings
from arborist.store.cache import (
    FALSIFIED_STATES,
    OK,
    CacheRecord,
    RevisionState,
    restated_revisions_since,
    revision_states,
    shown_revision,
)

__all__ = [
    "CACHE_KEY_PREFIX",
    "ForestSync",
    "ForkOutcome",
    "JSON",
    "MAX_ADDED",
    "MAX_BATES_PER_REQUEST",
    "MAX_EXPAND_BUDGET",
    "MAX_FIND_LIMIT",
    "QUESTION_WIDTH",
    "REQUEST_KINDS",
    "StartFork",
    "TreeState",
    "body",
    "expand",
    "find_hits",
    "node_summary",
    "one_line",
    "poll",
    "reopen",
    "roots",
    "run_fork",
    "summary",
    "tree_state",
]

JSON = dict[str, Any]
"""A JSON-ready object: what travels over the widget's comm."""

QUESTION_WIDTH = 100
"""Characters of a question a tree row shows; the body carries it whole."""

CACHE_KEY_PREFIX = 12
"""Hex digits of a cache key a tree row carries (enough to tell answers apart)."""

MAX_BATES_PER_REQUEST = 2_000
"""Most nodes one ``expand`` may name: a deep reveal fits, a runaway loop does not."""

MAX_KNOWN_PER_REQUEST = 20_000
"""Most hashes one request may declare as held."""

MAX_ADDED = 50
"""Most turns a ``roots`` answer lists as added since the view's chain head; beyond
that (an import, a long absence) the view walks by hashes instead."""

MAX_EXPAND_BUDGET = 2_000
"""Most child rows one ``expand`` may return beyond the requested nodes' own children."""

MAX_FIND_LIMIT = 200
"""Most hits one ``find`` returns."""

MAX_ERROR_CHARS = 300
"""An error answer is one line of at most this many characters."""

REQUEST_KINDS = (
    "body",
    "cd",
    "expand",
    "falsify",
    "find",
    "fork",
    "label",
    "poll",
    "restore",
    "roots",
)

_IGNORED_KINDS = ("anywidget-command", "anywidget-command-response")
"""Messages of anywidget's own command protocol share the comm; they are not ours."""


class _BadRequest(BadInput):
    """A request whose shape is wrong (missing id, unknown kind, bad argument)."""


def one_line(error: BaseException | str, limit: int = MAX_ERROR_CHARS) -> str:
    """``error`` as one line of at most ``limit`` characters, fit for a status bar."""
    text = error if isinstance(error, str) else str(error) or type(error).__name__
    if isinstance(error, BaseException) and not isinstance(error, ArboristError):
        text = f"{type(error).__name__}: {text}"
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _short(text: str, width: int = QUESTION_WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


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
    row's audit mode now (:mod:`arborist.qa.standing`) and, where it holds, its support
    level (:mod:`arborist.qa.support`)."""

    revisions: Mapping[str, RevisionState]
    modes: Mapping[str, str]
    supports: Mapping[str, str] = {}  # a NamedTuple default, never mutated


def summary(row: RowSummary, viewer_sid: str, labels: Labels) -> JSON:
    """What a tree row shows of a node. ``foreign``: minted by a session other than the
    viewer's; ``revision``, the revision of its answer the turn showed; ``state``, only when
    that revision is out of service (falsified, stale...: a later revision answering the
    question again changes nothing of it); ``audit_mode``, what the turn can claim now
    (``NONE`` when its answer is not here or does not hold), never merely what it claimed
    when it was written; ``support``, how well its cited evidence covers its question,
    only while it holds."""
    out: JSON = {
        "question": _short(row.question),
        "audit_mode": row.audit_mode
        if not row.cache_key
        else labels.modes.get(row.bates, NO_CLAIM),
        "label": row.label,
        "sid": row.sid,
        "seq": row.seq,
        "foreign": row.sid != viewer_sid,
        "n_children": row.n_children,
        "cache_key": row.cache_key[:CACHE_KEY_PREFIX],
    }
    shown = labels.revisions.get(row.bates)
    if shown is not None:
        out["revision"] = shown[0]
        if shown[2] != OK:
            out["state"] = shown[2]
    support = labels.supports.get(row.bates)
    if support is not None:
        out["support"] = support
    return out


def turn_revisions(
    conn: sqlite3.Connection,
    store: sqlite3.Connection,
    turns: Sequence[tuple[str, str]],
    fallback: Mapping[str, int | None] | None = None,
) -> dict[str, RevisionState]:
    """The revision of its answer each ``(bates, cache_key)`` turn showed, with its state
    now: the latest revision written by the time the turn was (for a turn older than every
    revision here, an imported one, the revision ``fallback`` names, else the latest).
    Turns whose key the store does not hold are left out."""
    turns = [(b, k) for b, k in turns if k]
    if not turns:
        return {}
    times = created_times(conn, [b for b, _k in turns])
    held = revision_states(store, [k for _b, k in turns])
    out: dict[str, RevisionState] = {}
    for bates, key in turns:
        revisions = held.get(key)
        if not revisions:
            continue
        shown = shown_revision(revisions, times.get(bates, ""))
        if shown is None:
            wanted = (fallback or {}).get(bates)
            shown = next((r for r in revisions if r[0] == wanted), revisions[-1])
        out[bates] = shown
    return out


def _states(
    conn: sqlite3.Connection, store: sqlite3.Connection | None, rows: Sequence[RowSummary]
) -> Labels:
    """The revision behind each row and its state, and the mode each row can claim now,
    from the store (none without one: every answered row then claims ``NONE``)."""
    answered = [r for r in rows if r.cache_key]
    if store is None or not answered:
        return Labels({}, {})
    fields = turn_answers(conn, [r.bates for r in answered])
    now = standings(store).many(turn[1:] for turn in fields)
    modes = {turn[0]: found.mode for turn, found in zip(fields, now, strict=True)}
    supports = {
        turn[0]: found.support.level
        for turn, found in zip(fields, now, strict=True)
        if found.support is not None
    }
    fallback = {turn[0]: found.revision for turn, found in zip(fields, now, strict=True)}
    revisions = turn_revisions(conn, store, [(r.bates, r.cache_key) for r in answered], fallback)
    return Labels(revisions, modes, supports)


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


# --- one node ---------------------------------------------------------------------------------


def _record_json(record: CacheRecord) -> JSON:
    """The parts of a cache record a detail pane shows, evidence with proofs included."""
    return {
        "cache_key": record.cache_key,
        "revision": record.revision,
        "state": record.state,
        "state_reason": record.state_reason,
        "audit_mode": record.audit_mode,
        "hit_count": record.hit_count,
        "last_hit_at": record.last_hit_at,
        "created_at": record.created_at,
        "dimensions": record.dimensions,
        "model_profile": record.model_profile,
        "evidence": [item.as_json() for item in record.evidence],
    }


def body(app: Arborist, bates: str, viewer_sid: str) -> JSON:
    """Everything a detail pane shows of one node, fetched when it is opened.

    ``record`` is the store's cache record behind the node (None for a root,
    or when this home's store does not hold it, e.g. an imported session:
    ``record_error`` then says why). ``first_answered`` names the turn that
    paid for this revision of the answer; ``served`` is ``miss`` for that
    turn, ``hit`` for later turns served from the cache, and ``earlier
    revision`` for turns answered by a revision since falsified. ``path`` is
    the node's ancestors, top first, so a view can reveal it in one request.
    ``related`` lists sources co-accessed with the answer's cited chunks (empty
    unless the store records co-access; ``related_error`` says why when they
    could not be read, and nothing else of the pane is lost).
    """
    node = app.node(_checked_bates(bates, "bates"))
    out = _node_json(app.sessions_conn, node, viewer_sid, app.store_conn)
    now = app.audit_now(node)
    out["audit_claimed"] = node.audit_mode  # what the turn was written with (in its hash)
    out["audit_mode"], out["audit_reason"] = now.mode, now.reason
    out["support"] = now.support.as_json() if now.support else None
    if not node.is_root:
        shown = turn_revisions(
            app.sessions_conn, app.store_conn, [(node.bates, node.cache_key)],
            {node.bates: now.revision},
        ).get(node.bates)  # fmt: skip
        _add_answer(app, node, out, shown[0] if shown else now.revision)
    return out


def _node_json(
    conn: sqlite3.Connection, node: Node, viewer_sid: str, store: sqlite3.Connection
) -> JSON:
    """What a detail pane shows of the turn itself; the answer's parts start empty."""
    path = [n.bates for n in reversed(ancestors(conn, node.bates))]
    return {
        "bates": node.bates,
        "sid": node.sid,
        "seq": node.seq,
        "parent": node.parent_bates,
        "path": path,
        "is_root": node.is_root,
        "foreign": node.sid != viewer_sid,
        "question": node.question,
        "answer_text": node.answer_text,
        "cited_titles": list(node.cited_titles),
        "cache_key": node.cache_key,
        "audit_mode": node.audit_mode,
        "audit_reason": None,
        "support": None,
        "node_hash": node.node_hash,
        "subtree_hash": node.subtree_hash,
        "created_at": node.created_at,
        "label": node.label,
        "created_label": node.created_label,
        "summary": node_summary(conn, node, viewer_sid, store),
        "record": None,
        "record_error": None,
        "served": None,
        "first_answered": None,
        "related": [],
        "related_error": None,
        "latest_revision": None,
    }


def _add_answer(app: Arborist, node: Node, out: JSON, revision: int | None) -> None:
    """Fill ``out`` with the cache record behind ``node`` (the revision whose answer it
    showed, when there is one), its related sources, and which turn paid for it; a part
    that cannot be read says why in its ``*_error``."""
    try:
        record = app.record(node.cache_key, revision=revision)
    except ArboristError as exc:
        out["record_error"] = one_line(exc)
        return
    out["record"] = _record_json(record)
    latest = revision_states(app.store_conn, [record.cache_key]).get(record.cache_key, [])
    if latest:
        out["latest_revision"] = {"revision": latest[-1][0], "state": latest[-1][2]}
    try:  # co-access is optional: its failure must not hide the answer and its proofs
        out["related"] = [item.as_json() for item in app.related_to_record(record)]
    except ArboristError as exc:
        out["related_error"] = one_line(exc)
    first = first_turn_since(app.sessions_conn, node.cache_key, record.created_at)
    out["first_answered"] = {
        "created_at": record.created_at,
        "revision": record.revision,
        "bates": first[0] if first else None,
    }
    if node.created_at < record.created_at:
        out["served"] = "earlier revision"
    elif first is None or first[0] == node.bates:
        out["served"] = "miss"
    else:
        out["served"] = "hit"


def find_hits(app: Arborist, query: str, limit: int, viewer_sid: str) -> JSON:
    """Turns of every session matching every word of ``query``, best first, each with
    its session's label (what a view titles the session's group of hits by)."""
    hits: list[FindHit] = app.find(query, limit=limit)
    labels = {sid: app.session(sid).label for sid in {hit.node.sid for hit in hits}}
    nows = [app.audit_now(hit.node) for hit in hits]
    return {
        "query": query,
        "hits": [
            {
                "bates": hit.node.bates,
                "sid": hit.node.sid,
                "seq": hit.node.seq,
                "question": _short(hit.node.question),
                "label": hit.node.label,
                "audit_mode": now.mode,
                "support": now.support.level if now.support else None,
                "foreign": hit.node.sid != viewer_sid,
                "session_label": labels[hit.node.sid],
                "snippet": hit.snippet,
            }
            for hit, now in zip(hits, nows, strict=True)
        ],
    }


# --- forks in the background --------------------------------------------------------------------


def reopen(app: Arborist) -> Arborist:
    """A new facade on the same files, for another thread (sqlite connections are per thread)."""
    return Arborist(
        app.home, store_db=app.store_path, sessions_db=app.sessions_path, create=app.create
    )


@dataclass(frozen=True)
class ForkOutcome:
    """What a background fork produced: the ``turn_done`` message, and the state after it."""

    message: JSON
    state: TreeState | None = field(default=None)


def run_fork(
    template: Arborist,
    sid: str,
    parent: str,
    question: str,
    *,
    llm: str | None = None,
    request_id: object = None,
) -> ForkOutcome:
    """Ask ``question`` under ``parent`` on this thread's own connections; never raises.

    Meant to run on a worker thread: the notebook stays usable while the
    model answers, and the caller sends the returned ``turn_done`` message
    when it is done. ``request`` in the message is the id of the ``fork``
    request it completes.
    """
    try:
        with reopen(template) as app:
            # A fork answers beside the kernel's work: its current turn stays where it is.
            turn = app.ask_turn(question, sid=sid, parent=parent, llm=llm, make_current=False)
            state = tree_state(app.sessions_conn, sid)
    except Exception as exc:  # every failure becomes a message: a thread must not die loudly
        return ForkOutcome(
            {
                "kind": "turn_done",
                "ok": False,
                "request": request_id,
                "parent": parent,
                "error": one_line(exc),
            }
        )
    return ForkOutcome(
        {
            "kind": "turn_done",
            "ok": True,
            "request": request_id,
            "parent": parent,
            "bates": turn.node.bates,
            "hit": turn.result.hit,
        },
        state,
    )


# --- requests -----------------------------------------------------------------------------------


def _checked_bates(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise _BadRequest(f"{name} must be a bates number string")
    parse_bates(value)
    return value.strip()


_TYPE_NAMES = {int: "an integer", str: "a string", list: "a list", dict: "an object"}


def _arg(message: Mapping[str, Any], name: str, kind: type, *, default: object = ...) -> Any:
    if name not in message:
        if default is ...:
            raise _BadRequest(f"missing {name!r}")
        return default
    value = message[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _BadRequest(f"{name!r} must be {_TYPE_NAMES.get(kind, kind.__name__)}")
    return value


def _known(message: Mapping[str, Any]) -> dict[str, str]:
    known = _arg(message, "known", dict, default={})
    if len(known) > MAX_KNOWN_PER_REQUEST:
        raise _BadRequest(
            f"'known' holds {len(known)} hashes; the limit is {MAX_KNOWN_PER_REQUEST}"
        )
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in known.items()):
        raise _BadRequest("'known' must map bates numbers to subtree hashes (strings)")
    return dict(known)


def _bates_list(message: Mapping[str, Any], name: str, *, default: object = ...) -> list[str]:
    values = _arg(message, name, list, default=default)
    if len(values) > MAX_BATES_PER_REQUEST:
        raise _BadRequest(
            f"{name!r} names {len(values)} nodes; the limit is {MAX_BATES_PER_REQUEST}"
        )
    return [_checked_bates(v, name) for v in values]


StartFork = Callable[[str, str, object], None]
"""Starts a fork ``(parent_bates, question, request_id)`` without waiting for it."""


class ForestSync:
    """Answers one view's requests about session ``sid`` of the home ``app`` opens.

    ``app`` is used as a template only: every thread that asks gets its own
    facade on the same files (sqlite connections belong to the thread that
    opened them, and a kernel may run comm handlers, cells and forks on
    different threads), so this class never touches ``app``'s connections.
    Without ``sid`` it shows the most recently created session, or starts
    one in an empty home.

    ``start_fork`` runs a fork in the background (the widget gives it a
    thread); ``on_change`` is told the new :class:`TreeState` after a
    request that moved it (``cd``), so the widget can mirror it in traits.
    """

    def __init__(
        self,
        app: Arborist,
        sid: str | None = None,
        *,
        start_fork: StartFork | None = None,
        on_change: Callable[[TreeState], None] | None = None,
    ) -> None:
        self.template = app
        self._local = threading.local()
        self._start_fork = start_fork
        self._on_change = on_change
        if sid is None:
            sessions = self.app.sessions()
            sid = sessions[-1][0].sid if sessions else self.app.new_session().sid
        self.sid = get_session(self.app.sessions_conn, sid).sid

    @property
    def app(self) -> Arborist:
        """This thread's own facade on the template's files."""
        facade: Arborist | None = getattr(self._local, "app", None)
        if facade is None:
            facade = reopen(self.template)
            self._local.app = facade
        return facade

    def close(self) -> None:
        """Close the facade of the calling thread (the only thread that may close it)."""
        facade: Arborist | None = getattr(self._local, "app", None)
        if facade is not None:
            facade.close()
            self._local.app = None

    def state(self) -> TreeState:
        """The session's state now."""
        return tree_state(self.app.sessions_conn, self.sid)

    def handle(self, message: object) -> JSON | None:
        """The answer to ``message``, or None for a message that is not a request of ours.

        Never raises: a bad request, an arborist error or a bug all become
        ``{"id", "ok": false, "error": "<one line>"}``.
        """
        if not isinstance(message, dict):
            return None
        kind = message.get("kind")
        if kind in _IGNORED_KINDS:
            return None
        request_id = message.get("id")
        if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
            return {
                "id": None,
                "ok": False,
                "error": "request has no 'id' (a string or an integer)",
            }
        try:
            if not isinstance(kind, str) or kind not in REQUEST_KINDS:
                raise _BadRequest(
                    f"unknown request kind {kind!r}: expected one of {', '.join(REQUEST_KINDS)}"
                )
            result = getattr(self, f"_{kind}")(message)
        except Exception as exc:  # the handler must answer, whatever went wrong
            return {"id": request_id, "ok": False, "error": one_line(exc)}
        return {"id": request_id, "ok": True, "result": result}

    # One method per kind; each validates its own arguments.

    def _store_seq(self) -> int:
        """The store's chain head: a falsify, evict or rehydrate elsewhere moves it."""
        return head_seq(self.app.store_conn)

    def _roots(self, message: Mapping[str, Any]) -> JSON:
        since = message.get("since")
        if since is not None and (
            not isinstance(since, int) or isinstance(since, bool) or since < 0
        ):
            raise _BadRequest("'since' must be null or an audit event seq (0 or more)")
        store_since = message.get("store_since")
        if store_since is not None and (
            not isinstance(store_since, int) or isinstance(store_since, bool) or store_since < 0
        ):
            raise _BadRequest("'store_since' must be null or a store event seq (0 or more)")
        answer = roots(
            self.app.sessions_conn, self.sid, _known(message), since, self.app.store_conn
        )
        answer["store_seq"] = self._store_seq()
        if store_since is not None:
            restated = restated_revisions_since(self.app.store_conn, store_since, MAX_ADDED)
            answer["restated"] = (
                None
                if restated is None
                else {
                    key[:CACHE_KEY_PREFIX]: {str(rev): state for rev, state in states.items()}
                    for key, states in restated.items()
                }
            )
        return answer

    def _poll(self, message: Mapping[str, Any]) -> JSON:
        grafts = _bates_list(message, "grafts", default=[])
        return poll(self.app.sessions_conn, self.sid, grafts) | {"store_seq": self._store_seq()}

    def _expand(self, message: Mapping[str, Any]) -> JSON:
        budget = _arg(message, "budget", int, default=0)
        if not 0 <= budget <= MAX_EXPAND_BUDGET:
            raise _BadRequest(f"'budget' must be between 0 and {MAX_EXPAND_BUDGET}")
        reveal = message.get("reveal")
        return expand(
            self.app.sessions_conn,
            self.sid,
            _known(message),
            _bates_list(message, "bates"),
            budget,
            None if reveal is None else _checked_bates(reveal, "reveal"),
            self.app.store_conn,
        )

    def _body(self, message: Mapping[str, Any]) -> JSON:
        return body(self.app, _checked_bates(message.get("bates"), "bates"), self.sid)

    def _find(self, message: Mapping[str, Any]) -> JSON:
        query = _arg(message, "query", str)
        limit = _arg(message, "limit", int, default=20)
        if not 1 <= limit <= MAX_FIND_LIMIT:
            raise _BadRequest(f"'limit' must be between 1 and {MAX_FIND_LIMIT}")
        return find_hits(self.app, query, limit, self.sid)

    def _cd(self, message: Mapping[str, Any]) -> JSON:
        node = self.app.cd(self.sid, _checked_bates(message.get("bates"), "bates"))
        state = self.state()
        if self._on_change is not None:
            self._on_change(state)
        return {"current_bates": node.bates}

    def _label(self, message: Mapping[str, Any]) -> JSON:
        bates = _checked_bates(message.get("bates"), "bates")
        node = self.app.label(self.sid, _arg(message, "label", str), bates)
        return {
            "bates": node.bates,
            "label": node.label,
            "summary": node_summary(self.app.sessions_conn, node, self.sid, self.app.store_conn),
        }

    def _shown(self, node: Node) -> RevisionState | None:
        """The revision of its answer ``node`` showed (see :func:`turn_revisions`)."""
        return turn_revisions(
            self.app.sessions_conn, self.app.store_conn, [(node.bates, node.cache_key)],
            {node.bates: self.app.audit_now(node).revision},
        ).get(node.bates)  # fmt: skip

    def _answered(self, message: Mapping[str, Any], what: str) -> tuple[Node, RevisionState]:
        node = self.app.node(_checked_bates(message.get("bates"), "bates"))
        if node.is_root:
            raise BadInput(f"{node.bates} is a session root: it has no answer to {what}")
        shown = self._shown(node)
        if shown is None:
            raise NotFound(f"no cache record with key {node.cache_key[:12]}… in this home")
        return node, shown

    def _falsify(self, message: Mapping[str, Any]) -> JSON:
        """Falsify the revision the turn showed, never a later one: when the question was
        answered again since, the turn's own revision is what the reader judged."""
        state = _arg(message, "state", str)
        if state not in FALSIFIED_STATES:
            raise _BadRequest(f"bad state {state!r}: choose one of {', '.join(FALSIFIED_STATES)}")
        reason = _arg(message, "reason", str)
        node, shown = self._answered(message, "falsify")
        record = self.app.falsify(node.cache_key, state, reason, revision=shown[0])
        return self._state_answer(node, record)

    def _restore(self, message: Mapping[str, Any]) -> JSON:
        """Undo the falsification of the revision the turn showed (a new ``cache_state``
        event: the store's chain is append-only), while no later answer replaced it."""
        node, shown = self._answered(message, "restore")
        record = self.app.restore(node.cache_key, shown[0])
        return self._state_answer(node, record)

    def _state_answer(self, node: Node, record: CacheRecord) -> JSON:
        return {
            "bates": node.bates,
            "cache_key": record.cache_key,
            "revision": record.revision,
            "state": record.state,
            "state_reason": record.state_reason,
            "summary": node_summary(self.app.sessions_conn, node, self.sid, self.app.store_conn),
        }

    def _fork(self, message: Mapping[str, Any]) -> JSON:
        parent = self.app.node(_checked_bates(message.get("bates"), "bates"))
        question = _arg(message, "question", str)
        if not question.strip():
            raise BadInput("empty question: type what to ask under this turn")
        if self._start_fork is None:
            raise BadInput("this view cannot fork: no background runner")
        self._start_fork(parent.bates, question, message.get("id"))
        return {"pending": True, "parent": parent.bates}
