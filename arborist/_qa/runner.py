"""The cache-first ask: retrieve, key, then serve a hit or pay for a miss.

1. Retrieve evidence (FTS5) for the question; a follow-up also uses its
   context (the turns above it), see :func:`arborist._store.search.retrieve`.
   A question asked before while the retrievable corpus has not changed
   reads what retrieval chose then instead of ranking again
   (:mod:`arborist._store.memo`), so a hit costs the same at any store size.
2. Fit the evidence to a remote model's context, weakest dropped first
   (:mod:`arborist._qa.budget`), then compute the eight dimensions and the cache
   key (:mod:`arborist._proofs.keys`) over the evidence sent: the key, the record's
   evidence and its proofs cover exactly what the model is shown.
3. A record in state ``ok`` under that key is a **hit**: no model call,
   ``hit_count`` + 1 (bookkeeping, not committed to any hash). A hit is
   re-checked before it is served (:func:`arborist._qa.check.check_record`:
   its hash, its evidence root, every proof and every cited text against its
   leaf); one that no longer holds is refused with the reason, never served.
4. Otherwise a **miss**: call the chat client, parse its citations, store
   the record with its evidence and each chunk's inclusion proof, and one
   ``cache_write`` audit event committing to the record's hash, all in one
   transaction (:func:`arborist._store.cache.records.write_record`). A model error
   writes nothing.

Evidence whose stored text no longer re-hashes to its committed leaf (the
chunk was edited in store.db after it was ingested) is refused on both
paths: no answer is served or made from bytes that do not prove, and the
error says which document and chunk, and to run ``arborist verify``.
"""

from __future__ import annotations

import sqlite3
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arborist._clock import utc_now
from arborist._database.db import snapshot, transaction
from arborist._errors import BadInput, IntegrityError, ModelError, NoDocuments
from arborist._gate.admission import Admitted, admit
from arborist._proofs.citations import cited_labels
from arborist._proofs.hashing import cache_key
from arborist._proofs.keys import cache_dimensions
from arborist._qa.budget import Budgeted, PromptFit, fit_evidence
from arborist._qa.check import check_record
from arborist._qa.client import (
    ChatClient,
    ChatRequest,
    ChatResult,
    EvidenceText,
    Message,
    make_request,
)
from arborist._qa.nearness import calibrated, calibration_of, near, retrieval_name, vector_query
from arborist._qa.policy import admitted_keywords, retrieval_policy, with_keywords
from arborist._store.cache.records import (
    CacheRecord,
    NewEvidence,
    RecordDraft,
    count_hit,
    load_record,
    ok_record_id,
    write_record,
)
from arborist._store.cache.states import mark_stale
from arborist._store.calibration import Calibration
from arborist._store.chunking import CHUNKING_VERSION
from arborist._store.documents import proofs_for
from arborist._store.faults import EDITED_METADATA, EDITED_TEXT, evidence_faults
from arborist._store.memo import generation, memo_key, recall, remember
from arborist._store.proofs import verify_evidence
from arborist._store.search import (
    RETRIEVAL_LIMIT,
    Evidence,
    recalled_evidence,
    retrieve,
    weakest_mode,
)
from arborist._store.vectors import (
    Embedder,
)

__all__ = ["AskResult", "ask"]


@dataclass(frozen=True)
class AskResult:
    """The answer to one ask: the record that served it, and whether it was a cache hit."""

    record: CacheRecord
    hit: bool
    elapsed_ms: float

    @property
    def cache_key(self) -> str:
        return self.record.cache_key

    @property
    def answer(self) -> str:
        return self.record.answer_text


def _normalized_question(question: str) -> str:
    text = unicodedata.normalize("NFC", question.replace("\x00", "")).strip()
    if not text:
        raise BadInput("empty question")
    return text


def ask(
    conn: sqlite3.Connection,
    client: ChatClient,
    question: str,
    *,
    context: Sequence[str] = (),
    sources: Sequence[str] = (),
    use_cache: bool = True,
    on_token: Callable[[str], None] | None = None,
    limit: int = RETRIEVAL_LIMIT,
    threaded: Sequence[tuple[str, str]] = (),
    allowlist: Sequence[str] = (),
    related: int = 0,
    related_version: str = "",
    embedder: Embedder | None = None,
    keywords: str = "",
) -> AskResult:
    """Answer ``question`` from the cache if an ``ok`` record matches, else from ``client``.

    ``threaded`` (earlier question/answer pairs, oldest first) goes into the prompt and the
    key. Admission first: secrets in the question, the ``keywords`` (retrieval's alone, named
    in the policy) and the answer become placeholders before anything is retrieved, hashed,
    sent or stored. ``related`` > 0 adds that many co-accessed chunks (``related_version``'s)
    as a lane; an ``embedder`` makes retrieval hybrid, its profile and calibration in the key."""
    started = time.perf_counter()
    admitted_question = admit(_normalized_question(question), allowlist=allowlist)
    question, words = admitted_question.text, admitted_keywords(keywords, allowlist)
    embedding = embedder.profile() if embedder is not None else None
    policy, profile = with_keywords(retrieval_policy(limit, embedding), words), client.profile()
    # The co-access lane reads more than the corpus: no memo with it.
    memo = _memo(question, context, sources, limit, embedding, words) if use_cache else None
    memo = memo if related <= 0 else None
    if memo is not None:
        served = _serve_recalled(conn, memo, question, profile, policy, threaded, client)
        if served is not None:
            return AskResult(served, True, (time.perf_counter() - started) * 1000)
    vectors = vector_query(embedder, question, context, sources, words)
    found = {"context": context, "sources": sources, "limit": limit, "keywords": words}
    lanes = {"related": related, "related_version": related_version, "vectors": vectors}
    at, evidence, calibration = _retrieved(conn, question, **found, **lanes)
    policy = calibrated(policy, calibration)
    sent, dims = _keyed(client, question, evidence, profile, policy, threaded)
    key = cache_key(dims)
    if use_cache:
        served = _serve_hit(conn, key)
        if served is not None:
            _remember(conn, memo, at, evidence, calibration)
            return AskResult(served, True, (time.perf_counter() - started) * 1000)
    chat = sent.chat(question, threaded)
    request = near(conn, vectors, calibration, sent.evidence, chat, embedder)
    result = client.complete(request, on_token=on_token)
    keyed = (key, dims, profile, policy)
    record = _write_answer(
        conn, result, admitted_question, sent, keyed, embedder, allowlist, replace_ok=not use_cache
    )
    _remember(conn, memo, at, evidence, calibration)
    return AskResult(record, False, (time.perf_counter() - started) * 1000)


def _memo(
    question: str,
    context: Sequence[str],
    sources: Sequence[str],
    limit: int,
    embedding: Mapping[str, object] | None,
    words: str,
) -> str:
    """The retrieval memo's key of this ask (:func:`arborist._store.memo.memo_key`)."""
    retrieval = retrieval_name(embedding)
    return memo_key(
        question, context=context, sources=sources, limit=limit, retrieval=retrieval, keywords=words
    )


def _write_answer(
    conn: sqlite3.Connection,
    result: ChatResult,
    question: Admitted,
    sent: _Sent,
    keyed: tuple[str, dict[str, str], dict[str, object], dict[str, object]],
    embedder: Embedder | None,
    allowlist: Sequence[str],
    *,
    replace_ok: bool,
) -> CacheRecord:
    """A miss's answer, admitted, stored as the record of its key (``keyed``: the key, its
    dimensions, the model's profile and the policy) with its metadata and what was redacted."""
    key, dims, profile, policy = keyed
    answer = admit(result.text, allowlist=allowlist)
    meta = _admitted_json(_meta(result, sent, embedder), allowlist)
    redactions = _redaction_log(question=question, answer=answer)
    return _write_record(
        conn,
        key,
        dims,
        question.text,
        answer.text,
        sent,
        profile,
        policy,
        meta,
        replace_ok=replace_ok,
        redactions=redactions,
    )


def _meta(result: ChatResult, sent: _Sent, embedder: Embedder | None) -> dict[str, object]:
    """The response metadata stored with a record; a hybrid ask, or one whose evidence has a
    co-access lane (``--related``), adds which lane found each evidence item sent (E1
    first), so every face can tag them; a lexical one adds nothing (its bytes are as they
    were). A prompt fitted to a context window adds how (``prompt_budget``)."""
    meta = {"model": result.model, "finish_reason": result.finish_reason, **result.raw}
    evidence = sent.evidence
    if embedder is not None or any(e.lane != "lexical" for e in evidence):
        meta["retrieval_lanes"] = [e.lane for e in evidence]
    if sent.fit is not None:
        meta["prompt_budget"] = sent.fit.meta()
    return meta


def _dimensions(
    evidence: Sequence[Evidence],
    question: str,
    profile: Mapping[str, object],
    policy: Mapping[str, object],
    threaded: Sequence[tuple[str, str]],
) -> dict[str, str]:
    """The eight dimensions of this ask (see :mod:`arborist._proofs.keys`)."""
    return cache_dimensions(
        evidence=[e.ref for e in evidence],
        question=question,
        profile=profile,
        policy=policy,
        chunking_version=CHUNKING_VERSION,
        threaded=[{"question": q, "answer": a} for q, a in threaded],
    )


def _request(
    question: str, evidence: Sequence[Evidence], threaded: Sequence[tuple[str, str]]
) -> ChatRequest:
    """The chat request: the evidence labelled ``E1``..., and the threaded turns (oldest
    first) between the system prompt and the question."""
    shown = [EvidenceText(f"E{i + 1}", e.title, e.uri, e.text) for i, e in enumerate(evidence)]
    return _request_shown(question, shown, threaded)


def _request_shown(
    question: str, shown: Sequence[EvidenceText], threaded: Sequence[tuple[str, str]]
) -> ChatRequest:
    """The chat request of the evidence as shown (labelled, perhaps cut to fit)."""
    request = make_request(question, shown)
    if not threaded:
        return request
    history = [
        message for q, a in threaded for message in (Message("user", q), Message("assistant", a))
    ]
    system, user = request.messages[0], request.messages[-1]
    return ChatRequest(request.question, request.evidence, (system, *history, user))


@dataclass(frozen=True)
class _Sent:
    """What of the retrieved evidence the prompt carries: the first ``len(evidence)`` items
    (the last cut short when ``fit`` says so), and the request, when it was fitted."""

    evidence: list[Evidence]
    request: ChatRequest | None = None
    fit: PromptFit | None = None

    def chat(self, question: str, threaded: Sequence[tuple[str, str]]) -> ChatRequest:
        """The request to send: the fitted one, else one of the evidence whole."""
        return self.request or _request(question, self.evidence, threaded)

    def policy(self, policy: dict[str, object]) -> dict[str, object]:
        """The policy the record is keyed and stored under: ``policy``, with the chunk cut
        short to fit and how much of it was shown, when one was (the evidence root names
        which chunks were sent; only a cut one needs saying)."""
        entry = self.fit.policy_entry() if self.fit is not None else None
        return policy if entry is None else {**policy, "evidence_trimmed": entry}


def _keyed(
    client: ChatClient,
    question: str,
    evidence: Sequence[Evidence],
    profile: Mapping[str, object],
    policy: dict[str, object],
    threaded: Sequence[tuple[str, str]],
) -> tuple[_Sent, dict[str, str]]:
    """What of ``evidence`` is sent to ``client`` (:func:`_sent`), and the eight dimensions
    of the ask over it: its key always names the prompt the model is shown."""
    sent = _sent(client, question, evidence, threaded)
    return sent, _dimensions(sent.evidence, question, profile, sent.policy(policy), threaded)


def _sent(
    client: ChatClient,
    question: str,
    evidence: Sequence[Evidence],
    threaded: Sequence[tuple[str, str]],
) -> _Sent:
    """The evidence ``client``'s context window takes, weakest dropped first
    (:func:`~arborist._qa.budget.fit_evidence`); all of it for a client without a window.
    Known before the cache is read (the server may be asked, once a client), so the key
    is always that of the prompt this client would send now."""
    if not isinstance(client, Budgeted):
        return _Sent(list(evidence))
    full = _request(question, evidence, threaded)
    window = client.context_window(full)
    if window is None:
        return _Sent(list(evidence), full)
    try:
        fit = fit_evidence(
            lambda items: _request_shown(question, items, threaded),
            full.evidence,
            window,
            client.prompt_tokens,
        )
    except ModelError as exc:
        raise ModelError(f"model {client.name!r}: {exc}") from exc
    return _Sent(list(evidence[: fit.sent]), fit.request, fit)


def _admitted_json(value: Any, allowlist: Sequence[str]) -> Any:
    """The provider's response metadata with every string (keys too) through the gate:
    a server may echo the key it was sent, or anything else, in any field."""
    if isinstance(value, str):
        return admit(value, allowlist=allowlist).text
    if isinstance(value, dict):
        return {
            admit(str(k), allowlist=allowlist).text: _admitted_json(v, allowlist)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_admitted_json(v, allowlist) for v in value]
    return value


def _holds_documents(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute("SELECT 1 FROM documents WHERE status = 'current' LIMIT 1").fetchone()
        is not None
    )


def _redaction_log(**texts: Admitted) -> dict[str, list[dict[str, object]]]:
    """What admission replaced, by field: kind and position, never the secret."""
    return {
        field: [{"kind": r.kind, "start": r.start, "end": r.end} for r in admitted.redactions]
        for field, admitted in texts.items()
        if admitted.redactions
    }


_TAMPERED = "; nothing was answered. Run `arborist verify` to see every change"


def _require_intact(
    conn: sqlite3.Connection, evidence: Sequence[Evidence], *, metadata: bool = True
) -> None:
    """Refuse evidence whose text no longer hashes to its committed leaf, or (``metadata``)
    whose document's title or URI is not what its ingest committed (the model would be
    told, and the turn would record, a source the bytes never came from)."""
    faults = evidence_faults(conn, evidence, metadata=metadata)  # what search labels by
    for rank, (item, fault) in enumerate(zip(evidence, faults, strict=True)):
        if fault == EDITED_METADATA:
            raise IntegrityError(
                f"store.db: the title or URI of {item.title!r} (E{rank + 1}) differs from what "
                f"its ingest committed (edited after it was ingested){_TAMPERED}"
            )
        if fault == EDITED_TEXT:
            raise IntegrityError(
                f"store.db: the text of {item.title!r} chunk {item.chunk_index} (E{rank + 1}) "
                f"no longer matches its committed hash (edited after it was ingested){_TAMPERED}"
            )


def _retrieved(
    conn: sqlite3.Connection, question: str, **how: Any
) -> tuple[int, list[Evidence], Calibration | None]:
    """The evidence for ``question`` (:func:`~arborist._store.search.retrieve` given ``how``),
    with the corpus generation it was retrieved at and the question's calibration at it;
    refused when it does not hold."""
    with snapshot(conn):
        at = generation(conn)
        evidence = retrieve(conn, question, **how)
        calibration = calibration_of(conn, how.get("vectors"))
    if not evidence and not _holds_documents(conn):
        raise NoDocuments()
    _require_intact(conn, evidence)
    return at, evidence, calibration


def _serve_recalled(
    conn: sqlite3.Connection,
    memo: str,
    question: str,
    profile: Mapping[str, object],
    policy: dict[str, object],
    threaded: Sequence[tuple[str, str]],
    client: ChatClient,
) -> CacheRecord | None:
    """A hit on the evidence the memo says this question retrieves at the current generation
    (no ranking, no embedding: see :mod:`arborist._store.memo`; the question's calibration
    at it is remembered with it), fitted to ``client``'s context as a miss would fit it;
    None when there is no such memo, or its evidence leads to no ``ok`` record (the caller
    then retrieves afresh)."""
    with snapshot(conn):
        recalled = recall(conn, memo)
        evidence = recalled_evidence(conn, recalled[0]) if recalled else None
    if evidence is None or recalled is None:
        return None
    # A hit's record is checked whole, its documents' metadata included (check_record); a
    # miss retrieves afresh and checks that: the memo's evidence needs only its texts here.
    _require_intact(conn, evidence, metadata=False)
    kept = Calibration.from_policy(recalled[1]) if recalled[1] is not None else None
    policy = calibrated(policy, kept)
    _, dims = _keyed(client, question, evidence, profile, policy, threaded)
    return _serve_hit(conn, cache_key(dims))


def _remember(
    conn: sqlite3.Connection,
    memo: str | None,
    at: int,
    evidence: Sequence[Evidence],
    calibration: Calibration | None,
) -> None:
    if memo is not None and evidence:
        kept = calibration.policy() if calibration is not None else None
        remember(conn, memo, at, [(e.chunk_id, e.score) for e in evidence], kept)


def _serve_hit(conn: sqlite3.Connection, key: str) -> CacheRecord | None:
    """The key's ``ok`` record, re-checked and counted as a hit; None on a miss."""
    record_id = ok_record_id(conn, key)
    if record_id is None:
        return None
    record = load_record(conn, record_id)
    check = check_record(record)
    if not check:
        raise IntegrityError(
            f"store.db: the cached answer {key[:16]} no longer holds: {check.summary}{_TAMPERED}"
        )
    now = utc_now()
    count_hit(conn, record_id, now)
    return replace(record, hit_count=record.hit_count + 1, last_hit_at=now)


def _write_record(
    conn: sqlite3.Connection,
    key: str,
    dims: dict[str, str],
    question: str,
    answer: str,
    sent: _Sent,
    profile: dict[str, object],
    policy: dict[str, object],
    response: dict[str, object],
    *,
    replace_ok: bool,
    redactions: dict[str, list[dict[str, object]]] | None = None,
) -> CacheRecord:
    """Store a fresh answer to what was ``sent``: which evidence it cites, the audit mode
    that earns it, and every item's inclusion proof, checked before anything is written."""
    evidence = sent.evidence
    labels = set(cited_labels(answer))
    cited = [f"E{i + 1}" in labels for i in range(len(evidence))]
    draft = RecordDraft(
        cache_key=key,
        dimensions=dims,
        question=question,
        answer_text=answer,
        audit_mode=weakest_mode([e.audit_mode for e, c in zip(evidence, cited, strict=True) if c]),
        model_profile=profile,
        policy=sent.policy(policy),
        response=response,
        evidence=_proven(conn, evidence, cited),
        redactions=redactions,
    )
    with transaction(conn):  # a document re-ingested since retrieval: stale as it is written
        record = write_record(conn, draft, replace_ok=replace_ok)
        documents = sorted({e.document_id for e in evidence})  # a few: one IN list
        changed = conn.execute(
            "SELECT id FROM documents WHERE status != 'current' "
            f"AND id IN ({', '.join('?' * len(documents))})",
            documents,
        ).fetchall()
        for (document_id,) in changed:
            mark_stale(conn, document_id, "a document it cites changed while it was answered")
        return load_record(conn, record.id) if changed else record


def _proven(
    conn: sqlite3.Connection, evidence: Sequence[Evidence], cited: Sequence[bool]
) -> list[NewEvidence]:
    """The evidence with each chunk's inclusion proof; refused when one does not verify
    against its document's root (the store was edited after it was ingested)."""
    proofs = proofs_for(conn, [(e.document_id, e.chunk_index) for e in evidence])
    proven = []
    for rank, (e, is_cited) in enumerate(zip(evidence, cited, strict=True)):
        proof = proofs[(e.document_id, e.chunk_index)]
        if not verify_evidence(e.ref, proof=proof).proof_verifies:
            raise IntegrityError(
                f"store.db: {e.title!r} chunk {e.chunk_index} (E{rank + 1}) does not prove "
                f"against its document's root{_TAMPERED}"
            )
        proven.append(NewEvidence(e.chunk_id, e.document_id, e.ref, proof, is_cited))
    return proven
