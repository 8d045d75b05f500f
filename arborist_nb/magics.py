"""``%%ask`` and ``%arborist``: the notebook face of the facade. Thin: parse, call, display.

``%load_ext arborist_nb`` registers them. Each kernel works in one forest
session (created on the first ask, resumable with ``%arborist session resume
SID``). Bad input is one line (``UsageError``), never a traceback; nothing
here waits for the browser.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import string
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import Markdown, display

from arborist import views
from arborist.analysis import stands_alone
from arborist.app import Arborist, Turn
from arborist.audit import Checkpoint
from arborist.errors import ArboristError, NoDocuments
from arborist.hashing import normalize_question
from arborist.terminal import inert, inert_json
from arborist_nb.display import Answer, md_escape, no_math

__all__ = ["ArboristMagics", "SUBCOMMANDS", "interpolate"]

SUBCOMMANDS: dict[str, str] = {
    "tree": "this session's tree",
    "branches": "branch points of this session's tree",
    "find QUERY [--limit N] [--json]": "search every session's turns",
    "cd REF": "move to a turn (bates, seq, label or root; any session)",
    "back": "move to the parent of the current turn",
    "label NAME": "name the current turn",
    "show [REF]": "a stored turn",
    "sid": "this kernel's session id",
    "root": "this session's root bates",
    "chain-check": "check both audit chains; print the heads",
    "ingest PATH_OR_URL ... | --demo": "ingest documents (progress bar)",
    "search QUERY [--limit N] [--json]": "search the documents",
    "related REF": "sources co-accessed with a chunk, document or turn",
    "verify [--witness NOTEBOOK]": "recompute everything; check the chains",
    "stats [--json]": "documents, chunks, cached answers, sizes",
    "falsify REF --state S --reason TEXT": "take a turn's cached answer out of service",
    "llm [NAME]": "show or set this kernel's default model",
    "session new|resume SID|list": "start, resume or list sessions",
}


class _Missing(dict[str, Any]):
    def __missing__(self, key: str) -> Any:
        raise UsageError(f"{{{key}}} is not defined in the notebook")


def interpolate(template: str, namespace: dict[str, Any]) -> str:
    """``{name}`` replaced from ``namespace`` (as jupyter-ai does); ``{{``/``}}`` for braces."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise UsageError(inert(f"bad {{...}} in the question: {exc}", one_line=True)) from exc
    for _text, name, _spec, _conv in fields:
        if name is not None and not name.isidentifier():
            raise UsageError(f"{{{name}}} is not a variable name (write {{{{ and }}}} for braces)")
    return template.format_map(_Missing(namespace))


class _Stream:
    """Tokens of a streaming answer, shown in one updating output, at most every 50 ms.

    The tokens are the model's untrusted text: shown escaped (as the final answer
    is), never as markdown a frontend would render HTML from.
    """

    def __init__(self) -> None:
        self.text = ""
        self.handle: Any = None
        self.shown_at = 0.0

    def __call__(self, token: str) -> None:
        self.text += token
        now = time.monotonic()
        if self.handle is None:
            self.handle = display(self._shown(), display_id=True)
            self.shown_at = now
        elif now - self.shown_at > 0.05:
            self.handle.update(self._shown())
            self.shown_at = now

    def _shown(self) -> Markdown:
        return Markdown(no_math(md_escape(self.text)))

    def close(self) -> None:
        if self.handle is not None:
            self.handle.update(Markdown(""))


@magics_class
class ArboristMagics(Magics):
    """The magics, bound to one home and one forest session per kernel."""

    def __init__(self, shell: Any, home: str | Path | None = None) -> None:
        super().__init__(shell)
        self.app = Arborist(home)
        self.sid: str | None = None
        self.llm: str | None = None
        self.widgets: list[Any] = []
        self.moved = False
        """Set by ``%arborist cd``/``back``: the next ``%%ask`` lands where the user moved."""

    # --- helpers -----------------------------------------------------------------------------

    def _session(self) -> str:
        if self.sid is None:
            self.sid = self.app.new_session("notebook").sid
        return self.sid

    def _run(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except NoDocuments:
            raise UsageError(str(NoDocuments("%arborist ingest --demo"))) from None
        except ArboristError as exc:
            raise UsageError(inert(str(exc), one_line=True)) from None

    def _refresh_widgets(self) -> None:
        for widget in self.widgets:
            widget.refresh()

    # --- %%ask ----------------------------------------------------------------------------------

    @magic_arguments()
    @argument("--parent", default=None, help="Ask under this turn (bates, seq, label or root).")
    @argument("--llm", default=None, help="Model: extractive, stub, openai or a config profile.")
    @argument("--label", default=None, help="Label the new turn.")
    @argument("--thread", action="store_true", help="Thread earlier turns into the prompt.")
    @argument(
        "--no-cache", action="store_true", help="Ask the model even if a cached answer matches."
    )
    @argument(
        "--related", action="store_true", help="Add co-accessed chunks as a second evidence lane."
    )
    @cell_magic
    def ask(self, line: str, cell: str) -> Answer:
        """Ask the cell's question (with {name} interpolation): a follow-up under the last turn,
        a question that stands alone under the session's root (see ``_parent_for``)."""
        try:
            args = parse_argstring(self.ask, line)
        except UsageError:
            raise
        except SystemExit:  # pragma: no cover - argparse exits on -h
            raise UsageError("see %%ask? for the options") from None
        question = interpolate(cell, self.shell.user_ns if self.shell else {}).strip()
        if not question:
            raise UsageError("empty question: write it in the cell under %%ask")
        sid = self._session()
        llm = args.llm or self.llm
        parent, reuse = self._parent_for(question, args.parent, sid)
        stream = _Stream() if self._streams(llm) else None
        try:
            turn: Turn = self._run(
                lambda: self.app.ask_turn(
                    question,
                    sid=sid,
                    parent=parent,
                    label=args.label,
                    llm=llm,
                    use_cache=not args.no_cache,
                    on_token=stream,
                    reuse=reuse,
                    thread=args.thread,
                    related=args.related,
                    transcript=self._notebook_path(),
                )
            )
        finally:
            if stream is not None:
                stream.close()
        first = self.app.first_turn(turn.result.cache_key) if turn.result.hit else None
        answer = Answer(turn, app=self.app, checkpoint=self.app.checkpoint(), first_turn=first)
        self._refresh_widgets()
        return answer

    def _parent_for(self, question: str, parent: str | None, sid: str) -> tuple[str | None, bool]:
        """Where a ``%%ask`` cell lands; the turn is reused when the same question was
        already answered there with the same key (see README, "How a notebook's cells chain").

        * ``--parent REF``: under REF.
        * Right after ``%arborist cd``/``back``: under the turn moved to.
        * A question that stands alone: under the session's root, so running the
          notebook again finds its turn there instead of growing the tree.
        * A follow-up ("and what does it return ...?"): under the last turn; re-running
          that same cell asks under that turn's parent again.
        """
        if parent is not None:
            return parent, True
        if self.moved:
            self.moved = False
            return None, True
        session = self.app.session(sid)
        if stands_alone(question):
            return session.root_bates, True
        current = self.app.node(session.current_bates)
        rerun = (
            current.sid == sid
            and current.parent_bates is not None
            and normalize_question(current.question) == normalize_question(question)
        )
        return (current.parent_bates, True) if rerun else (None, True)

    def _notebook_path(self) -> str | None:
        """This notebook's path when the frontend tells the kernel (VS Code, Jupyter Server 2);
        co-access stores it only redacted. None: the working directory stands in."""
        namespace = self.shell.user_ns if self.shell else {}
        for value in (
            namespace.get("__vsc_ipynb_file__"),
            os.environ.get("JPY_SESSION_NAME"),
            namespace.get("__session__"),
        ):
            if isinstance(value, str) and value.strip():
                return value
        return None

    def _streams(self, llm: str | None) -> bool:
        try:
            return self.app.client(llm).profile().get("provider") == "openai"
        except ArboristError:
            return False

    # --- %arborist ------------------------------------------------------------------------------

    @line_magic
    def arborist(self, line: str) -> Any:
        """The forest widget, or a subcommand: %arborist help lists them."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise UsageError(f"cannot parse the arguments: {exc}") from None
        if not words:
            return self._widget()
        command, rest = words[0], words[1:]
        handler = getattr(self, "_cmd_" + command.replace("-", "_"), None)
        if handler is None:
            raise UsageError(f"unknown subcommand {command!r}: try %arborist help")
        return self._run(lambda: handler(rest))

    def _widget(self) -> Any:
        from arborist_nb.widget import ForestWidget  # noqa: PLC0415 - loads the JS bundle

        widget = ForestWidget(app=self.app, sid=self._session())
        self.widgets.append(widget)
        return widget

    def _text(self, text: str) -> None:
        print(inert(text))

    def _json(self, data: Any) -> None:
        """``--json``: the data every face gives, printed as JSON (inert, same data)."""
        print(inert_json(json.dumps(data, indent=2, ensure_ascii=False)))

    def _one(self, rest: list[str], usage: str) -> str:
        if len(rest) != 1:
            raise UsageError(f"usage: %arborist {usage}")
        return rest[0]

    def _cmd_help(self, rest: list[str]) -> None:
        width = max(len(k) for k in SUBCOMMANDS)
        self._text("\n".join(f"%arborist {k:<{width}}  {v}" for k, v in SUBCOMMANDS.items()))

    def _cmd_tree(self, rest: list[str]) -> None:
        self._text(self.app.tree(self._session()))

    def _cmd_branches(self, rest: list[str]) -> None:
        points = self.app.branches(self._session())
        self._text(
            "\n".join(f"{n.bates}  {c} children  {views.field(n.question)}" for n, c in points)
            or "no branch points"
        )

    def _cmd_find(self, rest: list[str]) -> None:
        args = _parse("find QUERY... [--limit N] [--json]", rest, words=True, limit=True)
        hits = self.app.find(" ".join(args.words), limit=args.limit)
        if args.json:
            self._json(views.find_json(hits, self.app.audit_now))
        else:
            self._text(views.find_text(hits, self.app.audit_now))

    def _cmd_cd(self, rest: list[str]) -> None:
        node = self.app.cd(self._session(), self._one(rest, "cd REF"))
        self.moved = True
        self._refresh_widgets()
        self._text(f"now at {node.bates}")

    def _cmd_back(self, rest: list[str]) -> None:
        node = self.app.back(self._session())
        self.moved = True
        self._refresh_widgets()
        self._text(f"now at {node.bates}")

    def _cmd_label(self, rest: list[str]) -> None:
        if not rest:
            raise UsageError("usage: %arborist label NAME")
        node = self.app.label(self._session(), " ".join(rest))
        self._refresh_widgets()
        self._text(f"{node.bates} is now labelled {node.label!r}")

    def _cmd_show(self, rest: list[str]) -> None:
        sid = self._session()
        node = (
            self.app.node(rest[0], sid)
            if rest
            else self.app.node(self.app.session(sid).current_bates)
        )
        self._text(views.node_text(node, self.app.audit_now))

    def _cmd_sid(self, rest: list[str]) -> None:
        self._text(self._session())

    def _cmd_root(self, rest: list[str]) -> None:
        self._text(self.app.session(self._session()).root_bates)

    def _cmd_chain_check(self, rest: list[str]) -> None:
        result = self.app.chain_check([Checkpoint.parse(c) for c in rest])
        self._text(views.chain_check_text(result))
        if not result.ok:
            raise UsageError("an audit chain is broken (see above)")

    def _cmd_ingest(self, rest: list[str]) -> None:
        from tqdm.auto import tqdm  # noqa: PLC0415 - a notebook progress bar

        def track(items: Any) -> Any:
            return tqdm(list(items), desc="ingest", unit="doc")

        if rest == ["--demo"]:
            results = self.app.ingest_demo(track=track)
        elif rest and "--demo" not in rest:
            results = self.app.ingest(rest, track=track)
        else:
            raise UsageError("usage: %arborist ingest PATH_OR_URL ... | --demo")
        self._text(views.ingest_text(results, each=False))

    def _cmd_search(self, rest: list[str]) -> None:
        args = _parse("search QUERY... [--limit N] [--json]", rest, words=True, limit=True)
        hits = self.app.search(" ".join(args.words), limit=args.limit)
        if args.json:
            self._json(views.search_json(hits))
        else:
            self._text(views.search_text(hits))

    def _cmd_related(self, rest: list[str]) -> None:
        self._text(views.related_text(self.app.related(self._one(rest, "related REF"))))

    def _cmd_verify(self, rest: list[str]) -> None:
        from arborist.witness import witness_checkpoints  # noqa: PLC0415

        checkpoints: list[Checkpoint] = []
        args = list(rest)
        while args:
            flag = args.pop(0)
            if flag == "--witness" and args:
                checkpoints += witness_checkpoints(args.pop(0))
            elif flag == "--checkpoint" and args:
                checkpoints.append(Checkpoint.parse(args.pop(0)))
            else:
                raise UsageError(
                    "usage: %arborist verify [--witness NOTEBOOK] [--checkpoint SEQ:HASH]"
                )
        result = self.app.verify(checkpoints)
        self._text(views.verification_text(result, len(checkpoints)))
        if result.problems:
            raise UsageError(f"verify found {len(result.problems)} problem(s) (see above)")

    def _cmd_stats(self, rest: list[str]) -> None:
        args = _parse("stats [--json]", rest)
        data = self.app.stats()
        if args.json:
            self._json(data)
        else:
            self._text(views.stats_text(data))

    def _cmd_falsify(self, rest: list[str]) -> None:
        usage = "falsify REF --state failed|stale|quarantined --reason TEXT"
        args = _parse(usage, rest, ref=True, state=True, reason=True)
        ref = args.ref
        if _is_key(ref):
            key = self.app.record(ref).cache_key
        else:
            key = self.app.resolve_answer(self.app.node(ref, self._session()).bates).cache_key
        record = self.app.falsify(key, args.state, args.reason)
        self._refresh_widgets()
        self._text(
            f"{record.cache_key[:16]} revision {record.revision} is now {record.state}: "
            f"{views.field(record.state_reason)}"
        )

    def _cmd_llm(self, rest: list[str]) -> None:
        if rest:
            self.app.client(rest[0])  # fail now, with one line, if the name is unknown
            self.llm = rest[0]
        self._text(f"model: {self.llm or 'default (' + self.app.client(None).name + ')'}")

    def _cmd_session(self, rest: list[str]) -> None:
        if rest == ["new"]:
            self.sid = self.app.new_session("notebook").sid
        elif len(rest) == 2 and rest[0] == "resume":
            self.sid = self.app.session(rest[1]).sid
        elif rest == ["list"]:
            self._text(views.sessions_text(self.app.sessions()))
            return
        else:
            raise UsageError("usage: %arborist session new|resume SID|list")
        self._refresh_widgets()
        self._text(f"session {self.sid}")


class _Parser(argparse.ArgumentParser):
    """argparse whose every complaint is one UsageError line (it never exits the kernel)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}: usage: %arborist {self.usage}")


def _parse(
    usage: str,
    rest: list[str],
    *,
    words: bool = False,
    limit: bool = False,
    ref: bool = False,
    state: bool = False,
    reason: bool = False,
) -> argparse.Namespace:
    """Parse a subcommand's arguments with the CLI's flags, in any order."""
    parser = _Parser(prog="%arborist", usage=usage, add_help=False)
    if words:
        parser.add_argument("words", nargs="+")
    if ref:
        parser.add_argument("ref")
    if limit:
        parser.add_argument("--limit", type=int, default=10)
    if state:
        parser.add_argument("--state", required=True, choices=["failed", "stale", "quarantined"])
    if reason:
        parser.add_argument("--reason", required=True)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(rest)
    if limit and not 1 <= args.limit <= 1000:
        raise UsageError(f"--limit must be between 1 and 1000: usage: %arborist {usage}")
    return args


def _is_key(ref: str) -> bool:
    return len(ref) >= 8 and all(c in "0123456789abcdef" for c in ref.lower()) and not ref.isdigit()
