"""Accounts written as rows: a sheet's, a browser's or a password manager's export.

Pure: no I/O. :func:`row_candidates` yields ``(kind, start, end)`` for a password in a row of
fields (split by ``,``, ``;``, a tab or ``|``): the field after an e-mail address, or after a
user name in a row that holds a URL (a browser's saved passwords, ``name,url,username,
password``) or, in a short text (a pasted row), in a row of tabs; when it reads as a
password. A data table's fields (a genome build ``GRCh38.p14``, a path) hold a ``.`` or a
``/`` that no field taken here may hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from arborist._gate.values import (
    has_digit,
    random_looking,
    reads_as_password,
)

__all__ = ["row_candidates"]

Candidate = tuple[str, int, int]


def row_candidates(text: str) -> Iterator[Candidate]:
    """Every password this module reads in ``text``'s rows."""
    if "@" in text and ("," in text or "\t" in text or ";" in text):
        yield from _sheet_rows(text)
    if "://" in text and "," in text:
        yield from _account_rows(text, "://", ",")
    if len(text) <= _SHORT_ROWS and text.count("\t") >= 2:
        yield from _account_rows(text, "\t", "\t")


_EMAIL_FIELD = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+")
_SEPARATORS = ",;\t|"
_LOCAL_PART = 65
"""An address's part before ``@`` is 64 characters at most: a row's field holding one opens
that near, and a search further back would read a long line once per ``@``."""


def _sheet_rows(text: str) -> Iterator[Candidate]:
    """The field after an e-mail address in a row of fields, when it reads as a password."""
    at = text.find("@")
    while at != -1:
        reach = max(0, at - _LOCAL_PART)  # a field's start is looked for this far back only
        field_start = max(text.rfind(s, reach, at) + 1 for s in (*_SEPARATORS, "\n"))
        if not field_start and reach:  # no field opens near: the "@" is inside a long word
            at = text.find("@", at + 1)
            continue
        m = _EMAIL_FIELD.match(text, field_start)
        sep = text[m.end() : m.end() + 1] if m is not None else ""
        if m is not None and sep and sep in _SEPARATORS:
            stop = m.end() + 1
            while stop < len(text) and stop < m.end() + 65 and text[stop] not in f"{sep}\n\r":
                stop += 1
            value = text[m.end() + 1 : stop].strip()
            if reads_as_password(value) and random_looking(value) and " " not in value:
                start = text.index(value, m.end() + 1)
                yield "password", start, start + len(value)
        at = text.find("@", at + 1)


_SHORT_ROWS = 1024
"""A text this short (a pasted row, a note) is read for an account in a row of tabs; a longer
one only in rows with a URL: a data table's rows are many, and an account's row is rare."""
_USER = re.compile(r"[a-z][a-z0-9._-]{2,31}")
_STRONG = frozenset("!#$%&*@^~")
_ESCAPED = re.compile(r"%[0-9A-Fa-f]{2}|\\[nrt]")


def _account_rows(text: str, needle: str, sep: str) -> Iterator[Candidate]:
    """The field after a user name in each line holding ``needle``, split by ``sep``."""
    at = text.find(needle)
    done = -1
    while at != -1:
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line_end = len(text) if line_end == -1 else line_end
        if line_start > done:
            yield from _after_user(text, line_start, line_end, sep)
        done = line_start
        at = text.find(needle, line_end)


def _after_user(text: str, start: int, end: int, sep: str) -> Iterator[Candidate]:
    fields = text[start:end].split(sep)
    if len(fields) < 3:
        return
    at = start
    for user, field in pairwise(fields):
        at += len(user) + 1
        value = field.strip()
        if _USER.fullmatch(user.strip()) and _account_password(value):
            first = text.index(value, at)
            yield "password", first, first + len(value)


def _account_password(value: str) -> bool:
    """A field that reads as a password: no ``.``, ``/``, space or escape (a path, a version,
    prose, a line break escaped in a URI or a repr: ``email%0A1``, ``email\\n1``), a digit or
    one of :data:`_STRONG`'s marks, both cases or a mark, random-looking."""
    if not value or any(c in value for c in "./ ") or len(value) < 8 or _ESCAPED.search(value):
        return False
    marked = not _STRONG.isdisjoint(value)
    cased = any(c.islower() for c in value) and any(c.isupper() for c in value)
    typed = reads_as_password(value) or (marked and cased)
    return typed and (has_digit(value) or marked) and random_looking(value)
