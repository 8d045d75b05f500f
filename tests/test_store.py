"""The document store on real files: ingest and versions, search, tiers, derivations, verify."""

from __future__ import annotations

import sqlite3
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest

from arborist import Arborist
from arborist._errors import ArboristError, BadInput, IntegrityError, NotFound
from arborist._proofs.hashing import leaf_hash
from arborist._proofs.merkle import merkle_root
from arborist._qa.extractive import ExtractiveClient
from arborist._store import documents
from arborist._store.cache.stored import WARM_MAX_BYTES, warm_text
from arborist._store.chunking import chunk_text
from arborist._store.loaders import load_path
from arborist._store.search import retrieve

SPIDER = """# Spider-Man

Spider-Man was created by writer Stan Lee and artist Steve Ditko.
He first appeared in Amazing Fantasy number 15 in 1962.

## Powers

He can cling to walls and has a precognitive spider-sense.
"""

BATMAN = """# Batman

Batman was created by artist Bob Kane and writer Bill Finger.
He first appeared in Detective Comics number 27 in 1939.
"""

COOKING = "# Bread\n\nKnead the dough for ten minutes, then let it rise in a warm place.\n"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "spider.md").write_text(SPIDER, encoding="utf-8")
    (folder / "batman.md").write_text(BATMAN, encoding="utf-8")
    return folder


@pytest.fixture
def app(home: Path) -> Arborist:
    with Arborist(home) as arborist:
        yield arborist  # type: ignore[misc]


def test_ingest_stores_each_document_with_its_root_and_count(app: Arborist, corpus: Path) -> None:
    results = app.ingest([str(corpus)])
    assert [r.status for r in results] == ["added", "added"]
    spider = next(r.document for r in results if r.document.uri.endswith("spider.md"))
    assert spider.title == "Spider-Man"
    assert spider.uri == (corpus / "spider.md").resolve().as_uri()
    leaves = [
        bytes.fromhex(leaf)
        for (leaf,) in app.store_conn.execute(
            "SELECT leaf FROM chunks WHERE document_id = ? ORDER BY chunk_index", (spider.id,)
        )
    ]
    assert len(leaves) == spider.chunk_count == 2
    assert merkle_root(leaves).hex() == spider.source_root


def test_ingest_takes_paths_and_a_single_source_as_well_as_a_list_of_text(
    app: Arborist, corpus: Path
) -> None:
    """A Path (or one source alone, not a list) is a source, not an error or its characters."""
    assert [r.status for r in app.ingest(corpus / "spider.md")] == ["added"]
    assert [r.status for r in app.ingest([corpus])] == ["added", "unchanged"]  # by path
    assert [r.status for r in app.ingest(str(corpus / "batman.md"))] == ["unchanged"]


def test_the_same_bytes_twice_are_one_document(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus)])
    again = app.ingest([str(corpus / "spider.md")])
    assert [r.status for r in again] == ["unchanged"]
    assert app.store_conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 2


def test_a_changed_file_becomes_a_new_version_and_supersedes_the_old(
    app: Arborist, corpus: Path
) -> None:
    first = app.ingest([str(corpus / "spider.md")])[0].document
    (corpus / "spider.md").write_text(SPIDER + "\nHe lives in Queens.\n", encoding="utf-8")
    second = app.ingest([str(corpus / "spider.md")])
    assert second[0].status == "updated"
    assert second[0].document.version == 2
    rows = app.store_conn.execute(
        "SELECT version, status FROM documents WHERE uri = ? ORDER BY version", (first.uri,)
    ).fetchall()
    assert rows == [(1, "superseded"), (2, "current")]
    assert all(h.document_id == second[0].document.id for h in app.search("Queens"))


def test_search_and_retrieval_skip_superseded_versions_however_many_rank_above(
    app: Arborist, tmp_path: Path
) -> None:
    # Old versions stay provable, their chunks indexed; they must never crowd out the
    # current one, even when every old version outranks it.
    path = tmp_path / "log.md"
    for n in range(12):
        path.write_text(f"# Log\n\nquokka quokka quokka entry {n}.\n", encoding="utf-8")
        app.ingest([str(path)])
    path.write_text("# Log\n\nThe current entry mentions the quokka once.\n", encoding="utf-8")
    current = app.ingest([str(path)])[0].document
    hits = app.search("quokka", limit=1)
    assert [(h.document_id, h.chunk_index) for h in hits] == [(current.id, 0)]
    assert "«quokka»" in hits[0].snippet
    assert [e.document_id for e in retrieve(app.store_conn, "quokka", limit=1)] == [current.id]


def test_a_search_snippet_shows_a_headings_words_not_its_link_id(
    app: Arborist, tmp_path: Path
) -> None:
    # An HTML page's heading keeps the id a citation links to ("## Types {#Types-1}"); a
    # snippet is read by a person, who wants the heading as the page shows it.
    path = tmp_path / "types.html"
    path.write_text(
        '<h2 id="Types-1">Types</h2><p>Every value has one of the wombat types.</p>',
        encoding="utf-8",
    )
    app.ingest([str(path)])
    (hit,) = app.search("types wombat")
    assert "{#" not in hit.snippet and "«Types»" in hit.snippet
    assert "Types-1" in app.store_conn.execute("SELECT text FROM chunks").fetchone()[0]


def test_text_is_nfc_normalized_on_entry(app: Arborist, tmp_path: Path) -> None:
    path = tmp_path / "cafe.txt"
    path.write_text("Cafe\u0301 au lait is coffee with milk.", encoding="utf-8")
    app.ingest([str(path)])
    text = app.store_conn.execute("SELECT text FROM chunks").fetchone()[0]
    assert "Caf\u00e9" in text


def test_a_bad_source_in_a_batch_writes_nothing(app: Arborist, corpus: Path) -> None:
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    with pytest.raises(BadInput):
        app.ingest([str(corpus)])
    assert app.store_conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0


@pytest.mark.parametrize("kept", [True, False], ids=["chunked-once", "chunked-twice"])
def test_a_document_is_stored_the_same_however_it_is_chunked_and_batched(
    app: Arborist, corpus: Path, monkeypatch: pytest.MonkeyPatch, kept: bool
) -> None:
    """Long texts are chunked again to be written, and chunks go in batches: the rows, the
    index, re-ingest and restoring evicted chunks come out as if written all at once."""
    monkeypatch.setattr(documents, "_CHUNK_BATCH", 2)
    if not kept:
        monkeypatch.setattr(documents, "_KEPT_CHUNKS_CHARS", 0)
    long_text = "\n\n".join(f"## Part {n}\n\n" + "Spiders spin silk. " * 70 for n in range(5))
    (corpus / "long.md").write_text(f"# Long\n\n{long_text}\n", encoding="utf-8")
    doc = app.ingest([str(corpus / "long.md")])[0].document
    rows = app.store_conn.execute(
        "SELECT chunk_index, leaf, text FROM chunks WHERE document_id = ? ORDER BY chunk_index",
        (doc.id,),
    ).fetchall()
    expected = chunk_text(load_path(corpus / "long.md").text)
    assert [text for _, _, text in rows] == [c.text for c in expected]
    assert [i for i, _, _ in rows] == list(range(doc.chunk_count)) and doc.chunk_count > 5
    assert merkle_root([bytes.fromhex(leaf) for _, leaf, _ in rows]).hex() == doc.source_root
    with_silk = {i for i, _, text in rows if "silk" in text}
    assert {h.chunk_index for h in app.search("silk", limit=50)} == with_silk
    assert app.ingest([str(corpus / "long.md")])[0].status == "unchanged"
    app.evict(str(doc.id), "warm")
    again = app.ingest([str(corpus / "long.md")])[0]
    assert again.status == "restored"
    tiers = {t for (t,) in app.store_conn.execute("SELECT tier FROM chunks")}
    assert tiers == {"hot"}
    assert app.verify().ok


def test_search_finds_every_word_and_declares_strict(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus)])
    hits = app.search("created Ditko")
    assert len(hits) == 1
    assert hits[0].audit_mode == "STRICT" and hits[0].verified
    assert "«Ditko»" in hits[0].snippet


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '""',
        "'",
        "*",
        "alpha*",
        "NEAR(",
        "NEAR(a b",
        "title:spider",
        "-spider",
        "spider -man",
        "AND",
        "OR",
        "NOT",
        "spider AND",
        "a\x00b",
        "(",
        ")",
        "^",
        "c++",
        "don't",
        "{x}",
        "\\",
        "%_",
        "spider NOT man",
        "💥",
        "col:text",
        "- - -",
        "'); DROP TABLE chunks; --",
    ],
)
def test_hostile_queries_give_a_result_or_a_one_line_error(
    app: Arborist, corpus: Path, query: str
) -> None:
    app.ingest([str(corpus)])
    try:
        hits = app.search(query)
    except BadInput as err:
        assert "\n" not in str(err)
    else:
        assert isinstance(hits, list)
    assert app.store_conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 3


def test_query_operators_are_searched_as_words_never_obeyed(app: Arborist, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha beta", encoding="utf-8")
    (tmp_path / "b.txt").write_text("alpha alphabet", encoding="utf-8")
    (tmp_path / "c.txt").write_text("alpha or gamma and not near", encoding="utf-8")
    app.ingest([str(tmp_path)])
    names = lambda q: sorted(Path(h.uri).name for h in app.search(q))  # noqa: E731
    assert names("alpha NOT gamma") == ["c.txt"]  # raw FTS5 would return a.txt and b.txt
    assert names("alpha OR beta") == []  # needs the word "or" and "beta"
    assert names("alph*") == []  # no prefix query
    assert names("NEAR(alpha gamma)") == ["c.txt"]


def test_empty_and_huge_queries(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus)])
    for empty in ("", "   ", "\x00", "!!! ---"):
        with pytest.raises(BadInput, match="empty search query"):
            app.search(empty)
    assert app.search("spider " * 200_000)  # 1.4 MB, one distinct word
    many = " ".join(f"w{i}" for i in range(200_000))
    with pytest.raises(BadInput, match="limit is 64"):
        app.search(many)


def test_evict_cold_keeps_leaves_and_search_falls_back_to_visual_titles(
    app: Arborist, corpus: Path
) -> None:
    doc = app.ingest([str(corpus / "spider.md")])[0].document
    change = app.evict(str(corpus / "spider.md"), "cold")
    assert change.changed == 2
    rows = app.store_conn.execute("SELECT tier, text, text_z, leaf FROM chunks").fetchall()
    assert all(r[0] == "cold" and r[1] is None and r[2] is None and len(r[3]) == 64 for r in rows)
    hits = app.search("Spider-Man")
    assert [(h.audit_mode, h.chunk_index) for h in hits] == [("VISUAL", None)]
    assert app.search("Ditko") == []
    assert app.evict(str(doc.id), "cold").changed == 0


def test_rehydrate_refetches_verifies_and_marks_hybrid(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus / "spider.md")])
    app.evict(str(corpus / "spider.md"), "cold")
    change = app.rehydrate(str(corpus / "spider.md"))
    assert change.changed == 2
    hits = app.search("Ditko")
    assert [h.audit_mode for h in hits] == ["HYBRID"]
    assert app.verify().ok


def test_warm_round_trip_is_local_and_strict(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus / "spider.md")])
    app.evict(str(corpus / "spider.md"), "warm")
    assert app.search("Ditko") == []
    (corpus / "spider.md").unlink()  # warm needs no refetch
    assert app.rehydrate("1").changed == 2
    assert [h.audit_mode for h in app.search("Ditko")] == ["STRICT"]
    assert app.verify().ok


def _zlib_bomb(size: int) -> bytes:
    """zlib bytes of ``size`` bytes of one letter: about a thousandth of it."""
    packer = zlib.compressobj(9)
    block = b"A" * (1 << 20)
    return b"".join([*(packer.compress(block) for _ in range(size >> 20)), packer.flush()])


def test_warm_text_is_never_inflated_past_what_a_chunk_holds() -> None:
    # 256 KiB of zlib inflate to 256 MiB: read whole, a megabyte of it is a gigabyte
    bomb = _zlib_bomb(256 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="more than any chunk"):
            warm_text(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * len(bomb) + 4 * WARM_MAX_BYTES  # what it was given, not what it inflates to
    assert warm_text(zlib.compress("café".encode())) == "café"
    for edited in (b"not zlib", zlib.compress(b"text")[:-3], zlib.compress(b"\xff\xfe"), 7):
        with pytest.raises(ValueError):
            warm_text(edited)


def test_a_warm_chunk_edited_into_a_bomb_is_named_in_one_line(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus / "spider.md")])
    app.evict(str(corpus / "spider.md"), "warm")
    with app.store_conn:
        app.store_conn.execute(
            "UPDATE chunks SET text_z = ? WHERE chunk_index = 0", (_zlib_bomb(64 << 20),)
        )
    found = app.verify()
    assert not found.ok
    assert any("decompresses to more than any chunk" in p for p in found.problems)
    with pytest.raises(IntegrityError, match=r"chunk 0 of .*more than any chunk"):
        app.rehydrate("1")


def test_a_documents_status_flipped_by_hand_is_named_and_so_are_the_answers_it_let_through(
    app: Arborist, tmp_path: Path
) -> None:
    # "bookkeeping" that decides which version retrieval reads: flipped back to the old
    # version, an ask cites the superseded text as STRICT; flipped back again, that answer
    # stays ok. Each state is one that no honest writer leaves.
    policy = tmp_path / "policy.txt"
    policy.write_text("The reactor safety valve must be opened at 300 bar.\n", encoding="utf-8")
    app.ingest([str(policy)])
    policy.write_text("The reactor safety valve must be opened at 150 bar.\n", encoding="utf-8")
    app.ingest([str(policy)])
    assert app.verify().ok

    def flip(current: int, superseded: int) -> None:
        with app.store_conn:
            app.store_conn.execute(
                "UPDATE documents SET status = 'superseded' WHERE id = ?", (superseded,)
            )
            app.store_conn.execute(
                "UPDATE documents SET status = 'current' WHERE id = ?", (current,)
            )

    flip(1, 2)
    found = app.verify()
    assert "its status is current, but its versions make it superseded" in "\n".join(found.problems)
    assert "300 bar" in app.ask("At what pressure must the valve be opened?").answer
    flip(2, 1)
    problems = "\n".join(app.verify().problems)
    assert "is ok, but cites a superseded version of a document" in problems
    assert "its versions make it" not in problems


def test_a_tampered_source_is_refused_at_rehydration(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus / "spider.md")])
    app.evict(str(corpus / "spider.md"), "cold")
    (corpus / "spider.md").write_text(SPIDER.replace("1962", "1963"), encoding="utf-8")
    with pytest.raises(IntegrityError, match=r"rehydration refused.*chunk 0 of 2 differs"):
        app.rehydrate(str(corpus / "spider.md"))
    tiers = {t for (t,) in app.store_conn.execute("SELECT tier FROM chunks")}
    assert tiers == {"cold"}
    events = [e for (e,) in app.store_conn.execute("SELECT event_type FROM audit_events")]
    assert events[-1] == "rehydrate_refused"
    assert app.verify().ok


def test_every_tier_change_is_an_audit_event(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus / "spider.md")])
    app.evict("1", "warm")
    app.evict("1", "cold")
    app.rehydrate("1")
    events = [
        e for (e,) in app.store_conn.execute("SELECT event_type FROM audit_events ORDER BY seq")
    ]
    assert events == ["document_add", "tier_change", "tier_change", "tier_change"]


def test_document_references(app: Arborist, corpus: Path) -> None:
    doc = app.ingest([str(corpus / "spider.md")])[0].document
    for ref in (str(doc.id), doc.uri, str(corpus / "spider.md"), doc.source_root[:10]):
        assert app.evict(ref, "warm").document.id == doc.id
    with pytest.raises(NotFound):
        app.evict("nope.md", "cold")
    with pytest.raises(BadInput):
        app.evict("1", "hot")


def test_verify_catches_an_edited_chunk(app: Arborist, corpus: Path) -> None:
    app.ingest([str(corpus)])
    assert app.verify().ok
    conn = sqlite3.connect(app.store_path)
    conn.execute(
        "UPDATE chunks SET text = replace(text, 'Ditko', 'Kirby') WHERE text LIKE '%Ditko%'"
    )
    conn.commit()
    conn.close()
    problems = app.verify().problems
    assert any("text does not match its leaf" in p for p in problems)


def test_verify_catches_a_consistently_rewritten_document(app: Arborist, corpus: Path) -> None:
    """Editing text, leaf and source_root together still disagrees with the audit event."""
    doc = app.ingest([str(corpus / "batman.md")])[0].document
    conn = sqlite3.connect(app.store_path)
    (cid, text) = conn.execute(
        "SELECT id, text FROM chunks WHERE document_id = ?", (doc.id,)
    ).fetchone()
    forged = text.replace("Bill Finger", "nobody else")
    leaf = leaf_hash(forged.encode()).hex()
    conn.execute("UPDATE chunks SET text = ?, leaf = ? WHERE id = ?", (forged, leaf, cid))
    conn.execute(
        "UPDATE documents SET source_root = ? WHERE id = ?",
        (merkle_root([bytes.fromhex(leaf)]).hex(), doc.id),
    )
    conn.commit()
    conn.close()
    problems = app.verify().problems
    assert any("source_root differs from its document_add event" in p for p in problems), problems


def test_errors_are_arborist_errors_with_one_line(app: Arborist, tmp_path: Path) -> None:
    for bad in ([str(tmp_path / "missing.md")], [str(tmp_path)]):
        try:
            app.ingest(bad)
        except ArboristError as err:
            assert "\n" not in str(err)


def test_an_answer_whose_document_is_reingested_while_it_is_answered_is_stale_as_written(
    app: Arborist, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Retrieval reads the current version; the model answers; another process re-ingests the
    # document meanwhile (its re-ingest marks the records citing the old version stale, but
    # this one is not written yet). Written ok, it would cite a superseded version.
    policy = tmp_path / "policy.txt"
    policy.write_text("The reactor safety valve must be opened at 300 bar.\n", encoding="utf-8")
    app.ingest([str(policy)])
    answer = ExtractiveClient.complete

    def slow_model(self: ExtractiveClient, request: Any, **kwargs: Any) -> Any:
        policy.write_text("The reactor safety valve must be opened at 150 bar.\n", "utf-8")
        with Arborist(app.home) as other:
            other.ingest([str(policy)])
        return answer(self, request, **kwargs)

    monkeypatch.setattr(ExtractiveClient, "complete", slow_model)
    record = app.ask("At what pressure must the valve be opened?").record
    assert record.state == "stale" and "changed while it was answered" in str(record.state_reason)
    assert app.verify().ok


def test_a_tier_moved_by_hand_is_named_by_verify(app: Arborist, corpus: Path) -> None:
    # Every honest move writes a tier_change event; a document moved out of retrieval by
    # hand (its text dropped, the index rebuilt) would make asks miss it with nothing said.
    app.ingest([str(corpus / "spider.md")])
    assert app.search("Ditko")
    with app.store_conn:
        app.store_conn.execute("UPDATE chunks SET tier = 'cold', text = NULL")
        app.store_conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')")
        app.store_conn.execute("INSERT INTO documents_fts (documents_fts) VALUES ('rebuild')")
    assert app.search("Ditko") == []
    problems = "\n".join(app.verify().problems)
    assert "chunk(s) cold, where its tier_change events leave it hot" in problems
