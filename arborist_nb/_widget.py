"""The forest widget: an anywidget that browses, forks and verifies one session's tree.

Thin on purpose. Traits hold only small state (the root and graft hashes
shown, the current and selected bates, options); node data travels in
request/answer messages whose logic lives in :mod:`arborist._faces.sync`,
where it is tested without Jupyter. The browser asks and the kernel answers
(messages sent before a view exists are lost), so this class only:

* mirrors the session's :class:`~arborist._forest.tree_sync.TreeState` in traits
  and bumps ``revision`` on :meth:`refresh` (the magics call it after each
  ``%%ask``) so every open view walks down the changed hashes;
* with no session yet (an empty home, a kernel before its first question) writes
  nothing and waits: its ``sid`` is empty until the first turn, a ``%%ask`` or its own
  ``ask``, makes the session, which it shows from then on (issue #26);
* hands each custom message to :class:`~arborist._faces.sync.ForestSync`
  and sends back its answer;
* runs ``fork`` requests on a worker thread with its own connections, so a
  slow model never blocks the notebook, then sends an unsolicited
  ``turn_done`` message.

The front end is ``js/src/widget.js``, bundled into ``static/widget.js``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from arborist._commands.desk import Desk
from arborist._errors import BadInput
from arborist._facade.app import Arborist
from arborist._facade.asks import Ask
from arborist._faces.sync import ForestSync, ForkOutcome, run_fork
from arborist._facts import vocabulary
from arborist._forest.tree_sync import TreeState
from arborist_nb._assets import STATIC

__all__ = ["ForestWidget"]

_MISSING_BUNDLE_ESM = """
export default {
  render({ el }) {
    const note = document.createElement("p");
    note.setAttribute("role", "alert");
    note.textContent =
      "arborist: the widget bundle (arborist_nb/static/widget.js) is missing: " +
      "run `make js` (needs node) or reinstall arborist.";
    el.appendChild(note);
  },
};
"""


def _asset(name: str, fallback: str) -> Path | str:
    """The bundled file if it was built, else inline source that says it is missing.

    anywidget reads a path when the class is defined and raises if the file
    is absent, which would make ``import arborist_nb._widget`` fail on a
    checkout where node never ran; a visible note in the output is kinder.
    """
    path = STATIC / name
    return path if path.is_file() else fallback


def _no_unknown_subshells(comm: Any) -> None:
    """Send this comm's messages that name a subshell the kernel does not have to the main
    shell, where they are answered, instead of losing them (docs/design.md section 6).

    ipykernel (7.4) picks the subshell that runs a comm message with the comm's
    ``_reply_subshell_for``: the subshell the front end named, or the one the comm last
    replied under. Either may be one the kernel does not have (JupyterLab can name a
    subshell of the kernel before a restart; a message on such a subshell makes every later
    one follow it), and ipykernel then drops the message: the view is never answered.
    Nothing changes for a kernel without subshells or a message on a subshell it has."""
    route = getattr(comm, "_reply_subshell_for", None)
    kernel = getattr(comm, "kernel", None)
    manager = getattr(getattr(kernel, "shell_channel_thread", None), "manager", None)
    listed = getattr(manager, "list_subshell", None)
    if route is None or listed is None:
        return

    def known(data: Any, default: str | None) -> str | None:
        chosen = route(data, default)
        return chosen if chosen is None or chosen in listed() else None

    comm._reply_subshell_for = known


class ForestWidget(anywidget.AnyWidget):
    """A collapsible, verifiable view of session ``sid`` of the home at ``home`` (or ``app``).

    Without ``sid`` the most recently created session is shown; in an empty home none
    is, and nothing is written: the widget waits for the first turn (asked in it, under
    the root). With ``desk`` (a notebook's: the magics give theirs) it shows the desk's
    session, or waits for the one the desk's first question makes, whichever face asks
    it; its own first question is asked as the desk's would be (its label, the turn
    ``cd`` chose, its model). Only the home's paths are taken from ``app``; the widget
    opens its own connections on each thread that needs them. ``llm`` names the model
    forks from the widget ask (default: the home's default, as ``%%ask``).
    """

    _esm = _asset("widget.js", _MISSING_BUNDLE_ESM)
    _css = _asset("widget.css", "")

    sid = traitlets.Unicode("").tag(sync=True)
    root_bates = traitlets.Unicode("").tag(sync=True)
    root_hash = traitlets.Unicode("").tag(sync=True)
    graft_hashes = traitlets.Dict(
        value_trait=traitlets.Unicode(), key_trait=traitlets.Unicode()
    ).tag(sync=True)
    current_bates = traitlets.Unicode("").tag(sync=True)
    selected_bates = traitlets.Unicode("").tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)
    poll_ms = traitlets.Int(2000).tag(sync=True)
    # How long the view's requests wait for the kernel before it says so; 0: the view's
    # default (15 s, js/src/requests.js). Read when a view is made.
    request_ms = traitlets.Int(0).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    # The words the view says the kernel's keys in (a badge key, a support level, hit or
    # miss: arborist._facts.vocabulary), sent once with the widget: the script holds none.
    vocabulary = traitlets.Dict().tag(sync=True)

    def __init__(
        self,
        home: str | Path | None = None,
        sid: str | None = None,
        *,
        app: Arborist | None = None,
        llm: str | None = None,
        desk: Desk | None = None,
        **kwargs: Any,
    ) -> None:
        if app is not None and home is not None:
            raise BadInput("give either a home or an app, not both")
        if desk is not None and sid is not None:
            raise BadInput("give either a sid or a desk, not both")
        # Only the home's paths are taken from ``app``: its connections belong to
        # the thread that opened them, so every thread here opens its own.
        self.app = app if app is not None else Arborist(home)
        self.llm = llm
        self._lock = threading.Lock()
        self._forks: list[threading.Thread] = []
        self._queued: list[threading.Thread] = []
        self._desk = desk
        self._first: str | None = None  # the question making the session, while it is asked
        self._sync = ForestSync(
            self.app,
            desk.sid if desk is not None else sid,
            start_fork=self._start_fork,
            on_change=self._mirror,
            latest=desk is None,
        )
        state = self._sync.state()
        self._title: str | None = kwargs.pop("title", None)
        waiting = (desk.session_label() if desk is not None else None) or "new session"
        super().__init__(
            sid=state.sid if state else "",
            root_bates=state.root_bates if state else "",
            title=self._title or (self._titled(state) if state else waiting),
            vocabulary=vocabulary(),
            **kwargs,
        )
        self._turns = 0
        if state is not None:
            self._mirror(state)
        self.on_msg(self._handle_message)
        comm: Any = self.comm  # typed never None, but None once the front end closed it
        if comm is not None:  # the front end may close it (its output cleared, closed)
            comm.on_close(self._closed_by_front_end)
            _no_unknown_subshells(comm)

    @traitlets.validate("poll_ms")
    def _valid_poll_ms(self, proposal: Any) -> int:
        value = int(proposal["value"])
        if value < 0:
            raise traitlets.TraitError("poll_ms must be 0 (no polling) or a number of milliseconds")
        return value

    @traitlets.validate("request_ms")
    def _valid_request_ms(self, proposal: Any) -> int:
        value = int(proposal["value"])
        if value < 0:
            raise traitlets.TraitError(
                "request_ms must be 0 (the view's default) or a number of milliseconds"
            )
        return value

    def __repr__(self) -> str:
        return f"ForestWidget(sid={self.sid or None!r}, turns={self._turns})"

    @staticmethod
    def _titled(state: TreeState) -> str:
        return state.label or f"session {state.sid}"

    # --- kernel -> views ------------------------------------------------------------------

    def refresh(self) -> TreeState | None:
        """Re-read the session and bump ``revision``: every open view re-walks what changed.
        A widget with no session yet shows its desk's once the desk has one (its first
        question made it); until then nothing changes (None)."""
        state = self._sync.state()
        if state is None and self._desk is not None and self._desk.sid is not None:
            state = self._sync.adopt(self._desk.sid)
        if state is not None:
            self._publish(state)
        return state

    def _mirror(self, state: TreeState) -> None:
        """Copy a state into the traits (only changed values are sent to the views)."""
        with self.hold_sync():
            self.root_hash = state.root_hash
            self.graft_hashes = dict(state.graft_hashes)
            self.current_bates = state.current_bates
        self._turns = state.turns

    def _publish(self, state: TreeState) -> None:
        # One state message for the hashes and the revision: a view refreshes once per
        # message, so two would cost it two ``roots`` round trips for one new turn.
        with self._lock, self.hold_sync():
            if self.sid != state.sid:  # the first turn made the session this view waited for
                self.sid, self.root_bates = state.sid, state.root_bates
                self.title = self._title or self._titled(state)
            self._mirror(state)
            self.revision += 1

    # --- views -> kernel ------------------------------------------------------------------

    def _handle_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not self.app.home.is_dir() and isinstance(content, dict) and "id" in content:
            # Answering would open the home's databases, re-creating a removed home as an
            # empty store that a later reader takes for this one (issue #35).
            self.send({"id": content["id"], "ok": False, "error": self.home_gone()})
            return
        reply = self._sync.handle(content)
        if reply is not None:
            self.send(reply)
        # A fork starts only once its ``pending`` answer is out, so its ``turn_done``
        # can never overtake it, however fast the model.
        with self._lock:
            queued, self._queued = self._queued, []
        for thread in queued:
            thread.start()

    def home_gone(self) -> str:
        """What a view is told when the home it reads was removed."""
        return (
            f"this notebook's home {self.app.home} was removed: nothing is shown from it; "
            "re-run %arborist once the notebook has a home again"
        )

    def _start_fork(self, parent: str | None, question: str, request_id: object) -> None:
        asked = self._asked(parent, question)
        thread = threading.Thread(
            target=self._fork,
            args=(asked, request_id),
            name=f"arborist-fork-{parent or 'first'}",
            daemon=True,
        )
        with self._lock:
            self._forks = [t for t in self._forks if t.is_alive()]
            self._forks.append(thread)
            self._queued.append(thread)

    def _asked(self, parent: str | None, question: str) -> Ask:
        """The :class:`Ask` of a fork, or of the first question of a view with no session
        yet: asked as its desk's first question would be, and one at a time (a second
        would make a second session)."""
        sid = self._sync.sid
        desk = self._desk
        llm = self.llm or (desk.llm if desk is not None else None)  # the kernel's model
        if sid is not None:  # a fork answers beside the kernel's work: its current turn stays
            return Ask(question, sid=sid, parent=parent, llm=llm, make_current=False)
        with self._lock:
            if self._first is not None:
                raise BadInput(f"the first question ({self._first!r}) is being answered: wait")
            self._first = question
        return Ask(
            question,
            sid=None,
            session_label=desk.session_label() if desk is not None else None,
            parent=parent or (desk.under if desk is not None else None),
            llm=llm,
        )

    def _fork(self, asked: Ask, request_id: object) -> None:
        """Worker thread: ask on fresh connections, then tell the views and bump revision."""
        outcome: ForkOutcome = run_fork(
            self.app, asked, request_id=request_id, ingest="%arborist ingest --demo"
        )
        if outcome.state is not None and asked.sid is None:  # it made the session
            self._sync.sid = outcome.state.sid  # read already: no connection on this thread
            if self._desk is not None and self._desk.sid is None:
                self._desk.landed(outcome.state.sid)  # the kernel's next %%ask follows it
        if outcome.state is not None:
            self._publish(outcome.state)
        if asked.sid is None:
            with self._lock:
                self._first = None
        self.send(outcome.message)

    def _closed_by_front_end(self, _message: Any) -> None:
        """The front end closed this widget's comm: nothing shows it any more, so it is
        closed here too (``comm`` None: the magics stop refreshing it)."""
        self.close()

    def close(self) -> None:
        """Close the widget and this thread's connections (forks close their own)."""
        try:
            super().close()
        except KeyError:  # the kernel's comm manager had forgotten the comm already
            self.comm = None
        sync: ForestSync | None = getattr(self, "_sync", None)  # None if __init__ failed early
        if sync is not None:
            sync.close()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for forks still running (for scripts and tests); True when none is left."""
        with self._lock:
            pending = [t for t in self._forks if t.ident is not None]
        for thread in pending:
            thread.join(timeout)
        return not any(t.is_alive() for t in pending)
