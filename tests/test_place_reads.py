"""Citations to the place, end to end: a stored answer's evidence knows its page, heading path
and anchor, every face shows them, and only while every chunk they depend on holds."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arborist import Arborist
from arborist._faces.cli import cli
from arborist._proofs.hashing import leaf_hash
from arborist._store import documents
from arborist._store.documents import ingest_document
from arborist._store.loaders import LoadedDocument

GUIDE = """# Guide

Read this guide first.

## Configuration

Settings live in one file.

### Logging

The logger writes every request to the journal file under the state folder.

## Installing

Run the installer once.
"""


@pytest.fixture
def guide_home(home: Path, tmp_path: Path) -> Path:
    doc = tmp_path / "guide.md"
    doc.write_text(GUIDE, encoding="utf-8")
    assert CliRunner().invoke(cli, ["--home", str(home), "ingest", str(doc)]).exit_code == 0
    return home


def ask_json(home: Path, question: str, *more: str) -> dict[str, Any]:
    out = CliRunner().invoke(cli, ["--home", str(home), "ask", *more, "--json", question])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def item_of(answer: dict[str, Any], index: int) -> dict[str, Any]:
    (item,) = [e for e in answer["evidence"] if e["chunk_index"] == index]
    return item


def test_a_markdown_answer_cites_its_section_and_links_its_anchor(guide_home: Path) -> None:
    answer = ask_json(guide_home, "Where does the logger write each request?")
    item = item_of(answer, 2)
    assert item["place"] == {"page": None, "path": ["Guide", "Configuration", "Logging"],
                             "anchor": "logging"}  # fmt: skip
    assert item["placed_title"] == "Guide · Configuration › Logging"
    assert item["link"].startswith("file:") and item["link"].endswith("guide.md#logging")
    text = (
        CliRunner()
        .invoke(
            cli, ["--home", str(guide_home), "ask", "Where does the logger write each request?"]
        )
        .output
    )
    assert f"E1* Guide · Configuration › Logging  (chunk 2)  {item['link']}" in text
    key = answer["cache_key"]
    shown = CliRunner().invoke(cli, ["--home", str(guide_home), "record", "show", key]).output
    assert f"chunk 2/4 of {item['link']}" in shown and "Configuration › Logging" in shown


def _edit(home: Path, sql: str, *params: object) -> None:
    conn = sqlite3.connect(home / "store.db")
    with conn:
        conn.execute(sql, params)
    conn.close()


def test_an_edited_earlier_chunk_takes_the_place_away_but_not_the_quote(guide_home: Path) -> None:
    """Chunk 1 is not evidence, but chunk 2's path depends on its heading: edited with its
    leaf recomputed (so it re-hashes to its own leaf), the leaves no longer fold to the
    committed root, and chunk 2 has no place; its own quote still holds."""
    question = "Where does the logger write each request?"
    assert item_of(ask_json(guide_home, question), 2)["place"] is not None
    forged = "## Forged\n\nSettings live in one file."
    _edit(guide_home, "UPDATE chunks SET text = ?, leaf = ? WHERE chunk_index = 1", forged,
          leaf_hash(forged.encode()).hex())  # fmt: skip
    answer = ask_json(guide_home, question)
    item = item_of(answer, 2)
    assert item["place"] is None
    assert item["placed_title"] == "Guide"
    assert item["link"] == item["uri"]
    assert answer["audit_mode"] == "STRICT"  # the cited chunk itself is untouched
    text = CliRunner().invoke(cli, ["--home", str(guide_home), "ask", question]).output
    assert "Forged" not in text and "Logging" not in text.split("sources")[1]


def test_an_edited_text_before_the_chunk_takes_the_place_away(guide_home: Path) -> None:
    question = "Where does the logger write each request?"
    _edit(guide_home, "UPDATE chunks SET text = '# Elsewhere' WHERE chunk_index = 0")
    assert item_of(ask_json(guide_home, question), 2)["place"] is None


def test_a_warm_document_keeps_its_places_and_a_cold_one_shows_none(guide_home: Path) -> None:
    question = "Where does the logger write each request?"
    answer = ask_json(guide_home, question)
    key = answer["cache_key"]
    runner, base = CliRunner(), ["--home", str(guide_home)]
    assert runner.invoke(cli, [*base, "evict", "1", "--tier", "warm"]).exit_code == 0
    warm = json.loads(runner.invoke(cli, [*base, "record", "show", key, "--json"]).output)
    assert item_of(warm, 2)["place"]["path"] == ["Guide", "Configuration", "Logging"]
    assert runner.invoke(cli, [*base, "evict", "1", "--tier", "cold"]).exit_code == 0
    cold = json.loads(runner.invoke(cli, [*base, "record", "show", key, "--json"]).output)
    assert [e["place"] for e in cold["evidence"]] == [None] * len(cold["evidence"])
    shown = runner.invoke(cli, [*base, "record", "show", key]).output
    assert "›" not in shown


PDF_TEXT = (
    "Libtasn1 reference manual.\n\n"
    "\f# Introduction\n\nThis library parses ASN.1 structures.\n\n"
    "\f## Portability\n\nIt is small and portable.\n\n"
    "\f# Decoding\n\nThe decoder reads DER encoded certificates into a tree of nodes."
)


def test_a_pdf_answer_cites_its_page_and_opens_there(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunk texts as the page-marking PDF layout gives them (a form feed opening every
    page after the first; a chunking version that marks pages), ingested whole. Each page
    here opens with an outline heading, so the chunks are the pages under any chunker."""
    monkeypatch.setattr(documents, "CHUNKING_VERSION", "k2-pages")
    loaded = LoadedDocument(uri="file:///manuals/libtasn1.pdf", title="Libtasn1",
                            text=PDF_TEXT, media_type="application/pdf",
                            content_sha256="2" * 64)  # fmt: skip
    with Arborist(home) as app:
        stored = ingest_document(app.store_conn, loaded).document
    assert stored.chunk_count == 4
    answer = ask_json(home, "What does the decoder read DER certificates into?")
    item = item_of(answer, 3)
    assert item["place"] == {"page": 4, "path": ["Decoding"], "anchor": None}
    assert item["placed_title"] == "Libtasn1 · p. 4 · Decoding"
    assert item["link"] == "file:///manuals/libtasn1.pdf#page=4"


def test_a_pdf_chunked_before_pages_were_marked_shows_no_page(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PDF stored by chunking k1 (before form feeds marked pages): its chunks' form feeds,
    if any, were never page marks, so no page is claimed (its headings still place it)."""
    monkeypatch.setattr(documents, "CHUNKING_VERSION", "k1")  # ingested as k1 stored it
    loaded = LoadedDocument(uri="file:///manuals/old.pdf", title="Old", text=PDF_TEXT,
                            media_type="application/pdf", content_sha256="3" * 64)  # fmt: skip
    with Arborist(home) as app:
        ingest_document(app.store_conn, loaded)
    monkeypatch.undo()
    item = item_of(ask_json(home, "What does the decoder read DER certificates into?"), 3)
    assert item["place"] == {"page": None, "path": ["Decoding"], "anchor": None}


def test_a_hostile_uri_gets_no_fragment(home: Path) -> None:
    loaded = LoadedDocument(uri="javascript:alert(1)//x.md", title="X", text=GUIDE,
                            media_type="text/markdown", content_sha256="4" * 64)  # fmt: skip
    with Arborist(home) as app:
        ingest_document(app.store_conn, loaded)
    item = item_of(ask_json(home, "Where does the logger write each request?"), 2)
    assert item["place"]["anchor"] == "logging"
    assert item["link"] == "javascript:alert(1)//x.md"


def test_the_notebook_answer_shows_the_place_and_links_it_escaped(guide_home: Path) -> None:
    """``%%ask``: the text, markdown and HTML renderings name the section; the HTML links
    the document at its anchor, escaped, and only a safe scheme is ever a link."""
    from IPython.core.interactiveshell import InteractiveShell

    from arborist_nb._display import Answer

    ip = InteractiveShell.instance()
    try:
        assert ip.run_cell("%load_ext arborist_nb").success
        answer = ip.run_cell_magic("ask", "", "Where does the logger write each request?")
        assert isinstance(answer, Answer)
        (item,) = [e for e in answer.evidence if e.chunk_index == 2]
        assert item.link.endswith("#logging")
        assert f"E1* Guide · Configuration › Logging  (chunk 2)  {item.link}" in repr(answer)
        assert "Guide · Configuration › Logging" in answer._repr_markdown_()
        page = answer._repr_html_()
        assert "Guide · Configuration › Logging — chunk 2 of 4" in page
        assert f'<a href="{item.link}" target="_blank" rel="noopener noreferrer">' in page
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def test_a_document_link_in_html_is_escaped_and_never_a_script() -> None:
    from arborist_nb._display import _link_html

    assert _link_html('file:///a"b<c>.md#x') == (
        '<a href="file:///a&quot;b&lt;c&gt;.md#x" target="_blank" rel="noopener noreferrer">'
        "<code>file:///a&quot;b&lt;c&gt;.md#x</code></a>"
    )
    assert _link_html("javascript:alert(1)") == "<code>javascript:alert(1)</code>"
    assert _link_html(" JavaScript:alert(1)") == "<code> JavaScript:alert(1)</code>"


def test_one_connection_keeps_places_only_while_the_store_is_unchanged(guide_home: Path) -> None:
    """A connection reads a document's places once; an edit by any other connection, or
    this one moving the chunks down, is seen at the next read."""
    question = "Where does the logger write each request?"
    key = ask_json(guide_home, question)["cache_key"]

    def place(app: Arborist) -> object:
        (item,) = [e for e in app.record(key).evidence if e.chunk_index == 2]
        return item.place

    with Arborist(guide_home) as app:
        assert place(app) is not None
        assert app.ask(question, llm="extractive").hit  # a hit writes: the places stay read
        assert place(app) is not None
        app.evict("1", "cold")
        assert place(app) is None
        app.rehydrate("1")
        assert place(app) is not None
        _edit(guide_home, "UPDATE chunks SET text = '# Elsewhere' WHERE chunk_index = 0")
        assert place(app) is None
