"""bench/RESULTS.md is assembled from sections, each written by one script and no other.

A section is the text between ``<!-- begin NAME -->`` and ``<!-- end NAME -->``;
:func:`write_section` replaces exactly that text and leaves the rest of the file
(the other sections, the header) as it was. A section not yet in the file is
appended. Writers: ``bench/goals.py`` (section ``goals``),
``bench/peers/run.py`` (section ``peers``) and ``bench/store.py`` (section
``store``).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["HEADER", "RESULTS", "write_section"]

RESULTS = Path(__file__).resolve().with_name("RESULTS.md")

HEADER = """\
# arborist benchmarks

Assembled by `make bench` from three sections, each written by its own script (never
edit them by hand): **issue #14's goals** (`bench/goals.py`: each goal measured as it
is named, against a baseline taken in the same process, and the growth tables),
**arborist beside its peers** (`bench/peers/run.py`) and **the store** (`bench/store.py`:
ingest, cache-hit asks, search and vector search, each beside a bare baseline).
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
