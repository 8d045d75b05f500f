"""Server-sent events: the ``data`` of each event in a byte stream, however it was split.

How a streamed chat completion arrives (``text/event-stream``). Pure: bytes in,
strings out, no I/O; a byte that is not UTF-8 raises UnicodeDecodeError for the
caller to report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = ["iter_sse_data"]

_EOL = re.compile(rb"\r\n|\r|\n")


class _SSEDecoder:
    """Server-sent events, fed bytes in pieces of any size; yields each event's data.

    Lines end in CRLF, LF or CR (a CR at the end of a piece waits for the next,
    which may start with LF). ``data:`` lines of one event join with newlines
    and the event is dispatched at a blank line; comments (``:``) and other
    fields are ignored. At the end of the stream, data from complete lines is
    still dispatched (some servers omit the last blank line), but an
    unterminated last line is dropped: it may be cut short.
    """

    def __init__(self) -> None:
        self._buffer = b""
        self._held: list[bytes] = []  # pieces of a line still open, joined once it ends
        self._data: list[str] = []

    def _line(self, line: bytes) -> str | None:
        if not line:
            if not self._data:
                return None
            event = "\n".join(self._data)
            self._data = []
            return event
        text = line.decode("utf-8")
        field, _, value = text.partition(":")
        if field == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)
        return None

    def feed(self, chunk: bytes) -> list[str]:
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

    def close(self) -> list[str]:
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
        if self._data:
            events.append("\n".join(self._data))
            self._data = []
        return events


def iter_sse_data(chunks: Iterable[bytes]) -> Iterator[str]:
    """The ``data`` of each server-sent event in a byte stream, however it was split."""
    decoder = _SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.close()
