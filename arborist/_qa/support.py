"""How well an answer's cited evidence covers its question: the label beside the audit mode.

The audit modes certify bytes: that each quoted passage is, byte for byte, what
a document committed (a proof) and what the record binds (its hash). They say
nothing of whether the passages answer the question: "Who won the 1998 FIFA
World Cup?" answered with two dated quotes from the standard library was
STRICT. This module measures that second thing, from what a record holds
alone, so every face shows the same measure and nothing else is stored or can
be forged apart from the record:

* ``not answered``: the answer says the documents do not answer (it opens with
  :data:`NOT_ANSWERED_OPENING`, which the extractive answerer writes and the
  remote models are told to write), or it cites no evidence;
* ``partly``: it cites evidence, but some word of the question is in no cited
  passage (text or title); those words are listed ("no cited passage mentions
  fifa, cup");
* ``answered``: every word of the question is in a cited passage.

A passage cut short to fit the model's context (the record's policy names it and how
many of its characters were shown) counts only as far as it was shown.

It is a lexical measure, and says so: words, not meaning. "answered" means the
cited passages name everything the question names, not that the answer is
right; "partly" with the words it lacks is what a reader should weigh. A word
counts as present when its root (:func:`root`: "files", "filed" and "filing"
are "fil", "appeared" is "appear") is, and the words that only shape a request ("way", "easiest", "want")
are not asked for. A passage whose text is not here (evicted to the cold tier)
cannot be read: then the measure is ``None``, shown as nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arborist._proofs.citations import cited_labels
from arborist._proofs.quotes import claims_for
from arborist._qa.quoting import answer_quotes, quotes_cited
from arborist._text.analysis import read_question
from arborist._text.text_words import words

__all__ = [
    "ANSWERED",
    "AUDIT_PROMISES",
    "AUDIT_WORDS",
    "BADGE_WORDS",
    "LEVELS",
    "MEMO",
    "MEMO_SIZE",
    "NOT_ANSWERED",
    "NOT_ANSWERED_OPENING",
    "PARTLY",
    "ROW_WORDS",
    "SUPPORT_MARKS",
    "SUPPORT_MEANINGS",
    "Support",
    "UNQUOTED",
    "UNQUOTED_STRICT",
    "asked_words",
    "audit_key",
    "audit_words",
    "measure",
    "measure_record",
    "measured_words",
    "quotes_cited",
    "row_key",
    "row_words",
]

ANSWERED = "answered"
PARTLY = "partly"
NOT_ANSWERED = "not answered"
LEVELS = (ANSWERED, PARTLY, NOT_ANSWERED)

NOT_ANSWERED_OPENING = "The documents do not answer this question."
"""How an answer that answers nothing opens: the extractive answerer's refusal, and what
the system prompt tells a remote model to write when the evidence does not answer."""

REQUEST_WORDS = frozenset(
    {"way", "ways", "easiest", "simplest", "quickest", "best", "possible", "make"}
    | {"want", "wants", "need", "needs", "help", "python", "difference", "differences"}
    | {"vs", "versus", "whats", "hows", "wheres", "whos", "dont", "doesnt", "isnt", "cant"}
    | {"don", "doesn", "isn", "aren", "didn", "wasn", "shouldn", "wouldn", "couldn"}
    | {"between", "among", "amongst", "inside", "outside", "across", "along", "around"}
    | {"beside", "besides", "beyond", "toward", "towards", "onto", "throughout", "alongside"}
)
"""Words that shape a request rather than name what it is about ("the easiest way to ...",
"in python", "what's the difference between ...", "X vs Y"), what contractions leave
typed without their apostrophe ("whats", "dont") or split at it ("don" of "don't"), and
prepositions that place what is asked rather than name it ("the difference between
${var^} and ${var^^}", "my aliases don't work inside a script": ``extractive-v26``; before,
a sentence saying "no space between the key name and the colon" held half of the first,
and a question of two words needs both held): no passage is expected to hold them. The
prepositions of no meaning of their own ("in", "within", "under") are stop words."""

_HOW_MUCH = re.compile(
    r"(?i)\bhow[ \t]+(long|many|much|often|far|old|big|large|soon|tall|fast|deep|high|wide"
    r"|heavy|hot|cold|early|late)\b"
)
"""The word after ``how`` that makes the question ask for an amount ("how long should I
knead it", "how many rows"): the answer is a number or a length of time ("ten minutes"),
and no passage is expected to hold the word itself."""

MAX_LISTED = 6
"""How many missing words the one-line reason names, at most."""


class _Evidence(Protocol):
    @property
    def label(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def text(self) -> str | None: ...


@dataclass(frozen=True)
class Support:
    """``level`` (one of :data:`LEVELS`) and, for ``partly``, the question's words no cited
    passage holds (in the question's order)."""

    level: str
    missing: tuple[str, ...] = ()
    quoted: bool = False
    """Every sentence of the answer is, whitespace aside, a span of a passage it cites
    (:func:`quotes_cited`): what lets a face say "quotes verified" rather than "sources
    verified" under an audit mode that proves the cited bytes."""

    @property
    def reason(self) -> str:
        """The level's meaning in one line, for a tooltip or a ``support`` line."""
        if self.level == ANSWERED:
            return "the cited passages hold every word of the question"
        if self.level == PARTLY:
            shown = ", ".join(self.missing[:MAX_LISTED])
            more = (
                f" and {len(self.missing) - MAX_LISTED} more"
                if len(self.missing) > MAX_LISTED
                else ""
            )
            return f"no cited passage mentions {shown}{more}"
        return "the answer says the documents do not answer the question"

    def text(self) -> str:
        """``level: reason``, the line every face shows."""
        return f"{self.level}: {self.reason}"

    def as_json(self) -> dict[str, object]:
        return {
            "level": self.level,
            "missing": list(self.missing),
            "reason": self.reason,
            "quoted": self.quoted,
        }


AUDIT_WORDS = {
    "STRICT": "quotes verified (STRICT)",
    "HYBRID": "sources verified, wording not quoted (HYBRID)",
    "VISUAL": "nothing verified (VISUAL)",
}
"""The audit modes in plain words, the same in every face (``ask`` and ``show``, ``%%ask``'s
status line, the widget's badge, which is sent them: :func:`arborist._facts.vocabulary`):
what the quoted bytes are proven to be."""

UNQUOTED_STRICT = "sources verified, wording not quoted (STRICT)"
"""STRICT's words under an answer that does not quote what it cites (a model's paraphrase:
:func:`quotes_cited`): the cited bytes are proven, the sentences are the model's. The mode
is the same; the words say what was checked."""

UNQUOTED = "STRICT-unquoted"
"""The badge key of a STRICT turn whose answer does not quote what it cites
(:func:`audit_key`): what a widget row carries beside its mode, for :data:`UNQUOTED_STRICT`."""

BADGE_WORDS = {**AUDIT_WORDS, UNQUOTED: UNQUOTED_STRICT}
"""Each badge key (:func:`audit_key`) in words; any other key (``NONE``, ``ROOT``) is said
as it is."""

AUDIT_PROMISES = {
    "STRICT": "STRICT: every cited text re-hashes to its leaf and its proof verifies (the "
    "cited passages are authentic; whether the answer quotes them is said beside; whether "
    "they answer the question is the support badge)",
    "HYBRID": "HYBRID: the sources are proven, the wording is not a verbatim span",
    "VISUAL": "VISUAL: shown only, nothing proven",
    "NONE": "NONE: nothing is verified here (the answer is not in this home's store, or no "
    "longer holds)",
    "ROOT": "the session's root",
}
"""What each audit mode promises, for a badge's tooltip and a legend."""

SUPPORT_MEANINGS = {
    ANSWERED: "answered: the cited passages hold every word of the question (words, not meaning)",
    PARTLY: "partly: some words of the question are in no cited passage",
    NOT_ANSWERED: "not answered: the answer says the documents do not answer the question",
}
"""What each support level means, for a tooltip where its turn's own reason is not at hand
(a tree row carries the level only)."""

SUPPORT_MARKS = {ANSWERED: "\u25a0", PARTLY: "\u25e7", NOT_ANSWERED: "\u25a1"}
"""The short mark a tree row shows for a support level (filled, half, empty square)."""


def audit_key(mode: str, support: Support | None) -> str:
    """The badge a turn shows for ``mode``: :data:`UNQUOTED` for STRICT unless ``support``
    says the answer quotes what it cites (none measured: not said), else the mode itself.
    The one rule; every face (the widget's rows and detail, the page, the text faces
    through :func:`audit_words`) reads its result."""
    if mode == "STRICT" and not (support is not None and support.quoted):
        return UNQUOTED
    return mode


def audit_words(mode: str, support: Support | None) -> str:
    """``mode`` in :data:`BADGE_WORDS` by :func:`audit_key`: STRICT is "quotes verified"
    only when ``support`` says the answer quotes what it cites; any other mode as it is."""
    return BADGE_WORDS.get(audit_key(mode, support), mode)


ROW_WORDS = {
    "quoted": "quotes verified",
    "unquoted": "sources verified, wording not quoted",
    "uncited": "retrieved, not cited",
}
"""What one evidence row whose proof holds says was checked, by its key (:func:`row_key`),
the same in every face: the ``%%ask`` output's rows, and the widget's, which is sent each
row's key in the turn's facts (:class:`arborist._facts.Source`) and these words once
(:func:`arborist._facts.vocabulary`): the answer quotes this row, its bytes are proven but
the wording is not theirs, or the model was shown it and the answer does not cite it (its
bytes are proven all the same)."""


def row_key(chunk: str | None, answer: str, label: str, cited: bool) -> str:
    """The :data:`ROW_WORDS` key of the evidence row ``label``: ``quoted`` only when the
    claims citing it (:func:`arborist._proofs.quotes.claims_for`) quote it by the badge's rule
    (:func:`quotes_cited`, on this row alone), so no row claims a quote the badge would
    not; ``uncited`` for a row the answer does not cite, which was only retrieved."""
    if not cited:
        return "uncited"
    claims = claims_for(answer, label)
    if chunk is not None and claims and quotes_cited("\n".join(claims), [chunk]):
        return "quoted"
    return "unquoted"


def row_words(chunk: str | None, answer: str, label: str, cited: bool) -> str:
    """:data:`ROW_WORDS` for the evidence row ``label`` (:func:`row_key`)."""
    return ROW_WORDS[row_key(chunk, answer, label, cited)]


def asked_words(question: str) -> list[str]:
    """The words of ``question`` a passage should hold: its content words (identifiers
    give their parts), less :data:`REQUEST_WORDS` and the letters contractions leave
    ("what's", "I'm"), each once."""
    asked = read_question(question).words
    return [w for w in asked if w not in REQUEST_WORDS and (len(w) > 1 or w.isdigit())]


def measured_words(question: str) -> list[str]:
    """The words the support label looks for: :func:`asked_words`, less the word of an
    amount after ``how`` (:data:`_HOW_MUCH`) unless the question says it elsewhere too ("how
    long is a long integer"). The answerer's choice of sentences still weighs it."""
    amounts = [m.group(1).lower() for m in _HOW_MUCH.finditer(question)]
    said = {w: len(re.findall(rf"(?i)\b{re.escape(w)}\b", question)) for w in set(amounts)}
    return [w for w in asked_words(question) if w not in said or said[w] > amounts.count(w)]


def measure(
    question: str, answer: str, evidence: Sequence[_Evidence], trimmed: object = None
) -> Support | None:
    """How well the evidence ``answer`` cites covers ``question``; None when a cited
    passage's text is not here to read. ``trimmed`` is the record's policy entry for a
    passage cut short to fit the model's context (``{"label": "E3", "chars": 440}``): that
    passage counts only as far as the model was shown it. Pure: the same record always
    measures the same."""
    if answer.lstrip().startswith(NOT_ANSWERED_OPENING):
        return Support(NOT_ANSWERED)
    labels = set(cited_labels(answer))
    cited = [_as_shown(item, trimmed) for item in evidence if item.label in labels]
    if not cited:
        return Support(NOT_ANSWERED)
    if any(item.text is None for item in cited):
        return None
    held = _held(cited)
    missing = tuple(w for w in measured_words(question) if root(w) not in held)
    quoted = answer_quotes(answer, {item.label: (item.title, item.text or "") for item in cited})
    return Support(PARTLY if missing else ANSWERED, missing, quoted)


class _Record(Protocol):
    @property
    def question(self) -> str: ...
    @property
    def answer_text(self) -> str: ...
    @property
    def evidence(self) -> Sequence[_Evidence]: ...
    @property
    def policy(self) -> dict[str, Any]: ...


MEMO_SIZE = 50_000
"""How many measures :func:`measure_record` holds (each a digest and a small
:class:`Support`): a widget over a 10,000-turn session measures every row again after
each write to the store (the turns' standings are recomputed), and each row's record is
measured once."""


class _Memo:
    """Measures by the digest of everything :func:`measure` reads of a record (question,
    answer, the trimmed passage, and each item's label, title and text, or that it has
    none): content-addressed, so a held measure is the measure, whatever changed in the
    store; an evicted passage (no text) is other content and is measured again. Oldest
    out first past ``size``; safe across threads."""

    def __init__(self, size: int = MEMO_SIZE) -> None:
        self.size = size
        self._held: dict[bytes, Support | None] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._held.clear()

    def __len__(self) -> int:
        return len(self._held)

    def measure(
        self, question: str, answer: str, evidence: Sequence[_Evidence], trimmed: object
    ) -> Support | None:
        key = _digest(question, answer, evidence, trimmed)
        with self._lock:
            if key in self._held:
                return self._held[key]
        found = measure(question, answer, evidence, trimmed)
        with self._lock:
            if len(self._held) >= self.size:
                del self._held[next(iter(self._held))]
            self._held[key] = found
        return found


def _digest(question: str, answer: str, evidence: Sequence[_Evidence], trimmed: object) -> bytes:
    """SHA-256 over what :func:`measure` reads, each piece length-prefixed (no two inputs
    share a digest by moving a boundary), a missing text marked apart from an empty one."""
    digest = hashlib.sha256()
    pieces: list[str | None] = [question, answer, json.dumps(trimmed, sort_keys=True, default=str)]
    for item in evidence:
        pieces += [item.label, item.title, item.text]
    for piece in pieces:
        data = b"\xff" if piece is None else piece.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.digest()


MEMO = _Memo()
"""The measures of this process (:func:`measure_record`'s; ``MEMO.clear()`` forgets them)."""


def measure_record(record: _Record) -> Support | None:
    """:func:`measure` of a cache record: its question, its answer, and its evidence as the
    model was shown it (the policy names a passage cut short to fit). Held in
    :data:`MEMO` by content, so a record is measured once a process (bench/widget.py
    measured a measure at about 40% of a row's standing)."""
    trimmed = record.policy.get("evidence_trimmed")
    return MEMO.measure(record.question, record.answer_text, record.evidence, trimmed)


@dataclass(frozen=True)
class _Shown:
    label: str
    title: str
    text: str | None


def _as_shown(item: _Evidence, trimmed: object) -> _Evidence:
    """``item`` as the prompt showed it: cut to its first ``chars`` characters when
    ``trimmed`` names it."""
    if not (isinstance(trimmed, dict) and trimmed.get("label") == item.label):
        return item
    chars = trimmed.get("chars")
    if item.text is None or not isinstance(chars, int) or isinstance(chars, bool):
        return item
    return _Shown(item.label, item.title, item.text[: max(chars, 0)])


def root(word: str) -> str:
    """``word`` (folded) less the endings English inflection adds: ``-ing``, ``-ed``, ``-es``
    after a sibilant, ``-s``, ``-ies`` as ``-y``, then a final ``e`` ("created", "creates"
    and "create" are all "creat"). Rough, and the same on both sides of a comparison."""
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ied"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith(("ses", "xes", "zes", "ches", "shes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _held(cited: Iterable[_Evidence]) -> set[str]:
    """The roots the cited passages hold: their texts' words and their titles' (a dotted
    title, ``xml.etree.ElementTree``, gives each part)."""
    held: set[str] = set()
    for item in cited:
        held.update(map(root, words(f"{item.title}\n{item.text or ''}")))
    return held
