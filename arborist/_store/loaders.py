"""Turn files and folders into :class:`LoadedDocument`: text, title and the bytes' hash.

Files, bytes and fetched pages (:func:`~arborist._store.fetch.fetch_url`) all go
through one dispatcher, :func:`load_owned`, which picks a parser by media type (a
file's bytes come from :func:`~arborist._store.reading.read_regular`, which reads it only
as :func:`discover` found it and under the size cap):
:mod:`~arborist._store.html_text`, :mod:`~arborist._store.notebook_text`,
:mod:`~arborist._store.pdf_text`, and for plain text, markdown, reStructuredText
and Python the decoding of :mod:`~arborist._store.normalize` with a title from
:mod:`~arborist._store.text_titles`. Every text ends in the one form
:mod:`~arborist._store.normalize` defines, whose rules are part of a document's
identity.

Every failure is one ``ArboristError`` with a one-line message naming the
file or URL: :class:`~arborist._errors.NotFound` for a path or page that is
not there, :class:`~arborist._errors.BadInput` for everything that can never
load (unsupported type, undecodable text, corrupt PDF, malformed notebook,
network failure). Parsers of untrusted formats (pypdf) fail in open-ended
ways; their errors are translated at this boundary, never leaked.

Formats keep their structure as plain text a chunker can read: headings on
their own lines (markdown ``#`` lines as written, HTML headings rendered as
``#``-prefixed lines, a PDF's outline entries written as ``#`` lines), paragraphs
separated by blank lines, and a PDF's pages after the first each opened by a form
feed (:mod:`~arborist._store.pdf_text`), the one control character a text may hold.
"""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn
from urllib.parse import quote_from_bytes, urlsplit
from urllib.request import url2pathname

from arborist._errors import ArboristError, BadInput, NotFound, NotText, one_line
from arborist._pathref import expand_home, home_relative
from arborist._store.html_text import load_html
from arborist._store.normalize import decode_text, normalize_owned, normalize_text
from arborist._store.notebook_text import load_notebook
from arborist._store.pdf_text import load_pdf
from arborist._store.reading import as_found, read_regular, require_regular, special_kind
from arborist._store.text_titles import text_title

__all__ = [
    "LoadedDocument",
    "MAX_TITLE_CHARS",
    "MEDIA_TYPES",
    "SUPPORTED_SUFFIXES",
    "discover",
    "file_uri",
    "load_bytes",
    "load_found",
    "load_owned",
    "load_path",
    "local_path",
    "path_from_file_uri",
]

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

MAX_TITLE_CHARS = 200
"""Titles are labels in listings and citations; a hostile 1 MB ``<title>`` is cut to this."""

SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
"""Folder names :func:`discover` never enters, besides every hidden (dot) folder."""


@dataclass(frozen=True)
class LoadedDocument:
    """One loaded source: what the store chunks, hashes and cites.

    ``uri`` is :func:`file_uri` of a file (``file:~/papers/notes.md`` under the home,
    ``file:///abs/path`` elsewhere), the http(s) URL as given, or ``pydoc:<module>``;
    ``content_sha256`` is the hash of the raw bytes loaded (the same bytes twice
    are one document), ``text`` the normalized text the chunk leaves come from (a PDF's
    also opens each page after the first with a form feed). ``fetched_from`` is the URL
    a fetch's bytes came from when redirects led it away from ``uri`` (else None).
    """

    uri: str
    title: str
    text: str
    media_type: str
    content_sha256: str
    fetched_from: str | None = None


def _clean_title(title: str | None) -> str:
    """One line of at most MAX_TITLE_CHARS characters, or ``""``."""
    if not title:
        return ""
    line = " ".join(normalize_text(title).split())
    if len(line) > MAX_TITLE_CHARS:
        line = line[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    return line


def _label(uri: str) -> str:
    """How error messages name a source: a local path for ``file:`` URIs, else the URI."""
    if uri.startswith("file:"):
        return path_from_file_uri(uri)
    return uri


def file_uri(path: Path) -> str:
    """The URI a local file is stored under: its resolved path by the one rule of
    :func:`~arborist._pathref.home_relative`, so a file under the home is
    ``file:~/papers/notes.md`` (no home path in any field made from it) and any other
    ``file:///abs/path``. The same file gives the same URI on every ingest while
    ``$HOME`` names the same folder."""
    resolved = os.path.realpath(path)
    shown = home_relative(resolved)
    if shown == resolved:
        return Path(resolved).as_uri()
    return "file:" + quote_from_bytes(os.fsencode(shown))


def path_from_file_uri(uri: str) -> str:
    """The path a ``file:`` URI names as stored (``~/…`` for one under the home: how
    messages name it); ``BadInput`` for one on another host."""
    parts = urlsplit(uri)
    if parts.netloc not in ("", "localhost"):
        raise BadInput(f"{uri}: file URI on another host ({parts.netloc})")
    return url2pathname(parts.path)


def local_path(uri: str) -> Path:
    """The file to read for a ``file:`` URI: :func:`path_from_file_uri` with ``~`` expanded."""
    return Path(expand_home(path_from_file_uri(uri)))


# --- discovery -------------------------------------------------------------------------------


def discover(
    paths: Sequence[str | Path],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    *,
    follow_symlinks: bool = False,
    skipped: list[tuple[str, str]] | None = None,
) -> list[Path]:
    """Expand files and folders into the files to load, in a deterministic order.

    Folders are walked recursively and keep only regular files with a supported
    suffix, sorted by their path relative to the folder; hidden files and folders,
    ``node_modules`` and ``__pycache__`` are skipped, and so are FIFOs, sockets,
    devices and broken links. A walk never leaves the folder through a symbolic
    link: a link (to a file or a folder) whose target lies outside the folder
    given is skipped, unless ``follow_symlinks``. Every real folder is entered
    once, so a link loop cannot recurse. A file named explicitly must have a
    supported suffix and be a regular file, or a link to one (else ``BadInput``,
    one line naming what it is), hidden or not. A missing path is ``NotFound``.

    ``include`` and ``exclude`` are fnmatch globs, each tried against both the
    file's path relative to the folder given (``docs/api/intro.md``; ``*``
    crosses ``/``) and its bare name (``intro.md``). A file is kept when no
    include is given or one matches, and no exclude matches. An exclude that
    matches a folder's relative path or name prunes the whole folder. Files
    named explicitly are filtered by their name and the path as given.

    The result keeps the order of ``paths`` and lists each file once; ``skipped`` gets
    what a walk passed over that it would have kept, with why (:func:`_passed_over`)."""
    found: list[Path] = []
    seen: set[Path] = set()

    def keep(rel: str, name: str) -> bool:
        if include and not _matches(include, rel, name):
            return False
        return not _matches(exclude, rel, name)

    for given in paths:
        root = Path(given)
        try:
            st = root.stat()
        except OSError as exc:
            raise _missing(str(given), root, exc) from exc
        if stat.S_ISDIR(st.st_mode):
            passed: list[tuple[Path, str]] = []
            candidates = _walk_folder(root, exclude, follow_symlinks=follow_symlinks, passed=passed)
            _say_passed(root, passed, keep, skipped)
        else:
            if root.suffix.lower() not in SUPPORTED_SUFFIXES:
                raise BadInput(_unsupported(str(given), root.suffix))
            require_regular(str(given), st.st_mode)
            candidates = [root] if keep(str(given), root.name) else []
        for path in candidates:
            if path != root and not keep(path.relative_to(root).as_posix(), path.name):
                continue
            real = Path(os.path.realpath(path))
            if real not in seen:
                seen.add(real)
                found.append(as_found(path, str(real)))
    return found


def load_found(
    path: Path, *, max_bytes: int | None, named: bool, skipped: list[tuple[str, str]] | None
) -> LoadedDocument | None:
    """``path`` loaded (:func:`load_path`). A file a folder walk found whose bytes are not
    text (undecodable, binary, or no text at all: an empty placeholder) is passed over
    into ``skipped`` as the path found, beside what :func:`discover` passed over, so one
    such file does not stop the folder; a file ``named`` explicitly is refused
    (:class:`~arborist._errors.NotText`)."""
    try:
        return load_path(path, max_bytes=max_bytes)
    except NotText as exc:
        if named:
            raise
        if skipped is not None:
            skipped.append((str(path), exc.reason))
        return None


def _say_passed(
    root: Path,
    passed: list[tuple[Path, str]],
    keep: Callable[[str, str], bool],
    skipped: list[tuple[str, str]] | None,
) -> None:
    """Add to ``skipped`` what a walk of ``root`` passed over that ``keep`` keeps."""
    for path, why in passed:
        rel = path.relative_to(root).as_posix()
        if skipped is not None and keep(rel, path.name):
            skipped.append((rel, why))


def _missing(label: str, path: Path, exc: OSError) -> ArboristError:
    """A path that cannot be looked at: missing, a broken link or a link loop, or unreadable."""
    if os.path.lexists(path) and path.is_symlink():
        what = "a symbolic link loop" if exc.errno == errno.ELOOP else "a broken symbolic link"
        return NotFound(f"{label}: is {what}")
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        return NotFound(f"{label}: no such file or folder")
    return BadInput(f"{label}: cannot read: {exc.strerror or one_line(exc)}")


def _within(real: str, root_real: str) -> bool:
    """Whether the resolved path ``real`` is ``root_real`` or inside it."""
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _matches(patterns: Sequence[str], rel: str, name: str) -> bool:
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _unsupported(label: str, suffix: str) -> str:
    what = f"'{suffix}'" if suffix else "(no suffix)"
    return f"{label}: unsupported file type {what}; supported: {' '.join(SUPPORTED_SUFFIXES)}"


def _walk_folder(
    root: Path, exclude: Sequence[str], *, follow_symlinks: bool, passed: list[tuple[Path, str]]
) -> list[Path]:
    """Supported regular files under ``root``, sorted by relative path; each real folder
    entered once; without ``follow_symlinks``, no link whose target is outside ``root``.
    Each supported, visible name passed over is appended to ``passed`` with why."""
    files: list[Path] = []
    entered: set[tuple[int, int]] = set()
    root_real = os.path.realpath(root)

    def stays(path: Path) -> bool:
        """A path that is no link, or a link whose target is inside the folder."""
        if follow_symlinks or not path.is_symlink():
            return True
        return _within(os.path.realpath(path), root_real)

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
            if d.startswith(".") or d in SKIPPED_DIRS or not stays(here / d):
                continue
            rel = (here / d).relative_to(root).as_posix()
            if not _matches(exclude, rel, d):
                kept_dirs.append(d)
        dirnames[:] = kept_dirs
        for name in filenames:
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            if path.is_file() and stays(path):  # not a broken link, FIFO, socket or device
                files.append(path)
            else:
                passed.append((path, _passed_over(path)))
    files.sort(key=lambda p: p.relative_to(root).parts)
    passed.sort(key=lambda item: item[0].relative_to(root).parts)
    return files


def _passed_over(path: Path) -> str:
    """Why a walk passed over ``path``, a supported name that is no file it reads."""
    if path.is_symlink():
        if not path.exists():
            return "a broken link or a link loop"
        if path.is_file():
            return "a link leaving the folder (--follow-symlinks follows it)"
        return "a link to no regular file"
    try:
        return special_kind(path.stat().st_mode) or "not a regular file"
    except OSError as exc:  # vanished since it was listed
        return f"cannot read: {exc.strerror or one_line(exc)}"


# --- loading ---------------------------------------------------------------------------------


def load_path(path: Path | str, *, max_bytes: int | None = None) -> LoadedDocument:
    """Load one regular file of at most ``max_bytes`` (:func:`~arborist._store.reading.read_regular`); its URI is
    :func:`file_uri`."""
    if not isinstance(path, Path):
        path = Path(path)
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise BadInput(_unsupported(str(path), path.suffix))
    if getattr(path, "seen", None) is None:
        path = as_found(path, os.path.realpath(path))
    box = [read_regular(path, max_bytes=max_bytes)]
    seen = getattr(path, "seen", None)
    real = Path(seen[0]) if seen is not None else path
    return load_owned(box, uri=file_uri(real), name=path.name)  # the file read, not a later one


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
    return load_owned([data], uri=uri, name=name, media_type=media_type, charset=charset)


def load_owned(
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
    :func:`~arborist._store.fetch.fetch_url`) a text file never costs more than two
    copies of itself.
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
        title, text = load_pdf(data, label)
    elif media_type == "text/html":
        title, text = load_html(data, label, charset)
    elif media_type == "application/x-ipynb+json":
        title, text = load_notebook(data, label)
    else:
        decoded = [decode_text(data, label, charset)]
        del data
        text = normalize_owned(decoded)
        title = text_title(media_type, text)
    if not text or text.isspace():  # not text.strip(), which may copy it
        raise NotText(label, "has no text")
    return LoadedDocument(
        uri=uri,
        title=_clean_title(title) or _clean_title(name) or label,
        text=text,
        media_type=media_type,
        content_sha256=content_sha256,
    )
