"""Proofs from the store without refolding: the Merkle nodes kept at ingest (and backfilled by
migration 6), proofs cut from one block plus those nodes, and ``verify`` of what is kept."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist import Arborist
from arborist._database.migrations import open_database, split_sql
from arborist._errors import IntegrityError
from arborist._faces.cli import cli
from arborist._proofs.keys import EvidenceRef
from arborist._proofs.merkle import inclusion_proof, tree_levels, upper_nodes
from arborist._store.documents import Document, document_leaves, proofs_for
from arborist._store.memo import MEMO_MIGRATION_SQL
from arborist._store.proofs import verify_evidence
from arborist._store.schema import NODE_FLOOR, STORE_MIGRATIONS
from tests.test_tier_check import undo_tier_check


def parts(n: int, word: str = "quokka") -> str:
    """A markdown text that chunks into exactly ``n`` chunks (one per section)."""
    return "".join(
        f"## Part {i}\n\nThe {word} number {i} hops about the island of part {i}.\n\n"
        for i in range(n)
    )


def ingest(app: Arborist, folder: Path, name: str, text: str) -> Document:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return app.ingest([str(folder / name)])[0].document


def kept(conn: sqlite3.Connection, document_id: int) -> list[tuple[int, int, bytes]]:
    return conn.execute(
        "SELECT level, position, node FROM merkle_nodes WHERE document_id = ? "
        "ORDER BY level, position",
        (document_id,),
    ).fetchall()


def holds(document: Document, leaves: list[bytes], index: int, proof: list[str]) -> bool:
    ref = EvidenceRef(document.source_root, document.chunk_count, index, leaves[index].hex())
    return bool(verify_evidence(ref, proof=proof).proof_verifies)


@pytest.fixture
def app(home: Path) -> Arborist:
    with Arborist(home) as arborist:
        yield arborist  # type: ignore[misc]


@pytest.mark.parametrize("size", [1, 2, 15, 16, 17, 33, 70])
def test_store_proofs_equal_the_refolded_proof_at_every_index(
    app: Arborist, tmp_path: Path, size: int
) -> None:
    doc = ingest(app, tmp_path / "docs", f"doc{size}.md", parts(size))
    conn = app.store_conn
    leaves = document_leaves(conn, doc.id)
    assert doc.chunk_count == len(leaves) == size
    assert kept(conn, doc.id) == upper_nodes(tree_levels(leaves), NODE_FLOOR)
    assert (kept(conn, doc.id) == []) == (size <= 2**NODE_FLOOR)
    proofs = proofs_for(conn, [(doc.id, i) for i in range(size)])
    for index in range(size):
        assert proofs[(doc.id, index)] == [p.hex() for p in inclusion_proof(leaves, index)]
        assert holds(doc, leaves, index, proofs[(doc.id, index)])


def test_a_proof_reads_only_its_block_and_the_nodes_above(app: Arborist, tmp_path: Path) -> None:
    """With every chunk outside block 2 deleted, block 2's proofs still come out whole:
    proofs_for never reads the rest of the document (refolding it would fail here)."""
    doc = ingest(app, tmp_path / "docs", "long.md", parts(100))
    conn = app.store_conn
    leaves = document_leaves(conn, doc.id)
    start, stop = 2 * 2**NODE_FLOOR, 3 * 2**NODE_FLOOR
    raw = sqlite3.connect(app.store_path)
    with raw:
        raw.execute(
            "DELETE FROM chunks WHERE document_id = ? AND chunk_index NOT BETWEEN ? AND ?",
            (doc.id, start, stop - 1),
        )
    raw.close()
    proofs = proofs_for(conn, [(doc.id, i) for i in range(start, stop)])
    for index in range(start, stop):
        assert holds(doc, leaves, index, proofs[(doc.id, index)])
    # Outside it, the leaves are gone: no proof at all, which never verifies.
    assert proofs_for(conn, [(doc.id, 0)]) == {(doc.id, 0): []}
    assert not holds(doc, leaves, 0, [])


def test_cold_chunks_and_superseded_versions_keep_their_proofs(
    app: Arborist, tmp_path: Path
) -> None:
    old = ingest(app, tmp_path / "docs", "isle.md", parts(40))
    new = ingest(app, tmp_path / "docs", "isle.md", parts(41))
    app.evict(str(tmp_path / "docs" / "isle.md"), "cold")
    conn = app.store_conn
    for doc in (old, new):
        leaves = document_leaves(conn, doc.id)
        proofs = proofs_for(conn, [(doc.id, i) for i in range(doc.chunk_count)])
        assert all(holds(doc, leaves, i, proofs[(doc.id, i)]) for i in range(doc.chunk_count))
    tiers = "SELECT DISTINCT tier FROM chunks WHERE document_id = ?"
    assert conn.execute(tiers, (new.id,)).fetchall() == [("cold",)]
    assert app.verify().ok


def _schema_5_copy(home: Path, to: Path) -> None:
    """A copy of ``home`` as a store of schema 5 would hold it: no nodes, the old index."""
    shutil.copytree(home, to)
    raw = sqlite3.connect(to / "store.db")
    with raw:
        raw.execute("DROP TABLE merkle_nodes")
        raw.execute("CREATE INDEX documents_source_root ON documents (source_root)")
        raw.execute("DROP TABLE chunk_vectors")  # migration 7's, with their triggers
        raw.execute("DROP TABLE vector_profiles")
        raw.execute("DROP INDEX audit_document_add")  # migration 11's
        raw.execute("DROP INDEX audit_cache_write")  # migration 13's
        raw.execute("DROP INDEX audit_cache_state")
        raw.execute("DROP INDEX audit_record_import")  # migration 14's, with its tables
        raw.execute("DROP TABLE imported_evidence")
        raw.execute("DROP TABLE imported_records")
        raw.execute("DROP INDEX audit_import_state")  # migration 15's
        raw.execute("PRAGMA writable_schema = ON")  # migration 12's haiku kind, undone
        raw.execute(
            "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = 'derivations'",
            (", 'summary', 'haiku')", ", 'summary')"),
        )
        raw.execute("PRAGMA writable_schema = OFF")
        raw.executescript(  # migration 8's title index back to the one of every document
            """
            DROP TABLE documents_fts;
            DROP VIEW cold_document_titles;
            CREATE VIRTUAL TABLE documents_fts USING fts5 (
                title, uri, content = 'documents', content_rowid = 'id'
            );
            INSERT INTO documents_fts (documents_fts) VALUES ('rebuild');
            DROP TRIGGER documents_insert_below_the_last_moves_generation;
            DROP TRIGGER documents_update_moves_generation;
            DROP TRIGGER documents_delete_moves_generation;
            """
        )
        for statement in split_sql(MEMO_MIGRATION_SQL):  # migration 9's triggers: 5's back
            if statement.startswith("CREATE TRIGGER documents_"):
                raw.execute(statement)
        raw.execute("DELETE FROM schema_migrations WHERE version > 5")
    raw.close()
    undo_tier_check(to / "store.db")  # migration 10's CHECK back to migration 2's


def test_migration_6_backfills_every_document_and_drops_the_unused_index(
    app: Arborist, tmp_path: Path
) -> None:
    docs = [ingest(app, tmp_path / "docs", f"d{n}.md", parts(n, f"w{n}")) for n in (3, 17, 90)]
    before = {doc.id: kept(app.store_conn, doc.id) for doc in docs}
    assert [len(before[doc.id]) for doc in docs] == [0, 2, 6 + 3 + 2]
    app.close()
    _schema_5_copy(app.home, tmp_path / "old")
    conn = open_database(tmp_path / "old" / "store.db", STORE_MIGRATIONS[:5])
    assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == 5
    conn.close()
    with Arborist(tmp_path / "old") as migrated:
        conn = migrated.store_conn
        assert {doc.id: kept(conn, doc.id) for doc in docs} == before
        index = "SELECT count(*) FROM sqlite_schema WHERE name = 'documents_source_root'"
        assert conn.execute(index).fetchone()[0] == 0
        assert migrated.verify().ok


def test_migration_6_leaves_a_document_with_a_broken_leaf_to_verify(
    app: Arborist, tmp_path: Path
) -> None:
    doc = ingest(app, tmp_path / "docs", "d.md", parts(20))
    app.close()
    _schema_5_copy(app.home, tmp_path / "old")
    raw = sqlite3.connect(tmp_path / "old" / "store.db")
    with raw:
        raw.execute("UPDATE chunks SET leaf = 'not hex' WHERE chunk_index = 3")
    raw.close()
    with Arborist(tmp_path / "old") as migrated:
        assert kept(migrated.store_conn, doc.id) == []
        problems = migrated.verify().problems
    assert any("leaf 'not hex' is not a hex digest" in p for p in problems), problems


def _tampered(app: Arborist, sql: str, *params: object) -> None:
    raw = sqlite3.connect(app.store_path)
    with raw:
        raw.execute(sql, params)
    raw.close()


def _cli_verify() -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["verify"])
    return result.exit_code, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("edit", "wording"),
    [
        (
            "UPDATE merkle_nodes SET node = CAST(substr(node, 1, 5) || x'ee' || substr(node, 7) "
            "AS BLOB) WHERE level = 5 AND position = 1",
            "1 stored Merkle node(s) differ from what its leaves fold to (first: level 5, "
            "position 1)",
        ),
        (
            "UPDATE merkle_nodes SET node = CAST(node AS TEXT) WHERE level = 4 AND position = 1",
            "1 stored Merkle node(s) differ from what its leaves fold to (first: level 4, "
            "position 1)",
        ),
        (
            "DELETE FROM merkle_nodes WHERE level = 4 AND position = 2",
            "1 stored Merkle node(s) are missing (first: level 4, position 2)",
        ),
        (
            "INSERT INTO merkle_nodes (document_id, level, position, node) "
            "SELECT document_id, 4, 9, node FROM merkle_nodes WHERE level = 4 AND position = 0",
            "1 stored Merkle node(s) are not in its tree (first: level 4, position 9)",
        ),
    ],
    ids=["edited", "retyped", "deleted", "stray"],
)
def test_verify_names_the_document_of_a_tampered_node(
    app: Arborist, tmp_path: Path, edit: str, wording: str
) -> None:
    doc = ingest(app, tmp_path / "docs", "isle.md", parts(40))
    ingest(app, tmp_path / "docs", "other.md", parts(3, "wombat"))
    assert _cli_verify()[0] == 0
    _tampered(app, edit)
    problems = app.verify().problems
    assert list(problems) == [f"store.db: document {doc.uri}: {wording}"]
    code, out = _cli_verify()
    assert code != 0 and wording in out


def test_a_proof_cut_from_a_tampered_node_does_not_verify_and_the_ask_refuses(
    app: Arborist, tmp_path: Path
) -> None:
    doc = ingest(app, tmp_path / "docs", "isle.md", parts(40))
    leaves = document_leaves(app.store_conn, doc.id)
    # Every leaf's path crosses a level-5 node (the tree of 40 has levels 4, 5 and the root).
    _tampered(app, "UPDATE merkle_nodes SET node = zeroblob(32) WHERE level = 5")
    proofs = proofs_for(app.store_conn, [(doc.id, i) for i in range(doc.chunk_count)])
    assert not any(holds(doc, leaves, i, proofs[(doc.id, i)]) for i in range(doc.chunk_count))
    assert all(hit.audit_mode == "VISUAL" for hit in app.search("quokka hops"))
    with pytest.raises(IntegrityError, match="does not prove against its document's root"):
        app.ask("Which quokka hops about the island of part 21?")
    assert app.store_conn.execute("SELECT count(*) FROM cache_records").fetchone()[0] == 0


def test_a_derived_core_document_keeps_its_nodes(app: Arborist, tmp_path: Path) -> None:
    ingest(app, tmp_path / "docs", "isle.md", parts(5))
    answer = app.ask("Which quokka hops about the island of part 3?")
    core = app.derive("summary", answer.cache_key, text=parts(20, "summary")).core
    conn = app.store_conn
    leaves = document_leaves(conn, core.id)
    assert core.kind == "core" and core.chunk_count == 20
    assert kept(conn, core.id) == upper_nodes(tree_levels(leaves), NODE_FLOOR) != []
    assert app.verify().ok


def _opcodes(conn: sqlite3.Connection, document_id: int, index: int) -> int:
    """SQLite virtual-machine steps one proof takes: machine-independent, unlike a timing
    (about 200 at 1k chunks and 290 at 20k; refolding takes 5,000 and 100,000)."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    conn.set_progress_handler(count, 1)
    try:
        proofs_for(conn, [(document_id, index)])
    finally:
        conn.set_progress_handler(None, 1)
    return steps[0]


def test_a_proof_costs_the_store_about_the_same_at_1k_and_20k_chunks(
    app: Arborist, tmp_path: Path
) -> None:
    small = ingest(app, tmp_path / "docs", "small.md", parts(1_000, "small"))
    large = ingest(app, tmp_path / "docs", "large.md", parts(20_000, "large"))
    conn = app.store_conn
    at_small = max(_opcodes(conn, small.id, i) for i in (0, 517, 999))
    at_large = max(_opcodes(conn, large.id, i) for i in (0, 10_517, 19_999))
    assert at_large <= 2 * at_small, (at_small, at_large)
