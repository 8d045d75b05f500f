"""The offline distillations ``arborist derive`` makes from an answer's cited text. Pure.

The seeds' core records (haiku, equation, snippet) are distilled from the evidence an
answer cites and signed back to it (:mod:`arborist._store.derive`). With a remote model
the model is asked (:mod:`arborist._qa.derivation`); with the offline answerer the
distillation is this module's, deterministic, and drawn only from the cited text, so the
same answer always gives the same record:

* **haiku** — three runs of consecutive words from the cited sentences, aiming at 5, 7
  and 5 syllables by :func:`syllables`, a vowel-group counter: English spelling defeats
  it now and then, so the count is approximate and every face says so.
* **equation** — the first formula-like span (operands joined by ``=``, ``+``, ``*``,
  ``/``, ``^``, a comparison, or a spaced minus), else None: the caller refuses in one
  line rather than call prose an equation.
* **snippet** — the shortest cited sentence or code line holding the most of the
  question's key words (a bare heading or name loses to a unit of four words or more).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from arborist._proofs.citations import parse_citations
from arborist._text.text_words import content_words, stem

__all__ = [
    "HAIKU_SYLLABLES",
    "equation",
    "haiku",
    "haiku_counts",
    "snippet",
    "syllables",
    "uncited",
    "units",
]

HAIKU_SYLLABLES = (5, 7, 5)
"""What each of a haiku's lines aims at, counted by :func:`syllables`."""

_VOWELS = re.compile(r"[aeiouy]+")
_HIATUS = re.compile(r"(?<=[^cgstx])i[ao]")
_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(`A-Z0-9])")
_OPERAND = r"[A-Za-z0-9_.\[\]()]+"
_OPERATOR = r"(?:==|!=|<=|>=|\*\*|[=+*/^<>×÷−≤≥]|\s-\s)"
_FORMULA = re.compile(rf"{_OPERAND}(?:\s*{_OPERATOR}\s*{_OPERAND})+")
_SIGNATURE = re.compile(r"^[\w.]+\(.*?\)\s*(?:->\s*\S+\s*)?:\s*")
_NOT_FORMULA = re.compile(r"\w=[^=\s]|[(,]\s*\*|//|^[\d.]+[eE][+-]\d+$")
"""A call's keyword argument (``start=0``), an unpacking (``f(*args)``), a path or URL,
a number in E notation: code and numbers, not formulas."""
_EMPHASIS = re.compile(r"(?<![\w*])\*(\w[^*]*?)\*(?![\w*])")
"""Markdown's ``*x*``: a word set in italics, not two multiplications."""
_PATH = re.compile(r"\S*/\S*/\S*|\S+://\S+")
"""A URL or a path of two slashes or more: never read as divisions."""
_SNIPPET_WORDS = 4
"""A snippet is a unit of at least this many words, when the cited text has one."""


def syllables(word: str) -> int:
    """A word's syllables, roughly: its vowel groups, one more for each ``ia`` or ``io``
    that is not ``-cia``, ``-tion`` and the like (``median``, ``radio``), one less for a
    silent final ``e`` after a consonant (``make``, not ``table`` or ``value``), at least
    one; a number counts one per digit group."""
    letters = word.lower().strip("'’-")
    if not any(ch.isalpha() for ch in letters):
        return max(1, len(re.findall(r"\d+", letters)))
    count = len(_VOWELS.findall(letters)) + len(_HIATUS.findall(letters))
    if count > 1 and re.search(r"[^aeiouy]e$", letters) and not letters.endswith("le"):
        count -= 1
    return max(1, count)


def units(text: str) -> list[str]:
    """``text`` (cited spans, or cited chunks) as sentences and code lines, in order: each
    line cut at the ends of its sentences, citations taken out, blank ones dropped."""
    found: list[str] = []
    for line in uncited(text).splitlines():
        for part in _SENTENCE_END.split(line.strip()):
            unit = " ".join(part.split()).strip("| ")
            if unit and unit not in found:
                found.append(unit)
    return found


def uncited(text: str) -> str:
    """``text`` without its ``[E# | …]`` citations (they are the answer's, not the text's)."""
    kept, position = [], 0
    for citation in parse_citations(text):
        kept.append(text[position : citation.start])
        position = citation.end
    return "".join([*kept, text[position:]])


def _words(sentences: Sequence[str]) -> list[tuple[int, str]]:
    """Every word of ``sentences``, with the index of the sentence it is in."""
    return [
        (index, match.group(0).strip("-'’"))
        for index, sentence in enumerate(sentences)
        for match in _WORD.finditer(sentence)
    ]


def _run(found: Sequence[tuple[int, str]], start: int, target: int) -> tuple[int, int]:
    """The run of words from ``start`` within one sentence nearest ``target`` syllables
    (the shorter on a tie): its end (exclusive) and its count."""
    end, count, best = start, 0, (start + 1, syllables(found[start][1]))
    while end < len(found) and found[end][0] == found[start][0] and count < target:
        count += syllables(found[end][1])
        end += 1
        if abs(count - target) < abs(best[1] - target):
            best = (end, count)
    return best


def haiku(text: str) -> str | None:
    """Three lines of consecutive cited words, each the first run from where the last one
    ended that comes nearest 5, 7 and 5 syllables (an exact run wins at once); None when
    the cited text has too few words for three lines."""
    found = _words([_SIGNATURE.sub("", unit) for unit in units(text)])
    lines: list[str] = []
    start = 0
    for target in HAIKU_SYLLABLES:
        if start >= len(found):
            return None
        best = None
        for begin in range(start, len(found)):
            end, count = _run(found, begin, target)
            if best is None or abs(count - target) < abs(best[2] - target):
                best = (begin, end, count)
            if count == target:
                break
        begin, end, _ = best or (start, start + 1, 0)
        lines.append(" ".join(word for _, word in found[begin:end]))
        start = end
    return "\n".join(lines)


def haiku_counts(text: str) -> list[int]:
    """The syllables :func:`syllables` counts in each line of ``text``."""
    return [sum(syllables(w.group(0)) for w in _WORD.finditer(line)) for line in text.splitlines()]


def _balanced(span: str) -> str:
    """``span`` cut before the first bracket it closes without opening."""
    depth = 0
    for index, ch in enumerate(span):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if depth < 0:
            return span[:index].rstrip()
    return span


def _formula_like(span: str) -> bool:
    """A span that reads as a formula, not prose (``and/or``, a hyphenated word, a path)
    or a call's keyword argument (``start=0``): an operand with a digit, a single letter,
    or parentheses, beside an operator."""
    if _NOT_FORMULA.search(span):
        return False
    operands = re.split(_OPERATOR, span)
    return len(operands) > 1 and any(
        any(ch.isdigit() for ch in part) or len(part.strip()) == 1 or "(" in part
        for part in operands
    )


def equation(text: str) -> str | None:
    """The first formula-like span of the cited text (:func:`_formula_like`), else None."""
    for unit in units(text):
        for match in _FORMULA.finditer(_PATH.sub(" ", _EMPHASIS.sub(r"\1", unit))):
            span = _balanced(match.group(0).strip(" .,;:")).strip(" .,;:")
            if _formula_like(span):
                return span
    return None


def snippet(text: str, question: str, preferred: str = "") -> str | None:
    """The shortest sentence or code line of the cited text holding the most of the
    question's key words (its content words, plural or not), one of ``preferred``'s (the
    answer's cited sentences) before the rest on a tie; None for an empty text."""
    wanted = {stem(w) for w in content_words(question)}
    first = set(units(preferred))
    every = list(dict.fromkeys([*units(preferred), *units(text)]))
    candidates = [u for u in every if len(u.split()) >= _SNIPPET_WORDS] or every
    if not candidates:
        return None

    def held(unit: str) -> int:
        return len(wanted & {stem(w) for w in content_words(unit)})

    return min(candidates, key=lambda u: (-held(u), u not in first, len(u), candidates.index(u)))
