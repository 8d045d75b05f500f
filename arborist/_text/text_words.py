"""Words and identifiers as arborist reads them, in questions and documents. Pure: no I/O.

The lexical rules :mod:`arborist._text.analysis` states (words, stop words, identifiers): a
word is a run of letters and digits, folded as SQLite's ``unicode61`` folds it; an
identifier is a name as code writes it.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "IDENTIFIER",
    "STOPWORDS",
    "content_words",
    "fold",
    "identifiers",
    "stem",
    "stems",
    "word_list",
    "word_pairs",
    "words",
]

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "each",
        "either",
        "else",
        "ever",
        "few",
        "for",
        "from",
        "get",
        "gets",
        "got",
        "had",
        "has",
        "have",
        "having",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "may",
        "me",
        "might",
        "more",
        "most",
        "much",
        "must",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "please",
        "same",
        "shall",
        "she",
        "should",
        "so",
        "some",
        "such",
        "tell",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "via",
        "was",
        "we",
        "were",
        "what",
        "whatever",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "would",
        "yes",
        "yet",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "her",
        "hers",
        "explain",
        "describe",
    ]
)
"""Function words and question words: never required in a match, never scored."""

_WORD = re.compile(r"[^\W_]+")
IDENTIFIER = re.compile(
    r"(?<![\w.])"
    r"(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"  # dotted: json.loads
    r"|[A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]"  # underscored: median_low
    r"|[A-Za-z_][A-Za-z0-9_]*(?=\(\))"  # called: groupby()
    r"|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)"  # camel: OrderedDict
    r"(?![\w])"
)


def fold(word: str) -> str:
    """``word`` lowercased and without combining accents (as ``unicode61`` folds it, near enough)."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """Every word of ``text``, folded, in order (repeats kept)."""
    return [fold(w) for w in _WORD.findall(text)]


def stem(word: str) -> str:
    """A folded word without its plural ``s`` ("elements" → "element", "class" and "status"
    kept; "dictionaries" → "dictionary"): enough for a sentence to match a question in the
    other number. The index stems more (FTS5's porter); this is only for choosing sentences."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def stems(text: str) -> set[str]:
    """The stemmed words of ``text`` (see :func:`stem`)."""
    return {stem(w) for w in words(text)}


def content_words(text: str) -> list[str]:
    """The distinct words of ``text`` that are not stop words, in order of first appearance."""
    return list(dict.fromkeys(w for w in words(text) if w not in STOPWORDS))


def identifiers(text: str) -> list[str]:
    """The identifiers ``text`` names (dotted, underscored, called or camel case), each once."""
    return list(dict.fromkeys(m.group(0).strip("_") for m in IDENTIFIER.finditer(text)))


def word_pairs(*groups: str) -> dict[str, str]:
    """A table of words read from ``word:meaning`` pairs separated by white space (a table
    written as text stays one line per group of words whatever the formatter does); a word
    given twice is an error, as a table that means two things for it would be."""
    table: dict[str, str] = {}
    for pair in " ".join(groups).split():
        word, colon, meaning = pair.partition(":")
        if not colon or not word or not meaning or word in table:
            raise ValueError(f"word table: {pair!r} is not a new word:meaning pair")
        table[word] = meaning
    return table


def word_list(*groups: str) -> tuple[str, ...]:
    """The words of a table written as text, separated by white space, in order; a word given
    twice is an error (a table that names it twice was meant to name something else)."""
    listed = " ".join(groups).split()
    if len(set(listed)) != len(listed):
        twice = sorted({w for w in listed if listed.count(w) > 1})
        raise ValueError(f"word table: {', '.join(twice)} given twice")
    return tuple(listed)
