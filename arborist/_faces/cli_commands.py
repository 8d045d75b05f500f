"""The ``arborist`` command's runner: the table's command on freshly opened stores.

:mod:`arborist._faces.cli` parses the global options and maps errors to exit codes; this
module, loaded when a command runs, parses the command with the table's parser
(:mod:`arborist._commands.desk`, the one the REPL and ``%arborist`` use), opens the home
(or the databases ``--store-db``/``--sessions-db`` name), runs it, prints its
outcome inert, and opens the REPL when ``session`` chose a session to work in.
"""

from __future__ import annotations

import io
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import click
from tqdm import tqdm

from arborist._commands.desk import (
    SHELL_PREFIX,
    Command,
    Desk,
    Outcome,
    help_for,
    help_text,
    parse,
)
from arborist._commands.table import MODULES  # noqa: F401 - loads every command
from arborist._facade.app import Arborist
from arborist._faces.repl import Repl, interactive_reader
from arborist._progress import lines
from arborist._text.terminal import gutter_mark, inert, inert_json

__all__ = ["PREFIX", "group_help", "run"]

PREFIX = SHELL_PREFIX
EXIT_FAILED = 1

GLOBAL_HELP = (
    "global options: --home PATH (default $ARBORIST_HOME, else ~/.arborist), --version,\n"
    "  --trust-config (the home's config.toml may name model servers off this machine)\n"
    "exit status: 0 done, 1 a failed check or an error, 2 bad arguments"
)


def group_help() -> str:
    """``arborist --help``: every command of the table, then the global options."""
    return help_text(PREFIX, more=GLOBAL_HELP)


def run(home: str | None, words: list[str], *, trust_config: bool = False) -> int:
    """Run the command ``words`` name in ``home``; the exit code (errors propagate).
    ``trust_config``: ``--trust-config``, the user vouches for the home's config.toml."""
    shown = help_for(words, PREFIX)
    if shown is not None:
        click.echo(shown)
        return 0
    command, args = parse(words, PREFIX)
    if command.name == "help" or args is None:  # needs no store: the home is not made for it
        topic = getattr(args, "topic", None)
        click.echo(help_for([*topic, "--help"], PREFIX) if topic else group_help())
        return 0
    notes: list[str] = []  # said on stderr once the command has done: an error is one line
    with _open(home, command, args, trust_config) as app:
        desk = _desk(app, notes.append)
        outcome = desk.perform(command, args)
        for line in notes:
            click.echo(inert(line), err=True)
        if outcome.enter:
            _run_repl(desk)
            return 0
        _print(outcome)
    return EXIT_FAILED if outcome.failed else 0


def _open(home: str | None, command: Command, args: Any, trust_config: bool) -> Arborist:
    """The stores ``command`` works on: the home's, or the files it names. A file named
    for ``chain-check`` is checked alone and never created."""
    store_db = getattr(args, "store_db", None)
    sessions_db = getattr(args, "sessions_db", None)
    named = store_db is not None or sessions_db is not None
    return Arborist(
        Path(home) if home else None,
        store_db=Path(store_db) if store_db else None,
        sessions_db=Path(sessions_db) if sessions_db else None,
        create=not (named and command.name == "chain-check"),
        trust_config=trust_config,
    )


def _desk(app: Arborist, note: Callable[[str], None]) -> Desk:
    tty = sys.stdout.isatty()
    return Desk(
        app,
        prefix=PREFIX,
        label="cli",
        track=_tqdm_track,
        embed_track=_tqdm_batches,
        stream=_stream_write if tty else None,
        columns=_columns,
        mark=gutter_mark(getattr(sys.stdout, "encoding", None)),
        stdin=_stdin,
        opens=True,
        note=note,
    )


def _stdin() -> BinaryIO:
    """The standard input as bytes (``session --import -``)."""
    return sys.stdin.buffer


def _print(outcome: Outcome) -> None:
    """The outcome as text made inert (answers, titles, labels and paths come from users,
    documents and models, and a terminal would obey their control characters), or JSON
    with every character a terminal acts on escaped (the same data)."""
    if outcome.json is not None:
        click.echo(inert_json(outcome.json))
    elif outcome.text:
        click.echo(inert(outcome.text))


def _columns() -> int | None:
    """The terminal's width, to wrap an answer at (None when stdout is not a terminal: a
    pipe or a file has no rows to wrap into)."""
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _stream_write(text: str) -> None:
    """Write streamed text (already inert) as it comes: no newline, flushed."""
    click.echo(text, nl=False)


def _tqdm_track(items: Any) -> Any:
    items = list(items)
    return tqdm(
        items, desc="ingest", unit="doc", disable=None if len(items) > 20 else True, file=sys.stderr
    )


def _tqdm_batches(items: Any) -> Any:
    """A bar with the time left on a terminal; plain lines (:func:`arborist._progress.lines`)
    into a pipe or a log, where a bar's redraws are noise."""
    if sys.stderr.isatty():
        return tqdm(list(items), desc="embed", unit="batch", file=sys.stderr)
    return lines("embed", "batches", lambda line: click.echo(line, err=True))(items)


def _run_repl(desk: Desk) -> None:
    """The REPL in the session ``session`` chose (a new one: made by its first question),
    with history and completion when a person types."""
    if isinstance(sys.stdin, io.TextIOWrapper):  # a line that is not UTF-8 is one error line
        sys.stdin.reconfigure(errors="surrogateescape")
    repl = Repl(  # writes inert text itself
        desk.app,
        desk.sid,
        read=input,
        write=click.echo,
        llm=desk.llm,
        label=desk.new_label,  # session --label's (or session new's); else none
        timeout=desk.timeout,
        retries=desk.retries,
        stream=desk.stream,
        columns=_columns,
        mark=desk.mark,
    )
    if sys.stdin.isatty():
        repl.read = interactive_reader(repl, desk.app.home / "repl_history")
    repl.run()
