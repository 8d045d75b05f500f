"""The retrieval memo: a repeated question is served without ranking while the corpus stands,
and anything that changes what retrieval would return (an ingest, an eviction, a new version,
an edited row) makes the next ask retrieve afresh. Real store files throughout."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arborist import Arborist
from arborist._database.migrations import split_sql
from arborist._errors import StorageError
from arborist._store.memo import MEMO_MIGRATION_SQL, generation
from arborist._store.search import retrieve

SPIDER = (
    "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
    "He first appeared in Amazing Fantasy number 15 in 1962.\n"
)
BATMAN = (
    "# Batman\n\nBatman was created by artist Bob Kane and writer Bill Finger.\n"
    "He first appeared in Detective Comics number 27 in 1939.\n"
)
QUESTION = "Who created Spider-Man?"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "spider.md").write_text(SPIDER, encoding="utf-8")
    (folder / "batman.md").write_text(BATMAN, encoding="utf-8")
    return folder


@pytest.fixture
def app(home: Path, docs: Path) -> Iterator[Arborist]:
    with Arborist(home) as arborist:
        arborist.ingest([str(docs)])
        yield arborist


@contextmanager
def statements(conn: sqlite3.Connection) -> Iterator[list[str]]:
    """Every SQL statement ``conn`` runs inside the block."""
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


def ranked(seen: list[str]) -> bool:
    return any("chunks_fts MATCH" in sql for sql in seen)


def fresh_ids(app: Arborist, question: str = QUESTION) -> list[int]:
    return [e.chunk_id for e in retrieve(app.store_conn, question)]


def test_a_repeated_question_is_a_hit_that_ranks_nothing(app: Arborist) -> None:
    first = app.ask(QUESTION)
    assert not first.hit
    with statements(app.store_conn) as seen:
        again = app.ask(QUESTION)
    assert again.hit and again.cache_key == first.cache_key
    assert not ranked(seen), "a hit on an unchanged corpus must not rank the index"
    assert [e.chunk_id for e in again.record.evidence] == fresh_ids(app)


def test_an_ingest_that_changes_the_evidence_misses(app: Arborist, tmp_path: Path) -> None:
    first = app.ask(QUESTION)
    before = generation(app.store_conn)
    better = tmp_path / "more"
    better.mkdir()
    (better / "creators.md").write_text(
        "# Who created Spider-Man\n\nSpider-Man was created by Stan Lee, who wrote him, and "
        "Steve Ditko, who drew him: Spider-Man's creators.\n",
        encoding="utf-8",
    )
    app.ingest([str(better)])
    assert generation(app.store_conn) > before
    with statements(app.store_conn) as seen:
        after = app.ask(QUESTION)
    assert ranked(seen)
    assert not after.hit and after.cache_key != first.cache_key
    assert [e.chunk_id for e in after.record.evidence] == fresh_ids(app)


def test_an_eviction_makes_the_next_ask_rank_afresh(app: Arborist, docs: Path) -> None:
    app.ask(QUESTION)
    before = generation(app.store_conn)
    app.evict(str(docs / "batman.md"), "warm")
    assert generation(app.store_conn) > before
    with statements(app.store_conn) as seen:
        after = app.ask(QUESTION)
    assert ranked(seen)
    assert [e.chunk_id for e in after.record.evidence] == fresh_ids(app)
    assert all(e.title != "Batman" for e in after.record.evidence)


def test_a_new_version_of_a_document_moves_the_generation(app: Arborist, docs: Path) -> None:
    app.ask(QUESTION)
    before = generation(app.store_conn)
    (docs / "spider.md").write_text(SPIDER + "\nHe lives in Queens.\n", encoding="utf-8")
    app.ingest([str(docs / "spider.md")])
    assert generation(app.store_conn) > before
    after = app.ask(QUESTION)
    assert not after.hit, "evidence from a superseded version must never be served"
    assert [e.chunk_id for e in after.record.evidence] == fresh_ids(app)


@pytest.mark.parametrize(
    "evidence",
    [
        "[[999999, 0.5]]",  # a chunk that does not exist
        "not json",
        "[[1, 0.5], [1, 0.5]]",  # the same chunk twice
        '[["x", "y"]]',
        "[]",
        "{}",
    ],
)
def test_an_edited_memo_row_is_never_served_blindly(app: Arborist, evidence: str) -> None:
    first = app.ask(QUESTION)
    app.store_conn.execute("UPDATE retrieval_memo SET evidence = ?", (evidence,))
    app.store_conn.commit()
    again = app.ask(QUESTION)
    assert again.hit and again.cache_key == first.cache_key
    assert [e.chunk_id for e in again.record.evidence] == fresh_ids(app)


def test_a_memo_naming_other_chunks_leads_to_no_record_so_the_ask_retrieves(
    app: Arborist,
) -> None:
    first = app.ask(QUESTION)
    batman = [e.chunk_id for e in retrieve(app.store_conn, "Who created Batman?")]
    app.store_conn.execute(
        "UPDATE retrieval_memo SET evidence = ?", (str([[i, -1.0] for i in batman]),)
    )
    app.store_conn.commit()
    with statements(app.store_conn) as seen:
        again = app.ask(QUESTION)
    assert ranked(seen)
    assert again.hit and again.cache_key == first.cache_key


def test_rows_of_past_generations_are_dropped_as_new_ones_are_written(
    app: Arborist, tmp_path: Path
) -> None:
    app.ask(QUESTION)
    app.ask("Who created Batman?")
    assert app.store_conn.execute("SELECT count(*) FROM retrieval_memo").fetchone()[0] == 2
    other = tmp_path / "other"
    other.mkdir()
    (other / "hulk.md").write_text("# Hulk\n\nThe Hulk was created by Stan Lee.\n")
    app.ingest([str(other)])
    app.ask(QUESTION)
    rows = app.store_conn.execute("SELECT generation FROM retrieval_memo").fetchall()
    assert rows == [(generation(app.store_conn),)]


def test_a_refresh_and_the_related_lane_do_not_use_the_memo(app: Arborist) -> None:
    app.ask(QUESTION)
    with statements(app.store_conn) as seen:
        refreshed = app.ask(QUESTION, use_cache=False)
    assert ranked(seen) and not refreshed.hit


def _count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT generation FROM store_generation").fetchone()[0])


def test_an_ingest_moves_the_generation_without_writing_the_count(
    app: Arborist, tmp_path: Path
) -> None:
    conn = app.store_conn
    before, count = generation(conn), _count(conn)
    more = tmp_path / "more"
    more.mkdir()
    (more / "hulk.md").write_text("# Hulk\n\nThe Hulk was created by Stan Lee.\n")
    with statements(conn) as seen:
        app.ingest([str(more)])
    assert generation(conn) > before
    assert _count(conn) == count, "the new last document id moved it: no counter row written"
    assert not any("UPDATE store_generation" in sql for sql in seen)


@pytest.mark.parametrize(
    "change",
    [
        # an insert below the last id (the last id stays: the count moves)
        "INSERT INTO documents (id, uri, version, kind, title, media_type, content_sha256, "
        "source_root, chunk_count, chunking_version, status, created_at) SELECT 0, 'x:below', "
        "1, kind, title, media_type, content_sha256, source_root, chunk_count, "
        "chunking_version, 'superseded', created_at FROM documents WHERE id = 1",
        # an insert far past the last id
        "INSERT INTO documents (id, uri, version, kind, title, media_type, content_sha256, "
        "source_root, chunk_count, chunking_version, status, created_at) SELECT 1000, 'x:far', "
        "1, kind, title, media_type, content_sha256, source_root, chunk_count, "
        "chunking_version, 'superseded', created_at FROM documents WHERE id = 1",
        # the last document deleted (the last id falls)
        "DELETE FROM documents WHERE id = (SELECT max(id) FROM documents)",
        # every document deleted (no last id at all)
        "DELETE FROM documents",
        # the last document renumbered below the first (the last id falls)
        "UPDATE documents SET id = -5 WHERE id = (SELECT max(id) FROM documents)",
        # every document renumbered at once, one row after the other
        "UPDATE documents SET id = id - 100",
        "UPDATE documents SET title = 'renamed' WHERE id = 1",
        "UPDATE documents SET status = 'superseded' WHERE id = 1",
        "UPDATE chunks SET heading = 'moved' WHERE id = 1",
        "DELETE FROM chunks WHERE id = (SELECT max(id) FROM chunks)",
    ],
)
def test_every_change_to_documents_or_chunks_moves_the_generation(
    app: Arborist, change: str
) -> None:
    conn = app.store_conn
    conn.execute("PRAGMA foreign_keys = OFF")  # a raw edit, as a tamperer or a bug would
    conn.execute("DELETE FROM chunks WHERE document_id = (SELECT max(id) FROM documents)")
    before = generation(conn)
    conn.execute(change)
    assert generation(conn) > before


def test_a_memo_of_a_generation_that_has_passed_is_not_recalled(app: Arborist) -> None:
    app.ask(QUESTION)
    conn = app.store_conn
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("DELETE FROM chunks WHERE document_id = (SELECT max(id) FROM documents)")
    conn.execute("DELETE FROM documents WHERE id = (SELECT max(id) FROM documents)")
    with statements(conn) as seen:
        app.ask(QUESTION)
    assert ranked(seen), "the last document went: its id no longer counts, yet the memo is void"


def test_migration_9_counts_ingests_by_the_last_id_and_drops_the_memo(
    home: Path, docs: Path
) -> None:
    with Arborist(home) as app:
        app.ingest([str(docs)])
        first = app.ask(QUESTION)
    raw = sqlite3.connect(home / "store.db")
    with raw:  # back to schema 8: migration 5's triggers, a memo row of the old reckoning
        for name in ("insert_below_the_last", "update", "delete"):
            raw.execute(f"DROP TRIGGER documents_{name}_moves_generation")
        for statement in split_sql(MEMO_MIGRATION_SQL):
            if statement.startswith("CREATE TRIGGER documents_"):
                raw.execute(statement)
        raw.execute("DELETE FROM schema_migrations WHERE version = 9")
    assert raw.execute("SELECT count(*) FROM retrieval_memo").fetchone()[0] == 1
    raw.close()
    with Arborist(home) as app:
        conn = app.store_conn
        assert conn.execute("SELECT count(*) FROM retrieval_memo").fetchone()[0] == 0
        triggers = {
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'documents'"
            )
        }
        assert triggers == {
            "documents_insert_below_the_last_moves_generation",
            "documents_update_moves_generation",
            "documents_delete_moves_generation",
        }
        with statements(conn) as seen:
            again = app.ask(QUESTION)
        assert again.hit and again.cache_key == first.cache_key and ranked(seen)
        with statements(conn) as seen:
            assert app.ask(QUESTION).hit
        assert not ranked(seen), "remembered again, under the new reckoning"
        before = generation(conn)
        (docs / "hulk.md").write_text("# Hulk\n\nThe Hulk was created by Stan Lee.\n")
        app.ingest([str(docs / "hulk.md")])
        assert generation(conn) > before
        assert app.verify().ok


def test_migration_9_refuses_to_run_twice_when_its_history_row_was_deleted(home: Path) -> None:
    with Arborist(home) as app:
        app.store_conn  # noqa: B018 - opening it migrates
    raw = sqlite3.connect(home / "store.db", isolation_level=None)
    raw.execute("DELETE FROM schema_migrations WHERE version = 9")
    raw.close()
    with pytest.raises(StorageError, match="no such trigger"), Arborist(home) as app:
        app.store_conn  # noqa: B018 - opening it migrates
