"""The vector lane's tables (migration 7 of ``store.db``; see :mod:`arborist._store.vectors`).

Apart from :mod:`arborist._store.vectors` so that :mod:`arborist._store.schema` can list the
migration without importing the search code (which imports the schema).

``vector_profiles`` names each embedding profile (the hash of its canonical
JSON, the JSON itself, and the one dimension all its vectors have);
``chunk_vectors`` holds one normalized float16 vector per (profile, chunk leaf).
Vectors steer what retrieval returns, so every change to either table moves
``store_generation`` (migration 5), as a change to ``documents`` or ``chunks`` does.
"""

from __future__ import annotations

__all__ = ["VECTORS_MIGRATION_SQL"]

VECTORS_MIGRATION_SQL = """
CREATE TABLE vector_profiles (
    id           INTEGER PRIMARY KEY,
    profile      TEXT NOT NULL UNIQUE,
    profile_json TEXT NOT NULL,
    dimensions   INTEGER NOT NULL CHECK (dimensions > 0)
);

CREATE TABLE chunk_vectors (
    profile_id INTEGER NOT NULL REFERENCES vector_profiles (id),
    leaf       TEXT NOT NULL,
    vector     BLOB NOT NULL,
    PRIMARY KEY (profile_id, leaf)
) WITHOUT ROWID;

CREATE TRIGGER chunk_vectors_insert_moves_generation AFTER INSERT ON chunk_vectors
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER chunk_vectors_update_moves_generation AFTER UPDATE ON chunk_vectors
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER chunk_vectors_delete_moves_generation AFTER DELETE ON chunk_vectors
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER vector_profiles_update_moves_generation AFTER UPDATE ON vector_profiles
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER vector_profiles_delete_moves_generation AFTER DELETE ON vector_profiles
BEGIN UPDATE store_generation SET generation = generation + 1; END;
"""
