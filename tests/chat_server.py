"""A real chat-completions server on loopback, for tests: scripted per test, counting requests.

It speaks enough of OpenAI's ``POST /v1/chat/completions`` for arborist's
client to be tested over real sockets: plain JSON answers, SSE streams (split
into TCP writes of any size, cut short, or dropped mid-body), error statuses
with headers such as ``Retry-After``, hang-ups, answers that come too late and
servers that never answer at all.

Use the ``chat_server`` fixture; import it into a test module under another
name, so that ruff does not take its parameters for redefinitions (F811)::

    from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

    def test_retries(chat_server: ChatServer) -> None:
        chat_server.script(error_reply(503, "busy"), completion("fine"))
        client = OpenAIClient(chat_server.url, "test-model", http=HttpSettings(sleep=lambda s: None))
        ...
        assert chat_server.requests == 2

Each request takes the next scripted reply; with the script empty the server
answers on its own: it quotes the first evidence header of the prompt
(``[E1 | title | uri]``) in a short answer, streamed if the request asked for
a stream. Every request, on any path, is recorded in ``received`` and counted
by ``requests`` (so "a cache hit sends zero requests" is ``requests == 0``).

It also serves ``POST /v1/embeddings``: unscripted, each input text becomes
:func:`ngram_vector` (hashed character n-grams of its words, normalized: the
same text always gives the same vector, and texts sharing word pieces are
near), so a test, or ``bench/quality.py``, has a deterministic embedding model
on loopback. ``embeddings(...)`` scripts a reply of given vectors, to test what
the client refuses (too few, wrong dimensions, NaN).
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

__all__ = [
    "ChatServer",
    "RecordedRequest",
    "Reply",
    "chat_server",
    "completion",
    "drip",
    "embeddings",
    "error_reply",
    "hang_up",
    "json_reply",
    "loopback",
    "ngram_vector",
    "raw_reply",
    "silent",
    "slow",
    "sse_reply",
    "stream_reply",
]

ROUTE = "/v1/chat/completions"
EMBED_ROUTE = "/v1/embeddings"
NGRAM_DIMENSIONS = 384
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)
_HEADER = re.compile(r"\[E[0-9]+ \|[^\[\]\n]*\]")


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it; header names are lowercase."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


@dataclass(frozen=True)
class Reply:
    """One scripted answer.

    ``chunks`` is the body, written and flushed piece by piece (Nagle off, with
    ``pause`` seconds between pieces, so each piece is its own TCP segment).
    ``chunked`` frames the body with HTTP/1.1 chunked encoding instead of a
    Content-Length; ``drop`` then closes the connection before the final
    chunk, a body cut off mid-way. ``delay`` waits before answering at all;
    ``hang_up`` closes the connection without a word. ``gate`` holds the body before
    piece ``gate_at`` until the test sets it (once it has seen what came before).
    """

    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    chunks: tuple[bytes, ...] = ()
    chunked: bool = False
    drop: bool = False
    pause: float = 0.0
    delay: float = 0.0
    hang_up: bool = False
    gate: threading.Event | None = None
    gate_at: int = 0


ReplySource = Reply | Callable[[RecordedRequest], Reply]


def json_reply(
    body: object, *, status: int = 200, headers: Sequence[tuple[str, str]] = ()
) -> Reply:
    """A JSON body with a Content-Length."""
    data = json.dumps(body).encode("utf-8")
    return Reply(status, (("Content-Type", "application/json"), *headers), (data,))


def raw_reply(body: bytes, *, status: int = 200, content_type: str = "application/json") -> Reply:
    """Any bytes at all under any content type (malformed JSON, HTML error pages...)."""
    return Reply(status, (("Content-Type", content_type),), (body,))


def completion(
    text: str | None,
    *,
    model: str = "test-model",
    finish_reason: str | None = "stop",
    choices: int = 1,
) -> Reply:
    """A chat completion as OpenAI shapes it (``text=None`` gives a null content)."""
    return json_reply(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "system_fingerprint": "fp_test",
            "choices": [
                {
                    "index": index,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": finish_reason,
                }
                for index in range(choices)
            ],
            "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
        }
    )


def error_reply(status: int, message: str, *, headers: Sequence[tuple[str, str]] = ()) -> Reply:
    """An error status with OpenAI's error body: ``{"error": {"message": ...}}``."""
    return json_reply(
        {"error": {"message": message, "type": "test_error", "code": status}},
        status=status,
        headers=headers,
    )


def sse_reply(
    events: Sequence[object],
    *,
    done: bool = True,
    split: int | None = None,
    pause: float = 0.001,
    newline: str = "\n",
    keepalive: bool = True,
    drop: bool = False,
) -> Reply:
    """A server-sent event stream: each event a JSON object (dict) or raw data text (str).

    ``done`` ends it with ``data: [DONE]``; ``keepalive`` opens with a comment
    line; ``split`` cuts the bytes into writes of that many bytes, wherever
    they fall (mid-line, mid-character); ``drop`` closes the connection
    before the body is properly finished.
    """
    lines = [": keepalive" + newline + newline] if keepalive else []
    for event in events:
        data = event if isinstance(event, str) else json.dumps(event)
        lines.append(f"data: {data}{newline}{newline}")
    if done:
        lines.append(f"data: [DONE]{newline}{newline}")
    body = "".join(lines).encode("utf-8")
    if split is None:
        chunks = tuple(line.encode("utf-8") for line in lines)
    else:
        chunks = tuple(body[i : i + split] for i in range(0, len(body), split))
    return Reply(
        200,
        (("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")),
        chunks,
        chunked=True,
        drop=drop,
        pause=pause,
    )


def _chunk(model: str, delta: dict[str, object], finish_reason: str | None) -> dict[str, object]:
    return {
        "id": "chatcmpl-stream",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def stream_reply(
    deltas: Sequence[str],
    *,
    model: str = "test-model",
    finish_reason: str = "stop",
    cut_after: int | None = None,
    usage: bool = False,
    **options: Any,
) -> Reply:
    """A streamed completion of ``deltas`` as OpenAI sends it.

    It opens with a role-only delta and a null-content delta (both legal, both
    carry no text), then one chunk per delta, a finishing chunk and
    ``[DONE]``. ``cut_after=n`` stops after n deltas: no finish, no ``[DONE]``.
    Other options go to :func:`sse_reply` (``split``, ``newline``, ``drop``...).
    """
    events: list[object] = [
        _chunk(model, {"role": "assistant"}, None),
        _chunk(model, {"content": None}, None),
    ]
    shown = deltas if cut_after is None else deltas[:cut_after]
    events += [_chunk(model, {"content": delta}, None) for delta in shown]
    if cut_after is None:
        events.append(_chunk(model, {}, finish_reason))
        if usage:
            events.append(
                {
                    "id": "chatcmpl-stream",
                    "object": "chat.completion.chunk",
                    "model": model,
                    "choices": [],
                    "usage": {"prompt_tokens": 42, "completion_tokens": len(deltas)},
                }
            )
    return sse_reply(events, done=cut_after is None, **options)


def hang_up() -> Reply:
    """Read the request, then close the connection without answering."""
    return Reply(hang_up=True)


def silent() -> Reply:
    """Read the request, then say nothing at all: a server that accepted and hung.

    The connection stays open without a byte of answer until the client gives
    up or the server stops (stopping releases the handler at once).
    """
    return Reply(delay=3600.0)


def ngram_vector(text: str, dimensions: int = NGRAM_DIMENSIONS) -> list[float]:
    """A deterministic stand-in for an embedding model: each word (lowercased, common
    function words dropped) adds its character 3- and 4-grams (with the word's edges
    marked) into ``dimensions`` buckets by CRC-32, with a sign from the same hash; counts
    are damped (log), and the vector normalized. "inserting" and "insert" share most of
    their pieces, so they land near each other; a text with no word is a unit vector."""
    counts: dict[int, float] = {}
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in _STOP:
            continue
        padded = f"<{word}>"
        for size in (3, 4):
            for start in range(len(padded) - size + 1):
                code = zlib.crc32(padded[start : start + size].encode("utf-8"))
                bucket = (code >> 1) % dimensions
                counts[bucket] = counts.get(bucket, 0.0) + (1.0 if code & 1 else -1.0)
    vector = [0.0] * dimensions
    for bucket, count in counts.items():
        vector[bucket] = math.copysign(math.log1p(abs(count)), count)
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0:
        vector[0], norm = 1.0, 1.0
    return [v / norm for v in vector]


def embeddings(vectors: Sequence[Sequence[float]], *, model: str = "test-embed") -> Reply:
    """An embeddings reply carrying exactly ``vectors`` (NaN is written as JSON's NaN)."""
    return json_reply(
        {
            "object": "list",
            "model": model,
            "data": [
                {"object": "embedding", "index": i, "embedding": list(v)}
                for i, v in enumerate(vectors)
            ],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
    )


Embedder = Callable[[list[str]], Sequence[Sequence[float]]]
"""What the server embeds unscripted inputs with: texts in, one vector per text out."""


def ngram_embedder(texts: list[str]) -> list[list[float]]:
    """The default :data:`Embedder`: :func:`ngram_vector` of each text."""
    return [ngram_vector(t) for t in texts]


def _default_embeddings(request: RecordedRequest, embed: Embedder = ngram_embedder) -> Reply:
    """The unscripted embeddings: ``embed`` of the inputs, in order."""
    body = request.body if isinstance(request.body, dict) else {}
    texts = body.get("input")
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        return error_reply(400, "input must be a string or a list of strings")
    model = body.get("model") if isinstance(body.get("model"), str) else "test-embed"
    return embeddings(embed(texts), model=str(model))


def _stalled(reply: Reply, request: RecordedRequest, stall: Callable[[int], float] | None) -> Reply:
    """``reply`` after the seconds ``stall`` gives for the request's number of texts."""
    if stall is None:
        return reply
    texts = request.body.get("input") if isinstance(request.body, dict) else None
    return replace(reply, delay=stall(len(texts) if isinstance(texts, list) else 1))


def drip(reply: Reply, pieces: int, pause: float) -> Reply:
    """``reply``'s body cut into ``pieces`` written ``pause`` seconds apart: a server that
    trickles its answer, each piece well within a read timeout, the whole past it."""
    body = b"".join(reply.chunks)
    size = max(1, -(-len(body) // pieces))
    cut = tuple(body[i : i + size] for i in range(0, len(body), size))
    return replace(reply, chunks=cut, pause=pause)


def slow(seconds: float, reply: Reply | None = None) -> Reply:
    """``reply`` (default: a plain completion) after ``seconds`` of silence."""
    return replace(reply or completion("late answer"), delay=seconds)


def _default_reply(request: RecordedRequest) -> Reply:
    """The unscripted answer: cite the prompt's first evidence header, if there is one."""
    body = request.body if isinstance(request.body, dict) else {}
    messages = body.get("messages") or []
    prompt = messages[-1].get("content", "") if messages and isinstance(messages[-1], dict) else ""
    header = _HEADER.search(prompt) if isinstance(prompt, str) else None
    if header:
        text = f"The test server read the evidence. {header.group()}"
    else:
        text = "The test server found no evidence."
    model = body.get("model")
    model = model if isinstance(model, str) else "test-model"
    if body.get("stream"):
        return stream_reply(re.split(r"(?<=\S)(?=\s)", text), model=model)
    return completion(text, model=model)


class _Handler(BaseHTTPRequestHandler):
    """Records the request, then plays the scripted reply byte for byte."""

    server: ChatServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read ``received``, not stderr."""

    def _record(self) -> RecordedRequest:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        return RecordedRequest(self.command, self.path.split("?")[0], headers, body, raw)

    def _serve(self) -> None:
        reply = self.server.answer(self._record())
        self.close_connection = True
        if reply.delay and self.server.stopping.wait(reply.delay):
            return
        if reply.hang_up:
            return
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        if reply.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(sum(map(len, reply.chunks))))
        self.send_header("Connection", "close")
        self.end_headers()
        for index, piece in enumerate(reply.chunks):
            if index and reply.pause:
                time.sleep(reply.pause)
            if reply.gate is not None and index == reply.gate_at:
                while not reply.gate.wait(0.05):
                    if self.server.stopping.is_set():
                        return
            framed = f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if reply.chunked else piece
            self.wfile.write(framed)
            self.wfile.flush()
        if reply.chunked and not reply.drop:
            self.wfile.write(b"0\r\n\r\n")

    do_POST = _serve
    do_GET = _serve


class ChatServer(ThreadingHTTPServer):
    """The server: ``url`` (ending in ``/v1``), ``script(...)``, ``received``, ``requests``."""

    daemon_threads = False  # server_close() joins the handlers, so no socket outlives a test
    block_on_close = True

    def __init__(
        self,
        embed: Embedder = ngram_embedder,
        *,
        stall: Callable[[int], float] | None = None,
        port: int = 0,
    ) -> None:
        super().__init__(("127.0.0.1", port), _Handler)  # port 0: any free one
        self.embed = embed
        """What unscripted ``/v1/embeddings`` inputs are embedded with."""
        self.stall = stall
        """Seconds an unscripted ``/v1/embeddings`` reply waits, given how many texts it
        embeds (a loaded server: slower the more it is asked at once), or None: at once."""
        self.received: list[RecordedRequest] = []
        self.errors: list[str] = []
        self.stopping = threading.Event()
        self._script: deque[ReplySource] = deque()
        self.embedded = 0
        """How many texts ``/v1/embeddings`` was asked to embed, over all requests."""
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL a client is configured with."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    @property
    def requests(self) -> int:
        """How many requests arrived, on any path."""
        with self._lock:
            return len(self.received)

    @property
    def embed_requests(self) -> int:
        """How many requests went to ``/v1/embeddings``."""
        with self._lock:
            return sum(1 for r in self.received if r.path == EMBED_ROUTE)

    def script(self, *replies: ReplySource) -> None:
        """Queue replies for the next requests, in order (a callable builds one from the request)."""
        with self._lock:
            self._script.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._script)

    def answer(self, request: RecordedRequest) -> Reply:
        """Record ``request`` and choose its reply."""
        with self._lock:
            self.received.append(request)
            if request.path == EMBED_ROUTE and isinstance(request.body, dict):
                texts = request.body.get("input")
                self.embedded += len(texts) if isinstance(texts, list) else 1
            if request.path not in (ROUTE, EMBED_ROUTE):
                source: ReplySource = error_reply(404, f"no route {request.path}")
            elif self._script:
                source = self._script.popleft()
            elif request.path == EMBED_ROUTE:
                embed, stall = self.embed, self.stall
                source = lambda r: _stalled(_default_embeddings(r, embed), r, stall)  # noqa: E731
            else:
                source = _default_reply
        return source(request) if callable(source) else source

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (timeout, closed socket) is expected; anything else is kept."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        self.errors.append(f"{type(error).__name__}: {error}")

    def start(self) -> None:
        """Serve in a background thread."""
        self._thread = threading.Thread(
            target=self.serve_forever, args=(0.01,), name="chat-server", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Release delayed answers, stop serving, join every thread, close the socket."""
        self.stopping.set()
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join()


@pytest.fixture(name="chat_server")
def chat_server() -> Iterator[ChatServer]:
    """A running :class:`ChatServer` for one test; fails the test if a handler broke.

    Named in the decorator, so an aliased import registers it under this name
    too: ``from tests.chat_server import chat_server as chat_server_fixture``
    keeps ruff from reading every ``chat_server`` parameter as a redefinition
    of the import (F811).
    """
    server = ChatServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.errors, server.errors


@pytest.fixture(name="loopback")
def loopback(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    """:func:`chat_server`, named as the model arborist's ``openai`` lane calls: the
    ``ARBORIST_BASE_URL``, ``ARBORIST_MODEL`` (``loopback-model``) and ``ARBORIST_API_KEY``
    environment point at it for the test. A module that uses it imports both fixtures::

        from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401
        from tests.chat_server import loopback as loopback_fixture  # noqa: F401
    """
    monkeypatch.setenv("ARBORIST_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_MODEL", "loopback-model")
    monkeypatch.setenv("ARBORIST_API_KEY", "sk-test-not-a-real-key-000000")
    return chat_server
