"""One error tree for everything arborist raises on purpose.

::

    ArboristError                  base; str(err) is one line fit for a user
     +-- BadInput                  input that can never be valid (malformed ref, flag, JSON)
     |    +-- CanonicalJSONError   value outside the canonical-JSON subset (also ValueError)
     |    +-- BadReference         a malformed bates, sid or checkpoint
     +-- NotFound                  a well-formed reference to something that is not there
     |    +-- NoDocuments          an ask over a store that holds no document yet
     +-- StorageError              a database that cannot be opened, read or written
     |    +-- MigrationError       schema history that does not match this code
     |    +-- DamagedDatabase      a file SQLite finds corrupt (or that is not a database)
     |    +-- ReadOnlyDatabase     a write to a file on a read-only folder, mount or file
     +-- IntegrityError            stored data that fails its own hashes or checkpoints
     +-- ModelError                a chat model that times out, errors or returns garbage

Foreign errors (sqlite3, httpx, OSError) are translated where they cross into
arborist, with ``raise ... from exc`` so the cause stays in the traceback.
"""

from __future__ import annotations

import errno
import sys

__all__ = [
    "ArboristError",
    "BadInput",
    "BadReference",
    "CanonicalJSONError",
    "DamagedDatabase",
    "IntegrityError",
    "MigrationError",
    "ModelError",
    "NoDocuments",
    "NotFound",
    "NotText",
    "ReadOnlyDatabase",
    "StorageError",
    "foreign",
    "one_line",
]


class ArboristError(Exception):
    """Base of every error arborist raises on purpose; the message is one line."""


class BadInput(ArboristError):
    """Input that can never be valid, whatever the stores hold."""


class CanonicalJSONError(BadInput, ValueError):
    """A value outside the canonical-JSON subset (floats, big ints, lone surrogates, ...)."""


class NotText(BadInput):
    """A file whose bytes are not text: undecodable, binary (NUL bytes), or no text at all.
    Named, it is refused like any bad input; found by a folder walk, it is passed over."""

    def __init__(self, label: str, reason: str) -> None:
        super().__init__(f"{label}: {reason}")
        self.reason = reason


class BadReference(BadInput):
    """A malformed reference: bates, sid, seq or checkpoint."""


class NotFound(ArboristError):
    """A well-formed reference to something that does not exist."""


class NoDocuments(NotFound):
    """An ask over an empty store: there is nothing to retrieve, so nothing is asked or written.

    Each face says how to ingest in its own words (``arborist ingest --demo`` at a
    terminal, ``%arborist ingest --demo`` in a notebook)."""

    def __init__(self, command: str = "arborist ingest --demo") -> None:
        super().__init__(
            "no documents ingested yet: nothing to answer from. "
            f"Run `{command}` for the built-in corpus, or ingest your own files and URLs"
        )


class StorageError(ArboristError):
    """A database file that cannot be opened, read or written."""


class MigrationError(StorageError):
    """The database's recorded schema history does not match this version of arborist."""


class DamagedDatabase(StorageError):
    """A database file that SQLite reports as corrupt, or that is not a database at all.

    ``path`` is the file and ``reason`` what SQLite said (or the first problem
    ``PRAGMA quick_check`` found). Nothing is written into such a file."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        self.reason = one_line(reason)
        super().__init__(
            f"{self.path} is damaged ({self.reason}): restore it from a backup, "
            "or run `arborist verify` for details"
        )


class ReadOnlyDatabase(StorageError):
    """A write (or a migration) asked of a database that can only be read here:
    a read-only mount, folder or file. Reading commands still work."""


class IntegrityError(ArboristError):
    """Stored data that does not match its own hashes, chain or checkpoints."""


class ModelError(ArboristError):
    """A chat model that timed out, failed or answered with something unusable."""


def one_line(message: object, limit: int | None = None, *, named: bool = False) -> str:
    """``message`` (often a foreign exception) as one line, whitespace runs collapsed, and
    with ``limit`` cut to that many characters (the last one ``…``): how an arborist error
    quotes what a parser, a file, the network or a server said. ``named``: an exception
    that is no :class:`ArboristError` is said with its type first (``KeyError: 'x'``, a
    bug said as one), and one with no message by its type alone (what the widget's
    status line shows of a failed request)."""
    text = str(message)
    if named and isinstance(message, BaseException):
        kind = type(message).__name__
        text = text or kind
        text = text if isinstance(message, ArboristError) else f"{kind}: {text}"
    text = " ".join(text.split())
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


_FULL = (
    "the disk is full or a file reached its size limit ({reason}): the change under way was "
    "not stored; `arborist verify` checks what is"
)
_IO = (
    "a file could not be read or written ({reason}): the change under way was not stored; "
    "`arborist verify` checks what is"
)
_FULL_ERRNOS = frozenset({errno.EFBIG, errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})


def foreign(exc: BaseException) -> ArboristError | None:
    """The one-line arborist error for a foreign one that input or the machine can cause
    anywhere (None for any other, which is a bug and keeps its traceback).

    * SQLite's ``database or disk is full`` (SQLITE_FULL: ``ENOSPC``, or ``EFBIG`` past
      a size limit) and ``disk I/O error`` (SQLITE_IOERR: ``EIO``, and ``EFBIG`` met
      mid-page), and an :class:`OSError` of those kinds, are :class:`StorageError`: SQLite
      rolls back the transaction it was in, so the stores hold what was committed before.
    * SQLite refusing a value for its size (a LIKE prefix of 50,000 characters, a string
      beyond its length limit) is :class:`BadInput`.
    * Any other :class:`OSError` is a one-line :class:`ArboristError` naming its file.
    * :class:`RecursionError` is input nested beyond what a parser follows, and the
      :class:`ValueError` of a number of over 4,300 digits one Python will not convert,
      or of a path holding a NUL (:class:`BadInput`).
    * A :class:`UnicodeError` is text that is not UTF-8 (:class:`BadInput`).
    """
    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is not None and isinstance(exc, sqlite3.OperationalError):
        return _sqlite_error(exc)
    if isinstance(exc, OSError):
        return _os_error(exc)
    if isinstance(exc, RecursionError):
        return BadInput("the input is nested too deeply to be read")
    if isinstance(exc, UnicodeError):  # a ValueError too: first
        return BadInput(f"text that is not valid UTF-8 ({one_line(exc)})")
    if isinstance(exc, ValueError):
        return _value_error(exc)
    return None


def _value_error(exc: ValueError) -> ArboristError | None:
    reason = one_line(exc)
    if "embedded null" in reason:
        return BadInput(f"a path or name holding a NUL character ({reason})")
    if "integer string conversion" in reason:
        return BadInput(f"a number too long to read ({reason.split(';')[0]})")
    return None


def _sqlite_error(exc: Exception) -> ArboristError | None:
    name = str(getattr(exc, "sqlite_errorname", ""))
    reason = one_line(exc)
    if name.startswith("SQLITE_FULL") or "database or disk is full" in reason:
        return StorageError(_FULL.format(reason=reason))
    if name.startswith("SQLITE_IOERR") or "disk I/O error" in reason:
        return StorageError(_IO.format(reason=reason))
    if "pattern too complex" in reason or name == "SQLITE_TOOBIG" or "too big" in reason:
        return BadInput(f"a value too long to look up or store ({reason})")
    return None


def _os_error(exc: OSError) -> ArboristError:
    reason = one_line(exc.strerror or exc)
    where = f"{exc.filename}: " if exc.filename is not None else ""
    if exc.errno in _FULL_ERRNOS:
        return StorageError(_FULL.format(reason=f"{where}{reason}"))
    if exc.errno == errno.EIO:
        return StorageError(_IO.format(reason=f"{where}{reason}"))
    return ArboristError(f"{where}{reason}" if where else f"operating system error: {reason}")
