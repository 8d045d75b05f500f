"""Session co-access: the chunks turns of one session cite together, learned forward only.

docs/design.md section 7. Two tables in
``store.db``, created only when the feature is on (``ARBORIST_COACCESS=1``);
off, nothing here runs and the stores' bytes are what they would be without
the feature.

* ``record_session`` — the substrate, one row per (content, session):
  ``content_hash`` is a cited chunk's leaf, ``ordinal`` its position among
  the chunks the session cited (first occurrence kept), ``capture_batch_id``
  the turn that cited it, ``transcript_ref`` the redacted notebook or CLI
  path. Written for *admitted* chunks only: a chunk whose text the admission
  gate would change (a secret) abstains — no row, hence no edge.
* ``related_hashes`` — the only thing derived from it, rebuilt off the ask's
  path by :func:`rebuild_related`: for every chunk, its neighbours within
  ``window`` ordinals in the same session, at most ``fanout`` of them (never
  the whole-session clique), scored by ``freq_score`` = the fraction of the
  chunk's sessions in which the neighbour was near it, in [0, 1].

Co-access is a behavioural signal, not committed content: no hash covers
these rows, and ``arborist verify`` does not check them (docs/guarantees.md).
An answer that used the ``--related`` lane is still fully provable, because
the chunks the lane added are evidence like any other.
"""

from __future__ import annotations

import os
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from arborist._clock import utc_now
from arborist._database.db import snapshot, transaction
from arborist._database.migrations import split_sql
from arborist._errors import BadInput
from arborist._gate.admission import admit
from arborist._store.schema import HOT

__all__ = [
    "Captured",
    "DEFAULT_FANOUT",
    "DEFAULT_WINDOW",
    "Edge",
    "FLAG",
    "RebuildReport",
    "RelatedSource",
    "admitted_leaves",
    "compute_edges",
    "counts",
    "describe",
    "enabled",
    "ensure_schema",
    "has_schema",
    "index_version",
    "insert_rows",
    "is_stale",
    "rebuild_related",
    "record_session",
    "related_edges",
]

FLAG = "ARBORIST_COACCESS"
DEFAULT_WINDOW = 4
DEFAULT_FANOUT = 8
ALGORITHM = "freq1"
WRITE_BATCH = 2000

SCHEMA = """
CREATE TABLE IF NOT EXISTS record_session (
    content_hash     TEXT NOT NULL CHECK (length(content_hash) = 64),
    session_id       TEXT NOT NULL,
    transcript_ref   TEXT,
    ordinal          INTEGER NOT NULL CHECK (ordinal >= 0),
    capture_batch_id TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    PRIMARY KEY (content_hash, session_id)
);
CREATE INDEX IF NOT EXISTS record_session_order ON record_session (session_id, ordinal);
CREATE TABLE IF NOT EXISTS related_hashes (
    index_version TEXT NOT NULL,
    source_hash   TEXT NOT NULL,
    related_hash  TEXT NOT NULL,
    freq_score    REAL NOT NULL CHECK (freq_score >= 0 AND freq_score <= 1),
    computed_at   TEXT NOT NULL,
    PRIMARY KEY (index_version, source_hash, related_hash),
    CHECK (source_hash <> related_hash)
);
CREATE INDEX IF NOT EXISTS chunks_leaf ON chunks (leaf);
CREATE TABLE IF NOT EXISTS related_builds (
    index_version TEXT PRIMARY KEY,
    source_rows   INTEGER NOT NULL,
    edges         INTEGER NOT NULL,
    built_at      TEXT NOT NULL
);
"""

_TABLES = ("record_session", "related_hashes", "related_builds")


def enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``ARBORIST_COACCESS`` turns the feature on (``1``); unset, empty or ``0`` is off."""
    value = environ.get(FLAG, "").strip()
    if value in ("", "0"):
        return False
    if value == "1":
        return True
    raise BadInput(f"{FLAG} must be 0 or 1, not {value!r}")


def has_schema(conn: sqlite3.Connection) -> bool:
    """Whether this store has the co-access tables (only ever created with the flag on)."""
    names = {
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)", _TABLES
        )
    }
    return len(names) == len(_TABLES)


def counts(conn: sqlite3.Connection, version: str) -> dict[str, int]:
    """Recorded rows, and the edges of index ``version`` (the store must have the schema)."""
    rows = conn.execute("SELECT count(*) FROM record_session").fetchone()[0]
    edges = conn.execute(
        "SELECT count(*) FROM related_hashes WHERE index_version = ?", (version,)
    ).fetchone()[0]
    return {"rows": int(rows), "edges": int(edges)}


def ensure_schema(conn: sqlite3.Connection) -> bool:
    """Create the co-access tables if missing; True when this call created them.

    Additive (no existing table is touched) and re-runnable: every statement
    is ``IF NOT EXISTS``, and an up-to-date store is only read.
    """
    if has_schema(conn):
        return False
    with transaction(conn):
        for statement in split_sql(SCHEMA):
            conn.execute(statement)
    return True


@dataclass(frozen=True)
class Captured:
    """What one turn's recording wrote: rows inserted, rows already there, chunks abstained."""

    written: int
    existing: int
    abstained: int


def admitted_leaves(
    chunks: Iterable[tuple[str, str | None]], allowlist: Sequence[str] = ()
) -> tuple[list[str], int]:
    """The leaves of the ``(leaf, text)`` chunks a turn cited that may be recorded, in citation
    order without repeats, and how many chunks abstained: a chunk is admitted only if its
    text is present and the admission gate leaves it unchanged."""
    admitted: list[str] = []
    abstained = 0
    for leaf, text in chunks:
        if text is None or admit(text, allowlist=allowlist).redactions:
            abstained += 1
        elif leaf not in admitted:
            admitted.append(leaf)
    return admitted, abstained


def insert_rows(
    conn: sqlite3.Connection,
    *,
    session_id: str,
    transcript_ref: str | None,
    capture_batch_id: str,
    leaves: Sequence[str],
    now: str,
) -> int:
    """Write the rows of admitted ``leaves`` inside the caller's transaction; the rows
    written. A leaf the session already cited keeps its row and its first ordinal."""
    written = 0
    ordinal = conn.execute(
        "SELECT coalesce(max(ordinal) + 1, 0) FROM record_session WHERE session_id = ?",
        (session_id,),
    ).fetchone()[0]
    for leaf in leaves:
        cursor = conn.execute(
            "INSERT INTO record_session (content_hash, session_id, transcript_ref, "
            "ordinal, capture_batch_id, created_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (content_hash, session_id) DO NOTHING",
            (leaf, session_id, transcript_ref, ordinal, capture_batch_id, now),
        )
        if cursor.rowcount:
            written += 1
            ordinal += 1
    return written


def record_session(
    conn: sqlite3.Connection,
    *,
    session_id: str,
    transcript_ref: str | None,
    capture_batch_id: str,
    chunks: Iterable[tuple[str, str | None]],
    allowlist: Sequence[str] = (),
) -> Captured:
    """Record the ``(leaf, text)`` chunks a turn cited, in citation order, for ``session_id``.

    A chunk is admitted only if its text is present and the admission gate
    leaves it unchanged; anything else abstains and writes nothing. Rows are
    idempotent on ``(content_hash, session_id)``: a chunk the session already
    cited keeps its first ordinal. One transaction. (A turn's capture goes
    through :mod:`arborist._store.coaccess_spool`, which survives a crash.)
    """
    admitted, abstained = admitted_leaves(chunks, allowlist)
    written = 0
    if admitted:
        with transaction(conn):
            written = insert_rows(
                conn,
                session_id=session_id,
                transcript_ref=transcript_ref,
                capture_batch_id=capture_batch_id,
                leaves=admitted,
                now=utc_now(),
            )
    return Captured(written, len(admitted) - written, abstained)


# --- the related index ----------------------------------------------------------------------


def index_version(window: int, fanout: int) -> str:
    """Names the algorithm and its parameters; edges of other versions are swept on rebuild."""
    for name, value in (("window", window), ("fanout", fanout)):
        if not 1 <= value <= 64:
            raise BadInput(f"co-access {name} must be between 1 and 64, not {value}")
    return f"{ALGORITHM}-w{window}-k{fanout}"


def compute_edges(
    rows: Iterable[tuple[str, int, str]], *, window: int, fanout: int
) -> dict[str, dict[str, float]]:
    """Edges from ``(session_id, ordinal, content_hash)`` rows: ``{source: {related: score}}``.

    Two chunks are near in a session when their ordinals differ by at most
    ``window``. ``freq_score(a, b)`` = sessions where b was near a / sessions
    that cited a. Each source keeps its ``fanout`` best neighbours: higher
    score, then nearer on average, then the smaller hash (deterministic).
    """
    by_session: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for session_id, ordinal, content in rows:
        by_session[session_id].append((ordinal, content))
    sessions_with: dict[str, int] = defaultdict(int)
    together: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    nearness: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for cited in by_session.values():
        cited.sort()
        for i, (ordinal, source) in enumerate(cited):
            sessions_with[source] += 1
            for j in range(i + 1, len(cited)):
                other_ordinal, other = cited[j]
                distance = other_ordinal - ordinal
                if distance > window:
                    break
                for a, b in ((source, other), (other, source)):
                    together[a][b] += 1
                    nearness[a][b] += window + 1 - distance
    edges: dict[str, dict[str, float]] = {}
    for source, neighbours in together.items():
        best = sorted(
            neighbours,
            key=lambda b: (-neighbours[b], -nearness[source][b], b),
        )[:fanout]
        edges[source] = {b: neighbours[b] / sessions_with[source] for b in best}
    return edges


@dataclass(frozen=True)
class RebuildReport:
    """One rebuild: the version built, rows read, edges kept, and what changed."""

    index_version: str
    source_rows: int
    edges: int
    inserted: int
    updated: int
    deleted: int


def _source_rows(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM record_session").fetchone()[0])


def is_stale(conn: sqlite3.Connection, version: str, *, slack: float = 0.0) -> bool:
    """Whether ``record_session`` grew since the last complete build of ``version`` by
    more than ``slack`` (a fraction of the rows built from); never built is stale."""
    if not has_schema(conn):
        return False
    row = conn.execute(
        "SELECT source_rows FROM related_builds WHERE index_version = ?", (version,)
    ).fetchone()
    if row is None or type(row[0]) is not int:  # bookkeeping an edit left unreadable: rebuild
        return True
    built = row[0]
    return _source_rows(conn) - built > slack * built


def rebuild_related(
    conn: sqlite3.Connection,
    *,
    window: int = DEFAULT_WINDOW,
    fanout: int = DEFAULT_FANOUT,
    batch_size: int = WRITE_BATCH,
    on_batch: Callable[[int], None] | None = None,
) -> RebuildReport:
    """Bring ``related_hashes`` in line with ``record_session``, the only source of edges.

    Reads the substrate in one snapshot, computes the edges, and writes only
    the difference, ``batch_size`` changes per transaction (``on_batch`` is
    called after each). Idempotent: a second run changes nothing, and a run
    interrupted between batches, run again, ends in the same table as one
    uninterrupted run. The build is marked complete (and edges of other
    versions swept) in the last transaction.
    """
    version = index_version(window, fanout)
    ensure_schema(conn)
    with snapshot(conn):  # the rows and the edges built from them, read at one moment
        rows = conn.execute(
            "SELECT session_id, ordinal, content_hash FROM record_session"
        ).fetchall()
        existing = _edges_of(conn, version)
    wanted = {
        (source, related): score
        for source, neighbours in compute_edges(rows, window=window, fanout=fanout).items()
        for related, score in neighbours.items()
    }
    upserts = sorted(
        (pair, score)
        for pair, score in wanted.items()
        if pair not in existing or existing[pair] != score
    )
    deletes = sorted(pair for pair in existing if pair not in wanted)
    now = utc_now()
    changes: list[_Change] = [(pair, None) for pair in deletes]
    changes += upserts
    for start in range(0, len(changes), batch_size):
        with transaction(conn):
            _apply(conn, version, changes[start : start + batch_size], now)
        if on_batch is not None:
            on_batch(min(start + batch_size, len(changes)))
    _mark_built(conn, version, len(rows), len(wanted), now)
    inserted = sum(1 for pair, _ in upserts if pair not in existing)
    return RebuildReport(
        version, len(rows), len(wanted), inserted, len(upserts) - inserted, len(deletes)
    )


_Change = tuple[tuple[str, str], float | None]
"""One edge to write: ``(source, related)`` and its score, or None to delete it."""


def _edges_of(conn: sqlite3.Connection, version: str) -> dict[tuple[str, str], float]:
    """The edges of index ``version`` as they stand, with their scores."""
    rows = conn.execute(
        "SELECT source_hash, related_hash, freq_score FROM related_hashes WHERE index_version = ?",
        (version,),
    )
    return {(source, related): score for source, related, score in rows}


def _apply(conn: sqlite3.Connection, version: str, changes: Sequence[_Change], now: str) -> None:
    """Write one batch of edge changes (inside the caller's transaction)."""
    for (source, related), score in changes:
        if score is None:
            conn.execute(
                "DELETE FROM related_hashes WHERE index_version = ? AND source_hash = ? "
                "AND related_hash = ?",
                (version, source, related),
            )
        else:
            conn.execute(
                "INSERT INTO related_hashes (index_version, source_hash, related_hash, "
                "freq_score, computed_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (index_version, source_hash, related_hash) DO UPDATE SET "
                "freq_score = excluded.freq_score, computed_at = excluded.computed_at",
                (version, source, related, score, now),
            )


def _mark_built(
    conn: sqlite3.Connection, version: str, source_rows: int, edges: int, now: str
) -> None:
    """Mark the build of ``version`` complete and sweep every other version's edges."""
    with transaction(conn):
        conn.execute("DELETE FROM related_hashes WHERE index_version <> ?", (version,))
        conn.execute("DELETE FROM related_builds WHERE index_version <> ?", (version,))
        conn.execute(
            "INSERT INTO related_builds (index_version, source_rows, edges, built_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (index_version) DO UPDATE SET "
            "source_rows = excluded.source_rows, edges = excluded.edges, "
            "built_at = excluded.built_at",
            (version, source_rows, edges, now),
        )


@dataclass(frozen=True)
class Edge:
    """A related chunk: its leaf, its best score, and which of the asked leaves led to it."""

    related_hash: str
    freq_score: float
    via: str


def related_edges(
    conn: sqlite3.Connection,
    sources: Sequence[str],
    *,
    version: str,
    exclude: Iterable[str] = (),
    limit: int | None = None,
) -> list[Edge]:
    """The neighbours of ``sources`` (leaves) in the ``version`` index, best first.

    A neighbour reached from several sources appears once, with its best
    score. Sources themselves and ``exclude`` are left out. Empty when the
    store has no co-access tables.
    """
    if not sources or not has_schema(conn):
        return []
    skip = set(sources) | set(exclude)
    best: dict[str, Edge] = {}
    for start in range(0, len(sources), 500):
        part = list(sources[start : start + 500])
        marks = ", ".join("?" * len(part))
        for source, related, score in conn.execute(
            "SELECT source_hash, related_hash, freq_score FROM related_hashes "
            f"WHERE index_version = ? AND source_hash IN ({marks})",
            (version, *part),
        ):
            if related in skip:
                continue
            known = best.get(related)
            if (
                known is None
                or score > known.freq_score
                or (score == known.freq_score and source < known.via)
            ):
                best[related] = Edge(related, float(score), source)
    ranked = sorted(best.values(), key=lambda e: (-e.freq_score, e.related_hash))
    return ranked if limit is None else ranked[:limit]


@dataclass(frozen=True)
class RelatedSource:
    """A related chunk as a user sees it: where it is, how strongly, and through which leaf."""

    leaf: str
    freq_score: float
    via: str
    title: str
    uri: str
    document_id: int
    chunk_index: int
    tier: str
    text: str | None

    def as_json(self) -> dict[str, object]:
        return {
            "leaf": self.leaf,
            "freq_score": self.freq_score,
            "via": self.via,
            "title": self.title,
            "uri": self.uri,
            "document_id": self.document_id,
            "chunk_index": self.chunk_index,
            "tier": self.tier,
            "text": self.text,
        }


def describe(conn: sqlite3.Connection, edges: Iterable[Edge]) -> list[RelatedSource]:
    """Each edge's chunk, preferring a hot chunk of a current document (edges whose
    content is no longer in the store are left out)."""
    out = []
    for edge in edges:
        row = conn.execute(
            "SELECT d.title, d.uri, d.id, c.chunk_index, c.tier, c.text FROM chunks AS c "
            "JOIN documents AS d ON d.id = c.document_id WHERE c.leaf = ? "
            f"ORDER BY d.status = 'current' DESC, c.tier = '{HOT}' DESC, c.id LIMIT 1",
            (edge.related_hash,),
        ).fetchone()
        if row is not None:
            title, uri, document_id, index, tier, text = row
            out.append(
                RelatedSource(
                    edge.related_hash,
                    edge.freq_score,
                    edge.via,
                    str(title),
                    str(uri),
                    int(document_id),
                    int(index),
                    str(tier),
                    text,
                )
            )
    return out
