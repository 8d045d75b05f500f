"""What retrieval chose, remembered per question until the retrievable corpus changes.

Retrieval is a pure function of the question (with its context and limit)
and of what the index can return: the hot chunks of current documents, their
texts and their documents' titles. The corpus's **generation** moves with
every change to it, inside the writing transaction, so no code path can
change what retrieval would return without moving it. It is the sum of two
numbers (:data:`GENERATION_SQL`): ``store_generation``'s count, moved by
triggers on ``documents`` (a version superseded or renamed, a row deleted, a
row inserted below the last id), on ``chunks`` (a tier move, a rehydration,
an edit, a deletion) and on the vector tables (:mod:`arborist._store.vector_schema`),
and the last document id, ``max(documents.id)``, which an ingest moves by
inserting its document (SQLite gives a new row the last id plus one): so an
ingest writes no counter row, a page fewer per document (store migration 9;
before it, a trigger counted every insert). Chunks are only ever inserted
with their document, whose insert moves it.

Why the sum always grows, change by change (each trigger runs per row, after it):

* an insert at a new last id raises the last id and leaves the count;
* an insert below the last id leaves the last id and adds one to the count;
* an update or a delete of a document adds ``1 + max(0, OLD.id - last id after it)``
  to the count: the last id falls by at most ``max(0, OLD.id - last id after it)``
  (only this row moved), so the sum rises by at least one;
* any other change (a chunk, a vector, a profile) adds one to the count and leaves
  the last id.

Document ids are assigned one per version ingested, so the sum stays far inside
SQLite's 64-bit integers.

A memo row says: at generation G, this question retrieved these chunks (by
id, with their scores). While the generation is still G, retrieving again
would return exactly the same list, so the hit path reads the list instead
of ranking every match in the index, and a hit costs the same at any store
size. Nothing about the memo is trusted: the rows it names are re-read and
their texts re-hashed like any retrieval's, and the runner serves a memo's
evidence only when it leads to an ``ok`` record; otherwise it retrieves afresh.

The memo's key holds everything retrieval reads besides the corpus, and the
retrieval's name and arborist's version, so a changed rule never reads an
old list. Rows of past generations are deleted as new ones are written.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence

from arborist._database.db import transaction
from arborist._proofs.hashing import canonical_json, sha256_hex
from arborist._version import __version__

__all__ = [
    "GENERATION_MIGRATION_SQL",
    "GENERATION_SQL",
    "MEMO_MIGRATION_SQL",
    "generation",
    "memo_key",
    "recall",
    "remember",
]

MEMO_MIGRATION_SQL = """
CREATE TABLE store_generation (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
);
INSERT INTO store_generation (id, generation) VALUES (1, 0);

CREATE TRIGGER documents_insert_moves_generation AFTER INSERT ON documents
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER documents_update_moves_generation AFTER UPDATE ON documents
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER documents_delete_moves_generation AFTER DELETE ON documents
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER chunks_update_moves_generation AFTER UPDATE ON chunks
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER chunks_delete_moves_generation AFTER DELETE ON chunks
BEGIN UPDATE store_generation SET generation = generation + 1; END;

CREATE TABLE retrieval_memo (
    memo_key   TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    evidence   TEXT NOT NULL
);
CREATE INDEX retrieval_memo_generation ON retrieval_memo (generation);
"""

# Store migration 9: the generation becomes the count plus the last document id (see the
# module docstring), so inserting a document at the end moves it without writing the count.
# The memo's rows were written under the old reckoning and go (a memo is only a hint: an
# old row's generation could equal a new one). Run over a store that already has it (its
# history row deleted), the first DROP finds no trigger and the migration fails whole.
GENERATION_MIGRATION_SQL = """
DROP TRIGGER documents_insert_moves_generation;
DROP TRIGGER documents_update_moves_generation;
DROP TRIGGER documents_delete_moves_generation;
CREATE TRIGGER documents_insert_below_the_last_moves_generation AFTER INSERT ON documents
WHEN NEW.id < (SELECT max(id) FROM documents)
BEGIN UPDATE store_generation SET generation = generation + 1; END;
CREATE TRIGGER documents_update_moves_generation AFTER UPDATE ON documents
BEGIN UPDATE store_generation
    SET generation = generation + 1 + max(0, OLD.id - (SELECT max(id) FROM documents)); END;
CREATE TRIGGER documents_delete_moves_generation AFTER DELETE ON documents
BEGIN UPDATE store_generation
    SET generation = generation + 1 + max(0, OLD.id - coalesce((SELECT max(id) FROM documents), 0));
END;
DELETE FROM retrieval_memo;
"""

GENERATION_SQL = (
    "(SELECT g.generation + coalesce((SELECT max(id) FROM documents), 0) "
    "FROM store_generation AS g)"
)
"""The corpus's generation as one SQL value: the count plus the last document id."""


def memo_key(
    question: str,
    *,
    context: Sequence[str],
    sources: Sequence[str],
    limit: int,
    retrieval: str,
    keywords: str = "",
) -> str:
    """The memo's key: every input of retrieval besides the corpus, and the code's identity;
    the words added by hand (``--retrieval-keywords``) when there are any."""
    inputs: dict[str, object] = {
        "question": question,
        "context": list(context),
        "sources": list(sources),
        "limit": limit,
        "retrieval": retrieval,
        "arborist": __version__,
    }
    if keywords:
        inputs["keywords"] = keywords
    return sha256_hex(canonical_json(inputs))


def generation(conn: sqlite3.Connection) -> int:
    """The retrievable corpus's generation now (moved by every change to it)."""
    return int(conn.execute(f"SELECT {GENERATION_SQL}").fetchone()[0])


def recall(
    conn: sqlite3.Connection, key: str
) -> tuple[list[tuple[int, float]], dict[str, str] | None] | None:
    """The chunk ids (with scores, best first) the key retrieved at the current generation,
    and the calibration remembered with them (None when none was); None when there is no
    such row, it is of an older generation, or it does not parse."""
    row = conn.execute(
        f"SELECT evidence FROM retrieval_memo WHERE memo_key = ? AND generation = {GENERATION_SQL}",
        (key,),
    ).fetchone()
    if row is None:
        return None
    try:
        found = json.loads(row[0])
        held = found if isinstance(found, dict) else {"chosen": found}
        chosen = [(int(chunk_id), float(score)) for chunk_id, score in held["chosen"]]
        kept = held.get("calibration")
        calibration = None if kept is None else {str(k): str(v) for k, v in kept.items()}
    except (TypeError, ValueError, KeyError, AttributeError):  # edited: only missing
        return None
    return (chosen, calibration) if chosen else None


def remember(
    conn: sqlite3.Connection,
    key: str,
    at: int,
    chosen: Sequence[tuple[int, float]],
    calibration: Mapping[str, str] | None = None,
) -> None:
    """Record that ``key`` retrieved ``chosen`` at generation ``at`` (with the question's
    ``calibration`` at it, when its nearness is measured: see
    :mod:`arborist._store.calibration`), dropping rows of older generations. Commits; does
    nothing when the corpus has moved on since ``at``."""
    items = [[chunk_id, score] for chunk_id, score in chosen]
    value = items if calibration is None else {"chosen": items, "calibration": dict(calibration)}
    with transaction(conn):
        if generation(conn) != at:
            return
        conn.execute("DELETE FROM retrieval_memo WHERE generation < ?", (at,))
        conn.execute(
            "INSERT OR REPLACE INTO retrieval_memo (memo_key, generation, evidence) "
            "VALUES (?, ?, ?)",
            (key, at, json.dumps(value)),
        )
