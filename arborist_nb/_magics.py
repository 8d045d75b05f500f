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
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.display import HTML, Markdown, display

from arborist._commands.answers import ask_json, ask_of
from arborist._commands.desk import Desk, Outcome, parse, parser
from arborist._commands.table import commands
from arborist._errors import ArboristError, NoDocuments
from arborist._facade.app import Arborist, Turn
from arborist._facade.home import default_home
from arborist._forest.nodes import Node, Session
from arborist._gate.admission import admit_error_line
from arborist._proofs.hashing import normalize_question
from arborist._standalone.rule import stands_alone
from arborist._text.terminal import inert, inert_json
from arborist_nb._cells import CellErrors, CellTurn, CellTurns, Unfilled, fill
from arborist_nb._display import Answer, Landing, answer_markup, md_escape, progress

__all__ = ["ASK_HELP", "ArboristMagics", "Lines", "WIDGET_HINT", "interpolate"]

_CELL = "CELL"
"""Stands for the cell's text where the table's ``ask`` parser wants its question: the last
word, after ``--``, so every word the line gave is before it."""

ASK_HELP = parser(commands()["ask"], "%%").format_help().rstrip()
"""What ``%%ask --help`` shows (and ``%%ask?`` after its docstring): the table's ``ask``,
written as ``%%ask`` (its QUESTION is the cell's text)."""


def _usage(message: str) -> UsageError:
    """The one-line ``UsageError`` a cell shows (and a notebook saves): through the
    admission gate and inert (:func:`arborist._gate.admission.admit_error_line`), since it may
    quote a path, a URL or a word as typed, a token in it included."""
    return UsageError(admit_error_line(message))


def interpolate(
    template: str,
    namespace: dict[str, Any],
    errors: CellErrors | None = None,
    count: int = 1 << 30,
) -> str:
    """``{name}``, ``{In[n]}``, ``{Out[n]}`` and ``{Err[n]}`` replaced (as jupyter-ai's
    ``%%ai`` does: :mod:`arborist_nb._cells`); ``{{``/``}}`` for braces; one line if not."""
    try:
        return fill(template, namespace, errors or CellErrors(), count)
    except Unfilled as exc:
        raise _usage(str(exc)) from None


def _this_cell(namespace: dict[str, Any]) -> int:
    """The asking cell's number: IPython's ``In`` holds it last while it runs (``In[0]`` is
    empty); a cell run without history (a test's) counts as the one after the last."""
    cells = namespace.get("In")
    return len(cells) - 1 if isinstance(cells, list) and cells else 1 << 30


def _short(node: Node, sid: str) -> str:
    """A turn's short name: ``#12`` in session ``sid`` (as the forest widget shows it),
    ``#12 of session SID`` in another."""
    return f"#{node.seq}" if node.sid == sid else f"#{node.seq} of session {node.sid}"


def _ref(node: Node, sid: str) -> str:
    """What ``--parent`` takes for ``node``: its seq in session ``sid``, else its bates."""
    return str(node.seq) if node.sid == sid else node.bates


class _Stream:
    """Tokens of a streaming answer, shown in one updating output, at most every 50 ms.

    Until the first token (or the answer) comes, the same output says which model is
    waited for and for how long, of at most its deadline (``waiting``), from half a
    second after the ask and then every second: a server that never answers is never a
    silent ``[*]``. The tokens are the model's untrusted text: their Markdown is shown
    rendered as the final answer's is (:func:`arborist_nb._display.answer_markup`: every
    text escaped, no raw HTML, links to safe schemes only), never handed to a frontend's
    Markdown renderer, which would render the HTML in it.
    """

    def __init__(self, waiting: str = "", deadline: float = 0.0) -> None:
        self.text = ""
        self.handle: Any = None
        self.shown_at = 0.0
        self.waiting, self.deadline = waiting, deadline
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.started = time.monotonic()
        self.ticker = threading.Thread(target=self._tick, name="arborist-waiting", daemon=True)
        if waiting:
            self.ticker.start()

    def _tick(self) -> None:
        wait = 0.5
        while not self.done.wait(wait):
            with self.lock:
                if self.text or self.done.is_set():
                    return
                line = Markdown(md_escape(self._waited()))
                if self.handle is None:
                    self.handle = display(line, display_id=True)
                else:
                    self.handle.update(line)
            wait = 1.0

    def _waited(self) -> str:
        waited = int(time.monotonic() - self.started)
        return f"{self.waiting}: {waited} s of at most {self.deadline:g} s (interrupt to stop)"

    def __call__(self, token: str) -> None:
        with self.lock:
            self.text += token
            now = time.monotonic()
            if self.handle is None:
                self.handle = display(self._shown(), display_id=True)
                self.shown_at = now
            elif now - self.shown_at > 0.05:
                self.handle.update(self._shown())
                self.shown_at = now

    def _shown(self) -> HTML:
        return HTML(answer_markup(self.text))

    def close(self) -> None:
        with self.lock:
            self.done.set()
            if self.handle is not None:  # cleared to nothing: an empty Markdown object was
                # saved in the notebook as its repr, "<IPython.core.display.Markdown object>"
                self.handle.update({"text/plain": ""}, raw=True)


def _waiting_for(client: Any) -> tuple[str, float]:
    """What a remote client's waiting line names (its model and server, as its profile
    says them, through the gate) and its deadline; ("", 0) for a local answerer."""
    deadline = getattr(client, "deadline", None)
    if not isinstance(deadline, (int, float)):
        return "", 0.0
    profile = client.profile()
    return f"waiting for {profile.get('model')} at {profile.get('server')}", float(deadline)


@magics_class
class ArboristMagics(Magics):
    """The magics, bound to one home and one forest session per kernel."""

    def __init__(self, shell: Any, home: str | Path | None = None) -> None:
        super().__init__(shell)
        self.follows = home is None
        """Whether the home is ``$ARBORIST_HOME``'s, followed when a cell changes it."""
        self.widgets: list[Any] = []
        """The widgets this kernel showed and still holds open (see :meth:`_refresh_widgets`)."""
        self._widget_cells: dict[str, Any] = {}
        """The widget each cell showed last, by the front end's cell id: a re-run replaces it."""
        self.cell_errors = CellErrors()
        """What ``{Err[n]}`` reads: the error each cell of this kernel raised."""
        if shell is not None:
            shell.events.register("post_run_cell", self.cell_errors.record)
        self._open(home)

    def _open(self, home: str | Path | None) -> None:
        """Open ``home`` (None: ``$ARBORIST_HOME``'s) with a new desk: no session yet."""
        self.app = Arborist(home)
        self._had_home = False  # seen: a home that goes after that was removed, not new
        self.desk = Desk(
            self.app,
            prefix="%arborist ",
            label=self._session_label,
            track=progress,
            each=False,
            short=True,
            more_help="%arborist alone shows the forest widget; %%ask? the options of a question",
        )
        """This kernel's session and default model, shared with the subcommands."""
        self._continued = False
        """Whether this kernel looked for its notebook's session yet (once: after ``%arborist
        session new`` a kernel starts a new one, as asked)."""
        self.moved = False
        """Set by ``%arborist cd``/``back``: the next ``%%ask`` lands where the user moved."""
        self.cell_turns = CellTurns(self.app)
        """The turn each ``%%ask`` cell showed last in this home, kept across restarts:
        where it lands when run again (:class:`~arborist_nb._cells.CellTurns`)."""

    @property
    def sid(self) -> str | None:
        """This kernel's forest session (None until the first ask or subcommand needs one)."""
        return self.desk.sid

    @property
    def llm(self) -> str | None:
        """This kernel's default model (``%arborist llm NAME``)."""
        return self.desk.llm

    # --- helpers -----------------------------------------------------------------------------

    def _continue(self) -> None:
        """On a kernel's first need of a session: continue its notebook's own, the latest
        session named after the notebook file (what a session this kernel starts is called,
        :meth:`_session_label`), so Restart & Run All goes on where the notebook left off
        instead of starting a session each time. Said in one line, with how to start anew.
        A notebook whose name the front end does not tell starts its own session."""
        if self._continued or self.desk.sid is not None:
            return
        self._continued = True
        name = self._notebook_name()
        if name is None:
            return
        mine = [(s, n) for s, n in self.app.sessions() if s.label == name]
        if not mine:
            return
        session, turns = max(mine, key=lambda found: (found[0].updated_at, found[0].created_at))
        self.desk.sid = session.sid
        print(
            inert(
                f"continuing this notebook's session {session.sid} ({name}, {turns} "
                f"turn{'' if turns == 1 else 's'}); %arborist session new starts a new one",
                one_line=True,
            )
        )

    def _home(self) -> None:
        """Follow ``$ARBORIST_HOME`` when a cell set it to another home since the magics
        loaded (a setup cell run again: ``%load_ext`` does nothing the second time), and
        refuse a home that was removed: writing on would re-create it empty, or write to
        files no folder holds. The widgets of the home left still show it (each reads its
        own) until their cells run again; the kernel's questions no longer refresh them.
        Each cell is told anew what leaves the machine (``Arborist.tell_once``)."""
        self.app.told.clear()
        if self.follows and default_home().absolute() != self.app.home.absolute():
            self.widgets = []
            self.app.close()
            self._open(None)
        if self.app.home.is_dir():
            self._had_home = True
        elif self._had_home:
            raise _usage(
                f"this kernel's home {self.app.home} was removed: set ARBORIST_HOME to a "
                "home that exists (a notebook's setup cell), then run the cell again"
            )

    def _run(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except NoDocuments:
            raise _usage(str(NoDocuments("%arborist ingest --demo"))) from None
        except ArboristError as exc:
            raise _usage(str(exc)) from None

    def _refresh_widgets(self) -> None:
        """Refresh the widgets still open; a closed one (its comm gone: closed by the kernel
        or the front end, or replaced by a re-run of its cell) is dropped, never refreshed."""
        self.widgets = [w for w in self.widgets if getattr(w, "comm", None) is not None]
        for widget in self.widgets:
            widget.refresh()

    # --- %%ask ----------------------------------------------------------------------------------

    @cell_magic
    def ask(self, line: str, cell: str) -> Answer | None:
        """Ask the cell's question (with {name} interpolation): a follow-up under the last turn,
        a question that stands alone under the session's root (see ``_parent_for``). One line
        above the answer says where the turn was filed and which ``--parent`` files it
        elsewhere (``_landing``). The line takes the flags of ``%arborist ask`` (one parser:
        the command table's), ``--json`` prints what every face's ``ask --json`` prints."""
        args = self._ask_args(line)
        if args is None:
            print(ASK_HELP)
            return None
        self._home()
        namespace = self.shell.user_ns if self.shell else {}
        question = interpolate(cell, namespace, self.cell_errors, _this_cell(namespace)).strip()
        if not question:
            raise _usage("empty question: write it in the cell under %%ask")
        if not args.sid:
            self._continue()  # the notebook's own session, when this kernel has none yet
        sid = args.sid or self.sid
        session = self._run(lambda: self.app.session(sid)) if sid else None  # read once
        cell_id = self._cell_id()
        notebook = self._notebook_path()
        earlier = self.cell_turns.earlier(
            cell_id, question, session.sid if session else None, notebook
        )
        parent, reuse, why = self._parent_for(question, args.parent, session, earlier)
        asked = ask_of(self.desk, args, question)
        asked = replace(
            asked,
            sid=session.sid if session else None,
            parent=parent or asked.parent,
            reuse=reuse,
            transcript=self._notebook_path(),
        )
        client = self._run(lambda: self.app.client_for(asked))  # once: it says if it streams
        streams = client.profile().get("provider") == "openai"
        stream = _Stream(*_waiting_for(client)) if streams and not args.json else None
        try:
            turn: Turn = self._run(lambda: self.app.ask_turn(asked, on_token=stream, client=client))
        except KeyboardInterrupt:
            waited = f" for {client.profile().get('model')}" if stream and stream.waiting else ""
            raise _usage(f"interrupted while waiting{waited}: no turn was written") from None
        finally:
            if stream is not None:
                stream.close()
        if session is None:
            self.desk.landed(turn.node.sid)  # the session its first question made
        self._run(lambda: self.cell_turns.remember(cell_id, question, turn.node, why, notebook))
        if args.json:
            self._refresh_widgets()
            facts = self.app.facts(turn.node, asked=None if turn.reused else turn.result)
            print(inert_json(json.dumps(ask_json(turn, facts), indent=2, ensure_ascii=False)))
            return None
        own = earlier is not None and earlier.bates == turn.node.bates
        answer = Answer(turn, app=self.app, checkpoint=self.app.checkpoint(), own=own)
        self._refresh_widgets()
        before = session.current_bates if session else None
        display(self._landing(turn, why, before, session.sid if session else turn.node.sid))
        return answer

    ask.__doc__ = f"{ask.__doc__}\n\n{ASK_HELP}"

    def _ask_args(self, line: str) -> argparse.Namespace | None:
        """The flags on a ``%%ask`` line, parsed by the command table's ``ask`` parser (the
        same names, ranges and one-line errors as ``%arborist ask`` and ``arborist ask``);
        None: ``--help`` was asked for. The cell is the question: a word on the line that is
        no flag is refused, never joined to it, and so is a flag only the ``arborist``
        command honours (``--sessions-db``)."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise _usage(f"cannot parse the arguments: {exc}") from None
        try:
            command, args = parse(["ask", *words, "--", _CELL], "%%")
        except ArboristError as exc:
            raise _usage(str(exc)) from None
        if args is None:
            return None
        usage = " ".join(parser(command, "%%").format_usage().split())
        extra = args.question[:-1]
        if extra:
            raise _usage(
                f"{extra[0]!r}: the question is the cell's text, the line takes only flags: {usage}"
            )
        if args.sessions_db is not None:
            raise _usage(
                "--sessions-db opens other stores: give it to the arborist command (here the "
                f"stores are open already): {usage}"
            )
        return args

    def _parent_for(
        self,
        question: str,
        parent: str | None,
        session: Session | None,
        earlier: CellTurn | None = None,
    ) -> tuple[str | None, bool, str]:
        """Where a ``%%ask`` cell lands, and why; the turn is reused when the same question
        was already answered there with the same key (see README, "How a notebook's cells
        chain").

        * ``--parent REF``: under REF (why: ``parent``).
        * Right after ``%arborist cd``/``back``: under the turn moved to (``moved``).
        * A cell run again with the same question (``earlier``: the turn it showed last,
          :class:`~arborist_nb._cells.CellTurns`): under that turn's parent, for the reason
          it was filed there, whatever moved the session's current turn since (the
          widget's "Set as current", another cell): its turn is found there again.
        * A question that stands alone, read under the session's current turn (the turn
          above it, when that is not the root: "the letter" under a turn asking about "a
          cover letter" is a follow-up): under the session's root, so running the notebook
          again finds its turn there instead of growing the tree (``alone``).
        * A follow-up ("and what does it return ...?"): under the last turn; re-running
          that same cell asks under that turn's parent again (``follow-up``).

        With no ``session`` yet (its first question makes it) there is no turn above but
        its root, or the one ``cd`` chose (None: the desk's ``under``).
        """
        if parent is not None:
            return parent, True, "parent"
        if self.moved:
            self.moved = False
            if session is not None or self.desk.under is not None:
                return None, True, "moved"
        if earlier is not None and earlier.why != "parent":  # a --parent taken off: asked anew
            return earlier.parent, True, earlier.why
        if session is None:
            return None, True, "alone" if stands_alone(question) else "follow-up"
        current = self.app.node(session.current_bates)
        if stands_alone(question, None if current.is_root else current.question):
            return session.root_bates, True, "alone"  # read under the turn it would follow
        sid = session.sid
        rerun = (
            current.sid == sid
            and current.parent_bates is not None
            and normalize_question(current.question) == normalize_question(question)
        )
        return (current.parent_bates, True, "follow-up") if rerun else (None, True, "follow-up")

    def _landing(self, turn: Turn, why: str, before: str | None, sid: str) -> Landing:
        """The line that says where ``turn`` was filed (``why``: see :meth:`_parent_for`) and
        the ``%%ask`` option that files it elsewhere; ``before`` was the current turn (None:
        the session is new, made by this turn)."""
        above = self.app.node(turn.node.parent_bates or turn.node.bates)
        at_root = above.is_root and above.sid == sid
        where = "the session's root" if at_root else _short(above, sid)
        if why == "parent":
            return Landing(f"filed under {where} (--parent)")
        if why == "moved":
            return Landing(f"filed under {where}, where %arborist cd moved")
        if why == "follow-up" and not at_root:
            return Landing(
                f"filed under {where} as a follow-up", "%%ask --parent root", "to ask it alone"
            )
        if why == "follow-up":
            return Landing(f"filed under {where}: a follow-up, with no turn above it to follow")
        last = self.app.node(before or turn.node.parent_bates or turn.node.bates)
        if (
            before is None
            or last.is_root
            or last.bates in (turn.node.bates, turn.node.parent_bates)
        ):
            return Landing(f"filed under {where}: it stands alone")
        return Landing(
            f"filed under {where}: it stands alone",
            f"%%ask --parent {_ref(last, sid)}",
            f"to ask it as a follow-up of {_short(last, sid)}",
        )

    def _session_label(self) -> str:
        """What a session this kernel starts is called: its notebook's file name when the
        front end tells (the name only: the folders above it may name a person), else
        ``notebook``."""
        return self._notebook_name() or "notebook"

    def _notebook_name(self) -> str | None:
        """The notebook's file name when the front end tells it, else None."""
        name = Path(self._notebook_path() or "").name
        return name if name and name.isprintable() and len(name) <= 200 else None

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

    # --- %arborist ------------------------------------------------------------------------------

    @line_magic
    def arborist(self, line: str) -> Any:
        """The forest widget, or a subcommand: %arborist help lists them."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise _usage(f"cannot parse the arguments: {exc}") from None
        if words[:1] not in (["help"], ["--help"], ["-h"]):
            self._home()
        if not words:
            return self._widget()
        self._continue()
        return self._show(self._run(lambda: self.desk.run(words)))

    def _widget(self) -> Any:
        from arborist_nb._widget import ForestWidget  # noqa: PLC0415 - loads the JS bundle

        self._continue()  # the notebook's own session, when this kernel has none yet
        # With none, the widget waits for the kernel's first question: nothing is written.
        widget = ForestWidget(app=self.app, desk=self.desk)
        cell = self._cell_id()
        if cell is not None:
            # The cell's output is replaced: the widget it showed before is shown nowhere.
            replaced = self._widget_cells.get(cell)
            if replaced is not None:
                replaced.close()
            self._widget_cells[cell] = widget
        self.widgets = [w for w in self.widgets if getattr(w, "comm", None) is not None]
        self.widgets.append(widget)
        # Shown where the widget cannot be (a notebook opened anew, with a new kernel: the
        # front end says only "model not found"); the widget's stylesheet hides it.
        display({"text/plain": WIDGET_HINT, "text/html": _WIDGET_HINT_HTML}, raw=True)
        return widget

    def _cell_id(self) -> str | None:
        """The running cell's id when the front end sends it (JupyterLab, Notebook 7 and VS
        Code put ``cellId`` in the request's metadata), else None."""
        header = getattr(self.shell, "parent_header", None)
        metadata = header.get("metadata") if isinstance(header, dict) else None
        cell = metadata.get("cellId") if isinstance(metadata, dict) else None
        return cell if isinstance(cell, str) and cell else None

    def _show(self, outcome: Outcome) -> Any:
        """Print what a subcommand shows (inert), apply what it did; a failed check is
        a one-line error after its report. An export is the cell's value."""
        if outcome.moved:
            self.moved = True
        if outcome.moved or outcome.changed:
            self._refresh_widgets()
        kept = None
        if outcome.json is not None and outcome.keep:
            kept = Lines(inert_json(outcome.json))
        elif outcome.json is not None:
            print(inert_json(outcome.json))
        elif outcome.text:
            print(inert(outcome.text))
        if outcome.failed:
            raise _usage(outcome.failed)
        return kept


WIDGET_HINT = (
    "arborist's forest widget lives as long as its kernel: after a restart, or in a notebook "
    "opened anew, re-run this cell (%arborist) to show it."
)
"""The line above a forest widget, seen only where the widget is not."""

_WIDGET_HINT_HTML = f'<div class="arborist-widget-hint" style="opacity:0.8">{WIDGET_HINT}</div>'


class Lines(str):
    """Text a notebook shows as its lines, not as a quoted string: ``%arborist export``'s
    JSON Lines, which a cell can also keep (``lines = %arborist export``)."""

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))
