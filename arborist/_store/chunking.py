"""Deterministic, heading- and paragraph-aware chunking. Pure: no I/O.

A chunk is a run of whole paragraphs (blocks separated by blank lines) of at
most :data:`MAX_CHARS` characters; a heading always starts a new chunk, so a
chunk never straddles two sections. A paragraph longer than the bound is cut
at sentence ends, then at whitespace, then hard. Chunk text is the exact
text of its paragraphs joined by one blank line, so a citation quotes the
document verbatim and a chunk's leaf hash can be recomputed from the same
source text forever.

A form feed (``"\f"``) starts a new chunk and stays its first character: a PDF's
text opens each page after the first with one (:mod:`arborist._store.pdf_text`),
so the page of chunk *i* is one more than the form feeds in chunks 0 to *i*, read
from the committed chunk bytes alone. A run of form feeds with no text before
the next one (pages without text) is carried to the chunk that follows; form
feeds with no text after them are dropped. No other format's text holds one
(normalization removes control characters).

Any change to these rules must change :data:`CHUNKING_VERSION`: it is one of
the eight cache-key dimensions, so answers cached under the old rules stop
being served.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "CHUNKING_VERSION",
    "Chunk",
    "MAX_CHARS",
    "chunk_text",
    "iter_chunks",
]

CHUNKING_VERSION = "k2"
MAX_CHARS = 1200
"""Upper bound on a chunk's length in characters (a few paragraphs of prose)."""

_BLANK_LINES = re.compile(r"\n[ \t]*\n+")
_MARKDOWN_HEADING = re.compile(r"#{1,6} \S")
_RST_UNDERLINE = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# What str.lstrip() strips: in a str pattern \s is exactly str.isspace (both are
# Py_UNICODE_ISSPACE), which tests/test_chunking.py checks over every code point.
_LEADING_SPACE = re.compile(r"\s*")


@dataclass(frozen=True)
class Chunk:
    """One chunk: its exact text and the heading of the section it sits in."""

    text: str
    heading: str | None


def _heading_of(block: str) -> str | None:
    """The heading a block opens with, if it is one (markdown ``#`` or an RST title).

    Reads the block's first two lines only: a paragraph of millions of lines is
    never split whole to look at its start.
    """
    first_end = block.find("\n")
    first = (block if first_end == -1 else block[:first_end]).strip()
    if _MARKDOWN_HEADING.match(first):
        return first.lstrip("#").strip()
    if first_end == -1:
        return None
    second_end = block.find("\n", first_end + 1)
    underline = block[first_end + 1 : len(block) if second_end == -1 else second_end].strip()
    if first and _RST_UNDERLINE.fullmatch(underline) and len(underline) >= len(first):
        return first
    return None


def _sentences(block: str) -> Iterator[str]:
    """``_SENTENCE_END.split(block)``, one sentence at a time."""
    start = 0
    for end in _SENTENCE_END.finditer(block):
        yield block[start : end.start()]
        start = end.end()
    yield block[start:]


def _split_long(block: str) -> Iterator[str]:
    """Cut an over-long paragraph at sentence ends, then whitespace, then anywhere.

    Sentences (and the hard-wrapped parts of an over-long one) are packed,
    joined by one space, into pieces of at most :data:`MAX_CHARS`. The piece
    being filled is kept as its parts and their joined length, so adding a
    part costs the part, not the piece: linear in the block however short its
    sentences.
    """
    parts: list[str] = []  # the piece being filled is " ".join(parts)
    size = 0  # len(" ".join(parts))
    for sentence in _sentences(block):
        for part in _hard_wrap(sentence):
            if not size:
                parts, size = [part], len(part)
            elif size + 1 + len(part) <= MAX_CHARS:
                parts.append(part)
                size += 1 + len(part)
            else:
                yield " ".join(parts)
                parts, size = [part], len(part)
    if size:
        yield " ".join(parts)


def _hard_wrap(text: str) -> Iterator[str]:
    """Split text longer than the bound at the last space before it, else hard.

    Walks ``text`` by offsets: each cut copies only the part it yields (at most
    :data:`MAX_CHARS`), never the remainder, so a paragraph of any length with
    no sentence end is wrapped in linear time.
    """
    start, end = 0, len(text)
    while end - start > MAX_CHARS:
        cut = text.rfind(" ", start, start + MAX_CHARS + 1)
        if cut <= start:
            cut = start + MAX_CHARS
        yield text[start:cut].rstrip()
        spaces = _LEADING_SPACE.match(text, cut)  # text[cut:].lstrip(), as an offset
        start = spaces.end() if spaces else cut
    if start < end:
        yield text[start:]


def iter_chunks(text: str) -> Iterator[Chunk]:
    """The chunks of ``text`` one at a time, in order (see the module docstring).

    Lazy: each chunk is made when it is complete, and the blocks of a text over
    :data:`_SPLIT_CHARS` are found one at a time, so a caller that hashes or
    stores chunks as they come holds one chunk (and a short text's blocks), not
    the whole list, beside ``text``.
    """
    current: list[str] = []
    size = 0
    heading: str | None = None
    feeds = ""  # form feeds waiting for the text of the page they open
    # A one-character search first: replace() searches for two, 8 us on a 5 KB text that
    # has no CR (nearly every one), where this takes a tenth of a microsecond.
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    for raw in _BLANK_LINES.split(text) if len(text) <= _SPLIT_CHARS else _blocks(text):
        for part in _pages(raw) if "\f" in raw else (raw,):
            block = part.strip("\n").rstrip()  # all whitespace: nothing left
            if part.startswith("\f"):
                feeds += part[: len(part) - len(part.lstrip("\f"))]
                block = block.lstrip("\f")
            if not block:
                continue
            # A heading is a first line whose first non-space character is "#" (markdown), or
            # a first line underlined by the second (RST): a one-line block that opens with
            # any other character is none, and most paragraphs are looked at no further.
            first = block[0]
            if first != "#" and not first.isspace() and "\n" not in block:
                opens = None
            else:
                opens = _heading_of(block)
            if (opens is not None or feeds) and current:
                yield Chunk("\n\n".join(current), heading)
                current, size = [], 0
            if opens is not None:
                heading = opens
            block, feeds = feeds + block, ""
            for piece in (block,) if len(block) <= MAX_CHARS else _split_long(block):
                added = len(piece) + (2 if current else 0)
                if current and size + added > MAX_CHARS:
                    yield Chunk("\n\n".join(current), heading)
                    current, size = [], 0
                    added = len(piece)
                current.append(piece)
                size += added
    if current:
        yield Chunk("\n\n".join(current), heading)


def _pages(block: str) -> list[str]:
    """``block`` cut before each run of form feeds: every part but the first opens with one."""
    return re.split(r"(?<!\f)(?=\f)", block)


_SPLIT_CHARS = 2**20
"""A text up to this long is split into its blocks at once (a copy of it, in C); a longer
one is walked one block at a time (:func:`_blocks`), so only one block is held beside it."""


def _blocks(text: str) -> Iterator[str]:
    """``_BLANK_LINES.split(text)``, one block at a time."""
    start = 0
    for gap in _BLANK_LINES.finditer(text):
        yield text[start : gap.start()]
        start = gap.end()
    yield text[start:]


def chunk_text(text: str) -> list[Chunk]:
    """Split ``text`` into chunks (see the module docstring); empty text gives none."""
    return list(iter_chunks(text))
