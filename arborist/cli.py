"""The ``arborist`` command. Thin: parse, call the facade, format, map errors.

Every failure is one line on stderr: ``arborist: error: <what was wrong>``.
Exit codes: 0 success, 1 a failed check or an arborist error, 2 bad
arguments (usage).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click
from tqdm import tqdm

from arborist._version import __version__
from arborist.app import Arborist, ChainCheck, DatabaseReport, Related
from arborist.audit import ChainReport, Checkpoint
from arborist.errors import ArboristError, BadInput
from arborist.qa.check import check_record
from arborist.qa.runner import AskResult
from arborist.repl import Repl, interactive_reader
from arborist.store.documents import IngestResult
from arborist.terminal import inert, inert_json
from arborist.witness import witness_checkpoints

__all__ = ["cli", "format_answer", "format_chain_check", "format_ingest_json", "main"]

EXIT_FAILED = 1
EXIT_USAGE = 2


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"arborist: error: {inert(message, one_line=True)}", err=True)
    sys.exit(code)


def _echo(text: str = "", *, err: bool = False) -> None:
    """Print ``text`` made inert: answers, titles, labels and paths come from users,
    documents and models, and a terminal would obey their control characters."""
    click.echo(inert(text), err=err)


def _field(text: str | None) -> str:
    """A field printed inside a line (a question, title, URI, label, reason): one line,
    inert, so a newline in it cannot forge a line of arborist's own output."""
    return inert(text or "", one_line=True)


def _echo_json(text: str) -> None:
    """Print JSON text with every character a terminal acts on escaped (same data)."""
    click.echo(inert_json(text))


class ArboristGroup(click.Group):
    """A click group whose errors are one line, whoever invokes it (shell or CliRunner)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else "", err=True)
            sys.exit(EXIT_USAGE)
        except click.UsageError as exc:
            _fail(_one_line(exc.format_message()), EXIT_USAGE)
        except click.ClickException as exc:
            _fail(_one_line(exc.format_message()), EXIT_FAILED)
        except BadInput as exc:
            _fail(str(exc), EXIT_USAGE)
        except ArboristError as exc:
            _fail(str(exc), EXIT_FAILED)
        except click.Abort:
            _fail("aborted", EXIT_FAILED)
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _checkpoint(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> list[Checkpoint]:
    try:
        return [Checkpoint.parse(value) for value in values]
    except BadInput as exc:
        raise click.BadParameter(str(exc)) from exc


@click.group(
    cls=ArboristGroup,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(
    __version__, "--version", "-V", prog_name="arborist", message="%(prog)s %(version)s"
)
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="ARBORIST_HOME",
    help="Home folder holding store.db, sessions.db and config.toml [default: ~/.arborist].",
)
@click.pass_context
def cli(ctx: click.Context, home: Path | None) -> None:
    """arborist: cited answers, a verifiable forest of turns, and the proofs that bind them."""
    ctx.obj = {"home": home}


@cli.command("chain-check")
@click.option(
    "--store-db",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Check this store database (alone, unless --sessions-db is also given).",
)
@click.option(
    "--sessions-db",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Check this forest shard (alone, unless --store-db is also given).",
)
@click.option(
    "--checkpoint",
    "checkpoints",
    multiple=True,
    callback=_checkpoint,
    metavar="SEQ:HASH",
    help="A head printed earlier; the chain must still contain it. Repeatable.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the reports as JSON.")
@click.pass_context
def chain_check(
    ctx: click.Context,
    store_db: Path | None,
    sessions_db: Path | None,
    checkpoints: list[Checkpoint],
    as_json: bool,
) -> int:
    """Verify the audit chains and print each head as a checkpoint SEQ:HASH.

    Exit 0 when every chain is intact and holds every checkpoint, 1 otherwise.
    Without --store-db/--sessions-db both databases of the home are checked.
    """
    explicit = tuple(
        name for name, path in (("store", store_db), ("sessions", sessions_db)) if path
    )
    with Arborist(
        ctx.obj["home"], store_db=store_db, sessions_db=sessions_db, create=not explicit
    ) as app:
        result = app.chain_check(checkpoints, databases=explicit or ("store", "sessions"))
    if as_json:
        _echo_json(json.dumps(chain_check_json(result), indent=2))
    else:
        _echo(format_chain_check(result))
    return 0 if result.ok else EXIT_FAILED


def format_chain_check(result: ChainCheck) -> str:
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


# --- documents ---------------------------------------------------------------------------------


def _app(ctx: click.Context, sessions_db: Path | None = None) -> Arborist:
    return Arborist(ctx.obj["home"], sessions_db=sessions_db)


def _print_json(data: Any) -> None:
    _echo_json(json.dumps(data, indent=2, ensure_ascii=False))


def _tqdm_track(items: Any) -> Any:
    items = list(items)
    return tqdm(
        items, desc="ingest", unit="doc", disable=None if len(items) > 20 else True, file=sys.stderr
    )


@cli.command()
@click.argument("sources", nargs=-1)
@click.option(
    "--include", multiple=True, metavar="GLOB", help="Only files matching GLOB (repeatable)."
)
@click.option(
    "--exclude", multiple=True, metavar="GLOB", help="Skip files matching GLOB (repeatable)."
)
@click.option(
    "--demo", is_flag=True, help="Ingest the built-in corpus (the stdlib's pydoc text, offline)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per document.")
@click.pass_context
def ingest(
    ctx: click.Context,
    sources: tuple[str, ...],
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    demo: bool,
    as_json: bool,
) -> None:
    """Ingest files, folders (recursively) and http(s) URLs into store.db.

    Formats: .txt .md .rst .html .ipynb .pdf .py. The same bytes twice are one
    document; changed bytes at the same URI make a new version, and cached
    answers that cited the old one become stale.
    """
    if not sources and not demo:
        raise click.UsageError("give files, folders or URLs to ingest, or --demo")
    with _app(ctx) as app:
        results = app.ingest_demo(track=_tqdm_track) if demo else []
        if sources:
            results += app.ingest(sources, include=include, exclude=exclude, track=_tqdm_track)
    if as_json:
        _print_json([format_ingest_json(r) for r in results])
        return
    for r in results:
        d = r.document
        _echo(f"{r.status:<9}  {_field(d.title)}  ({d.chunk_count} chunks)  {_field(d.uri)}")
    counts = {
        s: sum(1 for r in results if r.status == s)
        for s in ("added", "updated", "unchanged", "restored")
    }
    stale = sum(r.stale_records for r in results)
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing"
    _echo(f"{summary}; {stale} cached answer(s) now stale")


def format_ingest_json(result: IngestResult) -> dict[str, Any]:
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
    }


@cli.command("search")
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=1, max=1000), default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def search_command(ctx: click.Context, query: str, limit: int, as_json: bool) -> None:
    """Search every hot chunk and core record for all the words of QUERY.

    Each hit says what it proves: STRICT (text re-hashes and its proof
    verifies), HYBRID (provenance proven, not a verbatim span), VISUAL (shown only).
    """
    with _app(ctx) as app:
        hits = app.search(query, limit=limit)
    if as_json:
        _print_json(
            [
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
        )
        return
    if not hits:
        _echo("no matches")
    for n, h in enumerate(hits, 1):
        where = f"chunk {h.chunk_index}" if h.chunk_index is not None else "title only"
        _echo(f"{n}. [{h.audit_mode}] {_field(h.title)}  ({where})  {_field(h.uri)}")
        _echo(f"   {' '.join(h.snippet.split())}")


@cli.command("evict")
@click.argument("document")
@click.option(
    "--tier",
    type=click.Choice(["warm", "cold"]),
    required=True,
    help="warm: compressed, out of the index; cold: only leaf hashes and the URI remain.",
)
@click.pass_context
def evict_command(ctx: click.Context, document: str, tier: str) -> None:
    """Move DOCUMENT (id, URI, path or source_root prefix) to a colder tier."""
    with _app(ctx) as app:
        change = app.evict(document, tier)
    _echo(f"{change.changed} chunk(s) of {_field(change.document.uri)} moved to {tier}")


@cli.command("rehydrate")
@click.argument("document")
@click.pass_context
def rehydrate_command(ctx: click.Context, document: str) -> None:
    """Bring DOCUMENT back to hot; cold chunks are refetched from its URI and must match their leaves."""
    with _app(ctx) as app:
        change = app.rehydrate(document)
    _echo(
        f"{change.changed} chunk(s) of {_field(change.document.uri)} back to hot, every leaf verified"
    )


@cli.command("derive")
@click.argument("kind", type=click.Choice(["snippet", "equation", "summary"]))
@click.option(
    "--from",
    "source",
    required=True,
    metavar="BATES_OR_CACHE_KEY",
    help="The answer (a turn's bates number or a cache key) whose cited evidence it derives from.",
)
@click.option(
    "--text",
    default=None,
    help="The derived text (a snippet defaults to the answer's cited spans).",
)
@click.pass_context
def derive_command(ctx: click.Context, kind: str, source: str, text: str | None) -> None:
    """Save a core record derived from an answer's cited evidence (searchable, HYBRID)."""
    with _app(ctx) as app:
        derivation = app.derive(kind, source, text)
    _echo(
        f"saved {kind} {_field(derivation.core.uri)} from {derivation.derived_from[:12]}… "
        f"({len(derivation.sources)} source chunk(s))"
    )


# --- answers -----------------------------------------------------------------------------------


def _model_limits(command: Any) -> Any:
    """``--timeout`` and ``--retries``: how long a remote model is waited for."""
    command = click.option(
        "--retries",
        type=click.IntRange(min=0, max=1000),
        default=None,
        help="Retries of a failed remote call [default: $ARBORIST_RETRIES, the profile's, or 3].",
    )(command)
    return click.option(
        "--timeout",
        type=click.FloatRange(min=0, min_open=True, max=86_400),
        default=None,
        metavar="SECONDS",
        help="Wait this long for a remote model's reply [default: $ARBORIST_TIMEOUT, the "
        "profile's, or 120].",
    )(command)


@cli.command("ask")
@click.argument("question")
@click.option(
    "--llm",
    default=None,
    metavar="NAME",
    help="extractive (default), stub, openai or a config profile.",
)
@click.option(
    "--sid", default=None, help="Record the turn in this session (default: a new one labelled cli)."
)
@click.option(
    "--parent", default=None, metavar="REF", help="Ask under this turn (bates, seq or label)."
)
@click.option("--no-cache", is_flag=True, help="Ask the model even if a cached answer matches.")
@click.option(
    "--related",
    is_flag=True,
    help="Add chunks co-accessed with the retrieved ones as a second evidence lane.",
)
@_model_limits
@click.option("--sessions-db", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def ask_command(
    ctx: click.Context,
    question: str,
    llm: str | None,
    sid: str | None,
    parent: str | None,
    no_cache: bool,
    related: bool,
    timeout: float | None,
    retries: int | None,
    sessions_db: Path | None,
    as_json: bool,
) -> None:
    """Answer QUESTION from your documents, citing them; cached when nothing has drifted.

    Every ask is a turn of the forest: it prints the turn's bates number.
    """
    with _app(ctx, sessions_db) as app:
        turn = app.ask_turn(
            question,
            sid=app.session(sid).sid if sid else None,
            parent=parent,
            llm=llm,
            use_cache=not no_cache,
            related=related,
            timeout=timeout,
            retries=retries,
        )
    result = turn.result
    if as_json:
        _print_json(
            {
                "bates": turn.node.bates,
                "sid": turn.node.sid,
                "hit": result.hit,
                "elapsed_ms": round(result.elapsed_ms, 3),
                **result.record.as_json(),
            }
        )
        return
    _echo(format_answer(result, bates=turn.node.bates))


def format_answer(result: AskResult, *, bates: str | None = None) -> str:
    """The answer, then its bates, hit or miss, audit mode, key and sources."""
    record = result.record
    if result.hit:
        cache = f"hit (first answered {record.created_at}, {record.hit_count} hit(s))"
    else:
        cache = f"miss (answered now in {result.elapsed_ms:.0f} ms)"
    lines = [
        record.answer_text,
        "",
        *([f"bates   {bates}"] if bates else []),
        f"cache   {cache}",
        f"audit   {record.audit_mode}",
        f"key     {record.cache_key}",
        "sources",
    ]
    if not record.evidence:
        lines.append("  (no evidence retrieved)")
    for item in record.evidence:
        mark = "*" if item.cited else " "
        lines.append(
            f"  {item.label}{mark} {_field(item.title)}  (chunk {item.chunk_index})  {_field(item.uri)}"
        )
    return "\n".join(lines)


@cli.command("related")
@click.argument("ref")
@click.option("--limit", type=click.IntRange(min=1, max=1000), default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def related_command(ctx: click.Context, ref: str, limit: int, as_json: bool) -> None:
    """Sources co-accessed with REF: a chunk hash, a document, or a turn's bates.

    Learned from the chunks that turns of one session cited together, recorded
    only with ARBORIST_COACCESS=1.
    """
    with _app(ctx) as app:
        found = app.related(ref, limit=limit)
    if as_json:
        _print_json(found.as_json())
        return
    _echo(format_related(found))


def format_related(found: Related) -> str:
    """One line for what REF stood for, then one per related source, strongest first."""
    lines = [f"{len(found.items)} related to {found.kind} ({len(found.sources)} chunk(s))"]
    lines += [
        f"  {item.freq_score:.2f}  {_field(item.title)}  (chunk {item.chunk_index}, {item.tier})  "
        f"{_field(item.uri)}"
        for item in found.items
    ]
    return "\n".join(lines)


@cli.group()
def providence() -> None:
    """Inspect and falsify cached answers (the cache-first records)."""


@providence.command("show")
@click.argument("key")
@click.option(
    "--revision",
    type=int,
    default=None,
    help="A specific revision (default: the ok one, else the latest).",
)
@click.option("--json", "as_json", is_flag=True, help="Everything, including each evidence proof.")
@click.pass_context
def providence_show(ctx: click.Context, key: str, revision: int | None, as_json: bool) -> None:
    """Show the record under KEY (64 hex, or a unique prefix of 8 or more)."""
    with _app(ctx.find_root()) as app:
        record = app.record(key, revision=revision)
    check = check_record(record)  # the store as it is now: never a label it no longer earns
    if as_json:
        _print_json({**record.as_json(), "holds": check.ok, "problems": check.problems})
        return
    audit = record.audit_mode if check else f"NONE: does not hold now: {check.summary}"
    lines = [
        f"key        {record.cache_key}",
        f"revision   {record.revision}  state {record.state}"
        + (f" ({_field(record.state_reason)})" if record.state_reason else ""),
        f"question   {_field(record.question)}",
        f"audit      {audit}   hits {record.hit_count}   created {record.created_at}",
        "dimensions",
        *[f"  {name:<25} {value or '(empty)'}" for name, value in record.dimensions.items()],
        "evidence",
        *[
            f"  {e.label}{'*' if e.cited else ' '} chunk {e.chunk_index}/{e.chunk_count} of "
            f"{_field(e.uri)}  leaf {e.leaf[:12]}…  [{e.tier}]"
            for e in record.evidence
        ],
        "answer",
        record.answer_text,
    ]
    _echo("\n".join(lines))


@providence.command("list")
@click.option("--limit", type=click.IntRange(min=1), default=None)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def providence_list(ctx: click.Context, limit: int | None, as_json: bool) -> None:
    """List cached answers, newest first."""
    with _app(ctx.find_root()) as app:
        records = app.records(limit=limit)
    if as_json:
        _print_json(
            [
                {
                    "cache_key": r.cache_key,
                    "revision": r.revision,
                    "state": r.state,
                    "audit_mode": r.audit_mode,
                    "holds": bool(check_record(r)),
                    "hit_count": r.hit_count,
                    "question": r.question,
                    "created_at": r.created_at,
                }
                for r in records
            ]
        )
        return
    if not records:
        _echo("no cached answers")
    for r in records:
        _echo(
            f"{r.cache_key[:16]}  r{r.revision}  {r.state:<11} "
            f"{r.audit_mode if check_record(r) else 'NONE':<6} "
            f"{r.hit_count:>4} hits  {_field(r.question)[:70]}"
        )


@providence.command("falsify")
@click.argument("key")
@click.option("--state", type=click.Choice(["failed", "stale", "quarantined"]), required=True)
@click.option("--reason", required=True, help="Why: kept with the record.")
@click.pass_context
def providence_falsify(ctx: click.Context, key: str, state: str, reason: str) -> None:
    """Take the answer under KEY out of service; the next same ask is a miss."""
    with _app(ctx.find_root()) as app:
        record = app.falsify(key, state, reason)
    _echo(
        f"{record.cache_key[:16]} revision {record.revision} is now {record.state}: {_field(record.state_reason)}"
    )


# --- the forest --------------------------------------------------------------------------------


@cli.command("session")
@click.option("--sid", default=None, help="Resume this session (or the one --tree/--export name).")
@click.option("--label", default=None, help="Label for a new session.")
@click.option("--list", "list_", is_flag=True, help="List every session.")
@click.option("--tree", is_flag=True, help="Print the tree of --sid.")
@click.option(
    "--find", "query", default=None, metavar="QUERY", help="Search every session's turns."
)
@click.option("--limit", type=click.IntRange(min=1, max=1000), default=10, show_default=True)
@click.option("--chain-check", "chain", is_flag=True, help="Check the shard's audit chain.")
@click.option(
    "--export", "export_sid", default=None, metavar="SID", help="Write a session as JSON Lines."
)
@click.option(
    "--import",
    "import_file",
    type=click.File("r", encoding="utf-8"),
    default=None,
    metavar="FILE",
    help="Import sessions exported with --export ('-' for stdin).",
)
@click.option(
    "--sessions-db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Use this shard instead of the home's sessions.db.",
)
@click.option("--llm", default=None, metavar="NAME", help="Model for the REPL's questions.")
@_model_limits
@click.option("--json", "as_json", is_flag=True, help="JSON output for --list and --find.")
@click.pass_context
def session_command(
    ctx: click.Context,
    sid: str | None,
    label: str | None,
    list_: bool,
    tree: bool,
    query: str | None,
    limit: int,
    chain: bool,
    export_sid: str | None,
    import_file: Any,
    sessions_db: Path | None,
    llm: str | None,
    timeout: float | None,
    retries: int | None,
    as_json: bool,
) -> int:
    """The conversation forest: a REPL in a new session (or --sid), or one of the actions below."""
    modes = [
        m
        for m, on in (
            ("--list", list_),
            ("--tree", tree),
            ("--find", query is not None),
            ("--chain-check", chain),
            ("--export", export_sid is not None),
            ("--import", import_file is not None),
        )
        if on
    ]
    if len(modes) > 1:
        raise click.UsageError(f"choose one of {', '.join(modes)}")
    if tree and not sid:
        raise click.UsageError("--tree needs --sid")
    with _app(ctx, sessions_db) as app:
        if list_:
            _print_sessions(app, as_json)
        elif tree:
            _echo(app.tree(sid or ""))
        elif query is not None:
            _print_find(app, query, limit, as_json)
        elif chain:
            result = app.chain_check((), databases=("sessions",))
            _echo(format_chain_check(result))
            return 0 if result.ok else EXIT_FAILED
        elif export_sid is not None:
            for record in app.export_session(export_sid):
                _echo_json(json.dumps(record, ensure_ascii=False, sort_keys=True))
        elif import_file is not None:
            done = app.import_sessions(import_file)
            _echo(
                f"imported {done.added} node(s), {done.already_present} already present, "
                f"session(s) {', '.join(done.sessions) or '(none)'}"
            )
        else:
            session = app.session(sid) if sid else app.new_session(label)
            repl = Repl(  # writes inert text itself
                app,
                session.sid,
                read=input,
                write=click.echo,
                llm=llm,
                timeout=timeout,
                retries=retries,
            )
            if sys.stdin.isatty():
                repl.read = interactive_reader(repl, app.home / "repl_history")
            repl.run()
    return 0


def _print_sessions(app: Arborist, as_json: bool) -> None:
    sessions = app.sessions()
    if as_json:
        _print_json(
            [
                {
                    "sid": s.sid,
                    "label": s.label,
                    "turns": n,
                    "root_bates": s.root_bates,
                    "current_bates": s.current_bates,
                    "created_at": s.created_at,
                    "updated_at": s.updated_at,
                }
                for s, n in sessions
            ]
        )
        return
    if not sessions:
        _echo("no sessions")
    for s, n in sessions:
        _echo(f"{s.sid}  {n:>5} turn(s)  {s.updated_at}  {_field(s.label)}".rstrip())


def _print_find(app: Arborist, query: str, limit: int, as_json: bool) -> None:
    hits = app.find(query, limit=limit)
    if as_json:
        _print_json(
            [
                {**h.node.as_json(), "audit_now": app.audit_now(h.node), "snippet": h.snippet}
                for h in hits
            ]
        )
        return
    if not hits:
        _echo("no matches")
    for h in hits:
        _echo(f"{h.node.bates}  [{app.audit_now(h.node)}]  {_field(h.node.question)[:70]}")
        _echo(f"   {' '.join(h.snippet.split())}")


# --- checks and figures --------------------------------------------------------------------------


@cli.command("verify")
@click.option(
    "--checkpoint",
    "checkpoints",
    multiple=True,
    callback=_checkpoint,
    metavar="SEQ:HASH",
    help="A checkpoint printed earlier; the chain must still hold it. Repeatable.",
)
@click.option(
    "--witness",
    "witnesses",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="NOTEBOOK",
    help="A saved notebook whose %%ask outputs recorded checkpoints. Repeatable.",
)
@click.pass_context
def verify_command(
    ctx: click.Context, checkpoints: list[Checkpoint], witnesses: tuple[Path, ...]
) -> int:
    """Recompute every leaf, source_root, cached answer, proof, turn and fold; check both chains.

    Prints one line per problem and exits 1 if there is any. A --witness
    notebook contributes every checkpoint its outputs recorded.
    """
    for notebook in witnesses:
        checkpoints = [*checkpoints, *witness_checkpoints(notebook)]
    with _app(ctx) as app:
        result = app.verify(checkpoints)
    if result.problems:
        _echo("\n".join(result.problems))
        return EXIT_FAILED
    store, forest = result.store, result.forest

    def head(report: ChainReport) -> str:
        return f"checkpoint {report.head}" if report.head else "empty chain"

    _echo(
        f"store.db     ok  {store.documents} documents, {store.chunks} chunks, "
        f"{store.records} cached answers; {head(store.chain)}"
    )
    _echo(
        f"sessions.db  ok  {forest.sessions} sessions, {forest.nodes} nodes; {head(forest.chain)}"
    )
    if checkpoints:
        _echo(f"every checkpoint holds ({len(checkpoints)})")
    return 0


@cli.command("stats")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def stats_command(ctx: click.Context, as_json: bool) -> None:
    """Documents, chunks per tier, cached answers per state, hits, file sizes."""
    with _app(ctx) as app:
        data = app.stats()
    if as_json:
        _print_json(data)
        return
    docs, chunks, records = data["documents"], data["chunks"], data["cache_records"]
    _echo(
        f"documents      {docs['surface']} surface, {docs['core']} core, {docs['superseded']} superseded"
    )
    _echo(f"chunks         {chunks['hot']} hot, {chunks['warm']} warm, {chunks['cold']} cold")
    _echo("cached answers " + ", ".join(f"{n} {s}" for s, n in records.items()))
    _echo(f"cache hits     {data['cache_hits']}")
    _echo(f"audit events   {data['audit_events']}")
    _echo(
        "files          "
        + ", ".join(f"{name} {size:,} bytes" for name, size in data["file_bytes"].items())
    )
    if "coaccess" in data:
        co = data["coaccess"]
        _echo(f"co-access      {co['rows']} rows, {co['edges']} edges ({co['index_version']})")


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="arborist")
