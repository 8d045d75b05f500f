"""The session REPL: questions and slash commands over one session of the forest.

The loop reads through an injected ``read`` function and writes through an
injected ``write`` function, so tests drive it with a script and the CLI
gives it ``input`` (with readline history and completion) and ``click.echo``.
Every command error is one line; the loop keeps going. Everything written
passes :func:`arborist.terminal.inert` first: answers, questions and labels
come from models and users, and a terminal would obey their control characters.
"""

from __future__ import annotations

import atexit
import contextlib
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arborist import views
from arborist.app import Arborist
from arborist.errors import ArboristError
from arborist.forest.render import format_node
from arborist.terminal import inert

__all__ = ["COMMANDS", "Repl", "interactive_reader", "scripted_reader"]

COMMANDS: dict[str, str] = {
    "/tree": "print this session's tree",
    "/branches": "list branch points (two or more children)",
    "/find": "/find QUERY: search every session's turns",
    "/cd": "/cd BATES|SEQ|LABEL|root: move here (any session); the next question lands under it",
    "/back": "move to the parent of the current turn",
    "/label": "/label NAME: name the current turn",
    "/show": "/show [REF]: the stored turn (default: the current one)",
    "/sid": "print this session's id",
    "/root": "print this session's root bates",
    "/help": "this list",
    "/quit": "leave (or Ctrl-D)",
}


def scripted_reader(lines: Iterable[str]) -> Callable[[str], str]:
    """A ``read`` function that answers prompts from ``lines``, then raises EOFError."""
    iterator = iter(lines)

    def read(_prompt: str) -> str:
        try:
            return next(iterator)
        except StopIteration:
            raise EOFError from None

    return read


@dataclass
class Repl:
    """One session's REPL. ``run`` returns when the user quits or input ends."""

    app: Arborist
    sid: str
    read: Callable[[str], str]
    write: Callable[[str], None]
    llm: str | None = None
    history: list[str] = field(default_factory=list)
    timeout: float | None = None
    retries: int | None = None

    def __post_init__(self) -> None:
        raw = self.write
        self.write = lambda text: raw(inert(text))

    def prompt(self) -> str:
        session = self.app.session(self.sid)
        current = session.current_bates
        where = current.rsplit("-", 1)[1] if current.startswith(self.sid) else current
        return f"arborist {self.sid[-6:]}:{where}> "

    def run(self) -> None:
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
                self.write(f"error: {inert(str(exc), one_line=True)}")

    def handle(self, line: str) -> bool:
        """Run one line; False means quit."""
        if not line.startswith("/"):
            self.ask(line)
            return True
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        if name == "/quit":
            return False
        handler = getattr(self, "cmd_" + name[1:], None)
        if name not in COMMANDS or handler is None:
            self.write(f"error: unknown command {name}: try /help")
            return True
        handler(rest)
        return True

    def ask(self, question: str) -> None:
        turn = self.app.ask_turn(
            question, sid=self.sid, llm=self.llm, timeout=self.timeout, retries=self.retries
        )
        record = turn.result.record
        cache = "hit" if turn.result.hit else "miss"
        self.write(record.answer_text)
        self.write(f"[{turn.node.bates}  {cache}  {record.audit_mode}]")

    def cmd_tree(self, _rest: str) -> None:
        self.write(self.app.tree(self.sid))

    def cmd_branches(self, _rest: str) -> None:
        session = self.app.session(self.sid)
        points = self.app.branches(self.sid)
        if not points:
            self.write("no branch points")
        for node, count in points:
            self.write(f"{count} children  {format_node(node, session)}")

    def cmd_find(self, rest: str) -> None:
        self.write(views.find_text(self.app.find(rest), self.app.audit_now))

    def cmd_cd(self, rest: str) -> None:
        if not rest:
            self.write("error: /cd needs a bates number, a seq, a label or root")
            return
        node = self.app.cd(self.sid, rest)
        self.write(f"now at {node.bates}")

    def cmd_back(self, _rest: str) -> None:
        self.write(f"now at {self.app.back(self.sid).bates}")

    def cmd_label(self, rest: str) -> None:
        if not rest:
            self.write("error: /label needs a name")
            return
        node = self.app.label(self.sid, rest)
        self.write(f"{node.bates} is now labelled {node.label!r}")

    def cmd_show(self, rest: str) -> None:
        session = self.app.session(self.sid)
        node = self.app.node(rest, self.sid) if rest else self.app.node(session.current_bates)
        self.write(views.node_text(node, self.app.audit_now))

    def cmd_sid(self, _rest: str) -> None:
        self.write(self.sid)

    def cmd_root(self, _rest: str) -> None:
        self.write(self.app.session(self.sid).root_bates)

    def cmd_help(self, _rest: str) -> None:
        for name, text in COMMANDS.items():
            self.write(f"{name:<10} {text}")
        self.write("anything else is a question, asked as a child of the current turn")

    def completions(self, text: str) -> list[str]:
        """Candidates for tab completion: commands, then labels and bates numbers."""
        if text.startswith("/") and " " not in text:
            return sorted(c for c in COMMANDS if c.startswith(text))
        words = shlex.split(text) if text.count('"') % 2 == 0 else text.split()
        prefix = words[-1] if words and not text.endswith(" ") else ""
        conn = self.app.sessions_conn
        labels = [
            r[0] for r in conn.execute("SELECT DISTINCT label FROM nodes WHERE label IS NOT NULL")
        ]
        bates = [r[0] for r in conn.execute("SELECT bates FROM nodes WHERE sid = ?", (self.sid,))]
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
