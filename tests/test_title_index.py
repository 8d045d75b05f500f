"""The title index (store migration 8) holds exactly the documents with no hot chunk.

A document with hot chunks is found through chunks_fts, whose rows carry its title; one
whose chunks were all evicted is found by its title alone (search shows it VISUAL). So
ingest writes no title row; evict indexes a title when its document's last hot chunk
leaves, and rehydrate unindexes it when the chunks come back, once per document. SQLite's
own FTS integrity check, against the index's content view, holds at every step. Real files.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arborist._database.migrations import open_database
from arborist._facade.app import Arborist
from arborist._store.schema import STORE_MIGRATIONS

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


def test_evict_and_rehydrate_cost_what_the_chunks_do_not_their_square(tmp_path: Path) -> None:
    """SQLite VM steps (immune to machine noise) to evict then rehydrate one document of n
    and of 4n chunks: linear work grows 4x; keeping the title index by a trigger per chunk
    (each scanning the document's chunks) grew it 16x and took a minute at 20,000 chunks."""
    steps = []
    for n in (400, 1600):
        folder = tmp_path / f"n{n}"
        folder.mkdir()
        path = folder / "big.md"
        path.write_text("\n\n".join(f"Paragraph {i} says w{i}." * 30 for i in range(n)))
        with Arborist(folder / "home") as app:
            chunks = app.ingest([str(path)])[0].document.chunk_count
            assert chunks >= n // 2
            conn = app.store_conn
            count = [0]

            def tick(count: list[int] = count) -> int:
                count[0] += 1
                return 0

            conn.set_progress_handler(tick, 100)
            app.evict(str(path), "warm")
            app.rehydrate(str(path))
            conn.set_progress_handler(None, 100)
            assert indexed(conn) == [] and sound(conn)
            steps.append(count[0] / chunks)
    assert steps[1] <= 2 * steps[0]  # per chunk: flat, not growing with the document
