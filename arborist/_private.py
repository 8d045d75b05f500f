"""Files and folders only their owner may read.

A folder :func:`arborist._database.db.connect` creates for a database is mode 0700
(:func:`make_private_folder`), and so is an empty one it creates the first database in; a
database file it creates is 0600 before SQLite opens it (:func:`create_private_file`), so
the ``-wal`` and ``-shm`` SQLite makes beside it (with the database's own mode) are 0600
too, whatever the umask (docs/guarantees.md, "Privacy"). :func:`loose_modes` names what is
open to other users in an existing home, for ``arborist verify``.
"""

from __future__ import annotations

import errno
import os
import shlex
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

__all__ = [
    "PRIVATE_FILE_MODE",
    "PRIVATE_FOLDER_MODE",
    "create_private_file",
    "loose_modes",
    "make_private_folder",
    "stat_mode",
    "write_private_text",
]

PRIVATE_FOLDER_MODE = 0o700
"""The mode of a home folder arborist creates: its owner's alone."""
PRIVATE_FILE_MODE = 0o600
"""The mode of every database, ``-wal``, ``-shm`` and key file arborist creates."""


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` (and its parents) if it is missing; the folder itself is made
    :data:`PRIVATE_FOLDER_MODE` whatever the umask (its parents keep the umask's mode). An
    existing folder is left as it is. OSError for a folder that cannot be made."""
    if folder.is_dir():
        return
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=PRIVATE_FOLDER_MODE)
    except FileExistsError:
        return  # made meanwhile by another process (or not a folder: the open names it)
    os.chmod(folder, PRIVATE_FOLDER_MODE)


def create_private_file(path: Path) -> None:
    """Create the database file ``path`` empty and :data:`PRIVATE_FILE_MODE` if it does not
    exist (an empty file is an empty database to SQLite), so that SQLite, which gives its
    ``-wal`` and ``-shm`` the database's mode, makes them private too. An empty folder
    receiving its first database is made :data:`PRIVATE_FOLDER_MODE` (a folder the user
    made for the home beforehand). Best effort: a file that cannot be created here is left
    for SQLite to refuse in its own words."""
    try:
        with os.scandir(path.parent) as entries:
            empty = next(entries, None) is None
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    except OSError:  # exists already (or was just made by another process), or cannot be
        return
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
    except OSError:
        pass
    finally:
        os.close(fd)
    if empty:
        with suppress(OSError):
            if os.stat(path.parent).st_uid == os.geteuid():
                os.chmod(path.parent, PRIVATE_FOLDER_MODE)


def write_private_text(path: Path, text: str, *, kept: Iterable[Path] = ()) -> None:
    """Write ``text`` (UTF-8) to ``path``, a file only its owner may read
    (:data:`PRIVATE_FILE_MODE`, whatever the umask, an existing file's mode narrowed too):
    an export holds what the home holds, so it is as private as the home. Never through a
    symbolic link (``O_NOFOLLOW``: a link planted at the name would have the export
    overwrite its target), and never over one of ``kept`` (the home's own files: a slip of
    the name would destroy a store). OSError as ``open`` raises it, or saying which."""
    if os.path.realpath(path) in {os.path.realpath(k) for k in kept}:
        raise OSError(errno.EEXIST, "it is one of the home's own files")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, PRIVATE_FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "it is a symbolic link (give the file it names)") from None
        raise
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        with suppress(OSError):  # a file another user owns keeps its mode
            os.fchmod(fd, PRIVATE_FILE_MODE)
        out.write(text)


def loose_modes(folder: Path, files: Iterable[Path]) -> list[str]:
    """One line for ``folder`` and for each of ``files`` that exists and that group or other
    users may read, write or (a folder) enter, naming its mode and the ``chmod`` that makes
    it private; nothing on a system without POSIX modes."""
    if os.name != "posix":
        return []
    found: list[str] = []
    checks = [(folder, PRIVATE_FOLDER_MODE, True)]
    checks += [(Path(f), PRIVATE_FILE_MODE, False) for f in files]
    for path, private, is_folder in checks:
        try:
            mode = stat_mode(path)
        except OSError:
            continue
        if mode is None or not mode & 0o077:
            continue
        who = "group" if not mode & 0o007 else "other" if not mode & 0o070 else "group and other"
        what = "the home folder" if is_folder else "the file"
        found.append(
            f"{path}: {what} has mode {mode:04o}, open to {who} users: "
            f"run `chmod {private:o} {shlex.quote(str(path))}`"
        )
    return found


def stat_mode(path: Path) -> int | None:
    """The permission bits of ``path`` (a link followed), None when it is not there."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        return None
