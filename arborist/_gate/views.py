"""What the finders read: a text whole once, and its views only where they differ from it.

Pure: no I/O. :func:`read_candidates` runs :func:`arborist._gate.finders.candidates` over a
text, then over its views: past its invisible characters (dropped, as inside a token,
and read as a space, as before one), with its percent-escapes decoded (round after round,
at most :data:`DECODE_ROUNDS`), and, after a round of redactions, around the placeholders
it wrote. Each view differs from the text at a few places, and only near them can a
finder find more: :func:`around` gives the stretches of a text within :data:`REACH` of
such places, cut at line breaks, so that a long page holding a few escapes (a printf's
``%3f`` in a manual) or one redaction is read again around them, not whole: the gate
stays one reading of the text and a little more, where reading every view whole made it
two or four (six when a second round of redactions came). A text of at most
:data:`WHOLE` characters, or one whose stretches would cover half of it, is read again
whole, as before: no stretch is ever so short that a finder takes it for a short text
(:data:`arborist._gate.bare.FIELD`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from arborist._gate.cued import cued_public_spans
from arborist._gate.finders import candidates
from arborist._gate.handed import public_spans
from arborist._gate.prefilters import (
    ESCAPE,
    INVISIBLE_CHARS,
    decoded_view,
    from_view,
    through_views,
    visible_view,
)
from arborist._gate.shapes import INVISIBLE

__all__ = [
    "DECODE_ROUNDS",
    "REACH",
    "WHOLE",
    "around",
    "escape_spans",
    "invisible_spans",
    "read_candidates",
    "view_public_spans",
]

REACH = 2048
"""How far from a place its stretch reaches each way, before it is widened to a line's
edge: far past what any finder reads around a value (a name's 64 characters, a cue's
sentence of 240, the line before a password)."""
WHOLE = 4 * REACH
"""A text this short is read again whole: a stretch of it would be most of it."""


def around(text: str, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The stretches of ``text`` (``[start, end)``, in order, apart) within :data:`REACH`
    of each of ``spans``, each widened to the line breaks past it (a space when its line
    runs on for another :data:`REACH`; a cut there when there is none); none when
    ``spans`` is empty, the whole text when it is short or the stretches would cover half
    of it."""
    places = sorted(spans)
    size = len(text)
    if not places or size <= WHOLE:
        return [(0, size)] if places else []
    stretches: list[tuple[int, int]] = []
    for start, end in places:
        if stretches and start - REACH <= stretches[-1][1]:  # near the last stretch: joined
            if end + REACH > stretches[-1][1]:
                stretches[-1] = (stretches[-1][0], _after(text, end + REACH))
            continue
        opens = _before(text, start - REACH)
        if stretches:  # a line break before the last one's end: opened where it closed
            opens = max(opens, stretches[-1][1])
        stretches.append((opens, _after(text, end + REACH)))
    if 2 * sum(b - a for a, b in stretches) >= size:
        return [(0, size)]
    return stretches


def _before(text: str, at: int) -> int:
    """Where a stretch reaching back to ``at`` opens: after the line break before it, else
    after a space, within :data:`REACH` more; else :data:`REACH` further back."""
    if at <= 0:
        return 0
    floor = max(0, at - REACH)
    cut = text.rfind("\n", floor, at)
    if cut == -1:
        cut = max(text.rfind(" ", floor, at), text.rfind("\t", floor, at))
    return cut + 1 if cut != -1 else floor


def _after(text: str, at: int) -> int:
    """Where a stretch reaching on to ``at`` closes: at the line break after it, else at a
    space, within :data:`REACH` more; else :data:`REACH` further on."""
    size = len(text)
    if at >= size:
        return size
    ceiling = min(size, at + REACH)
    cut = text.find("\n", at, ceiling)
    if cut == -1:
        spaces = [c for c in (text.find(" ", at, ceiling), text.find("\t", at, ceiling)) if c != -1]
        cut = min(spaces) if spaces else -1
    return cut if cut != -1 else ceiling


def escape_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text``'s percent-escapes are (:data:`arborist._gate.prefilters.ESCAPE`);
    none, unsearched, when it holds no ``%``."""
    if "%" not in text:
        return []
    return [m.span() for m in ESCAPE.finditer(text)]


def invisible_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text``'s invisible characters are; none, unsearched, when it is ASCII or
    holds none of them (each looked for by a ``find``)."""
    if text.isascii() or not any(char in text for char in INVISIBLE_CHARS):
        return []
    return [m.span() for m in INVISIBLE.finditer(text)]


def read_candidates(
    text: str, near: Sequence[tuple[int, int]] | None = None
) -> list[tuple[str, int, int]]:
    """:func:`_candidates_in` ``text``, or only in its stretches around ``near`` (the
    placeholders a round of redactions wrote: :func:`around`); positions in ``text``."""
    if near is None:
        return _candidates_in(text)
    found: list[tuple[str, int, int]] = []
    for a, b in around(text, near):
        part = text if b - a == len(text) else text[a:b]
        found += [(kind, start + a, end + a) for kind, start, end in _candidates_in(part)]
    return found


def _candidates_in(text: str) -> list[tuple[str, int, int]]:
    """:func:`candidates`, looked for past invisible characters (dropped, as inside a token,
    and as a space, as before one: ``notes\u200bAKIA...``) and in the text with its
    percent-escapes decoded, round after round until none is left or :data:`DECODE_ROUNDS`
    (``%255F`` is ``%5F`` is ``_``); positions in ``text``. The text is read whole once; its
    views only around their invisible characters and escapes (:func:`around`), where alone
    they differ from it: a long page with a few escapes is read about once, not once per
    view."""
    spots = invisible_spans(text)
    found = list(candidates(INVISIBLE.sub(_spaces, text) if spots else text))  # one for one
    for view, back, _decoded in _views(text, spots):
        found += [(kind, *back(start, end)) for kind, start, end in candidates(view) if end > start]
    return found


def view_public_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text``'s views (its percent-escapes decoded, its invisible characters dropped)
    show what is public (:func:`arborist._gate.handed.public_spans`,
    :func:`arborist._gate.cued.cued_public_spans`: an SSH public key, a PGP public block, a
    secret's name after ``existingSecret:``), as spans of ``text``, each widened over the
    escapes beside it (``db-creds%0A``): a file name or a URL carries a line whose colons and
    line breaks are escapes, and what is public there is public in the text too."""
    spans: list[tuple[int, int]] = []
    for view, back, decoded in _views(text, invisible_spans(text)):
        for start, end in public_spans(view) + cued_public_spans(view):
            at, to = back(start, end)
            spans.append(_over_escapes(text, at, to) if decoded else (at, to))
    return spans


_Back = Callable[[int, int], tuple[int, int]]


def _views(text: str, spots: list[tuple[int, int]]) -> Iterator[tuple[str, _Back, bool]]:
    """Each view of ``text`` where it differs from it (``spots`` its invisible characters):
    around them, the text without them; around its percent-escapes, the text with them
    decoded, a round at a time (at most :data:`DECODE_ROUNDS`). Each with the map of a span
    of it back to ``text`` and whether it was decoded."""
    for a, b in around(text, spots):
        visible = visible_view(text[a:b])
        if visible is not None:
            view, pieces = visible
            yield view, _visible_back(pieces, a), False
    for a, b in around(text, escape_spans(text)):
        layers: list[tuple[int, list[tuple[int, int]]]] = []  # each round's (size, pieces)
        view = text[a:b]
        for _round in range(DECODE_ROUNDS):
            decoded = decoded_view(view)
            if decoded is None:
                break
            layers.append((len(view), decoded[1]))
            view = decoded[0]
            yield view, _decoded_back(list(layers), len(view), a), True


def _visible_back(pieces: list[tuple[int, int]], offset: int) -> _Back:
    def back(start: int, end: int) -> tuple[int, int]:
        return from_view(pieces, start) + offset, from_view(pieces, end - 1) + 1 + offset

    return back


def _decoded_back(layers: list[tuple[int, list[tuple[int, int]]]], size: int, offset: int) -> _Back:
    def back(start: int, end: int) -> tuple[int, int]:
        at, to = through_views(layers, start, end, size)
        return at + offset, to + offset

    return back


def _over_escapes(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened over the percent-escapes just before and after it (a line
    break's ``%0A`` too, which no view decodes)."""
    while start >= 3 and _ANY_ESCAPE.fullmatch(text, start - 3, start) is not None:
        start -= 3
    while (m := _ANY_ESCAPE.match(text, end)) is not None:
        end = m.end()
    return start, end


_ANY_ESCAPE = re.compile("%[0-9A-Fa-f]{2}")


DECODE_ROUNDS = 3
"""How many times percent-escapes are decoded at most: twice-encoded (``%255F``) and
thrice, each round linear in the text."""


def _spaces(m: re.Match[str]) -> str:
    return " " * len(m.group())
