"""Turn files and folders into :class:`LoadedDocument`: text, title and the bytes' hash.

Files, bytes and fetched pages (:func:`~arborist.store.fetch.fetch_url`) all go
through one dispatcher, :func:`load_owned`, which picks a parser by media type:
:mod:`~arborist.store.html_text`, :mod:`~arborist.store.notebook_text`,
:mod:`~arborist.store.pdf_text`, and for plain text, markdown, reStructuredText
and Python the decoding of :mod:`~arborist.store.normalize` with a title from
:mod:`~arborist.store.text_titles`. Every text ends in the one form
:mod:`~arborist.store.normalize` defines, whose rules are part of a document's
identity.

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

import errno
import fnmatch
import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn
from urllib.parse import quote_from_bytes, urlsplit
from urllib.request import url2pathname

from arborist.errors import ArboristError, BadInput, NotFound, one_line
from arborist.pathref import expand_home, home_relative
from arborist.store.html_text import load_html
from arborist.store.normalize import decode_text, normalize_owned, normalize_text
from arborist.store.notebook_text import load_notebook
from arborist.store.pdf_text import load_pdf
from arborist.store.text_titles import text_title

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "Found",
    "LoadedDocument",
    "MAX_FILE_BYTES_ENV",
    "MAX_TITLE_CHARS",
    "MEDIA_TYPES",
    "SUPPORTED_SUFFIXES",
    "discover",
    "env_max_file_bytes",
    "file_uri",
    "load_bytes",
    "load_owned",
    "load_path",
    "local_path",
    "parse_max_file_bytes",
    "path_from_file_uri",
    "read_regular",
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
    are one document), ``text`` the normalized text the chunk leaves come from.
    """

    uri: str
    title: str
    text: str
    media_type: str
    content_sha256: str


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
    :func:`~arborist.pathref.home_relative`, so a file under the home is
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
        try:
            st = root.stat()
        except OSError as exc:
            raise _missing(str(given), root, exc) from exc
        if stat.S_ISDIR(st.st_mode):
            candidates = _walk_folder(root, exclude, follow_symlinks=follow_symlinks)
        else:
            if root.suffix.lower() not in SUPPORTED_SUFFIXES:
                raise BadInput(_unsupported(str(given), root.suffix))
            _require_regular(str(given), st.st_mode)
            candidates = [root] if keep(str(given), root.name) else []
        for path in candidates:
            if path != root and not keep(path.relative_to(root).as_posix(), path.name):
                continue
            real = Path(os.path.realpath(path))
            if real not in seen:
                seen.add(real)
                found.append(_found(path, str(real)))
    return found


_Identity = tuple[int, int]
"""A file's or folder's ``(st_dev, st_ino)``: what it is, whatever it is called."""


if TYPE_CHECKING:
    _ConcretePath = Path
else:
    _ConcretePath = type(
        Path()
    )  # PosixPath or WindowsPath: Path itself cannot be subclassed before 3.12


class Found(_ConcretePath):
    """A path :func:`discover` found, with what it was then: the real path it resolved to,
    and the identity of that file and of its folder. :func:`read_regular` opens exactly
    that file or refuses: a file or folder swapped (for a link, say) after the walk is
    not read."""

    seen: tuple[str, _Identity, _Identity] | None = None


def _identity(st: os.stat_result) -> _Identity:
    return (st.st_dev, st.st_ino)


def _found(path: Path, real: str) -> Path:
    """``path`` as a :class:`Found`, with its identity now; as it is if it has vanished
    (the read then names what is missing)."""
    try:
        file_st = os.stat(real)
        folder_st = os.stat(os.path.dirname(real))
    except OSError:
        return path
    found = Found(path)
    found.seen = (real, _identity(file_st), _identity(folder_st))
    return found


def _missing(label: str, path: Path, exc: OSError) -> ArboristError:
    """A path that cannot be looked at: missing, a broken link or a link loop, or unreadable."""
    if os.path.lexists(path) and path.is_symlink():
        what = "a symbolic link loop" if exc.errno == errno.ELOOP else "a broken symbolic link"
        return NotFound(f"{label}: is {what}")
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        return NotFound(f"{label}: no such file or folder")
    return BadInput(f"{label}: cannot read: {exc.strerror or one_line(exc)}")


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _special_kind(mode: int) -> str | None:
    """What a file that is not regular is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), "a special file")


def _require_regular(label: str, mode: int) -> None:
    """Refuse, in one line, anything but a regular file: reading a FIFO, a device or a
    socket waits for a writer forever or never ends (``/dev/zero``)."""
    kind = _special_kind(mode)
    if kind == "a folder":
        raise BadInput(f"{label}: is a folder, not a file")
    if kind is not None:
        raise BadInput(f"{label}: is {kind}, not a regular file; only regular files are read")


def _within(real: str, root_real: str) -> bool:
    """Whether the resolved path ``real`` is ``root_real`` or inside it."""
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _matches(patterns: Sequence[str], rel: str, name: str) -> bool:
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _unsupported(label: str, suffix: str) -> str:
    what = f"'{suffix}'" if suffix else "(no suffix)"
    return f"{label}: unsupported file type {what}; supported: {' '.join(SUPPORTED_SUFFIXES)}"


def _walk_folder(root: Path, exclude: Sequence[str], *, follow_symlinks: bool) -> list[Path]:
    """Supported regular files under ``root``, sorted by relative path; each real folder
    entered once; without ``follow_symlinks``, no link whose target is outside ``root``."""
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
    files.sort(key=lambda p: p.relative_to(root).parts)
    return files


# --- loading ---------------------------------------------------------------------------------


_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOFOLLOW", 0)
)
"""How :func:`read_regular` opens a file: never through a link (its final component),
never waiting for a FIFO's writer, never taking a terminal as the controlling one."""

_FOLDER_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)

DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest file ingest reads (64 MiB): several times the biggest honest text a store
holds (a whole book is a few MB of text; a 64 MiB plain text is about 40,000 pages),
under which an ingest peaks at about twice the file. ``ARBORIST_MAX_FILE_BYTES`` or
``[ingest] max_file_bytes`` in config.toml changes it (:func:`arborist.config.max_file_bytes`)."""

MAX_FILE_BYTES_ENV = "ARBORIST_MAX_FILE_BYTES"

_READ_PIECE = 1024 * 1024


_MAX_CAP_DIGITS = 19
"""Digits a cap may have: 19 hold every size a file system reports (under 2**63)."""


def parse_max_file_bytes(value: object, where: str) -> int:
    """A size cap from ``where``: a whole number of bytes above 0 (ASCII digits in a
    string, at most :data:`_MAX_CAP_DIGITS`: not ``"²"`` nor full-width ``"１２３"``, which
    :meth:`str.isdigit` calls digits), else one line naming where it came from."""
    if isinstance(value, str):
        digits = value.strip()
        if digits.isascii() and digits.isdigit() and len(digits) <= _MAX_CAP_DIGITS:
            value = int(digits)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BadInput(f"{where} must be a whole number of bytes above 0, not {value!r}")
    return value


def env_max_file_bytes() -> int:
    """The size cap from ``ARBORIST_MAX_FILE_BYTES``, else :data:`DEFAULT_MAX_FILE_BYTES`."""
    raw = os.environ.get(MAX_FILE_BYTES_ENV, "").strip()
    return parse_max_file_bytes(raw, MAX_FILE_BYTES_ENV) if raw else DEFAULT_MAX_FILE_BYTES


def _too_large(label: str, size: int, max_bytes: int) -> BadInput:
    return BadInput(
        f"{label}: too large ({size} bytes; the limit is {max_bytes}: set "
        f"{MAX_FILE_BYTES_ENV} or [ingest] max_file_bytes to read more)"
    )


def _changed(label: str, what: str) -> BadInput:
    return BadInput(f"{label}: {what} since it was found; not read")


def read_regular(path: Path, label: str | None = None, *, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (or the one a link names), read without
    following a link, without waiting, and at most ``max_bytes`` of them.

    The file is the one :func:`discover` saw (a :class:`Found` path) or, for any other
    path, the one it resolves to now. Its folder is opened without following a link and
    must be the folder seen (``fstat``); the file is opened in it with ``O_NOFOLLOW``
    and must be the file seen: a file or folder swapped after the walk (for a link to a
    file outside, say) is refused in one line, not read. A FIFO, socket or device is
    refused before it is opened (``stat``) and again after (``fstat``); the open is
    non-blocking, so a FIFO swapped in never waits for a writer. A file over
    ``max_bytes`` (default :func:`env_max_file_bytes`) is refused by its ``fstat`` size
    before a byte is read, and one that grows past it while read is refused too.
    """
    label = str(path) if label is None else label
    cap = env_max_file_bytes() if max_bytes is None else max_bytes
    opening = False  # a link met while opening (O_NOFOLLOW) is a swap, not a loop
    try:
        seen = getattr(path, "seen", None)
        if seen is None:
            real = os.path.realpath(path)
            file_st = os.stat(real)
            _require_regular(label, file_st.st_mode)
            seen = (real, _identity(file_st), _identity(os.stat(os.path.dirname(real))))
        else:
            _require_regular(label, os.stat(seen[0]).st_mode)
        real, file_id, folder_id = seen
        opening = True
        folder = os.open(os.path.dirname(real), _FOLDER_FLAGS)
        try:
            if _identity(os.fstat(folder)) != folder_id:
                raise _changed(label, "its folder changed")
            fd = os.open(os.path.basename(real), _OPEN_FLAGS, dir_fd=folder)
        finally:
            os.close(folder)
    except FileNotFoundError as exc:
        raise NotFound(f"{label}: no such file") from exc
    except IsADirectoryError as exc:
        raise BadInput(f"{label}: is a folder, not a file") from exc
    except OSError as exc:
        if opening and exc.errno in (errno.ELOOP, errno.ENOTDIR):  # O_NOFOLLOW met a link
            raise _changed(label, "became a symbolic link") from exc
        raise BadInput(f"{label}: cannot read: {exc.strerror or one_line(exc)}") from exc
    try:
        st = os.fstat(fd)
        _require_regular(label, st.st_mode)
        if _identity(st) != file_id:
            raise _changed(label, "was replaced")
        if st.st_size > cap:
            raise _too_large(label, st.st_size, cap)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file: reads never wait anyway
        with os.fdopen(fd, "rb", closefd=True) as file:
            fd = -1
            data = file.read(st.st_size + 1)  # one piece, unless it grew since fstat
            if len(data) <= st.st_size:
                return data
            pieces = bytearray(data)
            while piece := file.read(_READ_PIECE):
                pieces += piece
                if len(pieces) > cap:
                    raise _too_large(label, len(pieces), cap)
            return bytes(pieces)
    except OSError as exc:
        raise BadInput(f"{label}: cannot read: {exc.strerror or one_line(exc)}") from exc
    finally:
        if fd >= 0:
            os.close(fd)


def load_path(path: Path | str, *, max_bytes: int | None = None) -> LoadedDocument:
    """Load one regular file of at most ``max_bytes`` (:func:`read_regular`); its URI is
    :func:`file_uri`."""
    if not isinstance(path, Path):
        path = Path(path)
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise BadInput(_unsupported(str(path), path.suffix))
    if getattr(path, "seen", None) is None:
        path = _found(path, os.path.realpath(path))
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
    :func:`~arborist.store.fetch.fetch_url`) a text file never costs more than two
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
        raise BadInput(f"{label}: has no text")
    return LoadedDocument(
        uri=uri,
        title=_clean_title(title) or _clean_title(name) or label,
        text=text,
        media_type=media_type,
        content_sha256=content_sha256,
    )
