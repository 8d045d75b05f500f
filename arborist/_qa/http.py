"""What every client of an OpenAI-compatible server shares, whichever endpoint it calls.

:class:`RemoteModel` is the base of :class:`~arborist._qa.openai.OpenAIClient`
(``POST /chat/completions``), and of any later client of the same servers (an
embeddings client's ``POST /embeddings``): a subclass builds the payload and
reads a good reply; everything between is done here, one way for all of them:

* connect and read timeouts, each attempt's cut to the time left before one
  deadline, so a silent server costs about the deadline, not ``read_timeout``
  times every attempt;
* retries with exponential backoff and a little jitter, or the server's
  ``Retry-After`` (capped), on 429, 5xx, connection errors and timeouts;
* a reply that is not streamed read whole within its time and under
  :data:`MAX_REPLY_BYTES`, and a streamed one refused past the same size;
* every failure one line (a :class:`~arborist._errors.ModelError` naming the
  model and its server; a bad setting a :class:`~arborist._errors.BadInput`
  before any request);
* the API key in the ``Authorization`` header and nowhere else: not in an
  error or the repr, and replaced (:mod:`arborist._qa.sanitize`) wherever a
  server echoes it back.
"""

from __future__ import annotations

import json
import math
import random
import re
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TypeVar

import httpx

from arborist._errors import BadInput, ModelError, one_line
from arborist._gate.admission import admit
from arborist._qa.sanitize import API_KEY_PLACEHOLDER, StreamText, key_pattern, no_lone_surrogates
from arborist._version import __version__

__all__ = [
    "Attempt",
    "DEFAULT_BACKOFF",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_BACKOFF",
    "DEFAULT_MAX_RETRY_AFTER",
    "DEFAULT_READ_TIMEOUT",
    "DEFAULT_RETRIES",
    "HttpSettings",
    "MAX_REPLY_BYTES",
    "MAX_RETRIES",
    "MAX_TIMEOUT",
    "PROBE_REPLY_BYTES",
    "PROBE_TIMEOUT",
    "RemoteModel",
    "Retryable",
    "STILL_ARRIVING",
    "check_endpoint",
    "describe",
    "error_text",
    "server_url",
    "size_text",
]

_MAX_ERROR_TEXT = 200
_DEFAULT_PORTS = {"http": 80, "https": 443}

DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 120.0
"""Seconds to wait for each piece of an answer. Generous on purpose: the CLI asks
without streaming, and a slow local server sends nothing until its whole answer is
written."""
DEFAULT_RETRIES = 3
DEFAULT_DEADLINE = 120.0
"""No retry starts, and no attempt waits, past this many seconds after the first
attempt began (or past the read timeout, when that is longer). A server that accepts
the connection and never answers costs about two minutes by default, not the read
timeout times every attempt (4 x 120 s and backoff: 8.5 minutes), while fast failures
(429, 5xx, a refused connection) still get all their retries."""
DEFAULT_BACKOFF = 0.5
"""Seconds before the first retry; each later one waits twice as long as the last."""
DEFAULT_MAX_BACKOFF = 8.0
"""The longest wait between two retries of our own choosing."""
DEFAULT_MAX_RETRY_AFTER = 30.0
"""The longest ``Retry-After`` obeyed: a server asking for more is asked again sooner."""
MAX_REPLY_BYTES = 64 * 2**20
"""The largest reply read whole (a chat completion is kilobytes; a server that sends
more is refused rather than filling memory)."""
MAX_RETRIES = 1000
"""The most retries ``retries``/``ARBORIST_RETRIES`` may ask for (the deadline ends them sooner)."""
MAX_TIMEOUT = 86_400.0
"""The longest timeout accepted: a day (a larger one only overflows the socket layer)."""
PROBE_TIMEOUT = 2.0
"""Seconds a best-effort question to the server (its context size) may wait, to connect
and for each read: a server too slow for that is not asked again, and the ask goes on."""
PROBE_REPLY_BYTES = 2**20
"""The largest reply to a best-effort question read (llama.cpp's ``/props``, with its chat
template, is a few kilobytes)."""

T = TypeVar("T")

STILL_ARRIVING = "the reply was still arriving"
"""How the failure of a reply that trickled past its time begins (a client that splits its
work on a timeout, :class:`~arborist._qa.embeddings.EmbeddingsClient`, knows it by this)."""


class Retryable(Exception):
    """An attempt that failed in a way worth trying again; ``cause`` is its one-line story."""

    def __init__(self, cause: str, retry_after: float | None = None) -> None:
        super().__init__(cause)
        self.cause = cause
        self.retry_after = retry_after


@dataclass(frozen=True)
class Attempt:
    """One try at a request, as the reader of its reply needs to know it."""

    number: int  # from 1; a client may keep it with the answer
    timeouts: httpx.Timeout  # this try's, cut to the time left before the deadline
    whole_by: float  # the monotonic time by which a reply read whole must have arrived


@dataclass(frozen=True)
class HttpSettings:
    """How a remote model is reached, waited for and asked again: one value, passed once
    to every client of an OpenAI-compatible server (:class:`RemoteModel`). Checked by the
    client it is given to, with the rest of its settings, before any request.

    ``connect_timeout`` and ``read_timeout`` bound each connect and each wait for bytes;
    ``max_retries`` retries (after 429, 5xx, connection errors and timeouts) happen
    within ``deadline`` seconds of the first attempt (None: :data:`DEFAULT_DEADLINE`, or
    the read timeout when that is longer), ``backoff`` seconds before the first and
    twice as long each time after, at most ``max_backoff``, or the server's
    ``Retry-After`` up to ``max_retry_after``. ``sleep``, ``rng`` and ``transport`` let
    tests record the backoff and bring their own server."""

    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    max_retries: int = DEFAULT_RETRIES
    deadline: float | None = None
    backoff: float = DEFAULT_BACKOFF
    max_backoff: float = DEFAULT_MAX_BACKOFF
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random | None = None
    transport: httpx.BaseTransport | None = None


# --------------------------------------------------------------------------- one-line errors


def error_text(body: Mapping[str, object]) -> str | None:
    """The message in an error body, in the shapes servers use.

    OpenAI and llama.cpp: ``{"error": {"message": ...}}``; Ollama:
    ``{"error": "..."}``; vLLM: ``{"message": ...}``; FastAPI: ``{"detail": "..."}``.
    """
    error = body.get("error")
    if isinstance(error, Mapping):
        error = error.get("message")
    for candidate in (error, body.get("message"), body.get("detail")):
        if isinstance(candidate, str):
            return candidate
    return None


def _server_message(response: httpx.Response) -> str:
    """The error message a server put in its body, else the body as text."""
    try:
        body = json.loads(response.content)
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep to parse
        body = None
    text = error_text(body) if isinstance(body, dict) else None
    return text if text is not None else response.content.decode("utf-8", "replace")


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds a server asked us to wait (``Retry-After``: seconds or an HTTP date), if any."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        seconds = when.timestamp() - time.time()
    return max(seconds, 0.0) if math.isfinite(seconds) else None


def size_text(limit: int) -> str:
    """A byte limit as an error names it: ``64 MiB``, or ``1000 bytes`` below a MiB."""
    return f"{limit // 2**20} MiB" if limit >= 2**20 and limit % 2**20 == 0 else f"{limit} bytes"


def _seconds(value: float | None) -> str:
    """A timeout as an error names it: ``0.5``, ``2``, ``119.6``."""
    return f"{round(value or 0.0, 1):g}"


def describe(exc: httpx.TransportError, timeouts: httpx.Timeout) -> str:
    """A transport failure in one line, naming the timeout that ran out."""
    if isinstance(exc, httpx.ConnectTimeout):
        return f"could not connect within {_seconds(timeouts.connect)} s (connect timeout)"
    if isinstance(exc, httpx.ReadTimeout):
        return f"no answer within {_seconds(timeouts.read)} s (read timeout)"
    detail = one_line(exc, _MAX_ERROR_TEXT) or "no detail"
    return f"{type(exc).__name__}: {detail}"


def _describe_http(exc: httpx.HTTPError) -> str:
    """Any other httpx failure (a bad URL, a decoding error) in one line."""
    return f"{type(exc).__name__}: {one_line(exc, _MAX_ERROR_TEXT) or 'no detail'}"


# --------------------------------------------------------------------------- settings


def _server_url(base_url: str) -> str:
    """The server a base URL names, normalised, never with a secret in it.

    Scheme and host lower-cased (an international host in its ASCII form, an IPv6
    host in brackets), the port unless it is the scheme's default, the path as
    written (percent-escapes kept) without trailing slashes. The userinfo
    (``user:password@``) and the query (``?key=...``) are left out, and so is any
    fragment: they are where URLs carry credentials, and this string is stored.
    """
    url = httpx.URL(base_url)
    scheme = url.scheme.lower()
    host = url.raw_host.decode("ascii").lower()
    if ":" in host:
        host = f"[{host}]"
    port = f":{url.port}" if url.port and url.port != _DEFAULT_PORTS.get(scheme) else ""
    path = url.raw_path.split(b"?", 1)[0].decode("ascii").rstrip("/")
    return f"{scheme}://{host}{port}{path}"


_USERINFO = re.compile(r"://[^@]*@")


def _shown_url(base_url: str) -> str:
    """A base URL as an error names it: any userinfo (to the last ``@``) cut whatever it
    holds, the rest through the admission gate (a URL that does not parse is echoed)."""
    return admit(_USERINFO.sub("://[REDACTED:url_credentials]@", base_url)).text


def server_url(base_url: str) -> str:
    """The server a base URL names as a line shows it: normalised (:func:`_server_url`), or,
    when it does not parse, as written with its userinfo cut and through the gate."""
    try:
        return _server_url(base_url)
    except (httpx.InvalidURL, UnicodeError):
        return _shown_url(base_url)


def check_endpoint(base_url: str, model: str, max_retries: int) -> None:
    """The settings every remote client checks first, in this order, so that the first
    bad one is named (a subclass checks its own options next, then :class:`RemoteModel`
    the timeouts and the URL as a whole)."""
    if not base_url[:8].lower().startswith(("http://", "https://")):
        raise BadInput(
            f"model base URL must start with http:// or https://, not {_shown_url(base_url)!r}"
        )
    if not model:
        raise BadInput("the model name is empty")
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise BadInput(f"max_retries must be a whole number of 0 or more, not {max_retries!r}")


def _check_seconds(connect_timeout: float, read_timeout: float, deadline: float | None) -> None:
    """Each timeout and the deadline: a number of seconds above 0, at most :data:`MAX_TIMEOUT`."""
    for option, seconds in (
        ("connect timeout", connect_timeout),
        ("timeout", read_timeout),
        ("deadline", read_timeout if deadline is None else deadline),
    ):
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, (int, float))
            or not 0 < seconds <= MAX_TIMEOUT
        ):
            raise BadInput(
                f"{option} must be a number of seconds above 0 and at most "
                f"{MAX_TIMEOUT:g}, not {seconds!r}"
            )


# --------------------------------------------------------------------------- the client


class RemoteModel:
    """A model on an OpenAI-compatible server: how to reach it, wait for it and retry it.

    The read timeout bounds each wait for bytes, so a stream that keeps talking
    is never cut off by it. Retries (``max_retries`` of them, after 429, 5xx,
    connection errors and timeouts) happen within ``deadline`` seconds of the
    first attempt (default: :data:`DEFAULT_DEADLINE`, or the read timeout when
    that is longer): no retry starts past it and each attempt's timeouts are
    cut to the time left. All of it is one :class:`HttpSettings`.

    A subclass calls :meth:`_post` with its payload and a reader for a good
    reply, and raises :meth:`_error` for what it finds wrong in one; whatever
    the server wrote passes :meth:`_clean` before it is returned.

    Every reply, streamed or read whole, is refused past :attr:`max_reply_bytes`.
    """

    max_reply_bytes: int = MAX_REPLY_BYTES
    """The largest reply read, whole or streamed (an instance may set its own)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None,
        name: str,
        http: HttpSettings,
    ) -> None:
        check_endpoint(base_url, model, http.max_retries)
        _check_seconds(http.connect_timeout, http.read_timeout, http.deadline)
        if api_key and (api_key != api_key.strip() or not api_key.isprintable()):
            # No header may carry it (httpx's refusal would quote it whole, escaped past
            # the redaction of the key as given): refused here, naming no character of it.
            raise BadInput(
                "the API key holds a line end, a control character or a space at an end "
                "(pasted with it?); strip it from the variable or file that sets the key"
            )
        try:
            self._display = _server_url(base_url)
        except (httpx.InvalidURL, UnicodeError) as exc:
            raise BadInput(f"model base URL {_shown_url(base_url)!r} is not a valid URL") from exc
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.model = model
        connect, read = http.connect_timeout, http.read_timeout
        self.timeouts = httpx.Timeout(connect=connect, read=read, write=read, pool=connect)
        self.max_retries = http.max_retries
        deadline = http.deadline
        self.deadline = float(max(DEFAULT_DEADLINE, read) if deadline is None else deadline)
        self.backoff = http.backoff
        self.max_backoff = http.max_backoff
        self.max_retry_after = http.max_retry_after
        self._api_key = api_key or None
        self._key_pattern = key_pattern(self._api_key)
        self._sleep = http.sleep
        self._rng = http.rng or random.Random()
        self._transport = http.transport
        self._ssl: ssl.SSLContext | None = None

    def __repr__(self) -> str:
        shown = f"name={self.name!r}, model={self.model!r}, base_url={self._display!r}"
        return f"{type(self).__name__}({admit(shown).text})"

    # -- what the server says, made fit to return

    def _redact(self, text: str) -> str:
        """``text`` with the API key replaced, in case a server echoed it."""
        if self._key_pattern is None:
            return text
        return self._key_pattern.sub(API_KEY_PLACEHOLDER, text)

    def _clean(self, text: str) -> str:
        """Text from the server made fit to return: no lone surrogate, no API key."""
        return self._redact(no_lone_surrogates(text))

    def _stream_text(self) -> StreamText:
        """A cleaner for a streamed text, the same as :meth:`_clean` gives for it whole."""
        return StreamText(self._api_key)

    def _quote(self, text: str, limit: int = _MAX_ERROR_TEXT) -> str:
        """Server text for an error message: cleaned and through the admission gate
        (a server's error may quote any credential), then cut (never mid-key)."""
        return one_line(admit(self._clean(text)).text, limit)

    def _error(self, what: str) -> ModelError:
        """A one-line ModelError naming this client, its model and server."""
        where = admit(f"model {self.name!r} ({self.model} at {self._display})").text
        return ModelError(self._quote(f"{where}: {what}", 400))

    # -- the wire

    def _http(self) -> httpx.Client:
        """A fresh httpx client for one request (the TLS context is built once and shared)."""
        if self._ssl is None and self._transport is None:
            self._ssl = httpx.create_ssl_context()
        headers = {"User-Agent": f"arborist/{__version__}", "Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return httpx.Client(
            headers=headers,
            timeout=self.timeouts,
            verify=self._ssl or True,
            transport=self._transport,
        )

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (from 1)."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        delay = min(self.backoff * 2.0 ** (attempt - 1), self.max_backoff)
        return delay + delay * 0.1 * self._rng.random()

    def _post(
        self,
        path: str,
        payload: Mapping[str, object],
        accept: str,
        read: Callable[[httpx.Response, Attempt], T],
    ) -> T:
        """POST ``payload`` to ``{base_url}/{path}`` and hand a 200 reply to ``read``,
        retrying what is worth retrying (``read`` raises :class:`Retryable` for that)."""
        started = time.monotonic()
        made = 0
        out_of_time = False
        last: Retryable | None = None
        with self._http() as http:
            while True:
                try:
                    return self._attempt(http, path, payload, accept, read, made + 1, started)
                except Retryable as exc:
                    last = exc
                made += 1
                if made > self.max_retries:
                    break
                delay = self._delay(made, last.retry_after)
                if time.monotonic() - started + delay >= self.deadline:
                    out_of_time = True
                    break
                self._sleep(delay)
        assert last is not None
        noun = "attempt" if made == 1 else "attempts"
        limit = f" within the {_seconds(self.deadline)} s deadline" if out_of_time else ""
        raise self._error(f"gave up after {made} {noun}{limit}; last error: {last.cause}") from last

    def _timeouts_left(self, started: float) -> httpx.Timeout:
        """This client's timeouts, each cut to the time left before the deadline."""
        left = max(self.deadline - (time.monotonic() - started), 0.001)
        connect = min(self.timeouts.connect or left, left)
        read = min(self.timeouts.read or left, left)
        return httpx.Timeout(connect=connect, read=read, write=read, pool=connect)

    def _attempt(
        self,
        http: httpx.Client,
        path: str,
        payload: Mapping[str, object],
        accept: str,
        read: Callable[[httpx.Response, Attempt], T],
        number: int,
        started: float,
    ) -> T:
        """One request; raises Retryable for what a retry may fix, ModelError for the rest."""
        url = f"{self.base_url}/{path}"
        timeouts = self._timeouts_left(started)
        try:
            with http.stream(
                "POST", url, json=payload, headers={"Accept": accept}, timeout=timeouts
            ) as response:
                whole_by = time.monotonic() + (timeouts.read or self.deadline)
                if response.status_code != 200:
                    self._read_whole(response, whole_by)
                    raise self._status_error(response)
                return read(response, Attempt(number, timeouts, whole_by))
        except httpx.TransportError as exc:
            raise Retryable(describe(exc, timeouts)) from exc
        except httpx.HTTPError as exc:
            raise self._error(_describe_http(exc)) from exc

    def _probe_json(self, url: str) -> dict[str, object] | None:
        """``GET url`` once, for a JSON object, best effort: within :data:`PROBE_TIMEOUT`
        seconds a wait, at most :data:`PROBE_REPLY_BYTES`, never retried, and None for any
        failure at all (an error status, a refused connection, a body that is not JSON):
        what is asked this way only helps, and its absence must never fail an ask."""
        timeout = httpx.Timeout(PROBE_TIMEOUT)
        try:
            with (
                self._http() as http,
                http.stream(
                    "GET", url, headers={"Accept": "application/json"}, timeout=timeout
                ) as response,
            ):
                if response.status_code != 200:
                    return None
                parts: list[bytes] = []
                size = 0
                by = time.monotonic() + PROBE_TIMEOUT
                for part in response.iter_bytes():
                    size += len(part)
                    if size > PROBE_REPLY_BYTES or time.monotonic() > by:
                        return None
                    parts.append(part)
            body = json.loads(b"".join(parts))
        except (httpx.HTTPError, ValueError, RecursionError, OSError):
            return None
        return body if isinstance(body, dict) else None

    def _read_whole(self, response: httpx.Response, by: float) -> None:
        """Read a reply that is not streamed, whole by ``by`` (a monotonic time) and at most
        :attr:`max_reply_bytes`: httpx's read timeout bounds each wait for bytes, so a
        server trickling a byte at a time would otherwise hold the ask forever."""
        parts: list[bytes] = []
        size = 0
        for part in response.iter_bytes():
            size += len(part)
            if size > self.max_reply_bytes:
                raise self._error(f"the reply is larger than {size_text(self.max_reply_bytes)}")
            parts.append(part)
            if time.monotonic() > by:
                raise Retryable(f"{STILL_ARRIVING} when its time ran out")
        response._content = b"".join(parts)  # what response.read() would have kept

    def _json_object(self, response: httpx.Response) -> dict[str, object]:
        """A reply read whole, as the JSON object it must be, else a one-line ModelError."""
        try:
            body = json.loads(response.content)
        except (ValueError, RecursionError) as exc:
            raise self._error("the server answered malformed JSON") from exc
        if not isinstance(body, dict):
            raise self._error("the server answered JSON that is not an object")
        return body

    def _status_error(self, response: httpx.Response) -> Exception:
        """A non-200 answer: Retryable for 429 and 5xx, a ModelError for anything else."""
        status = response.status_code
        message = self._quote(_server_message(response))
        cause = f"HTTP {status}" + (f": {message}" if message else "")
        if status == 429 or status >= 500:
            return Retryable(cause, _retry_after(response))
        return self._error(cause)
