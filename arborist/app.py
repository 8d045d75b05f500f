"""The facade: one object, opened on a home folder, that the CLI and the notebook share.

A feature is written once here (or in the service it calls) and gets two
faces, ``arborist`` on the command line and ``%arborist`` in a notebook.

Home layout (docs/design.md section 1)::

    $ARBORIST_HOME/          default ~/.arborist
        store.db             documents, chunks, cache, its own audit chain
        sessions.db          the conversation forest shard
        config.toml          model profiles and options
        redaction.key        keys transcript-path redaction (0600; co-access only)
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, overload

from arborist.admission import admit
from arborist.analysis import stands_alone
from arborist.audit import (
    ChainReport,
    Checkpoint,
    check_chain,
    has_audit_table,
    head_checkpoint,
    holds_event,
)
from arborist.db import connect, loose_modes, require_writable
from arborist.errors import BadInput, DamagedDatabase, ModelError, NotFound, StorageError
from arborist.forest import SESSIONS_MIGRATIONS
from arborist.forest.bates import is_bates
from arborist.forest.reads import (
    first_turn,
    label_names,
    reusable_turn,
    session_bates,
    turn_answers,
)
from arborist.forest.render import branch_points, render_tree
from arborist.forest.shard import (
    FindHit,
    Node,
    Session,
    create_session,
    find,
    get_node,
    get_session,
    insert_turn,
    list_sessions,
    resolve_ref,
    set_current,
    set_label,
)
from arborist.forest.transfer import ImportResult, export_session, import_lines
from arborist.forest.tree_sync import ForestView
from arborist.forest.verify import SESSIONS_FTS, ForestVerification, verify_forest
from arborist.integrity import FileChecks
from arborist.migrations import Migration, open_database
from arborist.pathref import KEY_FILE, load_or_create_key, redact_path
from arborist.progress import Track, untracked
from arborist.qa.check import AnswerCheck, check_record
from arborist.qa.client import ChatClient
from arborist.qa.models import select_client
from arborist.qa.runner import AskResult, ask
from arborist.qa.standing import Standing, contradictions, standing, standings
from arborist.safejson import decode, loads_toml
from arborist.store import STORE_MIGRATIONS, coaccess
from arborist.store.cache import (
    CacheRecord,
    falsify,
    list_records,
    load_record,
    resolve_key,
    restore,
    stored_answers,
)
from arborist.store.coaccess import RebuildReport, RelatedSource
from arborist.store.demo import demo_corpus
from arborist.store.derive import Derivation, derive_from_record
from arborist.store.documents import (
    IngestResult,
    document_leaves,
    holds_chunk,
    prepare_document,
    resolve_document,
    store_document,
)
from arborist.store.fetch import fetch_url, refetch
from arborist.store.loaders import LoadedDocument, discover, load_path
from arborist.store.search import SearchHit, search
from arborist.store.stats import store_counts
from arborist.store.tiers import TierChange, evict, rehydrate
from arborist.store.vectors import EmbedReport, embed_missing
from arborist.store.verify import STORE_FTS, StoreVerification, verify_store

if TYPE_CHECKING:
    from arborist.store.vectors import Embedder

__all__ = [
    "Arborist",
    "ChainCheck",
    "DatabaseReport",
    "Related",
    "Track",
    "Turn",
    "Verification",
    "default_home",
]


STORE_FILE = "store.db"
SESSIONS_FILE = "sessions.db"
CONFIG_FILE = "config.toml"


def default_home() -> Path:
    """``$ARBORIST_HOME`` if set, else ``~/.arborist``."""
    configured = os.environ.get("ARBORIST_HOME")
    return Path(os.path.expanduser(configured)) if configured else Path.home() / ".arborist"


@dataclass(frozen=True)
class DatabaseReport:
    """The chain report of one database file."""

    name: str
    path: Path
    report: ChainReport


@dataclass(frozen=True)
class ChainCheck:
    """Chain reports of the databases checked, plus checkpoints that matched none of them."""

    databases: tuple[DatabaseReport, ...]
    unmatched: tuple[Checkpoint, ...]

    @property
    def ok(self) -> bool:
        return not self.unmatched and all(db.report.ok for db in self.databases)


@dataclass(frozen=True)
class Turn:
    """One recorded turn: the answer (hit or miss) and the forest node that holds it."""

    result: AskResult
    node: Node
    reused: bool = False


@dataclass(frozen=True)
class Verification:
    """``arborist verify`` over both stores; checkpoints that matched neither chain."""

    store: StoreVerification
    forest: ForestVerification
    unmatched: tuple[Checkpoint, ...]
    modes: tuple[str, ...] = ()  # the home and its files, where other users can read them
    turns: tuple[str, ...] = ()  # turns that show otherwise than the answer their key names

    @property
    def problems(self) -> list[str]:
        lines = list(self.modes)
        lines += [f"store.db: {p}" for p in self.store.problems]
        lines += [f"store.db: audit chain: {p}" for p in self.store.chain.problems]
        lines += [f"sessions.db: {p}" for p in self.forest.problems]
        lines += [f"sessions.db: audit chain: {p}" for p in self.forest.chain.problems]
        lines += [f"sessions.db: {p}" for p in self.turns]
        lines += [
            f"checkpoint {cp} is in neither chain: truncated or rewritten" for cp in self.unmatched
        ]
        return lines

    @property
    def ok(self) -> bool:
        return not self.problems


MAX_THREADED_TURNS = 6
"""How many earlier turns ``thread=True`` puts into the prompt."""

MAX_KEYWORD_TITLES = 12
"""How many cited titles of each turn above a follow-up it may borrow words from."""

RELATED_LANE = 3
"""How many co-accessed chunks ``--related`` adds to an ask's evidence."""

RELATED_SLACK = 0.1
"""How far (a fraction of its rows) the co-access index may lag before an ask's
``--related`` lane or the widget rebuilds it; ``arborist related`` never lets it lag."""


@dataclass(frozen=True)
class Related:
    """What ``related REF`` found: the leaves REF stands for, and their co-accessed chunks."""

    kind: str
    sources: tuple[str, ...]
    items: tuple[RelatedSource, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "sources": list(self.sources),
            "related": [item.as_json() for item in self.items],
        }


class Arborist:
    """An arborist home: its two databases, opened (and migrated) on first use.

    ``store_db`` and ``sessions_db`` override the files' locations. With
    ``create=False`` a missing database is an error instead of a new file,
    and existing files are read as they are, without migrating them.
    """

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        store_db: str | Path | None = None,
        sessions_db: str | Path | None = None,
        create: bool = True,
    ) -> None:
        self.home = Path(os.path.expanduser(home)) if home is not None else default_home()
        self.store_path = Path(store_db) if store_db else self.home / STORE_FILE
        self.sessions_path = Path(sessions_db) if sessions_db else self.home / SESSIONS_FILE
        self.create = create
        self._connections: dict[str, sqlite3.Connection] = {}
        self._config: tuple[tuple[int, int], dict[str, Any]] | None = None

    def __repr__(self) -> str:
        return f"Arborist(home={str(self.home)!r})"

    def _open(self, name: str, path: Path, migrations: tuple[Migration, ...]) -> sqlite3.Connection:
        conn = self._connections.get(name)
        if conn is None:
            if self.create:
                conn = open_database(path, migrations)
            else:
                conn = connect(path, must_exist=True)
                _require_audit_table(conn, path)
            self._connections[name] = conn
        return conn

    @property
    def store_conn(self) -> sqlite3.Connection:
        """Connection to ``store.db``."""
        return self._open("store", self.store_path, STORE_MIGRATIONS)

    @property
    def sessions_conn(self) -> sqlite3.Connection:
        """Connection to ``sessions.db``."""
        return self._open("sessions", self.sessions_path, SESSIONS_MIGRATIONS)

    def chain_check(
        self,
        checkpoints: tuple[Checkpoint, ...] | list[Checkpoint] = (),
        *,
        databases: tuple[str, ...] = ("store", "sessions"),
    ) -> ChainCheck:
        """Check the audit chain of each named database against the checkpoints.

        A checkpoint belongs to the database whose chain holds its event hash.
        When only one database is checked, every checkpoint is checked there
        (so a truncated tail is named as such); otherwise a checkpoint found in
        no chain is returned in ``unmatched``: that history is gone from both.
        """
        conns = {name: self._conn(name) for name in databases}
        assigned: dict[str, list[Checkpoint]] = {name: [] for name in databases}
        unmatched: list[Checkpoint] = []
        for checkpoint in checkpoints:
            owner = _owner(conns, checkpoint)
            if owner is None and len(databases) == 1:
                owner = databases[0]
            if owner is None:
                unmatched.append(checkpoint)
            else:
                assigned[owner].append(checkpoint)
        reports = tuple(
            DatabaseReport(name, self._path(name), check_chain(conn, assigned[name]))
            for name, conn in conns.items()
        )
        return ChainCheck(reports, tuple(unmatched))

    def _conn(self, name: str) -> sqlite3.Connection:
        if name == "store":
            return self.store_conn
        if name == "sessions":
            return self.sessions_conn
        raise ValueError(f"unknown database {name!r}")

    def _path(self, name: str) -> Path:
        return self.store_path if name == "store" else self.sessions_path

    # --- configuration and models -----------------------------------------------------

    @property
    def config(self) -> dict[str, Any]:
        """``config.toml`` of the home, parsed (empty when there is none).

        Every ask reads it (model profiles, the admission allowlist), so the
        parse is kept until the file's size or mtime changes: one stat per use.
        """
        path = self.home / CONFIG_FILE
        try:
            info = path.stat()
        except FileNotFoundError:
            return {}
        stamp = (info.st_mtime_ns, info.st_size)
        if self._config is None or self._config[0] != stamp:
            # not UTF-8, not TOML, or nested too deep to parse: one line
            parsed = loads_toml(decode(path.read_bytes(), str(path)), str(path))
            self._config = (stamp, parsed)
        return self._config[1]

    @property
    def allowlist(self) -> list[str]:
        """Exact strings the admission gate must never redact (``[admission] allowlist``)."""
        section = self.config.get("admission", {})
        values = section.get("allowlist", []) if isinstance(section, dict) else None
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise BadInput("config.toml: [admission] allowlist must be a list of strings")
        return list(values)

    @overload
    def admitted(self, text: str) -> str: ...
    @overload
    def admitted(self, text: None) -> None: ...
    def admitted(self, text: str | None) -> str | None:
        """A short text a user sets (a label, a reason, a derived text) through the
        admission gate, as every document and answer is: secrets never reach a file."""
        return None if text is None else admit(text, allowlist=self.allowlist).text

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
        Without one named, neither the client nor numpy is imported."""
        if not _names_an_embedder(self.config, os.environ):
            return None
        from arborist.qa.embeddings import select_embedder  # noqa: PLC0415 - see above

        return select_embedder(self.config)

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
    ) -> list[IngestResult]:
        """Load and admit every source (a path, a folder or an http(s) URL) first, then store
        each: a source that cannot be read, or that the admission gate refuses, stops the
        batch before anything is written. A folder walk never leaves the folder through a
        symbolic link unless ``follow_symlinks`` (see :func:`discover`).

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
            [s for s in named if s not in urls], include, exclude, follow_symlinks=follow_symlinks
        )
        loaded: list[LoadedDocument] = [load_path(p) for p in track(paths)]
        loaded += [fetch_url(url) for url in urls]
        names: list[str | None] = [str(p) for p in paths] + [None] * len(urls)
        allowlist = self.allowlist
        prepared = [
            prepare_document(doc, allowlist=allowlist, name=name)
            for doc, name in zip(loaded, names, strict=True)
        ]
        del loaded  # what is stored is the admitted text: the loaded one can go
        results = [store_document(self.store_conn, doc) for doc in prepared]
        self._embed_ingested(results, embedder, track if embed_track is None else embed_track)
        return results

    def ingest_demo(
        self, *, track: Track[Any] = untracked, embed_track: Track[Any] | None = None
    ) -> list[IngestResult]:
        """Ingest the built-in corpus: the standard library's own pydoc text, offline (and
        embed it as :meth:`ingest` does)."""
        allowlist, embedder = self.allowlist, self.embedder()
        prepared = [prepare_document(doc, allowlist=allowlist) for doc in demo_corpus()]
        results = [store_document(self.store_conn, doc) for doc in track(prepared)]
        self._embed_ingested(results, embedder, track if embed_track is None else embed_track)
        return results

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """Full-text search over hot chunks and core records, each hit with its audit mode."""
        return search(self.store_conn, query, limit=limit)

    def evict(self, ref: str, tier: str) -> TierChange:
        """Move a document's chunks to ``warm`` or ``cold``."""
        return evict(self.store_conn, resolve_document(self.store_conn, ref), tier)

    def rehydrate(self, ref: str) -> TierChange:
        """Bring a document back to hot, refetching its URI if cold and proving every chunk."""
        return rehydrate(
            self.store_conn,
            resolve_document(self.store_conn, ref),
            refetch,
            allowlist=self.allowlist,
        )

    def derive(self, kind: str, ref: str, text: str | None = None) -> Derivation:
        """Save a core record derived from the cited evidence of the answer under ``ref``
        (a bates number or a cache key)."""
        return derive_from_record(
            self.store_conn, self.resolve_answer(ref), kind, self.admitted(text)
        )

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
    ) -> AskResult:
        """Answer from the cache when every dimension matches, else from the model.

        With ``related``, co-accessed chunks join the evidence as a second lane
        (the co-access index is brought up to date first). ``timeout`` and
        ``retries`` bound the wait for a remote model (see :meth:`client`).
        """
        require_writable(self.store_conn)  # refuse now, not after paying for a model call
        version = ""
        if related:
            version = self._related_index(purpose="--related", slack=RELATED_SLACK)
        return ask(
            self.store_conn,
            self.client(llm, timeout=timeout, retries=retries),
            question,
            context=context,
            sources=sources,
            use_cache=use_cache,
            on_token=on_token,
            threaded=threaded,
            allowlist=self.allowlist,
            related=RELATED_LANE if related else 0,
            related_version=version,
            embedder=self.embedder(),
        )

    def record(self, ref: str, *, revision: int | None = None) -> CacheRecord:
        """The cache record under a key (or unique prefix)."""
        return resolve_key(self.store_conn, ref, revision=revision)

    def check_answer(self, record_id: int) -> AnswerCheck:
        """Re-read cached answer ``record_id`` from store.db now and re-check it (see
        :func:`arborist.qa.check.check_record`); truthy only when all of it holds."""
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
        (:func:`arborist.store.cache.restore`) and its answer still holds: a record whose
        evidence no longer verifies stays out of service."""
        record = resolve_key(self.store_conn, ref, revision=revision)
        check = check_record(record)
        if not check:
            raise BadInput(f"its answer does not hold now: {check.summary}")
        return restore(self.store_conn, ref, revision)

    # --- checks and figures -------------------------------------------------------------------

    def verify(self, checkpoints: Sequence[Checkpoint] = ()) -> Verification:
        """Recompute everything committed in both stores and check both chains.

        Each checkpoint is checked against the chain that holds its event hash;
        one found in neither is reported.

        A damaged file is a finding, not an error: one that cannot even be
        opened is one problem line, and in one that opens, what SQLite's integrity
        check finds comes first and every section still readable is checked.
        """
        conns: dict[str, sqlite3.Connection] = {}
        unopened: dict[str, str] = {}
        for name in ("store", "sessions"):
            try:
                conns[name] = self._conn(name)
            except DamagedDatabase as exc:
                unopened[name] = exc.reason
        assigned: dict[str, list[Checkpoint]] = {"store": [], "sessions": []}
        unmatched = []
        for checkpoint in checkpoints:
            owner, unreadable = None, list(unopened)
            for name, conn in conns.items():
                try:
                    if owner is None and _owner({name: conn}, checkpoint):
                        owner = name
                except DamagedDatabase:
                    unreadable.append(name)
            if owner is None and unreadable:  # perhaps in a chain that cannot be read: it says so
                owner = unreadable[0]
            if owner is None:
                unmatched.append(checkpoint)
            else:
                assigned[owner].append(checkpoint)
        unread = ChainReport(0, None, ())
        # SQLite's own checks of both files run on one thread beside this one (SQLite lets
        # go of the GIL while it checks), so they overlap the hashing below: sessions.db's
        # first, while this thread checks the turns (the longer work), then store.db's.
        with ThreadPoolExecutor(1, thread_name_prefix="arborist-verify") as pool:
            tables = {"sessions": SESSIONS_FTS, "store": STORE_FTS}
            checks = {
                name: FileChecks(conns[name], fts, pool)
                for name, fts in tables.items()
                if name in conns
            }
            forest = (
                verify_forest(conns["sessions"], assigned["sessions"], checks["sessions"])
                if "sessions" in conns
                else ForestVerification(
                    (f"cannot be opened: {unopened['sessions']}",), unread, 0, 0
                )
            )
            across = self._turns_against_answers(conns)  # beside store.db's SQLite checks
            store = (
                verify_store(conns["store"], assigned["store"], checks["store"])
                if "store" in conns
                else StoreVerification((f"cannot be opened: {unopened['store']}",), unread, 0, 0, 0)
            )
        return Verification(store, forest, tuple(unmatched), self._loose_modes(), across)

    @staticmethod
    def _turns_against_answers(conns: Mapping[str, sqlite3.Connection]) -> tuple[str, ...]:
        """Every turn whose key store.db holds, against what those records show (a turn's
        node hash does not cover its answer: design.md section 3b)."""
        if len(conns) < 2:
            return ()
        try:
            answers = stored_answers(conns["store"])
            turns = turn_answers(conns["sessions"])
        except (DamagedDatabase, sqlite3.DatabaseError) as exc:
            return (f"turns against store.db's answers: cannot be read ({exc})",)
        return tuple(contradictions(turns, answers))

    def _loose_modes(self) -> tuple[str, ...]:
        """The home folder and the files arborist keeps in it (the databases with their
        ``-wal`` and ``-shm``, the config, the redaction key, the REPL's history) that other
        users may read: one line each, with the ``chmod`` that makes it private. A home this
        process cannot write (a read-only mount or snapshot) is not judged: arborist writes
        nothing there, and its modes are not arborist's to keep."""
        if not self.home.is_dir() or not os.access(self.home, os.W_OK):
            return ()
        files = [
            Path(f"{db}{suffix}")
            for db in (self.store_path, self.sessions_path)
            for suffix in ("", "-wal", "-shm")
        ]
        files += [self.home / name for name in (CONFIG_FILE, KEY_FILE, "repl_history")]
        return tuple(loose_modes(self.home, files))

    # --- the forest ---------------------------------------------------------------------------

    def new_session(self, label: str | None = None) -> Session:
        """Start a session (a new root in the forest)."""
        return create_session(self.sessions_conn, label=self.admitted(label))

    def session(self, sid: str) -> Session:
        """An existing session."""
        return get_session(self.sessions_conn, sid)

    def sessions(self) -> list[tuple[Session, int]]:
        """Every session with its number of turns."""
        return list_sessions(self.sessions_conn)

    def node(self, ref: str, sid: str | None = None) -> Node:
        """A turn by bates number, or by seq, label or ``root`` within session ``sid``."""
        if sid is None:
            if not is_bates(ref.strip()):
                raise BadInput(f"{ref!r} is not a bates number (a seq or label needs a session)")
            return get_node(self.sessions_conn, ref.strip())
        return resolve_ref(self.sessions_conn, self.session(sid), ref)

    def ask_turn(
        self,
        question: str,
        *,
        sid: str | None,
        new_session: str | None = "cli",
        parent: str | None = None,
        label: str | None = None,
        llm: str | None = None,
        use_cache: bool = True,
        on_token: Callable[[str], None] | None = None,
        reuse: bool = False,
        thread: bool = False,
        related: bool = False,
        transcript: str | Path | None = None,
        timeout: float | None = None,
        retries: int | None = None,
        make_current: bool = True,
    ) -> Turn:
        """Ask under ``parent`` (default: the session's current node) and record the turn.

        ``sid=None`` opens a session labelled ``new_session`` once the answer is in
        hand, so a failed ask writes nothing. The turn becomes current unless
        ``make_current`` is false (a widget fork). A follow-up borrows words from the
        turns above it, never into a hash (docs/retrieval.md); ``thread`` puts them
        in the prompt and the key; ``reuse`` returns the turn a re-run cell asked
        already. With co-access on, the cited chunks are recorded with
        ``transcript`` (the notebook's path) stored redacted.
        """
        recording = coaccess.enabled()
        for conn in (self.store_conn, self.sessions_conn):  # before the answer is paid for
            require_writable(conn)
        under = self._asked_under(sid, parent)
        path = _read_above(self.sessions_conn, under, thread) if under else []
        threaded = _threaded(path) if thread else []
        result = self.ask(
            question, llm=llm, use_cache=use_cache, context=_context(path),
            sources=_sources(path), on_token=on_token, threaded=threaded, related=related,
            timeout=timeout, retries=retries,
        )  # fmt: skip
        session = self.session(sid) if sid is not None else self.new_session(new_session)
        if under is None:  # a new session's root: it exists only now there is a turn to record
            under = get_node(self.sessions_conn, session.current_bates)
        if reuse and result.hit:  # a fresh answer (a miss) is a new turn, never a reuse
            reused = self._reuse(session.sid, under.bates, result, label)
            if reused is not None:
                return Turn(result, reused, reused=True)
        record = result.record
        # Before the turn is written: a failure here must not leave a turn without its rows.
        transcript_ref = self._transcript_ref(transcript) if recording else None
        node = insert_turn(
            self.sessions_conn, session.sid, under.bates, question=record.question,
            answer_text=record.answer_text, cache_key=record.cache_key,
            audit_mode=record.audit_mode, label=self.admitted(label), make_current=make_current,
            cited_titles=list(dict.fromkeys(e.title for e in record.evidence if e.cited)),
        )  # fmt: skip
        if recording:
            self._record_coaccess(session.sid, node.bates, record, transcript_ref)
        return Turn(result, node)

    def _asked_under(self, sid: str | None, parent: str | None) -> Node | None:
        """The node a question is asked under: ``parent`` (a bates number anywhere, or a
        seq or label of session ``sid``), else the session's current node; None for the
        root of a session not created yet."""
        if sid is None:  # a new session's root, or a bates number anywhere (a fork)
            return self.node(parent) if parent else None
        if parent:
            return self.node(parent, sid)
        return get_node(self.sessions_conn, self.session(sid).current_bates)

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

    def _record_coaccess(
        self, sid: str, bates: str, record: CacheRecord, transcript_ref: str | None
    ) -> None:
        """Record which chunks turn ``bates`` cited together, for ``related``."""
        coaccess.ensure_schema(self.store_conn)
        coaccess.record_session(
            self.store_conn,
            session_id=sid,
            transcript_ref=transcript_ref,
            capture_batch_id=bates,
            chunks=[(e.leaf, e.text) for e in record.evidence if e.cited],
            allowlist=self.allowlist,
        )

    def tree(self, sid: str, *, short: bool = False) -> str:
        """A session's tree as text, each turn with the audit mode it can claim now and, while
        that holds, its support (``[STRICT partly]``); ``short``: its turns named ``#12``."""
        return render_tree(
            self.sessions_conn,
            self.session(sid),
            audit=lambda node: self.audit_now(node).badge,
            short=short,
        )

    def forest_view(self) -> ForestView:
        """The forest as the widget's protocol reads it, over this facade's connections."""
        return ForestView(self.sessions_conn, self.store_conn)

    def label_names(self) -> list[str]:
        """Every label a turn of the forest has (what the REPL completes)."""
        return label_names(self.sessions_conn)

    def session_bates(self, sid: str) -> list[str]:
        """The bates numbers of session ``sid``'s turns (what the REPL completes)."""
        return session_bates(self.sessions_conn, sid)

    def audit_now(self, node: Node) -> Standing:
        """The audit mode turn ``node`` can claim now, and why not (``NONE``): its own while
        store.db holds the answer it showed under its key and that answer still holds
        (:mod:`arborist.qa.standing`). A session root claims nothing to check. Each answer
        is checked once while store.db is unchanged, however many turns and views show it."""
        if node.is_root or not node.cache_key:
            return Standing(node.audit_mode)
        turn = (node.cache_key, node.answer_text, node.cited_titles, node.audit_mode)
        return standings(self.store_conn).of(turn)

    def branches(self, sid: str) -> list[tuple[Node, int]]:
        """Branch points (two or more children) of a session's tree."""
        return branch_points(self.sessions_conn, self.session(sid))

    def find(self, query: str, *, limit: int = 10) -> list[FindHit]:
        """Turns of every session matching every word of ``query``."""
        return find(self.sessions_conn, query, limit=limit)

    def cd(self, sid: str, ref: str) -> Node:
        """Make ``ref`` (any session's turn) the session's current node."""
        node = self.node(ref, sid)
        set_current(self.sessions_conn, sid, node.bates)
        return node

    def back(self, sid: str) -> Node:
        """Move the session's current node to its parent."""
        current = get_node(self.sessions_conn, self.session(sid).current_bates)
        if current.parent_bates is None:
            raise BadInput("already at the root")
        return self.cd(sid, current.parent_bates)

    def label(self, sid: str, name: str, ref: str | None = None) -> Node:
        """Name a turn (default: the current one); an empty name takes its label off."""
        session = self.session(sid)
        node = self.node(ref, sid) if ref else get_node(self.sessions_conn, session.current_bates)
        label = self.admitted(name) if name.strip() else None
        return set_label(self.sessions_conn, node.bates, label)

    def export_session(self, sid: str) -> list[dict[str, Any]]:
        """A session as JSON-ready records: its header, then every turn it minted."""
        return list(export_session(self.sessions_conn, sid))

    def import_sessions(self, lines: Iterable[str]) -> ImportResult:
        """Import exported sessions into this shard (every hash re-proved; all or nothing).

        A turn that contradicts the answer this home's store holds under its cache key
        (another answer text, other cited titles, another audit mode) refuses the file:
        its node hash does not cover its answer, so only that record could vouch for it.
        A turn whose key this store does not hold is imported and claims ``NONE`` here
        (:meth:`audit_now`)."""
        return import_lines(
            self.sessions_conn, lines, admit_text=self.admitted, check_turn=self._import_conflict
        )

    def _import_conflict(self, item: Mapping[str, Any]) -> str | None:
        """Why an exported turn may not be imported here, or None (see :meth:`import_sessions`)."""
        key, answer = item.get("cache_key"), item.get("answer_text")
        titles, mode = item.get("cited_titles"), item.get("audit_mode")
        if not (
            isinstance(key, str) and key and isinstance(answer, str) and isinstance(mode, str)
            and isinstance(titles, list) and all(isinstance(t, str) for t in titles)
        ):  # fmt: skip
            return None  # malformed: the turn's own checks refuse it with their own line
        now = standing(self.store_conn, cache_key=key, answer_text=answer, cited=titles,
                       audit_mode=mode)  # fmt: skip
        if not now.conflict:
            return None
        return (
            f"contradicts the answer this home holds under its cache key {key[:16]} "
            f"({now.reason}); nothing was imported"
        )

    def first_turn(self, cache_key: str) -> Node | None:
        """The earliest turn that holds this cache key: where a cached answer was first paid for."""
        bates = first_turn(self.sessions_conn, cache_key)
        return get_node(self.sessions_conn, bates) if bates else None

    def checkpoint(self) -> Checkpoint | None:
        """The forest shard's head checkpoint now (what a notebook output witnesses)."""
        return head_checkpoint(self.sessions_conn)

    def resolve_answer(self, ref: str) -> CacheRecord:
        """The cache record behind a bates number or a cache key."""
        if is_bates(ref.strip()):
            node = get_node(self.sessions_conn, ref.strip())
            if node.is_root:
                raise BadInput(f"{node.bates} is a session root: it has no answer")
            return self.record(node.cache_key)
        return self.record(ref)

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

    def _coaccess_params(self) -> tuple[int, int]:
        """``(window, fanout)`` from ``[coaccess]`` in config.toml, else the defaults."""
        section = self.config.get("coaccess", {})
        if not isinstance(section, dict):
            raise BadInput("config.toml: [coaccess] must be a table")
        window = section.get("window", coaccess.DEFAULT_WINDOW)
        fanout = section.get("fanout", coaccess.DEFAULT_FANOUT)
        for name, value in (("window", window), ("fanout", fanout)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise BadInput(f"config.toml: [coaccess] {name} must be an integer")
        return window, fanout

    @property
    def related_version(self) -> str:
        """The co-access index version the home's ``[coaccess] window/fanout`` select."""
        return coaccess.index_version(*self._coaccess_params())

    def rebuild_related(self, *, on_batch: Callable[[int], None] | None = None) -> RebuildReport:
        """Rebuild the related-sources index from the recorded co-access rows."""
        if not coaccess.enabled():
            raise BadInput(f"co-access is off: set {coaccess.FLAG}=1 to record and index it")
        window, fanout = self._coaccess_params()
        return coaccess.rebuild_related(
            self.store_conn, window=window, fanout=fanout, on_batch=on_batch
        )

    def _related_index(self, *, purpose: str, slack: float = 0.0) -> str:
        """The index version to read, rebuilt first (flag on) when it lags the rows by
        more than ``slack`` (a fraction): 0 for an explicit ``related``; the ask's
        ``--related`` lane and the widget pass :data:`RELATED_SLACK`, so their cost
        of keeping it fresh is spread over many turns instead of paid on each."""
        conn = self.store_conn
        if not coaccess.has_schema(conn):
            raise BadInput(
                f"{purpose}: this store has no co-access index; set {coaccess.FLAG}=1 "
                "and ask some questions first"
            )
        version = self.related_version
        if coaccess.enabled() and coaccess.is_stale(conn, version, slack=slack):
            self.rebuild_related()
        return version

    def related(self, ref: str, *, limit: int = 10) -> Related:
        """Chunks co-accessed with ``ref``: a chunk leaf, a document, or a bates number
        (the chunks its answer cited). A stale index is rebuilt first (with the flag on)."""
        if limit < 1:
            raise BadInput("--limit must be at least 1")
        version = self._related_index(purpose="related")
        kind, sources = self._related_sources(ref.strip())
        edges = coaccess.related_edges(self.store_conn, sources, version=version, limit=limit)
        return Related(kind, tuple(sources), tuple(coaccess.describe(self.store_conn, edges)))

    def related_to_record(self, record: CacheRecord, *, limit: int = 10) -> list[RelatedSource]:
        """Related sources of an answer's cited chunks; empty when the store has no index."""
        conn = self.store_conn
        if not coaccess.has_schema(conn):
            return []
        version = self._related_index(purpose="related", slack=RELATED_SLACK)
        cited = list(dict.fromkeys(e.leaf for e in record.evidence if e.cited))
        return coaccess.describe(
            conn, coaccess.related_edges(conn, cited, version=version, limit=limit)
        )

    def _related_sources(self, ref: str) -> tuple[str, list[str]]:
        conn = self.store_conn
        if not ref:
            raise BadInput("related: give a chunk hash, a document or a bates number")
        if is_bates(ref):
            record = self.resolve_answer(ref)
            leaves = [e.leaf for e in record.evidence if e.cited] or [
                e.leaf for e in record.evidence
            ]
            return "turn", list(dict.fromkeys(leaves))
        is_leaf = len(ref) == 64 and all(c in "0123456789abcdef" for c in ref)
        if is_leaf and holds_chunk(conn, ref):
            return "chunk", [ref]
        try:
            document = resolve_document(conn, ref)
        except NotFound:
            raise NotFound(
                f"no chunk, document or turn {ref!r} (give a chunk hash, a document id, URI "
                "or source_root, or a bates number)"
            ) from None
        leaves = [leaf.hex() for leaf in document_leaves(conn, document.id)]
        return "document", list(dict.fromkeys(leaves))

    def stats(self) -> dict[str, Any]:
        """Counts of documents, chunks per tier, records per state, hits, and file sizes."""
        out = store_counts(self.store_conn, related_version=self.related_version)
        out["file_bytes"] = {
            path.name: _file_bytes(path) for path in (self.store_path, self.sessions_path)
        }
        return out

    def close(self) -> None:
        """Close every open connection."""
        for conn in self._connections.values():
            conn.close()
        self._connections.clear()

    def __enter__(self) -> Arborist:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _read_above(conn: sqlite3.Connection, under: Node, thread: bool) -> list[Node]:
    """``under`` and the nodes above it, nearest first, as far as an ask reads them: to the
    nearest root or turn whose question stands alone (where :func:`_context` ends) and, for
    a threaded ask, until :data:`MAX_THREADED_TURNS` turns are held (:func:`_threaded`;
    these cross into the session forked from). An ask at depth 1,000 reads a few nodes,
    not a thousand."""
    path, seen = [under], {under.bates}
    context_ends = under.is_root or stands_alone(under.question)
    while path[-1].parent_bates is not None and path[-1].parent_bates not in seen:
        turns = sum(not node.is_root for node in path)
        if context_ends and (not thread or turns >= MAX_THREADED_TURNS):
            break
        node = get_node(conn, path[-1].parent_bates)
        path.append(node)
        seen.add(node.bates)
        context_ends = context_ends or node.is_root or stands_alone(node.question)
    return path


def _threaded(path: Sequence[Node]) -> list[tuple[str, str]]:
    """The earlier turns on ``path`` a threaded ask puts into its prompt, oldest first."""
    turns = [(n.question, n.answer_text) for n in reversed(path) if not n.is_root]
    return turns[-MAX_THREADED_TURNS:]


def _context(path: Sequence[Node]) -> list[str]:
    """What a follow-up may borrow from the turns above it (nearest first): each turn's
    question and the subjects of the titles it cited, up to and including the nearest
    turn whose question stands alone (the start of the thread)."""
    texts: list[str] = []
    for node in path:
        if node.is_root:
            break
        texts.append(node.question)
        texts += [title.split(" — ")[0] for title in node.cited_titles[:MAX_KEYWORD_TITLES]]
        if stands_alone(node.question):
            break
    return texts


def _sources(path: Sequence[Node]) -> list[str]:
    """The titles the turns of a follow-up's thread cited (see :func:`_context`)."""
    titles: list[str] = []
    for node in path:
        if node.is_root:
            break
        titles += [t for t in node.cited_titles[:MAX_KEYWORD_TITLES] if t not in titles]
        if stands_alone(node.question):
            break
    return titles


def _file_bytes(path: Path) -> int:
    """A database's size on disk, its write-ahead log included."""
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.is_file())


def _owner(conns: dict[str, sqlite3.Connection], checkpoint: Checkpoint) -> str | None:
    for name, conn in conns.items():
        if holds_event(conn, checkpoint.event_hash):
            return name
    return None


def _require_audit_table(conn: sqlite3.Connection, path: Path) -> None:
    try:
        found = has_audit_table(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StorageError(f"{path} is not a SQLite database: {exc}") from exc
    except StorageError:  # damaged: the error names the file
        conn.close()
        raise
    if not found:
        conn.close()
        raise StorageError(f"{path} is not an arborist database (no audit_events table)")


def _names_an_embedder(config: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether anything names an embedding model (a partial setting too, so that
    :func:`~arborist.qa.embeddings.select_embedder` can refuse it in one line)."""
    if any(name.startswith("ARBORIST_EMBED_") for name in env) or "embeddings" in config:
        return True
    models = config.get("models")
    return isinstance(models, Mapping) and any(
        isinstance(m, Mapping) and m.get("kind") == "embeddings" for m in models.values()
    )
