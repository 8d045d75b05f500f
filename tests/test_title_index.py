"""The title index (store migration 8) holds exactly the documents with no hot chunk.

A document with hot chunks is found through chunks_fts, whose rows carry its title; one
whose chunks were all evicted is found by its title alone (search shows it VISUAL). So
ingest writes no title row, and triggers on chunk tiers index a title when its document's
last hot chunk leaves and unindex it when the first comes back. SQLite's own FTS
integrity check, against the index's content view, holds at every step. Real files.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arborist.app import Arborist
from arborist.migrations import open_database
from arborist.store.schema import STORE_MIGRATIONS

SPIDER = "# Spider-Man\n\nSpider-Man was created by Stan Lee and Steve Ditko in 1962.\n"
BATMAN = "# Batman\n\nBatman was created by Bob Kane and Bill Finger in 1939.\n"


def indexed(conn: sqlite3.Connection) -> list[int]:
    """The document ids the title index holds (its own rows, not its content view)."""
    return [i for (i,) in conn.execute("SELECT id FROM documents_fts_docsize ORDER BY id")]


def sound(conn: sqlite3.Connection) -> bool:
    conn.execute("INSERT INTO documents_fts (documents_fts, rank) VALUES ('integrity-check', 1)")
    return True


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "spider.md").write_text(SPIDER, encoding="utf-8")
    (folder / "batman.md").write_text(BATMAN, encoding="utf-8")
    return folder


def test_ingest_writes_no_title_row_and_tiers_move_it_in_and_out(
    tmp_path: Path, docs: Path
) -> None:
    with Arborist(tmp_path / "home") as app:
        conn = app.store_conn
        by_title = {r.document.title: r.document for r in app.ingest([str(docs)])}
        spider, batman = by_title["Spider-Man"], by_title["Batman"]
        assert indexed(conn) == [] and sound(conn)
        for tier in ("warm", "cold"):  # warm, then on down to cold: indexed once
            app.evict(str(docs / "spider.md"), tier)
            assert indexed(conn) == [spider.id] and sound(conn)
        assert [(h.title, h.audit_mode) for h in app.search("Spider-Man")] == [
            ("Spider-Man", "VISUAL")
        ]
        assert [h.audit_mode for h in app.search("Batman")] == ["STRICT"]  # through its chunks
        app.rehydrate(str(docs / "spider.md"))
        assert indexed(conn) == [] and sound(conn)
        assert [h.audit_mode for h in app.search("Ditko")] == ["HYBRID"]
        app.evict(str(docs / "batman.md"), "warm")
        app.evict(str(docs / "spider.md"), "cold")
        assert indexed(conn) == sorted([spider.id, batman.id]) and sound(conn)
        assert app.verify().ok


def test_a_new_version_of_an_evicted_document_is_found_by_its_chunks_not_twice(
    tmp_path: Path, docs: Path
) -> None:
    with Arborist(tmp_path / "home") as app:
        old = app.ingest([str(docs / "spider.md")])[0].document
        app.evict(str(docs / "spider.md"), "cold")
        (docs / "spider.md").write_text(SPIDER + "\nHe lives in Queens.\n", encoding="utf-8")
        new = app.ingest([str(docs / "spider.md")])[0].document
        assert new.version == 2 and indexed(app.store_conn) == [old.id]  # superseded, cold
        hits = app.search("Spider-Man")
        assert {h.audit_mode for h in hits} == {"STRICT"} and {h.document_id for h in hits} == {
            new.id
        }
        assert sound(app.store_conn) and app.verify().ok


def test_migration_8_keeps_the_cold_titles_and_drops_the_rest(tmp_path: Path, docs: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    old = open_database(home / "store.db", STORE_MIGRATIONS[:7])
    old.close()
    with Arborist(home) as app:  # only to ingest and evict: the store is at 8 after
        by_title = {r.document.title: r.document for r in app.ingest([str(docs)])}
        spider, batman = by_title["Spider-Man"], by_title["Batman"]
        app.evict(str(docs / "batman.md"), "cold")
    raw = sqlite3.connect(home / "store.db")
    with raw:  # back to schema 7's title index, as a store written before it held it
        raw.executescript(
            """
            DROP TRIGGER chunks_last_hot_one_leaving_indexes_the_title;
            DROP TRIGGER chunks_first_hot_one_back_unindexes_the_title;
            DROP TABLE documents_fts;
            DROP VIEW cold_document_titles;
            CREATE VIRTUAL TABLE documents_fts USING fts5 (
                title, uri, content = 'documents', content_rowid = 'id'
            );
            INSERT INTO documents_fts (documents_fts) VALUES ('rebuild');
            DELETE FROM schema_migrations WHERE version = 8;
            """
        )
    assert indexed(raw) == sorted([spider.id, batman.id])
    raw.close()
    with Arborist(home) as app:
        assert indexed(app.store_conn) == [batman.id] and sound(app.store_conn)
        assert [h.audit_mode for h in app.search("Batman")] == ["VISUAL"]
        assert [h.audit_mode for h in app.search("Spider-Man")] == ["STRICT"]
        assert app.verify().ok
