"""The ``arborist`` command: the group, its options, and one-line errors.

Every failure is one line on stderr: ``arborist: error: <what was wrong>``.
Exit codes: 0 success, 1 a failed check or an arborist error, 2 bad
arguments (usage): an argument that is not UTF-8 text among them. A foreign
error that input or the machine can cause (a full disk, an I/O error, input
nested too deeply) is one line as well (:func:`arborist.errors.foreign`). The subcommands live in :mod:`arborist.cli_commands`,
imported only when one runs (or ``--help`` lists them): ``arborist
--version`` loads click and the version, not the services.
"""

from __future__ import annotations

import importlib
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from arborist._version import __version__
from arborist.errors import ArboristError, BadInput, foreign
from arborist.safejson import check_word
from arborist.terminal import inert

__all__ = ["EXIT_FAILED", "EXIT_USAGE", "cli", "fail", "main"]

EXIT_FAILED = 1
EXIT_USAGE = 2

SUBCOMMANDS = {
    "chain-check": "chain_check",
    "ingest": "ingest",
    "search": "search_command",
    "evict": "evict_command",
    "rehydrate": "rehydrate_command",
    "derive": "derive_command",
    "ask": "ask_command",
    "related": "related_command",
    "embed": "embed_command",
    "session": "session_command",
    "verify": "verify_command",
    "stats": "stats_command",
    "record": "record_group",
    "providence": "providence_group",
}
"""Each subcommand's name and its click command in :mod:`arborist.cli_commands`."""


def fail(message: str, code: int) -> NoReturn:
    """Print one inert error line and exit with ``code``."""
    click.echo(f"arborist: error: {inert(message, one_line=True)}", err=True)
    sys.exit(code)


def _one_line(message: str) -> str:
    return " ".join(message.split())


class ArboristGroup(click.Group):
    """A click group whose errors are one line, whoever invokes it (shell or CliRunner),
    and whose subcommands are imported when one is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        attribute = SUBCOMMANDS.get(cmd_name)
        if attribute is None:
            return None
        command: click.Command = getattr(
            importlib.import_module("arborist.cli_commands"), attribute
        )
        return command

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        try:
            for number, word in enumerate(words, 1):
                check_word(word, f"argument {number}")
            result = super().main(words, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else "", err=True)
            sys.exit(EXIT_USAGE)
        except click.UsageError as exc:
            fail(_one_line(exc.format_message()), EXIT_USAGE)
        except click.ClickException as exc:
            fail(_one_line(exc.format_message()), EXIT_FAILED)
        except BadInput as exc:
            fail(str(exc), EXIT_USAGE)
        except ArboristError as exc:
            fail(str(exc), EXIT_FAILED)
        except click.Abort:
            fail("aborted", EXIT_FAILED)
        except Exception as exc:  # a foreign error that input or the machine can cause
            translated = foreign(exc)
            if translated is None:
                raise
            fail(str(translated), EXIT_USAGE if isinstance(translated, BadInput) else EXIT_FAILED)
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)


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


def main() -> None:
    """Console-script entry point.

    A file size limit (``ulimit -f``) is met as a write failing with ``EFBIG``, which is
    one line, rather than as ``SIGXFSZ``, which kills the process without a word."""
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    cli.main(prog_name="arborist")
