"""The session REPL: questions and slash commands over one session of the forest.

Every line is a command of the table the ``arborist`` command and ``%arborist``
run (:mod:`arborist._commands.desk`): ``/NAME ...`` runs ``NAME``, anything else is
``/ask`` of the line. The session is made by its first question, never by
starting the REPL. The loop reads through an injected ``read`` function and writes
through an injected ``write`` function, so tests drive it with a script and the CLI
gives it ``input`` (with readline history and completion) and ``click.echo``.
Every command error is one line; the loop keeps going. Everything written
passes :func:`arborist._text.terminal.inert` first: answers, questions and labels
come from models and users, and a terminal would obey their control characters.
"""

from __future__ import annotations

import atexit
import contextlib
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from arborist._commands import desk as commands
from arborist._commands.table import commands as every_command
from arborist._errors import ArboristError, BadInput, foreign
from arborist._facade.app import Arborist
from arborist._gate.admission import admit_error_line
from arborist._safejson import check_text
from arborist._text.terminal import GUTTER, inert, inert_json

__all__ = [
    "COMMANDS",
    "Repl",
    "interactive_reader",
    "scripted_reader",
]

QUIT = "leave (or Ctrl-D)"
COMMANDS: dict[str, str] = {
    **{"/" + name: command.summary for name, command in every_command().items()},
    "/quit": QUIT,
}
"""The REPL's commands: ``%arborist``'s subcommands, each written with a slash."""


def scripted_reader(lines: Iterable[str]) -> Callable[[str], str]:
    """A ``read`` function that answers prompts from ``lines``, then raises EOFError."""
    iterator = iter(lines)

    def read(_prompt: str) -> str:
        try:
            return next(iterator)
        except StopIteration:
            raise EOFError from None

    return read


class Repl:
    """One session's REPL. ``run`` returns when the user quits or input ends.

    ``sid`` None: a new session, made by the first question (labelled ``label``).
    ``stream`` (a write without a newline, flushed) shows an answer as it
    streams; without it (not a terminal) the answer is written whole.
    Commands run on a :class:`~arborist._commands.Desk`, the same ones as
    ``%arborist``'s and the ``arborist`` command's, so ``/session new`` moves the
    REPL to a new session and ``/ask --no-cache QUESTION`` takes the flags of
    ``arborist ask``.
    """

    def __init__(
        self,
        app: Arborist,
        sid: str | None,
        *,
        read: Callable[[str], str],
        write: Callable[[str], None],
        llm: str | None = None,
        label: str | None = None,
        timeout: float | None = None,
        retries: int | None = None,
        stream: Callable[[str], None] | None = None,
        columns: Callable[[], int | None] = lambda: None,
        mark: str = GUTTER,
    ) -> None:
        self.app = app
        self.desk = commands.Desk(
            app,
            prefix="/",
            sid=sid,
            llm=llm,
            label=label,
            also={"quit": QUIT},
            more_help="anything else is a question (/ask), asked as a child of the current turn",
            timeout=timeout,
            retries=retries,
            stream=stream,
            columns=columns,
            mark=mark,
        )
        self.read = read
        self.write: Callable[[str], None] = lambda text: write(inert(text))
        self.history: list[str] = []

    @property
    def sid(self) -> str | None:
        """The session the REPL is in now (None until its first question makes it)."""
        return self.desk.sid

    def prompt(self) -> str:
        if self.sid is None:
            return "arborist new> "
        session = self.app.session(self.sid)
        current = session.current_bates
        where = current.rsplit("-", 1)[1] if current.startswith(self.sid) else current
        return f"arborist {self.sid[-6:]}:{where}> "

    def run(self) -> None:
        if self.sid is None:
            self.write("a new session, made by its first question: ask one, or /help")
        else:
            self.write(f"session {self.sid}: ask a question, or /help")
        while True:
            try:
                line = self.read(self.prompt())
            except (EOFError, KeyboardInterrupt):
                self.write("")
                return
            if not line.strip():
                continue
            self.history.append(line)
            try:
                if not self.handle(line.strip()):
                    return
            except ArboristError as exc:
                self.error(str(exc))
            except Exception as exc:  # a full disk, an I/O error...: one line, and go on
                translated = foreign(exc)
                if translated is None:
                    raise
                self.error(str(translated))

    def error(self, message: str) -> None:
        """Write one error line, through the admission gate and inert
        (:func:`arborist._gate.admission.admit_error_line`): it may quote a path, a URL or a word
        as typed, a token in it included."""
        self.write(f"error: {admit_error_line(message)}")

    def handle(self, line: str) -> bool:
        """Run one line: a question, or a /command; False means quit."""
        check_text(line, "the line")  # bytes that were not UTF-8 (stdin decodes them escaped)
        self.desk.app.told.clear()  # each line is a command: told anew what leaves the machine
        if not line.startswith("/"):
            self.ask(line)
            return True
        try:
            words = shlex.split(line[1:])
        except ValueError as exc:
            raise BadInput(f"cannot parse the arguments: {exc}") from None
        if words[:1] == ["quit"]:
            return False
        self.show(self.desk.run(words))
        return True

    def show(self, outcome: commands.Outcome) -> None:
        """What a command shows (JSON as every face prints it); a failed check is an
        error line."""
        if outcome.json is not None:
            self.write(inert_json(outcome.json))
        elif outcome.text:
            self.write(outcome.text)
        if outcome.failed:
            self.error(outcome.failed)

    def ask(self, question: str) -> None:
        """``/ask`` the whole line, under the current turn: the answer streams when the
        REPL has a terminal (a cache hit has nothing to stream: it is written at once)."""
        self.show(self.desk.run(["ask", "--", question]))

    def completions(self, text: str) -> list[str]:
        """Candidates for tab completion: commands, then labels and bates numbers."""
        if text.startswith("/") and " " not in text:
            return sorted(f"/{c}" for c in [*commands.names(), "quit"] if f"/{c}".startswith(text))
        words = shlex.split(text) if text.count('"') % 2 == 0 else text.split()
        prefix = words[-1] if words and not text.endswith(" ") else ""
        labels = self.app.label_names()
        bates = self.app.session_bates(self.sid) if self.sid else []
        # readline shows candidates as they are: a label a terminal would act on is not offered.
        return sorted(
            c for c in (*labels, *bates) if c.startswith(prefix) and inert(c, one_line=True) == c
        )


def interactive_reader(repl: Repl, history_file: Path | None = None) -> Callable[[str], str]:
    """``input`` with readline history (kept in ``history_file``) and tab completion."""
    try:
        import readline  # noqa: PLC0415 - optional: absent on some platforms
    except ImportError:  # pragma: no cover - Windows without pyreadline
        return input

    def complete(text: str, state: int) -> str | None:
        line = readline.get_line_buffer()
        options = repl.completions(line if line.startswith("/") and " " not in line else text)
        return options[state] if state < len(options) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t")
    readline.parse_and_bind("tab: complete")
    if history_file is not None:
        with contextlib.suppress(OSError):
            readline.read_history_file(history_file)
        readline.set_history_length(1000)
        atexit.register(_save_history, readline, history_file, repl.app.admitted)
    return input


def _save_history(readline: Any, history_file: Path, admit_text: Callable[[str], str]) -> None:
    """Write the history through the admission gate: a key pasted into a question is
    stored redacted in store.db, and must not sit raw in the history file either."""
    for index in range(readline.get_current_history_length()):
        line = readline.get_history_item(index + 1)
        if line is not None and admit_text(line) != line:
            readline.replace_history_item(index, admit_text(line))
    with contextlib.suppress(OSError):
        readline.write_history_file(history_file)
        history_file.chmod(0o600)
