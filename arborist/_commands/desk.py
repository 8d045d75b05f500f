"""The desk every command runs at: the ``arborist`` command, the REPL and ``%arborist``.

``arborist search Ditko --limit 3 --json`` at a shell, ``/search Ditko --limit 3
--json`` in the REPL and ``%arborist search Ditko --limit 3 --json`` in a notebook
are one command: one parser (argparse, flags in any order), one call on the facade,
one rendering from :mod:`arborist._views.results`. A face splits its line into words, hands
them to :meth:`Desk.run` (the CLI parses first, to open the stores a command names,
then :meth:`Desk.perform`), and shows the :class:`Outcome` its own way (printed
inert, or kept as a cell's value), then applies what it says happened (a move, a
change a widget should show, a REPL to open).

The commands are registered by :mod:`arborist._commands.forest`, ``store`` and ``answers``,
which stand on this module; :mod:`arborist._commands.table` loads them. Every complaint is one
line (:class:`CommandUsage`, a :class:`~arborist._errors.BadInput`), never an exit. No face
lives here; the only files touched besides the stores are those a command names.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, NoReturn

from arborist._commands.help import did_you_mean, listing
from arborist._errors import BadInput, NotFound, foreign
from arborist._facade.app import Arborist
from arborist._forest.bates import is_bates
from arborist._progress import Track, untracked
from arborist._proofs.audit import Checkpoint
from arborist._safejson import check_word

__all__ = [
    "ALIASES",
    "COMMANDS",
    "Command",
    "CommandUsage",
    "Desk",
    "Outcome",
    "SHELL_PREFIX",
    "flags",
    "help_for",
    "help_text",
    "lookup",
    "names",
    "parse",
    "parser",
]

Argument = Callable[[argparse.ArgumentParser], object]
"""Adds one argument to a command's parser."""


class CommandUsage(BadInput):
    """A command line that does not parse: one line, ending with the command's usage."""


@dataclass(frozen=True)
class Outcome:
    """What a command shows, and what it did that a face may have to act on.

    ``text`` is not yet inert and ``json`` not yet :func:`~arborist._text.terminal.inert_json`:
    the face makes them so as it shows them. ``failed`` is a check that did not
    hold (a broken chain, a problem ``verify`` found), reported as an error after
    the text. ``moved``: the session's current turn moved (a notebook's next
    ``%%ask`` lands there). ``changed``: the forest or the store changed (a
    widget shows it again). ``keep``: the JSON is a document (an export), which a
    notebook cell returns as its value instead of only printing it. ``enter``:
    ``session`` chose the session to work in; the ``arborist`` command opens its
    REPL there (a REPL or a notebook is in it already).
    """

    text: str = ""
    json: str | None = None
    failed: str | None = None
    moved: bool = False
    changed: bool = False
    keep: bool = False
    enter: bool = False


Handler = Callable[["Desk", argparse.Namespace], Outcome]


@dataclass(frozen=True)
class Command:
    """One command: its name (two words for ``session new`` and the like), a one-line
    summary, the arguments its parser takes, and what it does. ``text``: its last
    positional is free text, so a word starting with ``-`` that is no flag of it
    (``search -quokkas``) is a word of that text, not an unknown option. ``check``
    says what is wrong with arguments that parse but do not go together (None: all
    is well), before any store is opened."""

    name: str
    summary: str
    arguments: tuple[Argument, ...]
    run: Handler
    text: bool = False
    check: Callable[[argparse.Namespace], str | None] | None = None


COMMANDS: dict[str, Command] = {}
"""Every command by name (``help`` lists them in :data:`arborist._commands.help.GUIDE`'s order)."""

ALIASES = {"providence": "record"}
"""Former names that still work, unlisted (``providence`` is the seed's name for ``record``)."""

OPENING_FLAGS = ("store_db", "sessions_db")
"""Flags that name the databases to open: the ``arborist`` command's, which opens the
stores for each command; a REPL or a notebook has its stores open already."""


SHELL_PREFIX = "arborist "
"""How the shell face writes a command; a shell forgets a desk's state when the command ends."""


@dataclass
class Desk:
    """One face's place in the forest: the facade, its session, its default model.

    ``prefix`` is how the face writes a command (``arborist ``, ``/`` or
    ``%arborist ``), so usage lines and errors name it as the user types it.
    ``sid`` is None until the first question makes the session (sessions.db never holds
    one without a turn): until then the new session is the desk's alone, ``new_label``
    the label ``session new --label`` gave it and ``under`` the turn ``cd`` chose for its
    first question (a bates number). ``label`` names a session the desk starts itself
    (or a function that says it then); ``track`` wraps ingest's (and embed's)
    work in a progress bar, ``embed_track`` embed's batches when the face has a bar of
    its own for them; ``each`` says whether ingest prints a line per document
    (a notebook ingesting the demo's 72 wants the sum). ``also`` lists in ``help``
    the commands only this face has (the REPL's ``quit``), and ``more_help`` ends it
    with what else the face does. ``stream`` writes an answer's text as it arrives
    (a terminal: ``columns`` its width, ``mark`` the gutter); ``stdin`` reads the
    standard input (``session --import -``), for the face that has one. ``opens``:
    this face opened the stores for this command, so ``--store-db`` and
    ``--sessions-db`` are its to honour. ``short``: a tree names its turns ``#12`` (the
    notebook's names, as its widget shows them), not ``000012``. ``note`` says one line
    beside the output (a shell's stderr: which session a command chose for it).
    """

    app: Arborist
    prefix: str = "%arborist "
    sid: str | None = None
    llm: str | None = None
    label: str | Callable[[], str] | None = None
    track: Track[Any] = field(default=untracked)
    embed_track: Track[Any] | None = None
    each: bool = True
    also: dict[str, str] = field(default_factory=dict)
    more_help: str = ""
    timeout: float | None = None
    retries: int | None = None
    stream: Callable[[str], None] | None = None
    columns: Callable[[], int | None] = lambda: None
    mark: str = "│ "
    stdin: Callable[[], BinaryIO] | None = None
    opens: bool = False
    short: bool = False
    new_label: str | None = None
    under: str | None = None
    note: Callable[[str], None] = lambda _line: None

    def session_label(self) -> str | None:
        """The label a session this desk starts gets: ``session new --label``'s, else the desk's
        (a notebook's name, known only once its kernel runs)."""
        if self.new_label is not None:
            return self.new_label
        return self.label() if callable(self.label) else self.label

    def start_new(self, label: str | None = None) -> None:
        """Work in a new session from now on, labelled ``label`` (default: the desk's
        own): it is made by its first question, with that question's turn."""
        self.sid, self.new_label, self.under = None, label, None

    def landed(self, sid: str) -> None:
        """The desk's first question made its session ``sid``: the desk works there now."""
        self.sid, self.new_label, self.under = sid, None, None

    def session_id(self, sid: str | None = None) -> str:
        """``sid`` if given, else the desk's session; at a shell, which keeps none, the latest
        (the one a turn was last added to or moved in), said in one line beside the output;
        one line when there is none yet."""
        if sid:
            return self.app.session(sid).sid
        if self.sid is not None:
            return self.sid
        if not self.opens:
            raise NotFound(
                "no session yet: it starts with the first question (or session resume SID)"
            )
        sessions = [session for session, _turns in self.app.sessions()]
        if not sessions:
            raise NotFound(f"no session yet: {self.prefix}ask QUESTION starts one")
        latest = max(sessions, key=lambda s: (s.updated_at, s.created_at, s.sid)).sid
        self.note(f"(session {latest}, the latest: --sid SID picks another)")
        return latest

    def reads_alone(self, ref: str | None, sid: str | None = None) -> bool:
        """Whether turn ``ref`` is read with no session (``sid`` not given): in a face with none
        yet, and at a shell when it is a bates number (a seq or label is the latest session's)."""
        alone = not sid and self.sid is None and bool(ref)
        return alone and (not self.opens or is_bates((ref or "").strip()))

    def run(self, words: Sequence[str]) -> Outcome:
        """Parse ``words`` (the line split like a shell's) and run the command they name."""
        shown = help_for(words, self.prefix)
        if shown is not None:
            return Outcome(shown)
        command, args = parse(words, self.prefix)
        assert args is not None  # help_for answered every --help
        return self.perform(command, args)

    def perform(self, command: Command, args: argparse.Namespace) -> Outcome:
        """Run ``command``; a full disk, an I/O error or input nested too deeply met while
        it runs is one :class:`~arborist._errors.ArboristError` line too
        (:func:`~arborist._errors.foreign`)."""
        for name in OPENING_FLAGS:
            if getattr(args, name, None) is not None and not self.opens:
                flag = "--" + name.replace("_", "-")
                refuse(
                    self,
                    command.name,
                    f"{flag} opens other stores: give it to the arborist "
                    "command (here the stores are open already)",
                )
        try:
            return command.run(self, args)
        except Exception as exc:
            translated = foreign(exc)
            if translated is None:
                raise
            raise translated from exc

    def command(self, words: Sequence[str]) -> tuple[Command, list[str]]:
        """The command ``words`` start with, and the words left for its parser."""
        return lookup(words, self.prefix)

    def help(self) -> str:
        """The list of commands, as this face writes them (see :func:`help_text`)."""
        return help_text(self.prefix, self.also, self.more_help)


def parse(words: Sequence[str], prefix: str) -> tuple[Command, argparse.Namespace | None]:
    """The command ``words`` name and its arguments (None: ``--help`` was asked for).

    A word that is not UTF-8 text (typed bytes, decoded escaped) is refused first."""
    for number, word in enumerate(words, 1):
        check_word(word, f"word {number}")
    command, rest = lookup(words, prefix)
    if _wants_help(rest):
        return command, None
    built = parser(command, prefix)
    if command.text:
        rest = _as_text(built, rest)
    args = built.parse_intermixed_args(rest)
    if command.text:
        _restore_text(args)
    wrong = command.check(args) if command.check else None
    if wrong:
        raise CommandUsage(f"{wrong}: {_usage(built)}")
    return command, args


def lookup(words: Sequence[str], prefix: str) -> tuple[Command, list[str]]:
    """The command ``words`` start with (``prefix``: how the face writes one), and the
    words left for its parser."""
    if not words:
        raise CommandUsage(f"no command: try {prefix}help")
    name, rest = ALIASES.get(words[0], words[0]), list(words[1:])
    actions = _actions(name)
    if actions and rest and rest[0] in actions:
        name, rest = f"{name} {rest[0]}", rest[1:]
    elif actions and (name not in COMMANDS or (rest and _mistyped(name, rest[0]))):
        hint = did_you_mean(rest[0], actions, f"{prefix}{name} ") if rest else None
        usage = f"usage: {prefix}{name} {'|'.join(actions)} ..."
        raise CommandUsage(f"{usage} ({hint})" if hint else usage)
    if name not in COMMANDS:
        hint = did_you_mean(name, names(), prefix) or f"try {prefix}help"
        raise CommandUsage(f"unknown command {prefix}{name}: {hint}")
    return COMMANDS[name], rest


def _actions(group: str) -> list[str]:
    """The second words of the commands ``group`` starts (``record``: list, show, falsify)."""
    return [c.split(" ", 1)[1] for c in COMMANDS if c.startswith(group + " ")]


def _mistyped(name: str, word: str) -> bool:
    """Whether ``word`` after ``name`` (a command with actions, ``session``) can only be a
    mistyped action: not a flag, and ``name`` itself takes no words."""
    takes = any(not a.option_strings for a in parser(COMMANDS[name], "")._actions)
    return not word.startswith("-") and not takes and did_you_mean(word, _actions(name)) is not None


def help_for(words: Sequence[str], prefix: str) -> str | None:
    """The help ``words`` ask for (``search --help``, ``help record``'s ``record -h``), or
    None when they ask for none: a command's flags, or a group's commands."""
    if not words or not _wants_help(words[1:]):
        return None
    name = ALIASES.get(words[0], words[0])
    actions = _actions(name)
    if actions and name not in COMMANDS and not (words[1:2] and words[1] in actions):
        return _group_help(name, actions, prefix)
    return parser(lookup(words, prefix)[0], prefix).format_help().rstrip()


def _group_help(name: str, actions: list[str], prefix: str) -> str:
    """What ``record --help`` shows: each of the group's commands, its usage and summary."""
    lines = [f"usage: {prefix}{name} {'|'.join(actions)} ...", ""]
    for action in actions:
        command = COMMANDS[f"{name} {action}"]
        lines += [_usage(parser(command, prefix)).removeprefix("usage: "), f"    {command.summary}"]
    return "\n".join([*lines, "", f"{prefix}{name} ACTION --help shows its flags"])


def help_text(prefix: str, also: dict[str, str] | None = None, more: str = "") -> str:
    """Every command, in the order a newcomer needs them, each with an example
    (:func:`arborist._commands.help.listing`); ``also``: the face's own commands, ``more``: a
    last line of what else it does."""
    return listing({name: c.summary for name, c in COMMANDS.items()}, prefix, also, more)


def names() -> list[str]:
    """The words a command line can start with (``session`` for ``session new``...)."""
    return list(dict.fromkeys(name.split(" ", 1)[0] for name in COMMANDS))


def flags(command: Command, prefix: str = SHELL_PREFIX) -> list[str]:
    """Every flag ``command`` takes (``--json``, ``--limit``...) in the face writing commands
    with ``prefix``, as its parser names them (a retired flag, which only says what replaced
    it, is not among them, nor, in a face whose stores are open, a flag that opens others)."""
    actions = [a for a in parser(command, prefix)._actions if a.help != argparse.SUPPRESS]
    return sorted(o for a in actions for o in a.option_strings)


# --- parsing -------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse whose every complaint is one :class:`CommandUsage` line; it never exits."""

    given: Sequence[str] = ()

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.given = list(args or ())
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        unknown = message.removeprefix("unrecognized arguments: ").split()
        if unknown and message.startswith("unrecognized") and unknown[0].startswith("--"):
            hint = did_you_mean(unknown[0].split("=", 1)[0], self._option_string_actions)
            message += f" ({hint})" if hint else ""
        dashed = [a for a in self.given if a[:1] == "-" and a not in self._option_string_actions]
        if dashed and message.startswith("the following arguments are required"):
            message += f" ({dashed[0]} was read as an option: put -- before it, -- {dashed[0]})"
        raise CommandUsage(f"{message}: {_usage(self)}")


class _Formatter(argparse.HelpFormatter):
    """A fixed width, so ``--help`` reads the same in every terminal and notebook."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=88, max_help_position=30)


def parser(command: Command, prefix: str) -> argparse.ArgumentParser:
    """``command``'s parser, its usage written the way the face writes commands."""
    built = _Parser(
        prog=prefix + command.name,
        description=command.summary,
        add_help=False,
        allow_abbrev=False,  # --lim is not --limit, in any face
        formatter_class=_Formatter,
    )
    for argument in command.arguments:
        argument(built)
    if prefix != SHELL_PREFIX:  # a face with its stores open never offers the flags that open them
        for action in built._actions:
            if action.dest in OPENING_FLAGS:
                action.help = argparse.SUPPRESS
    # Fixed now: argparse %-formats a usage it is given (and parse_intermixed_args gives
    # itself one), and the % of %arborist must then stay a %.
    built.usage = built.format_usage().removeprefix("usage: ").strip().replace("%", "%%")
    return built


def _usage(built: argparse.ArgumentParser) -> str:
    return " ".join(built.format_usage().split())


def _wants_help(words: Sequence[str]) -> bool:
    flags = words[: words.index("--")] if "--" in words else words
    return "-h" in flags or "--help" in flags


TEXT_MARK = "\x00"
"""Put before a word of free text that starts with ``-`` while argparse reads the line
(argparse would take it for an option), and taken off after: no typed word holds it."""

_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


def _as_text(built: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """``words`` with every ``-word`` that is no flag of ``built`` marked as text, and
    every word after ``--`` too (``search -- --json`` searches for "json"). An unknown
    ``--word`` before ``--`` stays a flag, which the parser refuses: it is a typo far
    more often than a word."""
    known = set(built._option_string_actions)
    out: list[str] = []
    rest = False
    for word in words:
        if rest or (
            word.startswith("-")
            and not word.startswith("--")  # an unknown --word is a mistyped flag: refused
            and word.split("=", 1)[0] not in known
            and not _NUMBER.match(word)
        ):
            out.append(TEXT_MARK + word)
        elif word == "--":
            rest = True
        else:
            out.append(word)
    return out


def _restore_text(args: argparse.Namespace) -> None:
    for name, value in vars(args).items():
        if isinstance(value, list):
            setattr(
                args, name, [v.removeprefix(TEXT_MARK) if isinstance(v, str) else v for v in value]
            )
        elif isinstance(value, str) and value.startswith(TEXT_MARK):
            raise CommandUsage(f"{value[1:]!r} is not a flag of this command")


def refuse(desk: Desk, name: str, message: str) -> NoReturn:
    """A usage error found after parsing (a combination argparse cannot express)."""
    raise CommandUsage(f"{message}: {_usage(parser(COMMANDS[name], desk.prefix))}")


def int_range(low: int, high: int | None) -> Callable[[str], int]:
    """A whole number from ``low`` to ``high`` (None: no top), as every face takes it."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bounds}")
        return value

    return parse


def seconds(text: str) -> float:
    """A number of seconds above 0 and at most a day (``--timeout``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError("must be above 0 and at most 86400 seconds")
    return value


def _checkpoint(text: str) -> Checkpoint:
    try:
        return Checkpoint.parse(text)
    except BadInput as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def arg(*names: str, **options: Any) -> Argument:
    """One argument, as ``add_argument`` takes it."""
    return lambda built: built.add_argument(*names, **options)


JSON = arg("--json", action="store_true", help="print the result as JSON")
LIMIT = arg(
    "--limit", type=int_range(1, 1000), default=None, metavar="N", help="at most N (default 10)"
)
CHECKPOINTS = arg(
    "--checkpoint",
    dest="checkpoints",
    action="append",
    default=[],
    type=_checkpoint,
    metavar="SEQ:HASH",
    help="a head printed earlier: the chain must still hold it (repeatable)",
)
SESSIONS_DB = arg(
    "--sessions-db", metavar="PATH", help="use this forest shard (the arborist command's)"
)
MODEL_FLAGS = (
    arg("--llm", metavar="NAME", help="extractive, stub, openai, qwen, hermes or a profile"),
    arg("--timeout", type=seconds, metavar="SECONDS", help="wait this long for a remote model"),
    arg("--retries", type=int_range(0, 1000), metavar="N", help="retries of a failed remote call"),
)
TURN = "a turn: bates, seq, label or root"
WORDS = "the words to find (a word starting with - is a word too)"
ANSWER = "an answer: a turn (bates, seq or label) or a cache key (8+ hex digits)"
DEFAULT_LIMIT = 10


def command(
    name: str,
    summary: str,
    *arguments: Argument,
    text: bool = False,
    check: Callable[[argparse.Namespace], str | None] | None = None,
) -> Callable[[Handler], Handler]:
    """Register the decorated handler as the command ``name`` (see :class:`Command`)."""

    def register(run: Handler) -> Handler:
        COMMANDS[name] = Command(name, summary, arguments, run, text, check)
        return run

    return register


def either(args: argparse.Namespace, text: Callable[[], str], data: Callable[[], Any]) -> Outcome:
    """The text view, or with ``--json`` the data as JSON."""
    if args.json:
        return Outcome(json=json.dumps(data(), indent=2, ensure_ascii=False))
    return Outcome(text())


def shown(
    args: argparse.Namespace, text: Callable[[], str], data: Callable[[], Any], **did: Any
) -> Outcome:
    """:func:`either`, with what the command did (``changed=True``, ``failed=...``)."""
    out = either(args, text, data)
    return Outcome(out.text, out.json, **did)


def is_key(ref: str) -> bool:
    """Whether ``ref`` reads as a cache key or a prefix of one (8+ hex, not all digits)."""
    return len(ref) >= 8 and all(c in "0123456789abcdef" for c in ref.lower()) and not ref.isdigit()


def answer_key(desk: Desk, ref: str) -> str:
    """The cache key (or key prefix) of the answer ``ref`` names (see :data:`ANSWER`)."""
    if is_key(ref):
        return ref
    node = desk.app.node(ref, None if desk.reads_alone(ref) else desk.session_id())
    return desk.app.resolve_answer(node.bates).cache_key
