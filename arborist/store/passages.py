"""What the vector lane embeds of a chunk: its passages, one per public definition. Pure.

A pydoc chunk holds many definitions (a dozen methods of a class, a run of module
functions), and one vector of the whole chunk, cut at the model's token limit, is
a blurred target: a question about one function is near none of them. So a chunk
is embedded as its *passages* (:data:`PASSAGES`):

* each public definition in it (:func:`arborist.analysis.definitions`; names that
  start with ``_`` are left out: pydoc's ``__eq__``, ``__weakref__``, ... say the
  same of every class) is one passage, its header and its own description:
  ``load(fp, *, cls=None, ...)`` then "Deserialize ``fp`` ...";
* the chunk itself, whole, is one more when its definitions' passages hold less
  than :data:`COVERED` of its text (prose: a module's description, a section of a
  guide), and the only one when it defines nothing public.

A chunk's vectors are all searched; the chunk scores its best passage's cosine.
Passages are a pure function of the chunk's text (not of its document's title: the
same text in two documents is one leaf, one set of vectors), so they are keyed by
the chunk's leaf and their position (``{leaf}#{n}``; see
:mod:`arborist.store.vectors`), and the rule's name is in the embedding profile:
another rule, other vectors.
"""

from __future__ import annotations

from arborist.analysis import definitions

__all__ = ["COVERED", "PASSAGES", "passages"]

PASSAGES = "definitions-v1"
"""The rule's name, in the embedding profile of an embedder that embeds passages."""

COVERED = 0.5
"""Below this share of the chunk's characters in its definitions' passages, the chunk
itself is a passage too."""


def passages(text: str) -> list[str]:
    """The texts the vector lane embeds for a chunk of ``text``, in order (never empty)."""
    found = [
        f"{d.name}{d.signature}\n{d.doc}"
        for d in definitions(text)
        if not d.name.split(".")[-1].startswith("_")
    ]
    found = list(dict.fromkeys(found))  # an alias is defined by the same text
    if sum(len(p) for p in found) < COVERED * len(text.strip()) or not found:
        found.insert(0, text.strip() or text)
    return found
