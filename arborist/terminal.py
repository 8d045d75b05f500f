"""Text made inert before it reaches a terminal. Pure: no I/O.

Answers, questions, labels, titles, reasons and file names come from users,
documents and model servers; a terminal obeys control characters in them.
``\\x1b]0;...\\x07`` retitles the window, ``\\x1b[2J`` clears the screen,
``\\r`` overwrites what was printed before it, and on many terminals the C1
controls (U+0080-U+009F, e.g. U+009B, a one-character CSI) do the same as
their escape sequences. Every line arborist prints goes through
:func:`inert` (the CLI, the REPL, ``repr()`` of an answer); what is stored
stays exactly as received, because it is committed by hashes.

What :func:`inert` does, character by character:

* C0 controls (U+0000-U+001F) except tab and newline, DEL (U+007F) and the
  C1 controls are shown as visible escapes (``\\x1b``, ``\\r``, ``\\x9b``):
  the reader sees that they were there, and nothing acts on them. ``\\r\\n``
  is a newline.
* Bidirectional overrides, isolates and marks (U+202A-U+202E, U+2066-U+2069,
  U+200E, U+200F, U+061C), which reorder what is shown so that text reads
  differently from what it is, and the line and paragraph separators U+2028
  and U+2029 (a new line to some terminals, none to others) are shown as
  ``\\u202e``-style escapes too.
* Lone surrogates (which no terminal encoding can write) become U+FFFD.
* With ``one_line=True`` every run of whitespace, newlines included,
  becomes one space: for fields printed on one line (labels, titles, errors).

An escape sequence is not parsed, only disarmed: its ESC becomes the four
characters ``\\x1b``, so the rest (``[2J``) is plain text.
"""

from __future__ import annotations

import re

__all__ = ["InertStream", "inert", "inert_json"]

_CONTROL = re.compile(
    "\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED = {"\r": "\\r", "\x00": "\\0", "\x08": "\\b", "\x0b": "\\v", "\x0c": "\\f"}
_WHITESPACE = re.compile(r"\s+")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r\n":
        return "\n"
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def inert(text: str, *, one_line: bool = False) -> str:
    """``text`` with nothing a terminal would act on (see the module docstring)."""
    if one_line:
        text = _WHITESPACE.sub(" ", text).strip()
    if text.isascii() and text.isprintable():
        return text
    return _CONTROL.sub(_escape, text)


class InertStream:
    """Streamed text made inert piece by piece, exactly as :func:`inert` makes the whole.

    A model's answer reaches a terminal in pieces cut anywhere, an escape
    sequence or a ``\\r\\n`` included. :func:`inert` escapes one character at a
    time, so a piece can be made inert alone, with one exception: a ``\\r`` that
    ends a piece may be the start of a ``\\r\\n`` (a newline), so it is held
    back until the next piece says. ``"".join`` of what :meth:`feed` and
    :meth:`close` return is ``inert("".join(pieces))``, and none of it holds a
    character a terminal acts on.
    """

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        """What of the text so far can be shown now, inert."""
        text, self._held = self._held + piece, ""
        if text.endswith("\r"):
            text, self._held = text[:-1], "\r"
        return inert(text)

    def close(self) -> str:
        """Whatever was held back, at the end of the stream, inert."""
        held, self._held = self._held, ""
        return inert(held)


_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def inert_json(encoded: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with every character a
    terminal might act on written as a ``\\uXXXX`` escape: the same data, inert.

    ``json.dumps`` already escapes C0 controls; DEL, the C1 controls, the
    bidirectional overrides and lone surrogates it leaves raw.
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)
