"""Read a file only as the discovery walk found it, and never more of it than the size cap.

:func:`~arborist._store.loaders.discover` records each file it keeps as a :class:`Found`
path: the real path it resolved to, and the identity (``st_dev``, ``st_ino``) of that
file and of its folder. :func:`read_regular` opens exactly that file or refuses in one
line: the folder without following a link and checked by ``fstat``, the file inside it
(``openat``) with ``O_NOFOLLOW`` and checked by ``fstat``, non-blocking so that a FIFO
swapped in never waits, and refused by its ``fstat`` size before a byte is read when it
is over the cap (:data:`DEFAULT_MAX_FILE_BYTES`, ``ARBORIST_MAX_FILE_BYTES``, or
``[ingest] max_file_bytes`` parsed by :func:`parse_max_file_bytes`).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from arborist._errors import BadInput, NotFound, one_line

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "Found",
    "MAX_FILE_BYTES_ENV",
    "as_found",
    "env_max_file_bytes",
    "parse_max_file_bytes",
    "read_regular",
    "require_regular",
    "special_kind",
]

_Identity = tuple[int, int]
"""A file's or folder's ``(st_dev, st_ino)``: what it is, whatever it is called."""


if TYPE_CHECKING:
    _ConcretePath = Path
else:
    _ConcretePath = type(
        Path()
    )  # PosixPath or WindowsPath: Path itself cannot be subclassed before 3.12


class Found(_ConcretePath):
    """A path :func:`~arborist._store.loaders.discover` found, with what it was then: the
    real path it resolved to, and the identity of that file and of its folder.
    :func:`read_regular` opens exactly that file or refuses: a file or folder swapped (for
    a link, say) after the walk is not read."""

    seen: tuple[str, _Identity, _Identity] | None = None


def _identity(st: os.stat_result) -> _Identity:
    return (st.st_dev, st.st_ino)


def as_found(path: Path, real: str) -> Path:
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


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def special_kind(mode: int) -> str | None:
    """What a file that is not regular is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), "a special file")


def require_regular(label: str, mode: int) -> None:
    """Refuse, in one line, anything but a regular file: reading a FIFO, a device or a
    socket waits for a writer forever or never ends (``/dev/zero``)."""
    kind = special_kind(mode)
    if kind == "a folder":
        raise BadInput(f"{label}: is a folder, not a file")
    if kind is not None:
        raise BadInput(f"{label}: is {kind}, not a regular file; only regular files are read")


# --- the size cap ----------------------------------------------------------------------------


DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest file ingest reads (64 MiB): several times the biggest honest text a store
holds (a whole book is a few MB of text; a 64 MiB plain text is about 40,000 pages),
under which an ingest peaks at about twice the file. ``ARBORIST_MAX_FILE_BYTES`` or
``[ingest] max_file_bytes`` in config.toml changes it (:func:`arborist._config.max_file_bytes`)."""

MAX_FILE_BYTES_ENV = "ARBORIST_MAX_FILE_BYTES"

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


# --- the read --------------------------------------------------------------------------------


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

_READ_PIECE = 1024 * 1024


def _changed(label: str, what: str) -> BadInput:
    return BadInput(f"{label}: {what} since it was found; not read")


def read_regular(path: Path, label: str | None = None, *, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (or the one a link names), read without
    following a link, without waiting, and at most ``max_bytes`` of them.

    The file is the one :func:`~arborist._store.loaders.discover` saw (a :class:`Found`
    path) or, for any other path, the one it resolves to now. Its folder is opened without
    following a link and must be the folder seen (``fstat``); the file is opened in it
    with ``O_NOFOLLOW`` and must be the file seen: a file or folder swapped after the walk
    (for a link to a file outside, say) is refused in one line, not read. A FIFO, socket
    or device is refused before it is opened (``stat``) and again after (``fstat``); the
    open is non-blocking, so a FIFO swapped in never waits for a writer. A file over
    ``max_bytes`` (default :func:`env_max_file_bytes`) is refused by its ``fstat`` size
    before a byte is read, and one that grows past it while read is refused too.
    """
    label = str(path) if label is None else label
    cap = env_max_file_bytes() if max_bytes is None else max_bytes
    fd, file_id = _open_as_seen(path, label)
    return _read_capped(fd, file_id, label, cap)


def _seen(path: Path, label: str) -> tuple[str, _Identity, _Identity]:
    """What :func:`read_regular` must open: the real path and identities a :class:`Found`
    path holds, else those of the file ``path`` resolves to now; a regular file, by
    ``stat``."""
    seen: tuple[str, _Identity, _Identity] | None = getattr(path, "seen", None)
    if seen is None:
        real = os.path.realpath(path)
        file_st = os.stat(real)
        require_regular(label, file_st.st_mode)
        return (real, _identity(file_st), _identity(os.stat(os.path.dirname(real))))
    require_regular(label, os.stat(seen[0]).st_mode)
    return seen


def _open_as_seen(path: Path, label: str) -> tuple[int, _Identity]:
    """A non-blocking descriptor of the file seen, opened in its folder (checked by
    ``fstat``) with ``O_NOFOLLOW``, and the identity the file must have."""
    opening = False  # a link met while opening (O_NOFOLLOW) is a swap, not a loop
    try:
        real, file_id, folder_id = _seen(path, label)
        opening = True
        folder = os.open(os.path.dirname(real), _FOLDER_FLAGS)
        try:
            if _identity(os.fstat(folder)) != folder_id:
                raise _changed(label, "its folder changed")
            return os.open(os.path.basename(real), _OPEN_FLAGS, dir_fd=folder), file_id
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


def _read_capped(fd: int, file_id: _Identity, label: str, cap: int) -> bytes:
    """The bytes of the open ``fd`` (which it closes), if it is still a regular file, the
    one seen, and holds at most ``cap`` bytes by its ``fstat`` size and as it is read."""
    try:
        st = os.fstat(fd)
        require_regular(label, st.st_mode)
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
