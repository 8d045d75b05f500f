"""The client for any server speaking OpenAI's chat-completions protocol (vLLM, llama.cpp,
Ollama, OpenAI), over httpx: plain JSON or a server-sent-events stream.

What a remote server sends back is made fit to store before anyone sees it:
lone UTF-16 surrogates (valid as JSON ``\\udXXX`` escapes, unencodable as UTF-8)
become U+FFFD, and the client's own API key, if the server echoes it, becomes
``[REDACTED:api_key]``, in the answer, the streamed tokens, the metadata and
error messages alike.

Failures of a remote model become one-line :class:`~arborist.errors.ModelError`s;
bad configuration becomes :class:`~arborist.errors.BadInput` before any request.
"""

from __future__ import annotations

import json
import math
import random
import re
import ssl
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime

import httpx

from arborist._version import __version__
from arborist.errors import BadInput, ModelError
from arborist.hashing import MAX_SAFE_INTEGER
from arborist.qa.client import SYSTEM_PROMPT, ChatRequest, ChatResult, Message
from arborist.qa.sse import iter_sse_data

__all__ = [
    "API_KEY_PLACEHOLDER",
    "DEFAULT_DEADLINE",
    "DEFAULT_READ_TIMEOUT",
    "DEFAULT_RETRIES",
    "MIN_REDACTED_KEY",
    "OpenAIClient",
]

_META_KEYS = ("id", "object", "created", "model", "system_fingerprint", "usage")
_MAX_ERROR_TEXT = 200
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
MAX_REPLY_BYTES = 64 * 2**20
"""The largest reply read whole (a chat completion is kilobytes; a server that sends
more is refused rather than filling memory)."""
MAX_RETRIES = 1000
"""The most retries ``retries``/``ARBORIST_RETRIES`` may ask for (the deadline ends them sooner)."""
MAX_TIMEOUT = 86_400.0
"""The longest timeout accepted: a day (a larger one only overflows the socket layer)."""


def _join_pair(match: re.Match[str]) -> str:
    return match.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def _no_lone_surrogates(text: str) -> str:
    """``text`` with each surrogate pair joined into its character and each lone
    surrogate (which UTF-8, and so the store, cannot hold) replaced by U+FFFD."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", _SURROGATE_PAIR.sub(_join_pair, text))


def _key_pattern(key: str | None) -> re.Pattern[str] | None:
    """The API key wherever it occurs, even with letters glued to it (``xKEYy`` still
    holds the whole key); None for no key or one shorter than :data:`MIN_REDACTED_KEY`,
    which is the rule that keeps a dummy key from garbling ordinary words."""
    if not key or len(key) < MIN_REDACTED_KEY:
        return None
    return re.compile(re.escape(key))


class _StreamText:
    """Streamed pieces made fit to show and store, the same as the whole text would be.

    Lone surrogates become U+FFFD (a pair split across two pieces is joined), and the
    key is redacted even when it arrives split across pieces: the end of what came so
    far that could still be the start of the key is held back until the next piece
    says whether it is. ``"".join`` of what :meth:`feed` and :meth:`close` return is
    exactly what the cleaning of the whole text gives.
    """

    def __init__(self, key: str | None) -> None:
        self._pattern = _key_pattern(key)
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


class _Retryable(Exception):
    """An attempt that failed in a way worth trying again; ``cause`` is its one-line story."""

    def __init__(self, cause: str, retry_after: float | None = None) -> None:
        super().__init__(cause)
        self.cause = cause
        self.retry_after = retry_after


def _one_line(text: str, limit: int = _MAX_ERROR_TEXT) -> str:
    """Whitespace collapsed and cut to ``limit`` characters, so an error stays one line."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _json_safe(
    value: object, depth: int = 0, clean: Callable[[str], str] = _no_lone_surrogates
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
        safe = {clean(str(key)): _json_safe(item, depth + 1, clean) for key, item in value.items()}
    elif isinstance(value, (list, tuple)):
        safe = [_json_safe(item, depth + 1, clean) for item in value]
    else:
        safe = repr(value)  # floats (and anything stranger) as text
    return safe


def _number_text(value: float) -> str:
    """A sampling option as the profile holds it: ``0.2`` -> ``"0.2"``, ``1`` -> ``"1.0"``."""
    return repr(float(value))


def _error_text(body: Mapping[str, object]) -> str | None:
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
    text = _error_text(body) if isinstance(body, dict) else None
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


def _seconds(value: float | None) -> str:
    """A timeout as an error names it: ``0.5``, ``2``, ``119.6``."""
    return f"{round(value or 0.0, 1):g}"


def _describe(exc: httpx.TransportError, timeouts: httpx.Timeout) -> str:
    """A transport failure in one line, naming the timeout that ran out."""
    if isinstance(exc, httpx.ConnectTimeout):
        return f"could not connect within {_seconds(timeouts.connect)} s (connect timeout)"
    if isinstance(exc, httpx.ReadTimeout):
        return f"no answer within {_seconds(timeouts.read)} s (read timeout)"
    detail = _one_line(str(exc)) or "no detail"
    return f"{type(exc).__name__}: {detail}"


_DEFAULT_PORTS = {"http": 80, "https": 443}


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


class OpenAIClient:
    """A client for any server speaking OpenAI's chat-completions protocol, over httpx.

    * Plain JSON, or SSE streaming when ``complete`` is given ``on_token``.
    * Connect and read timeouts; the read timeout bounds each wait for bytes,
      so a stream that keeps talking is never cut off by it.
    * Retries with exponential backoff and a little jitter (or the server's
      ``Retry-After``, capped) on 429, 5xx, connection errors and timeouts,
      ``max_retries`` times, within ``deadline`` seconds of the first attempt
      (default: :data:`DEFAULT_DEADLINE`, or the read timeout when that is
      longer): no retry starts past it and each attempt's timeouts are cut to
      the time left, so a silent server costs about the deadline, not
      ``read_timeout`` times every attempt. A stream that already handed
      tokens to ``on_token`` is never retried: the reader would see them twice.
    * One one-line :class:`ModelError` for everything else: other 4xx,
      malformed JSON, no choices, no content, a stream cut short.
    * The client owns the system prompt (it is in its profile and so in the
      cache key): :meth:`messages_for` puts it in place of the request's.
    * The API key goes in the ``Authorization`` header and nowhere else: not
      in the profile, ``raw``, errors or repr. A server that echoes it back
      (in the answer, a streamed token, the metadata or an error body) has it
      replaced by :data:`API_KEY_PLACEHOLDER` before anything is returned,
      wherever it occurs (letters glued to it hide nothing); keys shorter than
      :data:`MIN_REDACTED_KEY` are not looked for.
    * Lone surrogates in what the server sends (``"\\udc9b"`` is valid JSON)
      become U+FFFD in the answer, the tokens and the metadata: the rest of
      the answer is good, and the store (UTF-8) cannot hold them.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        name: str = "openai",
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        system_prompt: str = SYSTEM_PROMPT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        deadline: float | None = None,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url[:8].lower().startswith(("http://", "https://")):
            raise BadInput(f"model base URL must start with http:// or https://, not {base_url!r}")
        if not model:
            raise BadInput("the model name is empty")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise BadInput(f"max_retries must be a whole number of 0 or more, not {max_retries!r}")
        for option, value in (("temperature", temperature), ("top_p", top_p)):
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
            ):
                raise BadInput(f"{option} must be a number of 0 or more, not {value!r}")
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise BadInput(f"max_tokens must be a whole number of 1 or more, not {max_tokens!r}")
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
        try:
            self._display = _server_url(base_url)
        except (httpx.InvalidURL, UnicodeError) as exc:
            raise BadInput(f"model base URL {base_url!r} is not a valid URL") from exc
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.top_p = top_p
        self.system_prompt = system_prompt
        self.timeouts = httpx.Timeout(
            connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout
        )
        self.max_retries = max_retries
        self.deadline = float(max(DEFAULT_DEADLINE, read_timeout) if deadline is None else deadline)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self._api_key = api_key or None
        self._key_pattern = _key_pattern(self._api_key)
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._transport = transport
        self._ssl: ssl.SSLContext | None = None

    def __repr__(self) -> str:
        return f"OpenAIClient(name={self.name!r}, model={self.model!r}, base_url={self._display!r})"

    # -- identity

    def _options(self) -> dict[str, float | int]:
        """The sampling options that are set, as they go on the wire."""
        options: dict[str, float | int] = {}
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.max_tokens is not None:
            options["max_tokens"] = self.max_tokens
        if self.top_p is not None:
            options["top_p"] = self.top_p
        return options

    def profile(self) -> dict[str, object]:
        """Provider, server, model, the sampling options that are set (as strings) and
        the system prompt.

        ``server`` is the base URL normalised (:func:`_server_url`): a model name
        is only the server's word for what it runs. Two servers that both say
        ``llama3`` may serve other weights, quantisations or chat templates, so
        they must not share cached answers; moving to another server is a cache
        miss, once. The URL's credentials and query are left out, since the
        profile is stored (in ``store.db``) and hashed into every cache key.
        Not timeouts or retries (they do not change answers), never the key.
        """
        profile: dict[str, object] = {
            "provider": "openai",
            "server": self._display,
            "model": self.model,
            "system_prompt": self.system_prompt,
        }
        for option, value in self._options().items():
            profile[option] = str(value) if option == "max_tokens" else _number_text(value)
        return profile

    def messages_for(self, request: ChatRequest) -> tuple[Message, ...]:
        """The exact messages sent for ``request``: its own, with this client's system prompt."""
        messages = request.messages
        if messages and messages[0].role == "system":
            messages = messages[1:]
        return (Message("system", self.system_prompt), *messages)

    # -- errors

    def _redact(self, text: str) -> str:
        """``text`` with the API key replaced, in case a server echoed it."""
        if self._key_pattern is None:
            return text
        return self._key_pattern.sub(API_KEY_PLACEHOLDER, text)

    def _clean(self, text: str) -> str:
        """Text from the server made fit to return: no lone surrogate, no API key."""
        return self._redact(_no_lone_surrogates(text))

    def _quote(self, text: str, limit: int = _MAX_ERROR_TEXT) -> str:
        """Server text for an error message: cleaned first, then cut (never mid-key)."""
        return _one_line(self._clean(text), limit)

    def _error(self, what: str) -> ModelError:
        """A one-line ModelError naming this client, its model and server."""
        where = f"model {self.name!r} ({self.model} at {self._display})"
        return ModelError(self._quote(f"{where}: {what}", 400))

    # -- the wire

    def _http(self) -> httpx.Client:
        """A fresh httpx client for one ``complete`` (the TLS context is built once and shared)."""
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

    def complete(
        self, request: ChatRequest, *, on_token: Callable[[str], None] | None = None
    ) -> ChatResult:
        """POST the request to ``{base_url}/chat/completions``, retrying what is worth retrying."""
        payload: dict[str, object] = {
            "model": self.model,
            "messages": [
                {"role": message.role, "content": message.content}
                for message in self.messages_for(request)
            ],
            **self._options(),
            "stream": on_token is not None,
        }
        started = time.monotonic()
        made = 0
        out_of_time = False
        last: _Retryable | None = None
        with self._http() as http:
            while True:
                try:
                    return self._attempt(http, payload, on_token, made + 1, started)
                except _Retryable as exc:
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
        payload: dict[str, object],
        on_token: Callable[[str], None] | None,
        attempt: int,
        started: float,
    ) -> ChatResult:
        """One request; raises _Retryable for what a retry may fix, ModelError for the rest."""
        url = f"{self.base_url}/chat/completions"
        accept = "text/event-stream" if on_token is not None else "application/json"
        timeouts = self._timeouts_left(started)
        try:
            with http.stream(
                "POST", url, json=payload, headers={"Accept": accept}, timeout=timeouts
            ) as response:
                whole_by = time.monotonic() + (timeouts.read or self.deadline)
                if response.status_code != 200:
                    self._read_whole(response, whole_by)
                    raise self._status_error(response)
                # Streamed unless the server says it sent plain JSON (some ignore "stream").
                content_type = response.headers.get("content-type", "")
                if on_token is not None and not content_type.startswith("application/json"):
                    return self._read_stream(response, on_token, attempt, timeouts)
                self._read_whole(response, whole_by)
                result = self._read_json(response, attempt)
                if on_token is not None:
                    on_token(result.text)
                return result
        except httpx.TransportError as exc:
            raise _Retryable(_describe(exc, timeouts)) from exc
        except httpx.HTTPError as exc:
            raise self._error(_describe_http(exc)) from exc

    def _read_whole(self, response: httpx.Response, by: float) -> None:
        """Read a reply that is not streamed, whole by ``by`` (a monotonic time) and at most
        :data:`MAX_REPLY_BYTES`: httpx's read timeout bounds each wait for bytes, so a
        server trickling a byte at a time would otherwise hold the ask forever."""
        parts: list[bytes] = []
        size = 0
        for part in response.iter_bytes():
            size += len(part)
            if size > MAX_REPLY_BYTES:
                raise self._error(f"the reply is larger than {MAX_REPLY_BYTES // 2**20} MiB")
            parts.append(part)
            if time.monotonic() > by:
                raise _Retryable("the reply was still arriving when its time ran out")
        response._content = b"".join(parts)  # what response.read() would have kept

    def _status_error(self, response: httpx.Response) -> Exception:
        """A non-200 answer: _Retryable for 429 and 5xx, a ModelError for anything else."""
        status = response.status_code
        message = self._quote(_server_message(response))
        cause = f"HTTP {status}" + (f": {message}" if message else "")
        if status == 429 or status >= 500:
            return _Retryable(cause, _retry_after(response))
        return self._error(cause)

    def _meta(self, body: Mapping[str, object], attempt: int, stream: bool) -> dict[str, object]:
        """The response metadata kept in ``raw``: ids, model, usage; never headers, and every
        string cleaned (:meth:`_clean`) however deep it sits."""
        meta = {
            key: _json_safe(body[key], clean=self._clean)
            for key in _META_KEYS
            if body.get(key) is not None
        }
        meta["provider"] = "openai"
        meta["stream"] = stream
        meta["attempts"] = attempt
        return meta

    def _read_json(self, response: httpx.Response, attempt: int) -> ChatResult:
        """A plain chat completion, or a one-line ModelError saying what is wrong with it."""
        try:
            body = json.loads(response.content)
        except (ValueError, RecursionError) as exc:
            raise self._error("the server answered malformed JSON") from exc
        if not isinstance(body, dict):
            raise self._error("the server answered JSON that is not an object")
        if body.get("error") is not None and "choices" not in body:
            reason = _error_text(body) or str(body["error"])
            raise self._error(f"the server answered an error: {self._quote(reason)}")
        choices = body.get("choices")
        if not isinstance(choices, list):
            raise self._error("the response has no choices")
        if not choices:
            raise self._error("the response has an empty choices list")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise self._error("the response's first choice has no message content")
        if not content.strip():
            raise self._error("the model answered an empty text")
        finish = choice.get("finish_reason")
        model = body.get("model")
        return ChatResult(
            self._clean(content),
            self._clean(model) if isinstance(model, str) and model else self.model,
            self._clean(finish) if isinstance(finish, str) else None,
            self._meta(body, attempt, stream=False),
        )

    def _read_stream(
        self,
        response: httpx.Response,
        on_token: Callable[[str], None],
        attempt: int,
        timeouts: httpx.Timeout,
    ) -> ChatResult:
        """An SSE stream of chunks: hand each delta to ``on_token``, check it ended properly.

        A transport failure before the first token may be retried; after it,
        the reader has seen part of an answer, so it is a ModelError instead.
        Each delta is cleaned on its way (:class:`_StreamText`): what ``on_token``
        is handed joins to exactly the answer returned.
        """
        parts: list[str] = []
        shown: list[str] = []
        cleaner = _StreamText(self._api_key)
        meta: dict[str, object] = {}
        finish: str | None = None
        done = False
        saw_choice = False
        try:
            for data in iter_sse_data(response.iter_bytes()):
                if data.strip() == "[DONE]":
                    done = True
                    break
                try:
                    chunk = json.loads(data)
                except (ValueError, RecursionError) as exc:
                    raise self._error("the stream carried malformed JSON") from exc
                if not isinstance(chunk, dict):
                    raise self._error("the stream carried JSON that is not an object")
                if chunk.get("error") is not None:
                    message = _error_text(chunk) or str(chunk["error"])
                    raise self._error(f"the stream reported an error: {self._quote(message)}")
                meta.update({key: chunk[key] for key in _META_KEYS if chunk.get(key) is not None})
                choices = chunk.get("choices")
                if not isinstance(choices, list) or not choices:
                    continue  # a usage-only chunk, or a keepalive object
                choice = choices[0]
                if not isinstance(choice, dict):
                    raise self._error("the stream carried a choice that is not an object")
                saw_choice = True
                delta = choice.get("delta")
                content = delta.get("content") if isinstance(delta, dict) else None
                if isinstance(content, str) and content:
                    parts.append(content)
                    piece = cleaner.feed(content)
                    if piece:
                        shown.append(piece)
                        on_token(piece)
                if isinstance(choice.get("finish_reason"), str):
                    finish = choice["finish_reason"]
        except UnicodeDecodeError as exc:
            raise self._error("the stream is not valid UTF-8") from exc
        except httpx.TransportError as exc:
            cause = _describe(exc, timeouts)
            if parts:
                raise self._error(f"stream cut short after {len(parts)} pieces: {cause}") from exc
            raise _Retryable(cause) from exc
        received = sum(map(len, parts))
        if not done and finish is None:
            raise self._error(f"stream cut short after {received} characters (no [DONE])")
        if not saw_choice:
            raise self._error("the stream had no choices")
        rest = cleaner.close()
        if rest:
            shown.append(rest)
            on_token(rest)
        text = "".join(shown)
        if not text.strip():
            raise self._error("the model answered an empty text")
        model = meta.get("model")
        return ChatResult(
            text,
            self._clean(model) if isinstance(model, str) and model else self.model,
            self._clean(finish) if finish is not None else None,
            self._meta(meta, attempt, stream=True),
        )


def _describe_http(exc: httpx.HTTPError) -> str:
    """Any other httpx failure (a bad URL, a decoding error) in one line."""
    return f"{type(exc).__name__}: {_one_line(str(exc)) or 'no detail'}"
