"""Reading a cache row's stored fields as an edit may have left them: a JSON object, a
proof, a chunk's text. Each reads what holds and gives a value that says it does not
otherwise (an empty object, no proof, an unreadable text), so the hashes rebuilt from it
name the edit rather than every view of the record failing. Pure: no I/O.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

__all__ = [
    "UNREADABLE",
    "WARM_MAX_BYTES",
    "stored_object",
    "stored_proof",
    "stored_text",
    "warm_text",
]

UNREADABLE = "\ufffd"
"""The text of a chunk whose stored bytes are not text, or do not decompress to UTF-8 (an
edit): it hashes to no leaf, so the item does not hold, and says so."""


def stored_object(text: object) -> dict[str, Any]:
    """A stored JSON object; an empty one when an edit left something else (the hashes of
    the key and of the record's event, rebuilt from the stored text, then say the record
    does not hold)."""
    try:
        found = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def stored_proof(text: object) -> list[str] | None:
    """A stored proof (a JSON list of hex digests), or None when an edit left something else."""
    try:
        found = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, list) and all(isinstance(h, str) for h in found) else None


def stored_text(text: object, packed: object) -> str | None:
    """A chunk's text as stored: hot as it is, warm decompressed, cold (neither) absent;
    :data:`UNREADABLE` for anything an edit left that is not text."""
    if text is None and packed is not None:
        try:
            return warm_text(packed)
        except ValueError:
            return UNREADABLE
    return text if text is None or isinstance(text, str) else UNREADABLE


WARM_MAX_BYTES = 1 << 16
"""More than any chunk's text in UTF-8 (a chunk holds at most
:data:`~arborist._store.chunking.MAX_CHARS` characters, of four bytes at most, and the form
feeds that open its pages): a warm chunk that decompresses to more is an edit, never read
whole (a megabyte of zlib can inflate to a gigabyte)."""


def warm_text(packed: object) -> str:
    """A warm chunk's text: its zlib bytes decompressed, at most :data:`WARM_MAX_BYTES` of
    them, and read as UTF-8. ValueError (one line) for anything else an edit may leave:
    bytes that are not zlib, a stream cut short, more than a chunk holds, no UTF-8."""
    if not isinstance(packed, bytes):
        raise ValueError("warm text is not bytes")
    reader = zlib.decompressobj()
    try:
        raw = reader.decompress(packed, WARM_MAX_BYTES + 1)
    except zlib.error as exc:
        raise ValueError(f"warm text cannot be decompressed ({exc})") from None
    if len(raw) > WARM_MAX_BYTES:
        raise ValueError(f"warm text decompresses to more than any chunk ({WARM_MAX_BYTES} bytes)")
    if not reader.eof:
        raise ValueError("warm text cannot be decompressed (a stream cut short)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("warm text is not UTF-8") from None
