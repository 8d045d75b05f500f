"""Deterministic, heading- and paragraph-aware chunking. Pure: no I/O.

A chunk is a run of whole paragraphs (blocks separated by blank lines) of at
most :data:`MAX_CHARS` characters; a heading always starts a new chunk, so a
chunk never straddles two sections. A paragraph longer than the bound is cut
at sentence ends, then at whitespace, then hard. Chunk text is the exact
text of its paragraphs joined by one blank line, so a citation quotes the
document verbatim and a chunk's leaf hash can be recomputed from the same
source text forever.

Any change to these rules must change :data:`CHUNKING_VERSION`: it is one of
the eight cache-key dimensions, so answers cached under the old rules stop
being served.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CHUNKING_VERSION",
    "Chunk",
    "MAX_CHARS",
    "chunk_text",
]

CHUNKING_VERSION = "k1"
MAX_CHARS = 1200
"""Upper bound on a chunk's length in characters (a few paragraphs of prose)."""

_BLANK_LINES = re.compile(r"\n[ \t]*\n+")
_MARKDOWN_HEADING = re.compile(r"#{1,6} \S")
_RST_UNDERLINE = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Chunk:
    """One chunk: its exact text and the heading of the section it sits in."""

    text: str
    heading: str | None


def _heading_of(block: str) -> str | None:
    """The heading a block opens with, if it is one (markdown ``#`` or an RST title)."""
    lines = block.split("\n")
    first = lines[0].strip()
    if _MARKDOWN_HEADING.match(first):
        return first.lstrip("#").strip()
    underline = lines[1].strip() if len(lines) >= 2 else ""
    if first and _RST_UNDERLINE.fullmatch(underline) and len(underline) >= len(first):
        return first
    return None


def _split_long(block: str) -> list[str]:
    """Cut an over-long paragraph at sentence ends, then whitespace, then anywhere."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(block):
        for part in _hard_wrap(sentence):
            candidate = f"{current} {part}" if current else part
            if len(candidate) <= MAX_CHARS:
                current = candidate
            else:
                pieces.append(current)
                current = part
    if current:
        pieces.append(current)
    return pieces


def _hard_wrap(text: str) -> list[str]:
    """Split text longer than the bound at the last whitespace before it, else hard."""
    parts: list[str] = []
    while len(text) > MAX_CHARS:
        cut = text.rfind(" ", 0, MAX_CHARS + 1)
        if cut <= 0:
            cut = MAX_CHARS
        parts.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        parts.append(text)
    return parts


def chunk_text(text: str) -> list[Chunk]:
    """Split ``text`` into chunks (see the module docstring); empty text gives none."""
    chunks: list[Chunk] = []
    current: list[str] = []
    size = 0
    heading: str | None = None

    def flush() -> None:
        nonlocal current, size
        if current:
            chunks.append(Chunk("\n\n".join(current), heading))
        current, size = [], 0

    for raw in _BLANK_LINES.split(text.replace("\r\n", "\n")):
        block = raw.strip("\n").rstrip()
        if not block.strip():
            continue
        opens = _heading_of(block)
        if opens is not None:
            flush()
            heading = opens
        for piece in [block] if len(block) <= MAX_CHARS else _split_long(block):
            added = len(piece) + (2 if current else 0)
            if current and size + added > MAX_CHARS:
                flush()
                added = len(piece)
            current.append(piece)
            size += added
    flush()
    return chunks
