"""The forest's commands: sessions, the tree, moving, labels, export and import.

Registered into :data:`arborist._commands.COMMANDS` (see that module). A session
is created when its first turn is (an ask), never before: ``session new`` (and
``session --label`` in a running face) makes the face wait for a new one, ``cd``
before it exists chooses the turn its first question is asked under, and until
then the new session is the face's alone (``session list`` shows it on a line of
its own, ``(new, no turns yet)``; sessions.db holds nothing of it). Only showing
the forest widget, whose tree needs a root, makes one without a turn.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from arborist._bundles.export import BUNDLE_START
from arborist._bundles.page import bundle_page
from arborist._commands.desk import (
    JSON,
    LIMIT,
    MODEL_FLAGS,
    SESSIONS_DB,
    TURN,
    WORDS,
    CommandUsage,
    Desk,
    Outcome,
    arg,
    command,
    either,
    help_for,
    refuse,
    shown,
)
from arborist._errors import BadInput
from arborist._forest.nodes import Node, Session
from arborist._private import write_private_text
from arborist._qa.support import audit_key
from arborist._safejson import UnreadableJSON, decode
from arborist._safejson import loads as safe_loads
from arborist._text.terminal import inert_json
from arborist._views import common as views_common
from arborist._views import forest as views_forest
from arborist._views import results as views

__all__ = ["SESSION_MODES", "import_lines", "node_json"]


def node_json(desk: Desk, node: Node) -> dict[str, Any]:
    """A turn as JSON: its fields, the mode it can claim now, and its facts as every face
    shows them (:mod:`arborist._facts`, under ``facts``): ``show``, ``tree``, ``find``,
    ``branches`` and ``label`` rows alike."""
    return {
        **views_forest.turn_json(node, desk.app.audit_now(node)),
        "facts": desk.app.facts(node).as_json(),
    }


@command(
    "help",
    "the commands, or one command's flags",
    arg("topic", nargs="*", metavar="COMMAND", help="show this command's flags"),
)
def _help(desk: Desk, args: argparse.Namespace) -> Outcome:
    shown = help_for([*args.topic, "--help"], desk.prefix) if args.topic else None
    return Outcome(shown or desk.help())


# --- sessions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Mode:
    flag: str
    run: Any
    takes: tuple[str, ...]


def _given(args: argparse.Namespace, name: str) -> bool:
    value = getattr(args, name)
    return value not in (None, False, [])


def _session_check(args: argparse.Namespace) -> str | None:
    """What does not go together in ``session``'s flags: two actions, or a flag the chosen
    one (or starting a session) does not take: none is ever silently ignored."""
    chosen = [mode for mode in SESSION_MODES if _given(args, mode)]
    if len(chosen) > 1:
        return "choose one of " + ", ".join(SESSION_MODES[m].flag for m in chosen)
    if not chosen and args.sid and args.label is not None:
        return "--label names a new session: not with --sid, which resumes one"
    mode = SESSION_MODES[chosen[0]] if chosen else _START
    extra = [name for name in _SESSION_OPTIONS if name not in mode.takes and _given(args, name)]
    return f"--{extra[0].replace('_', '-')} does not go with {mode.flag}" if extra else None


@command(
    "session",
    "work in a new session (or --sid's), or one of the actions --list, --tree, --find, "
    "--chain-check, --export, --import",
    arg("--sid", help="resume this session (or the one --tree names)"),
    arg("--label", help="the new session's label"),
    *MODEL_FLAGS,
    arg("--list", dest="list_", action="store_true", help="every session (session list)"),
    arg("--tree", action="store_true", help="the tree of --sid (tree)"),
    arg("--find", dest="query", metavar="QUERY", help="search every session's turns (find)"),
    LIMIT,
    arg("--chain-check", dest="chain", action="store_true", help="the shard's audit chain"),
    arg("--export", dest="export_sid", metavar="SID", help="a session as JSON Lines (export)"),
    arg("--import", dest="import_file", metavar="FILE", help="sessions from JSON Lines (import)"),
    SESSIONS_DB,
    JSON,
    check=_session_check,
)
def _session(desk: Desk, args: argparse.Namespace) -> Outcome:
    chosen = [mode for mode in SESSION_MODES if _given(args, mode)]
    result: Outcome = (SESSION_MODES[chosen[0]] if chosen else _START).run(desk, args)
    return result


_SESSION_OPTIONS = ("sid", "label", "llm", "timeout", "retries", "limit", "json")


def _start(desk: Desk, args: argparse.Namespace) -> Outcome:
    """``session [--sid SID] [--label NAME] [--llm NAME]``: the session to work in (the
    CLI opens its REPL there); a new one is made by its first question."""
    if not desk.opens and not any(_given(args, name) for name in _START.takes):
        # "open a REPL in a new session" is the shell's: here a session is open already
        raise CommandUsage(
            f"usage: {desk.prefix}session new|resume|list ..., or {desk.prefix}session "
            "--list|--tree|--find|--chain-check|--export|--import|--sid|--label ..."
        )
    if args.llm is not None:
        from arborist._commands.answers import check_model  # noqa: PLC0415 - registered after

        check_model(desk.app, args.llm, timeout=args.timeout, retries=args.retries)
        desk.llm = args.llm
    desk.timeout = args.timeout if args.timeout is not None else desk.timeout
    desk.retries = args.retries if args.retries is not None else desk.retries
    if args.sid:
        desk.sid = desk.app.session(args.sid).sid
        return Outcome(f"session {desk.sid}", changed=True, enter=True)
    return _new(desk, args.label)  # the REPL opens (or goes on) in it


def _new(desk: Desk, label: str | None) -> Outcome:
    """A new session, made by its first question: the REPL the ``arborist`` command opens
    starts in it; a running face works in it from now on."""
    desk.start_new(label)
    return Outcome(_waiting(desk), enter=True)


def _waiting(desk: Desk) -> str:
    """What a face says of the new session it waits to make."""
    label = desk.session_label()
    return f"a new session{f' {label!r}' if label else ''}: it starts with the first question"


def _tree_mode(desk: Desk, args: argparse.Namespace) -> Outcome:
    """``session --tree``: ``tree`` (at a shell without --sid, the latest session's)."""
    return _tree(desk, args)


def _chain_mode(desk: Desk, args: argparse.Namespace) -> Outcome:
    result = desk.app.chain_check((), databases=("sessions",))
    failed = None if result.ok else "the shard's audit chain is broken (see above)"
    return shown(
        args,
        lambda: views.chain_check_text(result),
        lambda: views.chain_check_json(result),
        failed=failed,
    )


def _export_mode(desk: Desk, args: argparse.Namespace) -> Outcome:
    return Outcome(
        json=views_forest.export_jsonl(desk.app.export_session(args.export_sid)), keep=True
    )


def _import_mode(desk: Desk, args: argparse.Namespace) -> Outcome:
    return _import_from(desk, args.import_file, "session", args)


def _find_mode(desk: Desk, args: argparse.Namespace) -> Outcome:
    return _found(desk, args, args.query)


@command(
    "session new",
    "work in a new session, made by its first question",
    arg("--label", help="the new session's label"),
)
def _session_new(desk: Desk, args: argparse.Namespace) -> Outcome:
    """The face's next ask starts a session (a notebook's next ask does not continue the
    one it had); at a shell, the REPL opens in it (``session --label``)."""
    return _new(desk, args.label)


@command("session resume", "work in an existing session", arg("sid", metavar="SID", help="its id"))
def _session_resume(desk: Desk, args: argparse.Namespace) -> Outcome:
    desk.sid = desk.app.session(args.sid).sid
    return Outcome(f"session {desk.sid}", changed=True)


@command("session list", "every session (session --list)", JSON)
def _session_list(desk: Desk, args: argparse.Namespace) -> Outcome:
    sessions = desk.app.sessions()
    return either(
        args, lambda: _sessions_text(desk, sessions), lambda: views_forest.sessions_json(sessions)
    )


def _sessions_text(desk: Desk, sessions: list[tuple[Session, int]]) -> str:
    """Every session of the forest, then the one this face waits to make, if it does (the
    JSON is the forest's alone: a session without a sid is not one of its rows)."""
    listed = views_forest.sessions_text(sessions)
    if desk.sid is not None or desk.opens:
        return listed
    label = desk.session_label()
    return f"{listed}\n(new, no turns yet)  {views_common.field(label) if label else ''}".rstrip()


_START = _Mode("starting a session", _start, ("sid", "label", "llm", "timeout", "retries"))
SESSION_MODES = {
    "list_": _Mode("--list", _session_list, ("json",)),
    "tree": _Mode("--tree", _tree_mode, ("sid", "json")),
    "query": _Mode("--find", _find_mode, ("limit", "json")),
    "chain": _Mode("--chain-check", _chain_mode, ("json",)),
    "export_sid": _Mode("--export", _export_mode, ()),
    "import_file": _Mode("--import", _import_mode, ("json",)),
}
"""``session``'s actions (the seeds' forms), by their flag's name; each also a command."""


# --- the tree ------------------------------------------------------------------------------------


SID = arg("--sid", help="another session (default: this one; at a shell, the latest)")


@command("tree", "this session's tree (session --tree)", SID, JSON)
def _tree(desk: Desk, args: argparse.Namespace) -> Outcome:
    sid = desk.session_id(args.sid)

    def data() -> dict[str, Any]:
        session = desk.app.session(sid)
        turns = [r["bates"] for r in desk.app.export_session(sid) if r.get("type") == "node"]
        return {
            "sid": sid,
            "label": session.label,
            "root_bates": session.root_bates,
            "current_bates": session.current_bates,
            "turns": [node_json(desk, desk.app.node(bates)) for bates in turns],
        }

    return either(args, lambda: desk.app.tree(sid, short=desk.short), data)


@command("branches", "branch points (two or more children) of this session", SID, JSON)
def _branches(desk: Desk, args: argparse.Namespace) -> Outcome:
    session = desk.app.session(desk.session_id(args.sid))
    points = desk.app.branches(session.sid)
    return either(
        args,
        lambda: views_forest.branches_text(points, session, desk.app.audit_now),
        lambda: [{"children": n, **node_json(desk, node)} for node, n in points],
    )


@command(
    "find",
    "search every session's turns (session --find)",
    arg("query", nargs="+", metavar="QUERY", help=WORDS),
    LIMIT,
    JSON,
    text=True,
)
def _find(desk: Desk, args: argparse.Namespace) -> Outcome:
    return _found(desk, args, " ".join(args.query))


def _found(desk: Desk, args: argparse.Namespace, query: str) -> Outcome:
    app = desk.app
    hits = app.find(query, limit=args.limit or 10)
    return either(
        args,
        lambda: views_forest.find_text(hits, app.audit_now),
        lambda: [{**node_json(desk, hit.node), "snippet": hit.snippet} for hit in hits],
    )


@command(
    "cd",
    "move to a turn (any session): the next question lands under it",
    arg("ref", metavar="REF", help=TURN),
    arg("--sid", help="move in this session (default: this one, started if need be)"),
)
def _cd(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.sid or desk.opens or desk.sid is not None:
        sid = desk.session_id(args.sid)
        return _asks_there(desk, sid, views_forest.moved_text(desk.app.cd(sid, args.ref)))
    return _moved_before(desk, None if args.ref.strip() in ("root", "0") else args.ref)


def _asks_there(desk: Desk, sid: str, moved: str) -> Outcome:
    """A move in ``sid``; at a shell, which keeps no session (its next ask starts a new one
    unless given one), the line that asks there."""
    if desk.opens:
        desk.note(f"({desk.prefix}ask --sid {sid} QUESTION asks there)")
    return Outcome(moved, moved=True)


def _moved_before(desk: Desk, ref: str | None) -> Outcome:
    """``cd`` (or ``back``) before the face's new session exists: the turn its first
    question will be asked under (a bates number: a seq or label names a turn of a
    session), or its own root (None)."""
    if ref is None:
        desk.under = None
        return Outcome(f"now at the root of {_waiting(desk)}", moved=True)
    node = desk.app.node(ref)
    desk.under = node.bates
    return Outcome(views_forest.moved_text(node), moved=True)


@command("back", "move to the parent of the current turn", SID)
def _back(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.sid or desk.opens or desk.sid is not None:
        sid = desk.session_id(args.sid)
        return _asks_there(desk, sid, views_forest.moved_text(desk.app.back(sid)))
    parent = desk.app.node(desk.under).parent_bates if desk.under else None
    if parent is None:  # the new session's root, or a root it was to fork from
        raise BadInput("already at the root")
    return _moved_before(desk, parent)


@command(
    "label",
    "name the current turn (or --ref's)",
    arg("name", nargs="+", metavar="NAME", help="the label (words joined)"),
    arg("--ref", metavar="REF", help="label this turn instead: " + TURN),
    SID,
    JSON,
    text=True,
)
def _label(desk: Desk, args: argparse.Namespace) -> Outcome:
    if desk.reads_alone(args.ref, args.sid):
        sid = desk.app.node(args.ref).sid  # a bates number names its turn without a session
    else:
        sid = desk.session_id(args.sid)
    node = desk.app.label(sid, " ".join(args.name), args.ref)
    return shown(
        args, lambda: views_forest.labelled_text(node), lambda: node_json(desk, node), changed=True
    )


@command(
    "show",
    "a stored turn (default: the current one)",
    arg("ref", nargs="?", metavar="REF", help=TURN),
    SID,
    JSON,
)
def _show(desk: Desk, args: argparse.Namespace) -> Outcome:
    app = desk.app
    if desk.reads_alone(args.ref, args.sid):
        node = app.node(args.ref)  # a bates number, from a face with no session
    else:
        sid = desk.session_id(args.sid)
        node = app.node(args.ref, sid) if args.ref else app.node(app.session(sid).current_bates)
    return either(
        args, lambda: views_forest.node_text(node, app.facts(node)), lambda: node_json(desk, node)
    )


@command("sid", "this session's id")
def _sid(desk: Desk, _args: argparse.Namespace) -> Outcome:
    return Outcome(desk.session_id())


@command(
    "root", "this session's root: its bates and its subtree hash (the session_root)", SID, JSON
)
def _root(desk: Desk, args: argparse.Namespace) -> Outcome:
    """The session's root turn and the hash that commits every turn below it (a checkpoint
    of the tree as it is: any turn added, edited or removed changes it)."""
    session = desk.app.session(desk.session_id(args.sid))
    root = desk.app.node(session.root_bates)
    return either(
        args,
        lambda: f"{session.root_bates}\nsession_root {root.subtree_hash}",
        lambda: {"sid": session.sid, "root_bates": root.bates, "session_root": root.subtree_hash},
    )


# --- export and import ---------------------------------------------------------------------------


@command(
    "export",
    "a session as JSON Lines (session --export), or sessions as a bundle a reader can verify",
    arg("sids", nargs="*", metavar="SID", help="the session(s) (default: this one)"),
    arg("--out", metavar="FILE", help="write the lines to FILE instead of showing them"),
    arg(
        "--bundle",
        metavar="FILE",
        help="write the sessions, their records, cited chunks, proofs and chain spans to FILE "
        "as one bundle (docs/bundle.md) that `verify --bundle` checks with no home",
    ),
    arg(
        "--html",
        metavar="FILE",
        help="write that bundle inside one self-contained HTML page that shows the forest "
        "and re-checks every hash, proof and chain link in the browser",
    ),
)
def _export(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.bundle is not None or args.html is not None:
        return _export_bundle(desk, args)
    if len(args.sids) > 1:
        refuse(desk, "export", "JSON Lines hold one session: give one SID, --bundle or --html FILE")
    sid = desk.session_id(args.sids[0] if args.sids else None)
    records = desk.app.export_session(sid)
    text = views_forest.export_jsonl(records)
    if args.out is None:
        return Outcome(json=text, keep=True)
    try:  # the bytes `arborist session --export SID > FILE` writes
        write_private_text(Path(args.out), inert_json(text) + "\n", kept=_home_files(desk))
    except OSError as exc:
        raise BadInput(f"cannot write {args.out}: {exc.strerror or exc}") from None
    return Outcome(
        f"exported session {sid} ({len(records) - 1} node(s)) to {views_common.field(args.out)}"
    )


def _home_files(desk: Desk) -> list[Path]:
    """The files of the home an export must never be written over: its stores (with their
    ``-wal``, ``-shm`` and ``-journal``) and every other file in its folder."""
    app = desk.app
    stores = [Path(f"{db}{end}") for db in (app.store_path, app.sessions_path) for end in _DB_FILES]
    try:
        return stores + [p for p in app.home.iterdir() if p.is_file()]
    except OSError:
        return stores


_DB_FILES = ("", "-wal", "-shm", "-journal")


def _badges(desk: Desk, data: bytes) -> dict[str, str]:
    """Each turn's badge key (:func:`~arborist._qa.support.audit_key`) by bates, as the
    widget's rows have them: the mode it can claim now, ``STRICT-unquoted`` for a STRICT
    answer that quotes nothing it cites. A session's root shows none."""
    badges = {}
    for turn in safe_loads(data)["turns"]:
        if turn["parent_bates"] is not None:
            now = desk.app.audit_now(desk.app.node(turn["bates"]))
            badges[turn["bates"]] = audit_key(now.mode, now.support)
    return badges


def _export_bundle(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.out is not None:
        refuse(desk, "export", "--bundle and --html name their files: --out is for JSON Lines")
    sids = list(dict.fromkeys(args.sids)) or [desk.session_id()]
    data = desk.app.export_bundle(sids)  # refused before anything is written
    page = None
    if args.html is not None:  # made whole (its script read) before any file is written
        page = bundle_page(data, f"arborist journal: {', '.join(sids)}", _badges(desk, data))
    said = []
    for name, text, what in (
        (args.bundle, data.decode("utf-8"), "bundled"),
        (args.html, page, "wrote the page of"),
    ):
        if name is None or text is None:
            continue
        try:
            write_private_text(Path(name), text, kept=_home_files(desk))
        except OSError as exc:
            raise BadInput(f"cannot write {name}: {exc.strerror or exc}") from None
        said.append(
            f"{what} {len(sids)} session(s) ({len(text.encode())} bytes) to {views_common.field(name)}"
        )
    return Outcome("\n".join(said))


@command(
    "import",
    "sessions from JSON Lines or a bundle, hashes re-proved (session --import)",
    arg(
        "file",
        metavar="FILE",
        help="written by export, or export --bundle (- : standard input, at a shell)",
    ),
    JSON,
)
def _import(desk: Desk, args: argparse.Namespace) -> Outcome:
    return _import_from(desk, args.file, "import", args)


def _import_from(desk: Desk, name: str, command_name: str, args: argparse.Namespace) -> Outcome:
    if name == "-":
        if desk.stdin is None:
            refuse(
                desk, command_name, "'-' (standard input) is for the arborist command: give a file"
            )
        read = import_lines(desk.stdin(), "-")
    else:
        try:
            with open(name, "rb") as file:
                read = import_lines(file, name)
        except OSError as exc:
            raise BadInput(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(read) == 1 and read[0].startswith(BUNDLE_START):  # a bundle is one line
        done = desk.app.import_bundle(read[0].encode("utf-8"))
    else:
        done = desk.app.import_sessions(read)
    return shown(
        args,
        lambda: views_forest.import_text(done),
        lambda: views_forest.import_json(done),
        changed=True,
    )


def import_lines(file: BinaryIO, name: str | None = None) -> list[str]:
    """The lines of an export file (``--import FILE``, ``import FILE``), read as bytes and
    checked here: a file that is not UTF-8, or a line nested deeper than
    :data:`~arborist._safejson.MAX_DEPTH` or holding a number Python will not read, is one
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
