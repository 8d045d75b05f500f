"""Whether an answer quotes what it cites, word for word: what lets a face say "quotes
verified" rather than "sources verified, wording not quoted" (:mod:`arborist._qa.support`).
Pure.

A quote is a sentence whose words stand in a row in a passage its own citation names, from
where a sentence of that passage opens; a name, a term or a heading the passage says may stand
before it to say what it is about. A model's paraphrase is not a quote, nor a fragment lifted
from inside a sentence (it may say the opposite of it), nor a sentence cited to another
source than the one it is from, nor one word that is all a sentence says ("Yes."). The
extractive answer's sentences, copied from the passages under their names, are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from arborist._proofs.citations import parse_citations
from arborist._qa.sentences import read_items

__all__ = ["answer_quotes", "quotes_cited"]

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
_WORD = re.compile(r"\w+")
_LABEL = re.compile(r"[\w.]+(?:\((.*)\))?")
"""What an answer may put before a quote to say what it is about (``copy.deepcopy(x, …)``):
a name or a signature, the answerer's words, not a quote."""
_PROSE = re.compile(r"[^\W\d_]+\s+[^\W\d_]+")
"""Two words in a row with nothing between them: prose in parentheses, not a parameter list
(``Verdict(the valve is safe)`` is no signature)."""


def quotes_cited(answer: str, passages: Sequence[str]) -> bool:
    """Whether ``answer``, its citations taken out, quotes ``passages``: each of its
    sentences is a quote of one of them (:func:`_quotes`), and there is at least one. Pure."""
    parts = _SENTENCE_END.split(_uncited(answer))
    return _said(parts) and _quotes(parts, passages)


def answer_quotes(answer: str, cited: Mapping[str, tuple[str, str]]) -> bool:
    """Whether ``answer`` quotes what it cites (``cited``: each label's title and passage):
    each claim (the text before a run of citations, back to the previous run) is a quote of
    a passage of its run (:func:`_quotes`), and the text after the last run a quote of any;
    every label it cites is one of ``cited``, and a citation that names a title names its
    own (``[E1 | another title | …]`` would attribute the quote to a source it is not
    from). A model's paraphrase is not a quote, nor a sentence of one passage cited to
    another; the extractive answer's sentences, copied from the passages under their
    names, are. Pure."""
    claims: list[tuple[str, list[str]]] = []
    run: list[str] = []
    said, at = "", 0
    for citation in parse_citations(answer):
        between = answer[at : citation.start]
        if not run or between.strip(" \t,;"):  # a new claim, unless [E1][E2] go on a run
            if run:
                claims.append((said, run))
            said, run = between, []
        source = cited.get(citation.label)
        if source is None or (citation.title and _one_line(citation.title) != _titled(source[0])):
            return False
        run.append(citation.label)
        at = citation.end
    if run:
        claims.append((said, run))
    claims.append((answer[at:], list(cited)))
    read = [
        (_SENTENCE_END.split(text), [cited[label][1] for label in group]) for text, group in claims
    ]
    return any(_said(parts) for parts, _ in read) and all(
        _quotes(parts, texts) for parts, texts in read
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _titled(title: str) -> str:
    """A title as a citation writes it (:func:`arborist._proofs.citations.format_citation`)."""
    return _one_line(title.replace("[", "(").replace("]", ")"))


def _uncited(answer: str) -> str:
    """``answer`` with its citations taken out."""
    pieces, last = [], 0
    for citation in parse_citations(answer):
        pieces.append(answer[last : citation.start])
        last = citation.end
    return "".join(pieces) + answer[last:]


def _said(parts: Sequence[str]) -> bool:
    """Whether ``parts`` (a claim cut at its sentence ends) hold a word."""
    return any(_WORD.search(part) for part in parts)


def _quotes(parts: Sequence[str], passages: Sequence[str]) -> bool:
    """Whether each sentence of ``parts`` (a claim cut at its sentence ends) is a quote of
    one of ``passages``: its words, in order, stand in a row in the passage from the start of
    one of its sentences (a fragment lifted from inside one may say the opposite of it:
    "the valve is safe" from "It is false that the valve is safe"). A name or a signature
    the passages name, standing before a quote (:data:`_LABEL`: ``copy.deepcopy(x, …)``), says
    what it is about; so does one word that heads the next sentence and that a passage
    holds (a term: ``FUNCNEST: If set ...``), and the sentence after it may open right after
    it in the passage. One word that is all it says ("Yes.") is no quote."""
    shown = [_Passage(text) for text in passages]
    sentences = [_one_line(part).strip(" .,;:!?") for part in parts]
    sentences = [s for s in sentences if _WORD.search(s)]
    head: list[str] = []
    for i, sentence in enumerate(sentences):
        said = _WORD.findall(sentence)
        if i + 1 < len(sentences) and (
            (len(said) == 1 and any(said[0] in p.words for p in shown))
            or _label(sentence, shown)
            or any(tuple(said) in p.headings for p in shown)
        ):
            head = said  # what the next sentence is about
            continue
        # a sentence may open right after the term it describes ("HISTSIZE The maximum ...")
        if not any(p.quotes(said) or (head and p.quotes(head + said)) for p in shown):
            return False
        head = []
    return True


def _label(sentence: str, shown: Sequence[_Passage]) -> bool:
    """Whether ``sentence`` is a name or a signature (:data:`_LABEL`) whose name a passage
    says."""
    m = _LABEL.fullmatch(sentence)
    if m is None or (m.group(1) is not None and _PROSE.search(m.group(1))):
        return False
    name = sentence.split("(", 1)[0].rstrip(".").rsplit(".", 1)[-1]
    return any(name in p.words for p in shown)


class _Passage:
    """A passage's headings (:data:`_HEADING_LINE`), its words in order, one space apart (a
    quote compares word for word, whatever the layout between them: a wrapped line, pydoc's
    ``|`` gutter, markdown's ``*``), and where in that line each of its sentences opens
    (after ``.``, ``!``, ``?``, ``;``, ``:``, ``…``, ``•`` or a line break, at its start, or
    where the offline answerer reads one as opening: after a run-in term, say,
    :func:`arborist._qa.sentences.read_items`)."""

    def __init__(self, text: str) -> None:
        self.headings = {
            tuple(_WORD.findall(_HEADING_NUMBER.sub("", m.group(1))))
            for m in _HEADING_LINE.finditer(text)
        }
        found = list(_WORD.finditer(text))
        self.words = {m.group() for m in found}
        self.line = f" {' '.join(m.group() for m in found)} "
        self.opens: set[int] = set()
        place, end = 1, 0
        for i, m in enumerate(found):
            if i == 0 or any(ch in _OPENERS for ch in text[end : m.start()]):
                self.opens.add(place)
            place += len(m.group()) + 1
            end = m.end()
        for item in read_items(text):  # where the answerer reads a sentence as opening too
            needle = f" {' '.join(_WORD.findall(item.sentence))} "
            at = self.line.find(needle)
            while at != -1:
                self.opens.add(at + 1)
                at = self.line.find(needle, at + 1)

    def quotes(self, said: Sequence[str]) -> bool:
        """Whether ``said`` stands in a row here from the start of a sentence."""
        needle = f" {' '.join(said)} "
        at = self.line.find(needle)
        while at != -1:
            if at + 1 in self.opens:
                return True
            at = self.line.find(needle, at + 1)
        return False


_HEADING_LINE = re.compile(r"^#{1,6}[ \t]+(.+?)(?:[ \t]+\{#[^{}]*\})?[ \t]*$", re.MULTILINE)
_HEADING_NUMBER = re.compile(r"^[\d.]+[ \t]+")
"""A markdown heading line and its section number: the heading, its number left out, is a
name the answer may quote a sentence under (``Readline Init File: Although ...``)."""

_OPENERS = frozenset(".!?;:…\n•")
