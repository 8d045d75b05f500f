"""What the vector lane embeds of a chunk: its passages (its definitions, its prose in windows). Pure.

A pydoc chunk holds many definitions (a dozen methods of a class, a run of module
functions), and one vector of the whole chunk, cut at the model's token limit, is
a blurred target: a question about one function is near none of them. So a chunk
is embedded as its *passages* (:data:`PASSAGES`):

* each public definition in it (:func:`arborist._text.definitions.definitions`; names that
  start with ``_`` are left out: pydoc's ``__eq__``, ``__weakref__``, ... say the
  same of every class) is one passage, its header and its own description, led
  by the subject of the document's title (the part before " — "):
  ``json: load(fp, *, cls=None, ...)`` then "Deserialize ``fp`` ...";
* the chunk's prose, as :func:`windows` of at most :data:`WINDOW` characters (its
  paragraphs, cut at sentence ends when one is too long, packed in order), each led
  the same way, when its definitions' passages hold less than :data:`COVERED` of its
  text (prose: a module's description, a section of a guide, a page of a manual),
  and the only ones when it defines nothing public.

Why windows (``definitions-windows-v3``; v2 embedded the prose whole): the model reads
``max_tokens`` = 128 word pieces of a text and drops the rest, and a manual's chunk is
prose of up to 1,200 characters, about 200 word pieces (median 208 on git's HTML
manual, 246 on SQLite's): 64-80% of those chunks were cut, and 40-53% of their word
pieces never seen: the answering phrase, for 8 to 15 of each manual's 30 questions. A window of
500 characters is about 100 word pieces with its lead (median 98 on git's manual; 3% of
its word pieces past 128), so the model reads nearly all of it. 400 characters lost a
question of the built-in corpus's natural set (recall@5 0.750 against 0.768); 500 kept
every set's recall. The price: 1.7-2.0 times the word pieces to embed on the manuals,
1.36 times on the built-in corpus (docs/retrieval.md has the figures).

A chunk's vectors are all searched; the chunk scores its best passage's cosine.
How many passages a chunk has, and where each is, is a pure function of its text, so
their vectors are keyed by the chunk's leaf and their position (``{leaf}#{n}``; see
:mod:`arborist._store.vectors`). Their lead is not: the same text in two documents is
one leaf, one set of vectors, led by the title of the document it was first embedded
for (the first hot chunk holding it). Vectors are an index, never evidence: a lead
from another title can only move which chunks are retrieved, and what they are
retrieved as is proved like any evidence. Measured on the development sets, the lead
is worth 1.4 / 12.5 / 5.4 points of recall@5 (questions / paraphrase / natural). The
rule's name is in the embedding profile: another rule, other vectors. So are the
model's roles (``query_prefix``, ``document_prefix``: :mod:`arborist._qa.roles`), which
:func:`as_documents` and :func:`as_query` put before what is embedded.
"""

from __future__ import annotations

import re

from arborist._text.definitions import Definition, definitions

__all__ = [
    "COVERED",
    "PASSAGES",
    "WINDOW",
    "as_documents",
    "as_query",
    "passage_definitions",
    "passages",
    "windows",
]

PASSAGES = "definitions-windows-v3"
"""The rule's name, in the embedding profile of an embedder that embeds passages."""

COVERED = 0.5
"""Below this share of the chunk's characters in its definitions' passages, the chunk
itself is a passage too."""

WINDOW = 500
"""Characters of a prose window (:func:`windows`), its lead left out."""

_BLOCK = re.compile(r"\n[ \t]*\n")
_SEAMS = (re.compile(r"(?<=[.!?])\s+"), re.compile(r"\n"))
"""Where a paragraph too long for a window is cut: at sentence ends, else at line ends."""


def _cut(text: str, size: int, seams: tuple[re.Pattern[str], ...] = _SEAMS) -> list[str]:
    """``text`` as pieces of at most ``size`` characters, whitespace runs collapsed: whole,
    else cut at its first seam that cuts it (each piece cut again as it needs), else as
    runs of whole words (a word longer than ``size`` in pieces of ``size``)."""
    flat = " ".join(text.split())
    if len(flat) <= size:
        return [flat] if flat else []
    for at, seam in enumerate(seams):
        parts = [part for part in seam.split(text) if part.strip()]
        if len(parts) > 1:
            return [piece for part in parts for piece in _cut(part, size, seams[at + 1 :])]
    runs, run = [], ""
    for word in flat.split(" "):
        for part in (word[at : at + size] for at in range(0, len(word), size)):
            if run and len(run) + 1 + len(part) > size:
                runs.append(run)
                run = ""
            run = f"{run} {part}" if run else part
    return [*runs, run]


def windows(text: str, size: int = 0) -> list[str]:
    """The prose windows of ``text``: its paragraphs, sentences (or lines) in order, packed
    into as few pieces of at most ``size`` characters (default :data:`WINDOW`) as greedy
    packing gives, each filled to about an even share of the text; whitespace runs
    collapsed. A text that fits is one window; an empty one none."""
    size = size or WINDOW
    pieces = [piece for block in _BLOCK.split(text) for piece in _cut(block, size)]
    total = sum(len(piece) + 1 for piece in pieces) - 1
    if total <= size:
        return [" ".join(pieces)] if pieces else []
    share = -(-total // -(-total // size))  # the even share of the fewest windows
    out, current = [], ""
    for piece in pieces:
        if current and (len(current) >= share or len(current) + 1 + len(piece) > size):
            out.append(current)
            current = ""
        current = f"{current} {piece}" if current else piece
    return [*out, current]


def passage_definitions(text: str) -> list[Definition | None]:
    """What each of the chunk's passages is, in :func:`passages`' order: the public definition
    it embeds, or None for the chunk whole (when it is a passage)."""
    found: dict[str, Definition] = {}
    for d in definitions(text):
        if not d.name.split(".")[-1].startswith("_"):
            found.setdefault(f"{d.name}{d.signature}\n{d.doc}", d)  # an alias: the same text
    held: list[Definition | None] = list(found.values())
    if sum(len(p) for p in found) < COVERED * len(text.strip()) or not found:
        held[:0] = [None] * max(1, len(windows(text)))
    return held


def passages(text: str, title: str = "") -> list[str]:
    """The texts the vector lane embeds for a chunk of ``text`` in a document titled
    ``title``, in order (never empty; how many, and which, do not depend on ``title``)."""
    subject = title.split(" — ", maxsplit=1)[0].strip()
    lead = f"{subject}: " if subject else ""
    prose = iter(windows(text) or [text])
    return [
        lead + (next(prose) if d is None else f"{d.name}{d.signature}\n{d.doc}")
        for d in passage_definitions(text)
    ]


def as_documents(profile: dict[str, object], texts: list[str]) -> list[str]:
    """``texts`` as an embedder of ``profile`` is sent them to be searched: each after the
    profile's ``document_prefix`` (its model's document role, :mod:`arborist._qa.roles`)."""
    prefix = profile.get("document_prefix")
    return [f"{prefix}{t}" for t in texts] if isinstance(prefix, str) and prefix else texts


def as_query(profile: dict[str, object], text: str) -> str:
    """A question as an embedder of ``profile`` is sent it: after its ``query_prefix``."""
    prefix = profile.get("query_prefix")
    return f"{prefix}{text}" if isinstance(prefix, str) else text
