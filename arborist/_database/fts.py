"""Safe FTS5 queries from user text. Pure: no I/O.

User text never reaches FTS5 MATCH raw: it is cut into word terms, NUL
bytes dropped, and every term double-quoted, so ``AND``, ``NEAR(``,
``col:``, ``*``, ``-`` and quotes are searched for as words and can never
change a query's meaning (docs/design.md section 5: raw MATCH text raises or silently
rewrites the query). Used by the store's search and the forest's find.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from arborist._errors import BadInput

__all__ = ["MAX_QUERY_TERMS", "checked_terms", "fts_match_all", "fts_match_any", "fts_terms"]

MAX_QUERY_TERMS = 64
"""A search query with more distinct terms than this is refused (retrieval keeps the first)."""

_TERM = re.compile(r"\w+")


def fts_terms(text: str) -> list[str]:
    """Distinct word terms of ``text`` (NFC, as stored text is), in order, NUL bytes dropped.

    Terms keep their case: FTS5's tokenizer folds the quoted query exactly as it
    folded the documents, which Python's ``lower()`` does not always match
    (``İstanbul``, Cherokee, newer case pairs). Case only decides what counts as
    the same term twice.
    """
    seen: dict[str, str] = {}
    normalized = unicodedata.normalize("NFC", text.replace("\x00", " "))
    for term in _TERM.findall(normalized):
        seen.setdefault(term.lower(), term)
    return list(seen.values())


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fts_match_all(terms: Sequence[str]) -> str:
    """An FTS5 query requiring every term, each quoted."""
    return " ".join(_quote(t) for t in terms)


def fts_match_any(terms: Sequence[str]) -> str:
    """An FTS5 query matching any term, each quoted."""
    return " OR ".join(_quote(t) for t in terms)


def checked_terms(query: str) -> list[str]:
    """The terms of a user's search, refusing an empty or absurdly long one with one line."""
    terms = fts_terms(query)
    if not terms:
        raise BadInput("empty search query: give at least one word")
    if len(terms) > MAX_QUERY_TERMS:
        raise BadInput(
            f"search query has {len(terms)} distinct words; the limit is {MAX_QUERY_TERMS}"
        )
    return terms
