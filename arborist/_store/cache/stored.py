"""Reading a cache row's stored fields as an edit may have left them: a JSON object, a
proof, a chunk's text. Each reads what holds and gives a value that says it does not
otherwise (an empty object, no proof, an unreadable text), so the hashes rebuilt from it
name the edit rather than every view of the record failing. Pure: no I/O.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

__all__ = ["UNREADABLE", "stored_object", "stored_proof", "stored_text"]

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
            return zlib.decompress(packed).decode("utf-8")  # type: ignore[arg-type]
        except (zlib.error, UnicodeDecodeError, TypeError):
            return UNREADABLE
    return text if text is None or isinstance(text, str) else UNREADABLE
