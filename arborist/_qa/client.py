"""Chat clients: one protocol, three built-ins, chosen by name (docs/design.md section 4).

::

    ChatClient (protocol)   name, profile(), complete(request, on_token=...)
     +-- ExtractiveClient   default: offline, deterministic, quotes the best evidence sentences
     +-- StubClient         tests: a fixed answer and a call counter
     +-- OpenAIClient       any OpenAI-compatible server (vLLM, llama.cpp, Ollama, OpenAI)

Each lives in its own module (:mod:`arborist._qa.extractive`, :mod:`arborist._qa.stub`,
:mod:`arborist._qa.openai`) and :func:`arborist._qa.models.select_client` picks one by
name; this module is what they all share.

A question reaches a client as a :class:`ChatRequest`: the question, the
evidence shown (labelled ``E1``, ``E2``, ... in rank order) and the exact
messages for a remote model, built by :func:`build_messages`. Every client
answers with a :class:`ChatResult` whose text cites evidence as
``[E# | <title> | <uri>]`` or its short form ``[E#]`` (the extractive model's;
see :mod:`arborist._proofs.citations`).

``profile()`` is what the cache key's ``model_profile_hash`` covers: provider,
model, sampling options and system prompt, and for a remote model the server
it runs on (its base URL without credentials or query). It never holds the
API key, so rotating a key keeps every cached answer, and it holds no floats
(rendered as strings), so it is canonical-JSON-safe.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from arborist._errors import BadInput
from arborist._proofs.citations import defang_citations, format_citation
from arborist._qa.support import NOT_ANSWERED_OPENING

__all__ = [
    "ChatClient",
    "ChatRequest",
    "ChatResult",
    "EvidenceText",
    "Message",
    "SYSTEM_PROMPT",
    "build_messages",
    "make_request",
    "word_pieces",
]

SYSTEM_PROMPT = (
    "You are a careful research assistant. Answer the question using only the evidence "
    "you are given. After each sentence that relies on the evidence, cite it exactly as "
    "[E# | <title> | <uri>], copying the label, title and uri from the evidence header. "
    "Answer only from the evidence: never from what you know otherwise. If the evidence "
    "does not answer the question, do not guess and do not quote passages about something "
    f'else: begin your reply with the sentence "{NOT_ANSWERED_OPENING}" and then say in one '
    "sentence what the evidence is about."
)
"""The default system prompt; part of every remote profile, so changing it changes cache keys.
A reply that opens with :data:`~arborist._qa.support.NOT_ANSWERED_OPENING` is labelled
``not answered`` in every face, as the offline answerer's refusal is."""

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
    nearness: tuple[float, ...] = ()
    """With hybrid retrieval over passages: how near the question each of the chunk's
    passages is (its cosine on the question's calibration,
    :mod:`arborist._store.calibration`, in :func:`arborist._store.passages.passages`' order), what the
    offline answerer follows when the question does not use the documents' words; never
    sent to a model (the prompt is the text)."""


@dataclass(frozen=True)
class ChatRequest:
    """What a client is asked: the question, its evidence and the prompt for a remote model."""

    question: str
    evidence: tuple[EvidenceText, ...]
    messages: tuple[Message, ...]
    measure: Callable[[Sequence[str]], tuple[float, ...]] | None = field(
        default=None, compare=False, repr=False
    )
    """With hybrid retrieval over passages: how near the question each of some texts is, by
    the lane's own model on the question's calibration (as :attr:`EvidenceText.nearness`).
    The offline answerer measures the sentences it might quote (few, so asked for, not
    measured ahead); a function of the question and the embedding profile, both in the key."""


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


def word_pieces(text: str) -> list[str]:
    """``text`` cut into word-sized pieces (each word with the whitespace before it): how a
    client that has its whole answer at once still streams it to ``on_token``."""
    return [piece for piece in re.split(r"(?<=\S)(?=\s)", text) if piece]
