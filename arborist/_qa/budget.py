"""The prompt fits the model: evidence budgeted to a context window, weakest first. Pure.

A remote model reads the prompt and writes its answer in one context window
(llama.cpp's ``-c``, vLLM's ``--max-model-len``): a prompt that leaves no room
for the answer is refused (HTTP 400, "the request exceeds the available context
size"). Before a prompt is sent, its size is estimated and the evidence cut to
fit (:func:`fit_evidence`):

1. room = the window's tokens - the answer's reserve (``max_tokens`` if the
   profile sets it, at most half the window; else :data:`DEFAULT_ANSWER_TOKENS`,
   at most a quarter of it);
2. evidence comes ranked, so the weakest is last: it is dropped first, then
   the one before it, until the prompt fits;
3. the first item that did not fit whole is cut to the room left (at a word
   boundary, ending in :data:`TRIM_MARK`) when at least
   :data:`MIN_TRIMMED_CHARS` of it fit; else it is dropped too;
4. a prompt that does not fit even without evidence (a long question, many
   threaded turns) is refused before anything is sent.

No tokenizer is downloaded: :func:`estimate_tokens` is a deliberately high
estimate from the UTF-8 bytes (see its docstring for the calibration).

What was sent is recorded (:class:`PromptFit`): the record's evidence is only
what the model saw, so its proofs and citations cover exactly that; a chunk
cut short is named, with how many of its characters were shown, in the
record's policy (so in its cache key) and its response metadata.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from arborist._errors import ModelError
from arborist._qa.client import ChatRequest, EvidenceText, Message

__all__ = [
    "BYTES_PER_TOKEN",
    "Budgeted",
    "ContextWindow",
    "DEFAULT_ANSWER_TOKENS",
    "ESTIMATE",
    "MIN_TRIMMED_CHARS",
    "PromptFit",
    "SMALL_PROMPT_TOKENS",
    "TRIM_MARK",
    "answer_reserve",
    "estimate_tokens",
    "fit_evidence",
]

BYTES_PER_TOKEN = 2.5
"""UTF-8 bytes (other than digits) counted as one token by :func:`estimate_tokens`."""
MESSAGE_TOKENS = 8
"""Tokens a chat template adds around each message (role markers, separators)."""
REPLY_TOKENS = 16
"""Tokens a chat template adds to open the answer, and a margin."""
ESTIMATE = "digits + utf8_bytes/2.5 + 8 a message + 16"
"""The estimate's rule in words, as the record names it."""

DEFAULT_ANSWER_TOKENS = 1024
"""Tokens kept for the answer when the profile sets no ``max_tokens`` (at most a quarter
of the window): a grounded answer of a few cited sentences is a few hundred."""
SMALL_PROMPT_TOKENS = 2048
"""A prompt whose estimate and answer reserve fit in this many tokens is sent without
asking the server its context: every server in view offers at least this (llama.cpp's
default window is 4,096, Ollama's 2,048 and up, vLLM's the model's own)."""
MIN_TRIMMED_CHARS = 200
"""The least of a chunk worth showing cut short (a sentence or two); less is dropped."""
TRIM_MARK = " …"
"""What ends a chunk cut to fit, so the model knows the text goes on."""


def estimate_tokens(messages: Sequence[Message]) -> int:
    """A high estimate of the tokens ``messages`` take in a chat model's context.

    Each message counts one token per digit (Qwen's tokenizer reads digits one
    by one), one per :data:`BYTES_PER_TOKEN` of its other UTF-8 bytes, and
    :data:`MESSAGE_TOKENS` of template; the answer's opening adds
    :data:`REPLY_TOKENS`. Calibrated on the built-in corpus with Llama 2's
    tokenizer (32k pieces, coarser than Qwen 2.5's or Llama 3's), which reads its
    five-chunk prompts at 3.1 to 3.9 bytes a token: for each of the 72 modules'
    prompts the estimate is above that count, by 26 to 71%. Single chunks vary
    more (2.2 to 4.9 bytes a token): 37 of the 1,940, tables and symbols, count
    more than estimated alone, the worst by half again. A prompt of mostly such
    text, or of a script the tokenizer knows badly, may still cost more than
    estimated: the server then refuses, and its message is the error's.
    """
    total = REPLY_TOKENS
    for message in messages:
        data = message.content.encode("utf-8")
        digits = sum(1 for byte in data if 0x30 <= byte <= 0x39)
        total += MESSAGE_TOKENS + digits + math.ceil((len(data) - digits) / BYTES_PER_TOKEN)
    return total


def answer_reserve(context_tokens: int, max_tokens: int | None) -> int:
    """Tokens kept for the answer: ``max_tokens`` (at most half the window: a server that
    stops the answer at the window's end, as llama.cpp does, took such prompts before),
    else :data:`DEFAULT_ANSWER_TOKENS` (at most a quarter of the window)."""
    if max_tokens is not None:
        return min(max_tokens, context_tokens // 2)
    return min(DEFAULT_ANSWER_TOKENS, context_tokens // 4)


@dataclass(frozen=True)
class ContextWindow:
    """A model's context, prompt and answer together, and where it was learned."""

    tokens: int
    reserved: int  # kept for the answer
    source: str  # "profile" (context_tokens), or the server's reply that said it

    @property
    def room(self) -> int:
        """Tokens the prompt may take."""
        return self.tokens - self.reserved


@runtime_checkable
class Budgeted(Protocol):
    """A chat client whose prompts are fitted to a context window (a remote model)."""

    def prompt_tokens(self, request: ChatRequest) -> int:
        """The estimated tokens of the exact messages this client sends for ``request``."""
        ...

    def context_window(self, request: ChatRequest) -> ContextWindow | None:
        """The window ``request`` must fit, if known (the server may be asked, once per
        client and best effort, when the prompt is not small)."""
        ...


@dataclass(frozen=True)
class PromptFit:
    """What of the evidence a prompt carries, fitted to ``window``."""

    request: ChatRequest
    window: ContextWindow
    estimated: int  # the estimate of the prompt as sent
    retrieved: int  # evidence items retrieved
    sent: int  # items sent: E1..E{sent}, the last one cut short when trimmed_chars is set
    trimmed_chars: int | None = None  # characters of E{sent} shown, when it was cut
    full_chars: int | None = None  # ... of its whole text

    @property
    def cut(self) -> bool:
        """Whether anything retrieved was left out or cut short."""
        return self.sent < self.retrieved or self.trimmed_chars is not None

    def policy_entry(self) -> dict[str, object] | None:
        """What enters the record's policy (and so its key) beyond its evidence root, which
        already names the chunks sent: the chunk cut short and how much of it was shown;
        None when every chunk sent was whole (the prompt is then fixed by the evidence)."""
        if self.trimmed_chars is None:
            return None
        return {"label": f"E{self.sent}", "chars": self.trimmed_chars}

    def meta(self) -> dict[str, object]:
        """What the record's response metadata says of the fit, for a reader."""
        trimmed: dict[str, object] | None = None
        if self.trimmed_chars is not None:
            trimmed = {
                "label": f"E{self.sent}",
                "chars_sent": self.trimmed_chars,
                "chars": self.full_chars,
            }
        return {
            "context_tokens": self.window.tokens,
            "context_from": self.window.source,
            "reserved_tokens": self.window.reserved,
            "estimated_prompt_tokens": self.estimated,
            "estimate": ESTIMATE,
            "evidence_retrieved": self.retrieved,
            "evidence_sent": self.sent,
            "trimmed": trimmed,
        }


def _cut(text: str, chars: int) -> str:
    """The first ``chars`` characters of ``text``, back to the last word boundary in their
    second half, with :data:`TRIM_MARK`."""
    head = text[:chars]
    space = max(head.rfind(" "), head.rfind("\n"))
    if space >= chars // 2:
        head = head[:space]
    return head.rstrip()


def fit_evidence(
    build: Callable[[Sequence[EvidenceText]], ChatRequest],
    evidence: Sequence[EvidenceText],
    window: ContextWindow,
    count: Callable[[ChatRequest], int],
) -> PromptFit:
    """The request ``build`` makes of as much of ``evidence`` (ranked, strongest first) as
    ``count`` says fits ``window``'s room: the weakest dropped first, the first that does
    not fit whole cut short when enough of it fits (module docstring). Raises ModelError
    when the prompt does not fit even without evidence; nothing is sent then."""
    items = list(evidence)
    full = build(items)
    estimated = count(full)
    if estimated <= window.room:
        return PromptFit(full, window, estimated, len(items), len(items))
    for kept in range(len(items) - 1, -1, -1):
        request = build(items[:kept])
        estimated = count(request)
        if estimated > window.room:
            continue
        trimmed = _trimmed(build, items, kept, window, count)
        if trimmed is not None:
            return trimmed
        return PromptFit(request, window, estimated, len(items), kept)
    raise ModelError(
        f"the prompt needs about {estimated} tokens without any evidence, more than the "
        f"{max(window.room, 0)} of the model's {window.tokens}-token context "
        f"({window.source}) left after {window.reserved} for the answer; nothing was sent"
    )


def _trimmed(
    build: Callable[[Sequence[EvidenceText]], ChatRequest],
    items: list[EvidenceText],
    kept: int,
    window: ContextWindow,
    count: Callable[[ChatRequest], int],
) -> PromptFit | None:
    """``items[:kept]`` whole and as much of ``items[kept]`` as fits, cut at a word
    boundary; None when less than :data:`MIN_TRIMMED_CHARS` of it would fit."""
    whole = items[kept].text

    def attempt(chars: int) -> tuple[ChatRequest, int, int] | None:
        shown = _cut(whole, chars)
        item = replace(items[kept], text=shown + TRIM_MARK)
        request = build([*items[:kept], item])
        estimated = count(request)
        return (request, estimated, len(shown)) if estimated <= window.room else None

    low, high = MIN_TRIMMED_CHARS, len(whole) - 1
    best = attempt(low) if low <= high else None
    if best is None:
        return None
    while low < high:  # the most characters that fit: the estimate grows with them
        middle = (low + high + 1) // 2
        found = attempt(middle)
        if found is None:
            high = middle - 1
        else:
            low, best = middle, found
    request, estimated, shown = best
    if shown < MIN_TRIMMED_CHARS:  # cut back to a word, too little is left
        return None
    return PromptFit(request, window, estimated, len(items), kept + 1, shown, len(whole))
