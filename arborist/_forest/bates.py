"""Session ids and bates numbers. Pure.

``sid`` = ``YYYYMMDDTHHMMSSZ-<6 hex>``: when the session began (UTC) and six
random hex digits, never reused. A **bates** number names one turn:
``<sid>-<6 digit seq>``, seq 0 being the session's synthetic root. Bates
numbers are parsed from the right, so the sid part can never be confused
with the seq.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timezone

from arborist._errors import BadReference

__all__ = [
    "MAX_SEQ",
    "format_bates",
    "is_bates",
    "is_sid",
    "new_sid",
    "parse_bates",
    "parse_sid",
]

MAX_SEQ = 999_999

# [0-9], not \d: \d also matches other scripts' digits, which format_bates never writes.
_SID = re.compile(r"[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}")
_BATES = re.compile(r"([0-9]{8}T[0-9]{6}Z-[0-9a-f]{6})-([0-9]{6})")


def new_sid(now: datetime | None = None, token: str | None = None) -> str:
    """A fresh session id for ``now`` (default: the current UTC time)."""
    moment = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return f"{moment:%Y%m%dT%H%M%SZ}-{token or secrets.token_hex(3)}"


def is_sid(text: str) -> bool:
    return bool(_SID.fullmatch(text))


def is_bates(text: str) -> bool:
    return bool(_BATES.fullmatch(text))


def parse_sid(text: str) -> str:
    """``text`` if it is a well-formed sid; BadReference otherwise."""
    value = text.strip()
    if not _SID.fullmatch(value):
        raise BadReference(f"bad session id {text!r}: expected YYYYMMDDTHHMMSSZ-xxxxxx")
    return value


def parse_bates(text: str) -> tuple[str, int]:
    """``(sid, seq)`` of a bates number; BadReference with one line otherwise."""
    value = text.strip()
    match = _BATES.fullmatch(value)
    if not match:
        raise BadReference(f"bad bates number {text!r}: expected <sid>-<6 digits>")
    return match.group(1), int(match.group(2))


def format_bates(sid: str, seq: int) -> str:
    """The bates number of turn ``seq`` of session ``sid``."""
    if not 0 <= seq <= MAX_SEQ:
        raise BadReference(f"seq {seq} is outside 0..{MAX_SEQ}")
    return f"{sid}-{seq:06d}"
