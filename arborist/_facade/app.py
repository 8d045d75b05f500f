"""The facade: one object, opened on a home folder, that the CLI and the notebook share.

A feature is written once here (or in the service it calls) and gets two
faces, ``arborist`` on the command line and ``%arborist`` in a notebook.

Home layout (docs/design.md section 1)::

    $ARBORIST_HOME/          default ~/.arborist
        store.db             documents, chunks, cache, its own audit chain
        sessions.db          the conversation forest shard
        config.toml          model profiles and options
        redaction.key        keys transcript-path redaction (0600; co-access only)

:class:`Arborist` is four layers, each a module: the home, its databases, its
config.toml and the checks of its files (:mod:`arborist._facade.home`); the forest's
sessions and turns (:mod:`arborist._facade.forest`); the related sources
(:mod:`arborist._facade.related`); and here, what asks, answers and
documents take, each a call into the service that owns the rule.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from arborist._config import max_file_bytes, names_an_embedder
from arborist._database.db import require_writable, transaction
from arborist._errors import BadInput, ModelError
from arborist._facade.asks import Ask
from arborist._facade.checks import check_derivable
from arborist._facade.related import HomeRelated
from arborist._forest.nodes import Node, Session, get_node
from arborist._forest.reads import reusable_turn
from arborist._forest.shard import insert_turn, resolve_ref, set_current, set_label
from arborist._gate.admission import admit
from arborist._pathref import load_or_create_key, redact_path
from arborist._progress import Track, untracked
from arborist._qa import followups
from arborist._qa.check import AnswerCheck, check_record
from arborist._qa.client import ChatClient
from arborist._qa.derivation import distilled
from arborist._qa.models import select_client
from arborist._qa.runner import AskResult
from arborist._qa.runner import ask as run_ask
from arborist._store import coaccess, coaccess_spool
from arborist._store.cache.records import CacheRecord, list_records, load_record, resolve_key
from arborist._store.cache.states import falsify, restore
from arborist._store.demo import demo_corpus
from arborist._store.derive import Derivation, derive_from_record
from arborist._store.documents import (
    IngestResult,
    prepare_document,
    resolve_document,
    store_document,
)
from arborist._store.fetch import fetch_url, refetch
from arborist._store.loaders import LoadedDocument, discover, load_found
from arborist._store.related import (
    RELATED_LANE,
    RELATED_SLACK,
)
from arborist._store.search import SearchHit, search
from arborist._store.stats import store_counts
from arborist._store.tiers import TierChange, evict, rehydrate
from arborist._store.vectors import EmbedReport, embed_missing
from arborist._text.terminal import inert

if TYPE_CHECKING:
    from arborist._store.vectors import Embedder

__all__ = [
    "Arborist",
    "Turn",
]


@dataclass(frozen=True)
class Turn:
    """One recorded turn: the answer (hit or miss) and the forest node that holds it."""

    result: AskResult
    node: Node
    reused: bool = False


class Arborist(HomeRelated):
    """An arborist home: its two databases, opened (and migrated) on first use.

    ``store_db`` and ``sessions_db`` override the files' locations. With
    ``create=False`` a missing database is an error instead of a new file,
    and existing files are read as they are, without migrating them
    (:class:`~arborist._facade.home.Home`). Its forest is
    :class:`~arborist._facade.forest.HomeForest`'s, its related sources
    :class:`~arborist._facade.related.HomeRelated`'s.
    """

    # --- configuration and models -----------------------------------------------------

    def client(
        self, name: str | None = None, *, timeout: float | None = None, retries: int | None = None
    ) -> ChatClient:
        """The chat client named ``name`` (``--llm``), else ``$ARBORIST_LLM``, else extractive.

        ``timeout`` (seconds) and ``retries`` override ``ARBORIST_TIMEOUT``,
        ``ARBORIST_RETRIES`` and the profile's settings for a remote model.
        """
        return select_client(name, config=self.config, timeout=timeout, retries=retries)

    def embedder(self) -> Embedder | None:
        """The embedding model configured (``ARBORIST_EMBED_*``, else ``[embeddings]`` or a
        ``[models.NAME]`` of kind embeddings in config.toml), else None: retrieval is lexical.
        Without one named, neither the client nor numpy is imported. A server off this
        machine is told once (:meth:`tell_once`): every question goes there, unasked."""
        if not names_an_embedder(self.config, os.environ):
            return None
        from arborist._qa.embeddings import select_embedder  # noqa: PLC0415 - see above

        embedder = select_embedder(self.config)
        leaving = getattr(embedder, "leaving", None)
        line = leaving() if leaving is not None else None
        if line:
            self.tell_once(line)
        return embedder

    def tell_once(self, line: str) -> None:
        """Say ``line`` on stderr (a notebook shows it in the cell) unless it was said since
        :attr:`told` was last cleared: the CLI makes a facade per command, the notebook
        clears it at each cell, so it is said once per command and once per cell."""
        if line not in self.told:
            self.told.add(line)
            print(f"arborist: {inert(admit(line).text, one_line=True)}", file=sys.stderr)

    def embedder_profile(self) -> dict[str, object]:
        """The configured embedding model's profile (empty when there is none)."""
        embedder = self.embedder()
        return {} if embedder is None else embedder.profile()

    def embed(self, *, track: Track[Any] = untracked) -> EmbedReport:
        """Embed every searchable chunk that has no vector under the configured model
        (``track`` wraps the batches, one request each)."""
        embedder = self.embedder()
        if embedder is None:
            raise BadInput(
                "no embedding model is configured: set ARBORIST_EMBED_BASE_URL and "
                "ARBORIST_EMBED_MODEL, or [embeddings] base_url and model in config.toml"
            )
        return embed_missing(self.store_conn, embedder, track=track)

    def _embed_ingested(
        self,
        results: Sequence[IngestResult],
        embedder: Embedder | None,
        track: Track[Any] = untracked,
    ) -> None:
        """Ingest embeds as it goes when a model is configured: the new chunks of the
        documents just stored (an unchanged chunk's vector is already there). The model is
        chosen before anything is stored, so a bad setting writes nothing."""
        if embedder is None or not results:
            return
        try:
            embed_missing(
                self.store_conn, embedder, documents=[r.document.id for r in results], track=track
            )
        except ModelError as exc:
            raise ModelError(
                f"{exc} (the documents are stored; run `arborist embed` when the embedding "
                "server answers)"
            ) from exc

    # --- documents --------------------------------------------------------------------------

    def ingest(
        self,
        sources: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        track: Track[Any] = untracked,
        follow_symlinks: bool = False,
        embed_track: Track[Any] | None = None,
        demo: bool = False,
        skipped: list[tuple[str, str]] | None = None,
    ) -> list[IngestResult]:
        """Load and admit every source (a path, a folder or an http(s) URL; with ``demo``, the
        built-in corpus first) before storing any: a source that cannot be read, or that the
        admission gate refuses, stops the batch before anything is written. A folder walk never leaves the folder through a
        symbolic link unless ``follow_symlinks``; what it passes over goes into ``skipped`` (see :func:`discover`).

        A refusal names a file by its path as given or found (``notes/secret.txt``), a
        URL without the secrets it holds. With an embedding model configured, the new
        chunks are embedded as they are stored, ``embed_track`` (default ``track``) wrapping
        the batches.
        """
        if isinstance(sources, (str, os.PathLike)):  # one source, not its characters
            sources = [sources]
        named = [os.fspath(s) for s in sources]
        embedder = self.embedder()
        urls = [s for s in named if s.startswith(("http://", "https://"))]
        paths = discover(
            [s for s in named if s not in urls],
            include,
            exclude,
            follow_symlinks=follow_symlinks,
            skipped=skipped,
        )
        cap, allowlist = max_file_bytes(self.config, os.environ), self.allowlist
        given = {Path(s) for s in named}
        loaded: list[LoadedDocument] = []
        names: list[str | None] = []
        for path in paths if demo else track(paths):
            if (
                doc := load_found(path, max_bytes=cap, named=path in given, skipped=skipped)
            ) is not None:
                loaded.append(doc)
                names.append(str(path))
        loaded += [fetch_url(url) for url in urls]
        names += [None] * len(urls)
        prepared = [prepare_document(d, allowlist=allowlist) for d in demo_corpus()] if demo else []
        prepared += [
            prepare_document(doc, allowlist=allowlist, name=name)
            for doc, name in zip(loaded, names, strict=True)
        ]
        del loaded  # what is stored is the admitted text: the loaded one can go
        stored = track(prepared) if demo else prepared  # the demo's bar: its 72 documents
        results = [store_document(self.store_conn, doc) for doc in stored]
        self._embed_ingested(results, embedder, track if embed_track is None else embed_track)
        return results

    def ingest_demo(
        self, *, track: Track[Any] = untracked, embed_track: Track[Any] | None = None
    ) -> list[IngestResult]:
        """Ingest the built-in corpus: the standard library's own pydoc text, offline (and
        embed it as :meth:`ingest` does)."""
        return self.ingest([], track=track, embed_track=embed_track, demo=True)

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """Full-text search over hot chunks and core records, each hit with its audit mode."""
        return search(self.store_conn, query, limit=limit)

    def evict(self, ref: str, tier: str) -> TierChange:
        """Move a document's chunks to ``warm`` or ``cold``."""
        return evict(self.store_conn, resolve_document(self.store_conn, ref), tier)

    def rehydrate(self, ref: str) -> TierChange:
        """Bring a document back to hot, refetching its URI if cold and proving every chunk."""
        cap = max_file_bytes(self.config, os.environ)
        return rehydrate(
            self.store_conn,
            resolve_document(self.store_conn, ref),
            lambda uri: refetch(uri, max_bytes=cap),
            allowlist=self.allowlist,
        )

    def derive(
        self, kind: str, ref: str, text: str | None = None, *, llm: str | None = None, **limits: Any
    ) -> Derivation:
        """Save a core record derived from the cited evidence of the answer under ``ref``
        (a bates number or a cache key): ``text``, else what model ``llm`` (``limits`` as
        :meth:`client` takes them) distils from that evidence only (:mod:`arborist._qa.derivation`).
        Only from an answer that serves (``ok``) and holds now: a core record is searchable
        under HYBRID, so it must not carry a falsified or edited answer's words."""
        record = self.resolve_answer(ref)
        check_derivable(record)
        typed = text is not None  # the user's words, marked so: no model's distillation
        if text is None:
            text = distilled(kind, record, self.client(llm, **limits))
        admitted = self.admitted(text)
        return derive_from_record(self.store_conn, record, kind, admitted, hand_written=typed)

    # --- answers ------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        llm: str | None = None,
        use_cache: bool = True,
        context: Sequence[str] = (),
        sources: Sequence[str] = (),
        on_token: Callable[[str], None] | None = None,
        threaded: Sequence[tuple[str, str]] = (),
        related: bool = False,
        timeout: float | None = None,
        retries: int | None = None,
        keywords: str | None = None,
    ) -> AskResult:
        """Answer from the cache when every dimension matches, else from the model: an
        answer with no turn (:meth:`ask_turn` records one); ``keywords`` as :class:`Ask`'s.

        With ``related``, co-accessed chunks join the evidence as a second lane
        (the co-access index is brought up to date first). ``timeout`` and
        ``retries`` bound the wait for a remote model (see :meth:`client`);
        ``context``, ``sources`` and ``threaded`` are what a follow-up borrows.
        """
        require_writable(self.store_conn)  # refuse now, not after paying for a model call
        asked = Ask(
            question,
            llm=llm,
            timeout=timeout,
            retries=retries,
            use_cache=use_cache,
            related=related,
            keywords=keywords,
        )
        return self._answer(asked, self.client_for(asked), on_token, context, sources, threaded)

    def client_for(self, asked: Ask) -> ChatClient:
        """The chat client ``asked`` names, with its limits (see :meth:`client`): a face
        that must know it before asking (does it stream?) hands it to :meth:`ask_turn`."""
        return self.client(asked.llm, timeout=asked.timeout, retries=asked.retries)

    def _answer(
        self,
        asked: Ask,
        client: ChatClient,
        on_token: Callable[[str], None] | None,
        context: Sequence[str] = (),
        sources: Sequence[str] = (),
        threaded: Sequence[tuple[str, str]] = (),
    ) -> AskResult:
        """The cache-first ask (:func:`arborist._qa.runner.ask`) of ``asked``, by
        ``client``, with the home's allowlist, embedder and co-access index."""
        version = ""
        if asked.related:
            version = self._related_index(purpose="--related", slack=RELATED_SLACK)
        return run_ask(
            self.store_conn,
            client,
            asked.question,
            context=context,
            sources=sources,
            use_cache=asked.use_cache,
            on_token=on_token,
            threaded=threaded,
            allowlist=self.allowlist,
            related=RELATED_LANE if asked.related else 0,
            related_version=version,
            embedder=self.embedder(),
            keywords=asked.keywords or "",
        )

    def record(self, ref: str, *, revision: int | None = None) -> CacheRecord:
        """The cache record under a key (or unique prefix)."""
        return resolve_key(self.store_conn, ref, revision=revision)

    def check_answer(self, record_id: int) -> AnswerCheck:
        """Re-read cached answer ``record_id`` from store.db now and re-check it (see
        :func:`arborist._qa.check.check_record`); truthy only when all of it holds."""
        return check_record(load_record(self.store_conn, record_id))

    def records(self, *, limit: int | None = None) -> list[CacheRecord]:
        """Every cache record, newest first."""
        return list_records(self.store_conn, limit=limit)

    def falsify(
        self, ref: str, state: str, reason: str, *, revision: int | None = None
    ) -> CacheRecord:
        """Take a cached answer out of service as ``failed``, ``stale`` or ``quarantined``
        (with ``revision``: only that revision, which must be the one in service)."""
        return falsify(self.store_conn, ref, state, self.admitted(reason), revision=revision)

    def restore(self, ref: str, revision: int) -> CacheRecord:
        """Undo the falsification of revision ``revision`` while no later answer replaced it
        (:func:`arborist._store.cache.states.restore`) and its answer still holds: a record whose
        evidence no longer verifies stays out of service."""
        record = resolve_key(self.store_conn, ref, revision=revision)
        check = check_record(record)
        if not check:
            raise BadInput(f"its answer does not hold now: {check.summary}")
        return restore(self.store_conn, ref, revision)

    # --- turns: an answer recorded in the forest ---------------------------------------------

    def ask_turn(
        self,
        asked: Ask | str,
        /,
        *,
        on_token: Callable[[str], None] | None = None,
        client: ChatClient | None = None,
        **fields: Any,
    ) -> Turn:
        """Ask ``asked`` (an :class:`~arborist._facade.asks.Ask`) under its parent (default: its
        session's current turn) and record the turn. A question with ``Ask``'s fields as
        keywords (``ask_turn(q, sid=sid, parent=tip)``) is that ``Ask``, for a script.

        The session is read once, the client (``client``, when the face resolved it
        already) resolved once. With no session (``sid`` None) one labelled
        ``session_label`` is made with the turn, in one transaction, once the answer is
        in hand: a failed ask writes nothing, and no session is ever without a turn. A
        follow-up borrows words from the turns above it, never into a hash
        (docs/retrieval.md). With co-access on, the cited chunks are spooled with the turn
        and drained into store.db (docs/design.md section 7), the ``transcript`` stored redacted.
        """
        if isinstance(asked, str):
            asked = Ask(asked, **fields)
        elif fields:
            raise TypeError(f"an Ask takes no keywords beside it: {sorted(fields)}")
        recording = coaccess.enabled()
        for conn in (self.store_conn, self.sessions_conn):  # before the answer is paid for
            require_writable(conn)
        session = self.session(asked.sid) if asked.sid is not None else None
        under = self._asked_under(session, asked.parent)
        result = self._answer_under(under, asked, client or self.client_for(asked), on_token)
        if asked.reuse and result.hit and session and under:  # a miss is never a reuse
            reused = self._reuse(session.sid, under.bates, result, asked.label)
            if reused is not None:
                return Turn(result, reused, reused=True)
        record = result.record
        # Before the turn is written: a failure here must not leave a turn without its rows.
        captured = self._captured(asked.transcript, record) if recording else None
        with transaction(self.sessions_conn):  # a new session and its first turn, or neither
            if session is None:
                session = self.new_session(asked.session_label)
            node = insert_turn(
                self.sessions_conn,
                session.sid,
                under.bates if under else session.root_bates,
                question=record.question,
                answer_text=record.answer_text,
                cache_key=record.cache_key,
                audit_mode=record.audit_mode,
                label=self.admitted(asked.label),
                make_current=asked.make_current,
                cited_titles=list(dict.fromkeys(e.title for e in record.evidence if e.cited)),
            )
            if captured is not None:  # the capture commits with its turn (design section 7)
                coaccess_spool.spool(self.sessions_conn, node.bates, session.sid, *captured)
        if recording:
            coaccess_spool.drain(self.sessions_conn, self.store_conn)
        return Turn(result, node)

    def _answer_under(
        self,
        under: Node | None,
        asked: Ask,
        client: ChatClient,
        on_token: Callable[[str], None] | None,
    ) -> AskResult:
        """The answer to ``asked`` asked under ``under``: a follow-up borrows words from the
        turns above it (and ``thread`` their exchanges), never into a hash."""
        above = partial(get_node, self.sessions_conn)
        path = followups.read_above(under, asked.thread, above) if under else []
        return self._answer(
            asked,
            client,
            on_token,
            followups.context(path),
            followups.sources(path),
            followups.threaded(path) if asked.thread else [],
        )

    def _asked_under(self, session: Session | None, parent: str | None) -> Node | None:
        """The node a question is asked under: ``parent`` (a bates number anywhere, or a
        seq or label of ``session``), else the session's current node; None for the
        root of a session not created yet."""
        if session is None:  # a new session's root, or a bates number anywhere (a fork)
            return self.node(parent) if parent else None
        if parent:
            return resolve_ref(self.sessions_conn, session, parent)
        return get_node(self.sessions_conn, session.current_bates)

    def _reuse(self, sid: str, parent: str, result: AskResult, label: str | None) -> Node | None:
        """The turn a re-run asks again (same question, key and parent), made current and
        given ``label`` if one is asked for; None when there is no such turn."""
        existing = reusable_turn(
            self.sessions_conn, parent, sid, result.cache_key, result.record.question
        )
        if existing is None:
            return None
        set_current(self.sessions_conn, sid, existing)
        node = get_node(self.sessions_conn, existing)
        if label is not None and self.admitted(label) != node.label:
            node = set_label(self.sessions_conn, node.bates, self.admitted(label))
        return node

    def _captured(
        self, transcript: str | Path | None, record: CacheRecord
    ) -> tuple[str | None, tuple[str, ...]]:
        """What a turn's co-access capture holds besides its bates and session: the redacted
        transcript and the cited chunks the admission gate lets it record."""
        cited = [(e.leaf, e.text) for e in record.evidence if e.cited]
        leaves, _abstained = coaccess.admitted_leaves(cited, self.allowlist)
        return self._transcript_ref(transcript), tuple(leaves)

    # --- co-access ------------------------------------------------------------------------------

    def transcript_ref(self, path: str | Path, *, display: str | None = None) -> str:
        """``path`` (a notebook or transcript) as stored: keyed hash plus safe basename
        (or ``display`` in its place)."""
        return redact_path(
            str(Path(os.path.expanduser(path)).absolute()),
            load_or_create_key(self.home),
            display=display,
        )

    def _transcript_ref(self, transcript: str | Path | None) -> str | None:
        """The notebook's redacted path; without one, the working directory's, shown as
        ``cli`` (its basename is often a user name); None when there is no directory."""
        if transcript:
            return self.transcript_ref(transcript)
        try:
            cwd = Path.cwd()
        except OSError:  # the working directory was deleted
            return None
        return self.transcript_ref(cwd, display="cli")

    def stats(self) -> dict[str, Any]:
        """Counts of documents, chunks per tier, records per state, hits, and file sizes."""
        out = store_counts(self.store_conn, related_version=self.related_version)
        out["file_bytes"] = {
            path.name: _file_bytes(path) for path in (self.store_path, self.sessions_path)
        }
        return out

    def __enter__(self) -> Arborist:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _file_bytes(path: Path) -> int:
    """A database's size on disk, its write-ahead log included."""
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.is_file())
