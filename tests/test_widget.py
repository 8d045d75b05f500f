"""The forest widget's kernel side: traits, the request/answer protocol, sync costs, forks.

Messages are fed to the widget's comm handler as a front end would send
them, and answers are captured from its ``send``. :class:`View` plays the
walk that ``js/src/widget.js`` does, so the byte counts here are what a
browser would receive.
"""

from __future__ import annotations

import ast
import copy
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import arborist._forest.reads
from arborist._errors import ArboristError
from arborist._facade.app import Arborist
from arborist._faces.sync import MAX_EXPAND_BUDGET
from arborist._forest.reads import reveal_path
from arborist._forest.shard import insert_turn
from arborist._forest.tree_sync import MAX_ADDED, ForestView
from arborist._proofs.hashing import leaf_hash
from arborist._proofs.merkle import verify_inclusion
from arborist_nb._assets import STATIC
from arborist_nb._widget import ForestWidget

SPIDER = (
    "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko. "
    "He first appeared in Amazing Fantasy #15 in 1962.\n"
)
BATMAN = (
    "# Batman\n\nBatman was created by Bob Kane and Bill Finger. "
    "He first appeared in Detective Comics #27 in 1939.\n"
)
QUESTIONS = ("Who created Spider-Man?", "Who created Batman?", "When did Batman first appear?")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Arborist]:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    (tmp_path / "batman.md").write_text(BATMAN, encoding="utf-8")
    with Arborist(tmp_path / "home") as opened:
        opened.ingest([str(tmp_path / "spider.md"), str(tmp_path / "batman.md")])
        yield opened


class View:
    """The front end's side of the protocol, as js/src/widget.js plays it.

    Holds ``bates -> {hash, summary, children, children_hash}``; ``sync``
    asks for the roots, then walks down level by level into every expanded
    node whose hash changed, sending the hashes it holds. Every node is
    expanded on sight (the most a view can hold). Answers are counted in
    bytes of compact JSON.
    """

    def __init__(self, widget: ForestWidget, monkeypatch: pytest.MonkeyPatch) -> None:
        self.widget = widget
        self.sent: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        monkeypatch.setattr(widget, "send", self._receive)
        self.nodes: dict[str, dict[str, Any]] = {}
        self.grafts: list[str] = []
        self.root = ""
        self.event_seq: int | None = None
        self.counter = 0
        self.log: list[tuple[str, dict[str, Any], dict[str, Any], int]] = []

    def _receive(self, content: dict[str, Any], buffers: Any = None) -> None:
        with self.lock:
            self.sent.append(content)

    def answer(self, message: Any) -> dict[str, Any]:
        """Feed one raw message to the widget's handler; the answer it sent back."""
        before = len(self.sent)
        self.widget._handle_custom_msg(message, [])
        with self.lock:  # a fork's turn_done may already follow its answer
            replies = [m for m in self.sent[before:] if "kind" not in m]
        assert len(replies) == 1, replies
        return replies[0]

    def request(self, kind: str, **args: Any) -> Any:
        self.counter += 1
        reply = self.answer({"id": f"t-{self.counter}", "kind": kind, **args})
        assert reply["id"] == f"t-{self.counter}"
        assert reply["ok"] is True, reply
        size = len(json.dumps(reply, separators=(",", ":"), ensure_ascii=False).encode())
        self.log.append((kind, args, reply["result"], size))
        return reply["result"]

    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [m for m in self.sent if "kind" in m]

    def node(self, bates: str) -> dict[str, Any]:
        return self.nodes.setdefault(
            bates, {"hash": None, "summary": None, "children": None, "children_hash": None}
        )

    def stale(self, bates: str) -> bool:
        node = self.nodes.get(bates)
        return node is None or node["children"] is None or node["children_hash"] != node["hash"]

    def sync(self) -> None:
        known = {b: self.nodes[b]["hash"] for b in self.grafts if self.nodes[b]["summary"]}
        roots = self.request("roots", known=known, since=self.event_seq)
        self.event_seq = roots["event_seq"]
        for bates, label in roots["relabelled"].items():
            if bates in self.nodes and self.nodes[bates]["summary"]:
                self.nodes[bates]["summary"]["label"] = label
        self.root = roots["root_bates"]
        self.node(self.root)["hash"] = roots["root_hash"]
        self.grafts = []
        for graft in roots["grafts"]:
            node = self.node(graft["bates"])
            node["hash"] = graft["subtree_hash"]
            node["summary"] = graft.get("summary", node["summary"])
            self.grafts.append(graft["bates"])
        level = [b for b in [self.root, *self.grafts] if self.stale(b)]
        while level:
            known = {}
            for bates in level:
                node = self.nodes[bates]
                if node["children"] is not None:
                    known[bates] = node["children_hash"]
                for child in node["children"] or []:
                    if child not in level and self.nodes[child]["summary"]:
                        known[child] = self.nodes[child]["hash"]
            reply = self.request("expand", known=known, bates=level)
            below = []
            for bates, entry in reply["nodes"].items():
                node = self.node(bates)
                node["hash"] = node["children_hash"] = entry["subtree_hash"]
                node["children"] = [c["bates"] for c in entry["children"]]
                for child in entry["children"]:
                    held = self.node(child["bates"])
                    held["hash"] = child.get("subtree_hash", known.get(child["bates"]))
                    held["summary"] = child.get("summary", held["summary"])
                    if held["children"] is None and held["summary"]["n_children"] == 0:
                        held["children"], held["children_hash"] = [], held["hash"]  # a leaf
                    below.append(child["bates"])
            level = [b for b in dict.fromkeys(below) if self.stale(b)]

    def bytes(self, since: int = 0) -> int:
        return sum(size for *_, size in self.log[since:])

    def shape(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        return {
            b: (
                n["hash"],
                tuple(n["children"] or ()),
                n["summary"]["n_children"] if n["summary"] else None,
            )
            for b, n in self.nodes.items()
        }


@pytest.fixture
def session(app: Arborist) -> tuple[str, list[str]]:
    """A session with a Spider-Man turn, a Batman follow-up under it, and a second branch."""
    sid = app.new_session("notes").sid
    first = app.ask_turn(QUESTIONS[0], sid=sid).node.bates
    second = app.ask_turn(QUESTIONS[1], sid=sid, parent=first).node.bates
    third = app.ask_turn(QUESTIONS[2], sid=sid, parent="root").node.bates
    return sid, [first, second, third]


@pytest.fixture
def widget(app: Arborist, session: tuple[str, list[str]]) -> Iterator[ForestWidget]:
    made = ForestWidget(app=app, sid=session[0])
    yield made
    made.wait(30)
    made.close()


@pytest.fixture
def view(widget: ForestWidget, monkeypatch: pytest.MonkeyPatch) -> View:
    return View(widget, monkeypatch)


def build_forest(app: Arborist, sid: str) -> dict[str, list[str]]:
    """200 real turns: 8 under the root, 4 under each of those, 5 under each of those."""
    root = app.session(sid).root_bates
    tops = [app.ask_turn(QUESTIONS[i % 3], sid=sid, parent=root).node.bates for i in range(8)]
    mids = [
        app.ask_turn(QUESTIONS[(i + 1) % 3], sid=sid, parent=top).node.bates
        for top in tops
        for i in range(4)
    ]
    leaves = [
        app.ask_turn(QUESTIONS[(i + 2) % 3], sid=sid, parent=mid).node.bates
        for mid in mids
        for i in range(5)
    ]
    assert len(tops) + len(mids) + len(leaves) == 200
    return {"tops": tops, "mids": mids, "leaves": leaves}


# --- traits and repr -------------------------------------------------------------------------


def test_traits_hold_only_small_state_mirroring_the_session(
    app: Arborist, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    sid, (_, _, third) = session
    synced = {name for name in widget.keys if not name.startswith("_")}
    assert synced >= {
        "sid",
        "root_bates",
        "root_hash",
        "graft_hashes",
        "current_bates",
        "selected_bates",
        "revision",
        "poll_ms",
        "request_ms",
        "title",
    }
    root = app.node(app.session(sid).root_bates)
    assert (widget.sid, widget.root_bates, widget.root_hash) == (sid, root.bates, root.subtree_hash)
    assert widget.current_bates == third
    assert (widget.graft_hashes, widget.selected_bates, widget.revision) == ({}, "", 0)
    assert (widget.poll_ms, widget.request_ms, widget.title) == (2000, 0, "notes")
    # No node data: the synced state (bundle aside) is a few hashes, whatever the forest holds;
    # the words the view says the kernel's keys in are sent once, the same for every forest
    # (their size: tests/test_audit_words.py).
    assert widget.vocabulary == ForestWidget(app=app).vocabulary
    shown = synced - {"vocabulary"}
    state = json.dumps({k: v for k, v in widget.get_state().items() if k in shown}, default=str)
    assert "Spider-Man" not in state and len(state) < 1000


def test_repr_is_stable_and_counts_turns(app: Arborist, widget: ForestWidget) -> None:
    assert repr(widget) == f"ForestWidget(sid={widget.sid!r}, turns=3)"
    bundle, _ = widget._repr_mimebundle_()
    assert bundle["text/plain"] == repr(widget)
    app.ask_turn("Who drew Spider-Man?", sid=widget.sid)
    widget.refresh()
    assert repr(widget) == f"ForestWidget(sid={widget.sid!r}, turns=4)"


def test_the_front_end_is_the_bundled_esm_and_css() -> None:
    assert (STATIC / "widget.js").is_file() and (STATIC / "widget.css").is_file()
    assert "arb-forest" in str(ForestWidget._esm)
    assert ".arb-forest" in str(ForestWidget._css)


def test_poll_ms_is_zero_or_positive(widget: ForestWidget) -> None:
    widget.poll_ms = 0
    with pytest.raises(Exception, match="poll_ms"):
        widget.poll_ms = -1


def test_request_ms_is_zero_or_positive(widget: ForestWidget) -> None:
    """0 keeps the view's own request timeout; the closed-link browser tests set 3,000."""
    widget.request_ms = 3000
    assert widget.get_state()["request_ms"] == 3000
    with pytest.raises(Exception, match="request_ms"):
        widget.request_ms = -1


def test_without_a_sid_the_latest_session_is_shown_and_none_is_started(app: Arborist) -> None:
    """Issue #26: an empty home gets no session from a widget (tests/test_widget_first.py)."""
    made = ForestWidget(app=app)
    assert (app.sessions(), made.sid) == ([], "")
    made.close()
    older = app.ask_turn(QUESTIONS[0], session_label="older").node.sid
    newer = app.ask_turn(QUESTIONS[1], session_label="newer").node.sid
    again = ForestWidget(app=app)
    assert again.sid == newer != older
    again.close()
    by_home = ForestWidget(app.home)
    assert by_home.sid == newer
    by_home.close()
    by_home.app.close()


def test_refresh_bumps_revision_and_mirrors_the_new_root_hash(
    app: Arborist, widget: ForestWidget
) -> None:
    before = widget.root_hash
    turn = app.ask_turn("Who drew Spider-Man?", sid=widget.sid)
    assert widget.root_hash == before
    state = widget.refresh()
    assert widget.revision == 1
    assert widget.root_hash == state.root_hash != before
    assert widget.current_bates == turn.node.bates


def test_refresh_sends_its_traits_in_one_message(
    app: Arborist, widget: ForestWidget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view refreshes once per state message: hashes and revision travel together."""
    sent: list[Any] = []
    monkeypatch.setattr(widget.comm, "kernel", object(), raising=False)  # as if a kernel ran
    monkeypatch.setattr(widget, "send_state", lambda key=None: sent.append(copy.copy(key)))
    app.ask_turn("Who drew Spider-Man?", sid=widget.sid)
    widget.refresh()
    assert len(sent) == 1, sent
    assert {"root_hash", "current_bates", "revision"} <= set(sent[0])


# --- roots and expand ------------------------------------------------------------------------


def test_roots_name_the_root_hash_current_node_and_grafts(
    view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    roots = view.request("roots")
    assert roots["root_bates"] == widget.root_bates
    assert roots["root_hash"] == widget.root_hash
    assert (roots["current_bates"], roots["next_seq"], roots["turns"]) == (session[1][2], 4, 3)
    assert (roots["grafts"], roots["label"]) == ([], "notes")


def test_expand_sends_children_only_when_the_hash_differs(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    first, second, third = session[1]
    root = widget.root_bates
    cold = view.request("expand", bates=[root])
    entry = cold["nodes"][root]
    assert entry["subtree_hash"] == widget.root_hash
    assert [c["bates"] for c in entry["children"]] == [first, third]
    spider = entry["children"][0]["summary"]
    assert spider == {
        "question": QUESTIONS[0],
        "audit_mode": "STRICT",
        "label": None,
        "sid": widget.sid,
        "seq": 1,
        "foreign": False,
        "n_children": 1,
        "cache_key": app.node(first).cache_key[:12],
        "revision": 1,
        "support": "answered",  # the cited passage names everything the question does
    }
    held = {root: widget.root_hash} | {c["bates"]: c["subtree_hash"] for c in entry["children"]}
    assert view.request("expand", known=held, bates=[root]) == {"nodes": {}, "missing": []}
    # The root changed (a new turn under `second`): its children come back, summaries
    # only for the child whose hash moved.
    app.ask_turn("Who drew Spider-Man?", sid=widget.sid, parent=second)
    warm = view.request("expand", known=held, bates=[root])
    children = warm["nodes"][root]["children"]
    assert [("summary" in c) for c in children] == [True, False]
    assert children[1] == {"bates": third}  # unchanged: its place in the order, nothing more
    missing = f"{widget.sid}-000099"
    assert view.request("expand", bates=[missing])["missing"] == [missing]


def test_one_new_turn_costs_a_small_fraction_of_the_full_forest(
    app: Arborist, widget: ForestWidget, monkeypatch: pytest.MonkeyPatch
) -> None:
    forest = build_forest(app, widget.sid)
    widget.refresh()
    view = View(widget, monkeypatch)
    view.sync()
    full = view.bytes()
    assert len(view.nodes) == 1 + 3 + 200  # the root, the session fixture's 3 turns, the forest

    deep = forest["leaves"][77]
    mid = app.node(deep).parent_bates
    assert mid is not None
    top = app.node(mid).parent_bates
    added = app.ask_turn("Who drew Spider-Man?", sid=widget.sid, parent=deep).node.bates
    widget.refresh()
    since = len(view.log)
    view.sync()
    one_turn = view.bytes(since)
    print(
        f"\none new turn in a {len(view.nodes) - 1}-turn forest: {one_turn} bytes; full forest: {full} bytes ({one_turn / full:.2%})"
    )
    assert one_turn < full * 0.06  # O(depth x fan-out): 4 levels of 10, 4, 5 and 1 of 204 turns
    walk = view.log[since:]
    assert [kind for kind, *_ in walk] == ["roots", "expand", "expand", "expand", "expand"]
    assert [args["bates"] for kind, args, *_ in walk if kind == "expand"] == [
        [widget.root_bates],
        [top],
        [mid],
        [deep],
    ]
    # The walk's result is exactly what a fresh view sees.
    fresh = View(widget, monkeypatch)
    fresh.sync()
    assert view.shape() == fresh.shape()
    assert added in view.nodes


def test_an_unchanged_sibling_subtree_is_never_resent(
    app: Arborist, widget: ForestWidget, monkeypatch: pytest.MonkeyPatch
) -> None:
    forest = build_forest(app, widget.sid)
    widget.refresh()
    view = View(widget, monkeypatch)
    view.sync()
    changed_top = forest["tops"][3]
    app.ask_turn("Who drew Spider-Man?", sid=widget.sid, parent=changed_top)
    widget.refresh()
    since = len(view.log)
    view.sync()
    resent: set[str] = set()
    summarized: set[str] = set()
    for kind, args, result, _ in view.log[since:]:
        if kind == "expand":
            resent.update(args["bates"])
            for entry in result["nodes"].values():
                resent.update(c["bates"] for c in entry["children"])
                summarized.update(c["bates"] for c in entry["children"] if "summary" in c)
    siblings = set(forest["tops"]) - {changed_top}
    below_siblings = {
        b for b in forest["mids"] + forest["leaves"] if not _under(app, b, changed_top)
    }
    # A sibling at the changed level costs its bates; nothing below it is sent or asked for.
    assert not summarized & siblings
    assert not resent & below_siblings
    assert len(summarized) == 2  # the changed top (its n_children grew) and the new turn


def _chain(app: Arborist, sid: str, depth: int) -> list[str]:
    """``depth`` turns, each the only child of the one before, under the session's root."""
    parent = app.session(sid).root_bates
    chain = []
    for i in range(depth):
        parent = app.ask_turn(QUESTIONS[i % 3], sid=sid, parent=parent).node.bates
        chain.append(parent)
    return chain


def test_expand_with_a_budget_sends_a_deep_chain_in_one_reply(
    app: Arborist, widget: ForestWidget, view: View
) -> None:
    chain = _chain(app, widget.sid, 60)
    whole = view.request("expand", known={}, bates=[chain[0]], budget=200)
    assert list(whole["nodes"]) == chain[:-1]  # every node with children, top first
    assert all(len(entry["children"]) == 1 for entry in whole["nodes"].values())
    part = view.request("expand", known={}, bates=[chain[0]], budget=10)
    assert list(part["nodes"]) == chain[:11]  # the requested node, then ten rows' worth
    held = {bates: whole["nodes"][bates]["subtree_hash"] for bates in chain[:-1]}
    again = view.request("expand", known=held, bates=[chain[0]], budget=200)
    assert again["nodes"] == {}, "an unchanged chain costs nothing"


def test_expand_with_reveal_opens_the_way_to_a_deep_turn_in_the_same_reply(
    app: Arborist, widget: ForestWidget, view: View
) -> None:
    """A first screen shows the current turn however deep: roots, expand, body."""
    chain = _chain(app, widget.sid, 30)
    root = widget.root_bates
    plain = view.request("expand", known={}, bates=[root], budget=5)
    assert chain[-2] not in plain["nodes"], "five rows do not reach the foot"
    shown = view.request("expand", known={}, bates=[root], budget=5, reveal=chain[-1])
    assert set(shown["nodes"]) >= {root, *chain[:-1]}
    assert set(shown["nodes"]) - set(plain["nodes"]) == set(chain[:-1]) - set(plain["nodes"])
    # A top, a turn outside this session's tree, an unknown turn: no way to open.
    other = app.new_session("other").sid
    theirs = app.ask_turn(QUESTIONS[1], sid=other).node.bates
    for target in (root, theirs, f"{widget.sid}-999999"):
        again = view.request("expand", known={}, bates=[root], budget=5, reveal=target)
        assert again["nodes"].keys() == plain["nodes"].keys(), target
    # Under a graft head, the way starts there; another session's turn under ours, at the root.
    graft = app.ask_turn(QUESTIONS[2], sid=widget.sid, parent=theirs).node.bates
    below = app.ask_turn(QUESTIONS[0], sid=widget.sid, parent=graft).node.bates
    assert reveal_path(app.sessions_conn, widget.sid, below) == [graft]
    forked = app.ask_turn(QUESTIONS[0], sid=other, parent=chain[2]).node.bates
    assert reveal_path(app.sessions_conn, widget.sid, forked) == [root, *chain[:3]]
    bad = view.answer({"id": "r", "kind": "expand", "known": {}, "bates": [root], "reveal": 7})
    assert bad["ok"] is False and "reveal" in bad["error"], bad


def test_reveal_path_gives_up_past_its_depth(
    app: Arborist, widget: ForestWidget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn deeper than MAX_REVEAL_DEPTH is opened by the view after its body, in batches."""
    chain = _chain(app, widget.sid, 8)
    monkeypatch.setattr(arborist._forest.reads, "MAX_REVEAL_DEPTH", 8)
    assert reveal_path(app.sessions_conn, widget.sid, chain[-1]) == [widget.root_bates, *chain[:-1]]
    monkeypatch.setattr(arborist._forest.reads, "MAX_REVEAL_DEPTH", 7)
    assert reveal_path(app.sessions_conn, widget.sid, chain[-1]) == []


def test_roots_list_the_turns_added_since_the_head_the_view_saw(
    app: Arborist, widget: ForestWidget, view: View
) -> None:
    chain = _chain(app, widget.sid, 80)
    head = view.request("roots", known={}, since=None)
    assert head["added"] is None, "a first sync walks by hashes"
    before = len(view.log)
    new = app.ask_turn("Who drew Spider-Man?", sid=widget.sid, parent=chain[-1]).node.bates
    delta = view.request("roots", known={}, since=head["event_seq"])
    assert [a["bates"] for a in delta["added"]] == [new]
    assert delta["added"][0]["parent_bates"] == chain[-1]
    assert delta["added"][0]["subtree_hash"] == app.node(new).subtree_hash
    assert delta["added"][0]["summary"]["question"] == "Who drew Spider-Man?"
    assert view.bytes(before) < 1_500, "one turn at depth 81 costs what it costs at depth 1"
    for _ in range(MAX_ADDED + 1):
        app.ask_turn(QUESTIONS[0], sid=widget.sid, parent=chain[0])
    assert view.request("roots", known={}, since=delta["event_seq"])["added"] is None


def test_a_falsified_answer_shows_on_its_row(
    app: Arborist, widget: ForestWidget, view: View, session: tuple[str, list[str]]
) -> None:
    first = session[1][0]
    view.request("falsify", bates=first, state="stale", reason="the source changed")
    top = view.request("expand", known={}, bates=[widget.root_bates])
    rows = {c["bates"]: c["summary"] for c in top["nodes"][widget.root_bates]["children"]}
    assert (rows[first]["state"], rows[first]["state_reason"]) == ("stale", "the source changed")
    assert all("state" not in s for b, s in rows.items() if b != first), "ok rows say nothing"
    assert view.request("body", bates=first)["summary"]["state"] == "stale"


def test_an_answer_falsified_elsewhere_reaches_the_view_through_roots(
    app: Arborist, widget: ForestWidget, view: View, session: tuple[str, list[str]]
) -> None:
    first = session[1][0]
    head = view.request("roots", known={}, since=None, store_since=None)
    assert "restated" not in head, "a first sync asks for nothing of the kind"
    app.falsify(app.node(first).cache_key, "stale", "another kernel found it wrong")
    again = view.request("roots", known={}, since=head["event_seq"], store_since=head["store_seq"])
    assert again["restated"] == {app.node(first).cache_key[:12]: {"1": "stale"}}
    assert again["restated_reasons"] == {
        app.node(first).cache_key[:12]: {"1": "another kernel found it wrong"}
    }, "a row restated by a sync shows why beside its state"
    unchanged = view.request(
        "roots", known={}, since=again["event_seq"], store_since=again["store_seq"]
    )
    assert unchanged["restated"] == {}
    bad = view.answer({"id": "s", "kind": "roots", "known": {}, "store_since": -1})
    assert bad["ok"] is False and "store_since" in bad["error"]


def test_a_bad_budget_is_a_one_line_error(view: View, widget: ForestWidget) -> None:
    for budget in (-1, MAX_EXPAND_BUDGET + 1, "10", True):
        reply = view.answer(
            {
                "id": "b",
                "kind": "expand",
                "known": {},
                "bates": [widget.root_bates],
                "budget": budget,
            }
        )
        assert reply["ok"] is False and "budget" in reply["error"], reply


def _under(app: Arborist, bates: str, top: str) -> bool:
    return any(n.bates == top for n in _ancestors(app, bates))


def _ancestors(app: Arborist, bates: str) -> list[Any]:
    from arborist._forest.nodes import ancestors

    return ancestors(app.sessions_conn, bates)


# --- body, find and actions -------------------------------------------------------------------


def test_body_carries_the_answer_record_and_proofs_that_verify(
    app: Arborist, view: View, session: tuple[str, list[str]]
) -> None:
    first = session[1][0]
    body = view.request("body", bates=first)
    node = app.node(first)
    assert body["bates"] == first and body["parent"] == node.parent_bates
    assert body["path"] == [node.parent_bates]
    assert (body["question"], body["answer_text"]) == (node.question, node.answer_text)
    assert (body["node_hash"], body["subtree_hash"]) == (node.node_hash, node.subtree_hash)
    assert "Spider-Man" in body["cited_titles"] and body["is_root"] is False
    record = body["record"]
    assert (record["state"], record["hit_count"], record["audit_mode"]) == ("ok", 0, "STRICT")
    assert body["support"] == {
        "level": "answered",
        "missing": [],
        "reason": "the cited passages hold every word of the question",
        "quoted": True,
    }
    assert set(record["dimensions"]) >= {"source_root", "question_hash", "conversation_hash"}
    assert record["evidence"], "the answer cites evidence"
    for item in record["evidence"]:
        assert item["text"] is not None
        leaf = leaf_hash(item["text"].encode("utf-8"))
        assert leaf.hex() == item["leaf"]
        assert verify_inclusion(
            leaf,
            item["chunk_index"],
            item["chunk_count"],
            [bytes.fromhex(p) for p in item["proof"]],
            bytes.fromhex(item["source_root"]),
        )
    assert body["served"] == "miss"
    assert body["first_answered"] == {
        "created_at": record["created_at"],
        "revision": 1,
        "bates": first,
    }


def test_a_cache_hit_names_the_turn_that_first_paid_for_the_answer(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    first = session[1][0]
    again = app.ask_turn(QUESTIONS[0], sid=widget.sid, parent="root")
    assert again.result.hit
    body = view.request("body", bates=again.node.bates)
    assert body["served"] == "hit"
    assert body["first_answered"]["bates"] == first
    assert body["record"]["hit_count"] == 1


def test_the_detail_pane_gets_a_record_in_its_one_json_shape(
    app: Arborist, view: View, session: tuple[str, list[str]]
) -> None:
    """A record travels to the widget as every face prints it (``CacheRecord.as_json``, what
    ``record show --json`` holds too), not in a shape of the protocol's own (issue #26)."""
    body = view.request("body", bates=session[1][0])
    record = app.record(body["cache_key"])
    assert body["record"] == json.loads(json.dumps(record.as_json()))
    assert {"question", "answer", "record_hash", "policy", "response"} <= set(body["record"])


def test_the_root_has_no_record_and_a_missing_record_says_why(
    app: Arborist, view: View, widget: ForestWidget
) -> None:
    root = view.request("body", bates=widget.root_bates)
    assert (root["is_root"], root["record"], root["served"], root["path"]) == (True, None, None, [])
    orphan = insert_turn(
        app.sessions_conn,
        widget.sid,
        widget.root_bates,
        question="imported from elsewhere",
        answer_text="an answer whose record this store never held",
        cache_key="cd" * 32,
        audit_mode="VISUAL",
    )
    body = view.request("body", bates=orphan.bates)
    assert body["record"] is None
    assert body["record_error"].startswith("no cache record with key cdcdcdcd")


def test_find_searches_every_session_and_flags_foreign_turns(
    app: Arborist, view: View, widget: ForestWidget
) -> None:
    other = app.new_session("other").sid
    theirs = app.ask_turn("Who created Batman, really?", sid=other).node.bates
    found = view.request("find", query="batman", limit=10)
    by_bates = {hit["bates"]: hit for hit in found["hits"]}
    assert by_bates[theirs]["foreign"] is True and by_bates[theirs]["sid"] == other
    assert any(not hit["foreign"] for hit in found["hits"])
    assert all(set(hit) >= {"question", "snippet", "seq", "audit_mode"} for hit in found["hits"])
    assert by_bates[theirs]["session_label"] == "other", "a view titles the group by it"


def test_a_search_hit_says_a_falsified_answers_state_and_why(
    app: Arborist, view: View, session: tuple[str, list[str]]
) -> None:
    """Issue #35, item 6: the reason is shown wherever the state is, a search hit too."""
    first = session[1][0]
    view.request("falsify", bates=first, state="failed", reason="wrong <b>artist</b>")
    hits = view.request("find", query=QUESTIONS[0], limit=10)["hits"]
    by_bates = {hit["bates"]: hit for hit in hits}
    assert (by_bates[first]["state"], by_bates[first]["state_reason"]) == (
        "failed",
        "wrong <b>artist</b>",
    )  # text: the view sets it as text, never markup
    assert all(hit["state"] is None for hit in hits if hit["bates"] != first)
    assert all(hit["state_reason"] is None for hit in hits if hit["bates"] != first)


def test_cd_moves_the_current_node_and_its_trait(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    first = session[1][0]
    assert view.request("cd", bates=first) == {"current_bates": first}
    assert widget.current_bates == first
    assert app.session(widget.sid).current_bates == first


def test_label_renames_and_answers_the_new_summary(
    app: Arborist, view: View, session: tuple[str, list[str]]
) -> None:
    first = session[1][0]
    result = view.request("label", bates=first, label="origin story")
    assert result["label"] == "origin story"
    assert result["summary"]["label"] == "origin story"
    assert app.node(first).label == "origin story"
    cleared = view.request("label", bates=first, label="  ")  # an empty box takes it off
    assert cleared["label"] is None and cleared["summary"]["label"] is None
    assert app.node(first).label is None
    events = app.sessions_conn.execute(
        "SELECT body FROM audit_events WHERE event_type = 'label' ORDER BY seq"
    ).fetchall()
    assert [json.loads(body) for (body,) in events][-1] == {
        "label": None,
        "previous": "origin story",
    }
    assert app.verify().ok, "a label taken off is recorded by its event: both stores still verify"
    assert view.request("label", bates=first, label="")["label"] is None  # nothing to take off


def test_falsify_takes_the_answer_out_of_service(
    app: Arborist, view: View, session: tuple[str, list[str]]
) -> None:
    first = session[1][0]
    result = view.request("falsify", bates=first, state="failed", reason="wrong artist")
    assert (result["state"], result["state_reason"]) == ("failed", "wrong artist")
    record = view.request("body", bates=first)["record"]
    assert (record["state"], record["state_reason"]) == ("failed", "wrong artist")
    assert app.record(app.node(first).cache_key).state == "failed"


def test_falsify_without_a_reason_says_so_in_the_widgets_words(
    app: Arborist, view: View, session: tuple[str, list[str]]
) -> None:
    """A blank reason is refused in words a GUI user can act on (no CLI flag), and the answer
    stays in service."""
    first = session[1][0]
    reply = view.answer(
        {"id": 1, "kind": "falsify", "bates": first, "state": "failed", "reason": " "}
    )
    assert reply["ok"] is False and "say why the answer is wrong" in reply["error"]
    assert "--" not in reply["error"]
    assert app.record(app.node(first).cache_key).state == "ok"


def _rows(view: View, widget: ForestWidget) -> dict[str, dict[str, Any]]:
    top = view.request("expand", known={}, bates=[widget.root_bates])
    return {c["bates"]: c["summary"] for c in top["nodes"][widget.root_bates]["children"]}


def test_a_turn_keeps_the_state_of_the_revision_it_showed(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    """Issue #25, point 6: a falsified answer asked again is revision 2; the turn that showed
    revision 1 still shows it falsified (row and detail), and its Falsify acts on revision 1
    (already failed), never on the new answer; the new turn shows revision 2, in service."""
    first = session[1][0]
    key = app.node(first).cache_key
    view.request("falsify", bates=first, state="failed", reason="wrong artist")
    again = app.ask_turn(QUESTIONS[0], sid=widget.sid, parent="root")
    assert not again.result.hit and again.node.bates != first and again.node.cache_key == key
    assert app.record(key).revision == 2 and app.record(key).state == "ok"
    rows = _rows(view, widget)
    assert (rows[first]["revision"], rows[first]["state"]) == (1, "failed")
    assert rows[again.node.bates]["revision"] == 2 and "state" not in rows[again.node.bates]
    old = view.request("body", bates=first)
    assert (old["record"]["revision"], old["record"]["state"]) == (1, "failed")
    assert old["summary"]["state"] == "failed"
    assert old["latest_revision"] == {"revision": 2, "state": "ok"}
    assert view.request("body", bates=again.node.bates)["record"]["revision"] == 2
    refused = view.answer(
        {"id": 1, "kind": "falsify", "bates": first, "state": "failed", "reason": "still wrong"}
    )
    assert refused["ok"] is False and "revision 1 is already failed" in refused["error"]
    assert app.record(key).state == "ok", "the old turn's Falsify left revision 2 alone"
    # The new turn's Falsify takes revision 2, and a roots delta tells each revision apart.
    head = view.request("roots", known={}, since=None, store_since=None)
    done = view.request("falsify", bates=again.node.bates, state="stale", reason="moved")
    assert (done["revision"], done["summary"]["state"]) == (2, "stale")
    delta = view.request("roots", known={}, since=head["event_seq"], store_since=head["store_seq"])
    assert delta["restated"] == {key[:12]: {"1": "failed", "2": "stale"}}


def test_a_falsification_can_be_undone_while_no_later_answer_replaced_it(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    """Issue #25, point 7: undo is a new ``cache_state`` event putting the revision back in
    service (the chain is append-only); it keeps both events, verifies, and is refused once
    the question was answered again."""
    first, second = session[1][:2]
    key = app.node(first).cache_key
    view.request("falsify", bates=first, state="failed", reason="wrong artist")
    back = view.request("restore", bates=first)
    assert (back["revision"], back["state"]) == (1, "ok")
    assert back["state_reason"] == "falsification undone (was failed: wrong artist)"
    assert "state" not in back["summary"]
    assert app.record(key).state == "ok"
    assert app.ask_turn(QUESTIONS[0], sid=widget.sid, parent="root").result.hit, "served again"
    events = [
        json.loads(body)["state"]
        for (body,) in app.store_conn.execute(
            "SELECT body FROM audit_events WHERE event_type = 'cache_state' ORDER BY seq"
        )
    ]
    assert events == ["failed", "ok"], "the falsification stays in the record, and its undoing"
    assert app.verify().ok
    twice = view.answer({"id": 2, "kind": "restore", "bates": first})
    assert twice["ok"] is False and "no falsification to undo" in twice["error"]
    # Falsified, then answered again: revision 1 can no longer be put back.
    key2 = app.node(second).cache_key
    view.request("falsify", bates=second, state="failed", reason="wrong")
    app.ask_turn(QUESTIONS[1], sid=widget.sid, parent=first)
    late = view.answer({"id": 3, "kind": "restore", "bates": second})
    assert late["ok"] is False and "revision 2 has answered the question since" in late["error"]
    assert app.record(key2, revision=1).state == "failed"
    assert app.verify().ok


# --- forks ------------------------------------------------------------------------------------


def _turn_done(view: View, widget: ForestWidget) -> dict[str, Any]:
    assert widget.wait(30), "the fork never finished"
    [event] = view.events()
    return event


def test_fork_answers_at_once_then_reports_turn_done_from_a_worker_thread(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    first = session[1][0]
    here = app.session(session[0]).current_bates
    main = threading.get_ident()
    started: list[int] = []
    original = widget._fork

    def spy(*args: Any) -> None:
        started.append(threading.get_ident())
        original(*args)

    widget._fork = spy  # type: ignore[method-assign]
    reply = view.answer({"id": "f-1", "kind": "fork", "bates": first, "question": "Who drew him?"})
    assert reply == {"id": "f-1", "ok": True, "result": {"pending": True, "parent": first}}
    event = _turn_done(view, widget)
    assert view.sent.index(reply) < view.sent.index(event), "pending is answered first"
    assert started and started[0] != main
    assert event["kind"] == "turn_done" and event["ok"] is True
    assert (event["request"], event["parent"]) == ("f-1", first)
    node = app.node(event["bates"])
    assert (node.parent_bates, node.question) == (first, "Who drew him?")
    assert widget.revision == 1
    assert widget.root_hash == app.node(widget.root_bates).subtree_hash
    # A fork answers beside the kernel's work: the kernel's current turn has not moved.
    assert app.session(session[0]).current_bates == here != event["bates"]
    assert widget.current_bates == here


def test_fork_under_another_sessions_turn_makes_a_graft(
    app: Arborist, view: View, widget: ForestWidget
) -> None:
    other = app.new_session("other").sid
    theirs = app.ask_turn(QUESTIONS[1], sid=other).node.bates
    view.request("fork", bates=theirs, question="Who drew Batman?")
    event = _turn_done(view, widget)
    assert event["ok"] is True
    graft = event["bates"]
    assert graft.startswith(widget.sid)
    assert widget.graft_hashes == {graft: app.node(graft).subtree_hash}
    roots = view.request("roots")
    [entry] = roots["grafts"]
    assert (entry["bates"], entry["parent_bates"]) == (graft, theirs)
    assert entry["summary"]["foreign"] is False
    held = view.request("roots", known={graft: entry["subtree_hash"]})
    assert "summary" not in held["grafts"][0]
    # Another session answering under our graft changes the graft's hash, seen by poll.
    app.ask_turn("And who inked it?", sid=other, parent=graft)
    polled = view.request("poll", grafts=[graft])
    assert polled["graft_hashes"][graft] != entry["subtree_hash"]


def test_a_fork_that_fails_reports_turn_done_with_one_line(
    app: Arborist, session: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    widget = ForestWidget(app=app, sid=session[0], llm="no-such-model")
    view = View(widget, monkeypatch)
    reply = view.request("fork", bates=session[1][0], question="Who drew him?")
    assert reply["pending"] is True
    event = _turn_done(view, widget)
    assert event["ok"] is False and "no-such-model" in event["error"]
    assert "\n" not in event["error"]
    assert widget.revision == 0
    widget.close()


# --- polling ----------------------------------------------------------------------------------


def test_poll_sees_another_kernels_write(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    before = view.request("poll")
    assert before == {
        "root_hash": widget.root_hash,
        "next_seq": 4,
        "current_bates": session[1][2],
        "graft_hashes": {},
        "event_seq": before["event_seq"],
        "store_seq": before["store_seq"],
    }
    with Arborist(app.home) as other_kernel:
        other_kernel.ask_turn("Who drew Spider-Man?", sid=widget.sid, parent=session[1][0])
    after = view.request("poll")
    assert after["root_hash"] != before["root_hash"] and after["next_seq"] == 5
    assert after["event_seq"] > before["event_seq"]


def test_poll_sees_a_record_falsified_elsewhere_which_changes_no_hash(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    before = view.request("poll")
    assert view.request("roots")["store_seq"] == before["store_seq"]
    with Arborist(app.home) as other_kernel:
        other_kernel.falsify(app.node(session[1][0]).cache_key, "stale", "source changed")
    after = view.request("poll")
    assert after["store_seq"] > before["store_seq"]
    assert (after["root_hash"], after["event_seq"]) == (before["root_hash"], before["event_seq"])


def test_a_rename_changes_no_hash_but_reaches_the_view_through_the_chain_head(
    app: Arborist, view: View, widget: ForestWidget, session: tuple[str, list[str]]
) -> None:
    view.sync()
    first = session[1][0]
    hashes = widget.root_hash
    polled = view.request("poll")
    app.label(widget.sid, "<b>origin</b>", first)  # as `%arborist label` does
    widget.refresh()
    assert widget.root_hash == hashes
    assert view.request("poll")["event_seq"] > polled["event_seq"]
    since = len(view.log)
    view.sync()
    assert [kind for kind, *_ in view.log[since:]] == ["roots"]
    assert view.log[since][2]["relabelled"] == {first: "<b>origin</b>"}
    assert view.nodes[first]["summary"]["label"] == "<b>origin</b>"
    assert view.request("roots", since=view.event_seq)["relabelled"] == {}
    assert view.request("roots")["relabelled"] == {}  # a fresh view fetches labels with nodes


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"kind": "roots"}, "request has no 'id'"),
        ({"id": True, "kind": "roots"}, "request has no 'id'"),
        ({"id": 1, "kind": "sql"}, "unknown request kind 'sql'"),
        ({"id": 1}, "unknown request kind None"),
        ({"id": 1, "kind": "expand"}, "missing 'bates'"),
        ({"id": 1, "kind": "expand", "bates": "x"}, "'bates' must be a list"),
        ({"id": 1, "kind": "roots", "since": "7"}, "'since' must be null or an audit event seq"),
        ({"id": 1, "kind": "expand", "bates": ["nope"]}, "bad bates number 'nope'"),
        ({"id": 1, "kind": "expand", "bates": [], "known": []}, "'known' must be an object"),
        ({"id": 1, "kind": "expand", "bates": [], "known": {"a": 1}}, "'known' must map"),
        ({"id": 1, "kind": "body", "bates": 7}, "bates must be a bates number string"),
        ({"id": 1, "kind": "body", "bates": "20260101T000000Z-abcdef-000001"}, "no turn"),
        ({"id": 1, "kind": "find", "query": ""}, "empty search query"),
        ({"id": 1, "kind": "find", "query": "x", "limit": True}, "'limit' must be an integer"),
        ({"id": 1, "kind": "find", "query": "x", "limit": 0}, "'limit' must be between"),
        ({"id": 1, "kind": "label", "bates": "000001", "label": "x"}, "bad bates number"),
        ({"id": 1, "kind": "label", "bates": "ROOT", "label": "12"}, "would read as a seq"),
        ({"id": 1, "kind": "fork", "bates": "ROOT", "question": "   "}, "empty question"),
        ({"id": 1, "kind": "falsify", "bates": "ROOT", "state": "ok", "reason": "r"}, "bad state"),
        ({"id": 1, "kind": "falsify", "bates": "ROOT", "state": "failed", "reason": "r"}, "root"),
        ({"id": 1, "kind": "cd", "bates": "20260101T000000Z-abcdef-000001"}, "no turn"),
    ],
)
def test_bad_requests_get_a_one_line_error_and_never_raise(
    view: View, widget: ForestWidget, message: dict[str, Any], error: str
) -> None:
    message = json.loads(json.dumps(message).replace("ROOT", widget.root_bates))
    reply = view.answer(message)
    assert reply["ok"] is False
    assert reply["id"] == (1 if message.get("id") == 1 and message.get("id") is not True else None)
    assert error in reply["error"]
    assert "\n" not in reply["error"] and len(reply["error"]) <= 300


def test_a_request_that_hits_a_bug_names_it_by_its_type_on_one_line_of_300(
    view: View, widget: ForestWidget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The status line says a bug is one (its type first), a silent one by its type alone,
    an arborist error as it is; one line, cut to 300 with an ellipsis (errors.one_line)."""
    for raised, said in (
        (KeyError("x\n" * 400), "KeyError: 'x\\n"),
        (RuntimeError(), "RuntimeError: RuntimeError"),
        (ArboristError("no  such\nturn"), "no such turn"),
    ):

        def poll(*_args: object, error: Exception = raised) -> None:
            raise error

        monkeypatch.setattr(ForestView, "poll", poll)
        error = view.answer({"id": 1, "kind": "poll"})["error"]
        assert error.startswith(said) and "\n" not in error and len(error) <= 300, error
        assert len(error) < 300 or error.endswith("…"), error
    assert error == "no such turn"


def test_messages_that_are_not_requests_are_ignored(view: View, widget: ForestWidget) -> None:
    for message in ("roots", ["roots"], {"kind": "anywidget-command", "id": 1, "name": "x"}):
        widget._handle_custom_msg(message, [])
    assert view.sent == []


def test_a_search_hit_in_the_cited_titles_shows_titles_not_a_json_list(
    app: Arborist, view: View, widget: ForestWidget, tmp_path: Path
) -> None:
    """Issue #25, point 11: the snippet of a turn found by its cited titles reads as the
    titles (marks kept), never as the stored JSON list."""
    (tmp_path / "quokka.md").write_text(
        '# Quokka "almanac" notes\n\nThe quokka smiles at visitors on Rottnest Island.\n',
        encoding="utf-8",
    )
    app.ingest([str(tmp_path / "quokka.md")])
    turn = app.ask_turn("Who smiles at visitors?", sid=widget.sid)
    assert 'Quokka "almanac" notes' in turn.node.cited_titles
    [hit] = view.request("find", query="almanac")["hits"]
    assert hit["bates"] == turn.node.bates
    assert "«almanac»" in hit["snippet"]
    assert not any(c in hit["snippet"] for c in "[]\\"), hit["snippet"]
    assert hit["snippet"].startswith('Quokka "«almanac»" notes'), hit["snippet"]
    [answer_hit] = view.request("find", query="visitors")["hits"]
    assert "«visitors»" in answer_hit["snippet"] and '"' not in answer_hit["snippet"]


_CONNECTIONS = {"sessions_conn", "store_conn"}
ROOT = Path(__file__).resolve().parents[1]


def connections_reached(paths: list[Path]) -> list[str]:
    """Where a face reads the facade's connections itself, by file and line."""
    return [
        f"{path.name}:{node.lineno} .{node.attr}"
        for path in paths
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in _CONNECTIONS
    ]


def test_no_face_touches_a_connection(tmp_path: Path) -> None:
    """The widget's protocol, the REPL, the command table and the notebook ask the facade
    (``Arborist.forest_view`` and its reads), never its connections (issue #26)."""
    core = ROOT / "arborist"
    faces = sorted((core / "_faces").glob("*.py")) + sorted((core / "_commands").glob("*.py"))
    faces += sorted((ROOT / "arborist_nb").glob("*.py"))
    names = {f"{path.parent.name}/{path.name}" for path in faces}
    assert {"_faces/sync.py", "_faces/repl.py", "_faces/cli.py", "_commands/desk.py"} <= names
    assert {"_commands/answers.py", "arborist_nb/_widget.py", "arborist_nb/_magics.py"} <= names
    assert not connections_reached(faces)
    broken = tmp_path / "sync.py"
    broken.write_text("def f(app):\n    return app.store_conn\n", encoding="utf-8")
    assert connections_reached([*faces, broken]) == ["sync.py:2 .store_conn"]
