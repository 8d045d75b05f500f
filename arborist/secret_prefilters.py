"""What a text is searched for secrets in: its long, random-looking words.

Pure: no I/O. No vendor token, webhook or AWS secret is shorter than
:data:`_LONG_WORD` characters, so :mod:`arborist.secret_finders` looks for their
literals in :func:`long_words`'s words (a few percent of most text), not the whole
text, and a text with none of them is not searched for those secrets at all.
"""

from __future__ import annotations

import re

__all__ = [
    "AWS_SECRET_SIZE",
    "has_long",
    "long_words",
]

_LONG_WORD = 20
"""No vendor token, webhook or AWS secret is shorter: the words this long, joined, are
where their literals are looked for (a few percent of most text), not the whole text,
and a text with none of them is not searched for those secrets at all."""
AWS_SECRET_SIZE = 40
"""An AWS secret access key's length: a word at least this long holds it."""
_SPACE = re.compile(r"\s")
_PIECE = 1 << 20
_MARKS = bytes(32 if c < 128 and chr(c).isspace() else 120 for c in range(256))
"""A byte table: what ``str.split`` takes for whitespace (ASCII's, with ``\\x1c``-``\\x1f``) to a
space, every other byte (a UTF-8 sequence's included) to ``x``."""
_LONG_RUN = b"x" * _LONG_WORD


def long_words(text: str) -> str:
    """The words of :data:`_LONG_WORD` characters or more that could hold a token, joined
    by spaces: in ASCII, those with a digit or letters of both cases (every token, key
    or signed value the callers look for is random-looking so; pydoc's rules of dashes
    and ``__getattribute__(self,`` are not), in other text every long word.

    The text is read a piece of about 1 MiB at a time, each piece ending at a space so
    no word is cut and a big document is never copied whole. An ASCII piece (most of
    them) is read through a copy in which every whitespace byte is a space and every
    other byte an ``x``: each long word is found there with a ``find`` of
    :data:`_LONG_RUN`, the fast substring search, rather than by splitting the piece
    into words and measuring each (docs/design.md section 8). Another piece is
    split into words only when its UTF-8 copy holds such a run (a word of 20 characters
    is at least 20 bytes, none of them a space).
    """
    found: list[str] = []
    start, size = 0, len(text)
    while start < size:
        end = start + _PIECE
        if end < size:
            space = _SPACE.search(text, end)
            end = space.start() if space else size
        piece = text[start:end] if start or end < size else text
        start = end
        if not piece.isascii():
            if _LONG_RUN in piece.encode("utf-8", "surrogatepass").translate(_MARKS):
                found += [word for word in piece.split() if len(word) >= _LONG_WORD]
            continue
        marks = piece.encode("ascii").translate(_MARKS)
        at = marks.find(_LONG_RUN)
        while at != -1:
            first = marks.rfind(b" ", 0, at) + 1
            last = marks.find(b" ", at)
            last = len(marks) if last == -1 else last
            word = piece[first:last]
            if _ASCII_DIGIT.search(word) is not None or word.lower() != word != word.upper():
                found.append(word)
            at = marks.find(_LONG_RUN, last)
    return " ".join(found)


_ASCII_DIGIT = re.compile("[0-9]")


def has_long(longs: str, size: int) -> bool:
    """Whether one of :func:`long_words`'s words is ``size`` characters or more."""
    return len(longs) >= size and any(len(word) >= size for word in longs.split(" "))
