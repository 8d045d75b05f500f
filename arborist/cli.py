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

from arborist._version import __version__
from arborist.app import Arborist, ChainCheck, DatabaseReport
from arborist.audit import Checkpoint
from arborist.errors import ArboristError, BadInput

__all__ = ["cli", "format_chain_check", "main"]

EXIT_FAILED = 1
EXIT_USAGE = 2


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"arborist: error: {message}", err=True)
    sys.exit(code)


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
    click.echo(
        json.dumps(chain_check_json(result), indent=2) if as_json else format_chain_check(result)
    )
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


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="arborist")
