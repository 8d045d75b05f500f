"""The one text form arborist hashes: how foreign bytes are decoded, and how the text is normalized.

Loading is the edge where foreign bytes become arborist text, so everything
that makes two loads of the same bytes agree happens here and nowhere else:
decoding (UTF-8, or an HTML page's declared charset), NFC, ``\\n`` newlines,
no trailing spaces, no control characters. Chunk leaves are hashed from this
text, and rehydration (:func:`~arborist._store.fetch.refetch`) re-derives it
from the URI and must land on the same leaves, so the rules below are part of
a document's identity.

Bytes that cannot be decoded are refused (``BadInput`` naming the file or
URL), never guessed at: a guess could differ between two loads.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from contextlib import suppress

from arborist._errors import BadInput, NotText

__all__ = [
    "decode_html",
    "decode_text",
    "normalize_owned",
    "normalize_text",
    "replace_surrogates",
]

# WHATWG's encoding standard decodes these labels as windows-1252, as every browser does:
# pages that say "iso-8859-1" routinely hold 0x80-0x9f smart quotes.
_WINDOWS_1252_LABELS = frozenset(
    {"ascii", "us-ascii", "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1"}
)
# Codecs Python knows that no web page is written in; a declaration naming one is ignored.
_NOT_PAGE_CODECS = frozenset(
    {"unicode-escape", "raw-unicode-escape", "idna", "punycode", "utf-7", "undefined"}
)
_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.I
)

_SURROGATES = re.compile("[\ud800-\udfff]")
# C0 controls except tab and newline, and DEL: terminal escapes and NULs are not document text.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


# --- decoding --------------------------------------------------------------------------------


def decode_text(data: bytes, label: str, declared: str | None) -> str:
    """Decode with the declared charset, then UTF-8 (BOM stripped); refuse binary or undecodable bytes."""
    text = None
    codec = _usable_codec(declared)
    if codec and codec != "utf-8":
        with suppress(UnicodeError, LookupError):  # a wrong declaration falls back to UTF-8
            text = data.decode(codec)
    if text is None:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            tried = f"as {declared} or " if codec and codec != "utf-8" else ""
            raise NotText(
                label,
                f"not UTF-8 text: cannot decode {tried}UTF-8 "
                f"(byte 0x{data[exc.start]:02x} at offset {exc.start})",
            ) from exc
    if "\x00" in text:  # after decoding: UTF-16 text is full of NUL bytes, but not of NULs
        raise NotText(label, "contains NUL bytes (binary, not text)")
    return text


def decode_html(data: bytes, label: str, declared: str | None) -> str:
    """A BOM wins, then the HTTP charset, then a ``<meta>`` charset, then UTF-8 (WHATWG's order)."""
    for bom, bom_codec in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(bom_codec)
            except UnicodeDecodeError as exc:
                raise BadInput(
                    f"{label}: not {bom_codec.upper()} text despite its byte-order mark"
                ) from exc
    charset = declared
    if not charset:
        meta = _META_CHARSET.search(data[:4096])
        charset = meta.group(1).decode("ascii") if meta else None
        if charset and charset.lower().startswith(("utf-16", "utf-32")):
            charset = "utf-8"  # a page whose <meta> is readable as ASCII is not UTF-16 (WHATWG)
    codec = _usable_codec(charset)
    if codec:
        with suppress(UnicodeError, LookupError):  # a wrong declaration falls back to UTF-8
            return data.decode(codec)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        tried = f"as {charset} or " if codec else ""
        raise BadInput(
            f"{label}: cannot decode HTML {tried}UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc


def _usable_codec(declared: str | None) -> str | None:
    """Python's codec name for a declared charset, or None when it is unknown or no page codec."""
    if not declared:
        return None
    label = declared.strip().lower()
    if label in _WINDOWS_1252_LABELS:
        return "cp1252"
    try:
        info = codecs.lookup(label)
    except LookupError:
        return None
    if not getattr(info, "_is_text_encoding", True):  # hex, base64, zlib, rot13, ...
        return None
    return None if info.name in _NOT_PAGE_CODECS else info.name


# --- normalization ---------------------------------------------------------------------------


def normalize_text(text: str) -> str:
    """Return ``text`` in the one form arborist hashes, so equal content always hashes equal.

    Lone surrogates (possible from JSON escapes) become U+FFFD, since they cannot
    be encoded as UTF-8; U+FEFF goes (a BOM, or a deprecated invisible
    no-break); CRLF and CR become LF; control
    characters other than tab and newline go; then NFC; then trailing whitespace
    of every line and leading/trailing blank lines go. Idempotent.
    """
    return normalize_owned([text])


def replace_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD: it cannot be encoded as UTF-8
    (nor handed to a parser that encodes it)."""
    return _SURROGATES.sub("\ufffd", text)


_PIECE_CHARS = 1 << 20
"""Normalization works on pieces of about this many characters, each ending after a newline."""


def normalize_owned(box: list[str]) -> str:
    """:func:`normalize_text` of the one string in ``box``, which it takes out.

    A text with nothing to change but blank lines at its ends (most files) is
    returned as it is, or stripped of them. Otherwise memory stays within two
    copies of the text: the text is cut into pieces at newlines (nothing in the rules reaches across one: CR and LF are NFC starters
    that compose with nothing, and a line never spans two pieces), the original
    is let go, each piece is replaced by its normalized form, and the pieces are
    joined once. A caller that hands over its only reference (a decoded file)
    never holds the original beside the result.
    """
    text = box.pop()
    if len(text) > _PIECE_CHARS and _only_blank_ends_to_trim(text):
        return text.strip("\n")  # the text itself when there are none: no copy at all
    pieces = _cut_at_newlines(text)
    del text
    for i in range(len(pieces)):
        piece, pieces[i] = pieces[i], ""
        pieces[i] = _normalize_piece(piece)
    # Leading and trailing blank lines: every line is already rstripped, so they are
    # the newlines at either end.
    while pieces and not pieces[0].lstrip("\n"):
        pieces.pop(0)
    if pieces:
        pieces[0] = pieces[0].lstrip("\n")
    while pieces and not pieces[-1].rstrip("\n"):
        pieces.pop()
    if pieces:
        pieces[-1] = pieces[-1].rstrip("\n")
    return pieces[0] if len(pieces) == 1 else "".join(pieces)


_LINE_END_SPACES = (
    "\t\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Every character that ``str.isspace()`` is true of but ``\\n``: what ``rstrip()`` takes
from the end of a line."""
_CONTROL_CHARS = "".join(map(chr, [*range(0x09), *range(0x0B, 0x20), 0x7F]))


def _only_blank_ends_to_trim(text: str) -> bool:
    """Whether :func:`normalize_text` of ``text`` is ``text.strip("\\n")``: no rule but
    the one on leading and trailing blank lines has anything to change.

    Most files are like this (UTF-8, ``\\n`` newlines, no trailing spaces), and
    this finds it without copying the text, cheapest tests first.
    """
    if "\r" in text or "\ufeff" in text:
        return False
    if text.isascii():  # no surrogates and nothing NFC changes; tab and space the only spaces
        if any(c in text for c in _CONTROL_CHARS):
            return False
        return not (" \n" in text or "\t\n" in text or text.endswith((" ", "\t")))
    if _SURROGATES.search(text) or _CONTROLS.search(text):
        return False
    if not unicodedata.is_normalized("NFC", text):
        return False
    return not any(c in text and (c + "\n" in text or text.endswith(c)) for c in _LINE_END_SPACES)


def _cut_at_newlines(text: str) -> list[str]:
    """``text`` as consecutive pieces of about :data:`_PIECE_CHARS`, each but the last
    ending with ``\\n`` (a piece holding one long line is as long as that line)."""
    if len(text) <= _PIECE_CHARS:
        return [text]
    pieces: list[str] = []
    start = 0
    while start < len(text):
        newline = text.find("\n", start + _PIECE_CHARS)
        end = len(text) if newline == -1 else newline + 1
        pieces.append(text[start:end])
        start = end
    return pieces


def _normalize_piece(piece: str) -> str:
    """The per-character and per-line rules of :func:`normalize_text` on one piece.

    Each step lets go of the string before it (most return it unchanged, no copy).
    """
    piece = replace_surrogates(piece)
    piece = piece.replace("\ufeff", "")
    piece = piece.replace("\r\n", "\n")
    piece = piece.replace("\r", "\n")
    piece = _CONTROLS.sub("", piece)
    piece = unicodedata.normalize("NFC", piece)
    return "\n".join([line.rstrip() for line in piece.split("\n")])
