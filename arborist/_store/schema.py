"""Migrations of ``store.db``. Append only: never edit or renumber a released step.

Invariants the code keeps (and ``arborist verify`` checks):

* ``chunks.text`` is present exactly when the chunk is hot, and then it is in
  ``chunks_fts`` (an external-content index over the view of hot chunks, with
  their document's title as a second field; rows enter
  and leave it only through :func:`index_chunks` / :func:`unindex_chunks`); a warm chunk
  keeps its text zlib-compressed in ``text_z``, out of the index; a cold
  chunk keeps only its leaf hash.
* one ``current`` version per document URI; older versions are
  ``superseded`` and stay for the records that cite them.
* one ``ok`` cache record per cache key; falsified revisions stay.
* ``merkle_nodes`` holds, for every document, exactly the nodes of its Merkle tree
  at levels :data:`NODE_FLOOR` and above, the root's level excepted
  (:func:`arborist._proofs.merkle.upper_nodes` of its leaves): so a proof reads one block of
  at most ``2**NODE_FLOOR`` leaves and at most ``log2(chunk_count)`` stored nodes,
  never the whole document.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence

from arborist._database.migrations import Migration, split_sql
from arborist._errors import MigrationError
from arborist._proofs.audit import AUDIT_MIGRATION
from arborist._proofs.hashing import DIGEST_SIZE
from arborist._proofs.merkle import tree_levels, upper_nodes
from arborist._store.memo import GENERATION_MIGRATION_SQL, MEMO_MIGRATION_SQL
from arborist._store.vector_schema import VECTORS_MIGRATION_SQL

__all__ = [
    "COLD",
    "HOT",
    "NODE_FLOOR",
    "STORE_MIGRATIONS",
    "TIERS",
    "WARM",
    "index_chunks",
    "index_title",
    "store_nodes",
    "unindex_chunks",
]

HOT, WARM, COLD = "hot", "warm", "cold"
"""Where a chunk's text is kept (``chunks.tier``, whose CHECK lists them; see above). Named
here, below every module that moves chunks between them (:mod:`arborist._store.tiers`)
or stores them (:mod:`arborist._store.documents`)."""
TIERS = (HOT, WARM, COLD)

NODE_FLOOR = 4
"""The lowest level of a document's Merkle tree kept in ``merkle_nodes``: a proof folds
the at most ``2**4 = 16`` leaves of its block itself, and the table holds about one row
per 8 chunks (none for a document of up to 16 chunks)."""

_DOCUMENTS_AND_CACHE = """
CREATE TABLE documents (
    id               INTEGER PRIMARY KEY,
    uri              TEXT NOT NULL,
    version          INTEGER NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN ('surface', 'core')),
    title            TEXT NOT NULL,
    media_type       TEXT NOT NULL,
    content_sha256   TEXT NOT NULL,
    source_root      TEXT NOT NULL,
    chunk_count      INTEGER NOT NULL,
    chunking_version TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'current'
                     CHECK (status IN ('current', 'superseded')),
    created_at       TEXT NOT NULL,
    UNIQUE (uri, version)
);
CREATE UNIQUE INDEX documents_one_current ON documents (uri) WHERE status = 'current';
CREATE INDEX documents_source_root ON documents (source_root);

CREATE VIRTUAL TABLE documents_fts USING fts5 (
    title, uri, content = 'documents', content_rowid = 'id'
);

CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents (id),
    chunk_index INTEGER NOT NULL,
    leaf        TEXT NOT NULL,
    tier        TEXT NOT NULL DEFAULT 'hot' CHECK (tier IN ('hot', 'warm', 'cold')),
    text        TEXT,
    text_z      BLOB,
    heading     TEXT,
    rehydrated  INTEGER NOT NULL DEFAULT 0,
    UNIQUE (document_id, chunk_index),
    CHECK ((tier = 'hot') = (text IS NOT NULL)),
    CHECK ((tier = 'warm') = (text_z IS NOT NULL))
);

-- The index covers hot chunks only; its content is this view, so SQLite's own
-- FTS integrity check compares the index with exactly the rows it should hold.
CREATE VIEW hot_chunk_texts AS SELECT id, text FROM chunks WHERE tier = 'hot';

CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    text, content = 'hot_chunk_texts', content_rowid = 'id'
);

CREATE TABLE derivations (
    id                 INTEGER PRIMARY KEY,
    core_document_id   INTEGER NOT NULL UNIQUE REFERENCES documents (id),
    kind               TEXT NOT NULL CHECK (kind IN ('snippet', 'equation', 'summary')),
    derived_from       TEXT NOT NULL,
    derivation_hash    TEXT NOT NULL,
    created_at         TEXT NOT NULL
);

CREATE TABLE derivation_sources (
    derivation_id INTEGER NOT NULL REFERENCES derivations (id),
    position      INTEGER NOT NULL,
    document_id   INTEGER NOT NULL REFERENCES documents (id),
    source_root   TEXT NOT NULL,
    chunk_count   INTEGER NOT NULL,
    chunk_index   INTEGER NOT NULL,
    leaf          TEXT NOT NULL,
    PRIMARY KEY (derivation_id, position)
);

CREATE TABLE cache_records (
    id                       INTEGER PRIMARY KEY,
    cache_key                TEXT NOT NULL,
    revision                 INTEGER NOT NULL,
    source_root              TEXT NOT NULL,
    question_hash            TEXT NOT NULL,
    model_profile_hash       TEXT NOT NULL,
    conversation_hash        TEXT NOT NULL,
    governance_policy_hash   TEXT NOT NULL,
    schema_version           TEXT NOT NULL,
    canonicalization_version TEXT NOT NULL,
    chunking_version         TEXT NOT NULL,
    question                 TEXT NOT NULL,
    answer_text              TEXT NOT NULL,
    audit_mode               TEXT NOT NULL,
    model_profile_json       TEXT NOT NULL,
    policy_json              TEXT NOT NULL,
    response_json            TEXT NOT NULL,
    record_hash              TEXT NOT NULL,
    state                    TEXT NOT NULL DEFAULT 'ok'
                             CHECK (state IN ('ok', 'failed', 'stale', 'quarantined')),
    state_reason             TEXT,
    hit_count                INTEGER NOT NULL DEFAULT 0,
    last_hit_at              TEXT,
    created_at               TEXT NOT NULL,
    UNIQUE (cache_key, revision)
);
CREATE UNIQUE INDEX cache_one_ok ON cache_records (cache_key) WHERE state = 'ok';

CREATE TABLE cache_evidence (
    record_id   INTEGER NOT NULL REFERENCES cache_records (id),
    rank        INTEGER NOT NULL,
    chunk_id    INTEGER NOT NULL REFERENCES chunks (id),
    document_id INTEGER NOT NULL REFERENCES documents (id),
    source_root TEXT NOT NULL,
    chunk_count INTEGER NOT NULL,
    chunk_index INTEGER NOT NULL,
    leaf        TEXT NOT NULL,
    proof_json  TEXT NOT NULL,
    cited       INTEGER NOT NULL,
    PRIMARY KEY (record_id, rank)
);
CREATE INDEX cache_evidence_document ON cache_evidence (document_id);
"""

# The index gains a field: the document's title, so BM25 can weight a question's subject
# where a document names it (the text alone rarely repeats "statistics" in every chunk of
# the statistics module), and the porter stemmer ("printed" finds "print"). The view still
# holds hot chunks only; 'rebuild' re-reads every hot chunk through it. The guard refuses
# to run over an index that already has its title field: that happens only when this
# migration's row was deleted from schema_migrations, and re-running it would hide the edit.
_FIELDED_INDEX = """
CREATE TEMP TABLE migration_3_guard (
    fielded INTEGER CONSTRAINT chunk_index_already_fielded_so_migration_history_was_edited
        CHECK (fielded = 0)
);
INSERT INTO migration_3_guard
    SELECT count(*) FROM pragma_table_info('chunks_fts') WHERE name = 'title';
DROP TABLE migration_3_guard;
DROP TABLE chunks_fts;
DROP VIEW hot_chunk_texts;
CREATE VIEW hot_chunk_texts AS
    SELECT c.id AS id, c.text AS text, d.title AS title
    FROM chunks AS c JOIN documents AS d ON d.id = c.document_id
    WHERE c.tier = 'hot';
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    text, title, content = 'hot_chunk_texts', content_rowid = 'id',
    tokenize = 'porter unicode61'
);
INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');
"""

# cache_records.source_root holds the evidence root (the Merkle root over an answer's
# evidence, not a document's root): it takes the name the cache_write event and everything
# else already use. The cache key's dimension keeps its hashed name (docs/design.md section
# 3). No index, view or trigger names the column. The guard refuses to run over a table
# that already has the column: that happens only when this migration's row was deleted
# from schema_migrations, and re-running it would hide the edit.
_EVIDENCE_ROOT_COLUMN = """
CREATE TEMP TABLE migration_4_guard (
    renamed INTEGER CONSTRAINT evidence_root_already_named_so_migration_history_was_edited
        CHECK (renamed = 0)
);
INSERT INTO migration_4_guard
    SELECT count(*) FROM pragma_table_info('cache_records') WHERE name = 'evidence_root';
DROP TABLE migration_4_guard;
ALTER TABLE cache_records RENAME COLUMN source_root TO evidence_root;
"""

# A document's Merkle nodes from NODE_FLOOR up, so that a proof never refolds its whole
# tree (docs/design.md section 2). Keyed as a proof asks for them, without a rowid. The
# same migration drops documents_source_root: the only query on that column is a LIKE
# prefix match, which a case-insensitive LIKE cannot answer from a binary index, so the
# index cost every ingest a random page write and served nothing.
_MERKLE_NODES = """
CREATE TABLE merkle_nodes (
    document_id INTEGER NOT NULL REFERENCES documents (id),
    level       INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    node        BLOB NOT NULL,
    PRIMARY KEY (document_id, level, position)
) WITHOUT ROWID;
DROP INDEX documents_source_root;
"""


def store_nodes(conn: sqlite3.Connection, document_id: int, levels: list[list[bytes]]) -> None:
    """Write the stored part of a document's tree (:func:`~arborist._proofs.merkle.tree_levels`)."""
    if len(levels) <= NODE_FLOOR + 1:  # no level at NODE_FLOOR below the root's: nothing kept
        return
    rows = [(document_id, *node) for node in upper_nodes(levels, NODE_FLOOR)]
    if rows:
        conn.executemany(
            "INSERT INTO merkle_nodes (document_id, level, position, node) VALUES (?, ?, ?, ?)",
            rows,
        )


def _merkle_nodes(conn: sqlite3.Connection) -> None:
    """Migration 6: the table, then every stored document's nodes from its stored leaves,
    one document in memory at a time. A document whose leaves are not all there or not all
    hex gets none: its proofs could not hold anyway, and ``arborist verify`` names it."""
    for statement in split_sql(_MERKLE_NODES):
        conn.execute(statement)
    rows = conn.execute(
        "SELECT c.document_id, d.chunk_count, c.leaf FROM chunks AS c "
        "JOIN documents AS d ON d.id = c.document_id WHERE d.chunk_count > ? "
        "ORDER BY c.document_id, c.chunk_index",
        (1 << NODE_FLOOR,),
    )
    for (document_id, count), group in itertools.groupby(rows, key=lambda row: row[:2]):
        try:
            leaves = [bytes.fromhex(leaf) for _id, _count, leaf in group]
        except (TypeError, ValueError):
            continue
        if len(leaves) == count and all(len(leaf) == DIGEST_SIZE for leaf in leaves):
            store_nodes(conn, document_id, tree_levels(leaves))


_COLD_TITLES = """
DROP TABLE documents_fts;

-- The title index holds the documents a search can find by title alone: those with no
-- hot chunk (every chunk evicted), whose text is in no other index. A document with hot
-- chunks is found through chunks_fts, whose rows carry its title. The view is the
-- index's content, so SQLite's FTS integrity check compares the index with exactly the
-- rows it should hold; evict and rehydrate keep the two in step (index_title below).
CREATE VIEW cold_document_titles AS
    SELECT d.id AS id, d.title AS title, d.uri AS uri FROM documents AS d
    WHERE NOT EXISTS (SELECT 1 FROM chunks AS c WHERE c.document_id = d.id AND c.tier = 'hot');

CREATE VIRTUAL TABLE documents_fts USING fts5 (
    title, uri, content = 'cold_document_titles', content_rowid = 'id'
);
INSERT INTO documents_fts (documents_fts) VALUES ('rebuild');
"""
"""Only documents with no hot chunk are in the title index (ingest wrote a title row per
document, about a seventh of the pages an ingest writes, for a row search never used)."""


def index_title(conn: sqlite3.Connection, document_id: int, *, cold: bool) -> None:
    """Put a document's title into the title index (``cold``: its last hot chunk has just
    been evicted) or take it out (its first chunk is back to hot); once per document, in the
    transaction that moved its chunks. (Triggers on each chunk's tier cost a scan of the
    document's chunks per chunk: quadratic in its size.)"""
    command = "" if cold else "documents_fts, "
    value = "" if cold else "'delete', "
    conn.execute(
        f"INSERT INTO documents_fts ({command}rowid, title, uri) "
        f"SELECT {value}id, title, uri FROM documents WHERE id = ?",
        (document_id,),
    )


_TIER_IN_LIST = "CHECK (tier IN ('hot', 'warm', 'cold'))"
_TIER_COMPARED = "CHECK (tier = 'hot' OR tier = 'warm' OR tier = 'cold')"


def _tier_check_by_comparisons(conn: sqlite3.Connection) -> None:
    """Migration 10: ``chunks``' tier CHECK reads ``tier = 'hot' OR tier = 'warm' OR tier =
    'cold'`` where it read ``tier IN ('hot', 'warm', 'cold')``: the same rule (``tier`` is NOT
    NULL, and both compare it as text, by the column's BINARY collation), which SQLite checks
    with three comparisons, where it builds a list of three values into a temporary b-tree
    each time a statement runs: each step of an ``executemany``, so once per chunk written
    (about 2 µs a chunk, a sixth of an ingest's chunk rows).

    A CHECK lives only in its table's CREATE text, so that text is edited in place, as
    SQLite documents for changing a table's constraints
    (https://www.sqlite.org/lang_altertable.html, "otheralter"): ``writable_schema``, the
    table's row of ``sqlite_master``, ``schema_version`` plus one, all in the migration's
    transaction; no row moves, and every row already holds to the rule. The new text is
    parsed on a scratch database first. A table whose text is not migration 2's is refused
    (run twice, the history was edited). Where SQLite refuses to edit its schema (a build in
    defensive mode), the table keeps the list: the same rule, checked more slowly.
    """
    _edit_check(conn, "chunks", _TIER_IN_LIST, _TIER_COMPARED, "10 (tier check by comparisons)")


def _edit_check(
    conn: sqlite3.Connection,
    table: str,
    old: str,
    new: str,
    migration: str,
    *,
    required: bool = False,
) -> None:
    """Replace the CHECK ``old`` with ``new`` in ``table``'s CREATE text, in place (the
    procedure of :func:`_tier_check_by_comparisons`): the edited text parsed on a scratch
    database first, then ``writable_schema``, the table's row of ``sqlite_master`` and
    ``schema_version`` plus one, in the migration's transaction. A table whose text holds
    ``old`` other than once is refused. Where SQLite refuses to edit its schema (defensive
    mode) the table is left as it is, or, when the migration is ``required``, refused."""
    where = "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?"
    (sql,) = conn.execute(where, (table,)).fetchone()
    if sql.count(old) != 1:
        raise MigrationError(
            f"migration {migration} found {table} without the check it edits: its history "
            "row was deleted, or the schema edited"
        )
    edited = sql.replace(old, new)
    scratch = sqlite3.connect(":memory:")
    try:
        scratch.execute(edited)
    finally:
        scratch.close()
    version = int(conn.execute("PRAGMA schema_version").fetchone()[0])
    try:
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?", (edited, table)
        )
        conn.execute(f"PRAGMA schema_version = {version + 1}")
    except sqlite3.OperationalError as exc:
        if "may not be modified" not in str(exc):
            raise
        if required:
            raise MigrationError(
                f"migration {migration} cannot edit the schema: this SQLite is in defensive mode"
            ) from exc
        return  # defensive mode: sqlite_master is read-only; the table stays as it was
    finally:
        conn.execute("PRAGMA writable_schema = OFF")
    if conn.execute(where, (table,)).fetchone()[0] != edited:
        raise MigrationError(f"migration {migration} did not take")


_KINDS_BEFORE_HAIKU = "CHECK (kind IN ('snippet', 'equation', 'summary'))"
_KINDS_WITH_HAIKU = "CHECK (kind IN ('snippet', 'equation', 'summary', 'haiku'))"


def _haiku_kind(conn: sqlite3.Connection) -> None:
    """Migration 12: ``derivations``' kind CHECK admits ``haiku``, the seeds' third core kind
    (haiku, equation, snippet). The rule lives only in the table's CREATE text, which is
    edited in place as migration 10 edits ``chunks``' (see :func:`_tier_check_by_comparisons`
    for the procedure): no row moves, and every row already holds to the wider rule. Where
    SQLite refuses to edit its schema (defensive mode) the migration fails with one line,
    rather than leaving a store whose haiku would be refused at the first write."""
    _edit_check(
        conn,
        "derivations",
        _KINDS_BEFORE_HAIKU,
        _KINDS_WITH_HAIKU,
        "12 (haiku kind)",
        required=True,
    )


_DOCUMENT_ADD_INDEX = """
CREATE INDEX audit_document_add
    ON audit_events (json_extract(CASE WHEN json_valid(body) THEN body END, '$.document_id'))
    WHERE event_type = 'document_add';
"""
"""The expression reads a body that is not JSON as NULL instead of failing, so the same
expression serves the lookup with the index or, if the index were dropped, by a scan
(store/metadata.py)."""

_RECORD_EVENT_INDEXES = """
CREATE INDEX audit_cache_write
    ON audit_events (json_extract(CASE WHEN json_valid(body) THEN body END, '$.cache_key'))
    WHERE event_type = 'cache_write';
CREATE INDEX audit_cache_state ON audit_events (seq) WHERE event_type = 'cache_state';
"""
"""A record's ``cache_write`` event by its key, and the ``cache_state`` events in order, so
every check of an answer can hold it to its events (store/cache/events.py); the same
expressions serve a scan should the indexes be dropped."""

_IMPORTED_RECORDS = """
CREATE TABLE imported_records (
    id                       INTEGER PRIMARY KEY,
    cache_key                TEXT NOT NULL,
    revision                 INTEGER NOT NULL,
    evidence_root            TEXT NOT NULL,
    question_hash            TEXT NOT NULL,
    model_profile_hash       TEXT NOT NULL,
    conversation_hash        TEXT NOT NULL,
    governance_policy_hash   TEXT NOT NULL,
    schema_version           TEXT NOT NULL,
    canonicalization_version TEXT NOT NULL,
    chunking_version         TEXT NOT NULL,
    question                 TEXT NOT NULL,
    answer_text              TEXT NOT NULL,
    audit_mode               TEXT NOT NULL,
    model_profile_json       TEXT NOT NULL,
    policy_json              TEXT NOT NULL,
    response_json            TEXT NOT NULL,
    record_hash              TEXT NOT NULL UNIQUE,
    state                    TEXT NOT NULL DEFAULT 'imported' CHECK (state = 'imported'),
    origin_state             TEXT NOT NULL,
    origin_reason            TEXT,
    created_at               TEXT NOT NULL,
    imported_at              TEXT NOT NULL
);
CREATE INDEX imported_records_key ON imported_records (cache_key);

CREATE TABLE imported_evidence (
    record_id   INTEGER NOT NULL REFERENCES imported_records (id),
    rank        INTEGER NOT NULL,
    source_root TEXT NOT NULL,
    chunk_count INTEGER NOT NULL,
    chunk_index INTEGER NOT NULL,
    leaf        TEXT NOT NULL,
    proof_json  TEXT NOT NULL,
    cited       INTEGER NOT NULL,
    title       TEXT NOT NULL,
    text        TEXT,
    PRIMARY KEY (record_id, rank)
);

CREATE INDEX audit_record_import
    ON audit_events (json_extract(CASE WHEN json_valid(body) THEN body END, '$.record_hash'))
    WHERE event_type = 'record_import';
"""
"""Records another home answered, imported from a bundle with a ``record_import`` event each
(:mod:`arborist._store.cache.imported`): a table of their own, so no cache lookup, no
revision numbering and no ``ok`` index of this home's records ever meets them. An evidence
item keeps its cited chunk's text only when this home holds no document of its root and
size (imported evidence: never indexed, searched or cited by an ask); its ``title`` is the
one the bundle's ``document_add`` event committed. The partial index finds a record's
event by its hash, as migration 13's find a ``cache_write`` by its key."""

_IMPORT_STATE_INDEX = """
CREATE INDEX audit_import_state
    ON audit_events (json_extract(CASE WHEN json_valid(body) THEN body END, '$.record_hash'))
    WHERE event_type = 'import_state';
"""

STORE_MIGRATIONS: tuple[Migration, ...] = (
    # 1: the store's own hash-chained audit log (ingest, evict, cache writes, ...).
    AUDIT_MIGRATION,
    # 2: documents (surface and core) with their chunks and FTS indexes,
    #    derivations of core records, and the cache-first answer records.
    Migration(2, "documents, chunks, derivations, cache", _DOCUMENTS_AND_CACHE),
    # 3: the chunk index gets the document title as a field (fielded BM25) and stems words.
    Migration(3, "fielded chunk index", _FIELDED_INDEX),
    # 4: cache_records.source_root is renamed evidence_root, what it holds.
    Migration(4, "cache records name their evidence root", _EVIDENCE_ROOT_COLUMN),
    # 5: the retrievable corpus's generation (moved by triggers) and the retrieval memo
    #    that lets a cache hit skip ranking while the generation stands (store/memo.py).
    Migration(5, "retrieval memo and corpus generation", MEMO_MIGRATION_SQL),
    # 6: each document's Merkle nodes from level NODE_FLOOR up, backfilled from the stored
    #    leaves (O(log n) proofs); the unused documents_source_root index goes.
    Migration(6, "merkle nodes from level 4 up, backfilled; no source_root index", _merkle_nodes),
    # 7: chunk vectors by leaf and embedding profile, for the hybrid lane (store/vectors.py);
    #    their triggers move the corpus generation as documents and chunks do.
    Migration(7, "chunk vectors for hybrid retrieval", VECTORS_MIGRATION_SQL),
    # 8: the title index holds only documents with no hot chunk (the rest are found
    #    through chunks_fts), kept by evict and rehydrate; ingest writes no title row.
    Migration(8, "title index of documents with no hot chunk", _COLD_TITLES),
    # 9: the corpus's generation is the count plus the last document id, so an ingest
    #    moves it without writing the count (store/memo.py); the memo's rows go.
    Migration(9, "generation from the last document id", GENERATION_MIGRATION_SQL),
    # 10: chunks' tier CHECK compares three times instead of building an IN list per
    #     statement run (the same rule; the CREATE text edited in place).
    Migration(10, "tier check by comparisons", _tier_check_by_comparisons),
    # 11: each document's document_add event found by the document's id, so a hit (and every
    #     view of an answer) can check the title and URI it shows against what that event
    #     committed (store/metadata.py). Guarded: a body that is not JSON indexes as NULL
    #     rather than failing the migration.
    Migration(11, "document_add events by document id", _DOCUMENT_ADD_INDEX),
    # 12: a derivation may be a haiku, the seeds' third core kind beside equation and
    #     snippet (derivations' kind CHECK edited in place, as migration 10 edits chunks').
    Migration(12, "haiku derivations", _haiku_kind),
    # 13: each record's cache_write event found by its key, and the cache_state events by
    #     their order, so a hit (and every view of an answer) holds the record to the hash
    #     and the state its events recorded (store/cache/events.py).
    Migration(13, "cache_write events by key, cache_state events in order", _RECORD_EVENT_INDEXES),
    # 14: records imported from a bundle, apart from the cache (never served, never
    #     superseding), with their evidence and their record_import events by hash.
    Migration(14, "records imported from a bundle, kept apart", _IMPORTED_RECORDS),
    # 15: an imported record's later states, told by later bundles of its home
    #     (store/cache/imported_states.py), found by its hash as its record_import is.
    Migration(15, "import_state events by record hash", _IMPORT_STATE_INDEX),
)


def index_chunks(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """Add hot chunks to ``chunks_fts``, with exactly the fields the view gives them."""
    for start in range(0, len(ids), 500):
        batch = list(ids[start : start + 500])
        conn.execute(
            "INSERT INTO chunks_fts (rowid, text, title) "
            f"SELECT id, text, title FROM hot_chunk_texts WHERE id IN ({','.join('?' * len(batch))})",
            batch,
        )


def unindex_chunks(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """Remove hot chunks from ``chunks_fts``; call it while they are still hot."""
    for start in range(0, len(ids), 500):
        batch = list(ids[start : start + 500])
        conn.execute(
            "INSERT INTO chunks_fts (chunks_fts, rowid, text, title) "
            "SELECT 'delete', id, text, title FROM hot_chunk_texts "
            f"WHERE id IN ({','.join('?' * len(batch))})",
            batch,
        )
