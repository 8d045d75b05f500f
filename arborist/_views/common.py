"""What every view module writes with. Pure: no I/O.

A field printed inside a line of arborist's own output (a question, a title, a URI, a
label, a reason) goes through :func:`field`: one line, inert. :mod:`arborist._views.results` and
:mod:`arborist._views.forest` both import it; faces reach it as ``views.field``. A turn's
facts (:mod:`arborist._facts`) are written out by :func:`facts_lines`, the same in every
face that prints a turn as text.
"""

from __future__ import annotations

from arborist._facts import Source, TurnFacts, fact_rows
from arborist._text.terminal import inert

__all__ = [
    "facts_lines",
    "field",
]


def field(text: str | None) -> str:
    """A field printed inside a line (a question, title, URI, label, reason): one line,
    inert, so a newline in it cannot forge a line of arborist's own output."""
    return inert(text or "", one_line=True)


def facts_lines(facts: TurnFacts, width: int) -> list[str]:
    """A turn's facts (:mod:`arborist._facts`) as a terminal shows them, names padded to
    ``width``: hit or miss, audit, support, key, keywords, then its sources (the lane that
    found each) and what fitting the prompt left out. Every face that prints a turn as text
    prints these lines: ``ask`` and ``show`` (CLI, REPL, ``%arborist``), ``%%ask``."""
    lines = [f"{name:<{width}} {field(value)}" for name, value in fact_rows(facts)]
    if facts.served is not None:  # a record here holds its answer: its sources
        lines.append("sources")
        lines += [_source_line(s) for s in facts.sources] or ["  (no evidence retrieved)"]
    if facts.fitted:
        lines.append(f"{'fitted':<{width}} {field(facts.fitted)}")
    return lines


def _source_line(source: Source) -> str:
    """``  E1* title  (chunk 3)  uri  [lane]``: ``*`` marks a cited source; the lane is named
    when the record names the lanes (a hybrid ask, or one with a co-access lane)."""
    lane = f"  [{field(source.lane)}]" if source.lane else ""
    mark = "*" if source.cited else " "
    return (
        f"  {source.label}{mark} {field(source.title)}  (chunk {source.chunk_index})  "
        f"{field(source.uri)}{lane}"
    )
