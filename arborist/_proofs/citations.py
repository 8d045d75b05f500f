"""Citations in answer text: ``[E# | <title> | <uri>]``, written and read back. Pure.

An answer cites the evidence it was shown by label (``E1``, ``E2``, ... in
rank order). The label is what links a citation to a chunk; the title and URI
ride along for the human reader, so a model that garbles a title still cites
the right chunk.

The reading rule, in full (:func:`parse_citations`):

* A candidate is a ``[`` ... ``]`` span whose inside holds no ``[``, ``]`` or
  newline (so ``[[E1 | a | b]]`` yields the inner bracket, and a citation
  never spans lines).
* The inside is split on ``|``. The first part, stripped of whitespace, must
  be ``E`` followed by 1 to 6 ASCII digits; leading zeros are dropped
  (``E01`` reads as ``E1``).
* Three or more parts is the full form: the **last** part is the URI and
  everything between the first and the last ``|`` is the title, so a title
  may itself contain ``|`` (a URI may not: :func:`format_citation` writes it
  as ``%7C``). Title and URI are stripped of surrounding whitespace; either
  may be empty.
* One part (``[E1]``) is the short form models often fall back to: a
  citation with an empty title and URI.
* Anything else (two parts, a bad label) is not a citation and is skipped.

Reading never raises, whatever the text; the tests fuzz it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "Citation",
    "cited_labels",
    "defang_citations",
    "format_citation",
    "parse_citations",
]

_BRACKET = re.compile(r"\[([^\[\]\n]*)\]")
_LABEL = re.compile(r"E([0-9]{1,6})")


@dataclass(frozen=True)
class Citation:
    """One citation found in an answer; ``text[start:end]`` is its whole bracket."""

    label: str
    title: str
    uri: str
    start: int
    end: int


def _read(inside: str) -> tuple[str, str, str] | None:
    """``(label, title, uri)`` of a bracket's inside, or None when it is not a citation."""
    parts = inside.split("|")
    match = _LABEL.fullmatch(parts[0].strip())
    if match is None or len(parts) == 2:
        return None
    label = f"E{int(match.group(1))}"
    if len(parts) == 1:
        return label, "", ""
    return label, "|".join(parts[1:-1]).strip(), parts[-1].strip()


def parse_citations(text: str) -> list[Citation]:
    """Every well-formed citation in ``text``, in order (see the module docstring for the rule)."""
    found = []
    for match in _BRACKET.finditer(text):
        read = _read(match.group(1))
        if read is not None:
            label, title, uri = read
            found.append(Citation(label, title, uri, match.start(), match.end()))
    return found


def cited_labels(text: str) -> list[str]:
    """The labels ``text`` cites, each once, in the order of their first appearance."""
    return list(dict.fromkeys(citation.label for citation in parse_citations(text)))


def _clean_title(title: str) -> str:
    """A title that cannot end the bracket early: brackets become parentheses, one line."""
    return " ".join(title.replace("[", "(").replace("]", ")").split())


def _clean_uri(uri: str) -> str:
    """A URI that reads back whole: ``|`` and brackets percent-encoded, one line."""
    cleaned = uri.replace("|", "%7C").replace("[", "%5B").replace("]", "%5D")
    return " ".join(cleaned.split())


def format_citation(label: str, title: str, uri: str) -> str:
    """``[label | title | uri]``, written so that :func:`parse_citations` reads it back.

    The title loses what would break the bracket (``[``, ``]``, line breaks
    and runs of whitespace); the URI keeps its meaning through percent-encoding.
    """
    return f"[{label} | {_clean_title(title)} | {_clean_uri(uri)}]"


def defang_citations(text: str) -> str:
    """``text`` with every citation-shaped bracket turned into parentheses.

    Documents and model output are untrusted: a chunk that happens to contain
    ``[E9 | x | y]`` must not become a citation of evidence nobody was shown,
    whether it is quoted into a prompt or into an extractive answer.
    """
    # Loop: opening an inner bracket can complete an outer one
    # ("[E1 | a [E2 | b | c] | d]"); each pass removes at least one pair.
    citations = parse_citations(text)
    while citations:
        chars = list(text)
        for citation in citations:
            chars[citation.start] = "("
            chars[citation.end - 1] = ")"
        text = "".join(chars)
        citations = parse_citations(text)
    return text
