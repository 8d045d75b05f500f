"""Paths as stored: a document's path under the home as ``~/…``; transcript and notebook
paths redacted to a keyed hash plus a display-safe basename.

:func:`home_relative` is the one rule for a document's local path: every field that
records one (its URI, a title made from it, the events and indexes copied from those)
is made from the path it gives, so ``/home/alice/papers/notes.md`` is stored as
``~/papers/notes.md`` and :func:`expand_home` turns it back into the file to read.
:func:`home_as_tilde` is the same rule for a path anywhere in a text (a question, a
label, a reason, a document's words, an error line): the admission gate applies it to
every text it admits. Both read the home from :func:`user_homes`.

A raw path such as ``/home/alice/projects/thesis.ipynb`` names a person and
their disk layout; arborist never stores one. :func:`redact_path` turns it
into ``<16 hex of HMAC-SHA256(key, path)>:<basename>``: deterministic for one
key (the same notebook always maps to the same reference, so co-access can
group by it), unlinkable without the key, and still readable enough to show.
The key is created on first use in ``$ARBORIST_HOME/redaction.key`` with mode
0600 (a home it creates is 0700) and never leaves the home.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
import secrets
import unicodedata
from pathlib import Path

from arborist._errors import StorageError
from arborist._private import PRIVATE_FILE_MODE, make_private_folder

__all__ = [
    "KEY_FILE",
    "expand_home",
    "home_as_tilde",
    "home_relative",
    "load_or_create_key",
    "redact_path",
    "safe_basename",
    "user_homes",
]

KEY_FILE = "redaction.key"
_KEY_BYTES = 32
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_BASENAME = 64


def user_homes() -> tuple[str, ...]:
    """The user's home folder as ``$HOME`` names it (as written, and normalized) and as it
    resolves (they differ when a link leads to it), longest first: the one definition of
    the home that :func:`home_relative` (paths) and :func:`home_as_tilde` (text) share.

    Empty when ``$HOME`` is unset, empty, relative or ``/`` (no usable home: nothing is
    rewritten, rather than every path being under ``/``); a home that resolves to ``/``
    keeps only its written form. Resolved once per value of ``$HOME`` in a process.
    """
    return _homes_of(os.environ.get("HOME", ""))


@functools.lru_cache(maxsize=8)
def _homes_of(home: str) -> tuple[str, ...]:
    written = home.rstrip(os.sep)
    if not os.path.isabs(home) or not written or os.path.normpath(home) == os.sep:
        return ()
    homes = {written, os.path.normpath(home), os.path.realpath(home)} - {os.sep, "//"}
    return tuple(sorted(homes, key=lambda h: (-len(h), h)))


def home_relative(path: str) -> str:
    """``path`` (absolute) as it is stored: ``~/rest`` when it lies under the user's home
    (``~`` for the home itself), else unchanged.

    The home is ``$HOME`` (as given or resolved: :func:`user_homes`); a path merely
    starting with the same characters (``/home/alice2`` beside ``/home/alice``) is not
    under it.
    """
    for home in user_homes():
        if path == home:
            return "~"
        if path.startswith(home + os.sep):
            return "~" + os.sep + path[len(home) + 1 :]
    return path


_INSIDE_A_PATH = r"(?<![^\W_])(?<![.~])"
"""Not after a letter, a digit, ``.`` or ``~``, which would make it part of another path
(``/srv/home/alice``, ``./home/alice``); after ``-`` or ``_`` (``from-/home/alice``) it is
the home, erring on the side of the person the path names."""
_NAME_GOES_ON = r"[\w~+-]|\.[\w~+-]"
"""What after a path says the name goes on (a full stop then a space ends a sentence)."""


@functools.lru_cache(maxsize=8)
def _home_in_text(homes: tuple[str, ...]) -> re.Pattern[str]:
    """Each home as a path in text: not inside a longer name or path (``/srv/home/alice``,
    ``/home/alice2``; after ``//``, as in ``file:///home/alice``, it is a path), followed
    by ``/`` or by what ends a path (a space, a quote, the end, a sentence's full stop);
    ``file://`` before it is taken along, so the text says ``file:~/…`` as a stored URI
    does."""
    alternatives = "|".join(re.escape(home) for home in homes)
    return re.compile(
        rf"{_INSIDE_A_PATH}(?P<file>file://)?(?:(?<=//)|(?<!/))(?:{alternatives})"
        rf"(?!{_NAME_GOES_ON})"
    )


def home_as_tilde(text: str) -> str:
    """``text`` with each occurrence of the user's home folder as a path written ``~``:
    ``/home/alice/papers/notes.md`` is ``~/papers/notes.md``, ``/home/alice`` alone is
    ``~``, ``file:///home/alice/x`` is ``file:~/x`` (:func:`home_relative`'s rule, for
    paths anywhere in a text). Every text the admission gate admits passes it first
    (:func:`arborist._gate.admission.admit`), so a question, label or reason typed with a home
    path is stored as ``~/…``. Text without the home's characters is returned as it is,
    at the cost of a substring test or three (a text without ``/`` holds no home, and is
    not even looked at further: most questions and labels).
    """
    if os.sep not in text:
        return text
    homes = user_homes()
    for home in homes:
        if home in text:
            return _home_in_text(homes).sub(_tilde, text)
    return text


def _tilde(found: re.Match[str]) -> str:
    return "file:~" if found.group("file") else "~"


def expand_home(path: str) -> str:
    """The path to read for a stored one: a leading ``~`` or ``~/`` is the user's home
    (``~user`` forms are not made by :func:`home_relative` and stay as they are)."""
    if path == "~" or path.startswith("~" + os.sep):
        return os.path.expanduser(path)
    return path


def load_or_create_key(home: Path) -> bytes:
    """The home's redaction key, created (mode 0600, exclusively) if it does not exist yet."""
    path = home / KEY_FILE
    try:
        make_private_folder(home)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        pass  # created earlier (or just now by another process): read it below
    except OSError as exc:
        raise StorageError(f"cannot create the redaction key {path}: {exc}") from exc
    else:
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(_KEY_BYTES))
    try:
        key = path.read_bytes()
    except OSError as exc:
        raise StorageError(f"cannot read the redaction key {path}: {exc}") from exc
    if len(key) != _KEY_BYTES:
        raise StorageError(f"the redaction key {path} is damaged ({len(key)} bytes)")
    return key


def safe_basename(path: str) -> str:
    """The text after the last separator, NFC, with anything but ``[A-Za-z0-9._-]`` replaced.

    Only that last component is ever shown: a path ending in a separator gives
    ``untitled``, never the directory above it (which is often a user name).
    """
    name = unicodedata.normalize("NFC", path).replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = _UNSAFE.sub("_", name).strip("._") or "untitled"
    return cleaned[:MAX_BASENAME]


def redact_path(path: str, key: bytes, *, display: str | None = None) -> str:
    """``<keyed hash>:<basename>`` for a transcript or notebook path; never the path itself.

    ``display`` replaces the basename where the basename itself may name a person
    (a working directory is often the home folder: ``/home/alice``).
    """
    normalized = unicodedata.normalize("NFC", os.path.normpath(path))
    digest = hmac.new(key, normalized.encode("utf-8"), hashlib.sha256).hexdigest()[:16]
    return f"{digest}:{safe_basename(display if display is not None else path)}"
