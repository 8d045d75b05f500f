"""Where an answer quotes the chunks it cites: the spans of a chunk to mark. Pure.

The rule, the same in every face (the ``%%ask`` output here, the widget in
``js/src/text.js``; both pinned by ``tests/vectors/quotes.json``):

* The claims citing a label are the stretches of the answer before each of its
  citations, back to the previous citation (answerers write a claim, then cite it).
* A claim is read sentence by sentence: it is cut after ``.``, ``!``, ``?``, ``;``, ``:``
  or ``…`` followed by a space (or at its end), and at each line break, so a claim that
  joins two sentences finds each where it stands.
* Words are runs of letters, digits and ``_`` (``median_high`` is one word), compared
  lower-cased.
* Each sentence is read from its first word: at each word, the longest run of the claim's
  words that stands in a row in the chunk is found (its first place on a tie). A run of
  :data:`QUOTE_RUN` words or more is quoted: that one place in the chunk is marked and
  reading goes on after it; a shorter one is not, and reading moves one word on.

So a quoted sentence is marked once, where it stands, and a look-alike sentence
elsewhere in the chunk (``median_high``'s "When the number of data points is odd"
beside ``median``'s) is not, unless the claim quotes it too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from arborist._proofs.citations import parse_citations

__all__ = ["QUOTE_RUN", "claims_for", "quoted_ranges"]

QUOTE_RUN = 4
"""Words in a row a claim must share with a chunk for them to count as quoted."""

_WORD = re.compile(r"[^\W]+")
_SENTENCE_END = re.compile(r"[.!?;:…](?![^\s])|\n")


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def claims_for(answer: str, label: str) -> list[str]:
    """The parts of ``answer`` that cite ``label`` (``E1``), stripped, in order."""
    claims = []
    at = 0
    for citation in parse_citations(answer):
        said = answer[at : citation.start].strip()
        if citation.label == label and said:
            claims.append(said)
        at = citation.end
    return claims


def _longest(said: list[str], i: int, held: list[str], at: dict[str, list[int]]) -> tuple[int, int]:
    """The longest run of ``said`` from word ``i`` that stands in ``held``: (start, length)."""
    best, where = 0, -1
    for j in at.get(said[i], ()):
        n = 0
        while i + n < len(said) and j + n < len(held) and said[i + n] == held[j + n]:
            n += 1
        if n > best:
            best, where = n, j
    return where, best


def quoted_ranges(chunk: str, claims: Sequence[str]) -> list[tuple[int, int]]:
    """The ``[start, end)`` character ranges of ``chunk`` the claims quote (see the module's
    rule), sorted, and merged where they touch word to word on one line (a line's indent is
    never marked); empty for a paraphrase."""
    held = _words(chunk)
    names = [w for w, _, _ in held]
    at: dict[str, list[int]] = {}
    for j, word in enumerate(names):
        at.setdefault(word, []).append(j)
    quoted = [False] * len(held)
    for sentence in (s for claim in claims for s in _SENTENCE_END.split(claim)):
        said = [w for w, _, _ in _words(sentence)]
        i = 0
        while i < len(said):
            where, n = _longest(said, i, names, at)
            if n >= QUOTE_RUN:
                quoted[where : where + n] = [True] * n
                i += n
            else:
                i += 1
    ranges: list[tuple[int, int]] = []
    for j, (_, start, end) in enumerate(held):
        if not quoted[j]:
            continue
        if ranges and j and quoted[j - 1] and "\n" not in chunk[ranges[-1][1] : start]:
            ranges[-1] = (ranges[-1][0], end)
        else:
            ranges.append((start, end))
    return ranges
