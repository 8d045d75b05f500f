"""Server-sent events: each event of a byte stream, however it was split.

How a streamed chat completion arrives (``text/event-stream``). Pure: bytes in,
strings out, no I/O; a byte that is not UTF-8 raises UnicodeDecodeError for the
caller to report.

Besides ``data:`` a server may say something went wrong: a standard ``event:
error`` naming the event, or the ``error: {...}`` line llama.cpp's server writes
(a field SSE does not define) when it fails after it has answered 200, as it did
for a prompt larger than its context until late 2025. :func:`iter_sse_events`
keeps both, so the caller can report the server's own message;
:func:`iter_sse_data` is the data alone, as a plain SSE reader sees it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = ["SSEEvent", "iter_sse_data", "iter_sse_events"]

_EOL = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True)
class SSEEvent:
    """One event: its ``event:`` name (``message`` when it has none), its ``data:``
    lines joined by newlines (None when it had none) and its ``error:`` lines, if any."""

    event: str
    data: str | None
    error: str | None = None

    @property
    def is_error(self) -> bool:
        """Whether the server said, in either form, that this event is an error."""
        return self.error is not None or self.event == "error"


class _SSEDecoder:
    """Server-sent events, fed bytes in pieces of any size; yields each event.

    Lines end in CRLF, LF or CR (a CR at the end of a piece waits for the next,
    which may start with LF). ``data:`` lines of one event join with newlines
    (and so do ``error:`` lines), ``event:`` names it, and the event is
    dispatched at a blank line; comments (``:``) and other fields are ignored.
    At the end of the stream, data from complete lines is still dispatched
    (some servers omit the last blank line), but an unterminated last line is
    dropped: it may be cut short.
    """

    def __init__(self) -> None:
        self._buffer = b""
        self._held: list[bytes] = []  # pieces of a line still open, joined once it ends
        self._data: list[str] = []
        self._errors: list[str] = []
        self._event = ""

    def _dispatch(self) -> SSEEvent | None:
        if not self._data and not self._errors:
            self._event = ""
            return None
        event = SSEEvent(
            self._event or "message",
            "\n".join(self._data) if self._data else None,
            "\n".join(self._errors) if self._errors else None,
        )
        self._data, self._errors, self._event = [], [], ""
        return event

    def _line(self, line: bytes) -> SSEEvent | None:
        if not line:
            return self._dispatch()
        text = line.decode("utf-8")
        field, _, value = text.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            self._data.append(value)
        elif field == "error":
            self._errors.append(value)
        elif field == "event":
            self._event = value
        return None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """The events completed by ``chunk``; raises UnicodeDecodeError on bytes that are not UTF-8.

        A piece that ends no line is held, not added to what came before: a line sent in
        many pieces is joined once, not once per piece (which was quadratic)."""
        if b"\n" not in chunk and b"\r" not in chunk and not self._buffer.endswith(b"\r"):
            if chunk:
                self._held.append(chunk)
            return []
        if self._held:
            self._held.append(chunk)
            chunk = b"".join(self._held)
            self._held = []
        buffer = self._buffer + chunk
        events = []
        pos = 0
        for match in _EOL.finditer(buffer):
            if match.group() == b"\r" and match.end() == len(buffer):
                break
            event = self._line(buffer[pos : match.start()])
            if event is not None:
                events.append(event)
            pos = match.end()
        self._buffer = buffer[pos:]
        return events

    def close(self) -> list[SSEEvent]:
        """The events still pending when the stream ends."""
        if self._held:
            self._buffer += b"".join(self._held)
            self._held = []
        events = []
        if self._buffer.endswith(b"\r"):  # a last line ended by a bare CR is complete
            event = self._line(self._buffer[:-1])
            if event is not None:
                events.append(event)
        self._buffer = b""
        last = self._dispatch()
        if last is not None:
            events.append(last)
        return events


def iter_sse_events(chunks: Iterable[bytes]) -> Iterator[SSEEvent]:
    """Each server-sent event in a byte stream, however it was split."""
    decoder = _SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.close()


def iter_sse_data(chunks: Iterable[bytes]) -> Iterator[str]:
    """The ``data`` of each server-sent event in a byte stream, however it was split."""
    for event in iter_sse_events(chunks):
        if event.data is not None:
            yield event.data
