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
:mod:`arborist._forest.shard`); the root hash tells a view that something
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
``ask``       the first question of a view with no session yet, as ``fork`` is answered:
              its turn makes the session (issue #26), which the view shows from then on

A view with no session yet (an empty home, a kernel before its first question) writes
nothing: ``roots``, ``poll``, ``expand``, ``cd`` and ``label`` answer that there is none,
until :meth:`ForestSync.adopt` names the session the first turn made.

This module imports nothing from Jupyter: the widget (``arborist_nb._widget``)
only wires it to a comm and to threads. It answers the requests; what it reads of the
forest, diffed by hash, is :mod:`arborist._forest.tree_sync` (through the facade's
``forest_view``), and what a request may hold, :mod:`arborist._faces.sync_args`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arborist._errors import ArboristError, BadInput, NoDocuments, NotFound, one_line
from arborist._facade.app import Arborist
from arborist._facade.asks import Ask
from arborist._faces.sync_args import (
    BadRequest,
    arg,
    bates_list,
    checked_bates,
    error_line,
    known_hashes,
)
from arborist._forest.nodes import Node
from arborist._forest.shard import FindHit
from arborist._forest.tree_sync import (
    CACHE_KEY_PREFIX,
    JSON,
    MAX_ADDED,
    QUESTION_WIDTH,
    ForestView,
    TreeState,
)
from arborist._store.cache.records import FALSIFIED_STATES, CacheRecord
from arborist._store.cache.states import RevisionState

__all__ = [
    "ForestSync",
    "ForkOutcome",
    "MAX_EXPAND_BUDGET",
    "MAX_FIND_LIMIT",
    "REQUEST_KINDS",
    "StartFork",
    "body",
    "find_hits",
    "reopen",
    "run_fork",
]

MAX_EXPAND_BUDGET = 2_000
"""Most child rows one ``expand`` may return beyond the requested nodes' own children."""

MAX_FIND_LIMIT = 200
"""Most hits one ``find`` returns."""

NO_SESSION = "no session yet: its first question (a %%ask cell, or the widget's ask) makes it"

REQUEST_KINDS = (
    "body",
    "cd",
    "expand",
    "ask",
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


# --- one node ---------------------------------------------------------------------------------


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
    node = app.node(checked_bates(bates, "bates"))
    view = app.forest_view()
    out = _node_json(view, node, viewer_sid)
    facts = app.facts(node)  # what every face shows of the turn, computed once
    out["facts"] = facts.as_json()
    out["audit_claimed"] = node.audit_mode  # what the turn was written with (in its hash)
    out["audit_mode"], out["audit_reason"] = facts.mode, facts.mode_reason
    out["support"] = facts.support.as_json() if facts.support else None
    if not node.is_root and (elsewhere := app.imported_record(node)) is not None:
        out["record"] = elsewhere.as_json()  # answered in another home: its imported record
    elif not node.is_root:
        shown = view.shown(node, facts.revision)
        _add_answer(app, view, node, out, shown[0] if shown else facts.revision)
    if facts.served is not None:  # hit or miss, and who paid: the facts' own, as every face's
        out["served"] = facts.served
        out["first_answered"] = facts.as_json()["first_answered"]
    return out


def _node_json(view: ForestView, node: Node, viewer_sid: str) -> JSON:
    """What a detail pane shows of the turn itself; the answer's parts start empty."""
    path = view.path(node.bates)
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
        "summary": view.summary(node, viewer_sid),
        "record": None,
        "record_error": None,
        "served": None,
        "first_answered": None,
        "related": [],
        "related_error": None,
        "latest_revision": None,
    }


def _add_answer(
    app: Arborist, view: ForestView, node: Node, out: JSON, revision: int | None
) -> None:
    """Fill ``out`` with the cache record behind ``node`` (the revision whose answer it
    showed, when there is one), its related sources, and which turn paid for it; a part
    that cannot be read says why in its ``*_error``."""
    try:
        record = app.record(node.cache_key, revision=revision)
    except ArboristError as exc:
        out["record_error"] = error_line(exc)
        return
    out["record"] = record.as_json()  # the one shape of a record, in every face
    latest = view.revisions(record.cache_key)
    if latest:
        out["latest_revision"] = {"revision": latest[-1][0], "state": latest[-1][2]}
    try:  # co-access is optional: its failure must not hide the answer and its proofs
        out["related"] = [item.as_json() for item in app.related_to_record(record)]
    except ArboristError as exc:
        out["related_error"] = error_line(exc)
    first = view.first_turn_since(node.cache_key, record.created_at)
    out["first_answered"] = {
        "created_at": record.created_at,
        "revision": record.revision,
        "bates": first[0] if first else None,
    }


def find_hits(app: Arborist, query: str, limit: int, viewer_sid: str) -> JSON:
    """Turns of every session matching every word of ``query``, best first, each with
    its session's label (what a view titles the session's group of hits by) and, for an
    answer out of service, its state and why (a hit shows both, as a row does)."""
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
                "question": one_line(hit.node.question, QUESTION_WIDTH),
                "label": hit.node.label,
                "audit_mode": now.mode,
                "support": now.support.level if now.support else None,
                "state": now.state if now.withdrawn else None,
                "state_reason": now.state_reason if now.withdrawn else None,
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
    template: Arborist, asked: Ask, *, request_id: object = None, ingest: str | None = None
) -> ForkOutcome:
    """Ask ``asked`` on this thread's own connections; never raises.

    Meant to run on a worker thread: the notebook stays usable while the
    model answers, and the caller sends the returned ``turn_done`` message
    when it is done. ``request`` in the message is the id of the ``fork`` (or
    ``ask``) request it completes; the state is that of the turn's session (a new
    one when ``asked.sid`` is None: the session its first turn made). ``ingest`` is how the
    face that asked names the ingest command, for an empty store's refusal (a notebook's
    widget: ``%arborist ingest --demo``).
    """
    done: JSON = {"kind": "turn_done", "request": request_id, "parent": asked.parent}
    try:
        with reopen(template) as app:
            turn = app.ask_turn(asked)
            state = app.forest_view().state(turn.node.sid)
    except NoDocuments as exc:
        said = exc if ingest is None else NoDocuments(ingest)
        return ForkOutcome(done | {"ok": False, "error": error_line(said)})
    except Exception as exc:  # every failure becomes a message: a thread must not die loudly
        return ForkOutcome(done | {"ok": False, "error": error_line(exc)})
    return ForkOutcome(done | {"ok": True, "bates": turn.node.bates, "hit": turn.result.hit}, state)


StartFork = Callable[[str | None, str, object], None]
"""Starts a fork ``(parent_bates, question, request_id)`` without waiting for it (parent
None: the ``ask`` of a view with no session yet)."""


class ForestSync:
    """Answers one view's requests about session ``sid`` of the home ``app`` opens.

    ``app`` is used as a template only: every thread that asks gets its own
    facade on the same files (sqlite connections belong to the thread that
    opened them, and a kernel may run comm handlers, cells and forks on
    different threads), so this class never touches ``app``'s connections.
    Without ``sid`` it shows the most recently created session (``latest``; else none)
    and, in an empty home, none: it writes nothing, and waits for the first turn.

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
        latest: bool = True,
    ) -> None:
        self.template = app
        self._local = threading.local()
        self._start_fork = start_fork
        self._on_change = on_change
        if sid is None and latest:
            sessions = self.app.sessions()
            sid = sessions[-1][0].sid if sessions else None
        self.sid: str | None = None if sid is None else self.app.session(sid).sid

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

    def state(self) -> TreeState | None:
        """The session's state now (None: no session yet)."""
        return None if self.sid is None else self.app.forest_view().state(self.sid)

    def adopt(self, sid: str) -> TreeState:
        """Show session ``sid`` from now on (the one a waiting view's first turn made)."""
        state = self.app.forest_view().state(sid)
        self.sid = state.sid
        return state

    def _sid(self) -> str:
        """The session shown, for a request that needs one."""
        if self.sid is None:
            raise BadInput(NO_SESSION)
        return self.sid

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
                raise BadRequest(
                    f"unknown request kind {kind!r}: expected one of {', '.join(REQUEST_KINDS)}"
                )
            result = getattr(self, f"_{kind}")(message)
        except Exception as exc:  # the handler must answer, whatever went wrong
            return {"id": request_id, "ok": False, "error": error_line(exc)}
        return {"id": request_id, "ok": True, "result": result}

    # One method per kind; each validates its own arguments.

    def _roots(self, message: Mapping[str, Any]) -> JSON:
        since = message.get("since")
        if since is not None and (
            not isinstance(since, int) or isinstance(since, bool) or since < 0
        ):
            raise BadRequest("'since' must be null or an audit event seq (0 or more)")
        store_since = message.get("store_since")
        if store_since is not None and (
            not isinstance(store_since, int) or isinstance(store_since, bool) or store_since < 0
        ):
            raise BadRequest("'store_since' must be null or a store event seq (0 or more)")
        view = self.app.forest_view()
        answer = view.roots(self._sid(), known_hashes(message), since)
        answer["store_seq"] = view.store_head()
        if store_since is not None:
            restated = view.restated_since(store_since, MAX_ADDED)
            answer["restated"] = (
                None
                if restated is None
                else {
                    key[:CACHE_KEY_PREFIX]: {str(rev): state for rev, state in states.items()}
                    for key, states in restated.items()
                }
            )
            if restated:  # why each is out of service, beside its state (a row shows both)
                answer["restated_reasons"] = {
                    key[:CACHE_KEY_PREFIX]: {str(rev): why for rev, why in reasons.items()}
                    for key, reasons in view.state_reasons(restated).items()
                }
        return answer

    def _poll(self, message: Mapping[str, Any]) -> JSON:
        grafts = bates_list(message, "grafts", default=[])
        view = self.app.forest_view()
        return view.poll(self._sid(), grafts) | {"store_seq": view.store_head()}

    def _expand(self, message: Mapping[str, Any]) -> JSON:
        budget = arg(message, "budget", int, default=0)
        if not 0 <= budget <= MAX_EXPAND_BUDGET:
            raise BadRequest(f"'budget' must be between 0 and {MAX_EXPAND_BUDGET}")
        reveal = message.get("reveal")
        return self.app.forest_view().expand(
            self._sid(),
            known_hashes(message),
            bates_list(message, "bates"),
            budget,
            None if reveal is None else checked_bates(reveal, "reveal"),
        )

    def _body(self, message: Mapping[str, Any]) -> JSON:
        return body(self.app, checked_bates(message.get("bates"), "bates"), self.sid or "")

    def _find(self, message: Mapping[str, Any]) -> JSON:
        query = arg(message, "query", str)
        limit = arg(message, "limit", int, default=20)
        if not 1 <= limit <= MAX_FIND_LIMIT:
            raise BadRequest(f"'limit' must be between 1 and {MAX_FIND_LIMIT}")
        return find_hits(self.app, query, limit, self.sid or "")

    def _cd(self, message: Mapping[str, Any]) -> JSON:
        sid = self._sid()
        node = self.app.cd(sid, checked_bates(message.get("bates"), "bates"))
        state = self.app.forest_view().state(sid)
        if self._on_change is not None:
            self._on_change(state)
        return {"current_bates": node.bates}

    def _label(self, message: Mapping[str, Any]) -> JSON:
        bates = checked_bates(message.get("bates"), "bates")
        node = self.app.label(self._sid(), arg(message, "label", str), bates)
        return {
            "bates": node.bates,
            "label": node.label,
            "summary": self.app.forest_view().summary(node, self.sid or ""),
        }

    def _shown(self, node: Node) -> RevisionState | None:
        """The revision of its answer ``node`` showed (see :func:`turn_revisions`)."""
        return self.app.forest_view().shown(node, self.app.audit_now(node).revision)

    def _answered(self, message: Mapping[str, Any], what: str) -> tuple[Node, RevisionState]:
        node = self.app.node(checked_bates(message.get("bates"), "bates"))
        if node.is_root:
            raise BadInput(f"{node.bates} is a session root: it has no answer to {what}")
        shown = self._shown(node)
        if shown is None:
            raise NotFound(f"no cache record with key {node.cache_key[:12]}… in this home")
        return node, shown

    def _falsify(self, message: Mapping[str, Any]) -> JSON:
        """Falsify the revision the turn showed, never a later one: when the question was
        answered again since, the turn's own revision is what the reader judged."""
        state = arg(message, "state", str)
        if state not in FALSIFIED_STATES:
            raise BadRequest(f"bad state {state!r}: choose one of {', '.join(FALSIFIED_STATES)}")
        reason = arg(message, "reason", str)
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
            "summary": self.app.forest_view().summary(node, self.sid or ""),
        }

    def _fork(self, message: Mapping[str, Any]) -> JSON:
        parent = self.app.node(checked_bates(message.get("bates"), "bates"))
        return self._begin(parent.bates, arg(message, "question", str), message.get("id"))

    def _ask(self, message: Mapping[str, Any]) -> JSON:
        if self.sid is not None:
            raise BadInput("this view's session has turns: ask under one of them (fork)")
        return self._begin(None, arg(message, "question", str), message.get("id"))

    def _begin(self, parent: str | None, question: str, request_id: object) -> JSON:
        if not question.strip():
            where = " under this turn" if parent else ""
            raise BadInput(f"empty question: type what to ask{where}")
        if self._start_fork is None:
            raise BadInput("this view cannot fork: no background runner")
        self._start_fork(parent, question, request_id)
        return {"pending": True, "parent": parent}
