"""bench/RESULTS.md is assembled from sections, each written by one script and no other.

A section is the text between ``<!-- begin NAME -->`` and ``<!-- end NAME -->``;
:func:`write_section` replaces exactly that text and leaves the rest of the file
(the other sections, the header) as it was. A section not yet in the file is
appended. Writers: ``bench/goals.py`` (section ``goals``),
``bench/peers/run.py`` (section ``peers``), ``bench/store.py`` (section
``store``) and ``bench/bundle.py`` (section ``bundle``).

``make bench`` runs every script through :func:`run` (``python bench/results.py run
--missed FILE -- SCRIPT ARGS...``): the script's output passes through as it comes, and
each line it prints with a goal ``MISSED`` is appended to FILE, so one missed goal does
not stop the scripts after it. The bench's last step, ``python bench/results.py verdict
--missed FILE``, prints every missed goal by script and exits 1 if there is one.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["HEADER", "MISSED", "RESULTS", "missed_lines", "run", "verdict", "write_section"]

MISSED = re.compile(r"\bMISSED\b")
"""How a bench script names a goal it missed, in its printed report (``MET`` otherwise)."""

RESULTS = Path(__file__).resolve().with_name("RESULTS.md")

HEADER = """\
# arborist benchmarks

Assembled by `make bench` from four sections, each written by its own script (never
edit them by hand): **issue #14's goals** (`bench/goals.py`: each goal measured as it
is named, against a baseline taken in the same process, and the growth tables),
**arborist beside its peers** (`bench/peers/run.py`), **the store** (`bench/store.py`:
ingest, cache-hit asks, search and vector search, each beside a bare baseline) and
**a bundle** (`bench/bundle.py`: its size per turn, `verify --bundle` beside a bare
hashlib floor).
"""


def write_section(path: Path, name: str, body: str) -> None:
    """Put ``body`` into section ``name`` of ``path`` (created with :data:`HEADER`)."""
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n\n{body.strip()}\n\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    start = text.find(begin)
    stop = text.find(end, start)
    if start != -1 and stop != -1:
        text = text[:start] + block + text[stop + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def missed_lines(text: str) -> list[str]:
    """The lines of a script's output that report a missed goal."""
    return [line.strip() for line in text.splitlines() if MISSED.search(line)]


def run(command: Sequence[str], missed: Path) -> int:
    """Run one bench script (``command``: its path and arguments) with this interpreter,
    passing its output through, and append ``SCRIPT: LINE`` to ``missed`` for each line it
    prints with a goal ``MISSED``. Returns the script's exit status (nonzero: it failed,
    or, for ``bench/quality.py --floor``, a floor was not reached)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    name = command[0]
    found = []
    with subprocess.Popen(
        [sys.executable, *command], stdout=subprocess.PIPE, text=True, env=env
    ) as child:
        assert child.stdout is not None
        for line in child.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if MISSED.search(line):
                found.append(f"{name}: {line.strip()}")
    if found:
        with missed.open("a", encoding="utf-8") as out:
            out.writelines(f"{line}\n" for line in found)
    return child.returncode


def verdict(missed: Path) -> int:
    """Print the goals the run missed (from ``missed``): 0 when there are none, else 1."""
    lines = missed.read_text(encoding="utf-8").splitlines() if missed.exists() else []
    if not lines:
        print("make bench: every goal MET")
        return 0
    print(f"make bench: {len(lines)} goal(s) MISSED:")
    for line in lines:
        print(f"  {line}")
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run bench scripts; report missed goals.")
    steps = parser.add_subparsers(dest="step", required=True)
    running = steps.add_parser("run", help="run one script, noting its missed goals")
    running.add_argument("--missed", type=Path, required=True)
    running.add_argument("command", nargs=argparse.REMAINDER, help="-- SCRIPT [ARGS...]")
    judging = steps.add_parser("verdict", help="print the missed goals; exit 1 if any")
    judging.add_argument("--missed", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.step == "verdict":
        return verdict(args.missed)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("run needs a script: run --missed FILE -- SCRIPT [ARGS...]")
    return run(command, args.missed)


if __name__ == "__main__":
    sys.exit(main())
