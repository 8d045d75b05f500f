"""A home's ``config.toml``: read once per change, each setting the facade reads checked, and
whether the file may send anything off this machine.

Every ask reads the file (model profiles, the admission allowlist), so :class:`ConfigFile`
keeps its parse until the file's size or mtime changes: one stat per use. A setting of the
wrong shape is a one-line :class:`~arborist._errors.BadInput` naming it.

A home can sit beside a notebook, in a folder someone else made (a repository cloned, an
archive unpacked), so a config.toml is not taken for the user's word just for being there:
its :class:`Trust` (:func:`judge`, the one rule) says whether it may name a model server off
this machine, where every question, ingested passage and the key its ``api_key_env`` names
would go. It may when it is the user's own: a file, not a link, that only the user can
change, in the default home (``~/.arborist``) or in a home the user allowed
(``--trust-config``, or ``ARBORIST_TRUST_CONFIG`` naming the home or the file: git's
``safe.directory``, direnv's ``allow``). Otherwise it may name only loopback servers, which
keep everything on this machine. The rule is enforced where every server profile, chat or
embeddings, is built (:func:`arborist._qa.models.server_settings`).
"""

from __future__ import annotations

import ipaddress
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from arborist._errors import BadInput
from arborist._safejson import decode, loads_toml
from arborist._store import coaccess
from arborist._store.reading import (
    DEFAULT_MAX_FILE_BYTES,
    MAX_FILE_BYTES_ENV,
    parse_max_file_bytes,
)

__all__ = [
    "CONFIG_FILE",
    "Config",
    "ConfigFile",
    "TRUST_ENV",
    "Trust",
    "YOURS",
    "allowlist",
    "coaccess_params",
    "judge",
    "max_file_bytes",
    "names_an_embedder",
    "on_loopback",
    "trust_of",
]

CONFIG_FILE = "config.toml"
TRUST_ENV = "ARBORIST_TRUST_CONFIG"
"""Homes (or their config.toml) whose file the user vouches for, separated by ``os.pathsep``."""


@dataclass(frozen=True)
class Trust:
    """Whether a config may name a model server off this machine: ``doubt`` says why not
    (empty: it may), ``source`` is the file (empty: a mapping a caller passed, its own)."""

    source: str = ""
    doubt: str = ""

    def refusal(self, where: str, server: str) -> BadInput:
        """The one line refusing to send anything to ``server`` on this file's word."""
        return BadInput(
            f"{where}: not sending anything to {server} (off this machine) on the word of "
            f"{self.source}: it is {self.doubt}"
        )


YOURS = Trust()
"""A config the caller built (Python code, the environment): the user's own word."""


class Config(dict[str, Any]):
    """A parsed config.toml and its :class:`Trust`, which follows it wherever it is read.
    ``trust`` may be given as the function that judges it: it is then judged once, when a
    profile naming a server asks for it, never on an ask that names none (a cache hit)."""

    def __init__(
        self, parsed: Mapping[str, Any], trust: Trust | Callable[[], Trust] = YOURS
    ) -> None:
        super().__init__(parsed)
        self._trust = trust

    @property
    def trust(self) -> Trust:
        if not isinstance(self._trust, Trust):
            self._trust = self._trust()
        return self._trust


def on_loopback(base_url: str) -> bool:
    """Whether a base URL's host is this machine by its name alone: ``localhost`` or a
    loopback address (127.0.0.0/8, ``::1``, either mapped). The host is the one httpx
    connects to (its parser, not another's), and no name is looked up: a name that
    resolves to loopback today may resolve elsewhere tomorrow."""
    import httpx  # noqa: PLC0415 - only with a server profile, never at start-up

    try:
        host = httpx.URL(base_url).host
    except (httpx.InvalidURL, UnicodeError, TypeError):
        return False
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def trust_of(config: Mapping[str, Any] | None) -> Trust:
    """A config's trust: a file's judged when read, a plain mapping the caller's own."""
    return config.trust if isinstance(config, Config) else YOURS


class ConfigFile:
    """``config.toml`` at ``path``, parsed (empty when there is none), the parse kept
    while the file's size and mtime stay the same; judged (:func:`judge`) anew for every
    read whose trust is asked for, since a chmod, a new owner or ``ARBORIST_TRUST_CONFIG``
    changes no mtime. ``vouched``:
    the user allowed this home for the run (``--trust-config``)."""

    def __init__(self, path: Path, *, vouched: bool = False) -> None:
        self.path = path
        self.vouched = vouched
        self._parsed: tuple[tuple[int, int], dict[str, Any]] | None = None

    def read(self) -> Config:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return Config({})
        stamp = (info.st_mtime_ns, info.st_size)
        if self._parsed is None or self._parsed[0] != stamp:
            # not UTF-8, not TOML, or nested too deep to parse: one line
            where = str(self.path)
            self._parsed = (stamp, loads_toml(decode(self.path.read_bytes(), where), where))
        return Config(self._parsed[1], partial(judge, self.path, os.environ, vouched=self.vouched))


def judge(path: Path, env: Mapping[str, str], *, vouched: bool = False) -> Trust:
    """Whether the config.toml at ``path`` is the user's own word (see the module's
    docstring). Its owner and modes are judged first and no opt-in lifts them: a file that
    someone else can change is theirs as much as the user's, whoever allowed the home."""
    shown = str(path)
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    try:
        link = path.is_symlink()
        info, folder = path.stat(), path.parent.stat()
    except OSError as exc:
        return Trust(shown, f"not readable ({exc.strerror})")
    if link:
        doubt = "a symbolic link (copy the file it points to in its place)"
    elif uid is not None and info.st_uid != uid:
        doubt = f"owned by another user (uid {info.st_uid})"
    elif uid is not None and _others_write(info, uid):
        doubt = f"writable by other users (chmod go-w {shown})"
    elif uid is not None and (
        folder.st_uid not in (uid, 0)
        or (_others_write(folder, uid) and not folder.st_mode & stat.S_ISVTX)
    ):
        doubt = f"in a folder other users can change ({path.parent})"
    elif vouched or _allowed(path, env) or _in_default_home(path):
        return Trust(shown)
    else:
        home = path.parent
        doubt = (
            "not in your default home (~/.arborist) nor in one you allowed; if you wrote it, "
            f"pass --trust-config or set {TRUST_ENV}={home}"
        )
    return Trust(shown, doubt)


def _others_write(info: os.stat_result, uid: int) -> bool:
    """Whether users other than ``uid`` may write it: anyone, or a group that is not the
    user's private one (Debian's umask 002 makes every file group-writable, the group the
    user's own: named as the user, their primary group, listing no one else). A shared
    primary group (``users``) lists no one either, so the name is checked too."""
    if info.st_mode & stat.S_IWOTH:
        return True
    if not info.st_mode & stat.S_IWGRP:
        return False
    import grp  # noqa: PLC0415 - POSIX only, and only for a group-writable file
    import pwd  # noqa: PLC0415

    try:
        user, group = pwd.getpwuid(uid), grp.getgrgid(info.st_gid)
    except KeyError:
        return True
    private = info.st_gid == user.pw_gid and group.gr_name == user.pw_name
    return not private or any(m != user.pw_name for m in group.gr_mem)


def _allowed(path: Path, env: Mapping[str, str]) -> bool:
    """Whether ``ARBORIST_TRUST_CONFIG`` names this home or this file (each entry resolved:
    a relative or linked name of the same folder counts)."""
    here = {path.parent.resolve(), path.resolve()}
    entries = env.get(TRUST_ENV, "").split(os.pathsep)
    return any(Path(e.strip()).expanduser().resolve() in here for e in entries if e.strip())


def _in_default_home(path: Path) -> bool:
    """Whether ``path`` is in ``~/.arborist``, the home no notebook or folder chooses."""
    return path.parent.resolve() == (Path.home() / ".arborist").resolve()


def allowlist(config: Mapping[str, Any]) -> list[str]:
    """Exact strings the admission gate must never redact (``[admission] allowlist``)."""
    section = config.get("admission", {})
    values = section.get("allowlist", []) if isinstance(section, dict) else None
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise BadInput("config.toml: [admission] allowlist must be a list of strings")
    return list(values)


def coaccess_params(config: Mapping[str, Any]) -> tuple[int, int]:
    """``(window, fanout)`` from ``[coaccess]``, else the defaults."""
    section = config.get("coaccess", {})
    if not isinstance(section, dict):
        raise BadInput("config.toml: [coaccess] must be a table")
    window = section.get("window", coaccess.DEFAULT_WINDOW)
    fanout = section.get("fanout", coaccess.DEFAULT_FANOUT)
    for name, value in (("window", window), ("fanout", fanout)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadInput(f"config.toml: [coaccess] {name} must be an integer")
    return window, fanout


def max_file_bytes(config: Mapping[str, Any], env: Mapping[str, str]) -> int:
    """The largest file ingest reads: ``ARBORIST_MAX_FILE_BYTES``, else ``[ingest]
    max_file_bytes``, else :data:`~arborist._store.reading.DEFAULT_MAX_FILE_BYTES` (64 MiB)."""
    raw = env.get(MAX_FILE_BYTES_ENV, "").strip()
    if raw:
        return parse_max_file_bytes(raw, MAX_FILE_BYTES_ENV)
    section = config.get("ingest", {})
    if not isinstance(section, dict):
        raise BadInput("config.toml: [ingest] must be a table")
    if "max_file_bytes" not in section:
        return DEFAULT_MAX_FILE_BYTES
    value = section["max_file_bytes"]
    where = "config.toml: [ingest] max_file_bytes"
    if isinstance(value, str):  # TOML has integers: a string is a mistake, not a number
        raise BadInput(f"{where} must be a whole number of bytes above 0, not {value!r}")
    return parse_max_file_bytes(value, where)


def names_an_embedder(config: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether anything names an embedding model (a partial setting too, so that
    :func:`~arborist._qa.embeddings.select_embedder` can refuse it in one line)."""
    if any(name.startswith("ARBORIST_EMBED_") for name in env) or "embeddings" in config:
        return True
    models = config.get("models")
    return isinstance(models, Mapping) and any(
        isinstance(m, Mapping) and m.get("kind") == "embeddings" for m in models.values()
    )
