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
from arborist.store.memo import generation
from arborist.store.search import retrieve

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
