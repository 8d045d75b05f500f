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
* Invisible format characters (Unicode category Cf, :data:`FORMAT_CHARACTERS`):
  the bidirectional overrides, isolates and marks (U+202A-U+202E,
  U+2066-U+2069, U+200E, U+200F, U+061C), which reorder what is shown so that
  text reads differently from what it is; the zero-width space, joiners and
  word joiner (U+200B-U+200D, U+2060-U+2064), the byte-order mark U+FEFF, the
  soft hyphen U+00AD and the tag characters (U+E0000-U+E007F), which hide
  text or make two strings look alike. With the line and paragraph separators
  U+2028 and U+2029 (a new line to some terminals, none to others), and the
  characters that draw nothing though they are no space (:data:`BLANK_CHARACTERS`:
  U+2800, the Hangul fillers), they are shown as ``\\u200b``-style escapes
  (``\\U000e0041`` beyond U+FFFF).
* Lone surrogates (which no terminal encoding can write) become U+FFFD.
* With ``one_line=True`` every run of whitespace, newlines included,
  becomes one space: for fields printed on one line (labels, titles, errors).

An escape sequence is not parsed, only disarmed: its ESC becomes the four
characters ``\\x1b``, so the rest (``[2J``) is plain text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from unicodedata import east_asian_width

__all__ = [
    "ASCII_GUTTER",
    "BLANK_CHARACTERS",
    "FORMAT_CHARACTERS",
    "GUTTER",
    "Gutter",
    "InertStream",
    "TokenPrinter",
    "answer_block",
    "gutter",
    "gutter_mark",
    "inert",
    "inert_json",
]

FORMAT_CHARACTERS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
"""Every character of Unicode category Cf (format: invisible, or acting on the text
around it) as a regex class body: Unicode 15.1's, a superset of older versions'."""

BLANK_CHARACTERS = "\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0"
"""Characters that are neither whitespace nor format characters, yet draw nothing: the
Hangul fillers, the Khmer inherent vowels and the blank Braille pattern U+2800. A run of
them after a question pushes what a line prints next (a turn's ``[NONE]``) off an
80-column screen, and a forged ``[STRICT answered]`` before them reads as the badge."""

_CONTROL = re.compile(
    "\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029"
    f"{FORMAT_CHARACTERS}{BLANK_CHARACTERS}\ud800-\udfff]"
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
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


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
    f"[\x7f-\x9f\u2028\u2029{FORMAT_CHARACTERS}{BLANK_CHARACTERS}\ud800-\udfff]"
)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character beyond U+FFFF as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def inert_json(encoded: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with every character a
    terminal might act on written as a ``\\uXXXX`` escape: the same data, inert.

    ``json.dumps`` already escapes C0 controls; DEL, the C1 controls, the
    format characters (bidirectional overrides, zero-width characters...) and
    lone surrogates it leaves raw.
    """
    return _JSON_UNSAFE.sub(_json_escape, encoded)


GUTTER = "│ "
"""What starts every line of a model's answer at a terminal (see :class:`Gutter`)."""

ASCII_GUTTER = "| "
"""The gutter for an output that cannot encode ``│``."""

_PIECES = re.compile(r"\n|[ \t]|[^ \t\n]+")
_SPACES = ("\n", " ", "\t")
_MIN_WIDTH = 8


def _columns(word: str) -> int:
    """The columns a terminal may give ``word``, never fewer: East Asian wide and full-width
    characters count two, every other (combining marks included) one."""
    if word.isascii():
        return len(word)
    return sum(2 if east_asian_width(char) in "WF" else 1 for char in word)


class Gutter:
    """A model's answer set apart from arborist's own lines: every line, and every row
    it would wrap into at a terminal ``width`` columns wide, starts with ``mark``.

    arborist's own lines around an answer (its bates, ``cache``, ``audit``, the
    REPL's ``[bates  miss  STRICT]``) start in column 0, where no row of an answer
    can: an answer holding ``"\\n\\ncache   hit ..."`` is shown as ``│ cache   hit``.
    A terminal wraps a line longer than its width into column 0 of the next row,
    so with ``width`` given the lines are wrapped here first, between words (a
    word longer than a row is cut), and each row gets the mark. The column count
    is never below what a terminal shows (:func:`_columns`), so a row ends early
    rather than late. An empty line shows the mark alone (without its space).

    Feed it inert text (:func:`inert`) in pieces cut anywhere: ``"".join`` of what
    :meth:`feed` and :meth:`close` return is :func:`gutter` of the whole text. A
    word is held back until what follows it says where the row ends.
    """

    def __init__(self, width: int | None = None, mark: str = GUTTER) -> None:
        self.mark = mark
        self.room = None if width is None else max(width - 1 - len(mark), _MIN_WIDTH)
        self._column = 0  # columns used after the mark on this row
        self._started = False  # the mark of this row is written
        self._word = ""  # the last word fed, held back until what follows it is known
        self._spaces = ""  # the spaces before the next word: shown only if it fits on the row

    def feed(self, text: str) -> str:
        """What of the text so far can be shown now, each row behind the mark."""
        out: list[str] = []
        pending, word, self._word = self._word + text, "", ""
        for piece in _PIECES.findall(pending):
            if piece not in _SPACES:
                word = piece  # a word is followed by a space, a newline or the end of the text
                continue
            if word:
                out.append(self._place(word, last=True))
                word = ""
            if piece == "\n":  # spaces that end a line are not shown
                out.append("" if self._started else self.mark.rstrip())  # an empty line
                out.append("\n")
                self._started, self._column, self._spaces = False, 0, ""
            else:
                self._spaces += piece
        if word:
            if self.room is not None and self._end(word) > self.room:
                out.append(self._place(word, last=False))  # it cannot fit here, however it ends
            else:
                self._word = word
        return "".join(out)

    def close(self) -> str:
        """The word held back, and a newline ending the last row (none after an empty text)."""
        out = self._place(self._word, last=True) if self._word else ""
        if self._spaces and not self._started:  # a last line of spaces: an empty line
            out += self.mark.rstrip()
            self._started = True
        self._word = self._spaces = ""
        if self._started:
            out += "\n"
            self._started, self._column = False, 0
        return out

    def _start(self) -> str:
        """The mark, when this row has none yet."""
        if self._started:
            return ""
        self._started = True
        return self.mark

    def _break(self) -> str:
        self._column = 0
        self._started = True
        return "\n" + self.mark

    def _gap(self) -> int:
        """The columns the held spaces take from here (a tab runs to the next stop of 8)."""
        column = self._column
        for space in self._spaces:
            column += 8 - (len(self.mark) + column) % 8 if space == "\t" else 1
        return column - self._column

    def _end(self, word: str) -> int:
        """The column after the held spaces and ``word``, were they put on this row."""
        return self._column + self._gap() + _columns(word)

    def _place(self, word: str, *, last: bool) -> str:
        """``word`` on this row, or the next when it does not fit; one longer than a row is cut
        into rows (its tail held back, unless ``last``)."""
        out = [self._start()]
        gap, spaces, self._spaces = self._gap(), self._spaces, ""
        if self.room is None:
            self._column += gap + len(word)
            out += [spaces, word]
            return "".join(out)
        end = self._column + gap + _columns(word)
        if end > self.room:  # the spaces are not shown: they end the row, or would leave
            if self._column:  # no room for the word beside them on a row of its own
                out.append(self._break())
        else:
            out.append(spaces)
            self._column += gap
        start = 0
        while (cut := _fit(word, start, self.room - self._column)) < len(word):
            out += [word[start:cut], self._break()]
            start = cut
        word = word[start:]
        if not last and word:
            self._word = word  # the tail may go on in the next piece
            return "".join(out)
        self._column += _columns(word)
        out.append(word)
        return "".join(out)


def _fit(word: str, start: int, room: int) -> int:
    """Where a row of ``room`` columns holding ``word`` from ``start`` ends (at least one
    character on), ``len(word)`` when the rest fits."""
    if word.isascii():
        return min(start + room, len(word))
    used = 0
    for index in range(start, len(word)):
        used += _columns(word[index])
        if used > room:
            return max(index, start + 1)
    return len(word)


def gutter(text: str, width: int | None = None, mark: str = GUTTER) -> str:
    """``text`` (inert) with every line behind ``mark``, wrapped to ``width`` (see
    :class:`Gutter`), without the newline that ends its last line."""
    if not text:
        return ""
    lines = [line.rstrip(" \t") for line in text.removesuffix("\n").split("\n")]
    room = None if width is None else Gutter(width, mark).room
    if room is None or all("\t" not in line and _columns(line) <= room for line in lines):
        # nothing to wrap: each line behind the mark, as Gutter shows it
        return "\n".join(mark + line if line else mark.rstrip() for line in lines)
    set_apart = Gutter(width, mark)
    shown = set_apart.feed(text) + set_apart.close()
    return shown.removesuffix("\n")


def gutter_mark(encoding: str | None) -> str:
    """:data:`GUTTER`, or :data:`ASCII_GUTTER` for an output whose encoding cannot write it."""
    try:
        GUTTER.encode(encoding or "ascii")
    except (LookupError, UnicodeEncodeError):
        return ASCII_GUTTER
    return GUTTER


def answer_block(text: str, *, width: int | None = None, mark: str = GUTTER) -> str:
    """A model's answer as a terminal shows it: inert, every line (and every row it wraps
    into at ``width`` columns) behind ``mark``, so no line of it can pass for one of
    arborist's own (``cache   hit``, ``audit   STRICT``), which start in column 0."""
    return gutter(inert(text), width, mark)


class TokenPrinter:
    """An answer's tokens written to a terminal as the model sends them, each piece inert
    and every line behind the answer's gutter.

    ``write`` writes without a newline and flushes. The pieces pass through
    :class:`InertStream`, so an escape sequence or a ``\\r\\n`` split between two
    pieces reaches the terminal exactly as :func:`inert` shows the whole answer,
    never as a raw control character, then through :class:`Gutter` (``width``: the
    terminal's columns), so no row of the answer starts where arborist's own lines
    do: what is written is :func:`answer_block` of the whole answer. ``text`` is what
    the model sent, to compare with what was stored.
    """

    def __init__(
        self, write: Callable[[str], None], *, width: int | None = None, mark: str = GUTTER
    ) -> None:
        self._write = write
        self._inert = InertStream()
        self._gutter = Gutter(width, mark)
        self._pieces: list[str] = []

    def __call__(self, token: str) -> None:
        self._pieces.append(token)
        shown = self._gutter.feed(self._inert.feed(token))
        if shown:
            self._write(shown)

    @property
    def text(self) -> str:
        return "".join(self._pieces)

    def close(self) -> None:
        """End what streamed with a newline, also when the stream failed half-way, so the
        next line (the citations, or the error) starts on a line of its own."""
        if self._pieces:
            self._write(self._gutter.feed(self._inert.close()) + self._gutter.close())
