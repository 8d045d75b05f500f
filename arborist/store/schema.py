"""Migrations of ``store.db``. Append only: never edit or renumber a released step.

Invariants the code keeps (and ``arborist verify`` checks):

* ``chunks.text`` is present exactly when the chunk is hot, and then it is in
  ``chunks_fts`` (an external-content index over the view of hot chunks); a warm chunk
  keeps its text zlib-compressed in ``text_z``, out of the index; a cold
  chunk keeps only its leaf hash.
* one ``current`` version per document URI; older versions are
  ``superseded`` and stay for the records that cite them.
* one ``ok`` cache record per cache key; falsified revisions stay.
"""

from __future__ import annotations

from arborist.audit import AUDIT_MIGRATION
from arborist.db import Migration

__all__ = ["STORE_MIGRATIONS"]

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

STORE_MIGRATIONS: tuple[Migration, ...] = (
    # 1: the store's own hash-chained audit log (ingest, evict, cache writes, ...).
    AUDIT_MIGRATION,
    # 2: documents (surface and core) with their chunks and FTS indexes,
    #    derivations of core records, and the cache-first answer records.
    Migration(2, "documents, chunks, derivations, cache", _DOCUMENTS_AND_CACHE),
)
