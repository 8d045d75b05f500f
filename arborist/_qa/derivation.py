"""What ``arborist derive KIND --from REF`` distils, with the model it is told to use.

The text a derivation stands on is the cited text of REF's answer and nothing else: the
spans of the answer that carry a citation, then the text of the chunks they cite (the
chunks :mod:`arborist._store.derive` binds the record to). The offline answerer
(``extractive``) distils it by the deterministic rules of :mod:`arborist._qa.distill`;
any other model (an OpenAI-compatible server, the test stub) is asked, in one request,
with that text only, and its reply is checked for the kind's shape. Either way the
caller passes the result through the admission gate before it is saved.
"""

from __future__ import annotations

from arborist._errors import BadInput
from arborist._proofs.citations import defang_citations
from arborist._qa import distill
from arborist._qa.client import ChatClient, ChatRequest, Message
from arborist._store.cache.records import CacheRecord
from arborist._store.derive import cited_spans

__all__ = ["INSTRUCTIONS", "cited_text", "distilled", "offline"]

INSTRUCTIONS = {
    "haiku": "Write a haiku about the text below: three lines of about 5, 7 and 5 "
    "syllables, drawn only from the text. Reply with the three lines only.",
    "equation": "Quote the first equation or formula the text below states, exactly as "
    "written. Reply with the formula only, or with NONE if the text states none.",
    "snippet": "Quote the shortest sentence or code line of the text below that answers "
    "the question {question!r}. Reply with the quote only.",
    "summary": "Summarize the text below in at most two sentences, using only what it says. "
    "Reply with the summary only.",
}
"""What a model is asked for each kind, before the cited text."""

_NO_FORMULA = "no formula-like span in the cited text: there is no equation to derive"


def offline(client: ChatClient) -> bool:
    """Whether ``client`` is the offline answerer, whose distillation is deterministic."""
    return client.profile().get("provider") == "extractive"


def cited_text(record: CacheRecord) -> str:
    """The answer's cited spans, then the text of every chunk it cites, in rank order."""
    chunks = [e.text for e in record.evidence if e.cited and e.text]
    return "\n\n".join([cited_spans(record.answer_text), *chunks])


def distilled(kind: str, record: CacheRecord, client: ChatClient) -> str:
    """The ``kind`` distilled from ``record``'s cited text by ``client`` (see the module);
    a one-line :class:`BadInput` when there is none to make."""
    if not any(e.cited for e in record.evidence):
        raise BadInput("that answer cites no evidence: there is nothing to derive from")
    if offline(client):
        return _offline(kind, record)
    return _asked(kind, record, client)


def _offline(kind: str, record: CacheRecord) -> str:
    """The deterministic distillation: a haiku from the answer's cited sentences (the cited
    chunks only when those are too short), an equation or snippet from all the cited text."""
    if kind == "haiku":
        made = distill.haiku(cited_spans(record.answer_text)) or distill.haiku(cited_text(record))
        if made is None:
            raise BadInput("the cited text is too short for a haiku: give one with --text")
        return made
    if kind == "equation":
        return _or_refuse(distill.equation(cited_text(record)), _NO_FORMULA)
    if kind == "snippet":
        spans = cited_spans(record.answer_text)
        found = distill.snippet(cited_text(record), record.question, spans)
        return _or_refuse(found, "the cited text is empty: there is no snippet to derive")
    raise BadInput(
        f"the offline model does not write a {kind}: give it with --text, or name a model "
        "with --llm"
    )


def _or_refuse(text: str | None, why: str) -> str:
    if text is None:
        raise BadInput(why)
    return text


def _asked(kind: str, record: CacheRecord, client: ChatClient) -> str:
    """One request to ``client`` holding the instruction and the cited text only; its reply,
    without citations, checked for the kind's shape."""
    instruction = INSTRUCTIONS[kind].format(question=record.question)
    prompt = f"{instruction}\n\nText:\n{defang_citations(cited_text(record))}"
    request = ChatRequest(
        instruction, (), (Message("system", instruction), Message("user", prompt))
    )
    reply = client.complete(request).text
    lines = [" ".join(line.split()) for line in distill.uncited(reply).splitlines() if line.strip()]
    said = f"model {client.name}"
    if not lines:
        raise BadInput(f"{said} replied with nothing to derive a {kind} from; nothing was saved")
    if kind == "haiku" and len(lines) != 3:
        raise BadInput(
            f"{said} replied with {len(lines)} lines, not a haiku's three; nothing was saved"
        )
    if kind == "equation" and lines[0].strip(" .").upper() == "NONE":
        raise BadInput(f"{said} found no formula in the cited text: there is no equation to derive")
    return "\n".join(lines) if kind == "haiku" else " ".join(lines)
