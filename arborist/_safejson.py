"""Untrusted bytes, JSON and TOML read with one-line refusals, never a Python error.

A file or argument handed to arborist can be anything: bytes that are not
UTF-8, or JSON or TOML nested 100,000 deep, which ``json`` and ``tomllib``
follow by recursion until Python raises :class:`RecursionError`. Here:

* :func:`decode` turns bytes into text or refuses them as not UTF-8, naming
  the first bad byte and its offset;
* :func:`check_text` refuses text that came from bytes that were not UTF-8
  (a command-line argument or a line typed at a terminal, which Python
  decodes with ``surrogateescape``: ``\\xe9`` arrives as U+DCE9);
* :func:`loads` is :func:`json.loads` refusing nesting deeper than
  :data:`MAX_DEPTH` before it parses (a scan in linear time that skips
  strings), so nothing that reads the value later can recurse that deep
  either; :func:`loads_toml` is the same for TOML. The scan runs at C speed (regular
  expressions, then a running sum): about as long as :func:`json.loads` itself.

Every refusal is a :class:`~arborist._errors.BadInput` whose message is one line.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import accumulate
from typing import Any

from arborist._errors import BadInput

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "MAX_DEPTH",
    "TooDeep",
    "UnreadableJSON",
    "check_text",
    "check_word",
    "decode",
    "json_depth",
    "loads",
    "loads_toml",
]

MAX_DEPTH = 100
"""The deepest nesting of arrays and objects (tables) accepted: an export line, a
notebook or a config file needs a dozen at most."""


class UnreadableJSON(json.JSONDecodeError, BadInput):
    """JSON that :func:`json.loads` would not read without a Python error: a
    :class:`json.JSONDecodeError` as well as a :class:`BadInput`, so code that refuses
    malformed JSON refuses this alike. Its message is what is wrong, without a position."""

    def __str__(self) -> str:
        return self.msg


class TooDeep(UnreadableJSON):
    """JSON nested deeper than :data:`MAX_DEPTH`."""


_JSON_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_TOML_SKIPPED = re.compile(
    r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'  # multi-line basic string
    r"|'''.*?'''"  # multi-line literal string
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'  # basic string
    r"|'[^'\n]*'"  # literal string
    r"|#[^\n]*",  # comment
    re.DOTALL,
)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}.__getitem__


def _depth(skipped: re.Pattern[str], text: str, limit: int) -> int:
    """The deepest nesting of brackets and braces in ``text`` outside what ``skipped``
    matches (strings, comments), in linear time at C speed: the running sum of +1 per
    opening and -1 per closing. A parser is never deeper than that sum before its first
    error (a closing too many is one), so it never recurses deeper than this says."""
    if text.count("[") + text.count("{") <= limit:  # cannot nest deeper: no scan
        return 0
    brackets = _NOT_BRACKETS.sub("", skipped.sub("", text))
    return max(accumulate(map(_STEP, brackets)), default=0)


def _line_of(skipped: re.Pattern[str], text: str, limit: int) -> int:
    """The line on which ``text`` first nests deeper than ``limit`` (for the message)."""
    depth, line, position = 0, 1, 0
    for match in re.finditer(rf"{skipped.pattern}|[\[\]{{}}\n]", text, re.DOTALL):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return line + text.count("\n", position, match.start())
        elif token in "]}":
            depth -= 1
        elif token == "\n":
            line += 1
        else:
            line += token.count("\n")
        position = match.end()
    return line  # pragma: no cover - only called once the depth is known to exceed


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in JSON ``text`` (0: none, or at most
    :data:`MAX_DEPTH` openings in all), counted up to one past :data:`MAX_DEPTH`."""
    return _depth(_JSON_STRINGS, text, MAX_DEPTH)


def loads(text: str | bytes) -> Any:
    """:func:`json.loads`, refusing nesting deeper than :data:`MAX_DEPTH` with
    :class:`TooDeep` and an integer Python will not convert (over 4,300 digits) with
    :class:`UnreadableJSON` (each also a :class:`json.JSONDecodeError` and a :class:`BadInput`).

    Malformed JSON raises :class:`json.JSONDecodeError` as :func:`json.loads` does;
    bytes that are not UTF-8, :class:`BadInput`.
    """
    if isinstance(text, (bytes, bytearray)):
        text = decode(bytes(text), "the JSON")
    if _depth(_JSON_STRINGS, text, MAX_DEPTH) > MAX_DEPTH:
        raise TooDeep(f"nested deeper than {MAX_DEPTH} levels", text, 0)
    try:
        return json.loads(text)
    except RecursionError:  # pragma: no cover - the scan above refuses first
        raise TooDeep(f"nested deeper than {MAX_DEPTH} levels", text, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise UnreadableJSON(
            f"a number too long to read ({str(exc).split(';')[0]})", text, 0
        ) from None


def loads_toml(text: str, what: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, or a one-line :class:`BadInput` naming ``what`` (a path):
    not TOML, or nested deeper than :data:`MAX_DEPTH`."""
    if _depth(_TOML_SKIPPED, text, MAX_DEPTH) > MAX_DEPTH:
        line = _line_of(_TOML_SKIPPED, text, MAX_DEPTH)
        raise BadInput(
            f"{what} is not valid TOML: nested deeper than {MAX_DEPTH} levels (line {line})"
        )
    try:
        parsed: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{what} is not valid TOML: {' '.join(str(exc).split())}") from exc
    except RecursionError:  # pragma: no cover - the scan above refuses first
        raise BadInput(f"{what} is not valid TOML: nested too deeply") from None
    return parsed


def decode(data: bytes, what: str) -> str:
    """``data`` as UTF-8 text, or a one-line :class:`BadInput` naming ``what`` and the
    first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        raise BadInput(
            f"{what}: not UTF-8 text (byte 0x{byte:02x} at offset {exc.start})"
        ) from None


_ESCAPED = re.compile("[\ud800-\udfff]")


def check_text(text: str, what: str) -> str:
    """``text``, or a one-line :class:`BadInput` when it holds a lone surrogate: bytes that
    were not UTF-8 (an argument, a typed line) decoded with ``surrogateescape``. The
    message shows them as ``\\xe9`` so the reader can find them."""
    if _ESCAPED.search(text) is None:
        return text
    shown = text.encode("utf-8", "surrogateescape" if _only_escapes(text) else "replace")
    readable = shown.decode("utf-8", "backslashreplace")
    if len(readable) > 80:
        readable = readable[:77] + "..."
    raise BadInput(f"{what}: not UTF-8 text ({readable})")


def check_word(word: str, what: str) -> str:
    """A command's word (an argument, a REF, a path): UTF-8 text (:func:`check_text`) without
    a NUL, which no path, reference or name holds (the operating system refuses it)."""
    check_text(word, what)
    if "\x00" in word:
        raise BadInput(f"{what}: holds a NUL character, which no path or name can")
    return word


def _only_escapes(text: str) -> bool:
    return all(0xDC80 <= ord(char) <= 0xDCFF for char in _ESCAPED.findall(text))
