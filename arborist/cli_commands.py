"""The ``arborist`` command's subcommands. Thin: parse, call the facade, format.

:mod:`arborist.cli` holds the group (``--home``, ``--version``, one-line
errors and exit codes) and imports this module only when a subcommand runs,
so ``arborist --version`` loads none of the services.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from arborist import views
from arborist.app import Arborist
from arborist.audit import Checkpoint
from arborist.cli import EXIT_FAILED
from arborist.commands import document_ref, import_lines
from arborist.errors import BadInput
from arborist.qa.check import check_record
from arborist.repl import Repl, TokenPrinter, answer_lines, interactive_reader
from arborist.store.derive import DERIVATION_KINDS
from arborist.terminal import gutter_mark, inert, inert_json
from arborist.witness import witness_checkpoints

__all__ = [
    "ask_command",
    "chain_check",
    "derive_command",
    "embed_command",
    "evict_command",
    "ingest",
    "providence_group",
    "record_group",
    "rehydrate_command",
    "related_command",
    "search_command",
    "session_command",
    "stats_command",
    "verify_command",
]


def _echo(text: str = "", *, err: bool = False) -> None:
    """Print ``text`` made inert: answers, titles, labels and paths come from users,
    documents and models, and a terminal would obey their control characters."""
    click.echo(inert(text), err=err)


def _echo_json(text: str) -> None:
    """Print JSON text with every character a terminal acts on escaped (same data)."""
    click.echo(inert_json(text))


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _checkpoint(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> list[Checkpoint]:
    try:
        return [Checkpoint.parse(value) for value in values]
    except BadInput as exc:
        raise click.BadParameter(str(exc)) from exc


_checkpoints_option = click.option(
    "--checkpoint",
    "checkpoints",
    multiple=True,
    callback=_checkpoint,
    metavar="SEQ:HASH",
    help="A head printed earlier; the chain must still hold it. Repeatable.",
)
"""``--checkpoint``, as ``chain-check`` and ``verify`` both take it."""


@click.command("chain-check")
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
@_checkpoints_option
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
        _echo_json(json.dumps(views.chain_check_json(result), indent=2))
    else:
        _echo(views.chain_check_text(result))
    return 0 if result.ok else EXIT_FAILED


# --- documents ---------------------------------------------------------------------------------


def _app(ctx: click.Context, sessions_db: Path | None = None) -> Arborist:
    return Arborist(ctx.obj["home"], sessions_db=sessions_db)


def _show(as_json: bool, data: Callable[[], Any], text: Callable[[], str]) -> None:
    """Print the result as the CLI's JSON with ``--json``, else as inert text."""
    if as_json:
        _print_json(data())
    else:
        _echo(text())


def _print_json(data: Any) -> None:
    _echo_json(json.dumps(data, indent=2, ensure_ascii=False))


def _tqdm_track(items: Any) -> Any:
    items = list(items)
    return tqdm(
        items, desc="ingest", unit="doc", disable=None if len(items) > 20 else True, file=sys.stderr
    )


@click.command()
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
@click.option(
    "--follow-symlinks",
    is_flag=True,
    help="Let a folder walk follow symbolic links out of the folder (off: they are skipped).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per document.")
@click.pass_context
def ingest(
    ctx: click.Context,
    sources: tuple[str, ...],
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    demo: bool,
    follow_symlinks: bool,
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
        results = app.ingest_demo(track=_tqdm_track, embed_track=_tqdm_batches) if demo else []
        if sources:
            results += app.ingest(
                sources,
                include=include,
                exclude=exclude,
                track=_tqdm_track,
                follow_symlinks=follow_symlinks,
                embed_track=_tqdm_batches,
            )
    _show(
        as_json, lambda: [views.ingest_json(r) for r in results], lambda: views.ingest_text(results)
    )


def _tqdm_batches(items: Any) -> Any:
    items = list(items)
    return tqdm(items, desc="embed", unit="batch", disable=None, file=sys.stderr)


@click.command("embed")
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@click.pass_context
def embed_command(ctx: click.Context, as_json: bool) -> None:
    """Embed every searchable chunk that has no vector yet under the configured model.

    The model: ARBORIST_EMBED_BASE_URL and ARBORIST_EMBED_MODEL (key:
    ARBORIST_EMBED_API_KEY), or [embeddings] in config.toml. One request per
    batch_size chunks; a chunk already embedded (by its text) costs none.
    """
    with _app(ctx) as app:
        report = app.embed(track=_tqdm_batches)
        profile = app.embedder_profile()
    _show(
        as_json,
        lambda: views.embed_json(report, profile),
        lambda: views.embed_text(report, profile),
    )


@click.command("search")
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
    _show(as_json, lambda: views.search_json(hits), lambda: views.search_text(hits))


@click.command("evict")
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
        change = app.evict(document_ref(document), tier)
    _echo(views.evicted_text(change, tier))


@click.command("rehydrate")
@click.argument("document")
@click.pass_context
def rehydrate_command(ctx: click.Context, document: str) -> None:
    """Bring DOCUMENT back to hot; cold chunks are refetched from its URI and must match their leaves."""
    with _app(ctx) as app:
        change = app.rehydrate(document_ref(document))
    _echo(views.rehydrated_text(change))


@click.command("derive")
@click.argument("kind", type=click.Choice(list(DERIVATION_KINDS)))
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
    _echo(views.derived_text(kind, derivation))


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


RETRIEVAL_KEYWORDS_GONE = (
    "--retrieval-keywords is retired: ask the follow-up under the turn it follows (--sid, "
    "--parent) and it borrows the titles that turn and its ancestors cited, for retrieval only, "
    "never into the cache key"
)
"""What the legacy flag says: the forest does its job now (docs/retrieval.md)."""


@click.command("ask")
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
@click.option("--retrieval-keywords", "keywords", default=None, hidden=True)
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
    keywords: str | None,
) -> None:
    """Answer QUESTION from your documents, citing them; cached when nothing has drifted.

    Every ask is a turn of the forest: it prints the turn's bates number. At a
    terminal the answer streams in as the model sends it.
    """
    if keywords is not None:
        raise BadInput(RETRIEVAL_KEYWORDS_GONE)
    printer = _printer(as_json)
    with _app(ctx, sessions_db) as app:
        try:
            turn = app.ask_turn(
                question,
                sid=app.session(sid).sid if sid else None,
                parent=parent,
                llm=llm,
                use_cache=not no_cache,
                related=related,
                timeout=timeout,
                retries=retries,
                on_token=printer,
            )
        finally:
            if printer is not None:
                printer.close()
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
    streamed = printer.text if printer is not None and printer.text else None
    shown = answer_lines(result, streamed, width=_columns(), mark=_mark())
    footer = views.answer_text(result, bates=turn.node.bates, streamed=result.record.answer_text)
    _echo("\n".join([*shown, footer]))


def _mark() -> str:
    """The gutter that sets an answer apart, in what standard output can encode."""
    return gutter_mark(getattr(sys.stdout, "encoding", None))


def _columns() -> int | None:
    """The terminal's width, to wrap an answer at (None when stdout is not a terminal: a
    pipe or a file has no rows to wrap into)."""
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _stream_write(text: str) -> None:
    """Write streamed text (already inert) as it comes: no newline, flushed."""
    click.echo(text, nl=False)


def _printer(as_json: bool) -> TokenPrinter | None:
    """A printer for an answer's tokens when stdout is a terminal and the output is text;
    None (the whole answer at the end, as scripts read it) otherwise."""
    if as_json or not sys.stdout.isatty():
        return None
    return TokenPrinter(_stream_write, width=_columns(), mark=_mark())


@click.command("related")
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
    _show(as_json, found.as_json, lambda: views.related_text(found))


@click.group("record")
def record_group() -> None:
    """Inspect and falsify cache records (the cached answers)."""


@record_group.command("show")
@click.argument("key")
@click.option(
    "--revision",
    type=int,
    default=None,
    help="A specific revision (default: the ok one, else the latest).",
)
@click.option("--json", "as_json", is_flag=True, help="Everything, including each evidence proof.")
@click.pass_context
def record_show(ctx: click.Context, key: str, revision: int | None, as_json: bool) -> None:
    """Show the record under KEY (64 hex, or a unique prefix of 8 or more)."""
    with _app(ctx.find_root()) as app:
        record = app.record(key, revision=revision)
    check = check_record(record)  # the store as it is now: never a label it no longer earns
    _show(
        as_json, lambda: views.record_json(record, check), lambda: views.record_text(record, check)
    )


@record_group.command("list")
@click.option("--limit", type=click.IntRange(min=1), default=None)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def record_list(ctx: click.Context, limit: int | None, as_json: bool) -> None:
    """List cached answers, newest first."""
    with _app(ctx.find_root()) as app:
        records = [(r, bool(check_record(r))) for r in app.records(limit=limit)]
    _show(as_json, lambda: views.records_json(records), lambda: views.records_text(records))


@record_group.command("falsify")
@click.argument("key")
@click.option("--state", type=click.Choice(["failed", "stale", "quarantined"]), required=True)
@click.option("--reason", required=True, help="Why: kept with the record.")
@click.pass_context
def record_falsify(ctx: click.Context, key: str, state: str, reason: str) -> None:
    """Take the answer under KEY out of service; the next same ask is a miss."""
    with _app(ctx.find_root()) as app:
        record = app.falsify(key, state, reason)
    _echo(views.falsified_text(record))


# The group's first name keeps working for scripts that use it; --help lists only "record".
providence_group = click.Group(
    "providence",
    commands=dict(record_group.commands),
    hidden=True,
    help="The former name of `arborist record`.",
)


# --- the forest --------------------------------------------------------------------------------


@click.command("session")
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
    type=click.File("rb"),
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
    chosen = {
        "--list": list_, "--tree": tree, "--find": query is not None, "--chain-check": chain,
        "--export": export_sid is not None, "--import": import_file is not None,
    }  # fmt: skip
    modes = [mode for mode, on in chosen.items() if on]
    if len(modes) > 1:
        raise click.UsageError(f"choose one of {', '.join(modes)}")
    if tree and not sid:
        raise click.UsageError("--tree needs --sid")
    with _app(ctx, sessions_db) as app:
        if list_:
            sessions = app.sessions()
            _show(
                as_json,
                lambda: views.sessions_json(sessions),
                lambda: views.sessions_text(sessions),
            )
        elif tree:
            _echo(app.tree(sid or ""))
        elif query is not None:
            hits = app.find(query, limit=limit)
            _show(
                as_json,
                lambda: views.find_json(hits, app.audit_now),
                lambda: views.find_text(hits, app.audit_now),
            )
        elif chain:
            result = app.chain_check((), databases=("sessions",))
            _echo(views.chain_check_text(result))
            return 0 if result.ok else EXIT_FAILED
        elif export_sid is not None:
            _echo_json(views.export_jsonl(app.export_session(export_sid)))
        elif import_file is not None:
            _echo(views.import_text(app.import_sessions(import_lines(import_file))))
        else:
            session = app.session(sid) if sid else app.new_session(label)
            _run_repl(app, session.sid, llm, timeout, retries)
    return 0


def _run_repl(
    app: Arborist, sid: str, llm: str | None, timeout: float | None, retries: int | None
) -> None:
    """The REPL on session ``sid``: history and completion when a person types."""
    if isinstance(sys.stdin, io.TextIOWrapper):  # a line that is not UTF-8 is one error line
        sys.stdin.reconfigure(errors="surrogateescape")
    tty = sys.stdout.isatty()
    repl = Repl(  # writes inert text itself
        app,
        sid,
        read=input,
        write=click.echo,
        llm=llm,
        timeout=timeout,
        retries=retries,
        stream=_stream_write if tty else None,
        columns=_columns,
        mark=_mark(),
    )
    if sys.stdin.isatty():
        repl.read = interactive_reader(repl, app.home / "repl_history")
    repl.run()


# --- checks and figures --------------------------------------------------------------------------


@click.command("verify")
@_checkpoints_option
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
    _echo(views.verification_text(result, len(checkpoints)))
    return EXIT_FAILED if result.problems else 0


@click.command("stats")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def stats_command(ctx: click.Context, as_json: bool) -> None:
    """Documents, chunks per tier, cached answers per state, hits, file sizes."""
    with _app(ctx) as app:
        data = app.stats()
    _show(as_json, lambda: data, lambda: views.stats_text(data))
