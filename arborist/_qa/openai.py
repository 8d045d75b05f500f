"""The client for any server speaking OpenAI's chat-completions protocol (vLLM, llama.cpp,
Ollama, OpenAI): ``POST /chat/completions``, answered in plain JSON or as a stream.

How the server is reached, waited for and retried, and how its failures become
one line, is :class:`~arborist._qa.http.RemoteModel`'s; this module builds the
chat payload and reads a chat completion. What the server writes is made fit to
store before anyone sees it (:mod:`arborist._qa.sanitize`): lone UTF-16
surrogates become U+FFFD, and the client's own API key, if the server echoes
it, becomes ``[REDACTED:api_key]``, in the answer, the streamed tokens, the
metadata and error messages alike.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import httpx

from arborist._errors import BadInput
from arborist._gate.admission import admit_profile
from arborist._qa.budget import (
    DEFAULT_ANSWER_TOKENS,
    SMALL_PROMPT_TOKENS,
    ContextWindow,
    answer_reserve,
    estimate_tokens,
)
from arborist._qa.client import SYSTEM_PROMPT, ChatRequest, ChatResult, Message
from arborist._qa.http import (
    Attempt,
    HttpSettings,
    RemoteModel,
    Retryable,
    check_endpoint,
    describe,
    error_text,
)
from arborist._qa.http import size_text as _size
from arborist._qa.sanitize import StreamText, json_safe
from arborist._qa.sse import SSEEvent, iter_sse_events

__all__ = ["OpenAIClient"]

_META_KEYS = ("id", "object", "created", "model", "system_fingerprint", "usage")


def _number_text(value: float) -> str:
    """A sampling option as the profile holds it: ``0.2`` -> ``"0.2"``, ``1`` -> ``"1.0"``."""
    return repr(float(value))


def _check_sampling(temperature: float | None, top_p: float | None, max_tokens: int | None) -> None:
    """The sampling options that are set: numbers of 0 or more, and max_tokens from 1."""
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


def _check_context(context_tokens: int | None, max_tokens: int | None) -> None:
    """The context size, if set: a whole number of 1 or more, above max_tokens."""
    if context_tokens is None:
        return
    if (
        isinstance(context_tokens, bool)
        or not isinstance(context_tokens, int)
        or context_tokens < 1
    ):
        raise BadInput(
            f"context_tokens must be a whole number of 1 or more, not {context_tokens!r}"
        )
    if max_tokens is not None and max_tokens >= context_tokens:
        raise BadInput(
            f"max_tokens ({max_tokens}) must be less than context_tokens ({context_tokens}): "
            "the answer shares the context with the prompt"
        )


def _whole_number(value: object) -> int | None:
    """A context size as a server states it: a whole number of 1 or more, else None."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**40:
        return None
    return value


def _props_context(body: Mapping[str, object] | None) -> int | None:
    """llama.cpp's ``GET /props``: ``default_generation_settings.n_ctx``, the context of
    one slot (``-c`` divided among ``--parallel`` slots), which is what one request gets."""
    settings = body.get("default_generation_settings") if body is not None else None
    return _whole_number(settings.get("n_ctx")) if isinstance(settings, Mapping) else None


def _models_context(body: Mapping[str, object] | None, model: str) -> int | None:
    """vLLM's ``GET /v1/models``: ``max_model_len`` of this model's entry (or of the only
    one). llama.cpp's entry has ``meta.n_ctx_train`` instead: the context the model was
    trained with, not the server's (often 8 or 32 times larger), so it is not read."""
    data = body.get("data") if body is not None else None
    if not isinstance(data, list):
        return None
    entries = [entry for entry in data if isinstance(entry, Mapping)]
    mine = [entry for entry in entries if entry.get("id") == model]
    chosen = mine or (entries if len(entries) == 1 else [])
    return _whole_number(chosen[0].get("max_model_len")) if chosen else None


_JOIN_EVERY = 1024
"""Shown pieces are joined into one string this many at a time: a list of a million
four-character tokens held about 60 bytes of bookkeeping for each four of text."""


@dataclass
class _Stream:
    """What a streamed answer has carried so far, and where its text goes.

    The text is kept once, as ``on_token`` was handed it (cleaned), in strings of
    :data:`_JOIN_EVERY` pieces; of the deltas as they came only their number and length."""

    cleaner: StreamText
    on_token: Callable[[str], None]
    pieces: int = 0  # deltas received
    received: int = 0  # their characters
    joined: list[str] = field(default_factory=list)  # what on_token was handed, in long strings
    recent: list[str] = field(default_factory=list)  # ... and the pieces since
    meta: dict[str, object] = field(default_factory=dict)
    finish: str | None = None
    done: bool = False
    saw_choice: bool = False

    def take(self, content: str) -> None:
        """A delta: hand on what of the text so far can be shown now."""
        self.pieces += 1
        self.received += len(content)
        piece = self.cleaner.feed(content)
        if piece:
            self._keep(piece)
            self.on_token(piece)

    def _keep(self, piece: str) -> None:
        self.recent.append(piece)
        if len(self.recent) >= _JOIN_EVERY:
            self.joined.append("".join(self.recent))
            self.recent.clear()

    def close(self) -> str:
        """Hand on what was held back; the whole text, as ``on_token`` was handed it."""
        rest = self.cleaner.close()
        if rest:
            self._keep(rest)
            self.on_token(rest)
        self.joined += self.recent
        self.recent = []
        text = "".join(self.joined)
        self.joined = []
        return text


class OpenAIClient(RemoteModel):
    """A client for any server speaking OpenAI's chat-completions protocol, over httpx.

    * Plain JSON, or SSE streaming when ``complete`` is given ``on_token``.
    * Timeouts, retries within one deadline, one-line errors and the API key
      kept out of everything: :class:`~arborist._qa.http.RemoteModel`. A stream
      that already handed tokens to ``on_token`` is never retried: the reader
      would see them twice.
    * One one-line :class:`~arborist._errors.ModelError` for what is wrong with
      a completion: malformed JSON, no choices, no content, a stream cut short.
    * The client owns the system prompt (it is in its profile and so in the
      cache key): :meth:`messages_for` puts it in place of the request's.
    * A server that echoes the API key back (in the answer, a streamed token,
      the metadata or an error body) has it replaced by
      :data:`~arborist._qa.sanitize.API_KEY_PLACEHOLDER` before anything is
      returned, wherever it occurs (letters glued to it hide nothing); keys
      shorter than :data:`~arborist._qa.sanitize.MIN_REDACTED_KEY` are not
      looked for.
    * Lone surrogates in what the server sends (``"\\udc9b"`` is valid JSON)
      become U+FFFD in the answer, the tokens and the metadata: the rest of
      the answer is good, and the store (UTF-8) cannot hold them.
    * An error the server reports inside a stream (``data: {"error": ...}``,
      ``event: error``, or llama.cpp's ``error: {...}`` line) is one ModelError
      carrying the server's own message, cleaned like every server text.
    * Its prompts fit its context (:mod:`arborist._qa.budget`): the window is
      ``context_tokens`` when the profile sets it; else, for a prompt that is not
      small, the server is asked once (:meth:`context_window`), best effort.
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
        context_tokens: int | None = None,
        http: HttpSettings | None = None,
    ) -> None:
        http = http or HttpSettings()
        # The sampling options are checked between the endpoint and the timeouts, so
        # that of several bad settings the same one is named first as it always was.
        check_endpoint(base_url, model, http.max_retries)
        _check_sampling(temperature, top_p, max_tokens)
        _check_context(context_tokens, max_tokens)
        super().__init__(
            base_url,
            model,
            api_key=api_key,
            name=name,
            http=http,
        )
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.top_p = top_p
        self.system_prompt = system_prompt
        self.context_tokens = context_tokens
        self._server_window: int | None = None
        self._window_source = ""
        self._asked_server = False

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

        ``server`` is the base URL normalised (:mod:`arborist._qa.http`): a model name
        is only the server's word for what it runs. Two servers that both say
        ``llama3`` may serve other weights, quantisations or chat templates, so
        they must not share cached answers; moving to another server is a cache
        miss, once. The URL's credentials and query are left out, since the
        profile is stored (in ``store.db``) and hashed into every cache key, and
        every string passes the admission gate (:func:`~arborist._gate.admission.admit_profile`):
        a key in the URL's path or in the model name is redacted, deterministically.
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
        return admit_profile(profile, secrets=(self._api_key,))  # a key pasted in model or URL

    def messages_for(self, request: ChatRequest) -> tuple[Message, ...]:
        """The exact messages sent for ``request``: its own, with this client's system prompt."""
        messages = request.messages
        if messages and messages[0].role == "system":
            messages = messages[1:]
        return (Message("system", self.system_prompt), *messages)

    # -- the context window

    def prompt_tokens(self, request: ChatRequest) -> int:
        """The estimated tokens of the messages sent for ``request``
        (:func:`~arborist._qa.budget.estimate_tokens`)."""
        return estimate_tokens(self.messages_for(request))

    def context_window(self, request: ChatRequest) -> ContextWindow | None:
        """The context ``request`` must fit: ``context_tokens`` when the profile sets it (the
        server is then never asked); else what the server says. A prompt whose estimate and
        answer reserve pass :data:`~arborist._qa.budget.SMALL_PROMPT_TOKENS` has the server
        asked, once for this client: llama.cpp's ``GET /props``, then ``GET
        {base_url}/models`` (vLLM's ``max_model_len``), each within a short timeout. A
        server that says nothing leaves the prompt unfitted, as it always was; the asking
        never fails an ask."""
        if self.context_tokens is not None:
            return self._window(self.context_tokens, "profile")
        if not self._asked_server:
            reserve = self.max_tokens if self.max_tokens is not None else DEFAULT_ANSWER_TOKENS
            if self.prompt_tokens(request) + reserve > SMALL_PROMPT_TOKENS:
                self._asked_server = True
                self._server_window, self._window_source = self._ask_context()
        if self._server_window is None:
            return None
        return self._window(self._server_window, self._window_source)

    def _window(self, tokens: int, source: str) -> ContextWindow:
        return ContextWindow(tokens, answer_reserve(tokens, self.max_tokens), source)

    def _ask_context(self) -> tuple[int | None, str]:
        """The server's context size and the reply that said it, or ``(None, "")``."""
        root = self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url
        tokens = _props_context(self._probe_json(f"{root}/props"))
        if tokens is not None:
            return tokens, "server: GET /props"
        tokens = _models_context(self._probe_json(f"{self.base_url}/models"), self.model)
        if tokens is not None:
            return tokens, "server: GET /models"
        return None, ""

    # -- a completion

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
        accept = "text/event-stream" if on_token is not None else "application/json"
        return self._post(
            "chat/completions",
            payload,
            accept,
            lambda response, attempt: self._read(response, attempt, on_token),
        )

    def _read(
        self,
        response: httpx.Response,
        attempt: Attempt,
        on_token: Callable[[str], None] | None,
    ) -> ChatResult:
        """A 200 reply, streamed unless the server says it sent plain JSON (some ignore
        ``stream``); a plain answer to a streamed ask reaches ``on_token`` whole."""
        content_type = response.headers.get("content-type", "")
        if on_token is not None and not content_type.startswith("application/json"):
            return self._read_stream(response, on_token, attempt)
        self._read_whole(response, attempt.whole_by)
        result = self._read_json(response, attempt.number)
        if on_token is not None:
            on_token(result.text)
        return result

    def _meta(self, body: Mapping[str, object], attempt: int, stream: bool) -> dict[str, object]:
        """The response metadata kept in ``raw``: ids, model, usage; never headers, and every
        string cleaned (:meth:`_clean`) however deep it sits."""
        meta = {
            key: json_safe(body[key], clean=self._clean)
            for key in _META_KEYS
            if body.get(key) is not None
        }
        meta["provider"] = "openai"
        meta["stream"] = stream
        meta["attempts"] = attempt
        return meta

    def _read_json(self, response: httpx.Response, attempt: int) -> ChatResult:
        """A plain chat completion, or a one-line ModelError saying what is wrong with it."""
        body = self._json_object(response)
        if body.get("error") is not None and "choices" not in body:
            reason = error_text(body) or str(body["error"])
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

    def answers(self) -> None:
        """Ask for one token of a one-line prompt (no system prompt, nothing stored):
        returns when the model answers, else raises the one-line ModelError of why not
        (``arborist models``; :mod:`arborist._qa.roster` gives it short timeouts first)."""
        payload = {
            "model": self.model,
            "max_tokens": 1,
            "stream": False,
            "messages": [{"role": "user", "content": "Say OK."}],
        }
        self._post("chat/completions", payload, "application/json", self._read_choice)

    def _read_choice(self, response: httpx.Response, attempt: Attempt) -> None:
        """A probe's reply: a JSON object with a choice (one token may be only a space)."""
        self._read_whole(response, attempt.whole_by)
        choices = self._json_object(response).get("choices")
        if not isinstance(choices, list) or not choices:
            raise self._error("the reply has no choices")

    # -- a streamed completion

    def _read_stream(
        self, response: httpx.Response, on_token: Callable[[str], None], attempt: Attempt
    ) -> ChatResult:
        """An SSE stream of chunks: hand each delta to ``on_token``, check it ended properly.

        A transport failure before the first token may be retried; after it,
        the reader has seen part of an answer, so it is a ModelError instead.
        Each delta is cleaned on its way (:class:`~arborist._qa.sanitize.StreamText`):
        what ``on_token`` is handed joins to exactly the answer returned.
        """
        stream = _Stream(self._stream_text(), on_token)
        try:
            for event in iter_sse_events(self._capped(response.iter_bytes())):
                if event.is_error:
                    raise self._stream_error(event)
                if event.data is None:
                    continue
                if event.data.strip() == "[DONE]":
                    stream.done = True
                    break
                self._take_chunk(self._stream_chunk(event.data), stream)
        except UnicodeDecodeError as exc:
            raise self._error("the stream is not valid UTF-8") from exc
        except httpx.TransportError as exc:
            cause = describe(exc, attempt.timeouts)
            if stream.pieces:
                raise self._error(
                    f"stream cut short after {stream.pieces} pieces: {cause}"
                ) from exc
            raise Retryable(cause) from exc
        return self._stream_result(stream, attempt.number)

    def _capped(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """The stream's bytes, refused in one line once they pass :attr:`max_reply_bytes`
        (a stream is otherwise bounded per wait only, and its answer kept whole)."""
        size = 0
        for chunk in chunks:
            size += len(chunk)
            if size > self.max_reply_bytes:
                raise self._error(
                    f"the streamed reply is larger than {_size(self.max_reply_bytes)}; "
                    "nothing was kept"
                )
            yield chunk

    def _stream_chunk(self, data: str) -> dict[str, object]:
        """One event's chunk, or a ModelError for bad JSON or an error the server reported."""
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise self._error("the stream carried malformed JSON") from exc
        if not isinstance(chunk, dict):
            raise self._error("the stream carried JSON that is not an object")
        if chunk.get("error") is not None:
            raise self._reported(chunk, str(chunk["error"]))
        return chunk

    def _stream_error(self, event: SSEEvent) -> Exception:
        """An error event (``event: error`` or llama.cpp's ``error:`` line) as one ModelError
        carrying the server's message: its JSON's message, else its text."""
        text = event.error if event.error is not None else event.data or ""
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            body = None
        if isinstance(body, dict):
            return self._reported(body, text)
        return self._reported({}, text or "(no message)")

    def _reported(self, body: Mapping[str, object], fallback: str) -> Exception:
        """The error a server reported in its stream, in its own words (cleaned and cut)."""
        message = error_text(body) or fallback
        return self._error(f"the stream reported an error: {self._quote(message)}")

    def _take_chunk(self, chunk: Mapping[str, object], stream: _Stream) -> None:
        """Keep a chunk's metadata, hand on the delta of its first choice, note its finish."""
        stream.meta.update({key: chunk[key] for key in _META_KEYS if chunk.get(key) is not None})
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            return  # a usage-only chunk, or a keepalive object
        choice = choices[0]
        if not isinstance(choice, dict):
            raise self._error("the stream carried a choice that is not an object")
        stream.saw_choice = True
        delta = choice.get("delta")
        content = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(content, str) and content:
            stream.take(content)
        if isinstance(choice.get("finish_reason"), str):
            stream.finish = choice["finish_reason"]

    def _stream_result(self, stream: _Stream, attempt: int) -> ChatResult:
        """The answer a stream carried, once it is known to have ended properly."""
        if not stream.done and stream.finish is None:
            raise self._error(f"stream cut short after {stream.received} characters (no [DONE])")
        if not stream.saw_choice:
            raise self._error("the stream had no choices")
        text = stream.close()
        if not text.strip():
            raise self._error("the model answered an empty text")
        model = stream.meta.get("model")
        return ChatResult(
            text,
            self._clean(model) if isinstance(model, str) and model else self.model,
            self._clean(stream.finish) if stream.finish is not None else None,
            self._meta(stream.meta, attempt, stream=True),
        )
