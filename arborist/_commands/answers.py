"""The answers' commands: ask, the cached records, falsify, and the default model.

Registered into :data:`arborist._commands.COMMANDS` (see that module). An ask shows
the same in every face that runs it: the answer (set apart behind its gutter, or
streamed so as it arrived), then its bates, hit or miss, audit mode, support, key
and sources; ``--json`` the turn and its record whole.
"""

from __future__ import annotations

import argparse
import json
import socket
from typing import Any
from urllib.parse import urlsplit

from arborist._commands.desk import (
    ANSWER,
    JSON,
    MODEL_FLAGS,
    SESSIONS_DB,
    SHELL_PREFIX,
    Desk,
    Outcome,
    answer_key,
    arg,
    command,
    either,
    int_range,
    shown,
)
from arborist._errors import ModelError
from arborist._facade.app import Arborist, Turn
from arborist._facade.asks import Ask
from arborist._facts import TurnFacts
from arborist._qa.check import check_record
from arborist._qa.runner import AskResult
from arborist._store.cache.records import CacheRecord
from arborist._text.terminal import TokenPrinter, answer_block
from arborist._views import results as views

__all__ = [
    "answer_lines",
    "ask_json",
    "ask_of",
    "check_model",
    "falsified_json",
]

REACH_SECONDS = 2.0
"""How long :func:`check_model` waits for a remote model's server to take a connection."""


def check_model(app: Arborist, name: str | None, **limits: Any) -> None:
    """Refuse now, in one line, a model that cannot answer: an unknown name, bad settings,
    or a remote server that takes no connection (``session --llm hermes`` with no server
    would otherwise fail only at the first question)."""
    client = app.client(name, **limits)
    server = str(client.profile().get("server") or "")
    if not server.startswith(("http://", "https://")):
        return  # in process (extractive, stub): nothing to reach
    url = urlsplit(server)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname or "", port), timeout=REACH_SECONDS).close()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ModelError(
            f"model {name or client.name}: the server at {server} cannot be reached ({why}): "
            "start it, or choose another --llm"
        ) from None


def answer_lines(
    result: AskResult, streamed: str | None, *, width: int | None = None, mark: str = "│ "
) -> list[str]:
    """The answer's lines before the footer: none when ``streamed`` already showed what
    was stored; else the stored answer set apart (:func:`~arborist._text.terminal.answer_block`),
    said to differ from what streamed when the admission gate changed it."""
    stored = result.record.answer_text
    if streamed == stored:
        return []
    said = [] if streamed is None else ["stored as (the admission gate changed what streamed):"]
    return [*said, answer_block(stored, width=width, mark=mark)]


@command(
    "ask",
    "answer a question from the documents, citing them: a turn of the forest",
    arg("question", nargs="+", metavar="QUESTION", help="the question (words joined)"),
    arg("--sid", help="in this session (default: this one; a new one if none)"),
    arg("--parent", metavar="REF", help="under this turn (bates, seq, label or root)"),
    arg("--label", metavar="NAME", help="label the new turn"),
    arg("--thread", action="store_true", help="put earlier turns into the prompt"),
    arg("--no-cache", action="store_true", help="ask the model even if a cached answer matches"),
    arg("--related", action="store_true", help="add co-accessed chunks as a second evidence lane"),
    arg(
        "--retrieval-keywords",
        dest="keywords",
        metavar="WORDS",
        help="add these words to retrieval only (the question stays as asked); the record's "
        "policy names them, so other words are another cache key",
    ),
    *MODEL_FLAGS,
    SESSIONS_DB,
    JSON,
    text=True,
)
def _ask(desk: Desk, args: argparse.Namespace) -> Outcome:
    asked = ask_of(desk, args, " ".join(args.question))
    width = desk.columns()
    stream = desk.stream if not args.json else None
    printer = TokenPrinter(stream, width=width, mark=desk.mark) if stream else None
    try:
        turn = desk.app.ask_turn(asked, on_token=printer)
    finally:
        if printer is not None:
            printer.close()
    if not args.sid:
        desk.landed(turn.node.sid)  # the session its first question made, or the one it was in
    result = turn.result
    facts = desk.app.facts(turn.node, asked=None if turn.reused else result)
    if args.json:
        said = ask_json(turn, facts)
        return Outcome(json=json.dumps(said, indent=2, ensure_ascii=False), changed=True)
    streamed = printer.text if printer is not None and printer.text else None
    shown_lines = answer_lines(result, streamed, width=width, mark=desk.mark)
    footer = views.answer_text(facts, streamed=facts.answer)
    return Outcome("\n".join([*shown_lines, footer]), changed=True)


def ask_of(desk: Desk, args: argparse.Namespace, question: str) -> Ask:
    """The :class:`~arborist._facade.asks.Ask` an ``ask`` line makes at ``desk`` (the ``arborist``
    command's, the REPL's, ``%%ask``'s): its flags, else the desk's session (or the new
    one its first question makes, under the turn ``cd`` chose), model and limits."""
    return Ask(
        question,
        sid=args.sid or desk.sid,
        session_label=desk.session_label(),
        parent=args.parent or (None if args.sid else desk.under),
        label=args.label,
        llm=args.llm or desk.llm,
        timeout=args.timeout if args.timeout is not None else desk.timeout,
        retries=args.retries if args.retries is not None else desk.retries,
        use_cache=not args.no_cache,
        thread=args.thread,
        related=args.related,
        keywords=args.keywords,
    )


def ask_json(turn: Turn, facts: TurnFacts) -> dict[str, Any]:
    """What ``ask --json`` prints in every face: the turn, its record whole, and its facts
    (:mod:`arborist._facts`: every fact the text shows, under ``facts``)."""
    result = turn.result
    support = facts.support
    return {
        "bates": turn.node.bates,
        "sid": turn.node.sid,
        "hit": result.hit,
        "elapsed_ms": round(result.elapsed_ms, 3),
        **result.record.as_json(),
        "support": support.as_json() if support else None,
        "facts": facts.as_json(),
    }


@command(
    "record list",
    "cached answers (records), newest first",
    arg("--limit", type=int_range(1, None), default=None, metavar="N", help="at most N"),
    JSON,
)
def _record_list(desk: Desk, args: argparse.Namespace) -> Outcome:
    records = [(r, bool(check_record(r))) for r in desk.app.records(limit=args.limit)]
    return either(args, lambda: views.records_text(records), lambda: views.records_json(records))


@command(
    "record show",
    "a record whole, and the mode it can claim now",
    arg("key", metavar="KEY", help=ANSWER),
    arg("--revision", type=int_range(1, None), default=None, metavar="N", help="this revision"),
    JSON,
)
def _record_show(desk: Desk, args: argparse.Namespace) -> Outcome:
    record = desk.app.record(answer_key(desk, args.key), revision=args.revision)
    check = check_record(record)  # the store as it is now: never a label it no longer earns
    return either(
        args, lambda: views.record_text(record, check), lambda: views.record_json(record, check)
    )


def falsified_json(record: CacheRecord) -> dict[str, Any]:
    """A record taken out of service, as JSON."""
    return {
        "cache_key": record.cache_key,
        "revision": record.revision,
        "state": record.state,
        "reason": record.state_reason,
    }


def _falsify(desk: Desk, args: argparse.Namespace) -> Outcome:
    record = desk.app.falsify(answer_key(desk, args.key), args.state, args.reason)
    return shown(
        args, lambda: views.falsified_text(record), lambda: falsified_json(record), changed=True
    )


STATE = arg(
    "--state",
    required=True,
    choices=["failed", "stale", "quarantined"],
    metavar="STATE",
    help="failed, stale or quarantined",
)
REASON = arg("--reason", required=True, metavar="TEXT", help="why: kept with the record")

for _name, _summary in (
    ("record falsify", "take a record out of service"),
    ("falsify", "take a turn's answer out of service (record falsify)"),
):
    command(_name, _summary, arg("key", metavar="REF", help=ANSWER), STATE, REASON, JSON)(_falsify)


@command(
    "llm",
    "show or set the default model",
    arg("name", nargs="?", metavar="NAME", help="a model, as --llm takes it"),
    JSON,
)
def _llm(desk: Desk, args: argparse.Namespace) -> Outcome:
    if args.name is not None:
        check_model(desk.app, args.name)  # fail now, with one line, if it cannot answer
        desk.llm = args.name
    name = desk.llm or desk.app.client(None).name
    said = desk.llm or f"default ({name})"
    if args.name is not None and desk.prefix == SHELL_PREFIX:  # a shell keeps nothing
        said += f" for this command only: pass --llm {args.name} or set ARBORIST_LLM to keep it"
    return either(args, lambda: f"model: {said}", lambda: {"model": name, "default": not desk.llm})
