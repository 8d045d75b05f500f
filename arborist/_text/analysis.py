"""Reading questions and documents: words, identifiers, follow-ups, definitions. Pure: no I/O.

One owner for the text rules that retrieval (:mod:`arborist._store.search`) and
the extractive answerer (:mod:`arborist._qa.extractive`) share, so both read a
question the same way:

* **Words** are runs of letters and digits, lowercased and without accents,
  split at ``_`` and ``.`` as SQLite's ``unicode61`` tokenizer splits them:
  ``median_low`` is the words ``median`` and ``low``.
* **Stop words** (function words and question words: "what", "how", "does")
  are never required and never scored.
* **Identifiers** are names as code writes them: dotted (``json.loads``),
  with an underscore (``median_low``), called (``groupby()``) or in
  camel case (``OrderedDict``). Retrieval matches one as a whole (its words
  adjacent, as a phrase) and by its parts.
* A question **stands alone** unless it continues another ("and ...",
  "what about ...", "with a custom separator"), refers back (a pronoun such as
  "it" or "them" with no noun phrase before it in the question to stand for:
  "read a file and split it" stands alone), or has no subject of its own and
  leans on the last answer ("which one is faster", "the second argument").
  Only a question that cannot stand alone takes words from the turns above it
  (see :func:`stands_alone`, :mod:`arborist._standalone.rule`'s, re-exported here).
* A **definition** is where an API text defines a name: a signature line
  (``median(data)``, ``class groupby(builtins.object)``, ``def f(x):``)
  followed by a more deeply indented body, as pydoc, help() and most
  reference texts lay them out (:func:`definitions`).

The words are :mod:`arborist._text.text_words`' and the definitions :mod:`arborist._text.definitions`'
(both re-exported here, where retrieval and the answerer import them); this module reads
questions: whether one stands alone, and what it asks for (:func:`read_question`).
"""

from __future__ import annotations

from dataclasses import dataclass

from arborist._text.text_words import (
    content_words,
    fold,
    identifiers,
    words,
)

__all__ = [
    "QuestionTerms",
    "read_question",
]


@dataclass(frozen=True)
class QuestionTerms:
    """What retrieval looks for: the question's own words and identifiers."""

    words: tuple[str, ...]
    """Content words, folded, in order (identifiers contribute their parts)."""
    identifiers: tuple[str, ...]
    """Identifiers as written (``statistics.median``): matched whole, as a phrase."""
    names: tuple[str, ...]
    """Folded names a definition may carry: each identifier's last part, and every content word."""
    strong_names: frozenset[str]
    """The names that came from identifiers (a definition of one of these is a strong match)."""
    qualifiers: tuple[tuple[str, frozenset[str]], ...] = ()
    """For each dotted identifier's last part, the folded words before it (``json.loads``:
    ``loads`` qualified by ``json``): a definition of ``loads`` is the one asked about only
    where its title or its own name says ``json``."""

    def qualified(self, name: str, where: str) -> bool:
        """Whether a definition of ``name`` (folded) found in ``where`` (its document's title
        and its own dotted name) is the one the question qualified, if it qualified one."""
        wanted = [q for n, q in self.qualifiers if n == name]
        if not wanted:
            return True
        present = set(words(where))
        return any(q <= present for q in wanted)


def read_question(question: str) -> QuestionTerms:
    """The words, identifiers and candidate names of ``question``."""
    found = identifiers(question)
    strong = {fold(i.split(".")[-1]) for i in found}
    own = content_words(question)
    names = list(dict.fromkeys([*strong, *own]))
    qualifiers = tuple(
        (fold(i.split(".")[-1]), frozenset(words(i.rsplit(".", 1)[0]))) for i in found if "." in i
    )
    return QuestionTerms(tuple(own), tuple(found), tuple(names), frozenset(strong), qualifiers)
