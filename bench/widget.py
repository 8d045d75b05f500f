"""What the forest widget costs, measured against the widget issue's "done when".

    python bench/widget.py [--quick] [--no-browser] [--support-only] [--runs N] [--repeat N]

The goal: a 200-deep chain and a 10,000-turn session (fan-out 10) render
their first screen in headless chromium in <= 1 s and <= 3 request/reply
round trips, and a refresh after one new turn sends <= 5 KB (5,000 bytes)
in both directions together, counting the view's requests and the kernel's
replies. Both sessions are built through arborist's import path (generated
lines, every node hash real and re-proved on import); their current turn is
the deepest one, as a notebook that asked its way down leaves it. Machines
here are shared and noisy: timings are medians of repeats. ``--quick`` (the smoke run
of ``make test``) builds the bushy session with 1,000 turns, not 10,000, in every section.

1. **First screen**, in a real JupyterLab on loopback started with the
   browser tests' harness (``tests/browser/conftest.py``; the kernel imports
   this checkout's arborist and bundle through ``PYTHONPATH``): a notebook
   resumes the session and displays ``%arborist``. From running the widget
   cell (``performance.now()`` in the page) to
   ``[data-arborist-forest][data-ready="true"]`` (the tree synced and drawn:
   what the goal names) and to the first frame after it; then to the current
   turn shown (its detail pane filled and its row in the tree: the view opens
   it right after the tree). At each point the round trips and bytes both ways
   come from the view's own counters (``data-traffic-*``, which
   ``js/src/requests.js`` keeps for every request and reply), the rows from
   the tree's ``data-rows`` (all rows) and ``data-rendered-rows`` (those in
   the DOM: the tree is virtualized above 200 rows). Each run is a reloaded
   page with a fresh kernel. The verdicts: the median first frame, the worst
   run's round trips.
2. **Refresh after one new turn**, on the last run's page, both ways a turn
   can arrive, each round one turn deeper than the last: a ``%%ask --parent``
   cell in the same notebook under the deepest turn (the kernel sends the
   widget's new traits and the view asks), then a turn inserted under that
   one by another process (this one), which the view's poll (every 2 s)
   notices. From the view being idle to the new turn's row in the tree (or
   ``data-rows`` grown) with every request answered: the ``data-traffic-*``
   deltas, the goal's measure. A tap on the kernel websocket names each
   request (its kind) and adds what the counters leave out: the kernel's
   trait updates (anywidget ``update`` messages) and the bytes of whole
   frames, Jupyter's envelopes included.
3. **Sync in Python**, through the widget's comm handler
   (``ForestWidget._handle_custom_msg``) with no browser: a view that walks
   the 10,000-turn session (1,000 with ``--quick``) as ``js/src/store.js``
   does (``expand`` with its row budget, hashes held sent as ``known``) with
   every node expanded: the full state, the baseline. Then one turn is added
   under a deepest node and the view refreshes: one ``roots`` with ``since``
   (the chain head it saw), which lists the turns ``added``; and, for a view
   that missed more than ``MAX_ADDED`` turns, the walk by hashes. Bytes are
   compact JSON, both ways. Then the same ``roots`` after one new turn at
   the foot of the 200-deep chain, against one just under the root: bytes
   that do not grow with depth.
4. **Support on the sync path** (``--support-only``: this section alone): a session of as
   many turns as section 3 whose every turn shows one of up to 150 real answers (the
   extractive answerer over the demo corpus), so that each row's standing is checked and
   its support measured. Full walks of a fresh view, each right after a write to the
   store (which makes every standing be checked again): with no support measure held
   (every row measured, as before :data:`arborist._qa.support.MEMO`) and with the memo
   the walks before filled; the seconds spent measuring, counted by wrapping
   ``arborist._qa.support.measure``, and the ratio of the two walks' medians.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anywidget
import jupyterlab
from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1
from playwright.sync_api import Page, WebSocket, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arborist._clock import format_timestamp
from arborist._facade.app import Arborist
from arborist._forest.bates import format_bates
from arborist._forest.shard import insert_turn
from arborist._forest.transfer import EXPORT_FORMAT
from arborist._proofs.hashing import node_hash, sha256_hex
from arborist._qa import support
from arborist._qa.standing import cited_titles
from arborist._store.search import AUDIT_MODES
from arborist_nb._widget import ForestWidget
from tests.browser.conftest import (
    CELL_MS,
    KERNEL_READY_MS,
    STATIC,
    Guard,
    Lab,
    LabServer,
    _stop,
    guarded_browser,
    start_server,
)

REPO = Path(__file__).resolve().parents[1]

# The goals (the widget issue's "done when").
GOAL_FIRST_SCREEN_MS = 1_000
GOAL_ROUND_TRIPS = 3
GOAL_REFRESH_BYTES = 5_000  # 5 KB, both directions together

CHAIN_DEPTH = 200
BUSHY_TURNS = 10_000
BUSHY_FAN = 10
AUTO_EXPAND_ROWS = 150  # js/src/store.js AUTO_EXPAND_ROWS: the row budget every expand sends
EXPAND_BATCH = 500  # js/src/store.js EXPAND_BATCH: most nodes one expand request names
REFRESH_MS = 30_000  # a new turn must reach the tree in this time (the poll runs every 2 s)
QUIET_MS = 400  # the view is idle once its counters held still this long, all answered

DOCUMENT = """# Quokka

The quokka is a small wallaby of Rottnest Island. It eats leaves, grasses and
the stems of shrubs, and it can go a long time without drinking.
"""


def _compact(value: Any) -> int:
    """Bytes of ``value`` as compact JSON: what ``jsonBytes`` in js/src/text.js counts."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


# --------------------------------------------------------------------------- building a session


@dataclass(frozen=True)
class Session:
    """A built session: its sid, turns, deepest turns (breadth-first order) and depth."""

    sid: str
    turns: int
    deepest: list[str]
    depth: int
    build_s: float


def _node_lines(
    sid: str,
    root_hash: str,
    root_time: str,
    fan: int,
    turns: int,
    like: Sequence[dict[str, Any]] = (),
) -> Iterator[dict[str, Any]]:
    """Export records of ``turns`` turns under the root, ``fan`` under each node, breadth
    first (fan 1 is a chain), every node hash real, each a microsecond after the one before
    (from the root's time: no turn is older than its parent); ``_depth`` is for the caller
    to drop. With ``like`` (turn fields of real answers: question, answer_text, cache_key,
    audit_mode, cited_titles), turn n shows ``like[n % len(like)]``: a turn whose answer
    the store holds, so its standing is checked and its support measured."""
    base = datetime.datetime.fromisoformat(root_time)
    level = [(format_bates(sid, 0), root_hash)]
    seq = depth = 0
    while seq < turns:
        depth += 1
        below = []
        for parent, parent_hash in level:
            for k in range(fan):
                if seq == turns:
                    break
                seq += 1
                bates = format_bates(sid, seq)
                question = (
                    f"Question {seq}: what does branch {k} of {parent} say about item {seq % 97}?"
                )
                answer = f"Answer {seq}: branch {k} says item {seq % 97} was recorded in volume {seq % 13}."
                cache_key = sha256_hex(f"key-{seq % 1_000}".encode())
                audit_mode = AUDIT_MODES[seq % 3]
                cited = [f"Volume {seq % 13}"]
                if like:
                    shown = like[seq % len(like)]
                    question, answer, cache_key = (
                        shown["question"],
                        shown["answer_text"],
                        shown["cache_key"],
                    )
                    audit_mode, cited = shown["audit_mode"], list(shown["cited_titles"])
                created_at = format_timestamp(base + datetime.timedelta(microseconds=seq))
                digest = node_hash(
                    parent_node_hash=parent_hash,
                    bates=bates,
                    question=question,
                    cache_key=cache_key,
                    audit_mode=audit_mode,
                    created_at=created_at,
                    label=None,
                )
                yield {
                    "type": "node",
                    "bates": bates,
                    "parent_bates": parent,
                    "question": question,
                    "answer_text": answer,
                    "cache_key": cache_key,
                    "audit_mode": audit_mode,
                    "cited_titles": cited,
                    "created_at": created_at,
                    "created_label": None,
                    "label": None,
                    "node_hash": digest,
                    "_depth": depth,
                }
                below.append((bates, digest))
        level = below


def build_session(home: Path, fan: int, turns: int, like: Sequence[dict[str, Any]] = ()) -> Session:
    """A session of ``turns`` turns, ``fan`` under each node, whose current turn is the last
    of the deepest ones (where a notebook that asked its way down would be); ``like``: see
    :func:`_node_lines`."""
    start = time.perf_counter()
    # The session is made in a home of its own and imported whole, root and all: an import
    # adds no turn to a session the importing home holds (docs/guarantees.md).
    with Arborist(home.with_name(f"{home.name}-source")) as source:
        sid = source.new_session("bench").sid
        header, root = source.export_session(sid)[:2]
    header["format"] = EXPORT_FORMAT
    records = list(_node_lines(sid, root["node_hash"], root["created_at"], fan, turns, like))
    depth = records[-1]["_depth"]
    deepest = [r["bates"] for r in records if r["_depth"] == depth]
    for r in records:
        del r["_depth"]
    lines = [json.dumps(r) for r in [header, root, *records]]
    with Arborist(home) as app:
        result = app.import_sessions(lines)
        assert result.added >= len(records), result
        app.cd(sid, deepest[-1])
    return Session(sid, len(records), deepest, depth, time.perf_counter() - start)


# --------------------------------------------------------------------------- 3. sync in Python


@dataclass
class Node:
    """What a view holds of one node (js/src/store.js's per-node record)."""

    hash: str | None = None
    summary: dict[str, Any] | None = None
    children: list[str] | None = None
    children_hash: str | None = None


class View:
    """js/src/store.js's ``ForestStore`` walk with every node expanded, in Python.

    Requests go through the widget's comm handler; answers are caught from
    its ``send``. Both directions are counted in bytes of compact JSON, as the
    browser view counts them. The session has no grafts (neither built one does).
    """

    def __init__(self, widget: ForestWidget, budget: int = AUTO_EXPAND_ROWS) -> None:
        self.widget = widget
        self.budget = budget
        self.replies: list[dict[str, Any]] = []
        self.nodes: dict[str, Node] = {}
        self.parents: dict[str, str] = {}
        self.root: str | None = None
        self.event_seq: int | None = None
        self.synced = False
        self.counter = 0
        self.traffic: list[tuple[str, int, int]] = []  # (kind, request bytes, reply bytes)

    def _receive(self, content: dict[str, Any], buffers: Any = None) -> None:
        self.replies.append(content)

    def request(self, kind: str, **args: Any) -> Any:
        self.counter += 1
        message = {**args, "id": f"b-{self.counter}", "kind": kind}
        before = len(self.replies)
        self.widget.send = self._receive
        self.widget._handle_custom_msg(message, [])
        (reply,) = self.replies[before:]
        assert reply["ok"] is True, reply
        self.traffic.append((kind, _compact(message), _compact(reply)))
        return reply["result"]

    def stale(self, bates: str) -> bool:
        node = self.nodes.get(bates)
        return node is None or node.children is None or node.children_hash != node.hash

    def sync(self, *, since: bool = True) -> None:
        """One refresh: ``roots``; the turns it lists as added, or else a walk by hashes.
        ``since=False`` is a view that missed more than ``MAX_ADDED`` turns."""
        answer = self.request(
            "roots", known={}, since=self.event_seq if since and self.synced else None
        )
        assert not answer["grafts"], "the bench sessions have no grafts"
        delta = self.synced and isinstance(answer["added"], list)
        self.event_seq = answer["event_seq"]
        self.root = answer["root_bates"]
        if delta:
            for added in answer["added"]:
                self._add(added)
        root = self.nodes.setdefault(self.root, Node())
        root.hash = answer["root_hash"]
        if delta and root.children is not None:
            root.children_hash = root.hash
        elif self.stale(self.root):
            self._descend([self.root])
        self.synced = True

    def _add(self, added: dict[str, Any]) -> None:
        """store.js ``addTurn``: the turn under its parent, its ancestors' hashes forgotten."""
        parent = self.nodes.get(added["parent_bates"])
        if parent is None or added["bates"] in self.nodes:
            return
        self.nodes[added["bates"]] = Node(
            added["subtree_hash"], added["summary"], [], added["subtree_hash"]
        )
        self.parents[added["bates"]] = added["parent_bates"]
        if parent.children is not None:
            parent.children.append(added["bates"])
        up: str | None = added["parent_bates"]
        while up is not None and up in self.nodes:
            self.nodes[up].hash = self.nodes[up].children_hash = None
            up = self.parents.get(up)

    def _descend(self, frontier: list[str]) -> None:
        level = list(dict.fromkeys(frontier))
        while level:
            below: list[str] = []
            for start in range(0, len(level), EXPAND_BATCH):
                below += self._expand(level[start : start + EXPAND_BATCH])
            level = [b for b in dict.fromkeys(below) if self.stale(b)]

    def _expand(self, batch: list[str]) -> list[str]:
        known: dict[str, str] = {}
        asked = set(batch)
        for bates in batch:
            node = self.nodes.get(bates)
            if node is None:
                continue
            if node.children is not None and node.children_hash:
                known[bates] = node.children_hash
            for child in node.children or []:
                held = self.nodes.get(child)
                if child not in asked and held is not None and held.summary and held.hash:
                    known[child] = held.hash
        reply = self.request("expand", known=known, bates=batch, budget=self.budget)
        below = []
        for bates, entry in reply["nodes"].items():
            node = self.nodes.setdefault(bates, Node())
            node.hash = node.children_hash = entry["subtree_hash"]
            node.children = [c["bates"] for c in entry["children"]]
            for child in entry["children"]:
                held = self.nodes.setdefault(child["bates"], Node())
                self.parents[child["bates"]] = bates
                held.hash = child.get("subtree_hash", known.get(child["bates"], held.hash))
                held.summary = child.get("summary", held.summary)
                if held.children is None and held.summary and held.summary["n_children"] == 0:
                    held.children, held.children_hash = [], held.hash  # a leaf
                below.append(child["bates"])
        return below

    def walk(self, *, since: bool = True) -> tuple[int, int, int, float]:
        """One refresh: (request bytes, reply bytes, round trips, seconds)."""
        mark = len(self.traffic)
        start = time.perf_counter()
        self.sync(since=since)
        elapsed = time.perf_counter() - start
        spent = self.traffic[mark:]
        return sum(t[1] for t in spent), sum(t[2] for t in spent), len(spent), elapsed

    def shape(self) -> dict[str, list[str] | None]:
        return {bates: node.children for bates, node in self.nodes.items()}


@dataclass
class Walk:
    """One refresh's cost: bytes both ways, round trips, seconds."""

    request_bytes: int
    reply_bytes: int
    trips: int
    seconds: float

    @property
    def bytes(self) -> int:
        return self.request_bytes + self.reply_bytes


@dataclass
class SyncResult:
    session: Session
    full: list[Walk]
    since: list[Walk]
    by_hashes: list[Walk]
    chain_deep: Walk
    chain_shallow: Walk
    chain_by_hashes: Walk
    chain: Session


def _one_turn(app: Arborist, sid: str, parent: str, i: int) -> str:
    """Insert one turn under ``parent`` as another kernel would; its bates."""
    node = insert_turn(
        app.sessions_conn,
        sid,
        parent,
        question=f"A follow-up question number {i} about {parent}?",
        answer_text="A follow-up answer.",
        cache_key=sha256_hex(f"follow-up-{i}-{parent}".encode()),
        audit_mode="STRICT",
    )
    return node.bates


def bench_sync(tmp: Path, turns: int, repeat: int) -> SyncResult:
    home = tmp / "sync-home"
    session = build_session(home, BUSHY_FAN, turns)
    chain = build_session(home, 1, CHAIN_DEPTH)
    with Arborist(home) as app:
        widget = ForestWidget(app=app, sid=session.sid)
        try:
            full: list[Walk] = []
            view = View(widget)
            for _ in range(repeat):  # fresh views: a browser opening the notebook
                view = View(widget)
                full.append(Walk(*view.walk()))
            assert len(view.nodes) == session.turns + 1, (len(view.nodes), session.turns)
            since: list[Walk] = []
            by_hashes: list[Walk] = []
            for i in range(repeat):  # one new turn each time, under a different deepest node
                behind = copy.deepcopy(view.nodes), dict(view.parents), view.event_seq
                _one_turn(app, session.sid, session.deepest[(i * 7) % len(session.deepest)], i)
                widget.refresh()
                lagging = View(widget)  # the same view before the turn, made to walk by hashes
                lagging.nodes, lagging.parents, lagging.event_seq = behind
                lagging.root, lagging.synced = view.root, True
                since.append(Walk(*view.walk()))
                assert since[-1].trips == 1, "one new turn should cost one roots request"
                by_hashes.append(Walk(*lagging.walk(since=False)))
                assert lagging.shape() == view.shape(), "the two refreshes disagree"
            fresh = View(widget)
            fresh.walk()
            assert fresh.shape() == view.shape(), "the incremental view does not match a fresh one"
        finally:
            widget.close()
        chain_walks = _chain_roots(app, chain)
    return SyncResult(session, full, since, by_hashes, *chain_walks, chain)


def _chain_roots(app: Arborist, chain: Session) -> tuple[Walk, Walk, Walk]:
    """The refresh after one new turn at the foot of the chain (depth 201), after one just
    under the root (depth 1), and, at the foot, by hashes."""
    widget = ForestWidget(app=app, sid=chain.sid)
    try:
        view = View(widget)
        view.walk()
        assert len(view.nodes) == chain.turns + 1
        behind = copy.deepcopy(view.nodes), dict(view.parents), view.event_seq
        _one_turn(app, chain.sid, chain.deepest[-1], 0)
        deep = Walk(*view.walk())
        lagging = View(widget)
        lagging.nodes, lagging.parents, lagging.event_seq = behind
        lagging.root, lagging.synced = view.root, True
        by_hashes = Walk(*lagging.walk(since=False))
        _one_turn(app, chain.sid, format_bates(chain.sid, 0), 1)
        shallow = Walk(*view.walk())
    finally:
        widget.close()
    return deep, shallow, by_hashes


# --------------------------------------------------------------------------- 4. support on the sync


SUPPORT_ANSWERS = 150
"""Distinct real answers (extractive, over the demo corpus) the support bench's turns show."""


@dataclass
class SupportResult:
    """Full walks of a session whose every turn shows a real answer, each right after a
    write to the store (which makes every row's standing be checked again): ``cold`` with
    no measure held (every row measured, as before they were memoised), ``warm`` with the
    memo the walks before filled; the seconds and calls spent measuring in each."""

    session: Session
    answers: int
    ingest_s: float
    cold: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    cold_measuring: list[float] = field(default_factory=list)
    warm_measuring: list[float] = field(default_factory=list)
    cold_calls: list[int] = field(default_factory=list)
    warm_calls: list[int] = field(default_factory=list)
    reply_bytes: int = 0
    """Reply bytes of the last full walk: every row's summary, each with its mode, support
    and badge key (``audit``: the kernel's decision, sent only where it is not the mode)."""


class _Timed:
    """``arborist._qa.support.measure`` counted and timed while it is installed."""

    def __init__(self) -> None:
        self.calls = 0
        self.seconds = 0.0
        self.inner = support.measure

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        start = time.perf_counter()
        try:
            return self.inner(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


class _Unheld:
    """A stand-in for :data:`arborist._qa.support.MEMO` that holds nothing: every row
    measured, as before the measures were memoised."""

    def measure(self, *args: Any) -> Any:
        return support.measure(*args)


def _real_answers(app: Arborist, count: int) -> list[dict[str, Any]]:
    """Turn fields of up to ``count`` answers the store holds, each citing evidence: the
    extractive answerer asked about the demo corpus's documents, a few questions each."""
    titles = [str(row[0]) for row in app.store_conn.execute("SELECT title FROM documents")]
    forms = ("What does {} provide?", "How do I use {}?", "What functions does {} define?")
    shown: list[dict[str, Any]] = []
    for question in (form.format(title) for form in forms for title in titles):
        if len(shown) == count:
            break
        record = app.ask(question).record
        cited = cited_titles(record.evidence)
        if cited:
            shown.append(
                {
                    "question": record.question,
                    "answer_text": record.answer_text,
                    "cache_key": record.cache_key,
                    "audit_mode": record.audit_mode,
                    "cited_titles": cited,
                }
            )
    return shown


def bench_support(
    tmp: Path, turns: int, repeat: int, answers: int = SUPPORT_ANSWERS
) -> SupportResult:
    """Section 4: what measuring each row's support costs a full sync of ``turns`` rows
    showing up to ``answers`` real answers."""
    home = tmp / "support-home"
    start = time.perf_counter()
    with Arborist(home) as app:
        app.ingest([], demo=True)
        ingest_s = time.perf_counter() - start
        like = _real_answers(app, answers)
    session = build_session(home, BUSHY_FAN, turns, like)
    result = SupportResult(session, len(like), ingest_s)
    timed, held = _Timed(), support.MEMO
    support.measure = timed  # type: ignore[assignment]
    try:
        with Arborist(home) as app:
            widget = ForestWidget(app=app, sid=session.sid)
            try:
                for i in range(repeat):
                    for cold in (True, False):
                        app.ask(f"Bench write {i} {cold}: what does heapq provide?")  # a write
                        support.MEMO = _Unheld() if cold else held  # type: ignore[assignment]
                        timed.calls, timed.seconds = 0, 0.0
                        view = View(widget)
                        _sent, result.reply_bytes, _trips, seconds = view.walk()
                        assert len(view.nodes) == turns + 1
                        (result.cold if cold else result.warm).append(seconds)
                        measuring = result.cold_measuring if cold else result.warm_measuring
                        measuring.append(timed.seconds)
                        (result.cold_calls if cold else result.warm_calls).append(timed.calls)
            finally:
                widget.close()
    finally:
        support.measure, support.MEMO = timed.inner, held
    return result


def report_support(result: SupportResult) -> None:
    s = result.session
    cold, warm = statistics.median(result.cold), statistics.median(result.warm)
    measuring = statistics.median(result.cold_measuring)
    print(
        f"\n4. support on the sync path: {s.turns:,}-turn session (fan-out {BUSHY_FAN}) whose "
        f"turns show {result.answers} real extractive answers over the demo corpus (ingested "
        f"in {result.ingest_s:.0f} s); each full walk (a fresh view) right after a write to "
        "the store, so every row's standing is checked again"
    )
    print(f"   {'walk':<40} {'ms':>9} {'measuring ms':>13} {'measures':>9} {'share':>7}")
    for label, walks, spent, calls in [
        (
            "every row measured (before the memo)",
            result.cold,
            result.cold_measuring,
            result.cold_calls,
        ),
        ("measures held (memo)", result.warm, result.warm_measuring, result.warm_calls),
    ]:
        for i, (w, m, c) in enumerate(zip(walks, spent, calls, strict=True), 1):
            print(
                f"   {f'{label} #{i}':<40} {w * 1000:>9.1f} {m * 1000:>13.1f} {c:>9,} {m / w:>7.1%}"
            )
    print(
        f"   median: measuring is {measuring / cold:.1%} of a walk without the memo; with "
        f"it the walk takes {warm / cold:.2f}x the time ({cold * 1000:.0f} -> "
        f"{warm * 1000:.0f} ms)"
    )
    print(
        f"   a full walk's replies: {result.reply_bytes:,} B, "
        f"{result.reply_bytes / (s.turns + 1):.1f} B a row (rows of real answers: mode, "
        "support, badge)"
    )


# --------------------------------------------------------------------------- the browser

_TRAFFIC_JS = """(forest) => {
    const read = (name) => Number(forest.getAttribute(`data-traffic-${name}`) || 0);
    return { requests: read('requests'), request_bytes: read('request-bytes'),
             replies: read('replies'), reply_bytes: read('reply-bytes') };
}"""

# Starts observing the widget cell's output, notes performance.now(), runs the cell.
_MEASURE = (
    """async ({ path, index, current }) => {
    const traffic = """
    + _TRAFFIC_JS
    + """;
    const app = window.jupyterapp;
    const panel = window.__arb.panel(path);
    app.shell.activateById(panel.id);
    const notebook = panel.content;
    notebook.activeCellIndex = index;
    notebook.deselectAll();
    const marks = { t0: 0, ready: null, paint: null, shown: null, shown_paint: null,
                    executed: null };
    window.__marks = marks;
    const rows = (forest) => {
        const tree = forest.querySelector('[role="tree"]');
        return { rows: Number(tree.getAttribute('data-rows')),
                 rendered: Number(tree.getAttribute('data-rendered-rows')) };
    };
    const check = () => {
        const forest = panel.node.querySelector('[data-arborist-forest]');
        if (forest === null) return;
        const now = performance.now();
        if (marks.ready === null && forest.getAttribute('data-ready') === 'true') {
            marks.ready = now;
            marks.ready_traffic = traffic(forest);
            marks.ready_rows = rows(forest);
            requestAnimationFrame(() => { marks.paint = performance.now(); });
        }
        const detail = forest.querySelector('.arb-detail');
        const row = forest.querySelector(`[role="treeitem"][data-bates="${current}"]`);
        if (marks.ready !== null && marks.shown === null && row !== null && detail !== null
            && detail.getAttribute('data-rendered') === current
            && detail.getAttribute('data-loading') === 'false') {
            marks.shown = now;
            marks.shown_traffic = traffic(forest);
            marks.shown_rows = rows(forest);
            requestAnimationFrame(() => { marks.shown_paint = performance.now(); });
        }
    };
    window.__observer = new MutationObserver(check);
    window.__observer.observe(panel.node, { subtree: true, childList: true, attributes: true });
    marks.t0 = performance.now();
    await app.commands.execute('notebook:run-cell');
    marks.executed = performance.now();
    return true;
}"""
)

# The view's counters, rows, and whether a row is in the DOM.
_STATE = (
    """(bates) => {
    const forest = document.querySelector('[data-arborist-forest]');
    const tree = forest.querySelector('[role="tree"]');
    return { traffic: ("""
    + _TRAFFIC_JS
    + """)(forest),
             rows: Number(tree.getAttribute('data-rows')),
             has_row: bates !== null
                 && tree.querySelector(`[role="treeitem"][data-bates="${bates}"]`) !== null };
}"""
)

# True once the view's counters held still for QUIET_MS with every request answered.
_QUIET = """(quietMs) => {
    const forest = document.querySelector('[data-arborist-forest]');
    const key = ['requests', 'replies'].map((n) => forest.getAttribute(`data-traffic-${n}`)).join('/');
    const state = window.__quiet ??= { key: null, since: 0 };
    const now = performance.now();
    if (state.key !== key) { state.key = key; state.since = now; return false; }
    const [sent, answered] = key.split('/');
    return sent === answered && now - state.since >= quietMs;
}"""

# The new turn is in the tree (its row, or one more row) and every request is answered.
_ARRIVED = """({ bates, rows }) => {
    const forest = document.querySelector('[data-arborist-forest]');
    const tree = forest.querySelector('[role="tree"]');
    const here = tree.querySelector(`[role="treeitem"][data-bates="${bates}"]`) !== null
        || Number(tree.getAttribute('data-rows')) > rows;
    return here && forest.getAttribute('data-traffic-requests')
        === forest.getAttribute('data-traffic-replies');
}"""


@dataclass
class Traffic:
    requests: int = 0
    request_bytes: int = 0
    replies: int = 0
    reply_bytes: int = 0

    @property
    def bytes(self) -> int:
        return self.request_bytes + self.reply_bytes

    def __sub__(self, other: Traffic) -> Traffic:
        return Traffic(
            self.requests - other.requests,
            self.request_bytes - other.request_bytes,
            self.replies - other.replies,
            self.reply_bytes - other.reply_bytes,
        )


@dataclass
class Frame:
    """One comm message on the kernel websocket: direction, method, request kind, sizes."""

    sent: bool  # page -> kernel
    method: str  # "custom" (requests, replies) or "update" (trait state)
    what: str  # a request's kind, a reply's id, or the traits an update carries
    frame_bytes: int  # the whole websocket frame, Jupyter's envelope included
    data_bytes: int  # the request, reply or state alone, as compact JSON


class Tap:
    """Every comm message on the page's kernel websockets, parsed (Jupyter's v1 protocol
    or the legacy JSON one), so a window of traffic can be named request by request."""

    def __init__(self, page: Page) -> None:
        self.frames: list[Frame] = []
        self.kinds: dict[str, str] = {}  # request id -> kind
        page.on("websocket", self._attach)

    def _attach(self, socket: WebSocket) -> None:
        if "/channels" not in socket.url:
            return
        socket.on("framesent", lambda payload: self._note(payload, sent=True))
        socket.on("framereceived", lambda payload: self._note(payload, sent=False))

    def _note(self, payload: bytes | str, *, sent: bool) -> None:
        try:
            if isinstance(payload, str):
                message = json.loads(payload)
                header, content = message["header"], message["content"]
                size = len(payload.encode())
            else:
                _channel, parts = deserialize_msg_from_ws_v1(payload)  # type: ignore[no-untyped-call]
                header, content = json.loads(parts[0]), json.loads(parts[3])
                size = len(payload)
        except (ValueError, KeyError, IndexError):
            return
        if header.get("msg_type") != "comm_msg":
            return
        data = content.get("data") or {}
        method = str(data.get("method"))
        if method == "custom":
            body = data.get("content") or {}
            what = str(body.get("kind") or self.kinds.get(str(body.get("id")), "?"))
            if sent:
                self.kinds[str(body.get("id"))] = what
            else:
                what = f"{what} reply"
            self.frames.append(Frame(sent, method, what, size, _compact(body)))
        elif method == "update":
            state = data.get("state") or {}
            self.frames.append(Frame(sent, method, ",".join(sorted(state)), size, _compact(state)))

    def mark(self) -> int:
        return len(self.frames)

    def since(self, mark: int) -> list[Frame]:
        return self.frames[mark:]


@dataclass
class FirstScreen:
    executed_ms: float
    ready_ms: float
    paint_ms: float
    ready: Traffic
    rows: int
    rendered_rows: int
    shown_ms: float
    shown_paint_ms: float
    shown: Traffic
    shown_rows: int
    shown_rendered_rows: int
    kinds: list[str]  # the requests until the current turn was shown, in order


@dataclass
class Refresh:
    how: str
    depth: int  # the new turn's depth
    ms: float  # from the insert (or running the cell) to the row in the tree
    traffic: Traffic
    frames: list[Frame] = field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        return [f.what for f in self.frames if f.sent and f.method == "custom"]

    @property
    def updates(self) -> list[Frame]:
        return [f for f in self.frames if f.method == "update"]

    @property
    def wire_bytes(self) -> int:
        return sum(f.frame_bytes for f in self.frames)


@dataclass
class BrowserResult:
    name: str
    session: Session
    screens: list[FirstScreen]
    refreshes: list[Refresh]


def _check_bundle() -> None:
    """The kernel loads the widget from the built bundle: a stale one would measure old code."""
    bundle = STATIC / "widget.js"
    if not bundle.is_file():
        raise SystemExit(f"{bundle} is missing: run `make js`")
    newer = [
        p.name
        for p in (REPO / "js" / "src").glob("*")
        if p.suffix in {".js", ".css"} and p.stat().st_mtime > bundle.stat().st_mtime
    ]
    if newer:
        raise SystemExit(f"{bundle} is older than js/src/{', '.join(sorted(newer))}: run `make js`")


def _kernel_imports_this_checkout(outputs: list[dict[str, Any]]) -> None:
    """The kernel's cwd is the lab's root: without PYTHONPATH it would import whichever
    arborist the venv has installed (another checkout's code and bundle)."""
    text = "".join(
        "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
        for o in outputs
        if o["output_type"] == "stream"
    ).strip()
    if not Path(text).resolve().is_relative_to(REPO):
        raise SystemExit(f"the kernel imported arborist_nb from {text}, not from {REPO}")


def _state(page: Page, bates: str | None = None) -> tuple[Traffic, int, bool]:
    state = page.evaluate(_STATE, bates)
    return Traffic(**state["traffic"]), state["rows"], state["has_row"]


def _quiet(page: Page) -> None:
    page.evaluate("() => { window.__quiet = undefined; }")
    page.wait_for_function(_QUIET, arg=QUIET_MS, timeout=REFRESH_MS, polling=50).dispose()


def _refresh(
    page: Page, tap: Tap, how: str, depth: int, new_bates: str, add: Callable[[], None]
) -> Refresh:
    """The traffic from an idle view to the new turn's row in the tree, all answered."""
    _quiet(page)
    before, rows, _ = _state(page)
    mark = tap.mark()
    start = time.perf_counter()
    add()
    page.wait_for_function(
        _ARRIVED, arg={"bates": new_bates, "rows": rows}, timeout=REFRESH_MS, polling=20
    ).dispose()
    ms = (time.perf_counter() - start) * 1000
    after, _, _ = _state(page)
    page.evaluate("() => 0")  # let the websocket events of the window arrive here
    return Refresh(how, depth, ms, after - before, tap.since(mark))


def bench_browser(
    tmp: Path, sessions: list[tuple[str, int, int]], runs: int, repeat: int
) -> tuple[list[BrowserResult], str]:
    """First screens (``runs`` each) and refreshes (``repeat`` of each way) of each session
    ``(name, fan, turns)``, on one JupyterLab."""
    _check_bundle()
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in [str(REPO), os.environ.get("PYTHONPATH", "")] if p
    )
    base = tmp / "lab"
    base.mkdir()
    server, process = start_server(base, "lab")
    (server.root / "quokka.md").write_text(DOCUMENT, encoding="utf-8")
    results: list[BrowserResult] = []
    driver = sync_playwright().start()
    try:
        versions = f"playwright {version('playwright')}"
        guard = Guard()
        with guarded_browser(driver, tmp / "chromium-profile", guard) as (context, page):
            versions += f", chromium {context.browser.version if context.browser else '?'}"
            tap = Tap(page)
            lab = Lab(page, server, guard)
            for name, fan, turns in sessions:
                results.append(_bench_session(server, lab, tap, name, fan, turns, runs, repeat))
            guard.assert_clean()
    finally:
        driver.stop()
        _stop(server.url, process)
    return results, versions


def _bench_session(
    server: LabServer, lab: Lab, tap: Tap, name: str, fan: int, turns: int, runs: int, repeat: int
) -> BrowserResult:
    page = lab.page
    session = build_session(server.homes / name, fan, turns)
    current = session.deepest[-1]
    # The setup cells first, so the timed cell measures the widget, not imports or ingest.
    asks = []
    parent, depth, seq = current, session.depth, session.turns
    for _ in range(repeat):  # each round: a %%ask under the foot, then a turn from outside
        asks.append((parent, depth + 1, format_bates(session.sid, seq + 1)))
        parent, depth, seq = format_bates(session.sid, seq + 2), depth + 2, seq + 2
    path = server.write_notebook(
        f"{name}.ipynb",
        [
            "import arborist_nb._widget\nprint(arborist_nb._widget.__file__)",
            "%arborist ingest quokka.md",
            f"%arborist session resume {session.sid}",
            "%arborist",
            *[
                f"%%ask --parent {above}\nWhat does the quokka eat, asked at depth {d} ({i})?"
                for i, (above, d, _) in enumerate(asks)
            ],
        ],
    )
    widget_cell = 4
    screens: list[FirstScreen] = []
    refreshes: list[Refresh] = []
    for run in range(runs):
        lab.open(path, reload=True)  # a reloaded page (lab?reset) and a fresh kernel
        for index in range(widget_cell):
            outputs = lab.run(index)
            if index == 1:
                _kernel_imports_this_checkout(outputs)
        mark = tap.mark()
        lab._await(
            _MEASURE,
            {"path": path, "index": widget_cell, "current": current},
            timeout_ms=KERNEL_READY_MS,
            what="running the widget cell",
        )
        page.wait_for_function(
            "() => window.__marks.paint !== null && window.__marks.shown_paint !== null",
            timeout=KERNEL_READY_MS,
        ).dispose()
        marks = page.evaluate("() => window.__marks")
        page.evaluate("() => window.__observer.disconnect()")
        t0 = marks["t0"]
        sent = [f.what for f in tap.since(mark) if f.sent and f.method == "custom"]
        shown_kinds = sent[: marks["shown_traffic"]["requests"]]
        screens.append(
            FirstScreen(
                executed_ms=marks["executed"] - t0,
                ready_ms=marks["ready"] - t0,
                paint_ms=marks["paint"] - t0,
                ready=Traffic(**marks["ready_traffic"]),
                rows=marks["ready_rows"]["rows"],
                rendered_rows=marks["ready_rows"]["rendered"],
                shown_ms=marks["shown"] - t0,
                shown_paint_ms=marks["shown_paint"] - t0,
                shown=Traffic(**marks["shown_traffic"]),
                shown_rows=marks["shown_rows"]["rows"],
                shown_rendered_rows=marks["shown_rows"]["rendered"],
                kinds=shown_kinds,
            )
        )
        if run < runs - 1:
            server.shut_down_kernels()
    # The refreshes, on the last run's page: each round adds two turns, each deeper.
    for i, (_above, depth, new) in enumerate(asks):

        def ask(index: int = widget_cell + 1 + i) -> None:
            lab.run(index, timeout_ms=CELL_MS)

        refreshes.append(_refresh(page, tap, "%%ask cell", depth, new, ask))
        outside = format_bates(session.sid, session.turns + 2 * i + 2)

        def insert(parent: str = new, i: int = i, outside: str = outside) -> None:
            with Arborist(server.homes / name) as app:
                assert _one_turn(app, session.sid, parent, i) == outside

        refreshes.append(_refresh(page, tap, "another process", depth + 1, outside, insert))
    server.shut_down_kernels()
    return BrowserResult(name, session, screens, refreshes)


# --------------------------------------------------------------------------- main


def machine() -> str:
    return (
        f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, JupyterLab {jupyterlab.__version__}, "
        f"anywidget {anywidget.__version__}, "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}"
    )


VERDICT = {True: "MET", False: "MISSED"}


def _kinds(kinds: list[str]) -> str:
    """``roots, expand x2, body``: request kinds in the order sent, repeats folded."""
    runs: list[list[Any]] = []
    for kind in kinds:
        if runs and runs[-1][0] == kind:
            runs[-1][1] += 1
        else:
            runs.append([kind, 1])
    return ", ".join(k if n == 1 else f"{k} x{n}" for k, n in runs) or "none"


def _trips(count: int) -> str:
    return f"{count} round trip{'' if count == 1 else 's'}"


def report_sync(synced: SyncResult) -> None:
    s = synced.session
    full_med = statistics.median(w.seconds for w in synced.full)
    full = synced.full[-1]
    print(
        f"\n3. sync in Python, {s.turns:,}-turn session (fan-out {BUSHY_FAN}, depth {s.depth}, "
        f"built by import in {s.build_s:.1f} s), every node expanded, through the comm handler"
    )
    print(
        f"   {'walk':<44} {'request B':>10} {'reply B':>11} {'trips':>6} {'ms':>8} {'of full':>8}"
    )
    print(
        f"   {'full walk (a fresh view), median ms':<44} {full.request_bytes:>10,} "
        f"{full.reply_bytes:>11,} {full.trips:>6} {full_med * 1000:>8.1f} {'':>8}"
    )
    for label, walks in [
        ("one new turn: roots since", synced.since),
        ("one new turn, by hashes (missed > MAX_ADDED)", synced.by_hashes),
    ]:
        for i, w in enumerate(walks, 1):
            print(
                f"   {f'{label} #{i}':<44} {w.request_bytes:>10,} {w.reply_bytes:>11,} "
                f"{w.trips:>6} {w.seconds * 1000:>8.1f} {w.bytes / full.bytes:>8.4%}"
            )
    c = synced.chain
    print(f"   {CHAIN_DEPTH}-deep chain ({c.turns} turns): one new turn, then the view's refresh")
    for label, w in [
        (f"at depth {c.depth + 1} (the foot): roots since", synced.chain_deep),
        ("at depth 1 (under the root): roots since", synced.chain_shallow),
        (f"at depth {c.depth + 1}, by hashes", synced.chain_by_hashes),
    ]:
        print(
            f"   {label:<44} {w.request_bytes:>10,} {w.reply_bytes:>11,} {w.trips:>6} "
            f"{w.seconds * 1000:>8.1f}"
        )


def report_browser(results: list[BrowserResult], versions: str) -> None:
    print(f"\n1. first screen, headless chromium in JupyterLab ({versions})")
    print(
        "   ready: data-ready (tree synced and drawn); shown: the current (deepest) turn's "
        "detail and row; trips and bytes both ways from the view's counters"
    )
    header = (
        f"   {'session':<10} {'run':>3} {'cell ms':>8} {'ready ms':>9} {'frame ms':>9} "
        f"{'trips':>6} {'bytes':>8} {'rows':>6} {'in DOM':>7} | {'shown ms':>9} "
        f"{'trips':>6} {'bytes':>8} {'rows':>6} {'in DOM':>7}"
    )
    print(header)
    for r in results:
        for i, s in enumerate(r.screens, 1):
            print(
                f"   {r.name:<10} {i:>3} {s.executed_ms:>8.0f} {s.ready_ms:>9.0f} "
                f"{s.paint_ms:>9.0f} {s.ready.requests:>6} {s.ready.bytes:>8,} {s.rows:>6} "
                f"{s.rendered_rows:>7} | {s.shown_ms:>9.0f} {s.shown.requests:>6} "
                f"{s.shown.bytes:>8,} {s.shown_rows:>6} {s.shown_rendered_rows:>7}"
            )
        print(f"   {r.name:<10} requests until shown: {_kinds(r.screens[-1].kinds)}")
    print("\n2. refresh after one new turn, on the last page: from an idle view to its row")
    print(
        f"   {'session':<10} {'how':<16} {'depth':>5} {'ms':>6} {'trips':>6} {'request B':>10} "
        f"{'reply B':>8} {'both B':>7} | {'updates':>7} {'upd. B':>7} {'wire B':>7}  requests"
    )
    for r in results:
        for f in r.refreshes:
            print(
                f"   {r.name:<10} {f.how:<16} {f.depth:>5} {f.ms:>6.0f} {f.traffic.requests:>6} "
                f"{f.traffic.request_bytes:>10,} {f.traffic.reply_bytes:>8,} "
                f"{f.traffic.bytes:>7,} | {len(f.updates):>7} "
                f"{sum(u.data_bytes for u in f.updates):>7,} {f.wire_bytes:>7,}  "
                f"{_kinds(f.kinds)}"
            )
    print(
        "   updates: the kernel's trait messages (root_hash, current_bates, revision...), "
        "not counted by the view; wire: every comm frame of the window, envelopes included"
    )


def headline(
    synced: SyncResult | None, browser: list[BrowserResult] | None, elapsed: float
) -> None:
    print("\nheadline figures")
    for r in browser or []:
        ready = statistics.median(s.ready_ms for s in r.screens)
        paint = statistics.median(s.paint_ms for s in r.screens)
        trips = max(s.ready.requests for s in r.screens)
        shown = statistics.median(s.shown_ms for s in r.screens)
        shown_trips = max(s.shown.requests for s in r.screens)
        what = f"{r.session.turns:,}-turn {r.name} (depth {r.session.depth})"
        print(
            f"  first screen, {what}: data-ready {ready:.0f} ms, frame {paint:.0f} ms "
            f"(median of {len(r.screens)}; goal <= {GOAL_FIRST_SCREEN_MS} ms) "
            f"{VERDICT[paint <= GOAL_FIRST_SCREEN_MS]}; {_trips(trips)} "
            f"(worst; goal <= {GOAL_ROUND_TRIPS}) {VERDICT[trips <= GOAL_ROUND_TRIPS]}"
        )
        print(
            f"    and with the current (deepest) turn shown: {shown:.0f} ms "
            f"{VERDICT[shown <= GOAL_FIRST_SCREEN_MS]}, {_trips(shown_trips)} "
            f"{VERDICT[shown_trips <= GOAL_ROUND_TRIPS]}"
        )
        for how in dict.fromkeys(f.how for f in r.refreshes):
            ways = [f for f in r.refreshes if f.how == how]
            worst = max(ways, key=lambda f: f.traffic.bytes)
            print(
                f"  refresh after one new turn, {r.name}, by {how}: {worst.traffic.bytes:,} B "
                f"both ways in {_trips(worst.traffic.requests)} (worst of {len(ways)}, "
                f"at depth {worst.depth}; goal <= {GOAL_REFRESH_BYTES:,} B) "
                f"{VERDICT[worst.traffic.bytes <= GOAL_REFRESH_BYTES]}; on the wire, trait "
                f"updates and Jupyter's envelopes included: {worst.wire_bytes:,} B"
            )
    if synced is not None:
        full = synced.full[-1].bytes
        since = max(w.bytes for w in synced.since)
        hashes = max(w.bytes for w in synced.by_hashes)
        print(
            f"  Python, one new turn in {synced.session.turns:,} turns: roots since "
            f"{since:,} B both ways in {_trips(max(w.trips for w in synced.since))} = "
            f"{since / full:.4%} of the full walk "
            f"({full:,} B); by hashes {hashes:,} B ({hashes / full:.2%})"
        )
        deep, shallow = synced.chain_deep, synced.chain_shallow
        print(
            f"  Python, roots since after one new turn at depth {synced.chain.depth + 1} of the "
            f"chain: {deep.request_bytes:,} B request + {deep.reply_bytes:,} B reply = "
            f"{deep.bytes:,} B (at depth 1: {shallow.bytes:,} B; by hashes at depth "
            f"{synced.chain.depth + 1}: {synced.chain_by_hashes.bytes:,} B) "
            f"{VERDICT[deep.bytes <= GOAL_REFRESH_BYTES]}"
        )
    print(f"whole run: {elapsed:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one browser run, fewer repeats")
    parser.add_argument("--no-browser", action="store_true", help="skip the chromium figures")
    parser.add_argument(
        "--support-only", action="store_true", help="only section 4 (support on the sync path)"
    )
    parser.add_argument("--runs", type=int, default=None, help="first screens per session")
    parser.add_argument(
        "--repeat", type=int, default=None, help="refreshes of each kind, and Python walks"
    )
    args = parser.parse_args()
    runs = args.runs or (1 if args.quick else 5)
    repeat = args.repeat or (1 if args.quick else 3)
    sync_turns = 1_000 if args.quick else BUSHY_TURNS
    began = time.perf_counter()
    print(f"arborist widget benchmark{' (--quick)' if args.quick else ''}")
    print(f"machine: {machine()}")
    # --quick: the bushy session of 1,000 turns in the browser too (still virtualized: > 200).
    sessions = [("chain", 1, CHAIN_DEPTH), ("bushy", BUSHY_FAN, sync_turns)]
    with tempfile.TemporaryDirectory(prefix="arborist-bench-widget-") as name:
        tmp = Path(name)
        answers = SUPPORT_ANSWERS // 3 if args.quick else SUPPORT_ANSWERS
        supported = bench_support(tmp, sync_turns, max(repeat, 2), answers)
        if args.support_only:
            report_support(supported)
            print(f"whole run: {time.perf_counter() - began:.0f} s")
            return
        synced = bench_sync(tmp, sync_turns, max(repeat, 2))
        browser = None if args.no_browser else bench_browser(tmp, sessions, runs, repeat)
        shutil.rmtree(tmp / "chromium-profile", ignore_errors=True)
    elapsed = time.perf_counter() - began
    if browser is not None:
        report_browser(*browser)
    report_sync(synced)
    report_support(supported)
    headline(synced, browser[0] if browser else None, elapsed)


if __name__ == "__main__":
    main()
