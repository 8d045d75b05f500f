"""The document store's commands, and the checks: ingest, search, tiers, derive, verify.

Registered into :data:`arborist._commands.COMMANDS` (see that module).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arborist._bundles.check import check_bundle, witness_problems
from arborist._commands.desk import (
    ANSWER,
    CHECKPOINTS,
    DEFAULT_LIMIT,
    JSON,
    LIMIT,
    MODEL_FLAGS,
    WORDS,
    Desk,
    Outcome,
    answer_key,
    arg,
    command,
    either,
    refuse,
    seconds,
    shown,
)
from arborist._errors import BadInput, NotFound
from arborist._facade.checks import Verification
from arborist._proofs.audit import ChainReport, Checkpoint
from arborist._proofs.witness import DATABASES, Heads, witness_checkpoints, witnessed_by_database
from arborist._qa.distill import haiku_counts
from arborist._qa.roster import PROBE_SECONDS, model_roster
from arborist._store.derive import DERIVATION_KINDS, Derivation
from arborist._store.tiers import TierChange
from arborist._views import forest as views_forest
from arborist._views import results as views

__all__ = [
    "MAX_ID_DIGITS",
    "MAX_REF_CHARS",
    "derivation_json",
    "document_ref",
    "tier_json",
    "verification_json",
]


@command(
    "ingest",
    "ingest files, folders and http(s) URLs, or --demo",
    arg("sources", nargs="*", metavar="SOURCE", help="files, folders and http(s) URLs"),
    arg(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only files matching GLOB (repeatable)",
    ),
    arg(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip files matching GLOB (repeatable)",
    ),
    arg("--demo", action="store_true", help="the built-in corpus (the stdlib's pydoc text)"),
    arg(
        "--follow-symlinks",
        action="store_true",
        help="let a folder walk follow symbolic links out of the folder",
    ),
    JSON,
    check=lambda args: (
        None if args.sources or args.demo else ("give files, folders or URLs to ingest, or --demo")
    ),
)
def _ingest(desk: Desk, args: argparse.Namespace) -> Outcome:
    app = desk.app
    bars: dict[str, Any] = {"track": desk.track}
    if desk.embed_track is not None:
        bars["embed_track"] = desk.embed_track
    # One batch: a source that fails stops the demo corpus from being stored too.
    skipped: list[tuple[str, str]] = []
    results = app.ingest(
        args.sources,
        include=args.include,
        exclude=args.exclude,
        follow_symlinks=args.follow_symlinks,
        demo=args.demo,
        skipped=skipped,
        **bars,
    )
    return shown(
        args,
        lambda: views.ingest_text(results, each=desk.each, skipped=skipped),
        lambda: [
            *(views.ingest_json(r) for r in results),
            *(views.skipped_json(path, why) for path, why in skipped),
        ],
        changed=True,
    )


@command("embed", "embed the chunks that have no vector under the configured model", JSON)
def _embed(desk: Desk, args: argparse.Namespace) -> Outcome:
    report = desk.app.embed(track=desk.embed_track or desk.track)
    profile = desk.app.embedder_profile()
    return shown(
        args,
        lambda: views.embed_text(report, profile),
        lambda: views.embed_json(report, profile),
        changed=True,
    )


@command(
    "models",
    "the chat and embedding models configured, and whether each answers now",
    arg(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help=f"wait this long for each model (default {PROBE_SECONDS:g})",
    ),
    JSON,
)
def _models(desk: Desk, args: argparse.Namespace) -> Outcome:
    wait = args.timeout or PROBE_SECONDS
    statuses = model_roster(desk.app.config, default=desk.llm, seconds=wait)
    facts, unused = None, ""
    try:
        embedder = desk.app.embedder()
    except BadInput as exc:  # e.g. several embedding models, none chosen: all listed above
        embedder, unused = None, str(exc)
    if embedder is not None:
        from arborist._qa.embeddings import embedder_facts  # noqa: PLC0415 - numpy, with a model

        facts = embedder_facts(embedder)
    return either(
        args,
        lambda: views.models_text(statuses, facts, wait, unused),
        lambda: views.models_json(statuses, facts, wait, unused),
    )


@command(
    "search",
    "search the documents",
    arg("query", nargs="+", metavar="QUERY", help=WORDS),
    LIMIT,
    JSON,
    text=True,
)
def _search(desk: Desk, args: argparse.Namespace) -> Outcome:
    hits = desk.app.search(" ".join(args.query), limit=args.limit or DEFAULT_LIMIT)
    return either(args, lambda: views.search_text(hits), lambda: views.search_json(hits))


@command(
    "related",
    "sources co-accessed with a chunk, a document or a turn",
    arg("ref", metavar="REF", help="a chunk's leaf hash, a document, or a turn's bates"),
    LIMIT,
    JSON,
)
def _related(desk: Desk, args: argparse.Namespace) -> Outcome:
    found = desk.app.related(args.ref, limit=args.limit or DEFAULT_LIMIT)
    return either(args, lambda: views.related_text(found), found.as_json)


def tier_json(change: TierChange) -> dict[str, Any]:
    """What ``evict`` or ``rehydrate`` moved, as JSON."""
    doc = change.document
    return {
        "document_id": doc.id,
        "uri": doc.uri,
        "title": doc.title,
        "source_root": doc.source_root,
        "tier": change.tier,
        "changed": change.changed,
    }


MAX_ID_DIGITS = 18
"""A document id is a SQLite integer: 18 digits always fit in one."""

MAX_REF_CHARS = 32_768
"""The longest DOCUMENT reference looked up: longer than any path, and than any URL a
server takes; SQLite refuses a prefix pattern of 50,000 characters with an error."""


def document_ref(ref: str) -> str:
    """``ref`` (a DOCUMENT argument), refused with one line when no document can have it: an
    id of more digits than a SQLite integer holds (Python would not even convert 5,000),
    or a reference longer than :data:`MAX_REF_CHARS`."""
    stripped = ref.strip()
    if stripped.isdigit() and len(stripped) > MAX_ID_DIGITS:
        raise NotFound(
            f"no document with id {stripped[:MAX_ID_DIGITS]}... ({len(stripped)} digits)"
        )
    if len(stripped) > MAX_REF_CHARS:
        raise NotFound(
            f"no document named {stripped[:40]}... ({len(stripped)} characters: "
            f"a reference is at most {MAX_REF_CHARS})"
        )
    return ref


DOCUMENT = arg("document", metavar="DOCUMENT", help="id, URI, path or source_root prefix")


@command(
    "evict",
    "move a document to a colder tier",
    DOCUMENT,
    arg(
        "--tier",
        required=True,
        choices=["warm", "cold"],
        metavar="TIER",
        help="warm: compressed, out of the index; cold: only leaf hashes and the URI remain",
    ),
    JSON,
)
def _evict(desk: Desk, args: argparse.Namespace) -> Outcome:
    change = desk.app.evict(document_ref(args.document), args.tier)
    return shown(
        args, lambda: views.evicted_text(change, args.tier), lambda: tier_json(change), changed=True
    )


@command("rehydrate", "bring a document back to hot, every leaf re-proved", DOCUMENT, JSON)
def _rehydrate(desk: Desk, args: argparse.Namespace) -> Outcome:
    change = desk.app.rehydrate(document_ref(args.document))
    return shown(
        args, lambda: views.rehydrated_text(change), lambda: tier_json(change), changed=True
    )


def derivation_json(derivation: Derivation) -> dict[str, Any]:
    """A saved derivation, as JSON: the core record and the evidence it stands on."""
    core = derivation.core
    return {
        "id": derivation.id,
        "kind": derivation.kind,
        "uri": core.uri,
        "source_root": core.source_root,
        "derived_from": derivation.derived_from,
        "derivation_hash": derivation.derivation_hash,
        "hand_written": derivation.hand_written,
        "title": core.title,
        "text": derivation.text,
        "sources": [
            {
                "uri": s.uri,
                "chunk_index": s.chunk_index,
                "leaf": s.leaf,
                "source_root": s.source_root,
            }
            for s in derivation.sources
        ],
        **({"syllables": haiku_counts(derivation.text)} if derivation.kind == "haiku" else {}),
    }


@command(
    "derive",
    "distil a core record from an answer's cited evidence (or save one given by --text)",
    arg(
        "kind",
        choices=list(DERIVATION_KINDS),
        metavar="KIND",
        help="snippet, equation, summary or haiku",
    ),
    arg("--from", dest="source", required=True, metavar="REF", help=ANSWER),
    arg(
        "--text",
        help="the derived text, hand-written (default: the model distils it from "
        "the answer's cited text only)",
    ),
    *MODEL_FLAGS,
    JSON,
)
def _derive(desk: Desk, args: argparse.Namespace) -> Outcome:
    timeout = args.timeout if args.timeout is not None else desk.timeout
    retries = args.retries if args.retries is not None else desk.retries
    derivation = desk.app.derive(
        args.kind,
        answer_key(desk, args.source),
        args.text,
        llm=args.llm or desk.llm,
        timeout=timeout,
        retries=retries,
    )
    return shown(
        args,
        lambda: views.derived_text(args.kind, derivation),
        lambda: derivation_json(derivation),
        changed=True,
    )


# --- checks and figures --------------------------------------------------------------------------


def _head(report: ChainReport) -> str | None:
    return str(report.head) if report.head else None


def verification_json(
    result: Verification, checkpoints: int, witnessed: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """What ``verify`` found, as JSON: ok, every problem, and each database's figures;
    ``witnessed``, how many of the checkpoints the notebooks named as each store's."""
    store, forest = result.store, result.forest
    return {
        "ok": result.ok,
        "problems": result.problems,
        "checkpoints": checkpoints,
        "witnessed": {name: (witnessed or {}).get(name, 0) for name in DATABASES},
        "store": {
            "documents": store.documents,
            "chunks": store.chunks,
            "records": store.records,
            "checkpoint": _head(store.chain),
        },
        "sessions": {
            "sessions": forest.sessions,
            "nodes": forest.nodes,
            "checkpoint": _head(forest.chain),
        },
        "not_checkable_here": list(result.unchecked),
    }


@command(
    "verify",
    "recompute every hash and proof; check both chains",
    CHECKPOINTS,
    arg(
        "--witness",
        dest="witnesses",
        action="append",
        default=[],
        metavar="NOTEBOOK",
        help="a saved notebook whose %%%%ask outputs recorded both stores' chain heads; "
        "each is checked against its own store's chain (repeatable)",
    ),
    arg(
        "--bundle",
        metavar="FILE",
        help="check a bundle (export --bundle) on its own, with no home: every hash, proof "
        "and chain link; with --witness, the notebook's heads against its chain spans",
    ),
    JSON,
)
def _verify(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.bundle is not None:
        return _verify_bundle(desk, args)
    given: list[Checkpoint] = list(dict.fromkeys(args.checkpoints))
    witnesses: list[Heads] = []
    for notebook in args.witnesses:
        witnesses += witness_checkpoints(notebook)
    witnessed = {name: len(cps) for name, cps in witnessed_by_database(witnesses).items()}
    total = len(given) + sum(witnessed.values())
    result = desk.app.verify([*given, *witnesses])
    failed = f"verify found {len(result.problems)} problem(s) (see above)"
    return shown(
        args,
        lambda: "\n".join(
            [
                views.verification_text(result, total, witnessed if witnesses else None),
                *result.unchecked_lines,
            ]
        ),
        lambda: verification_json(result, total, witnessed),
        failed=failed if result.problems else None,
    )


def _verify_bundle(desk: Desk, args: argparse.Namespace) -> Outcome:
    """``verify --bundle FILE``: the bundle alone (no store is opened, none is made)."""
    if args.checkpoints:
        refuse(
            desk,
            "verify",
            "--checkpoint names a head of this home: with --bundle, give "
            "the notebook that recorded it (--witness)",
        )
    try:
        data = Path(args.bundle).read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read {args.bundle}: {exc.strerror or exc}") from None
    report = check_bundle(data)
    witnesses: list[Heads] = []
    for notebook in args.witnesses:
        witnesses += witness_checkpoints(notebook)
    problems = [*report.problems, *(witness_problems(report, witnesses) if report.ok else ())]
    heads = sum(len(h.named()) for h in witnesses)
    failed = f"the bundle does not hold: {len(problems)} problem(s) (see above)"
    return shown(
        args,
        lambda: views_forest.bundle_text(report, problems, heads if args.witnesses else None),
        lambda: views_forest.bundle_json(report, problems, heads),
        failed=failed if problems else None,
    )


def _existing_file(text: str) -> str:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"{text!r}: no such file")
    return os.fspath(text)


@command(
    "chain-check",
    "check both audit chains; print each head",
    arg(
        "--store-db",
        type=_existing_file,
        metavar="PATH",
        help="check this store database (alone, unless --sessions-db is also given)",
    ),
    arg(
        "--sessions-db",
        type=_existing_file,
        metavar="PATH",
        help="check this forest shard (alone, unless --store-db is also given)",
    ),
    CHECKPOINTS,
    JSON,
)
def _chain_check(desk: Desk, args: argparse.Namespace) -> Outcome:
    named = tuple(n for n in ("store", "sessions") if getattr(args, f"{n}_db") is not None)
    result = desk.app.chain_check(args.checkpoints, databases=named or ("store", "sessions"))
    failed = None if result.ok else "an audit chain is broken (see above)"
    return shown(
        args,
        lambda: views.chain_check_text(result),
        lambda: views.chain_check_json(result),
        failed=failed,
    )


@command("stats", "documents, chunks, cached answers, sizes", JSON)
def _stats(desk: Desk, args: argparse.Namespace) -> Outcome:
    data = desk.app.stats()
    return either(args, lambda: views.stats_text(data), lambda: data)
