"""The page ``export --html`` writes: how long chromium takes to check a bundle of 1,000 turns.

    python bench/bundle_page.py [--quick] [--turns N] [--rounds N]

Issue #37's goal: the page re-verifies every hash, proof and chain link of a bundle of
1,000 turns citing 5,000 chunks in at most 2 s in Chromium on this machine. The home is
made cheaply and for real: 1,000 generated documents of five sections each (every section
a chunk with a word of its own), then one session of ``--turns`` asks under its root, each
naming five sections' words so its record's evidence is five chunks no other turn holds
(the offline extractive answerer; no network). The bundle and its page come from
``Arborist.export_bundle`` and :func:`arborist._bundles.page.bundle_page`, as ``export
--html`` writes them; the page is opened from ``file://`` in headless chromium
(``/usr/bin/chromium``) ``--rounds`` times, and the time the page reports (from its
script's start to every turn shown and checked: parse, canonical re-encoding, the forest
built, every check) and the time from navigation to that point are printed, best and
median. ``--quick`` is a smoke run (40 turns, one round, no goal).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from arborist._bundles.page import bundle_page  # noqa: E402
from arborist._facade.app import Arborist  # noqa: E402

GOAL_SECONDS = 2.0
GOAL_TURNS = 1000
SECTIONS = 5
CHROMIUM = "/usr/bin/chromium"
SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zu", "pi", "do", "fe")


def word(n: int) -> str:
    """A made-up word of its own for section ``n`` (no two sections share one)."""
    out = ""
    for _ in range(4):
        n, r = divmod(n, len(SYLLABLES))
        out += SYLLABLES[r]
    return out + SYLLABLES[n % len(SYLLABLES)]


def build(folder: Path, turns: int) -> bytes:
    """The bundle of one session of ``turns`` asks, each citing five sections of its own."""
    docs = folder / "docs"
    docs.mkdir()
    for d in range(turns):
        parts = [f"# Ledger {d}\n"]
        for s in range(SECTIONS):
            n = d * SECTIONS + s
            parts.append(
                f"## Entry {n}\n\nThe {word(n)} entry records a season of {n % 97} days "
                f"by the northern ridge, counted in ledger {d}.\n"
            )
        (docs / f"ledger{d:04d}.md").write_text("\n".join(parts), encoding="utf-8")
    with Arborist(folder / "home") as app:
        app.ingest([str(docs)])
        session = app.new_session("bench")
        for d in range(turns):
            names = ", ".join(word(d * SECTIONS + s) for s in range(SECTIONS))
            app.ask_turn(
                f"What do the {names} entries record?", sid=session.sid, parent=session.root_bates
            )
        return app.export_bundle([session.sid])


def measure(page_path: Path, rounds: int) -> tuple[list[float], list[float]]:
    """The page's own times and the navigation-to-checked times, in seconds, per round."""
    reported, walls = [], []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            for _ in range(rounds):
                page = browser.new_page()
                start = time.perf_counter()
                page.goto(page_path.as_uri())
                page.wait_for_selector("body[data-checked=true]", timeout=120_000)
                walls.append(time.perf_counter() - start)
                summary = page.locator("#bp-summary")
                if summary.get_attribute("data-verdict") != "verified":
                    raise SystemExit(f"the page does not verify: {summary.text_content()}")
                reported.append(int(summary.get_attribute("data-ms") or 0) / 1000)
                page.close()
        finally:
            browser.close()
    return reported, walls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--turns", type=int, default=GOAL_TURNS)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    turns, rounds = (40, 1) if args.quick else (args.turns, args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        data = build(folder, turns)
        made = time.perf_counter() - start
        path = folder / "journal.html"
        path.write_text(bundle_page(data, "bench"), encoding="utf-8")
        size = path.stat().st_size
        reported, walls = measure(path, rounds)
    held = json.loads(data)
    print(
        f"bundle of {len(held['turns']) - 1:,} turns, {len(held['chunks']):,} chunks "
        f"({sum('text' in c for c in held['chunks']):,} cited): {len(data):,} bytes; "
        f"page {size:,} bytes (home made and bundled in {made:.1f} s)"
    )
    print(f"{'':<34} {'best':>8} {'median':>8}")
    for name, times in (
        ("page's own (script start -> checked)", reported),
        ("navigation -> checked", walls),
    ):
        print(f"{name:<34} {min(times):>7.2f}s {statistics.median(times):>7.2f}s")
    if not args.quick and turns >= GOAL_TURNS:
        worst = statistics.median(walls)
        verdict = "met" if worst <= GOAL_SECONDS else "MISSED"
        print(
            f"goal: {GOAL_TURNS:,} turns checked in <= {GOAL_SECONDS:.0f} s in chromium "
            f"(navigation -> checked, median): {worst:.2f} s: {verdict}"
        )


if __name__ == "__main__":
    main()
