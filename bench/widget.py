"""What the forest widget costs: sync bytes after one new turn, and time to first render.

    python bench/widget.py [--quick] [--no-browser] [--runs N]

Machines here are shared and noisy, so figures are ratios to a baseline
measured in the same run, and timings are the best or the median of repeats.

1. **Sync bytes.** A bushy session (fan-out 10, depth 4: 11,110 turns) is
   built through arborist's import path (generated lines, every node hash
   real and re-proved on import). A fresh view walks every node through the
   widget's own comm handler (``ForestWidget._handle_custom_msg``), as
   ``js/src/widget.js`` does with every node expanded (batches of 500,
   hashes held sent as ``known``): the full state, the baseline. Then ONE turn
   is added under a deepest node and the same view refreshes (descending only
   into changed, expanded nodes). Bytes are compact JSON of every answer.
2. **Time to first render** of a 2,000-turn session in headless chromium: a
   real JupyterLab on loopback started with the browser tests' harness
   (``tests/browser/conftest.py``), a notebook that resumes the session and
   displays ``%arborist``; from running the widget cell to
   ``[data-arborist-forest][data-ready="true"]`` (and to the first frame
   after it, and to the rows it shows), with ``performance.now()`` in the
   page. Median of R runs, each on a reloaded page with a fresh kernel.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anywidget
import jupyterlab
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arborist.app import Arborist
from arborist.clock import format_timestamp
from arborist.forest.bates import format_bates
from arborist.forest.shard import insert_turn
from arborist.forest.transfer import EXPORT_FORMAT
from arborist.hashing import node_hash, sha256_hex
from arborist.store.search import AUDIT_MODES
from arborist_nb.widget import ForestWidget
from tests.browser.conftest import (
    KERNEL_READY_MS,
    STATIC,
    Guard,
    Lab,
    LabServer,
    _stop,
    guarded_browser,
    start_server,
)

TARGET_FRACTION = 0.01
EXPAND_BATCH = 500  # js/src/widget.js EXPAND_BATCH: most nodes one expand request names


# --------------------------------------------------------------------------- building a session


def _node_lines(sid: str, fan: tuple[int, ...], root_hash: str) -> Iterator[dict[str, Any]]:
    """Export records of a complete tree under the root, breadth first, with real node hashes."""
    base = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    level = [(format_bates(sid, 0), root_hash)]
    seq = 0
    for width in fan:
        below = []
        for parent, parent_hash in level:
            for k in range(width):
                seq += 1
                bates = format_bates(sid, seq)
                question = (
                    f"Question {seq}: what does branch {k} of {parent} say about item {seq % 97}?"
                )
                answer = f"Answer {seq}: branch {k} says item {seq % 97} was recorded in volume {seq % 13}."
                cache_key = sha256_hex(f"key-{seq % 1_000}".encode())
                audit_mode = AUDIT_MODES[seq % 3]
                created_at = format_timestamp(base + datetime.timedelta(milliseconds=seq))
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
                    "cited_titles": [f"Volume {seq % 13}"],
                    "created_at": created_at,
                    "created_label": None,
                    "label": None,
                    "node_hash": digest,
                }
                below.append((bates, digest))
        level = below


def build_session(home: Path, fan: tuple[int, ...]) -> tuple[str, int, list[str]]:
    """A session with a complete tree of fan-out ``fan``: (sid, turns, deepest bates)."""
    with Arborist(home) as app:
        sid = app.new_session("bench").sid
        header, root = app.export_session(sid)[:2]
        header["format"] = EXPORT_FORMAT
        records = list(_node_lines(sid, fan, root["node_hash"]))
        lines = [json.dumps(r) for r in [header, root, *records]]
        result = app.import_sessions(lines)
        assert result.added == len(records), result
        deepest = [r["bates"] for r in records[-fan[-1] * 4 :]]
    return sid, len(records), deepest


# --------------------------------------------------------------------------- the view


class View:
    """The front end's walk (js/src/widget.js ``Store.sync``) with every node expanded.

    Requests go through the widget's comm handler; answers are caught from
    its ``send`` and counted in bytes of compact JSON.
    """

    def __init__(self, widget: ForestWidget) -> None:
        self.widget = widget
        self.replies: list[dict[str, Any]] = []
        widget.send = self._receive  # type: ignore[method-assign]
        self.nodes: dict[str, dict[str, Any]] = {}
        self.grafts: list[str] = []
        self.event_seq: int | None = None
        self.counter = 0
        self.sizes: list[tuple[str, int]] = []

    def _receive(self, content: dict[str, Any], buffers: Any = None) -> None:
        self.replies.append(content)

    def request(self, kind: str, **args: Any) -> Any:
        self.counter += 1
        before = len(self.replies)
        self.widget._handle_custom_msg({"id": f"b-{self.counter}", "kind": kind, **args}, [])
        (reply,) = self.replies[before:]
        assert reply["ok"] is True, reply
        self.sizes.append(
            (kind, len(json.dumps(reply, separators=(",", ":"), ensure_ascii=False).encode()))
        )
        return reply["result"]

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
        root = roots["root_bates"]
        self.node(root)["hash"] = roots["root_hash"]
        self.grafts = []
        for graft in roots["grafts"]:
            node = self.node(graft["bates"])
            node["hash"] = graft["subtree_hash"]
            node["summary"] = graft.get("summary", node["summary"])
            self.grafts.append(graft["bates"])
        level = [b for b in [root, *self.grafts] if self.stale(b)]
        while level:
            below: list[str] = []
            for start in range(0, len(level), EXPAND_BATCH):
                below += self._expand(level[start : start + EXPAND_BATCH])
            level = [b for b in dict.fromkeys(below) if self.stale(b)]

    def _expand(self, batch: list[str]) -> list[str]:
        known: dict[str, str] = {}
        for bates in batch:
            node = self.nodes[bates]
            if node["children"] is not None:
                known[bates] = node["children_hash"]
            for child in node["children"] or []:
                if self.nodes[child]["summary"]:
                    known[child] = self.nodes[child]["hash"]
        reply = self.request("expand", known=known, bates=batch)
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
        return below

    def walk(self) -> tuple[int, int, float]:
        """One sync: (bytes answered, requests, seconds)."""
        since = len(self.sizes)
        start = time.perf_counter()
        self.sync()
        elapsed = time.perf_counter() - start
        return sum(size for _, size in self.sizes[since:]), len(self.sizes) - since, elapsed


@dataclass
class SyncResult:
    turns: int
    build_s: float
    full_bytes: int
    full_requests: int
    full_s: list[float]
    one_bytes: list[int]
    one_requests: list[int]
    one_s: list[float]

    @property
    def fraction(self) -> float:
        return max(self.one_bytes) / self.full_bytes


def bench_sync(tmp: Path, fan: tuple[int, ...], repeat: int) -> SyncResult:
    home = tmp / "sync-home"
    start = time.perf_counter()
    sid, turns, deepest = build_session(home, fan)
    build_s = time.perf_counter() - start
    with Arborist(home) as app:
        widget = ForestWidget(app=app, sid=sid)
        try:
            full_s: list[float] = []
            full_bytes = full_requests = 0
            view = View(widget)
            for _ in range(repeat):  # fresh views: a browser opening the notebook
                view = View(widget)
                full_bytes, full_requests, seconds = view.walk()
                full_s.append(seconds)
            assert len(view.nodes) == turns + 1, (len(view.nodes), turns)
            one_bytes, one_requests, one_s = [], [], []
            for i in range(repeat):  # one new turn each time, under a different deepest node
                parent = deepest[(i * 7) % len(deepest)]
                insert_turn(
                    app.sessions_conn,
                    sid,
                    parent,
                    question=f"A follow-up question number {i} about {parent}?",
                    answer_text="A follow-up answer.",
                    cache_key=sha256_hex(f"follow-up-{i}".encode()),
                    audit_mode="STRICT",
                )
                widget.refresh()
                size, requests, seconds = view.walk()
                one_bytes.append(size)
                one_requests.append(requests)
                one_s.append(seconds)
            fresh = View(widget)
            fresh.walk()
            assert {b: n["hash"] for b, n in fresh.nodes.items()} == {
                b: n["hash"] for b, n in view.nodes.items()
            }, "the incremental walk does not match a fresh one"
        finally:
            widget.close()
    return SyncResult(
        turns, build_s, full_bytes, full_requests, full_s, one_bytes, one_requests, one_s
    )


# --------------------------------------------------------------------------- the browser

# Starts observing the widget cell's output, notes performance.now(), runs the cell.
_MEASURE = """async ({ path, index }) => {
    const app = window.jupyterapp;
    const panel = window.__arb.panel(path);
    app.shell.activateById(panel.id);
    const notebook = panel.content;
    notebook.activeCellIndex = index;
    notebook.deselectAll();
    const marks = { t0: 0, first_row: null, ready: null, paint: null, rows: 0,
                    rows_at: null, executed: null };
    window.__marks = marks;
    const check = () => {
        const forest = panel.node.querySelector('[data-arborist-forest]');
        if (forest === null) return;
        const now = performance.now();
        const rows = forest.querySelectorAll('[role="treeitem"]').length;
        if (rows > 0 && marks.first_row === null) marks.first_row = now;
        if (rows !== marks.rows) { marks.rows = rows; marks.rows_at = now; }
        if (marks.ready === null && forest.getAttribute('data-ready') === 'true') {
            marks.ready = now;
            requestAnimationFrame(() => { marks.paint = performance.now(); });
        }
    };
    window.__observer = new MutationObserver(check);
    window.__observer.observe(panel.node, { subtree: true, childList: true, attributes: true });
    marks.t0 = performance.now();
    await app.commands.execute('notebook:run-cell');
    marks.executed = performance.now();
    return true;
}"""


@dataclass
class RenderRun:
    ready_ms: float
    paint_ms: float
    first_row_ms: float
    rows_ms: float
    rows: int
    executed_ms: float


def _start_lab(base: Path) -> tuple[LabServer, subprocess.Popen[bytes]]:
    """The browser tests' server, started the same way (a pytest fixture cannot be called)."""
    return start_server(base, "lab")


def bench_render(tmp: Path, fan: tuple[int, ...], runs: int) -> tuple[int, list[RenderRun], str]:
    if not (STATIC / "widget.js").is_file():
        raise SystemExit(f"{STATIC / 'widget.js'} is missing: run `make js`")
    base = tmp / "lab"
    base.mkdir()
    server, process = _start_lab(base)
    results: list[RenderRun] = []
    driver = sync_playwright().start()
    try:
        versions = f"playwright {version('playwright')}"
        name = "render.ipynb"
        sid, turns, _ = build_session(server.homes / Path(name).stem, fan)
        # Imports first, so the timed cell measures the widget, not module loading.
        path = server.write_notebook(
            name, ["import arborist_nb.widget", f"%arborist session resume {sid}", "%arborist"]
        )
        guard = Guard()
        with guarded_browser(driver, tmp / "chromium-profile", guard) as (context, page):
            versions += f", chromium {context.browser.version if context.browser else '?'}"
            lab = Lab(page, server, guard)
            for _ in range(runs):
                lab.open(path)  # a reloaded page (lab?reset) and, below, a fresh kernel
                for index in range(3):
                    lab.run(index)
                lab._await(
                    _MEASURE,
                    {"path": path, "index": 3},
                    timeout_ms=KERNEL_READY_MS,
                    what="running the widget cell",
                )
                page.wait_for_function(
                    "() => window.__marks.paint !== null", timeout=KERNEL_READY_MS
                ).dispose()
                marks = page.evaluate("() => window.__marks")
                t0 = marks["t0"]
                results.append(
                    RenderRun(
                        ready_ms=marks["ready"] - t0,
                        paint_ms=marks["paint"] - t0,
                        first_row_ms=marks["first_row"] - t0,
                        rows_ms=marks["rows_at"] - t0,
                        rows=marks["rows"],
                        executed_ms=marks["executed"] - t0,
                    )
                )
                server.shut_down_kernels()
            guard.assert_clean()
    finally:
        driver.stop()
        _stop(server.url, process)
    return turns, results, versions


# --------------------------------------------------------------------------- main


def machine() -> str:
    return (
        f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, JupyterLab {jupyterlab.__version__}, "
        f"anywidget {anywidget.__version__}, "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--no-browser", action="store_true", help="skip the chromium figure")
    parser.add_argument("--runs", type=int, default=None, help="browser runs (median)")
    parser.add_argument("--repeat", type=int, default=None, help="sync walks (best/median)")
    args = parser.parse_args()
    sync_fan = (6, 6, 6) if args.quick else (10, 10, 10, 10)
    render_fan = (20, 99)  # 2,000 turns: 20 under the root, 99 under each
    runs = args.runs or (1 if args.quick else 3)
    repeat = args.repeat or (2 if args.quick else 3)
    began = time.perf_counter()
    print(f"arborist widget benchmark{' (--quick)' if args.quick else ''}")
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="arborist-bench-widget-") as name:
        tmp = Path(name)
        synced = bench_sync(tmp, sync_fan, repeat)
        rendered = None if args.no_browser else bench_render(tmp, render_fan, runs)
        shutil.rmtree(tmp / "chromium-profile", ignore_errors=True)
    elapsed = time.perf_counter() - began

    full_med = statistics.median(synced.full_s)
    one_med = statistics.median(synced.one_s)
    print(
        f"\n1. sync, {synced.turns:,}-turn session (fan-out {'x'.join(map(str, sync_fan))}, "
        f"built by import in {synced.build_s:.1f} s), every node expanded"
    )
    print(f"   {'walk':<32} {'bytes':>12} {'requests':>9} {'best ms':>9} {'median ms':>10}")
    print(
        f"   {'full sync (fresh view)':<32} {synced.full_bytes:>12,} {synced.full_requests:>9} "
        f"{min(synced.full_s) * 1000:>9.1f} {full_med * 1000:>10.1f}"
    )
    for i, (size, requests, seconds) in enumerate(
        zip(synced.one_bytes, synced.one_requests, synced.one_s, strict=True)
    ):
        print(
            f"   {f'refresh after one new turn #{i + 1}':<32} {size:>12,} {requests:>9} "
            f"{seconds * 1000:>9.1f} {'':>10}  ({size / synced.full_bytes:.4%} of full)"
        )
    if rendered is not None:
        turns, results, versions = rendered
        print(f"\n2. first render, {turns:,}-turn session, headless chromium ({versions})")
        print(
            f"   {'run':<5} {'cell done ms':>12} {'first row ms':>13} {'ready ms':>9} "
            f"{'painted ms':>11} {'rows':>5}"
        )
        for i, r in enumerate(results, 1):
            print(
                f"   {i:<5} {r.executed_ms:>12.0f} {r.first_row_ms:>13.0f} {r.ready_ms:>9.0f} "
                f"{r.paint_ms:>11.0f} {r.rows:>5}"
            )
    verdict = {True: "MET", False: "MISSED"}
    print("\nheadline figures")
    print(
        f"  1. one new turn in a {synced.turns:,}-turn session: {max(synced.one_bytes):,} bytes "
        f"(worst of {len(synced.one_bytes)}) vs full state {synced.full_bytes:,} bytes = "
        f"{synced.fraction:.4%} (target <= {TARGET_FRACTION:.0%}) "
        f"{verdict[synced.fraction <= TARGET_FRACTION]}; walk time median {one_med * 1000:.1f} ms "
        f"vs full {full_med * 1000:.0f} ms ({one_med / full_med:.4f}x)"
    )
    if rendered is not None:
        turns, results, _ = rendered
        ready = statistics.median(r.ready_ms for r in results)
        paint = statistics.median(r.paint_ms for r in results)
        first = statistics.median(r.first_row_ms for r in results)
        print(
            f"  2. time to first render, {turns:,}-turn session in headless chromium: median of "
            f"{len(results)}: data-ready {ready:.0f} ms, first frame after {paint:.0f} ms "
            f"(first row {first:.0f} ms; {results[0].rows} rows shown: the first refresh "
            "opens at most 150 rows)"
        )
    print(f"whole run: {elapsed:.0f} s")


if __name__ == "__main__":
    main()
