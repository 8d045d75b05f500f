"""Turn files, folders and URLs into :class:`LoadedDocument`: text, title and the bytes' hash.

Loading is the edge where foreign bytes become arborist text, so everything
that makes two loads of the same bytes agree happens here and nowhere else:
decoding (UTF-8, or an HTML page's declared charset), NFC, ``\\n`` newlines,
no trailing spaces, no control characters. Chunk leaves are hashed from this
text, and rehydration (:func:`refetch`) re-derives it from the URI and must
land on the same leaves, so the rules below are part of a document's identity.

Every failure is one ``ArboristError`` with a one-line message naming the
file or URL: :class:`~arborist.errors.NotFound` for a path or page that is
not there, :class:`~arborist.errors.BadInput` for everything that can never
load (unsupported type, undecodable text, corrupt PDF, malformed notebook,
network failure). Parsers of untrusted formats (pypdf) fail in open-ended
ways; their errors are translated at this boundary, never leaked.

Formats keep their structure as plain text a chunker can read: headings on
their own lines (markdown ``#`` lines as written, HTML headings rendered as
``#``-prefixed lines), paragraphs separated by blank lines.
"""

from __future__ import annotations

import codecs
import fnmatch
import hashlib
import io
import json
import logging
import os
import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import httpx
from pypdf import PdfReader
from pypdf.errors import DependencyError
from selectolax.lexbor import LexborHTMLParser, LexborNode

from arborist.errors import ArboristError, BadInput, NotFound

__all__ = [
    "LoadedDocument",
    "MAX_FETCH_BYTES",
    "MAX_TITLE_CHARS",
    "MEDIA_TYPES",
    "SUPPORTED_SUFFIXES",
    "discover",
    "fetch_url",
    "load_bytes",
    "load_path",
    "normalize_text",
    "refetch",
]

log = logging.getLogger(__name__)

SUPPORTED_SUFFIXES = (".txt", ".md", ".rst", ".html", ".htm", ".ipynb", ".pdf", ".py")

MEDIA_TYPES = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".rst": "text/x-rst",
    ".html": "text/html",
    ".htm": "text/html",
    ".ipynb": "application/x-ipynb+json",
    ".pdf": "application/pdf",
    ".py": "text/x-python",
}
"""File suffix → the media type a document loaded from it declares."""

MAX_FETCH_BYTES = 50 * 1024 * 1024
"""Largest body :func:`fetch_url` accepts (after decompression, so a gzip bomb stops here too)."""

MAX_TITLE_CHARS = 200
"""Titles are labels in listings and citations; a hostile 1 MB ``<title>`` is cut to this."""

SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
"""Folder names :func:`discover` never enters, besides every hidden (dot) folder."""

_TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-rst", "text/x-python"})

# HTTP Content-Type → media type. Generic types (text/plain, octet-stream, none)
# defer to the URL's suffix first: raw file hosts serve .md, .ipynb, even .html as text/plain.
_CONTENT_TYPES = {
    "text/html": "text/html",
    "application/xhtml+xml": "text/html",
    "text/markdown": "text/markdown",
    "text/x-markdown": "text/markdown",
    "text/x-rst": "text/x-rst",
    "text/prs.fallenstein.rst": "text/x-rst",
    "text/x-python": "text/x-python",
    "text/x-script.python": "text/x-python",
    "application/x-python": "text/x-python",
    "application/pdf": "application/pdf",
    "application/x-ipynb+json": "application/x-ipynb+json",
}
_GENERIC_CONTENT_TYPES = frozenset(
    {"", "text/plain", "application/octet-stream", "binary/octet-stream"}
)
_JSON_CONTENT_TYPES = frozenset({"application/json", "text/json"})

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
_CONTENT_TYPE_CHARSET = re.compile(r"""charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})""", re.I)

_SURROGATES = re.compile("[\ud800-\udfff]")
# C0 controls except tab and newline, and DEL: terminal escapes and NULs are not document text.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class LoadedDocument:
    """One loaded source: what the store chunks, hashes and cites.

    ``uri`` is ``file:///abs/path``, the http(s) URL as given, or ``pydoc:<module>``;
    ``content_sha256`` is the hash of the raw bytes loaded (the same bytes twice
    are one document), ``text`` the normalized text the chunk leaves come from.
    """

    uri: str
    title: str
    text: str
    media_type: str
    content_sha256: str


# --- text normalization ----------------------------------------------------------------------


def normalize_text(text: str) -> str:
    """Return ``text`` in the one form arborist hashes, so equal content always hashes equal.

    Lone surrogates (possible from JSON escapes) become U+FFFD, since they cannot
    be encoded as UTF-8; U+FEFF goes (a BOM, or a deprecated invisible
    no-break); CRLF and CR become LF; control
    characters other than tab and newline go; then NFC; then trailing whitespace
    of every line and leading/trailing blank lines go. Idempotent.
    """
    return _normalize_owned([text])


_PIECE_CHARS = 1 << 20
"""Normalization works on pieces of about this many characters, each ending after a newline."""


def _normalize_owned(box: list[str]) -> str:
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
    piece = _SURROGATES.sub("\ufffd", piece)
    piece = piece.replace("\ufeff", "")
    piece = piece.replace("\r\n", "\n")
    piece = piece.replace("\r", "\n")
    piece = _CONTROLS.sub("", piece)
    piece = unicodedata.normalize("NFC", piece)
    return "\n".join([line.rstrip() for line in piece.split("\n")])


def _clean_title(title: str | None) -> str:
    """One line of at most MAX_TITLE_CHARS characters, or ``""``."""
    if not title:
        return ""
    line = " ".join(normalize_text(title).split())
    if len(line) > MAX_TITLE_CHARS:
        line = line[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    return line


def _one_line(message: object) -> str:
    return " ".join(str(message).split())


def _label(uri: str) -> str:
    """How error messages name a source: a local path for ``file:`` URIs, else the URI."""
    if uri.startswith("file:"):
        return _path_from_file_uri(uri)
    return uri


def _path_from_file_uri(uri: str) -> str:
    parts = urlsplit(uri)
    if parts.netloc not in ("", "localhost"):
        raise BadInput(f"{uri}: file URI on another host ({parts.netloc})")
    return url2pathname(parts.path)


# --- discovery -------------------------------------------------------------------------------


def discover(
    paths: Sequence[str | Path], include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> list[Path]:
    """Expand files and folders into the files to load, in a deterministic order.

    Folders are walked recursively and keep only files with a supported suffix,
    sorted by their path relative to the folder; hidden files and folders,
    ``node_modules`` and ``__pycache__`` are skipped, and a symlinked folder is
    entered once (a loop cannot recurse). A file named explicitly must have a
    supported suffix (else ``BadInput``), hidden or not. A missing path is
    ``NotFound``.

    ``include`` and ``exclude`` are fnmatch globs, each tried against both the
    file's path relative to the folder given (``docs/api/intro.md``; ``*``
    crosses ``/``) and its bare name (``intro.md``). A file is kept when no
    include is given or one matches, and no exclude matches. An exclude that
    matches a folder's relative path or name prunes the whole folder. Files
    named explicitly are filtered by their name and the path as given.

    The result keeps the order of ``paths`` and lists each file once.
    """
    found: list[Path] = []
    seen: set[Path] = set()

    def keep(rel: str, name: str) -> bool:
        if include and not _matches(include, rel, name):
            return False
        return not _matches(exclude, rel, name)

    for given in paths:
        root = Path(given)
        if not root.exists():
            raise NotFound(f"{given}: no such file or folder")
        if root.is_dir():
            candidates = _walk_folder(root, exclude)
        else:
            if root.suffix.lower() not in SUPPORTED_SUFFIXES:
                raise BadInput(_unsupported(str(given), root.suffix))
            candidates = [root] if keep(str(given), root.name) else []
        for path in candidates:
            if path != root and not keep(path.relative_to(root).as_posix(), path.name):
                continue
            real = path.resolve()
            if real not in seen:
                seen.add(real)
                found.append(path)
    return found


def _matches(patterns: Sequence[str], rel: str, name: str) -> bool:
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _unsupported(label: str, suffix: str) -> str:
    what = f"'{suffix}'" if suffix else "(no suffix)"
    return f"{label}: unsupported file type {what}; supported: {' '.join(SUPPORTED_SUFFIXES)}"


def _walk_folder(root: Path, exclude: Sequence[str]) -> list[Path]:
    """Supported files under ``root``, sorted by relative path; each real folder entered once."""
    files: list[Path] = []
    entered: set[tuple[int, int]] = set()

    def refuse(exc: OSError) -> NoReturn:
        raise BadInput(f"{exc.filename}: cannot read folder: {exc.strerror}") from exc

    for dirpath, dirnames, filenames in os.walk(root, onerror=refuse, followlinks=True):
        here = Path(dirpath)
        try:
            st = here.stat()
        except OSError as exc:  # vanished or unreadable since it was listed
            refuse(exc)
        if (st.st_dev, st.st_ino) in entered:
            dirnames[:] = []
            continue
        entered.add((st.st_dev, st.st_ino))
        kept_dirs = []
        for d in sorted(dirnames):  # a sorted walk decides deterministically which link path wins
            if d.startswith(".") or d in SKIPPED_DIRS:
                continue
            rel = (here / d).relative_to(root).as_posix()
            if not _matches(exclude, rel, d):
                kept_dirs.append(d)
        dirnames[:] = kept_dirs
        for name in filenames:
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            if path.is_file():  # not a broken symlink, fifo or socket
                files.append(path)
    files.sort(key=lambda p: p.relative_to(root).parts)
    return files


# --- loading ---------------------------------------------------------------------------------


def load_path(path: Path) -> LoadedDocument:
    """Load one file; its URI is the absolute, resolved ``file://`` URI."""
    path = Path(path)
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise BadInput(_unsupported(str(path), path.suffix))
    try:
        box = [path.read_bytes()]
    except FileNotFoundError as exc:
        raise NotFound(f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise BadInput(f"{path}: is a folder, not a file") from exc
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror or _one_line(exc)}") from exc
    return _load_owned(box, uri=path.resolve().as_uri(), name=path.name)


def load_bytes(
    data: bytes,
    *,
    uri: str,
    name: str,
    media_type: str | None = None,
    charset: str | None = None,
) -> LoadedDocument:
    """Parse ``data`` as one document: the single parsing entry point for files and URLs.

    The media type is ``media_type`` if given, else the one of ``name``'s suffix;
    ``name`` is also the title when the content has none. ``charset`` is a
    declared encoding (an HTTP ``Content-Type`` parameter); text falls back to
    UTF-8 and, failing that, is refused rather than guessed.
    """
    return _load_owned([data], uri=uri, name=name, media_type=media_type, charset=charset)


def _load_owned(
    box: list[bytes],
    *,
    uri: str,
    name: str,
    media_type: str | None = None,
    charset: str | None = None,
) -> LoadedDocument:
    """:func:`load_bytes` of the bytes in ``box``, which it takes out.

    Text formats hash the bytes, decode them and let them go before normalizing,
    so when the caller handed over its only reference (:func:`load_path`,
    :func:`fetch_url`) a text file never costs more than two copies of itself.
    """
    data = box.pop()
    label = _label(uri)
    if media_type is None:
        suffix = Path(name).suffix.lower()
        if suffix not in MEDIA_TYPES:
            raise BadInput(_unsupported(label, suffix))
        media_type = MEDIA_TYPES[suffix]
    if media_type not in MEDIA_TYPES.values():
        raise BadInput(f"{label}: unsupported media type {media_type!r}")
    content_sha256 = hashlib.sha256(data).hexdigest()
    if media_type == "application/pdf":
        title, text = _load_pdf(data, label)
    elif media_type == "text/html":
        title, text = _load_html(data, label, charset)
    elif media_type == "application/x-ipynb+json":
        title, text = _load_notebook(data, label)
    else:
        decoded = [_decode_text(data, label, charset)]
        del data
        text = _normalize_owned(decoded)
        title = _text_title(media_type, text)
    if not text or text.isspace():  # not text.strip(), which may copy it
        raise BadInput(f"{label}: has no text")
    return LoadedDocument(
        uri=uri,
        title=_clean_title(title) or _clean_title(name) or label,
        text=text,
        media_type=media_type,
        content_sha256=content_sha256,
    )


def _decode_text(data: bytes, label: str, declared: str | None) -> str:
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
            raise BadInput(
                f"{label}: not UTF-8 text: cannot decode {tried}UTF-8 "
                f"(byte 0x{data[exc.start]:02x} at offset {exc.start})"
            ) from exc
    if "\x00" in text:  # after decoding: UTF-16 text is full of NUL bytes, but not of NULs
        raise BadInput(f"{label}: contains NUL bytes (binary, not text)")
    return text


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


# --- plain text, markdown, reStructuredText, Python ------------------------------------------

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT_H1 = re.compile(r"^ {0,3}=+[ \t]*$")
_FRONT_MATTER_END = re.compile(r"\n(?:---|\.\.\.)(?:\n|\Z)")
_RST_ADORNMENT = re.compile(r"""^([!-/:-@\[-`{-~])\1{2,}$""")
_PY_DOCSTRING = re.compile(r"""[ \t]*[rRuU]?(\"\"\"|'''|"|')(.*?)\1""", re.S)


def _text_title(media_type: str, text: str) -> str:
    if media_type == "text/markdown":
        return _markdown_title(text)
    if media_type == "text/x-rst":
        return _rst_title(text)
    if media_type == "text/x-python":
        return _python_title(text)
    return ""


def _lines(text: str, start: int = 0, end: int | None = None) -> Iterator[str]:
    """``text[start:end].split("\\n")``, one line at a time: a title is usually near the
    top, and a long file is never split whole to find it."""
    stop = len(text) if end is None else end
    while True:
        newline = text.find("\n", start, stop)
        if newline == -1:
            yield text[start:stop]
            return
        yield text[start:newline]
        start = newline + 1


def _markdown_title(text: str) -> str:
    """The first level-1 heading (ATX ``# x`` or setext ``x`` over ``===``), else the first heading.

    Headings inside fenced code blocks (a shell ``# comment``) and YAML front
    matter are not headings.
    """
    lines: Iterator[str] = _lines(text)
    if text.startswith("---\n"):  # front matter runs to the next '---' (or '...') line
        close = _FRONT_MATTER_END.search(text, 3)
        if close is not None:
            lines = _lines(text, close.end()) if close.group().endswith("\n") else iter(())
    first_any = ""
    in_fence = ""
    previous = ""
    for line in lines:
        fence = _FENCE.match(line)
        if fence:
            if not in_fence:
                in_fence = fence.group(1)
            elif fence.group(1) == in_fence:
                in_fence = ""
            previous = ""
            continue
        if in_fence:
            continue
        atx = _ATX.match(line)
        if atx:
            if len(atx.group(1)) == 1:
                return atx.group(2)
            first_any = first_any or atx.group(2)
        elif _SETEXT_H1.match(line) and previous.strip() and not previous.startswith("    "):
            return previous
        previous = line
    return first_any


def _rst_title(text: str) -> str:
    """The first section title: a text line underlined (and maybe overlined) with one repeated mark."""
    lines = _lines(text)
    above: str | None = None
    line = next(lines)
    for following in lines:
        below = following.strip()
        title = line.strip()
        overlined = above is not None and bool(_RST_ADORNMENT.match(above.strip()))
        if (
            title
            and (overlined or not line[0].isspace())  # an overlined title may be inset
            and not title.startswith(".. ")
            and not _RST_ADORNMENT.match(title)
            and _RST_ADORNMENT.match(below)
        ):
            return title
        above, line = line, following
    return ""


def _python_title(text: str) -> str:
    """The first non-empty line of the module docstring (after a shebang, coding line, comments)."""
    start = 0
    for line in _lines(text):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        start += len(line) + 1
    match = _PY_DOCSTRING.match(text, start)
    if not match:
        return ""
    body_start, body_end = match.span(2)
    return next((line.strip() for line in _lines(text, body_start, body_end) if line.strip()), "")


# --- HTML ------------------------------------------------------------------------------------

_DROPPED_TAGS = frozenset(
    {"script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object", "embed", "canvas"}
)  # fmt: skip
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details",
        "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header",
        "hgroup", "hr", "html", "legend", "li", "main", "menu", "nav", "ol", "p", "section",
        "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
    }
)  # fmt: skip
_HEADING_TAGS = {f"h{n}": n for n in range(1, 7)}
_CELL_TAGS = frozenset({"td", "th"})


def _load_html(data: bytes, label: str, declared: str | None) -> tuple[str, str]:
    text = _decode_html(data, label, declared)
    # NUL is a parse error in HTML, never text (WHATWG drops or replaces it); so are surrogates.
    tree = LexborHTMLParser(_SURROGATES.sub("\ufffd", text.replace("\x00", "")))
    title = ""
    head = tree.head
    node = head.css_first("title") if head is not None else None
    if node is not None:
        title = node.text(deep=True) or ""
    if not title.strip():
        h1 = tree.css_first("h1")
        title = (h1.text(deep=True) or "") if h1 is not None else ""
    root = tree.root
    body = _HtmlText().render(root) if root is not None else ""
    return title, normalize_text(body)


def _decode_html(data: bytes, label: str, declared: str | None) -> str:
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


class _HtmlText:
    """Render a parsed page as paragraphs: an explicit-stack walk, so nesting depth is never a limit."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.buffer: list[str] = []
        self.pre_depth = 0
        self.heading = 0
        self.list_item = False

    def render(self, root: LexborNode) -> str:
        stack: list[tuple[LexborNode, bool]] = [(root, False)]
        while stack:
            node, leaving = stack.pop()
            tag = node.tag or ""
            if leaving:
                self._leave(tag)
            elif node.is_text_node:
                self.buffer.append(node.text_content or "")
            elif node.is_element_node and tag not in _DROPPED_TAGS:
                self._enter(tag)
                stack.append((node, True))
                children = list(node.iter(include_text=True))
                stack.extend((child, False) for child in reversed(children))
        self._flush()
        return "\n\n".join(self.blocks)

    def _enter(self, tag: str) -> None:
        if self.heading:  # a heading is one line whatever it contains
            if tag == "br" or tag in _BLOCK_TAGS:
                self.buffer.append(" ")
            return
        if self.pre_depth and tag != "pre":
            return  # preformatted text flows as written, whatever wraps it
        if tag in _HEADING_TAGS:
            self._flush()
            self.heading = _HEADING_TAGS[tag]
        elif tag == "pre":
            if not self.pre_depth:
                self._flush()
            self.pre_depth += 1
        elif tag in _BLOCK_TAGS:
            self._flush()
            if tag == "li":
                self.list_item = True
        elif tag == "br":
            self.buffer.append("\n")

    def _leave(self, tag: str) -> None:
        if self.pre_depth and tag != "pre":
            return
        if tag in _HEADING_TAGS and self.heading == _HEADING_TAGS[tag]:
            self._flush()
            self.heading = 0
        elif self.heading:
            if tag in _CELL_TAGS or tag in _BLOCK_TAGS:
                self.buffer.append(" ")
        elif tag == "pre":
            self.pre_depth -= 1
            if not self.pre_depth:
                self._flush(pre=True)
        elif tag in _CELL_TAGS:
            self.buffer.append(" ")
        elif tag in _BLOCK_TAGS:
            self._flush()
            if tag == "li":
                self.list_item = False  # an empty item must not mark the next paragraph

    def _flush(self, *, pre: bool = False) -> None:
        raw = "".join(self.buffer)
        self.buffer.clear()
        if self.heading:
            text = " ".join(raw.split())
            if text:
                self.blocks.append("#" * self.heading + " " + text)
            return
        if pre:
            text = normalize_text(raw)
        else:
            lines = (" ".join(line.split()) for line in raw.split("\n"))
            text = "\n".join(line for line in lines if line)
        if text:
            if self.list_item:
                text = "- " + text
                self.list_item = False
            self.blocks.append(text)


# --- notebooks -------------------------------------------------------------------------------


def _load_notebook(data: bytes, label: str) -> tuple[str, str]:
    """Markdown and code cells in order as plain text, a blank line between cells; outputs skipped."""
    try:
        notebook = json.loads(_decode_text(data, label, None))
    except (ValueError, RecursionError) as exc:  # ValueError: also an integer of 4300+ digits
        raise BadInput(f"{label}: malformed notebook JSON: {_one_line(exc)}") from exc
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise BadInput(f"{label}: not a Jupyter notebook (nbformat 4 with a 'cells' list)")
    parts: list[str] = []
    title = ""
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise BadInput(f"{label}: cell {index} is not an object")
        kind = cell.get("cell_type")
        if kind not in ("markdown", "code"):
            continue  # raw cells and unknown kinds carry no prose
        source = _cell_source(cell.get("source", ""), label, index)
        text = normalize_text(source)
        if not text:
            continue
        if kind == "markdown" and not title:
            title = _markdown_title(text)
        parts.append(text)
    if not title:
        metadata = notebook.get("metadata")
        meta_title = metadata.get("title") if isinstance(metadata, dict) else None
        title = meta_title if isinstance(meta_title, str) else ""
    return title, "\n\n".join(parts)


def _cell_source(source: Any, label: str, index: int) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    raise BadInput(f"{label}: cell {index} has a source that is neither text nor a list of text")


# --- PDF -------------------------------------------------------------------------------------

_PYPDF_LOCK = threading.Lock()


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def _pypdf_messages(label: str) -> Iterator[None]:
    """Keep pypdf's log chatter about repaired PDFs off the user's terminal.

    pypdf reports what it repaired ("Ignoring wrong pointing object ...")
    through the ``pypdf`` logger; with logging unconfigured Python prints those
    on stderr, mid progress bar. While we parse, they go to a handler of our
    own instead of propagating, and come back out at DEBUG on this module's
    logger, naming the file. A lock keeps two threads from racing on the
    logger's ``propagate`` flag.
    """
    logger = logging.getLogger("pypdf")
    collect = _Collect()
    with _PYPDF_LOCK:
        propagate = logger.propagate
        logger.addHandler(collect)
        logger.propagate = False
        try:
            yield
        finally:
            logger.propagate = propagate
            logger.removeHandler(collect)
    for record in collect.records:
        log.debug("%s: pypdf: %s", label, record.getMessage())


def _load_pdf(data: bytes, label: str) -> tuple[str, str]:
    """Every page's text, pages separated by blank lines; title from /Title or the first line."""
    if b"%PDF-" not in data[:1024]:  # readers accept junk before the header, within 1 KiB
        raise BadInput(f"{label}: not a PDF (no %PDF- header)")
    with _pypdf_messages(label):
        try:
            reader = PdfReader(io.BytesIO(data), strict=False)
            if reader.is_encrypted and not reader.decrypt(""):
                raise BadInput(f"{label}: PDF is encrypted (password-protected)")
            pages = [page.extract_text() or "" for page in reader.pages]
            meta_title = _pdf_title(reader)
        except ArboristError:
            raise
        except DependencyError as exc:
            raise BadInput(f"{label}: PDF is encrypted; reading it needs {_one_line(exc)}") from exc
        except Exception as exc:
            # pypdf parses hostile bytes and fails in open-ended ways (PdfReadError,
            # but also KeyError, ValueError, zlib.error, RecursionError, ...): any of
            # them means "this PDF cannot be read", which is the user's one line.
            raise BadInput(f"{label}: corrupt or unreadable PDF: {_pdf_reason(exc)}") from exc
    text = normalize_text("\n\n".join(normalize_text(page) for page in pages))
    if not text.strip():
        raise BadInput(f"{label}: PDF has no extractable text (scanned?)")
    title = meta_title or next((line for line in text.split("\n") if line.strip()), "")
    return title, text


_PLACEHOLDER_PDF_TITLES = frozenset({"untitled", "untitled document", "no title"})


def _pdf_title(reader: PdfReader) -> str:
    """/Title from the document info, unless it is a producer's placeholder (reportlab writes "untitled")."""
    metadata = reader.metadata
    title = metadata.title if metadata is not None else None
    if not isinstance(title, str) or title.strip().lower() in _PLACEHOLDER_PDF_TITLES:
        return ""
    return title


def _pdf_reason(exc: Exception) -> str:
    detail = _one_line(exc)
    kind = type(exc).__name__
    return f"{kind}: {detail}" if detail else kind


# --- URLs ------------------------------------------------------------------------------------


def fetch_url(
    url: str,
    *,
    client: httpx.Client | None = None,
    timeout: float = 30.0,
    max_bytes: int = MAX_FETCH_BYTES,
) -> LoadedDocument:
    """GET an http(s) URL (following redirects) and load its body; ``uri`` is the URL as given.

    The media type comes from ``Content-Type``; a generic one (text/plain,
    octet-stream, none) defers to the final URL's suffix, so raw file hosts
    serving ``.md`` or ``.ipynb`` as text/plain still load as what they are.
    404 and 410 are ``NotFound``; every other non-2xx status, a network error,
    a timeout or a body over ``max_bytes`` is ``BadInput``.
    """
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise BadInput(f"{url}: not a valid URL: {_one_line(exc)}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise BadInput(f"{url}: only http(s) URLs can be fetched")
    try:
        if client is None:
            with httpx.Client(follow_redirects=True, timeout=timeout) as own:
                return _fetch(own, url, timeout, max_bytes)
        return _fetch(client, url, timeout, max_bytes)
    except httpx.HTTPError as exc:
        detail = _one_line(exc) or type(exc).__name__
        raise BadInput(f"cannot fetch URL: {url}: {detail}") from exc


def _fetch(client: httpx.Client, url: str, timeout: float, max_bytes: int) -> LoadedDocument:
    with client.stream("GET", url, follow_redirects=True, timeout=timeout) as response:
        status = response.status_code
        if not 200 <= status < 300:
            reason = response.reason_phrase
            message = f"{url}: HTTP {status}{' ' + reason if reason else ''}"
            raise NotFound(message) if status in (404, 410) else BadInput(message)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise BadInput(f"{url}: too large ({int(declared)} bytes; the limit is {max_bytes})")
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise BadInput(f"{url}: too large (over {max_bytes} bytes)")
        final_path = unquote(response.url.path)
        content_type = response.headers.get("content-type", "")
    name = final_path.rstrip("/").rsplit("/", 1)[-1] or response.url.host
    media_type = _media_type_of(content_type, name, url)
    charset_match = _CONTENT_TYPE_CHARSET.search(content_type)
    box = [bytes(body)]
    del body  # the body is in the box alone: loading lets it go once it is decoded
    return _load_owned(
        box,
        uri=url,
        name=name,
        media_type=media_type,
        charset=charset_match.group(1) if charset_match else None,
    )


def _media_type_of(content_type: str, name: str, url: str) -> str:
    essence = content_type.split(";", 1)[0].strip().lower()
    by_suffix = MEDIA_TYPES.get(Path(name).suffix.lower())
    if essence in _CONTENT_TYPES:
        return _CONTENT_TYPES[essence]
    if essence in _JSON_CONTENT_TYPES and by_suffix == "application/x-ipynb+json":
        return by_suffix
    if essence in _GENERIC_CONTENT_TYPES:
        if by_suffix:
            return by_suffix
        if essence == "text/plain":
            return "text/plain"
    raise BadInput(f"{url}: unsupported content type {essence or '(none)'!r}")


# --- rehydration -----------------------------------------------------------------------------


def refetch(uri: str) -> LoadedDocument:
    """Load a document again from the URI it was stored under (rehydration).

    ``file:`` reads the file, ``http(s):`` fetches the URL, ``pydoc:`` renders
    the demo module again. The result carries ``uri`` unchanged, so the caller
    compares like with like.
    """
    scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
    if scheme == "file":
        doc = load_path(Path(_path_from_file_uri(uri)))
    elif scheme in ("http", "https"):
        doc = fetch_url(uri)
    elif scheme == "pydoc":
        # demo imports this module for LoadedDocument, so this import waits until it is needed.
        from arborist.store.demo import load_module_doc  # noqa: PLC0415

        doc = load_module_doc(uri[len("pydoc:") :])
    else:
        raise BadInput(f"cannot refetch {uri!r}: only file:, http(s): and pydoc: URIs can be")
    return replace(doc, uri=uri)
