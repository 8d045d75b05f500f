"""The ``arborist`` command: its global options, one-line errors and exit codes.

Every failure is one line on stderr: ``arborist: error: <what was wrong>``.
Exit codes (README, "Command line"): 0 success; 1 a failed check or an arborist
error, including what the machine or the network did (a full disk, an I/O error, a
URL that cannot be fetched: no connection, an HTTP error status, the fetch deadline);
2 bad arguments: a command line that does not parse, or input that can never be valid
(an argument that is not UTF-8 text among them, a file or a fetched page over the size
cap, of a type ingest does not read, or refused by the admission gate).
The commands are :mod:`arborist._commands.desk`' table, the one the REPL and
``%arborist`` run, loaded by :mod:`arborist._faces.cli_commands` only when one runs:
``arborist --version`` loads neither the table nor the services. ``cli`` is a click
command only so that click's test runner can drive it; its words are parsed by the
table's argparse parsers.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from arborist._errors import ArboristError, BadInput, foreign
from arborist._safejson import check_word
from arborist._version import __version__

__all__ = ["EXIT_FAILED", "EXIT_USAGE", "cli", "exit_code", "fail", "main"]

EXIT_FAILED = 1
EXIT_USAGE = 2

USAGE = (
    "usage: arborist [--home PATH] [--trust-config] [--version] COMMAND ... "
    "(arborist help lists them)"
)


class _GlobalUsage(BadInput):
    """A global option that does not parse."""


def fail(message: str, code: int) -> NoReturn:
    """Print one error line and exit with ``code``: through the admission gate, inert
    (:func:`arborist._gate.admission.admit_error_line`), since it may quote a path, a URL or a
    word as typed, a token in it included."""
    from arborist._gate.admission import admit_error_line  # noqa: PLC0415 - only when one fails

    click.echo(f"arborist: error: {admit_error_line(message)}", err=True)
    sys.exit(code)


def exit_code(exc: ArboristError) -> int:
    """What an error exits with: 2 for bad arguments and input that can never be valid,
    1 for everything else, a fetch that failed in the network included (the error is a
    ``BadInput`` of the URL, but the same URL may be fetched a minute later): no
    connection, an HTTP error status or the fetch deadline, each a ``BadInput`` caused by
    an httpx error or a timeout."""
    if not isinstance(exc, BadInput):
        return EXIT_FAILED
    cause = exc.__cause__
    while cause is not None:  # what the input was refused for, however often it was restated
        if isinstance(cause, OSError) or any(
            (kind.__module__, kind.__name__) in NETWORK for kind in type(cause).__mro__
        ):
            return EXIT_FAILED
        cause = cause.__cause__
    return EXIT_USAGE


NETWORK = {("httpx", "HTTPError"), ("httpcore", "NetworkError"), ("httpcore", "TimeoutException")}
"""The errors that are the network's (a fetch that failed, not a bad argument); not
``httpx.InvalidURL``, which is the argument's."""


def _globals(words: list[str]) -> tuple[str | None, list[str], str | None, bool]:
    """``--home PATH`` (else ``$ARBORIST_HOME``), the command's words, what a global flag
    asked for instead of a command (``version`` or ``help``), and ``--trust-config`` (the
    user vouches for the home's config.toml: :mod:`arborist._config`)."""
    home = os.environ.get("ARBORIST_HOME") or None
    trusted = False
    while words and words[0].startswith("-"):
        word = words.pop(0)
        if word in ("--version", "-V"):
            return home, words, "version", trusted
        if word in ("-h", "--help"):
            return home, words, "help", trusted
        if word == "--trust-config":
            trusted = True
        elif word == "--home" and words:
            home = words.pop(0)
        elif word.startswith("--home="):
            home = word.split("=", 1)[1]
        elif word == "--home":
            raise _GlobalUsage(f"--home needs a PATH: {USAGE}")
        else:
            raise _GlobalUsage(f"no such option: {word}: {USAGE}")
    return home, words, None, trusted


class ArboristCommand(click.Command):
    """The whole command line, parsed by the command table; errors are one line, whoever
    invokes it (a shell or click's test runner)."""

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
            code = _run(words)
        except ArboristError as exc:
            fail(str(exc), exit_code(exc))
        except KeyboardInterrupt:
            fail("aborted", EXIT_FAILED)
        except Exception as exc:  # a foreign error that input or the machine can cause
            translated = foreign(exc)
            if translated is None:
                raise
            fail(str(translated), EXIT_USAGE if isinstance(translated, BadInput) else EXIT_FAILED)
        if not standalone_mode:
            return code
        sys.exit(code)


def _run(words: list[str]) -> int:
    for number, word in enumerate(words, 1):
        check_word(word, f"argument {number}")
    home, rest, asked, trusted = _globals(words)
    if asked == "version":
        click.echo(f"arborist {__version__}")
        return 0
    runner = importlib.import_module("arborist._faces.cli_commands")
    if asked == "help" or not rest:  # no command at all: the help, as a usage error
        click.echo(runner.group_help(), err=asked is None)
        return 0 if asked else EXIT_USAGE
    code: int = runner.run(home, rest, trust_config=trusted)
    return code


cli = ArboristCommand(
    "arborist", help="arborist: cited answers, a verifiable forest of turns, and their proofs."
)


def main() -> None:
    """Console-script entry point.

    A file size limit (``ulimit -f``) is met as a write failing with ``EFBIG``, which is
    one line, rather than as ``SIGXFSZ``, which kills the process without a word."""
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    cli.main(prog_name="arborist")
