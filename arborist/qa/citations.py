"""The citation format, where the chat clients import it from.

It lives in :mod:`arborist.citations` (pure, below the store, which reads an
answer's citations to derive from them); this module only re-exports it.
"""

from arborist.citations import (
    Citation,
    cited_labels,
    defang_citations,
    format_citation,
    parse_citations,
)

__all__ = [
    "Citation",
    "cited_labels",
    "defang_citations",
    "format_citation",
    "parse_citations",
]
