"""Chat clients: one protocol, three built-ins, chosen by name (DESIGN.md section 4).

::

    ChatClient (protocol)   name, profile(), complete(request, on_token=...)
     +-- ExtractiveClient   default: offline, deterministic, quotes the best evidence sentences
     +-- StubClient         tests: a fixed answer and a call counter
     +-- OpenAIClient       any OpenAI-compatible server (vLLM, llama.cpp, Ollama, OpenAI)

A question reaches a client as a :class:`ChatRequest`: the question, the
evidence shown (labelled ``E1``, ``E2``, ... in rank order) and the exact
messages for a remote model, built by :func:`build_messages`. Every client
answers with a :class:`ChatResult` whose text cites evidence as
``[E# | <title> | <uri>]`` (see :mod:`arborist.qa.citations`).

``profile()`` is what the cache key's ``model_profile_hash`` covers: provider,
model, sampling options and system prompt. It never holds the API key, so
rotating a key keeps every cached answer, and it holds no floats (rendered as
strings), so it is canonical-JSON-safe.

Failures of a remote model become one-line :class:`~arborist.errors.ModelError`s;
bad configuration becomes :class:`~arborist.errors.BadInput` before any request.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import ssl
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Protocol

import httpx

from arborist._version import __version__
from arborist.errors import BadInput, ModelError
from arborist.hashing import MAX_SAFE_INTEGER
from arborist.qa.citations import defang_citations, format_citation

__all__ = [
    "BUILTIN_CLIENTS",
    "ChatClient",
    "ChatRequest",
    "ChatResult",
    "DEFAULT_CLIENT",
    "EXTRACTIVE_MODEL",
    "EvidenceText",
    "ExtractiveClient",
    "Message",
    "NO_EVIDENCE_ANSWER",
    "OpenAIClient",
    "SYSTEM_PROMPT",
    "StubClient",
    "build_messages",
    "iter_sse_data",
    "make_request",
    "select_client",
]

SYSTEM_PROMPT = (
    "You are a careful research assistant. Answer the question using only the evidence "
    "you are given. After each sentence that relies on the evidence, cite it exactly as "
    "[E# | <title> | <uri>], copying the label, title and uri from the evidence header. "
    "If the evidence does not answer the question, say so plainly instead of guessing."
)
"""The default system prompt; part of every remote profile, so changing it changes cache keys."""

NO_EVIDENCE_ANSWER = "I found no evidence in the documents that answers this question."
"""The extractive answer when no evidence sentence shares a term with the question."""

EXTRACTIVE_MODEL = "extractive-v1"
"""Version of the extractive algorithm: bump it whenever its output could change."""

DEFAULT_CLIENT = "extractive"
BUILTIN_CLIENTS = ("extractive", "stub", "openai")

_CITE_INSTRUCTION = (
    "Answer the question from the evidence above. Cite every claim as [E# | <title> | <uri>] "
    "using the headers shown; cite nothing else."
)


@dataclass(frozen=True)
class Message:
    """One chat message as the OpenAI protocol has it."""

    role: str
    content: str


@dataclass(frozen=True)
class EvidenceText:
    """One retrieved chunk shown to the model; ``label`` is ``E1``, ``E2``, ... in rank order."""

    label: str
    title: str
    uri: str
    text: str


@dataclass(frozen=True)
class ChatRequest:
    """What a client is asked: the question, its evidence and the prompt for a remote model."""

    question: str
    evidence: tuple[EvidenceText, ...]
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class ChatResult:
    """A model's answer; ``raw`` is canonical-JSON-safe metadata, never a key or a header."""

    text: str
    model: str
    finish_reason: str | None
    raw: dict[str, object]


class ChatClient(Protocol):
    """What every chat client offers; the runner and the CLI know nothing more."""

    name: str

    def profile(self) -> dict[str, object]:
        """What ``model_profile_hash`` covers: canonical-JSON-safe, never the API key."""
        ...

    def complete(
        self, request: ChatRequest, *, on_token: Callable[[str], None] | None = None
    ) -> ChatResult:
        """Answer ``request``; with ``on_token``, hand over the answer piece by piece as it comes."""
        ...


# --------------------------------------------------------------------------- prompt


def build_messages(
    question: str, evidence: Sequence[EvidenceText], system_prompt: str = SYSTEM_PROMPT
) -> tuple[Message, ...]:
    """The prompt for a remote model: a system message, then the question and each evidence block.

    Each block is headed ``[E# | <title> | <uri>]``, the very form the model is
    asked to cite, so copying the header is the easiest correct answer.
    Citation-shaped brackets inside evidence text are defanged, so a document
    cannot plant a citation of evidence that was never shown.
    """
    parts = [f"Question: {question}", ""]
    if evidence:
        parts.append("Evidence:")
        for item in evidence:
            parts += ["", format_citation(item.label, item.title, item.uri)]
            parts.append(defang_citations(item.text.strip()))
    else:
        parts.append("Evidence: (none was found)")
    parts += ["", _CITE_INSTRUCTION]
    return (Message("system", system_prompt), Message("user", "\n".join(parts)))


def make_request(
    question: str, evidence: Sequence[EvidenceText], system_prompt: str = SYSTEM_PROMPT
) -> ChatRequest:
    """A :class:`ChatRequest` with its messages built by :func:`build_messages`.

    The question is NFC-normalized again (idempotent) so that a caller who
    forgot cannot make two spellings of one question reach a model differently.
    """
    question = unicodedata.normalize("NFC", question)
    if not question.strip():
        raise BadInput("the question is empty")
    items = tuple(evidence)
    return ChatRequest(question, items, build_messages(question, items, system_prompt))


def _pieces(text: str) -> list[str]:
    """``text`` cut into word-sized pieces (each word with the whitespace before it)."""
    return [piece for piece in re.split(r"(?<=\S)(?=\s)", text) if piece]


# --------------------------------------------------------------------------- extractive

_WORD = re.compile(r"\w+")
_STOPWORD_TEXT = (
    "a about an and are as at be been but by can could did do does for from had has have "
    "how i if in into is it its me my no not of on or our so than that the their them then "
    "there these they this those to was we were what when where which who whom whose why "
    "will with would you your"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
_HEADING = re.compile(r"[ \t]*#{1,6}(?:[ \t]|$)")
_SENTENCE_BREAK = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'’”)\]]))\s+")


def _terms(text: str) -> set[str]:
    """Lowercased word tokens of ``text`` without the stopwords: what overlap is counted on."""
    return {word for word in _WORD.findall(text.lower()) if word not in _STOPWORDS}


_MARGIN_BAR = re.compile(r"^\s*\|(?: |$)")
_RULE = re.compile(r"\s*[-=+|_~*]{3,}[-=+|_~* ]*")


def _blocks(text: str) -> Iterator[str]:
    """The paragraphs and list items of ``text`` (markers removed); headings are left out.

    A heading names a topic but states nothing, so it never makes an answer.
    """
    lines: list[str] = []
    for raw in text.splitlines():
        line = _MARGIN_BAR.sub("", raw)  # pydoc draws class bodies behind a " |  " margin
        marker = _LIST_MARKER.match(line)
        if marker or not line.strip() or _HEADING.match(line) or _RULE.fullmatch(line):
            if lines:
                yield " ".join(lines)
            lines = [line[marker.end() :]] if marker else []
        else:
            lines.append(line)
    if lines:
        yield " ".join(lines)


_NOT_PROSE = re.compile(r"\s*(?:\||>>>|\.\.\.|https?://|[+=-]{2})")


def _is_prose(sentence: str) -> bool:
    """Whether a fragment reads as a statement: two words or more, mostly letters, not a table row,
    a doctest line or a bare link. Evidence also holds code and tables; quoting those as an
    answer reads as noise."""
    words = _WORD.findall(sentence)
    if len(words) < 2 or _NOT_PROSE.match(sentence):
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in sentence)
    return letters >= 0.6 * len(sentence)


def _sentences(text: str) -> list[str]:
    """``text`` split into sentences, each on one line, never across paragraphs or list items."""
    found = []
    for block in _blocks(text):
        for piece in _SENTENCE_BREAK.split(block):
            sentence = " ".join(piece.split())
            if _is_prose(sentence):
                found.append(sentence)
    return found


def _shorten(sentence: str, limit: int) -> str:
    """``sentence`` cut at a word boundary to at most ``limit`` characters, marked with an ellipsis."""
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: max(limit - 1, 1)]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip() + "…"


class ExtractiveClient:
    """The default client: answers by quoting the evidence sentences that best match the question.

    Offline and deterministic, so a fresh install answers (and caches) with no
    model at all. A sentence scores the number of distinct question terms it
    shares, counting its evidence's title as part of it (see ``_select``);
    ties go to the better-ranked evidence, then the earlier sentence.
    The best ``max_sentences`` that fit in ``max_chars`` (the first always
    fits, shortened if need be) are given best first, each followed by the
    citation of the evidence it came from.
    """

    def __init__(
        self, *, name: str = "extractive", max_sentences: int = 3, max_chars: int = 600
    ) -> None:
        if max_sentences < 1 or max_chars < 1:
            raise BadInput("the extractive model needs max_sentences and max_chars of at least 1")
        self.name = name
        self.max_sentences = max_sentences
        self.max_chars = max_chars

    def __repr__(self) -> str:
        return f"ExtractiveClient(name={self.name!r}, max_sentences={self.max_sentences}, max_chars={self.max_chars})"

    def profile(self) -> dict[str, object]:
        """Provider, algorithm version and its limits (all strings)."""
        return {
            "provider": "extractive",
            "model": EXTRACTIVE_MODEL,
            "max_sentences": str(self.max_sentences),
            "max_chars": str(self.max_chars),
        }

    def _select(self, request: ChatRequest) -> list[tuple[int, int, str]]:
        """The chosen ``(evidence index, sentence index, sentence)``, best first.

        A sentence is read together with its evidence's title: documents call
        their subject "he" or "it", so in a chunk titled "Spider-Man", "He was
        created by Stan Lee" answers "who created Spider-Man?" better than
        "Spider-Man is a superhero". Only sentences sharing a term of their
        own are eligible, so a title never brings in an unrelated sentence.
        """
        wanted = _terms(request.question)
        scored = []
        for rank, item in enumerate(request.evidence):
            topic = wanted & _terms(item.title)
            for order, sentence in enumerate(_sentences(defang_citations(item.text))):
                own = wanted & _terms(sentence)
                if own:
                    scored.append((-len(own | topic), rank, order, sentence))
        scored.sort(key=lambda entry: entry[:3])
        chosen: list[tuple[int, int, str]] = []
        seen: set[str] = set()
        used = 0
        for _, rank, order, sentence in scored:
            if len(chosen) == self.max_sentences:
                break
            if sentence in seen or (chosen and used + len(sentence) > self.max_chars):
                continue
            seen.add(sentence)
            quoted = sentence if chosen else _shorten(sentence, self.max_chars)
            used += len(quoted)
            chosen.append((rank, order, quoted))
        return chosen

    def complete(
        self, request: ChatRequest, *, on_token: Callable[[str], None] | None = None
    ) -> ChatResult:
        """Compose the answer from the evidence; stream it in word pieces when asked."""
        chosen = self._select(request)
        parts = []
        for rank, _, sentence in chosen:
            item = request.evidence[rank]
            parts.append(f"{sentence} {format_citation(item.label, item.title, item.uri)}")
        text = " ".join(parts) if parts else NO_EVIDENCE_ANSWER
        if on_token is not None:
            for piece in _pieces(text):
                on_token(piece)
        raw: dict[str, object] = {
            "provider": "extractive",
            "model": EXTRACTIVE_MODEL,
            "sentences": [
                {"label": request.evidence[rank].label, "sentence": order}
                for rank, order, _ in chosen
            ],
        }
        return ChatResult(text, EXTRACTIVE_MODEL, "stop", raw)


# --------------------------------------------------------------------------- stub


class StubClient:
    """A client for tests: a fixed answer, no network, and a count of the calls made.

    The default answer cites the first evidence (or says there was none), so a
    cache record made with it has a citation to prove.
    """

    def __init__(self, text: str | None = None, *, name: str = "stub") -> None:
        self.name = name
        self.text = text
        self.calls = 0
        self.requests: list[ChatRequest] = []

    def __repr__(self) -> str:
        return f"StubClient(text={self.text!r}, name={self.name!r})"

    def profile(self) -> dict[str, object]:
        """The stub's answer is its whole behaviour, so the profile names it."""
        return {"provider": "stub", "model": "stub-v1", "text": self.text}

    def complete(
        self, request: ChatRequest, *, on_token: Callable[[str], None] | None = None
    ) -> ChatResult:
        """Count the call, remember the request, answer the fixed text."""
        self.calls += 1
        self.requests.append(request)
        text = self.text
        if text is None:
            if request.evidence:
                first = request.evidence[0]
                text = f"Stub answer. {format_citation(first.label, first.title, first.uri)}"
            else:
                text = "Stub answer without evidence."
        if on_token is not None:
            for piece in _pieces(text):
                on_token(piece)
        return ChatResult(text, "stub-v1", "stop", {"provider": "stub", "calls": self.calls})


# --------------------------------------------------------------------------- SSE

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
        """The events completed by ``chunk``; raises UnicodeDecodeError on bytes that are not UTF-8."""
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


# --------------------------------------------------------------------------- OpenAI

_META_KEYS = ("id", "object", "created", "model", "system_fingerprint", "usage")
_MAX_ERROR_TEXT = 200
_MAX_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")


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


def _json_safe(value: object, depth: int = 0) -> object:
    """``value`` made canonical-JSON-safe: floats and huge integers become strings."""
    safe: object
    if isinstance(value, str):
        safe = _SURROGATE.sub("\ufffd", value)  # canonical JSON refuses lone surrogates
    elif value is None or isinstance(value, bool):
        safe = value
    elif isinstance(value, int):
        safe = value if abs(value) <= MAX_SAFE_INTEGER else str(value)
    elif depth >= _MAX_DEPTH:
        safe = "…"
    elif isinstance(value, dict):
        safe = {
            _SURROGATE.sub("\ufffd", str(key)): _json_safe(item, depth + 1)
            for key, item in value.items()
        }
    elif isinstance(value, (list, tuple)):
        safe = [_json_safe(item, depth + 1) for item in value]
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


def _describe(exc: httpx.TransportError, timeouts: httpx.Timeout) -> str:
    """A transport failure in one line, naming the timeout that ran out."""
    if isinstance(exc, httpx.ConnectTimeout):
        return f"could not connect within {timeouts.connect} s (connect timeout)"
    if isinstance(exc, httpx.ReadTimeout):
        return f"no answer within {timeouts.read} s (read timeout)"
    detail = _one_line(str(exc)) or "no detail"
    return f"{type(exc).__name__}: {detail}"


def _display_url(base_url: str) -> str:
    """The base URL without credentials or query, fit for an error message."""
    url = httpx.URL(base_url)
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{url.host}{port}{url.path.rstrip('/')}"


class OpenAIClient:
    """A client for any server speaking OpenAI's chat-completions protocol, over httpx.

    * Plain JSON, or SSE streaming when ``complete`` is given ``on_token``.
    * Connect and read timeouts; the read timeout bounds each wait for bytes,
      so a stream that keeps talking is never cut off by it.
    * Retries with exponential backoff and a little jitter (or the server's
      ``Retry-After``, capped) on 429, 5xx, connection errors and timeouts,
      ``max_retries`` times. A stream that already handed tokens to
      ``on_token`` is never retried: the reader would see them twice.
    * One one-line :class:`ModelError` for everything else: other 4xx,
      malformed JSON, no choices, no content, a stream cut short.
    * The client owns the system prompt (it is in its profile and so in the
      cache key): :meth:`messages_for` puts it in place of the request's.
    * The API key goes in the ``Authorization`` header and nowhere else: not
      in the profile, ``raw``, errors (a server echoing it is redacted) or repr.
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
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise BadInput(f"model base URL must start with http:// or https://, not {base_url!r}")
        if not model:
            raise BadInput("the model name is empty")
        if max_retries < 0:
            raise BadInput("max_retries must be 0 or more")
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
        for option, seconds in (("connect timeout", connect_timeout), ("timeout", read_timeout)):
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
                raise BadInput(f"{option} must be a positive number of seconds, not {seconds!r}")
        try:
            self._display = _display_url(base_url)
        except httpx.InvalidURL as exc:
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
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self._api_key = api_key or None
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
        """Provider, model, the sampling options that are set (as strings) and the system prompt.

        Not the base URL (the same model moved to another server answers the
        same), not timeouts or retries (they do not change answers), never the key.
        """
        profile: dict[str, object] = {
            "provider": "openai",
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
        """``text`` with the API key blotted out, in case a server echoed it back."""
        return text.replace(self._api_key, "***") if self._api_key else text

    def _error(self, what: str) -> ModelError:
        """A one-line ModelError naming this client, its model and server."""
        where = f"model {self.name!r} ({self.model} at {self._display})"
        return ModelError(self._redact(_one_line(f"{where}: {what}", 400)))

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
        attempts = self.max_retries + 1
        last: _Retryable | None = None
        with self._http() as http:
            for attempt in range(attempts):
                if last is not None:
                    self._sleep(self._delay(attempt, last.retry_after))
                try:
                    return self._attempt(http, payload, on_token, attempt + 1)
                except _Retryable as exc:
                    last = exc
        assert last is not None
        noun = "attempt" if attempts == 1 else "attempts"
        raise self._error(f"gave up after {attempts} {noun}; last error: {last.cause}") from last

    def _attempt(
        self,
        http: httpx.Client,
        payload: dict[str, object],
        on_token: Callable[[str], None] | None,
        attempt: int,
    ) -> ChatResult:
        """One request; raises _Retryable for what a retry may fix, ModelError for the rest."""
        url = f"{self.base_url}/chat/completions"
        accept = "text/event-stream" if on_token is not None else "application/json"
        try:
            with http.stream("POST", url, json=payload, headers={"Accept": accept}) as response:
                if response.status_code != 200:
                    response.read()
                    raise self._status_error(response)
                # Streamed unless the server says it sent plain JSON (some ignore "stream").
                content_type = response.headers.get("content-type", "")
                if on_token is not None and not content_type.startswith("application/json"):
                    return self._read_stream(response, on_token, attempt)
                response.read()
                result = self._read_json(response, attempt)
                if on_token is not None:
                    on_token(result.text)
                return result
        except httpx.TransportError as exc:
            raise _Retryable(_describe(exc, self.timeouts)) from exc
        except httpx.HTTPError as exc:
            raise self._error(_describe_http(exc)) from exc

    def _status_error(self, response: httpx.Response) -> Exception:
        """A non-200 answer: _Retryable for 429 and 5xx, a ModelError for anything else."""
        status = response.status_code
        message = _one_line(self._redact(_server_message(response)))
        cause = f"HTTP {status}" + (f": {message}" if message else "")
        if status == 429 or status >= 500:
            return _Retryable(cause, _retry_after(response))
        return self._error(cause)

    def _meta(self, body: Mapping[str, object], attempt: int, stream: bool) -> dict[str, object]:
        """The response metadata kept in ``raw``: ids, model, usage; never headers."""
        meta = {key: _json_safe(body[key]) for key in _META_KEYS if body.get(key) is not None}
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
            raise self._error(f"the server answered an error: {_one_line(reason)}")
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
            content,
            model if isinstance(model, str) and model else self.model,
            finish if isinstance(finish, str) else None,
            self._meta(body, attempt, stream=False),
        )

    def _read_stream(
        self,
        response: httpx.Response,
        on_token: Callable[[str], None],
        attempt: int,
    ) -> ChatResult:
        """An SSE stream of chunks: hand each delta to ``on_token``, check it ended properly.

        A transport failure before the first token may be retried; after it,
        the reader has seen part of an answer, so it is a ModelError instead.
        """
        parts: list[str] = []
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
                    raise self._error(f"the stream reported an error: {_one_line(message)}")
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
                    on_token(content)
                if isinstance(choice.get("finish_reason"), str):
                    finish = choice["finish_reason"]
        except UnicodeDecodeError as exc:
            raise self._error("the stream is not valid UTF-8") from exc
        except httpx.TransportError as exc:
            cause = _describe(exc, self.timeouts)
            if parts:
                raise self._error(f"stream cut short after {len(parts)} pieces: {cause}") from exc
            raise _Retryable(cause) from exc
        received = sum(map(len, parts))
        if not done and finish is None:
            raise self._error(f"stream cut short after {received} characters (no [DONE])")
        if not saw_choice:
            raise self._error("the stream had no choices")
        text = "".join(parts)
        if not text.strip():
            raise self._error("the model answered an empty text")
        model = meta.get("model")
        return ChatResult(
            text,
            model if isinstance(model, str) and model else self.model,
            finish,
            self._meta(meta, attempt, stream=True),
        )


def _describe_http(exc: httpx.HTTPError) -> str:
    """Any other httpx failure (a bad URL, a decoding error) in one line."""
    return f"{type(exc).__name__}: {_one_line(str(exc)) or 'no detail'}"


# --------------------------------------------------------------------------- selection

_PROFILE_KEYS = {
    "openai": {
        "provider",
        "base_url",
        "model",
        "api_key_env",
        "temperature",
        "max_tokens",
        "top_p",
        "system_prompt",
        "timeout",
        "max_retries",
    },
    "extractive": {"provider", "max_sentences", "max_chars"},
    "stub": {"provider", "text"},
}


def _string(profile: Mapping[str, object], key: str, where: str) -> str | None:
    """An optional string setting of a profile."""
    value = profile.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BadInput(f"{where}: {key} must be a string")


def _whole(profile: Mapping[str, object], key: str, where: str, default: int | None) -> int | None:
    """An optional whole-number setting of a profile (TOML booleans are not numbers)."""
    value = profile.get(key, default)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise BadInput(f"{where}: {key} must be a whole number")


def _number(profile: Mapping[str, object], key: str, where: str) -> float | None:
    """An optional numeric setting of a profile."""
    value = profile.get(key)
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    raise BadInput(f"{where}: {key} must be a number")


def _timeouts(profile: Mapping[str, object], where: str) -> tuple[float, float]:
    """``timeout = 60`` (the read timeout) or ``timeout = {connect = 5, read = 60}``."""
    value = profile.get("timeout")
    if value is None:
        return 10.0, 120.0
    if isinstance(value, Mapping):
        unknown = {str(key) for key in value} - {"connect", "read"}
        if unknown:
            raise BadInput(f"{where}: timeout takes connect and read, not {sorted(unknown)}")
        connect = _number(value, "connect", where)
        read = _number(value, "read", where)
        return (10.0 if connect is None else connect), (120.0 if read is None else read)
    seconds = _number(profile, "timeout", where)
    assert seconds is not None
    return 10.0, seconds


def _from_profile(name: str, profile: Mapping[str, object], env: Mapping[str, str]) -> ChatClient:
    """A client built from ``[models.NAME]`` in config.toml."""
    where = f"model profile {name!r}"
    provider = profile.get("provider", "openai")
    if provider not in _PROFILE_KEYS:
        raise BadInput(f"{where}: provider must be openai, extractive or stub, not {provider!r}")
    assert isinstance(provider, str)
    unknown = sorted(set(profile) - _PROFILE_KEYS[provider])
    if unknown:
        raise BadInput(f"{where}: unknown setting {unknown[0]!r} for provider {provider}")
    if provider == "extractive":
        return ExtractiveClient(
            name=name,
            max_sentences=_whole(profile, "max_sentences", where, 3) or 0,
            max_chars=_whole(profile, "max_chars", where, 600) or 0,
        )
    if provider == "stub":
        return StubClient(_string(profile, "text", where), name=name)
    base_url = _string(profile, "base_url", where)
    model = _string(profile, "model", where)
    if not base_url:
        raise BadInput(f"{where}: set base_url (e.g. http://localhost:8000/v1)")
    if not model:
        raise BadInput(f"{where}: set model (the name the server knows the model by)")
    api_key = None
    key_env = _string(profile, "api_key_env", where)
    if key_env:
        api_key = env.get(key_env)
        if not api_key:
            raise BadInput(f"{where} reads its API key from ${key_env}, which is not set")
    connect, read = _timeouts(profile, where)
    return OpenAIClient(
        base_url,
        model,
        api_key=api_key,
        name=name,
        temperature=_number(profile, "temperature", where),
        max_tokens=_whole(profile, "max_tokens", where, None),
        top_p=_number(profile, "top_p", where),
        system_prompt=_string(profile, "system_prompt", where) or SYSTEM_PROMPT,
        connect_timeout=connect,
        read_timeout=read,
        max_retries=_whole(profile, "max_retries", where, 3) or 0,
    )


def select_client(
    name: str | None = None,
    *,
    config: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
) -> ChatClient:
    """The client a user asked for: ``name`` (``--llm``), else ``$ARBORIST_LLM``, else extractive.

    ``openai`` is configured from ``ARBORIST_BASE_URL``, ``ARBORIST_MODEL`` and
    ``ARBORIST_API_KEY``; any other name is a ``[models.NAME]`` profile of
    ``config`` (the parsed config.toml), whose key, if any, comes from the
    environment variable its ``api_key_env`` names. The built-in names win
    over profiles of the same name. Nothing is contacted here.
    """
    env = os.environ if env is None else env
    chosen = (name or "").strip() or env.get("ARBORIST_LLM", "").strip() or DEFAULT_CLIENT
    if chosen == "extractive":
        return ExtractiveClient()
    if chosen == "stub":
        return StubClient()
    if chosen == "openai":
        base_url = env.get("ARBORIST_BASE_URL", "").strip()
        model = env.get("ARBORIST_MODEL", "").strip()
        if not base_url:
            raise BadInput(
                "the openai model needs a server: set ARBORIST_BASE_URL (e.g. http://localhost:8000/v1)"
            )
        if not model:
            raise BadInput("the openai model needs a model name: set ARBORIST_MODEL")
        return OpenAIClient(base_url, model, api_key=env.get("ARBORIST_API_KEY") or None)
    models = (config or {}).get("models", {})
    if not isinstance(models, Mapping):
        raise BadInput("config.toml: [models] must be a table of model profiles")
    profile = models.get(chosen)
    if profile is None:
        raise BadInput(
            f"unknown model {chosen!r}: choose extractive, stub, openai or a [models.{chosen}] "
            "profile in config.toml"
        )
    if not isinstance(profile, Mapping):
        raise BadInput(f"config.toml: [models.{chosen}] must be a table")
    return _from_profile(chosen, profile, env)
