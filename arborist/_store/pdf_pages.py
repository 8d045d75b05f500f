"""A PDF's pages read together: running heads, contents and index pages, hyphens, headings. Pure.

Each page comes as its :class:`~arborist._store.pdf_layout.Line` s in reading
order; what only shows across pages is decided here, from the document itself
(no dictionary, no fixed pattern):

- **Running heads and feet**: the two lines nearest the top and the two nearest
  the bottom of each page are candidates. One is a running head when it is a bare
  page number, or when its shape (digits read as ``#``: ``Chapter # : Basic Shell
  Features #``) recurs at that place on three pages or more. The outermost line is
  one too when, without digits, it recurs on a third of the pages, or when its
  first or last number is its page's number (the page's index plus the offset the
  recurring heads show). The second line from an edge is a candidate only under a
  head, and never by a shape without digits or by its number alone: it is most
  often the page's first or last line of text.
- **Contents and index pages**: a page where half the lines or more end in a page
  reference (``Shell Syntax . . . . 12``, ``LANG 8, 86``) is a table of contents
  or an index: its text is left out (the page keeps its place), unless that would
  leave the document without text. A reader looks things up there; an answer
  quoting ``LANG . . . 8, 86`` says nothing.
- **Hyphens**: a word cut at a line's end (``compo-`` / ``nents``) is joined on the
  first line. The hyphen goes when the joined word occurs elsewhere in the document;
  it stays when the hyphenated form does, when the first part is written with a
  hyphen elsewhere (``self-``, ``zero-``), when either part already holds one, or
  when the second part does not start in lower case; otherwise it goes.
- **Headings**: each outline entry (bookmark) becomes a markdown heading line
  (``#`` by depth) on its page, before the first line at or below its target's top,
  or in place of the visible heading line it names, found from there down the page
  (``3.1 Shell Syntax`` for the bookmark "Shell Syntax"), whose text it takes.

:func:`page_texts` gives each page's text: lines joined by ``\\n``, paragraphs and
headings separated by a blank line, in the form :mod:`arborist._store.normalize`
defines.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from arborist._store.normalize import normalize_text
from arborist._store.pdf_layout import Line

__all__ = ["HEAD_PAGES", "Mark", "REFERENCE_LINE", "page_texts"]

HEAD_PAGES = 3
"""A line's shape recurring at a page's edge on this many pages is a running head."""

MAX_HEADING_CHARS = 200
"""An outline title is cut to this many characters (a hostile PDF's bookmark may be long)."""

REFERENCE_LINE = re.compile(r"[\s.](?:\d+|[ivxlcdm]+)(?:\s*[,–-]\s*\d+)*\Z")
"""How a contents or index line ends: after a space or dot leaders, its page numbers
(``Shell Syntax . . . 12``, ``LANG 8, 86``); before it, dot leaders after anything
(``!= . . . 164, 165``), or a word or a comma (``abs, 37``; not ``x = 1 + 2``)."""

_DIGITS = re.compile(r"\d+")
_LEADERS = re.compile(r"\S ?(?:\. ?){3,}$")
_ROMAN = re.compile(r"^[ivxlcdm]+\b|\b[ivxlcdm]+$")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_CUT = re.compile(r"(?:(-)|(?<![^\s(\[\"'‘“]))([^\W\d_]+)-$")
"""A word cut at a line's end: its first part after a space, an opening mark or a hyphen
(``case-by-``), never after other characters (``[n]<&digit-`` is syntax, not a cut word)."""
_LONGEST_CUT = 64  # the first part of a word cut at a line's end is looked for this far back
_REST = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:-[^\W\d_]+)*")


@dataclass(frozen=True)
class Mark:
    """One outline entry: the page it points at (from 0), its depth (from 1), its title, and
    the top of its target on that page when the destination gives one."""

    page: int
    depth: int
    title: str
    top: float | None = None


@functools.lru_cache(maxsize=4096)
def _shape(text: str) -> str:
    return _ROMAN.sub("#", _DIGITS.sub("#", " ".join(text.casefold().split())))


def _edges(lines: Sequence[Line]) -> list[tuple[str, int, int]]:
    """``(edge, rank, line index)`` of a page's head candidates: the two lines nearest the
    top, then the two nearest the bottom, outermost (rank 0) first."""
    order = sorted((i for i, line in enumerate(lines) if not line.form), key=lambda i: -lines[i].y)
    top = order[:2]
    bottom = [i for i in reversed(order[-2:]) if i not in top]
    return [("top", r, i) for r, i in enumerate(top)] + [
        ("bottom", r, i) for r, i in enumerate(bottom)
    ]


def _page_numbers(text: str) -> set[int]:
    """The line's first and last numbers: where a running head puts the page's number."""
    numbers = _DIGITS.findall(text)
    return {int(numbers[0]), int(numbers[-1])} if numbers else set()


def _running(pages: Sequence[Sequence[Line]]) -> list[set[int]]:
    """For each page, the indices of its running head and foot lines (module docstring)."""
    edges = [_edges(lines) for lines in pages]
    seen: Counter[tuple[str, int, str]] = Counter()
    for lines, found in zip(pages, edges, strict=True):
        seen.update({(edge, rank, _shape(lines[i].text)) for edge, rank, i in found})
    common = max(HEAD_PAGES, len(pages) // 3)

    def recurs(edge: str, rank: int, text: str) -> bool:
        shape = _shape(text)
        count = seen[edge, rank, shape]
        digits = "#" in shape
        return shape == "#" or (digits and count >= HEAD_PAGES) or (not rank and count >= common)

    offsets: Counter[int] = Counter()
    for number, (lines, found) in enumerate(zip(pages, edges, strict=True)):
        for edge, rank, i in found:
            if recurs(edge, rank, lines[i].text):
                offsets.update({n - number for n in _page_numbers(lines[i].text)})
    offset = next((o for o, c in offsets.most_common(1) if c >= HEAD_PAGES), None)
    heads: list[set[int]] = []
    for number, (lines, found) in enumerate(zip(pages, edges, strict=True)):
        drop: set[int] = set()
        outer: dict[str, bool] = {}
        for edge, rank, i in found:
            text = lines[i].text
            folio = not rank and offset is not None and number + offset in _page_numbers(text)
            head = (rank == 0 or outer.get(edge, False)) and (
                recurs(edge, rank, text) or (folio and len(text.split()) <= 12)
            )
            if rank == 0:
                outer[edge] = head
            if head:
                drop.add(i)
        heads.append(drop)
    return heads


def _refers(text: str) -> bool:
    if not (text[-1].isdigit() or text[-1] in "ivxlcdm"):  # most lines: no need to look further
        return False
    end = REFERENCE_LINE.search(text)
    if end is None:
        return False
    words = text[: end.start()].rstrip()
    if _LEADERS.search(words) is not None:
        return True
    return bool(words) and (words[-1].isalpha() or words[-1] in ",)]’'\"")


def _reference_page(lines: Sequence[Line]) -> bool:
    """Whether a page is a table of contents or an index (module docstring)."""
    body = [line for line in lines if not line.heading]
    refs = sum(1 for line in body if _refers(line.text))
    return refs >= 5 and 2 * refs >= len(body)


def _vocabulary(pages: Sequence[Sequence[Line]]) -> tuple[set[str], set[str], set[str]]:
    """The document's words, its hyphenated words, and the first parts of those."""
    words: set[str] = set()
    for lines in pages:
        words.update(_WORD.findall("\n".join([line.text for line in lines]).casefold()))
    hyphenated = {word for word in words if "-" in word}
    return words, hyphenated, {word.split("-", 1)[0] for word in hyphenated}


def _keeps_hyphen(
    cut: re.Match[str], rest: str, vocabulary: tuple[set[str], set[str], set[str]]
) -> bool:
    """Whether ``first-`` / ``rest`` is a hyphenated word, not one word cut (module docstring)."""
    words, hyphenated, prefixes = vocabulary
    first, head = cut.group(2).casefold(), rest.split("-", 1)[0].casefold()
    if cut.group(1) or "-" in rest:
        return True
    if first + head in words:
        return False
    if f"{first}-{head}" in hyphenated or first in prefixes:
        return True
    return not rest[0].islower()


def _join_hyphens(pages: list[list[Line]]) -> list[list[Line]]:
    """Words cut at a line's end joined on that line, across pages too (module docstring)."""
    vocabulary = _vocabulary(pages)
    flat = [(p, i) for p, lines in enumerate(pages) for i in range(len(lines))]
    gone: set[tuple[int, int]] = set()
    for (p, i), (q, j) in itertools.pairwise(flat):
        if (p, i) in gone:
            continue
        line, after = pages[p][i], pages[q][j]
        if not line.text.endswith("-"):
            continue
        cut = _CUT.search(line.text, max(0, len(line.text) - _LONGEST_CUT))
        rest = _REST.match(after.text) if cut else None
        if cut is None or rest is None or line.heading or after.heading:
            continue
        word = rest.group(0)
        joined = line.text if _keeps_hyphen(cut, word, vocabulary) else line.text[:-1]
        line.text = joined + word
        remainder = after.text[rest.end() :].lstrip()
        if remainder:
            after.text = remainder
        else:
            gone.add((q, j))
    return [
        [line for i, line in enumerate(lines) if (p, i) not in gone]
        for p, lines in enumerate(pages)
    ]


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def _shows(line: Line, title: str) -> bool:
    """Whether ``line`` is the visible heading of the outline entry ``title`` (``3.1 Shell
    Syntax`` for "Shell Syntax")."""
    return (
        not line.heading
        and len(line.text) <= len(title) + 16
        and _folded(line.text).endswith(_folded(title))
    )


def _place_headings(lines: list[Line], marks: Sequence[Mark]) -> list[Line]:
    """``lines`` with a heading line before each mark's first line (module docstring).

    The visible heading line is looked for from the mark's top down the page: producers
    often point every bookmark of a page at the page's top."""
    placed = list(lines)
    start = 0
    for mark in marks:
        title = " ".join(mark.title.split())[:MAX_HEADING_CHARS]
        if not title:
            continue
        at = start
        if mark.top is not None:
            while at < len(placed) and (placed[at].heading or placed[at].y > mark.top + 1):
                at += 1
            if at == len(placed):
                at = start
        shown = next((k for k in range(at, len(placed)) if _shows(placed[k], title)), None)
        y = 0.0
        if shown is not None:
            at, title, y = shown, " ".join(placed[shown].text.split()), placed[shown].y
            del placed[shown]
        placed.insert(at, Line("#" * min(mark.depth, 6) + " " + title, 0.0, y, 0.0, heading=True))
        start = at + 1
    return placed


def _text(lines: Sequence[Line]) -> str:
    """A page's lines as text; a block that would open with a ``#`` it did not get from the
    outline (a comment in code: ``# Plot with crossbars``) has it escaped (``\\#``), so that
    it never reads as a heading."""
    parts: list[str] = []
    for i, line in enumerate(lines):
        opens = not i or line.gap or line.heading or lines[i - 1].heading
        if i:
            parts.append("\n\n" if opens else "\n")
        parts.append(
            "\\" + line.text if opens and not line.heading and line.text[0] == "#" else line.text
        )
    return normalize_text("".join(parts))


def page_texts(pages: Sequence[Sequence[Line]], marks: Sequence[Mark] = ()) -> list[str]:
    """Each page's text, read as the module docstring says; a page may come out empty."""
    heads = _running(pages)
    kept = [
        [line for i, line in enumerate(lines) if i not in drop]
        for lines, drop in zip(pages, heads, strict=True)
    ]
    references = [_reference_page(lines) for lines in kept]
    if not all(ref or not lines for ref, lines in zip(references, kept, strict=True)):
        kept = [[] if ref else lines for ref, lines in zip(references, kept, strict=True)]
    kept = _join_hyphens(kept)
    by_page: dict[int, list[Mark]] = {}
    for mark in marks:
        by_page.setdefault(mark.page, []).append(mark)
    texts: list[str] = []
    carried: list[Mark] = []
    for number, lines in enumerate(kept):
        here = [*carried, *by_page.get(number, ())]
        if not lines:  # a page without text hands its marks to the next, unless it was dropped
            carried = [] if references[number] else [replace(m, top=None) for m in here]
            texts.append("")
            continue
        carried = []
        texts.append(_text(_place_headings(lines, here) if here else lines))
    return texts
