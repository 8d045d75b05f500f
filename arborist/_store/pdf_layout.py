"""One PDF page as a reader sees it: its lines in reading order, figure text left out. Pure.

pypdf reports the text it draws as fragments: a run of text, where it starts
(``x``, ``y`` in page space, after the current transformation), its font size,
and whether it was drawn inside a form XObject (a figure embedded as a form:
how TeX, matplotlib and most tools place a plot). Joined in order, the
fragments are pypdf's own text, one line per ``"\\n"`` it ends a fragment
with. From them this module builds a page's :class:`Line` s:

- **Columns**: a page whose lines leave a gutter (many lines start at one ``x``
  in the middle third of the page, and the lines left of it end before it) is
  read left column first, then right, even where the PDF draws the two
  columns' lines in turn (pypdf then joins a left and a right line into one).
- **Figure text**: text drawn inside a form whose lines are mostly short
  (axis labels, tick values, legends) is a figure's, not prose, and is left out.
  On the page itself, an axis's ticks are left out with the short labels next to
  them: three numbers or more, each drawn as a line of its own, in a progression
  side by side or one above another spaced wider than lines of text, or drawn
  upwards. A row of numbers pypdf reads as one line (``1 2 3``) is a table's. A form of prose is kept, and so is a table of
  numbers written as text (``1 10`` / ``2 20``).
- **Paragraphs**: a line is a new paragraph when the space above it is wider
  than the page's usual line spacing, when it jumps up, or when its font size
  changes (a heading).

What spans pages (running heads, hyphenation, contents and index pages, the
outline's headings) is :mod:`arborist._store.pdf_pages`.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "CHAR_WIDTH",
    "FIGURE_WORDS",
    "Fragment",
    "Line",
    "NUMBERS",
    "PARAGRAPH_GAP",
    "page_lines",
]

Fragment = tuple[float, float, float, str, bool]
"""``(x, y, font size, text, in a form)``: one run of text as pypdf draws it."""

CHAR_WIDTH = 0.45
"""A character's width as a share of its font size, on average: where a fragment is taken to
end (``x + len(text) * size * CHAR_WIDTH``) when looking for a gutter between columns."""

FIGURE_WORDS = 4
"""A form's lines averaging fewer words than this are a figure's labels, not prose."""

PARAGRAPH_GAP = 1.12
"""A line further below the one above than this many times the page's usual line spacing
starts a new paragraph (TeX puts about 1.2 between paragraphs, 1.0 within)."""

NUMBERS = re.compile(r"[-+−–]?(?:\d+(?:[.,:]\d+)*|\.\d+)(?:[eE][-+]?\d+)?%?")
"""One tick value: ``3``, ``-0.5``, ``1,000``, ``20:00``, ``1e-3``, ``40%``."""


@dataclass(slots=True)
class Line:
    """One line of a page: its text and where it starts, in reading order.

    ``form``: drawn inside a form XObject; ``gap``: a new paragraph starts here (set
    by :func:`page_lines`); ``column``: 0 on a page of one column, 1 or 2 on one of two;
    ``heading``: a markdown heading line made from the PDF's outline.
    """

    text: str
    x: float
    y: float
    size: float
    form: bool = False
    gap: bool = False
    column: int = 0
    heading: bool = False


def _raw_lines(fragments: Sequence[Fragment]) -> list[list[Fragment]]:
    """The fragments of each line pypdf wrote (a line ends with a fragment ending in ``\\n``)."""
    lines: list[list[Fragment]] = []
    current: list[Fragment] = []
    for fragment in fragments:
        text = fragment[3]
        if text[-1] != "\n":
            current.append(fragment)
            continue
        body = text.rstrip("\n")
        if body:
            current.append((fragment[0], fragment[1], fragment[2], body, fragment[4]))
        if current:
            lines.append(current)
            current = []
    if current:
        lines.append(current)
    return lines


def _line(fragments: Sequence[Fragment], column: int = 0) -> Line | None:
    if len(fragments) == 1:  # most lines
        x, y, size, text, form = fragments[0]
        text = text.strip()
        return Line(text, x, y, size, form, column=column) if text else None
    text = "".join([f[3] for f in fragments]).strip()
    if not text:
        return None
    first = next(f for f in fragments if f[3].strip())
    size = max([f[2] for f in fragments])
    return Line(text, first[0], first[1], size, all(f[4] for f in fragments), column=column)


def _end(fragment: Fragment) -> float:
    return fragment[0] + len(fragment[3]) * fragment[2] * CHAR_WIDTH


def _gutter(lines: Sequence[list[Fragment]], width: float) -> float | None:
    """The ``x`` where a page's right column starts, if it has two (see the module docstring)."""
    starts: Counter[int] = Counter()
    for line in lines:
        for i, fragment in enumerate(line):
            if fragment[4] or not fragment[3].strip():
                continue
            opens = i == 0 or fragment[0] > _end(line[i - 1]) + fragment[2]
            if opens and width * 0.3 <= fragment[0] <= width * 0.7:
                starts[round(fragment[0])] += 1
    if not starts:
        return None
    right, count = starts.most_common(1)[0]
    if count < max(5, len(lines) // 5):
        return None
    margin = min(line[0][0] for line in lines)
    ends = sorted(
        _end([f for f in line if f[0] < right - 1][-1]) for line in lines if line[0][0] < right - 1
    )
    crossing = sum(1 for end in ends if end > right + 10)
    filled = bool(ends) and ends[len(ends) // 2] >= margin + 0.6 * (right - margin)
    return float(right) if filled and crossing <= len(ends) // 10 else None


def _columns(lines: Sequence[list[Fragment]], width: float) -> list[Line]:
    """Each line's text, left column before right when the page has two."""
    right = _gutter(lines, width)
    if right is None:
        return [line for line in map(_line, lines) if line is not None]
    lefts: list[Line] = []
    rights: list[Line] = []
    for fragments in lines:
        cut = next((i for i, f in enumerate(fragments) if f[0] >= right - 1), len(fragments))
        for part, column, into in ((fragments[:cut], 1, lefts), (fragments[cut:], 2, rights)):
            line = _line(part, column) if part else None
            if line is not None:
                into.append(line)
    return lefts + rights


def _words(text: str) -> int:
    return len(text.split())


def _numeric(text: str) -> bool:
    if text[0] not in _NUMBER_STARTS:  # most lines: no need to look further
        return False
    return all(NUMBERS.fullmatch(token) for token in text.split())


_NUMBER_STARTS = frozenset("-+−–.0123456789")


def _values(text: str) -> list[float] | None:
    """The numbers of a line of numbers, or None (a time such as ``20:00`` is no number here)."""
    try:
        return [float(token.replace("−", "-").rstrip("%")) for token in text.split()]
    except ValueError:
        return None


def _progression(values: Sequence[float] | None) -> bool:
    """Three values or more, each the last plus one same step: how an axis counts."""
    if values is None or len(values) < 3:
        return False
    step = values[1] - values[0]
    return step != 0 and all(
        abs(b - a - step) <= 1e-9 * max(1.0, abs(step)) for a, b in itertools.pairwise(values)
    )


def _ticks(lines: Sequence[Line], i: int) -> int:
    """How many lines from ``lines[i]`` are an axis's ticks, one number each (0 if fewer than
    three): drawn upwards, or in a progression either side by side (one row) or one above
    another spaced wider than lines of text."""
    j = i
    while (
        j < len(lines)
        and not lines[j].form
        and len(lines[j].text.split()) == 1
        and _numeric(lines[j].text)
    ):
        j += 1
    run = lines[i:j]
    if len(run) < 3:
        return 0
    steps = [a.y - b.y for a, b in itertools.pairwise(run)]
    if all(step < 0 for step in steps):
        return len(run)
    row = all(abs(step) <= 1 for step in steps)
    spaced = all(abs(step - steps[0]) <= 1 and abs(step) > 1.5 * run[0].size for step in steps)
    return (
        len(run) if (row or spaced) and _progression(_values(" ".join(x.text for x in run))) else 0
    )


def _label(line: Line) -> bool:
    """A short line that is no sentence: what names an axis next to its ticks."""
    return (
        len(line.text.split()) <= 3
        and line.text[-1] not in ".:;?!"
        and not line.heading
        and not _numeric(line.text)
    )


def _figure_free(lines: list[Line]) -> list[Line]:
    """``lines`` without a figure's text (see the module docstring)."""
    kept: list[Line] = []
    i = 0
    while i < len(lines):
        j = i + 1
        if lines[i].form:  # a run of lines drawn in forms
            while j < len(lines) and lines[j].form:
                j += 1
            run = lines[i:j]
            numeric = sum(1 for line in run if _numeric(line.text))
            if sum(_words(line.text) for line in run) >= FIGURE_WORDS * len(run) and (
                numeric * 10 < len(run) * 3
            ):
                kept.extend(run)
        elif ticks := _ticks(lines, i):
            j = i + ticks
            while j < len(lines) and _label(lines[j]):
                j += 1
            if kept and _label(kept[-1]):
                kept.pop()
        else:
            kept.append(lines[i])
        i = j
    return kept


def _spacing(lines: Sequence[Line]) -> float:
    """The page's usual distance from one line's baseline to the next's."""
    steps: Counter[float] = Counter()
    for above, below in itertools.pairwise(lines):
        step = above.y - below.y
        if above.column == below.column and 0 < step < 3 * below.size:
            steps[round(step * 2) / 2] += 1
    return steps.most_common(1)[0][0] if steps else 0.0


def _paragraphs(lines: list[Line]) -> list[Line]:
    """``lines``, each with ``gap`` set where a paragraph starts (see the module docstring)."""
    spacing = _spacing(lines) or 1.2 * max((line.size for line in lines), default=0.0)
    wide = spacing * PARAGRAPH_GAP + 0.5
    for above, line in itertools.pairwise(lines):
        step = above.y - line.y
        line.gap = (
            above.column != line.column
            or step < -line.size
            or step > wide
            or abs(above.size - line.size) > 0.15 * line.size
        ) and not line.text.startswith("#")  # never a block that reads as a heading
    return lines


def page_lines(fragments: Sequence[Fragment], width: float) -> list[Line]:
    """A page's lines in reading order, figure text left out, paragraph starts marked."""
    return _paragraphs(_figure_free(_columns(_raw_lines(fragments), width)))
