"""What every face shows: one text rendering and one JSON shape per result. Pure: no I/O.

The CLI, the REPL and ``%arborist`` print through these functions, so a result
looks the same wherever it is asked for, and a divergence can only be fixed
in one place. Text here is not yet inert: each face passes what it prints
through :func:`arborist._text.terminal.inert` (or escapes it for HTML); fields
printed inside a line go through :func:`field` here, so a newline in a
question or a title can never forge a line of arborist's own output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arborist._facade.checks import ChainCheck, DatabaseReport, Verification
from arborist._facts import TurnFacts, answer_facts
from arborist._proofs.audit import ChainReport
from arborist._qa.check import AnswerCheck
from arborist._qa.distill import haiku_counts
from arborist._qa.roster import ModelStatus
from arborist._qa.runner import AskResult
from arborist._qa.standing import state_words
from arborist._qa.support import Support, measure_record
from arborist._store.cache.records import OK, CacheRecord
from arborist._store.derive import Derivation
from arborist._store.documents import IngestResult
from arborist._store.loaders import SUPPORTED_SUFFIXES
from arborist._store.related import Related
from arborist._store.schema import TIERS
from arborist._store.search import SearchHit
from arborist._store.tiers import TierChange
from arborist._store.vectors import EmbedReport
from arborist._text.terminal import gutter, inert
from arborist._views.common import facts_lines, field

__all__ = [
    "answer_text",
    "chain_check_json",
    "chain_check_text",
    "derived_text",
    "embed_json",
    "embed_text",
    "evicted_text",
    "falsified_text",
    "ingest_json",
    "ingest_text",
    "models_json",
    "models_text",
    "record_json",
    "record_text",
    "records_json",
    "records_text",
    "rehydrated_text",
    "related_text",
    "search_json",
    "search_text",
    "stats_text",
    "verification_text",
]

# --- chains and verification ------------------------------------------------------------------


def chain_check_text(result: ChainCheck) -> str:
    """One line per database, then one per checkpoint that matched no chain."""
    width = max(len(db.path.name) for db in result.databases)
    lines = [_format_database(db, width) for db in result.databases]
    lines += [
        f"checkpoint {cp} is in none of the chains checked: truncated or rewritten"
        for cp in result.unmatched
    ]
    return "\n".join(lines)


def _format_database(db: DatabaseReport, width: int) -> str:
    report = db.report
    name = db.path.name.ljust(width)
    events = f"{report.events_checked} event{'s' if report.events_checked != 1 else ''}"
    problem = report.first_problem
    if problem is not None:
        more = len(report.problems) - 1
        extra = f" (+{more} more)" if more else ""
        return f"{name}  BROKEN at seq {problem.seq}: {problem.kind}: {problem.detail}{extra}"
    head = f"checkpoint {report.head}" if report.head else "empty chain"
    held = (
        f", holds {report.checkpoints_checked} checkpoint(s)" if report.checkpoints_checked else ""
    )
    return f"{name}  intact  {events}  {head}{held}"


def chain_check_json(result: ChainCheck) -> dict[str, Any]:
    """The chain check as plain data (for ``--json``)."""
    return {
        "ok": result.ok,
        "databases": [
            {
                "name": db.name,
                "path": str(db.path),
                "ok": db.report.ok,
                "events_checked": db.report.events_checked,
                "checkpoint": str(db.report.head) if db.report.head else None,
                "first_bad_seq": db.report.first_bad_seq,
                "problems": [
                    {"seq": p.seq, "kind": p.kind, "detail": p.detail} for p in db.report.problems
                ],
            }
            for db in result.databases
        ],
        "unmatched_checkpoints": [str(cp) for cp in result.unmatched],
    }


def verification_text(
    result: Verification, checkpoints: int = 0, witnessed: Mapping[str, int] | None = None
) -> str:
    """One line per problem; or, when all holds, one line per database and the checkpoints,
    with how many of them notebooks witnessed as each store's (``witnessed``): a notebook
    that recorded no store.db head (written before outputs named both) says so here."""
    if result.problems:
        return "\n".join(result.problems)
    store, forest = result.store, result.forest

    def head(report: ChainReport) -> str:
        return f"checkpoint {report.head}" if report.head else "empty chain"

    imported = f" ({store.imported} imported, kept apart)" if store.imported else ""
    lines = [
        f"store.db     ok  {store.documents} documents, {store.chunks} chunks, "
        f"{store.records} cached answers{imported}; {head(store.chain)}",
        f"sessions.db  ok  {forest.sessions} sessions, {forest.nodes} nodes; {head(forest.chain)}",
    ]
    if checkpoints:
        lines.append(f"every checkpoint holds ({checkpoints})")
    if witnessed is not None:
        lines.append(
            "witnessed: "
            + ", ".join(f"{witnessed.get(name, 0)} of {name}.db" for name in ("sessions", "store"))
        )
    return "\n".join(lines)


def stats_text(data: Mapping[str, Any]) -> str:
    """Documents, chunks per tier, cached answers per state, hits, events, file sizes."""
    docs, chunks, records = data["documents"], data["chunks"], data["cache_records"]
    lines = [
        f"documents      {docs['surface']} surface, {docs['core']} core, "
        f"{docs['superseded']} superseded",
        "chunks         " + ", ".join(f"{chunks[tier]} {tier}" for tier in TIERS),
        "cached answers " + ", ".join(f"{n} {s}" for s, n in records.items()),
        f"cache hits     {data['cache_hits']}",
        f"audit events   {data['audit_events']}",
        "files          "
        + ", ".join(f"{name} {size:,} bytes" for name, size in data["file_bytes"].items()),
    ]
    if "coaccess" in data:
        co = data["coaccess"]
        lines.append(
            f"co-access      {co['rows']} rows, {co['edges']} edges ({co['index_version']})"
        )
    return "\n".join(lines)


# --- documents and search ---------------------------------------------------------------------


def ingest_text(
    results: Sequence[IngestResult],
    *,
    each: bool = True,
    skipped: Sequence[tuple[str, str]] = (),
) -> str:
    """One line per document (unless ``each`` is false: a notebook ingesting the demo's
    72 documents wants the sum), with the URL a redirected fetch got it from, then the
    counts, chunks and answers gone stale, then what a folder walk passed over and why (a
    FIFO, a link leaving the folder, ...)."""
    lines = [
        f"{r.status:<9}  {field(r.document.title)}  ({_chunks(r.document.chunk_count)})  "
        f"{field(r.document.uri)}"
        + (f"  (redirected: fetched from {field(r.fetched_from)})" if r.fetched_from else "")
        for r in (results if each else ())
    ]
    counts = {
        s: sum(1 for r in results if r.status == s)
        for s in ("added", "updated", "unchanged", "restored")
    }
    stale = sum(r.stale_records for r in results)
    chunks = sum(r.document.chunk_count for r in results)
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing"
    lines.append(f"{summary} ({_chunks(chunks)}); {stale} cached answer(s) now stale")
    if not results and not skipped:  # a folder of other kinds of file: say why nothing
        lines.append(
            f"found no file to read: ingest reads {' '.join(SUPPORTED_SUFFIXES)} "
            "(hidden files and excluded names are passed over)"
        )
    if skipped:
        shown = "; ".join(f"{field(path)} ({why})" for path, why in skipped[:SKIPPED_SHOWN])
        more = f"; and {len(skipped) - SKIPPED_SHOWN} more" if len(skipped) > SKIPPED_SHOWN else ""
        lines.append(f"skipped {len(skipped)}: {shown}{more}")
    return "\n".join(lines)


def _chunks(count: int) -> str:
    return "1 chunk" if count == 1 else f"{count} chunks"


SKIPPED_SHOWN = 5
"""How many passed-over files an ingest's summary names (then how many more)."""


def embed_text(report: EmbedReport, profile: Mapping[str, object]) -> str:
    """What ``embed`` did: chunks embedded now, requests, vectors held, and the model."""
    server = f" at {profile['server']}" if profile.get("server") else ""
    return (
        f"embedded {report.embedded} chunk(s) in {report.requests} request(s); "
        f"{report.held} vector(s) held for {field(str(profile.get('model')))}{server}"
    )


def embed_json(report: EmbedReport, profile: Mapping[str, object]) -> dict[str, Any]:
    return {
        "embedded": report.embedded,
        "requests": report.requests,
        "held": report.held,
        "profile": dict(profile),
    }


def models_text(
    statuses: Sequence[ModelStatus],
    facts: Mapping[str, Any] | None,
    seconds: float,
    unused: str = "",
) -> str:
    """What ``models`` shows: each chat and embedding model configured and whether it
    answered now, then the embedding model in use (``unused``: why none is), its roles
    and how it is asked."""
    lines = [f"chat models (each asked now, within {seconds:g} s):"]
    lines += [_status_line(s, "default") for s in statuses if s.kind == "chat"]
    embedders = [_status_line(s, "in use") for s in statuses if s.kind == "embeddings"]
    if embedders:
        lines += ["embedding models:", *embedders]
    if facts is None:
        why = f": {field(unused)}" if unused else ""
        lines.append(f"embeddings: none in use (retrieval is lexical){why}")
        return "\n".join(lines)
    profile = facts["profile"]
    server = f" at {field(str(profile['server']))}" if profile.get("server") else ""
    timeout = f", timeout {facts['timeout']:g} s" if "timeout" in facts else ""
    return "\n".join(
        [
            *lines,
            f"embeddings: {field(str(profile.get('model')))}{server} "
            f"({field(str(profile.get('provider')))})",
            f"  roles: {field(str(facts['roles']))}",
            f"  passages: {field(str(profile.get('passages') or 'whole chunks'))}; "
            f"dimensions: {profile.get('dimensions') or 'as the server answers'}",
            f"  batches: {facts['batch_size']} texts a request{timeout}",
            f"  profile: {facts['profile_key']}",
        ]
    )


def _status_line(status: ModelStatus, chosen: str) -> str:
    """One model of ``models``: name, model, server, and whether it answers (else why)."""
    name = field(status.name) + (f" ({chosen})" if status.chosen else "")
    said = "answers" if status.answers else f"not answering: {field(status.reason)}"
    if status.provider is None:  # its profile could not be built: only the reason
        return f"  {name}: {said}"
    where = f" at {field(status.server)}" if status.server else ", offline"
    return f"  {name}: {field(status.model)} ({field(status.provider)}{where}): {said}"


def models_json(
    statuses: Sequence[ModelStatus],
    facts: Mapping[str, Any] | None,
    seconds: float,
    unused: str = "",
) -> dict[str, Any]:
    return {
        "probe_seconds": seconds,
        "chat": [s.as_json() for s in statuses if s.kind == "chat"],
        "embedding_models": [s.as_json() for s in statuses if s.kind == "embeddings"],
        "embeddings": None if facts is None else dict(facts),
        "embeddings_unused": unused or None,
    }


def skipped_json(path: str, why: str) -> dict[str, Any]:
    """A file a folder walk passed over, beside the documents of ``ingest --json``: its
    path under the folder given and why (the words of ``ingest``'s ``skipped`` line)."""
    return {"status": "skipped", "path": path, "reason": why}


def ingest_json(result: IngestResult) -> dict[str, Any]:
    d = result.document
    return {
        "status": result.status,
        "id": d.id,
        "uri": d.uri,
        "version": d.version,
        "title": d.title,
        "media_type": d.media_type,
        "source_root": d.source_root,
        "chunk_count": d.chunk_count,
        "stale_records": result.stale_records,
        "fetched_from": result.fetched_from,
    }


def search_text(hits: Sequence[SearchHit]) -> str:
    """Numbered hits: audit mode, title, where (a chunk, or the title only), URI, snippet."""
    if not hits:
        return "no matches"
    lines = []
    for n, h in enumerate(hits, 1):
        where = f"chunk {h.chunk_index}" if h.chunk_index is not None else "title only"
        lines.append(f"{n}. [{h.audit_mode}] {field(h.title)}  ({where})  {field(h.uri)}")
        lines.append(f"   {field(h.snippet)}")
    return "\n".join(lines)


def search_json(hits: Sequence[SearchHit]) -> list[dict[str, Any]]:
    return [
        {
            "audit_mode": h.audit_mode,
            "verified": h.verified,
            "document_id": h.document_id,
            "uri": h.uri,
            "title": h.title,
            "kind": h.kind,
            "chunk_index": h.chunk_index,
            "snippet": h.snippet,
            "score": h.score,
            "source_root": h.source_root,
            "leaf": h.leaf,
        }
        for h in hits
    ]


def related_text(found: Related) -> str:
    """One line for what REF stood for, then one per related source, strongest first."""
    lines = [f"{len(found.items)} related to {found.kind} ({len(found.sources)} chunk(s))"]
    lines += [
        f"  {item.freq_score:.2f}  {field(item.title)}  (chunk {item.chunk_index}, {item.tier})  "
        f"{field(item.uri)}"
        for item in found.items
    ]
    return "\n".join(lines)


def evicted_text(change: TierChange, tier: str) -> str:
    """What ``evict`` moved, in one line."""
    return f"{change.changed} chunk(s) of {field(change.document.uri)} moved to {tier}"


def rehydrated_text(change: TierChange) -> str:
    """What ``rehydrate`` brought back (every leaf re-hashed, or it would have refused)."""
    return (
        f"{change.changed} chunk(s) of {field(change.document.uri)} back to hot, "
        "every leaf verified"
    )


def derived_text(kind: str, derivation: Derivation) -> str:
    """The core record ``derive`` saved, its text set apart, and what it stands on; a
    haiku's syllables as :func:`~arborist._qa.distill.syllables` counts them, said to be rough."""
    typed = " (hand-written)" if derivation.hand_written else ""
    lines = [
        f"saved {kind}{typed} {field(derivation.core.uri)} from {derivation.derived_from[:12]}… "
        f"({len(derivation.sources)} source chunk(s))"
    ]
    if derivation.text:
        lines.append(gutter(derivation.text))
    if kind == "haiku" and derivation.text:
        counts = "/".join(str(n) for n in haiku_counts(derivation.text))
        lines.append(f"syllables {counts} (a rough count, aiming at 5/7/5)")
    return "\n".join(lines)


# --- answers -----------------------------------------------------------------------------------


def answer_text(shown: TurnFacts | AskResult, *, streamed: str | None = None) -> str:
    """The answer, then its facts (:func:`~arborist._views.common.facts_lines`): bates, hit
    or miss, audit mode, support, key, sources with their lanes, what fitting left out.
    ``shown``: a turn's facts (``Arborist.facts``), or the result of an ask that wrote no
    turn (:func:`~arborist._facts.answer_facts`).

    ``streamed`` is the text a terminal already showed as the model sent it: the
    answer is then not printed again, unless what was stored differs (see
    :func:`_restated`), and what follows starts with the blank line that would
    have followed it.
    """
    facts = (
        shown
        if isinstance(shown, TurnFacts)
        else answer_facts(shown.record, hit=shown.hit, elapsed_ms=shown.elapsed_ms)
    )
    return "\n".join(
        [
            *([facts.answer] if streamed is None else _restated(facts.answer, streamed)),
            "",
            *([f"bates   {facts.bates}"] if facts.bates else []),
            *facts_lines(facts, 7),
        ]
    )


def record_support(record: CacheRecord) -> Support | None:
    """How well ``record``'s cited evidence covers its question (:mod:`arborist._qa.support`)."""
    return measure_record(record)


def _restated(answer: str, streamed: str) -> list[str]:
    """Nothing when the stored answer is what streamed; else the answer as stored.

    What streams is the model's text as it arrives; what is stored has passed the
    admission gate, which redacts a secret only once the whole answer is in hand.
    A terminal cannot take back what it showed, so it says so and shows the stored one.
    """
    if answer == streamed:
        return []
    return ["stored as (the admission gate changed what streamed):", answer]


def _withdrawn(record: CacheRecord) -> str:
    """``, answer failed: REASON`` after the mode of a record out of service (its quotes
    may still verify: the state says the answer is withdrawn); nothing for an ``ok`` one."""
    if record.state == OK:
        return ""
    reason = field(record.state_reason) if record.state_reason else None
    return f", {state_words(record.state, reason)}"


def falsified_text(record: CacheRecord) -> str:
    """A cached answer taken out of service: key, revision, state and why."""
    return (
        f"{record.cache_key[:16]} revision {record.revision} is now {record.state}: "
        f"{field(record.state_reason)}"
    )


def record_text(record: CacheRecord, check: AnswerCheck) -> str:
    """A cached answer whole: key, state, question, the audit mode it can claim now,
    dimensions, evidence, answer."""
    audit = record.audit_mode if check else f"NONE: does not hold now: {check.summary}"
    audit = field(audit) + _withdrawn(record)
    lines = [
        f"key        {record.cache_key}",
        f"revision   {record.revision}  state {record.state}"
        + (f" ({field(record.state_reason)})" if record.state_reason else ""),
        f"question   {field(record.question)}",
        f"audit      {audit}   hits {record.hit_count}   created {record.created_at}",
        *(
            [f"support    {field(found.text())}"]
            if check and (found := record_support(record))
            else []
        ),
        "dimensions",
        *[f"  {name:<25} {value or '(empty)'}" for name, value in record.dimensions.items()],
        "evidence",
        *[
            f"  {e.label}{'*' if e.cited else ' '} chunk {e.chunk_index}/{e.chunk_count} of "
            f"{field(e.link)}  leaf {e.leaf[:12]}…  [{e.tier}]"
            + (f"  {field(e.place.text(e.title))}" if e.place else "")
            for e in record.evidence
        ],
        "answer",
        gutter(inert(record.answer_text)),  # set apart: no line of it can pass for ours
    ]
    return "\n".join(lines)


def record_json(record: CacheRecord, check: AnswerCheck) -> dict[str, Any]:
    """The record whole, whether it holds now and why not, the mode it can claim now and
    (while it holds) its support: what :func:`record_text` shows."""
    return {**_record_now(record, check.ok), "problems": check.problems}


def _record_now(record: CacheRecord, holds: bool) -> dict[str, Any]:
    """A record's one JSON shape in every command: it whole, whether it holds, the mode it
    can claim now and, while it holds, its support."""
    support = record_support(record) if holds else None
    return {
        **record.as_json(),
        "holds": holds,
        "audit_now": record.audit_mode if holds else "NONE",
        "support": support.as_json() if support else None,
    }


def records_text(records: Sequence[tuple[CacheRecord, bool]]) -> str:
    """One line per cached answer, newest first: key, revision, state, mode now, hits."""
    if not records:
        return "no cached answers"
    return "\n".join(
        f"{r.cache_key[:16]}  r{r.revision}  {r.state:<11} "
        f"{r.audit_mode if holds else 'NONE':<6} {r.hit_count:>4} hits  {field(r.question)[:70]}"
        + (f"  ({field(r.state_reason)})" if r.state != OK and r.state_reason else "")
        for r, holds in records
    )


def records_json(records: Sequence[tuple[CacheRecord, bool]]) -> list[dict[str, Any]]:
    return [_record_now(r, holds) for r, holds in records]  # one shape per record
