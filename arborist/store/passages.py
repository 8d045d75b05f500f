"""What the vector lane embeds of a chunk: its passages, one per public definition. Pure.

A pydoc chunk holds many definitions (a dozen methods of a class, a run of module
functions), and one vector of the whole chunk, cut at the model's token limit, is
a blurred target: a question about one function is near none of them. So a chunk
is embedded as its *passages* (:data:`PASSAGES`):

* each public definition in it (:func:`arborist.analysis.definitions`; names that
  start with ``_`` are left out: pydoc's ``__eq__``, ``__weakref__``, ... say the
  same of every class) is one passage, its header and its own description, led
  by the subject of the document's title (the part before " — "):
  ``json: load(fp, *, cls=None, ...)`` then "Deserialize ``fp`` ...";
* the chunk itself, whole, is one more when its definitions' passages hold less
  than :data:`COVERED` of its text (prose: a module's description, a section of a
  guide), and the only one when it defines nothing public.

A chunk's vectors are all searched; the chunk scores its best passage's cosine.
How many passages a chunk has, and where each is, is a pure function of its text, so
their vectors are keyed by the chunk's leaf and their position (``{leaf}#{n}``; see
:mod:`arborist.store.vectors`). Their lead is not: the same text in two documents is
one leaf, one set of vectors, led by the title of the document it was first embedded
for (the first hot chunk holding it). Vectors are an index, never evidence: a lead
from another title can only move which chunks are retrieved, and what they are
retrieved as is proved like any evidence. Measured on the development sets, the lead
is worth 1.4 / 12.5 / 5.4 points of recall@5 (questions / paraphrase / natural). The
rule's name is in the embedding profile: another rule, other vectors. So are the
model's roles (``query_prefix``, ``document_prefix``: :mod:`arborist.qa.roles`), which
:func:`as_documents` and :func:`as_query` put before what is embedded.
"""

from __future__ import annotations

from arborist.analysis import Definition, definitions

__all__ = ["COVERED", "PASSAGES", "as_documents", "as_query", "passage_definitions", "passages"]

PASSAGES = "definitions-v2"
"""The rule's name, in the embedding profile of an embedder that embeds passages."""

COVERED = 0.5
"""Below this share of the chunk's characters in its definitions' passages, the chunk
itself is a passage too."""


def passage_definitions(text: str) -> list[Definition | None]:
    """What each of the chunk's passages is, in :func:`passages`' order: the public definition
    it embeds, or None for the chunk whole (when it is a passage)."""
    found: dict[str, Definition] = {}
    for d in definitions(text):
        if not d.name.split(".")[-1].startswith("_"):
            found.setdefault(f"{d.name}{d.signature}\n{d.doc}", d)  # an alias: the same text
    held: list[Definition | None] = list(found.values())
    if sum(len(p) for p in found) < COVERED * len(text.strip()) or not found:
        held.insert(0, None)
    return held


def passages(text: str, title: str = "") -> list[str]:
    """The texts the vector lane embeds for a chunk of ``text`` in a document titled
    ``title``, in order (never empty; how many, and which, do not depend on ``title``)."""
    subject = title.split(" — ", maxsplit=1)[0].strip()
    lead = f"{subject}: " if subject else ""
    whole = text.strip() or text
    return [
        lead + (whole if d is None else f"{d.name}{d.signature}\n{d.doc}")
        for d in passage_definitions(text)
    ]


def as_documents(profile: dict[str, object], texts: list[str]) -> list[str]:
    """``texts`` as an embedder of ``profile`` is sent them to be searched: each after the
    profile's ``document_prefix`` (its model's document role, :mod:`arborist.qa.roles`)."""
    prefix = profile.get("document_prefix")
    return [f"{prefix}{t}" for t in texts] if isinstance(prefix, str) and prefix else texts


def as_query(profile: dict[str, object], text: str) -> str:
    """A question as an embedder of ``profile`` is sent it: after its ``query_prefix``."""
    prefix = profile.get("query_prefix")
    return f"{prefix}{text}" if isinstance(prefix, str) else text
