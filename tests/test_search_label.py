"""``search`` labels a chunk by the check an ask makes of its evidence: a chunk whose text,
leaf, document root and stored Merkle nodes an attacker recomputed (so its proof verifies
against the forged root) is refused by ``ask`` and named by ``verify``, and ``search``
must not call it STRICT either."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._errors import IntegrityError
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._proofs.hashing import leaf_hash
from arborist._proofs.merkle import tree_levels
from arborist._store.schema import store_nodes

SPIDER = "".join(
    f"## Part {n}\n\nSpider-Man part {n} was drawn by artist Steve Ditko in issue {n}.\n\n"
    for n in range(1, 7)
)
BATMAN = "# Batman\n\nBatman was created by artist Bob Kane and writer Bill Finger.\n"


def _recompute(store: Path, uri_end: str) -> None:
    """Replace 'Ditko' by 'Kirby' in a document's chunks, then recompute every leaf, the
    document's root and its stored Merkle nodes, and the full-text index, as an attacker
    with the library's own hash functions would."""
    conn = sqlite3.connect(store)
    with conn:
        doc_id = conn.execute(
            "SELECT id FROM documents WHERE uri LIKE ?", (f"%{uri_end}",)
        ).fetchone()[0]
        conn.execute(
            "UPDATE chunks SET text = replace(text, 'Ditko', 'Kirby') WHERE document_id = ?",
            (doc_id,),
        )
        rows = conn.execute(
            "SELECT id, text FROM chunks WHERE document_id = ? ORDER BY chunk_index", (doc_id,)
        ).fetchall()
        leaves = [leaf_hash(text.encode("utf-8")) for _id, text in rows]
        for (chunk_id, _text), leaf in zip(rows, leaves, strict=True):
            conn.execute("UPDATE chunks SET leaf = ? WHERE id = ?", (leaf.hex(), chunk_id))
        levels = tree_levels(leaves)
        conn.execute(
            "UPDATE documents SET source_root = ? WHERE id = ?", (levels[-1][0].hex(), doc_id)
        )
        conn.execute("DELETE FROM merkle_nodes WHERE document_id = ?", (doc_id,))
        store_nodes(conn, doc_id, levels)
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
    conn.close()


def test_search_does_not_call_a_recomputed_chunk_strict(home: Path, tmp_path: Path) -> None:
    (tmp_path / "spider.md").write_text(SPIDER, encoding="utf-8")
    (tmp_path / "batman.md").write_text(BATMAN, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "spider.md"), str(tmp_path / "batman.md")])
        assert {h.audit_mode for h in app.search("Ditko")} == {"STRICT"}
    _recompute(home / "store.db", "spider.md")
    with Arborist(home) as app:
        forged = app.search("Kirby")
        assert forged, "the attacker kept the index consistent: the forged chunks are found"
        assert all(h.audit_mode == "VISUAL" and not h.verified for h in forged)
        assert [h.audit_mode for h in app.search("Finger")] == ["STRICT"]  # untouched
        with pytest.raises(IntegrityError):
            app.ask_turn("Who drew Spider-Man part 3 in Kirby issue 3?")
        assert any("spider.md" in p for p in app.verify().problems)
    shown = CliRunner().invoke(cli, ["--home", str(home), "search", "Kirby"]).output
    assert "[VISUAL]" in shown and "[STRICT]" not in shown
