"""HTML parse time against the page's size: hostile shapes beside flat prose of the same bytes.

    python bench/html_parse.py [--quick] [--size BYTES] [--rounds N]

Issue #33's goal: any 2 MB page becomes text (:func:`arborist._store.html_text.load_html`,
the whole path from bytes to text) in at most 2 s on this machine. Each shape is built
to the same size as the baseline, flat prose in ``<p>`` paragraphs, and timed in the same
process (CPU time, best of ``--rounds``); the table gives each one's seconds and its
ratio to the baseline. Before the bounds (arborist/_store/html_bounds.py), 100,000 nested
``<div>``s (1.1 MB) took 67 s and 200,000 (2.2 MB) 432 s. ``--quick`` is a smoke run
(200 KB, one round, no goal).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arborist._store.html_text import load_html  # noqa: E402

GOAL_SECONDS = 2.0
GOAL_SIZE = 2 * 1000 * 1000


def _repeat(unit: str, size: int) -> str:
    return unit * max(size // len(unit), 1)


def shapes(size: int) -> dict[str, Callable[[], str]]:
    """Each hostile shape, and the baseline, as a page of about ``size`` bytes."""
    half = size // 2
    return {
        "flat prose (baseline)": lambda: (
            "<html><body>"
            + _repeat("<p>Rowan, alder and birch line the stream in early spring.</p>\n", size)
        ),
        "nested <div>, closed": lambda: (
            "<body>" + _repeat("<div>", half) + "x" + _repeat("</div>", half)
        ),
        "nested <div>, unclosed": lambda: "<body>" + _repeat("<div>w ", size),
        "nested <pre>": lambda: _repeat("<pre>", size),
        "nested lists": lambda: _repeat("<ul><li>x", size),
        "nested tables": lambda: _repeat("<table><tr><td>x", size),
        "unclosed <b>, each with an id": lambda: "".join(f"<b id={i}>x" for i in range(size // 14)),
        "unclosed <a>": lambda: _repeat("<a>x", size),
        "unclosed <nobr>": lambda: _repeat("<nobr>x", size),
        "unclosed <p>": lambda: _repeat("<p>x", size),
        "<div></span> mismatches": lambda: _repeat("<div></span>", size),
        "misnested <a><p></a>": lambda: _repeat("<a><p></a>", size),
        "one tag, many attributes": lambda: (
            "<div " + " ".join(f"a{i}=1" for i in range(size // 8)) + ">x</div>"
        ),
        "many quoted attributes": lambda: (
            "<div " + " ".join(f'a{i}="v>{i}"' for i in range(size // 14)) + ">x</div>"
        ),
        "options in one select": lambda: "<select>" + _repeat("<option>x", size),
        "huge table": lambda: (
            "<table>" + _repeat("<tr><td>a</td><td>b</td></tr>", size) + "</table>"
        ),
        "one long text run": lambda: "<p>" + _repeat("word ", size) + "</p>",
        "nested <svg> groups": lambda: "<svg>" + _repeat("<g>", size),
    }


def cpu_best(work: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: 200 KB, no goal")
    parser.add_argument("--size", type=int, default=GOAL_SIZE, help="bytes per page")
    parser.add_argument("--rounds", type=int, default=3, help="timings per shape (best kept)")
    args = parser.parse_args()
    size = 200_000 if args.quick else args.size
    rounds = 1 if args.quick else args.rounds

    rows: list[tuple[str, int, float]] = []
    for name, make in shapes(size).items():
        data = make().encode("utf-8")
        seconds = cpu_best(lambda data=data: load_html(data, "page.html", None), rounds)  # type: ignore[misc]
        rows.append((name, len(data), seconds))
    baseline = rows[0][2]
    print(f"HTML to text (load_html), CPU seconds, best of {rounds}, pages of about {size:,} bytes")
    print(f"  {'shape':34} {'bytes':>10} {'seconds':>8} {'/ baseline':>10}")
    for name, length, seconds in rows:
        print(f"  {name:34} {length:>10,} {seconds:>8.3f} {seconds / baseline:>10.1f}")
    worst_name, _, worst = max(rows, key=lambda row: row[2])
    print("\ngoals")
    if args.quick:
        print(f"  (quick run: no goal; the slowest was {worst_name}, {worst:.3f} s)")
        return 0
    met = worst <= GOAL_SECONDS * size / GOAL_SIZE
    print(
        f"  {'MET   ' if met else 'MISSED'} every page of {size:,} bytes to text in <= "
        f"{GOAL_SECONDS * size / GOAL_SIZE:.1f} s (slowest: {worst_name}, {worst:.2f} s, "
        f"{worst / baseline:.1f}x the baseline)"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
