"""Text a remote server sent, made fit to show and store. Pure: no I/O.

Two things a server may send are never passed on. Lone UTF-16 surrogates
(``"\\udc9b"`` is a valid JSON escape) cannot be encoded as UTF-8, so the store
could not hold an answer with one: each becomes U+FFFD, and a pair split in two
is joined. The client's own API key, if the server echoes it, becomes
:data:`API_KEY_PLACEHOLDER` wherever it occurs, even split across streamed
pieces. Metadata kept with an answer is also made canonical-JSON-safe.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arborist._proofs.hashing import MAX_SAFE_INTEGER

__all__ = [
    "API_KEY_PLACEHOLDER",
    "MIN_REDACTED_KEY",
    "StreamText",
    "json_safe",
    "key_pattern",
    "no_lone_surrogates",
]

_MAX_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")

API_KEY_PLACEHOLDER = "[REDACTED:api_key]"
"""What replaces the client's own API key wherever a server echoed it (the admission
gate's ``[REDACTED:<kind>]`` form)."""

MIN_REDACTED_KEY = 8
"""Keys shorter than this are not looked for in what a server sends back. Servers that
need no key are given a dummy (``x``, ``EMPTY``, ``ollama``), and blotting every ``x``
out of an answer ("ma***imum") hides nothing and garbles everything; a real key is far
longer. Such a key is still sent, and never put in the profile, ``raw`` or an error by
the client itself."""


def _join_pair(match: re.Match[str]) -> str:
    return match.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def no_lone_surrogates(text: str) -> str:
    """``text`` with each surrogate pair joined into its character and each lone
    surrogate (which UTF-8, and so the store, cannot hold) replaced by U+FFFD."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", _SURROGATE_PAIR.sub(_join_pair, text))


def key_pattern(key: str | None) -> re.Pattern[str] | None:
    """The API key wherever it occurs, even with letters glued to it (``xKEYy`` still
    holds the whole key); None for no key or one shorter than :data:`MIN_REDACTED_KEY`,
    which is the rule that keeps a dummy key from garbling ordinary words."""
    if not key or len(key) < MIN_REDACTED_KEY:
        return None
    return re.compile(re.escape(key))


class StreamText:
    """Streamed pieces made fit to show and store, the same as the whole text would be.

    Lone surrogates become U+FFFD (a pair split across two pieces is joined), and the
    key is redacted even when it arrives split across pieces: the end of what came so
    far that could still be the start of the key is held back until the next piece
    says whether it is. ``"".join`` of what :meth:`feed` and :meth:`close` return is
    exactly what the cleaning of the whole text gives.
    """

    def __init__(self, key: str | None) -> None:
        self._pattern = key_pattern(key)
        self._key = key or ""
        self._pending = ""
        self._before = ""  # the last character handed on: the key's left neighbour

    def feed(self, piece: str) -> str:
        """What of the text so far can be handed on now."""
        return self._take(self._pending + piece, final=False)

    def close(self) -> str:
        """Whatever was held back, at the end of the stream."""
        return self._take(self._pending, final=True)

    def _take(self, text: str, *, final: bool) -> str:
        text = _SURROGATE_PAIR.sub(_join_pair, text)
        cut = len(text)
        if not final and text and "\ud800" <= text[-1] <= "\udbff":
            cut -= 1  # a high surrogate may pair with the next piece's low one
        text = _SURROGATE.sub("\ufffd", text[:cut]) + text[cut:]
        if final:
            cut = len(text)
        elif self._pattern is not None:
            start = text.find(self._key[0], max(0, cut - len(self._key)), cut)
            while start != -1:
                if self._key.startswith(text[start:cut]):
                    cut = start  # may still become the key (or is it, before its neighbour)
                    break
                start = text.find(self._key[0], start + 1, cut)
        out: list[str] = []
        pos = 0
        if self._pattern is not None:
            context = self._before + text
            for match in self._pattern.finditer(context, len(self._before)):
                start, end = match.start() - len(self._before), match.end() - len(self._before)
                if start >= cut:
                    break
                out += [text[pos:start], API_KEY_PLACEHOLDER]
                pos = end
                cut = max(cut, end)
        out.append(text[pos:cut])
        if cut:
            self._before = text[cut - 1]
        self._pending = text[cut:]
        return "".join(out)


def json_safe(
    value: object, depth: int = 0, clean: Callable[[str], str] = no_lone_surrogates
) -> object:
    """``value`` made canonical-JSON-safe: floats and huge integers become strings, and
    every string (keys too) passes ``clean``, which must at least remove lone surrogates
    (canonical JSON refuses them)."""
    safe: object
    if isinstance(value, str):
        safe = clean(value)
    elif value is None or isinstance(value, bool):
        safe = value
    elif isinstance(value, int):
        safe = value if abs(value) <= MAX_SAFE_INTEGER else str(value)
    elif depth >= _MAX_DEPTH:
        safe = "…"
    elif isinstance(value, dict):
        safe = {clean(str(key)): json_safe(item, depth + 1, clean) for key, item in value.items()}
    elif isinstance(value, (list, tuple)):
        safe = [json_safe(item, depth + 1, clean) for item in value]
    else:
        safe = repr(value)  # floats (and anything stranger) as text
    return safe
