"""Chat clients: one protocol, three built-ins, chosen by name (docs/design.md section 4).

::

    ChatClient (protocol)   name, profile(), complete(request, on_token=...)
     +-- ExtractiveClient   default: offline, deterministic, quotes the best evidence sentences
     +-- StubClient         tests: a fixed answer and a call counter
     +-- OpenAIClient       any OpenAI-compatible server (vLLM, llama.cpp, Ollama, OpenAI)

A question reaches a client as a :class:`ChatRequest`: the question, the
evidence shown (labelled ``E1``, ``E2``, ... in rank order) and the exact
messages for a remote model, built by :func:`build_messages`. Every client
answers with a :class:`ChatResult` whose text cites evidence as
``[E# | <title> | <uri>]`` or its short form ``[E#]`` (the extractive model's;
see :mod:`arborist.qa.citations`).

``profile()`` is what the cache key's ``model_profile_hash`` covers: provider,
model, sampling options and system prompt, and for a remote model the server
it runs on (its base URL without credentials or query). It never holds the
API key, so rotating a key keeps every cached answer, and it holds no floats
(rendered as strings), so it is canonical-JSON-safe.

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
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Protocol

import httpx

from arborist._version import __version__
from arborist.analysis import (
    STOPWORDS,
    Definition,
    QuestionTerms,
    fold,
    is_header,
    named_definitions,
    read_question,
    stem,
    stems,
    words,
)
from arborist.errors import BadInput, ModelError
from arborist.hashing import MAX_SAFE_INTEGER
from arborist.qa.citations import defang_citations, format_citation
from arborist.qa.sse import iter_sse_data

__all__ = [
    "API_KEY_PLACEHOLDER",
    "ChatClient",
    "ChatRequest",
    "ChatResult",
    "DEFAULT_DEADLINE",
    "DEFAULT_READ_TIMEOUT",
    "DEFAULT_RETRIES",
    "EXTRACTIVE_MODEL",
    "EvidenceText",
    "ExtractiveClient",
    "MIN_REDACTED_KEY",
    "Message",
    "NO_EVIDENCE_ANSWER",
    "OpenAIClient",
    "SYSTEM_PROMPT",
    "StubClient",
    "build_messages",
    "make_request",
]

SYSTEM_PROMPT = (
    "You are a careful research assistant. Answer the question using only the evidence "
    "you are given. After each sentence that relies on the evidence, cite it exactly as "
    "[E# | <title> | <uri>], copying the label, title and uri from the evidence header. "
    "If the evidence does not answer the question, say so plainly instead of guessing."
)
"""The default system prompt; part of every remote profile, so changing it changes cache keys."""

NO_EVIDENCE_ANSWER = "The documents do not answer this question."
"""How the extractive answer opens when no evidence sentence shares a word with the question
(it goes on to say what was searched and what was found)."""

EXTRACTIVE_MODEL = "extractive-v2"
"""Version of the extractive algorithm: bump it whenever its output could change."""

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

_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
_HEADING = re.compile(r"[ \t]*#{1,6}(?:[ \t]|$)")
_SENTENCE_BREAK = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'’”)\]]))\s+")
_MARGIN_BAR = re.compile(r"^\s*\|(?: |$)")
_RULE = re.compile(r"\s*[-=+|_~*]{3,}[-=+|_~* ]*")
_SIGNATURE = re.compile(r"[A-Za-z_][\w.]*\(.*\)(?:\s*->.*)?")


def _blocks(text: str) -> Iterator[str]:
    """The paragraphs and list items of ``text`` (markers removed); headings are left out.

    A heading names a topic but states nothing, so it never makes an answer. A
    change of indentation also ends a paragraph where API texts put a name at one
    depth and its description deeper ("median(data)" over "Return the median ...",
    "key" over "A function for computing ..."): the two are not one sentence. A
    prose line continued deeper is a hanging indent and stays one paragraph.
    """
    lines: list[str] = []
    depth = -1
    for raw in text.splitlines():
        line = _MARGIN_BAR.sub("", raw)  # pydoc draws class bodies behind a " |  " margin
        marker = _LIST_MARKER.match(line)
        indent = len(line) - len(line.lstrip())
        if (
            marker
            or not line.strip()
            or _HEADING.match(line)
            or _RULE.fullmatch(line)
            or (lines and _new_paragraph(lines, indent, depth))
        ):
            if lines:
                yield " ".join(lines)
            lines = [line[marker.end() :]] if marker else []
            if (
                not marker
                and line.strip()
                and not _HEADING.match(line)
                and not _RULE.fullmatch(line)
            ):
                lines = [line]
            depth = marker.end() if marker else indent
        else:
            if not lines:
                depth = indent
            lines.append(line)
    if lines:
        yield " ".join(lines)


def _new_paragraph(lines: list[str], indent: int, depth: int) -> bool:
    """Whether a line at ``indent`` starts a new paragraph after ``lines`` (begun at ``depth``)."""
    if indent == depth:
        return False
    if indent < depth:
        return True
    joined = " ".join(lines).strip()
    return is_header(joined) or len(words(joined)) <= LABEL_WORDS


LABEL_WORDS = 2
"""A line of at most this many words over a deeper one is a label (a parameter's name), not
the start of a sentence."""

_CODE_LINE = re.compile(
    r"\s*(?:for|if|elif|else|while|with|def|class|try|except|finally|import|from|return|async)\b.*:"
)

_NOT_PROSE = re.compile(r"\s*(?:\||>>>|\.\.\.|https?://|[+=-]{2}|[\w.]+\s*=\s)")


LIST_WORDS = 6
"""From this many words, a fragment without a single function word is a list of names."""


def _is_prose(sentence: str) -> bool:
    """Whether a fragment reads as a statement: two words or more, mostly letters, not a
    signature, a list of names, a table row, a doctest line or a bare link. Evidence also holds code and
    tables; quoting those as an answer reads as noise."""
    found = words(sentence)
    if len(found) < 2 or _NOT_PROSE.match(sentence) or _SIGNATURE.fullmatch(sentence):
        return False
    if _CODE_LINE.fullmatch(sentence) and not sentence.rstrip(":").endswith("."):
        return False  # "for row in reader:" opens a block of code
    if is_header(sentence) or (len(found) >= LIST_WORDS and not STOPWORDS.intersection(found)):
        return False  # a header, or a run of names ("accumulate chain compress ..."): no statement
    letters = sum(ch.isalpha() or ch.isspace() for ch in sentence)
    return letters >= 0.6 * len(sentence)


def _sentences(text: str) -> list[str]:
    """``text`` split into sentences, each on one line, never across paragraphs or list items."""
    found = []
    for block in _blocks(text):
        for piece in _SENTENCE_BREAK.split(block):
            sentence = " ".join(piece.split())
            if _is_prose(sentence) and not _leads_into_example(sentence):
                found.append(_closed(sentence))
    return found


def _leads_into_example(sentence: str) -> bool:
    """ "For example:", "Example usage:", "This is equivalent to:": says nothing without the
    code that followed it."""
    return sentence.endswith(":") and len(words(sentence)) <= EXAMPLE_LEAD_WORDS


EXAMPLE_LEAD_WORDS = 4
"""A sentence this short that ends with a colon only introduces what follows it."""


def _closed(sentence: str) -> str:
    """A sentence ends as a statement: one that introduced an example ("... the two middle
    values:") or a docstring's unpunctuated summary line gets its full stop."""
    sentence = sentence.rstrip(":").rstrip() if sentence.endswith(":") else sentence
    return sentence if sentence.endswith((".", "!", "?", "…", ")", '"', "'")) else sentence + "."


def _shorten(sentence: str, limit: int) -> str:
    """``sentence`` cut at a word boundary to at most ``limit`` characters, marked with an ellipsis."""
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: max(limit - 1, 1)]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip() + "…"


def _short_signature(signature: str, limit: int = 32) -> str:
    """``(s, *, cls=None, object_hook=None, ...)`` shortened at a parameter boundary: ``(s, *, cls=None, …)``;
    a method's ``self`` is left out."""
    signature = re.sub(r"^\((?:self|cls)(?:, *|(?=\)))", "(", signature)
    if len(signature) <= limit:
        return signature
    inner = signature[1:-1]
    kept = ""
    for part in inner.split(","):
        candidate = f"{kept},{part}" if kept else part
        if len(candidate) + 4 > limit:
            break
        kept = candidate
    return f"({kept}, …)" if kept else "(…)"


def _near_duplicate(a: set[str], b: set[str]) -> bool:
    """Two sentences saying the same: one's words nearly all in the other's."""
    if not a or not b:
        return a == b
    return len(a & b) / min(len(a), len(b)) >= NEAR_DUPLICATE


NEAR_DUPLICATE = 0.8
"""Share of the shorter sentence's words found in the other above which one is left out."""


@dataclass(frozen=True)
class _Pick:
    rank: int  # which evidence item
    order: int  # position in its text (sentences of a definition come first, in order)
    text: str
    score: float


class ExtractiveClient:
    """The default client: answers by quoting the evidence that answers the question.

    Offline and deterministic, so a fresh install answers (and caches) with no
    model at all. How it composes an answer:

    1. **A definition first.** When the question names something (``json.loads``,
       ``groupby``, ``median_low``) and the evidence defines it (a signature line
       with its description below, :func:`arborist.analysis.definitions`), the
       answer opens with that definition: the name as asked, its parameters
       shortened, and the description's first sentences, in order.
    2. **Then the sentences that match.** Every other prose sentence is scored
       by the question's words it holds, each weighted by how rare it is among
       the evidence's sentences; the evidence's title counts as context for a
       sentence that holds a word of its own ("He was created by Stan Lee" in a
       chunk titled "Spider-Man"). Code, tables, doctests and signatures are
       never quoted, and a sentence that repeats one already chosen is skipped.
    3. **Short and cited once per run.** At most ``max_sentences`` sentences and
       ``max_chars`` characters (the first always fits, shortened if need be),
       grouped by the evidence they came from; each group ends with one short
       citation ``[E#]``, whose title and URI the evidence list shows.

    When the evidence holds nothing about the question, the answer says so and
    names what was searched and what was found.
    """

    def __init__(
        self, *, name: str = "extractive", max_sentences: int = 4, max_chars: int = 600
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

    def _definition(self, request: ChatRequest, asked: QuestionTerms) -> list[_Pick]:
        """The opening sentences from the best definition of a name the question names."""
        found = []
        for rank, item in enumerate(request.evidence):
            text = defang_citations(item.text)
            for definition, strong in named_definitions(text, asked, item.title):
                name = fold(definition.name.split(".")[-1])
                sentences = _sentences(definition.doc)
                if not sentences:
                    continue
                if not strong and not _plain_name_fits(name, asked, definition.doc, item.title):
                    continue
                # A strong name's top-level definition wins over a member of the same name
                # anywhere; among plain names, the better-ranked evidence decides.
                order = (definition.nested, rank) if strong else (rank, definition.nested)
                found.append(((not strong, *order, definition.line), rank, definition))
        if not found:
            return []
        _, rank, definition = min(found, key=lambda entry: entry[0])
        shown = next(
            (i for i in asked.identifiers if fold(i.split(".")[-1]) == fold(definition.name)),
            definition.name,
        )
        sentences = _sentences(definition.doc)
        if shown == definition.name and not definition.nested:
            shown = _qualified(definition.name, request.evidence[rank].title)
        call = _call_signature(definition)
        if definition.is_class and call == definition.signature:
            call = ""  # a class header lists its bases, not how to call it
        lead = f"{shown}{_short_signature(call)}: {sentences[0]}"
        picks = [_Pick(rank, 0, lead, math.inf)]
        picks += [
            _Pick(rank, i, s, math.inf) for i, s in enumerate(sentences[1:DEFINITION_SENTENCES], 1)
        ]
        return picks

    def _matching(self, request: ChatRequest, asked: QuestionTerms) -> list[_Pick]:
        """Every prose sentence holding a word of the question, scored (see the class docstring)."""
        wanted = {stem(w) for w in asked.words}
        table = [
            (rank, order, sentence, stems(sentence))
            for rank, item in enumerate(request.evidence)
            for order, sentence in enumerate(_sentences(defang_citations(item.text)))
            if order > 0 or not _cut_at_start(item.text, sentence)
        ]
        counts: dict[str, int] = {}
        for *_, found in table:
            for word in found & wanted:
                counts[word] = counts.get(word, 0) + 1
        weight = {w: math.log(1 + len(table) / n) for w, n in counts.items()}
        titles = [wanted & stems(item.title) for item in request.evidence]
        picks = []
        for rank, order, sentence, found in table:
            own = found & wanted
            if own:
                topic = titles[rank] - own
                score = sum(weight[w] for w in own) + TITLE_SHARE * sum(
                    weight.get(w, 0.0) for w in topic
                )
                picks.append(_Pick(rank, order + 1000, sentence, score))
        picks.sort(key=lambda p: (-p.score, p.rank, p.order))
        return [p for p in picks if p.score >= RELATIVE_FLOOR * picks[0].score]

    def _select(self, request: ChatRequest) -> list[_Pick]:
        """The chosen sentences, grouped by evidence item (best group first), each group in order."""
        asked = read_question(request.question)
        chosen: list[_Pick] = []
        seen: list[set[str]] = []
        used = 0
        opening = self._definition(request, asked)
        rest = self._matching(request, asked)
        if opening:  # the definition says what it is; other chunks only add what names it
            rest = [] if len(opening) >= 2 else [p for p in rest if _names(p.text, opening[0])]
        for pick in [*opening, *rest]:
            if len(chosen) == self.max_sentences:
                break
            found = set(words(pick.text))
            if any(_near_duplicate(found, other) for other in seen):
                continue
            if chosen and used + len(pick.text) > self.max_chars:
                continue
            text = pick.text if chosen else _shorten(pick.text, self.max_chars)
            seen.append(found)
            used += len(text)
            chosen.append(_Pick(pick.rank, pick.order, text, pick.score))
        first_seen = {p.rank: i for i, p in reversed(list(enumerate(chosen)))}
        return sorted(chosen, key=lambda p: (first_seen[p.rank], p.order))

    def _nothing(self, request: ChatRequest) -> str:
        asked = read_question(request.question)
        searched = ", ".join(asked.words) or request.question.strip()
        if not request.evidence:
            return f"{NO_EVIDENCE_ANSWER} No passage mentions any of: {searched}."
        titles = "; ".join(dict.fromkeys(" ".join(item.title.split()) for item in request.evidence))
        return (
            f"{NO_EVIDENCE_ANSWER} Searched for: {searched}. "
            f"The {len(request.evidence)} passages found (from {titles}) "
            "hold no sentence about it."
        )

    def complete(
        self, request: ChatRequest, *, on_token: Callable[[str], None] | None = None
    ) -> ChatResult:
        """Compose the answer from the evidence; stream it in word pieces when asked."""
        chosen = self._select(request) if _covered(request) else []
        parts = []
        for index, pick in enumerate(chosen):
            parts.append(pick.text)
            if index + 1 == len(chosen) or chosen[index + 1].rank != pick.rank:
                parts[-1] += f" [{request.evidence[pick.rank].label}]"
        text = " ".join(parts) if parts else self._nothing(request)
        if on_token is not None:
            for piece in _pieces(text):
                on_token(piece)
        raw: dict[str, object] = {
            "provider": "extractive",
            "model": EXTRACTIVE_MODEL,
            "sentences": [
                {"label": request.evidence[p.rank].label, "sentence": p.order} for p in chosen
            ],
        }
        return ChatResult(text, EXTRACTIVE_MODEL, "stop", raw)


DEFINITION_SENTENCES = 3
"""How many sentences of a definition's description the answer opens with, at most."""

RELATIVE_FLOOR = 0.5
"""A matching sentence scoring under this share of the best one is about something else
("Batman was created by ..." for "who created Spider-Man?") and is left out."""

TITLE_SHARE = 0.5
"""How much a question word in the evidence's title counts for each of its sentences."""


ANSWERED_SHARE = 0.5
"""Share of the question's words the evidence (texts and titles) must hold before sentences are
quoted from it: below it, the evidence is about something else ("Who created Spider-Man?"
over the standard library finds "created" alone) and the answer says so."""


def _covered(request: ChatRequest) -> bool:
    wanted = {stem(w) for w in read_question(request.question).words}
    if not wanted:
        return bool(request.evidence)
    present: set[str] = set()
    for item in request.evidence:
        present |= wanted & (stems(item.text) | stems(item.title))
    return len(present) >= ANSWERED_SHARE * len(wanted)


_MODULE_TITLE = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")


def _qualified(name: str, title: str) -> str:
    """``shuffle`` as ``random.shuffle`` when its document is a module's reference (a title
    whose subject, before " — ", is a module name); otherwise the name as defined."""
    subject = title.split(" — ", 1)[0].strip()
    qualify = _MODULE_TITLE.fullmatch(subject) and subject != name and "." not in name
    return f"{subject}.{name}" if qualify else name


def _cut_at_start(text: str, sentence: str) -> bool:
    """Whether ``sentence`` is the tail of a sentence the chunk was cut from: it opens the
    chunk's text, in lowercase."""
    head = " ".join(_MARGIN_BAR.sub("", text.lstrip()).split())
    return sentence[:1].islower() and head.startswith(sentence[:40])


def _names(sentence: str, lead: _Pick) -> bool:
    """Whether ``sentence`` mentions the name the opening definition defines."""
    name = lead.text.split("(", 1)[0].split(":", 1)[0].split(".")[-1]
    return fold(name) in set(words(sentence)) or name in sentence


def _call_signature(definition: Definition) -> str:
    """How the name is called: a class's constructor line when its description opens with one
    (pydoc's ``groupby(iterable, key=None)`` under ``class groupby(builtins.object)``)."""
    first = definition.doc.split("\n", 1)[0].strip()
    opened = _SIGNATURE.fullmatch(first)
    if opened and first.split("(", 1)[0] == definition.name:
        return "(" + first.split("(", 1)[1]
    return definition.signature


def _plain_name_fits(name: str, asked: QuestionTerms, doc: str, title: str) -> bool:
    """Whether a definition named by a plain word ("shuffle") is what the question is about:
    the question is short (the name is its subject), the definition's own description
    shares another of the question's words, or its document's subject does ("How does
    statistics compute the mean?": ``mean`` in the statistics reference)."""
    others = set(asked.words) - {name}
    if len(asked.words) <= 2:
        return True
    subject = set(words(title.split(" — ", 1)[0]))
    return bool(others & (set(words(doc)) | subject))


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


# --------------------------------------------------------------------------- OpenAI

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
