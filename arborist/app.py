"""The facade: one object, opened on a home folder, that the CLI and the notebook share.

A feature is written once here (or in the service it calls) and gets two
faces, ``arborist`` on the command line and ``%arborist`` in a notebook.

Home layout (DESIGN.md section 1)::

    $ARBORIST_HOME/          default ~/.arborist
        store.db             documents, chunks, cache, its own audit chain
        sessions.db          the conversation forest shard
        config.toml          model profiles and options
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from arborist.audit import ChainReport, Checkpoint, check_chain
from arborist.db import Migration, connect, open_database
from arborist.errors import BadInput, StorageError
from arborist.forest import SESSIONS_MIGRATIONS
from arborist.qa.client import ChatClient, select_client
from arborist.qa.records import CacheRecord, falsify, list_records, resolve_key
from arborist.qa.runner import AskResult, ask
from arborist.store import STORE_MIGRATIONS
from arborist.store.demo import demo_corpus
from arborist.store.derive import Derivation, derive_from_record
from arborist.store.documents import IngestResult, ingest_document, resolve_document
from arborist.store.loaders import LoadedDocument, discover, fetch_url, load_path, refetch
from arborist.store.search import SearchHit, search
from arborist.store.tiers import TierChange, evict, rehydrate
from arborist.store.verify import StoreVerification, verify_store

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["Arborist", "ChainCheck", "DatabaseReport", "Track", "default_home"]

T = TypeVar("T")
Track = Callable[[Iterable[T]], Iterable[T]]
"""Wraps an iterable to show progress (tqdm in a terminal, tqdm.auto in a notebook)."""

STORE_FILE = "store.db"
SESSIONS_FILE = "sessions.db"
CONFIG_FILE = "config.toml"


def _untracked(items: Iterable[T]) -> Iterable[T]:
    return items


def default_home() -> Path:
    """``$ARBORIST_HOME`` if set, else ``~/.arborist``."""
    configured = os.environ.get("ARBORIST_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".arborist"


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
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.store_path = Path(store_db) if store_db else self.home / STORE_FILE
        self.sessions_path = Path(sessions_db) if sessions_db else self.home / SESSIONS_FILE
        self.create = create
        self._connections: dict[str, sqlite3.Connection] = {}

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
        """``config.toml`` of the home, parsed (empty when there is none)."""
        path = self.home / CONFIG_FILE
        if not path.is_file():
            return {}
        try:
            parsed: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise BadInput(f"{path} is not valid TOML: {exc}") from exc
        return parsed

    def client(self, name: str | None = None) -> ChatClient:
        """The chat client named ``name`` (``--llm``), else ``$ARBORIST_LLM``, else extractive."""
        return select_client(name, config=self.config)

    # --- documents --------------------------------------------------------------------------

    def ingest(
        self,
        sources: Sequence[str],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        track: Track[Any] = _untracked,
    ) -> list[IngestResult]:
        """Load every source first (any unreadable one stops the batch before a write), then store each."""
        urls = [s for s in sources if s.startswith(("http://", "https://"))]
        paths = discover([s for s in sources if s not in urls], include, exclude)
        loaded: list[LoadedDocument] = [load_path(p) for p in track(paths)]
        loaded += [fetch_url(url) for url in urls]
        return [ingest_document(self.store_conn, doc) for doc in loaded]

    def ingest_demo(self, *, track: Track[Any] = _untracked) -> list[IngestResult]:
        """Ingest the built-in corpus: the standard library's own pydoc text, offline."""
        return [ingest_document(self.store_conn, doc) for doc in track(list(demo_corpus()))]

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """Full-text search over hot chunks and core records, each hit with its audit mode."""
        return search(self.store_conn, query, limit=limit)

    def evict(self, ref: str, tier: str) -> TierChange:
        """Move a document's chunks to ``warm`` or ``cold``."""
        return evict(self.store_conn, resolve_document(self.store_conn, ref), tier)

    def rehydrate(self, ref: str) -> TierChange:
        """Bring a document back to hot, refetching its URI if cold and proving every chunk."""
        return rehydrate(self.store_conn, resolve_document(self.store_conn, ref), refetch)

    def derive(self, kind: str, ref: str, text: str | None = None) -> Derivation:
        """Save a core record derived from the cited evidence of the answer under ``ref``."""
        return derive_from_record(self.store_conn, self.record(ref), kind, text)

    # --- answers ------------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        llm: str | None = None,
        use_cache: bool = True,
        keywords: Sequence[str] = (),
        on_token: Callable[[str], None] | None = None,
    ) -> AskResult:
        """Answer from the cache when every dimension matches, else from the model."""
        return ask(
            self.store_conn,
            self.client(llm),
            question,
            keywords=keywords,
            use_cache=use_cache,
            on_token=on_token,
        )

    def record(self, ref: str, *, revision: int | None = None) -> CacheRecord:
        """The cache record under a key (or unique prefix)."""
        return resolve_key(self.store_conn, ref, revision=revision)

    def records(self, *, limit: int | None = None) -> list[CacheRecord]:
        """Every cache record, newest first."""
        return list_records(self.store_conn, limit=limit)

    def falsify(self, ref: str, state: str, reason: str) -> CacheRecord:
        """Take a cached answer out of service as ``failed``, ``stale`` or ``quarantined``."""
        return falsify(self.store_conn, ref, state, reason)

    # --- checks and figures -------------------------------------------------------------------

    def verify(self, checkpoints: Sequence[Checkpoint] = ()) -> StoreVerification:
        """Recompute everything committed in ``store.db`` and check its chain."""
        return verify_store(self.store_conn, checkpoints)

    def stats(self) -> dict[str, Any]:
        """Counts of documents, chunks per tier, records per state, hits, and file sizes."""
        conn = self.store_conn
        documents = dict(
            conn.execute(
                "SELECT kind || ':' || status, count(*) FROM documents GROUP BY kind, status"
            ).fetchall()
        )
        tiers = dict(conn.execute("SELECT tier, count(*) FROM chunks GROUP BY tier").fetchall())
        states = dict(
            conn.execute("SELECT state, count(*) FROM cache_records GROUP BY state").fetchall()
        )
        hits = conn.execute("SELECT coalesce(sum(hit_count), 0) FROM cache_records").fetchone()[0]
        events = conn.execute("SELECT count(*) FROM audit_events").fetchone()[0]
        files = {}
        for path in (self.store_path, self.sessions_path):
            size = sum(
                p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.is_file()
            )
            files[path.name] = size
        return {
            "documents": {
                "surface": documents.get("surface:current", 0),
                "core": documents.get("core:current", 0),
                "superseded": sum(v for k, v in documents.items() if k.endswith(":superseded")),
            },
            "chunks": {tier: tiers.get(tier, 0) for tier in ("hot", "warm", "cold")},
            "cache_records": {
                state: states.get(state, 0) for state in ("ok", "failed", "stale", "quarantined")
            },
            "cache_hits": hits,
            "audit_events": events,
            "file_bytes": files,
        }

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


def _owner(conns: dict[str, sqlite3.Connection], checkpoint: Checkpoint) -> str | None:
    for name, conn in conns.items():
        found = conn.execute(
            "SELECT 1 FROM audit_events WHERE event_hash = ?", (checkpoint.event_hash,)
        ).fetchone()
        if found:
            return name
    return None


def _require_audit_table(conn: sqlite3.Connection, path: Path) -> None:
    try:
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_events'"
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StorageError(f"{path} is not a SQLite database: {exc}") from exc
    if not found:
        conn.close()
        raise StorageError(f"{path} is not an arborist database (no audit_events table)")
