"""What a question asks for, as the offline answerer reads it, and whether a sentence gives
it. Pure; :mod:`arborist._qa.extractive` weighs the sentences by it.

A question's words say what it is about; its shape says what kind of answer it wants:

* **something to type** ("how do I ...", "which option ...", "what command ...", "where
  does ... look"): a sentence that holds a command, an option, a setting, a path or a
  name as code writes it (:func:`holds_code`) gives it;
* **a number** ("how many", "how often", "the maximum", "the default size", "when does
  ... happen"): a sentence with a number of its own (:func:`holds_number`), not a
  version's digits or a page reference;
* **a term it names** (``-m``, ``--no-verify``, ``gc.auto``, ``INPUTRC``): the sentences
  describing that term (:func:`named_terms`).

Each is a share of the question's weightiest word a sentence earns (:meth:`Cues.shares`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CODE_SHARE",
    "Cues",
    "NAMED_SHARE",
    "QUANTITY_SHARE",
    "Shares",
    "holds_code",
    "holds_number",
    "named_terms",
    "read_cues",
]

QUANTITY_SHARE = 1.0
"""How much a number counts, as a share of the question's weightiest word, in a sentence
answering a question that asks for one ("how many", "how often", "the maximum"): "The
default value is 6700." answers "how many loose objects before gc --auto kicks in"."""

CODE_SHARE = 0.5
"""How much something to type (:func:`holds_code`: an option, a setting, a path) counts, as
a share of the question's weightiest word, in a sentence answering a question that asks for
one ("how do I ...", "which option ...", "where does ...")."""

NAMED_SHARE = 1.0
"""How much a term the question names as a manual writes it (``-m``, ``gc.auto``) counts, as
a share of the question's weightiest word, for the sentences describing that term."""

_QUANTITY = re.compile(
    r"\bhow\s+(?:many|much|often|long|big|large|far|old|deep)\b"
    r"|^\W*when\s+(?:does|do|is|are|will)\b"
    r"|\b(?:max(?:imum)?|min(?:imum)?|limits?|largest|smallest|sizes?|number\s+of)\b",
    re.IGNORECASE,
)
"""A question that asks for a number: "how many ...", "how deep ...", "the maximum ...",
"what size ...", "what page sizes are allowed",
and "when does ... happen" (a threshold or a time: "whenever a COMMIT makes the WAL file
1000 pages or more")."""

_TO_TYPE = re.compile(
    r"^\W*(?:how\s+(?:do|can|could|should|would|to)\b|is\s+there\s+an?\s+(?:way|option|command)\b"
    r"|where\s+(?:does|do|is|are|can)\b)"
    r"|\b(?:which|what)\s+(?:\w+\s+)?(?:commands?|options?|flags?|switch(?:es)?|settings?"
    r"|variables?|pragmas?|functions?|keywords?|keys?|shortcuts?|syntax|parameters?"
    r"|env\w*|config\w*)\b",
    re.IGNORECASE,
)
"""A question that asks for something to type or a place: "how do I ...", "is there a way
to ...", "which option ...", "what env var ...", "where does ... look"."""

_CODE = re.compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*"  # an option: -m, --no-verify
    r"|\b[A-Za-z_]\w*\((?!\d+\))[^()\s]*\)"  # a call: sqlite3_backup_init(), count(X); not git-add(1)
    r"|\b\w*[A-Za-z]_\w+"  # an underscored name: foreign_keys, SQLITE_THREADSAFE
    r"|\b(?!e\.g|i\.e)[a-z]\w*\.[a-z]\w*"  # a dotted setting or file: gc.auto, hist.gp
    r"|(?<![\w/])[~.]?/[\w.-]+"  # a path: /etc/inputrc, ~/.inputrc
    r"|\b\w+=\S"  # an assignment: synchronous=FULL
    r"|\b[CM]-\S"  # a key: C-r, M-p
    r"|‘[^‘’\s][^‘’]{0,38}[‘’]"  # a manual's quoted code: ‘set term‘, ‘<<-’
    r"|\b[A-Z]{2,}(?:[ \t]+[A-Z]{2,})+\b"  # keywords: VACUUM INTO, ALTER TABLE
)
"""What a sentence holds as code writes it, not as prose does."""

_NAMED = re.compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*"  # an option
    r"|\b[A-Za-z_]\w*(?:\.\w+)+"  # dotted: gc.auto
    r"|\b\w*[A-Za-z]_\w*"  # underscored: STATS_
    r"|\b[A-Z][A-Z0-9]{2,}\b"  # a name in capitals: INPUTRC, FUNCNEST
)
"""The terms a question names as a manual writes them: an option, a setting, a variable."""

_REFERENCE = re.compile(r"\b(?:Section|Chapter|page|p\.|pp\.)\s*\d[\d.,–-]*", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)*(?![\w.-]*[A-Za-z])")
"""A number of its own: 6700, 1000 pages, 79 by 24, 0.5; not the digits of v1.0.4,
ansi256 or UTF-8."""


@dataclass(frozen=True)
class Cues:
    """What a question asks for (see the module's docstring)."""

    code: bool = False
    """Something to type or a place: a command, an option, a setting, a path."""
    number: bool = False
    """A number."""
    named: frozenset[str] = frozenset()
    """The terms it names as a manual writes them (``-m``, ``gc.auto``, ``INPUTRC``)."""

    def shares(self, sentence: str, term: str = "", head: str = "") -> Shares:
        """What ``sentence`` earns for giving what the question asks for: a number of its
        own, something to type (in it, or in the call ``head`` it is quoted under), or the
        description of a term the question names (its ``term``, or the option it opens
        with: ``-t timeout Cause read to time out ...``)."""
        opening = sentence.split(None, 1)[0] if sentence[:1] in "-$%" else ""
        return Shares(
            QUANTITY_SHARE if self.number and holds_number(sentence) else 0.0,
            CODE_SHARE if self.code and (holds_code(sentence) or holds_code(head)) else 0.0,
            NAMED_SHARE if self.named & {*named_terms(term), *named_terms(opening)} else 0.0,
        )


@dataclass(frozen=True)
class Shares:
    """What a sentence earns for what the question asks for, each a share of the question's
    weightiest word (:meth:`Cues.shares`)."""

    number: float = 0.0
    typed: float = 0.0
    named: float = 0.0

    @property
    def total(self) -> float:
        return self.number + self.typed + self.named


def read_cues(question: str) -> Cues:
    """What ``question`` asks for."""
    return Cues(
        code=_TO_TYPE.search(question) is not None,
        number=_QUANTITY.search(question) is not None,
        named=frozenset(named_terms(question)),
    )


def named_terms(text: str) -> list[str]:
    """The options, settings and names in capitals ``text`` writes, each once, folded."""
    return list(dict.fromkeys(m.group(0).lower().rstrip("._-") for m in _NAMED.finditer(text)))


def holds_code(sentence: str) -> bool:
    """Whether ``sentence`` holds something as code writes it (an option, a call, a
    setting, a path, an assignment, a key, keywords in capitals)."""
    return _CODE.search(sentence) is not None


def holds_number(sentence: str) -> bool:
    """Whether ``sentence`` gives a number of its own (a page or section it refers to is
    not one)."""
    return _NUMBER.search(_REFERENCE.sub("", sentence)) is not None
