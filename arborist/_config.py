"""A home's ``config.toml``: read once per change, and each setting the facade reads checked.

Every ask reads the file (model profiles, the admission allowlist), so :class:`ConfigFile`
keeps its parse until the file's size or mtime changes: one stat per use. A setting of the
wrong shape is a one-line :class:`~arborist._errors.BadInput` naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    "ConfigFile",
    "allowlist",
    "coaccess_params",
    "max_file_bytes",
    "names_an_embedder",
]

CONFIG_FILE = "config.toml"


class ConfigFile:
    """``config.toml`` at ``path``, parsed (empty when there is none), the parse kept
    while the file's size and mtime stay the same."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._parsed: tuple[tuple[int, int], dict[str, Any]] | None = None

    def read(self) -> dict[str, Any]:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return {}
        stamp = (info.st_mtime_ns, info.st_size)
        if self._parsed is None or self._parsed[0] != stamp:
            # not UTF-8, not TOML, or nested too deep to parse: one line
            where = str(self.path)
            self._parsed = (stamp, loads_toml(decode(self.path.read_bytes(), where), where))
        return self._parsed[1]


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
