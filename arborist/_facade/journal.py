"""The public Python API: ``journal = arborist.open(home)``, ``turn = journal.ask(question)``.

A thin layer over the facade (:class:`arborist._facade.app.Arborist`), in the manner of ``llm``
and ``sqlite-utils``: a :class:`Journal` is a home (its documents, its answers, its forest
of turns); a :class:`Turn` is one question and its cited answer, whose facts are the ones
every face shows (:mod:`arborist._facts`), read now each time they are asked for::

    import arborist

    with arborist.open("~/notes-home") as journal:
        journal.ingest(["notes.md", "papers/"])
        turn = journal.ask("What does statistics.median return?")
        print(turn.text, turn.mode, turn.support)
        deeper = turn.ask("And the low median?")  # a follow-up, under turn
        other = turn.fork("How is the mean computed?")  # a branch beside turn
        assert turn.verify()  # every proof re-checked against store.db now

``%%ask`` leaves a :class:`Turn` in ``_`` too (:class:`arborist_nb._display.Answer`, which
adds only its rich display). Everything else of the package is the machinery beneath.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

from arborist._errors import BadInput
from arborist._facade.app import Arborist
from arborist._facade.app import Turn as AskedTurn
from arborist._facade.asks import Ask
from arborist._facade.checks import Verification
from arborist._facts import Source, TurnFacts
from arborist._forest.nodes import Node, Session
from arborist._qa.check import AnswerCheck
from arborist._qa.runner import AskResult
from arborist._qa.support import Support
from arborist._store.documents import IngestResult
from arborist._store.search import SearchHit

__all__ = ["Journal", "Turn", "open"]


def open(home: str | Path | None = None) -> Journal:
    """The journal of ``home`` (a folder: created on first write; None: ``$ARBORIST_HOME``,
    else ``~/.arborist``)."""
    return Journal(Arborist(Path(home).expanduser() if isinstance(home, str) else home))


class Journal:
    """A home: its documents (:meth:`ingest`, :meth:`search`), its answers and its forest of
    turns (:meth:`ask`, :attr:`sessions`, :meth:`turn`), and the check of both stores
    (:meth:`verify`). A context manager; :meth:`close` closes its databases."""

    def __init__(self, app: Arborist) -> None:
        self._app = app

    def __repr__(self) -> str:
        return f"<arborist.Journal {self.home}>"

    @property
    def home(self) -> Path:
        """The home's folder."""
        return self._app.home

    def ingest(
        self, paths: list[str] | tuple[str, ...] = (), *, demo: bool = False
    ) -> list[IngestResult]:
        """Add or update documents: files, folders and URLs (``demo``: the built-in corpus,
        the standard library's own documentation, offline)."""
        if demo:
            return self._app.ingest_demo()
        if not paths:
            raise BadInput("give files, folders or URLs to ingest, or demo=True")
        return self._app.ingest([str(p) for p in paths])

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """The documents' chunks matching ``query``, best first."""
        return self._app.search(query, limit=limit)

    def ask(
        self,
        question: str,
        *,
        llm: str | None = None,
        use_cache: bool = True,
        related: bool = False,
        keywords: str | None = None,
        label: str | None = None,
    ) -> Turn:
        """Answer ``question`` from the documents, citing them, as the first turn of a new
        session (``llm``: a model as ``--llm`` names it; ``use_cache`` False asks the model
        even when a cached answer matches; ``related``: co-accessed chunks as a second lane;
        ``keywords``: words added to retrieval only; ``label``: the turn's)."""
        asked = Ask(
            question,
            session_label="python",
            label=label,
            llm=llm,
            use_cache=use_cache,
            related=related,
            keywords=keywords,
        )
        return self._asked(asked)

    def _asked(self, asked: Ask) -> Turn:
        made: AskedTurn = self._app.ask_turn(asked)
        return Turn(self, made.node, None if made.reused else made.result)

    @property
    def sessions(self) -> list[Session]:
        """Every session of the forest, newest change first."""
        return [session for session, _turns in self._app.sessions()]

    def turn(self, ref: str) -> Turn:
        """A stored turn, by its bates number."""
        return Turn(self, self._app.node(ref), None)

    def turns(self, session: Session | str) -> list[Turn]:
        """The turns of a session (or its id), in the order they were asked."""
        sid = session if isinstance(session, str) else session.sid
        return [self.turn(b) for b in self._app.session_bates(sid) if not self._app.node(b).is_root]

    def verify(self) -> Verification:
        """Both stores checked now: every hash, proof and chain (truthy ``.ok``, and
        ``.problems`` one line each), as ``arborist verify`` does."""
        return self._app.verify()

    def close(self) -> None:
        self._app.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Turn:
    """One turn: a question and its cited answer, at one place in a session's tree.

    ``text``, ``mode``, ``support``, ``state`` and ``sources`` are its facts as every face
    shows them (:meth:`facts`), read now: a falsification, an edit of the store, shows at
    once. :meth:`ask` asks a follow-up under it, :meth:`fork` another question beside it
    (under the same turn above), :meth:`falsify` takes its answer out of service."""

    def __init__(self, journal: Journal, node: Node, asked: AskResult | None = None) -> None:
        self._journal = journal
        self._node = node
        self._asked = asked
        """The result of the ask that made this turn now (None: a turn read, or reused):
        only it knows how long it took and whether it was served from the cache."""

    def __repr__(self) -> str:
        return f"<arborist.Turn {self.bates} {self.mode}: {self.question[:60]!r}>"

    def facts(self) -> TurnFacts:
        """Everything every face says of this turn, read now (:mod:`arborist._facts`)."""
        return self._journal._app.facts(self._node, asked=self._asked)

    @property
    def bates(self) -> str:
        """The turn's bates number: ``SID-000003``."""
        return self._node.bates

    @property
    def question(self) -> str:
        return self._node.question

    @property
    def text(self) -> str:
        """The answer."""
        return self._node.answer_text

    @property
    def mode(self) -> str:
        """The audit mode the turn can claim now (``STRICT``...; ``NONE`` when it cannot:
        :attr:`facts` ``().mode_reason`` says why)."""
        return self.facts().mode

    @property
    def support(self) -> Support | None:
        """How well the cited passages cover the question (while the answer holds)."""
        return self.facts().support

    @property
    def state(self) -> str | None:
        """The answer's state: ``ok``, or ``failed``, ``stale``, ``quarantined`` (None: no
        record here holds it)."""
        return self.facts().state

    @property
    def sources(self) -> tuple[Source, ...]:
        """What was retrieved, each with whether the answer cites it, its title, URI, chunk
        and the lane that found it."""
        return self.facts().sources

    @property
    def hit(self) -> bool:
        """Whether the answer was served from the cache (another turn paid for it)."""
        return self.facts().served == "hit"

    def verify(self) -> AnswerCheck:
        """The answer re-read from store.db and re-checked now: its record hash, evidence
        root and every proof (truthy only when all hold; iterate for each source's)."""
        record = self._journal._app.record(self._node.cache_key, revision=self._revision())
        return self._journal._app.check_answer(record.id)

    def _revision(self) -> int | None:
        revision = self.facts().revision
        if revision is None:
            raise BadInput(f"{self.bates}: no answer in this home's store to check")
        return revision

    def ask(self, follow_up: str, **options: Any) -> Turn:
        """A follow-up under this turn (it reads the turns above it); the options are
        :meth:`Journal.ask`'s."""
        return self._under(self._node.bates, follow_up, options)

    def fork(self, question: str, **options: Any) -> Turn:
        """Another question beside this one: a branch under the turn above it (the
        session's root for a first question); the options are :meth:`Journal.ask`'s."""
        parent = self._node.parent_bates or self._node.bates
        return self._under(parent, question, options)

    def _under(self, parent: str, question: str, options: dict[str, Any]) -> Turn:
        asked = Ask(question, sid=self._node.sid, parent=parent, **options)
        return self._journal._asked(asked)

    def falsify(self, state: str, reason: str) -> Turn:
        """Take this turn's answer out of service (``failed``, ``stale`` or
        ``quarantined``, with why): no ask is served it again, every face says so."""
        self._journal._app.falsify(self._node.cache_key, state, reason, revision=self._revision())
        return self
