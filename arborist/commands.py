"""The commands ``%arborist`` and the REPL share: one parser each, with the CLI's flags.

``%arborist search Ditko --limit 3 --json`` in a notebook and ``/search Ditko
--limit 3 --json`` in the REPL are one command: the same parser (argparse,
flags in any order, named as the ``arborist`` command names them), the same
call on the facade, the same rendering from :mod:`arborist.views`. A face
splits its line into words, hands them to :meth:`Desk.run`, and shows the
:class:`Outcome` its own way (printed inert, or kept as a cell's value), then
applies what it says happened (a move, a change a widget should show).

Every complaint is one line (:class:`CommandUsage`, a
:class:`~arborist.errors.BadInput`), never an exit: a kernel and a REPL keep
running after a typo. No face lives here (no Jupyter, no terminal); the only
files touched besides the stores are the ones a command names
(``export --out FILE``, ``import FILE``, ``verify --witness NOTEBOOK``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NoReturn, TypeVar

from arborist import views
from arborist.app import Arborist, Track
from arborist.audit import Checkpoint
from arborist.errors import BadInput, NotFound, foreign
from arborist.qa.check import check_record
from arborist.safejson import UnreadableJSON, check_word, decode
from arborist.safejson import loads as safe_loads
from arborist.store.derive import DERIVATION_KINDS
from arborist.terminal import inert_json
from arborist.witness import witness_checkpoints

__all__ = [
    "ALIASES",
    "COMMANDS",
    "Command",
    "CommandUsage",
    "Desk",
    "Outcome",
    "document_ref",
    "import_lines",
    "names",
    "parser",
]

T = TypeVar("T")
Argument = Callable[[argparse.ArgumentParser], object]
"""Adds one argument to a command's parser."""


class CommandUsage(BadInput):
    """A command line that does not parse: one line, ending with the command's usage."""


@dataclass(frozen=True)
class Outcome:
    """What a command shows, and what it did that a face may have to act on.

    ``text`` is not yet inert and ``json`` not yet :func:`~arborist.terminal.inert_json`:
    the face makes them so as it shows them. ``failed`` is a check that did not
    hold (a broken chain, a problem ``verify`` found), reported as an error after
    the text. ``moved``: the session's current turn moved (a notebook's next
    ``%%ask`` lands there). ``changed``: the forest or the store changed (a
    widget shows it again). ``keep``: the JSON is a document (an export), which a
    notebook cell returns as its value instead of only printing it.
    """

    text: str = ""
    json: str | None = None
    failed: str | None = None
    moved: bool = False
    changed: bool = False
    keep: bool = False


Handler = Callable[["Desk", argparse.Namespace], Outcome]


@dataclass(frozen=True)
class Command:
    """One command: its name (two words for ``session new`` and the like), a one-line
    summary, the arguments its parser takes, and what it does."""

    name: str
    summary: str
    arguments: tuple[Argument, ...]
    run: Handler


HELP_COLUMN = 28
"""Where ``help`` starts a command's summary (a longer synopsis is a line of its own)."""

COMMANDS: dict[str, Command] = {}
"""Every command by name, in the order ``help`` lists them."""


def _untracked(items: Iterable[T]) -> Iterable[T]:
    return items


@dataclass
class Desk:
    """One face's place in the forest: the facade, its session, its default model.

    ``prefix`` is how the face writes a command (``%arborist `` or ``/``), so
    usage lines and errors name it as the user types it. ``label`` names a
    session the desk starts itself (or a function that says it then); ``track`` wraps ingest's work in a
    progress bar; ``each`` says whether ingest prints a line per document
    (a notebook ingesting the demo's 72 wants the sum). ``also`` lists in
    ``help`` the commands only this face has (the REPL's ``quit``), and
    ``more_help`` ends it with what else the face does.
    """

    app: Arborist
    prefix: str = "%arborist "
    sid: str | None = None
    llm: str | None = None
    label: str | Callable[[], str] | None = None
    track: Track[Any] = field(default=_untracked)
    each: bool = True
    also: dict[str, str] = field(default_factory=dict)
    more_help: str = ""

    def session(self) -> str:
        """This face's session, started on first use."""
        if self.sid is None:
            self.sid = self.app.new_session(self.session_label()).sid
        return self.sid

    def session_label(self) -> str | None:
        """The label a session this desk starts gets (a face may work it out late: a
        notebook's name is known only once its kernel runs)."""
        return self.label() if callable(self.label) else self.label

    def run(self, words: Sequence[str]) -> Outcome:
        """Parse ``words`` (the line split like a shell's) and run the command they name.

        A word that is not UTF-8 text (typed bytes, decoded escaped) is refused first; a
        full disk, an I/O error or input nested too deeply met while it runs is one
        :class:`~arborist.errors.ArboristError` line too (:func:`~arborist.errors.foreign`).
        """
        for number, word in enumerate(words, 1):
            check_word(word, f"word {number}")
        command, rest = self.command(words)
        found = parser(command, self.prefix)
        if _wants_help(rest):
            return Outcome(found.format_help().rstrip())
        args = found.parse_intermixed_args(rest)
        try:
            return command.run(self, args)
        except Exception as exc:
            translated = foreign(exc)
            if translated is None:
                raise
            raise translated from exc

    def command(self, words: Sequence[str]) -> tuple[Command, list[str]]:
        """The command ``words`` start with, and the words left for its parser."""
        if not words:
            raise CommandUsage(f"no command: try {self.prefix}help")
        name, rest = ALIASES.get(words[0], words[0]), list(words[1:])
        actions = [c.split(" ", 1)[1] for c in COMMANDS if c.startswith(name + " ")]
        if actions:
            if not rest or rest[0] not in actions:
                raise CommandUsage(f"usage: {self.prefix}{name} {'|'.join(actions)} ...")
            name, rest = f"{name} {rest[0]}", rest[1:]
        if name not in COMMANDS:
            raise CommandUsage(f"unknown command {self.prefix}{name}: try {self.prefix}help")
        return COMMANDS[name], rest

    def help(self) -> str:
        """One line per command (a long synopsis gets its own), then how to see its flags."""
        listed = {_synopsis(c): c.summary for c in COMMANDS.values()} | self.also
        width = min(max(len(name) for name in listed), HELP_COLUMN)
        lines = [
            f"{self.prefix}{name:<{width}}  {summary}"
            if len(name) <= width
            else f"{self.prefix}{name}\n{' ' * (len(self.prefix) + width)}  {summary}"
            for name, summary in listed.items()
        ]
        lines.append(
            f"{self.prefix}COMMAND --help shows its flags: the arborist command's, in any order"
        )
        return "\n".join([*lines, *([self.more_help] if self.more_help else [])])


ALIASES = {"providence": "record"}
"""Former names that still work, unlisted (``providence`` is the seed's name for ``record``)."""


def names() -> list[str]:
    """The words a command line can start with (``session`` for ``session new``...)."""
    return list(dict.fromkeys(name.split(" ", 1)[0] for name in COMMANDS))


# --- parsing -------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse whose every complaint is one :class:`CommandUsage` line; it never exits."""

    def error(self, message: str) -> NoReturn:
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
        allow_abbrev=False,  # --lim is not --limit, as at the CLI
        formatter_class=_Formatter,
    )
    for argument in command.arguments:
        argument(built)
    # Fixed now: argparse %-formats a usage it is given (and parse_intermixed_args gives
    # itself one), and the % of %arborist must then stay a %.
    built.usage = built.format_usage().removeprefix("usage: ").strip().replace("%", "%%")
    return built


def _usage(built: argparse.ArgumentParser) -> str:
    return " ".join(built.format_usage().split())


def _synopsis(command: Command) -> str:
    """The command, its positional arguments and required flags, for ``help``'s list (the
    other flags: ``--help``)."""
    shapes = {None: "{}", "?": "[{}]", "*": "[{}...]", "+": "{}..."}
    actions = parser(command, "")._actions
    words = [
        shapes[a.nargs].format(a.metavar)
        for a in actions
        if not a.option_strings and a.nargs in shapes
    ]
    words += [
        f"{a.option_strings[0]} {a.metavar}" for a in actions if a.required and a.option_strings
    ]
    return " ".join([command.name, *words])


def _wants_help(words: Sequence[str]) -> bool:
    flags = words[: words.index("--")] if "--" in words else words
    return "-h" in flags or "--help" in flags


def _refuse(desk: Desk, name: str, message: str) -> NoReturn:
    """A usage error found after parsing (a combination argparse cannot express)."""
    raise CommandUsage(f"{message}: {_usage(parser(COMMANDS[name], desk.prefix))}")


def _int_range(low: int, high: int | None) -> Callable[[str], int]:
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


def _checkpoint(text: str) -> Checkpoint:
    try:
        return Checkpoint.parse(text)
    except BadInput as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _arg(*names: str, **options: Any) -> Argument:
    return lambda built: built.add_argument(*names, **options)


JSON = _arg("--json", action="store_true", help="print the JSON the arborist command prints")
LIMIT = _arg(
    "--limit", type=_int_range(1, 1000), default=10, metavar="N", help="at most N (default 10)"
)
CHECKPOINTS = _arg(
    "--checkpoint",
    dest="checkpoints",
    action="append",
    default=[],
    type=_checkpoint,
    metavar="SEQ:HASH",
    help="a head printed earlier: the chain must still hold it (repeatable)",
)
STATE = _arg(
    "--state",
    required=True,
    choices=["failed", "stale", "quarantined"],
    metavar="STATE",
    help="failed, stale or quarantined",
)
REASON = _arg("--reason", required=True, metavar="TEXT", help="why: kept with the record")
TURN = "a turn: bates, seq, label or root"
WORDS = "the words to find"
MODELS = "extractive, stub, openai or a profile in config.toml"
ANSWER = "an answer: a turn (bates, seq or label) or a cache key (8+ hex digits)"


def _command(name: str, summary: str, *arguments: Argument) -> Callable[[Handler], Handler]:
    def register(run: Handler) -> Handler:
        COMMANDS[name] = Command(name, summary, arguments, run)
        return run

    return register


def _either(args: argparse.Namespace, text: Callable[[], str], data: Callable[[], Any]) -> Outcome:
    """The text view, or with ``--json`` the data as the CLI prints it."""
    if args.json:
        return Outcome(json=json.dumps(data(), indent=2, ensure_ascii=False))
    return Outcome(text())


def _is_key(ref: str) -> bool:
    return len(ref) >= 8 and all(c in "0123456789abcdef" for c in ref.lower()) and not ref.isdigit()


def _key(desk: Desk, ref: str) -> str:
    """The cache key (or key prefix) of the answer ``ref`` names (see :data:`ANSWER`)."""
    if _is_key(ref):
        return ref
    return desk.app.resolve_answer(desk.app.node(ref, desk.session()).bates).cache_key


# --- the forest ----------------------------------------------------------------------------------


@_command(
    "help",
    "the commands, or one command's flags",
    _arg("topic", nargs="*", metavar="COMMAND", help="show this command's flags"),
)
def _help(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.topic:
        command, _ = desk.command(args.topic)
        return Outcome(parser(command, desk.prefix).format_help().rstrip())
    return Outcome(desk.help())


@_command("session new", "start a session", _arg("--label", help="the new session's label"))
def _session_new(desk: Desk, args: argparse.Namespace) -> Outcome:
    desk.sid = desk.app.new_session(args.label or desk.session_label()).sid
    return Outcome(f"session {desk.sid}", changed=True)


@_command(
    "session resume", "work in an existing session", _arg("sid", metavar="SID", help="its id")
)
def _session_resume(desk: Desk, args: argparse.Namespace) -> Outcome:
    desk.sid = desk.app.session(args.sid).sid
    return Outcome(f"session {desk.sid}", changed=True)


@_command("session list", "every session", JSON)
def _session_list(desk: Desk, args: argparse.Namespace) -> Outcome:
    sessions = desk.app.sessions()
    return _either(
        args, lambda: views.sessions_text(sessions), lambda: views.sessions_json(sessions)
    )


@_command("tree", "this session's tree", _arg("--sid", help="another session's tree"))
def _tree(desk: Desk, args: argparse.Namespace) -> Outcome:
    return Outcome(desk.app.tree(args.sid or desk.session()))


@_command("branches", "branch points (two or more children) of this session")
def _branches(desk: Desk, _args: argparse.Namespace) -> Outcome:
    session = desk.app.session(desk.session())
    points = desk.app.branches(session.sid)
    return Outcome(views.branches_text(points, session, desk.app.audit_now))


@_command(
    "find",
    "search every session's turns",
    _arg("query", nargs="+", metavar="QUERY", help=WORDS),
    LIMIT,
    JSON,
)
def _find(desk: Desk, args: argparse.Namespace) -> Outcome:
    app = desk.app
    hits = app.find(" ".join(args.query), limit=args.limit)
    return _either(
        args,
        lambda: views.find_text(hits, app.audit_now),
        lambda: views.find_json(hits, app.audit_now),
    )


@_command(
    "cd",
    "move to a turn (any session): the next question lands under it",
    _arg("ref", metavar="REF", help=TURN),
)
def _cd(desk: Desk, args: argparse.Namespace) -> Outcome:
    return Outcome(views.moved_text(desk.app.cd(desk.session(), args.ref)), moved=True)


@_command("back", "move to the parent of the current turn")
def _back(desk: Desk, _args: argparse.Namespace) -> Outcome:
    return Outcome(views.moved_text(desk.app.back(desk.session())), moved=True)


@_command(
    "label",
    "name the current turn",
    _arg("name", nargs="+", metavar="NAME", help="the label (words joined)"),
)
def _label(desk: Desk, args: argparse.Namespace) -> Outcome:
    node = desk.app.label(desk.session(), " ".join(args.name))
    return Outcome(views.labelled_text(node), changed=True)


@_command(
    "show",
    "a stored turn (default: the current one)",
    _arg("ref", nargs="?", metavar="REF", help=TURN),
)
def _show(desk: Desk, args: argparse.Namespace) -> Outcome:
    app, sid = desk.app, desk.session()
    node = app.node(args.ref, sid) if args.ref else app.node(app.session(sid).current_bates)
    return Outcome(views.node_text(node, app.audit_now))


@_command("sid", "this session's id")
def _sid(desk: Desk, _args: argparse.Namespace) -> Outcome:
    return Outcome(desk.session())


@_command("root", "this session's root: its bates and its subtree hash (the session_root)")
def _root(desk: Desk, _args: argparse.Namespace) -> Outcome:
    """The session's root turn and the hash that commits every turn below it (a checkpoint
    of the tree as it is: any turn added, edited or removed changes it)."""
    session = desk.app.session(desk.session())
    root = desk.app.node(session.root_bates)
    return Outcome(f"{session.root_bates}\nsession_root {root.subtree_hash}")


@_command(
    "export",
    "a session as JSON Lines (session --export)",
    _arg("sid", nargs="?", metavar="SID", help="the session (default: this one)"),
    _arg("--out", metavar="FILE", help="write the lines to FILE instead of showing them"),
)
def _export(desk: Desk, args: argparse.Namespace) -> Outcome:
    sid = args.sid or desk.session()
    records = desk.app.export_session(sid)
    text = views.export_jsonl(records)
    if args.out is None:
        return Outcome(json=text, keep=True)
    try:  # the bytes `arborist session --export SID > FILE` writes
        Path(args.out).write_text(inert_json(text) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot write {args.out}: {exc.strerror or exc}") from None
    return Outcome(
        f"exported session {sid} ({len(records) - 1} node(s)) to {views.field(args.out)}"
    )


@_command(
    "import",
    "sessions from JSON Lines, hashes re-proved (session --import)",
    _arg("file", metavar="FILE", help="written by export --out or session --export"),
)
def _import(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.file == "-":
        _refuse(desk, "import", "'-' (standard input) is for the arborist command: give a file")
    try:
        with open(args.file, "rb") as file:
            read = import_lines(file, args.file)
    except OSError as exc:
        raise BadInput(f"cannot read {args.file}: {exc.strerror or exc}") from None
    return Outcome(views.import_text(desk.app.import_sessions(read)), changed=True)


def import_lines(file: BinaryIO, name: str | None = None) -> list[str]:
    """The lines of an export file (``--import FILE``, ``import FILE``), read as bytes and
    checked here: a file that is not UTF-8, or a line nested deeper than
    :data:`~arborist.safejson.MAX_DEPTH` or holding a number Python will not read, is one
    line naming the file (and the line) before anything is parsed or written."""
    where = name or getattr(file, "name", None) or "the import file"
    if where in ("-", "<stdin>"):
        where = "standard input"
    text = decode(file.read(), str(where))
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines, 1):
        try:
            safe_loads(line)
        except UnreadableJSON as exc:  # too deep, or a number Python will not read
            raise BadInput(f"{where}: line {number}: {exc.msg}") from None
        except ValueError:
            pass  # not JSON: the import says so, naming the line
    return lines


# --- documents -----------------------------------------------------------------------------------


@_command(
    "ingest",
    "ingest files, folders and http(s) URLs, or --demo",
    _arg("sources", nargs="*", metavar="SOURCE", help="files, folders and http(s) URLs"),
    _arg(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only files matching GLOB (repeatable)",
    ),
    _arg(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip files matching GLOB (repeatable)",
    ),
    _arg("--demo", action="store_true", help="the built-in corpus (the stdlib's pydoc text)"),
    _arg(
        "--follow-symlinks",
        action="store_true",
        help="let a folder walk follow symbolic links out of the folder",
    ),
    JSON,
)
def _ingest(desk: Desk, args: argparse.Namespace) -> Outcome:
    if not args.sources and not args.demo:
        _refuse(desk, "ingest", "give files, folders or URLs to ingest, or --demo")
    app = desk.app
    results = app.ingest_demo(track=desk.track) if args.demo else []
    if args.sources:
        results += app.ingest(
            args.sources,
            include=args.include,
            exclude=args.exclude,
            track=desk.track,
            follow_symlinks=args.follow_symlinks,
        )
    shown = _either(
        args,
        lambda: views.ingest_text(results, each=desk.each),
        lambda: [views.ingest_json(r) for r in results],
    )
    return Outcome(shown.text, shown.json, changed=True)


@_command("embed", "embed the chunks that have no vector under the configured model", JSON)
def _embed(desk: Desk, args: argparse.Namespace) -> Outcome:
    report = desk.app.embed(track=desk.track)
    profile = desk.app.embedder_profile()
    shown = _either(
        args,
        lambda: views.embed_text(report, profile),
        lambda: views.embed_json(report, profile),
    )
    return Outcome(shown.text, shown.json, changed=True)


@_command(
    "search",
    "search the documents",
    _arg("query", nargs="+", metavar="QUERY", help=WORDS),
    LIMIT,
    JSON,
)
def _search(desk: Desk, args: argparse.Namespace) -> Outcome:
    hits = desk.app.search(" ".join(args.query), limit=args.limit)
    return _either(args, lambda: views.search_text(hits), lambda: views.search_json(hits))


@_command(
    "related",
    "sources co-accessed with a chunk, a document or a turn",
    _arg("ref", metavar="REF", help="a chunk's leaf hash, a document, or a turn's bates"),
    LIMIT,
    JSON,
)
def _related(desk: Desk, args: argparse.Namespace) -> Outcome:
    found = desk.app.related(args.ref, limit=args.limit)
    return _either(args, lambda: views.related_text(found), found.as_json)


@_command(
    "evict",
    "move a document to a colder tier",
    _arg("document", metavar="DOCUMENT", help="id, URI, path or source_root prefix"),
    _arg(
        "--tier",
        required=True,
        choices=["warm", "cold"],
        metavar="TIER",
        help="warm: compressed, out of the index; cold: only leaf hashes and the URI remain",
    ),
)
def _evict(desk: Desk, args: argparse.Namespace) -> Outcome:
    change = desk.app.evict(document_ref(args.document), args.tier)
    return Outcome(views.evicted_text(change, args.tier), changed=True)


@_command(
    "rehydrate",
    "bring a document back to hot, every leaf re-proved",
    _arg("document", metavar="DOCUMENT", help="id, URI, path or source_root prefix"),
)
def _rehydrate(desk: Desk, args: argparse.Namespace) -> Outcome:
    return Outcome(
        views.rehydrated_text(desk.app.rehydrate(document_ref(args.document))), changed=True
    )


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


@_command(
    "derive",
    "save a core record derived from an answer's cited evidence",
    _arg(
        "kind",
        choices=list(DERIVATION_KINDS),
        metavar="KIND",
        help="snippet, equation, summary or haiku",
    ),
    _arg("--from", dest="source", required=True, metavar="REF", help=ANSWER),
    _arg("--text", help="the derived text (a snippet defaults to the cited spans)"),
)
def _derive(desk: Desk, args: argparse.Namespace) -> Outcome:
    derivation = desk.app.derive(args.kind, _key(desk, args.source), args.text)
    return Outcome(views.derived_text(args.kind, derivation), changed=True)


# --- answers -------------------------------------------------------------------------------------


@_command(
    "record list",
    "cached answers (records), newest first",
    _arg("--limit", type=_int_range(1, None), default=None, metavar="N", help="at most N"),
    JSON,
)
def _record_list(desk: Desk, args: argparse.Namespace) -> Outcome:
    records = [(r, bool(check_record(r))) for r in desk.app.records(limit=args.limit)]
    return _either(args, lambda: views.records_text(records), lambda: views.records_json(records))


@_command(
    "record show",
    "a record whole, and the mode it can claim now",
    _arg("key", metavar="KEY", help=ANSWER),
    _arg("--revision", type=_int_range(1, None), default=None, metavar="N", help="this revision"),
    JSON,
)
def _record_show(desk: Desk, args: argparse.Namespace) -> Outcome:
    record = desk.app.record(_key(desk, args.key), revision=args.revision)
    check = check_record(record)  # the store as it is now: never a label it no longer earns
    return _either(
        args, lambda: views.record_text(record, check), lambda: views.record_json(record, check)
    )


def _falsify(desk: Desk, args: argparse.Namespace) -> Outcome:
    record = desk.app.falsify(_key(desk, args.key), args.state, args.reason)
    return Outcome(views.falsified_text(record), changed=True)


for _name, _summary in (
    ("record falsify", "take a record out of service"),
    ("falsify", "take a turn's answer out of service (record falsify)"),
):
    _command(_name, _summary, _arg("key", metavar="REF", help=ANSWER), STATE, REASON)(_falsify)


@_command(
    "llm", "show or set the default model", _arg("name", nargs="?", metavar="NAME", help=MODELS)
)
def _llm(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.name is not None:
        desk.app.client(args.name)  # fail now, with one line, if the name is unknown
        desk.llm = args.name
    return Outcome(f"model: {desk.llm or 'default (' + desk.app.client(None).name + ')'}")


# --- checks and figures --------------------------------------------------------------------------


@_command(
    "verify",
    "recompute every hash and proof; check both chains",
    CHECKPOINTS,
    _arg(
        "--witness",
        dest="witnesses",
        action="append",
        default=[],
        metavar="NOTEBOOK",
        help="a saved notebook whose %%%%ask outputs recorded checkpoints (repeatable)",
    ),
)
def _verify(desk: Desk, args: argparse.Namespace) -> Outcome:
    checkpoints = list(args.checkpoints)
    for notebook in args.witnesses:
        checkpoints += witness_checkpoints(notebook)
    result = desk.app.verify(checkpoints)
    failed = f"verify found {len(result.problems)} problem(s) (see above)"
    return Outcome(
        views.verification_text(result, len(checkpoints)),
        failed=failed if result.problems else None,
    )


@_command("chain-check", "check both audit chains; print each head", CHECKPOINTS, JSON)
def _chain_check(desk: Desk, args: argparse.Namespace) -> Outcome:
    result = desk.app.chain_check(args.checkpoints)
    shown = _either(
        args, lambda: views.chain_check_text(result), lambda: views.chain_check_json(result)
    )
    failed = None if result.ok else "an audit chain is broken (see above)"
    return Outcome(shown.text, shown.json, failed=failed)


@_command("stats", "documents, chunks, cached answers, sizes", JSON)
def _stats(desk: Desk, args: argparse.Namespace) -> Outcome:
    data = desk.app.stats()
    return _either(args, lambda: views.stats_text(data), lambda: data)
