"""The document and answer commands of ``arborist``, driven as a user would."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._faces.cli import cli

SPIDER = "# Spider-Man\n\nSpider-Man was created by writer Stan Lee and artist Steve Ditko.\n"
BATMAN = "# Batman\n\nBatman was created by artist Bob Kane and writer Bill Finger.\n"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "spider.md").write_text(SPIDER, encoding="utf-8")
    (folder / "batman.md").write_text(BATMAN, encoding="utf-8")
    (folder / "notes.bin").write_bytes(b"\x00\x01")  # not a supported format: skipped in folders
    return folder


def test_ingest_reports_each_document_and_a_summary(docs: Path) -> None:
    code, out, err = run("ingest", str(docs))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"added      Batman  (1 chunk)  {(docs / 'batman.md').resolve().as_uri()}"
    assert lines[1].startswith("added      Spider-Man  (1 chunk)  file://")
    assert lines[-1] == "2 added (2 chunks); 0 cached answer(s) now stale"
    code, out, _ = run("ingest", str(docs / "spider.md"))
    assert out.splitlines()[-1] == "1 unchanged (1 chunk); 0 cached answer(s) now stale"


def test_ingest_json_include_and_exclude(docs: Path) -> None:
    code, out, _ = run("ingest", str(docs), "--exclude", "bat*", "--json")
    data = json.loads(out)
    assert code == 0 and [d["title"] for d in data] == ["Spider-Man"]
    assert set(data[0]) >= {"status", "uri", "source_root", "chunk_count", "version"}


def test_ingest_needs_something_to_ingest() -> None:
    code, out, err = run("ingest")
    assert code == 2 and out == ""
    assert err.startswith("arborist: error: give files, folders or URLs to ingest, or --demo: ")
    assert err.endswith("[SOURCE ...]\n") and err.count("\n") == 1  # the usage, as every face


def test_ingest_errors_are_one_line_and_write_nothing(tmp_path: Path, home: Path) -> None:
    code, _, err = run("ingest", str(tmp_path / "missing.md"))
    assert code == 1 and err.count("\n") == 1 and "missing.md" in err
    (tmp_path / "x.exe").write_bytes(b"MZ")
    code, _, err = run("ingest", str(tmp_path / "x.exe"))
    assert code == 2 and err.count("\n") == 1
    assert not (home / "store.db").exists(), "a refused ingest does not even create the store"


def test_demo_and_a_bad_source_are_one_batch(tmp_path: Path, home: Path) -> None:
    # README's notebook block once read `ingest --demo  # or paths`: the '#' became a source,
    # and the demo corpus was stored before the missing '#' failed the command.
    code, _, err = run("ingest", "--demo", "#")
    assert code == 1 and err.count("\n") == 1 and "#" in err
    assert not (home / "store.db").exists(), "the demo corpus is not stored when a source fails"
    (tmp_path / "extra.md").write_text(SPIDER, encoding="utf-8")
    code, out, err = run("ingest", "--demo", str(tmp_path / "extra.md"), "--json")
    assert (code, err) == (0, "")
    titles = [d["title"] for d in json.loads(out)]
    assert titles[-1] == "Spider-Man" and len(titles) > 50


@pytest.fixture
def web(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text(
        "<html><head><title>Web Page</title><script>alert(1)</script></head>"
        "<body><h1>Hello</h1><p>Served over loopback HTTP.</p></body></html>",
        encoding="utf-8",
    )
    handler = partial(SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_ingest_a_url(web: str) -> None:
    code, out, err = run("ingest", f"{web}/page.html", "--json")
    assert code == 0, err
    [doc] = json.loads(out)
    assert doc["title"] == "Web Page" and doc["uri"] == f"{web}/page.html"
    code, out, _ = run("search", "loopback")
    assert "[STRICT] Web Page" in out
    code, out, _ = run("search", "alert")
    assert out == "no matches\n"


def test_search_prints_modes_and_snippets(docs: Path) -> None:
    run("ingest", str(docs))
    code, out, _ = run("search", "created Ditko")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("1. [STRICT] Spider-Man  (chunk 0)  file://")
    assert "«Ditko»" in lines[1]
    code, out, _ = run("search", "Ditko", "--json")
    assert json.loads(out)[0]["audit_mode"] == "STRICT"
    code, _, err = run("search", '" * ( )')
    assert code == 2 and err == "arborist: error: empty search query: give at least one word\n"


def test_ask_miss_then_hit_with_key_and_sources(docs: Path) -> None:
    run("ingest", str(docs))
    code, out, _ = run("ask", "Who created Spider-Man?")
    assert code == 0
    assert "Ditko" in out.splitlines()[0]
    assert "cache   miss (answered now in" in out
    assert "audit   quotes verified (STRICT)" in out
    key = next(line.split()[1] for line in out.splitlines() if line.startswith("key "))
    assert len(key) == 64
    assert "  E1* Spider-Man  (chunk 0)  file://" in out
    code, out, _ = run("ask", "Who created Spider-Man?", "--json")
    data = json.loads(out)
    assert data["hit"] is True and data["cache_key"] == key and data["hit_count"] == 1


def test_ask_with_an_unknown_model_is_one_line(docs: Path) -> None:
    code, _, err = run("ask", "Who?", "--llm", "nonesuch")
    assert code == 2 and err.count("\n") == 1 and "unknown model 'nonesuch'" in err


def test_record_show_list_falsify(docs: Path) -> None:
    run("ingest", str(docs))
    _, out, _ = run("ask", "Who created Batman?", "--json")
    key = json.loads(out)["cache_key"]
    code, out, _ = run("record", "list")
    assert code == 0 and out.startswith(f"{key[:16]}  r1  ok ")
    code, out, _ = run("record", "show", key[:12])
    assert code == 0 and f"key        {key}" in out and "E1* chunk 0/1 of file://" in out
    code, out, _ = run("record", "show", key, "--json")
    evidence = json.loads(out)["evidence"][0]
    assert {"source_root", "chunk_count", "chunk_index", "leaf", "proof", "text"} <= set(evidence)
    code, out, _ = run(
        "record", "falsify", key, "--state", "quarantined", "--reason", "source disputed"
    )
    assert code == 0 and out == f"{key[:16]} revision 1 is now quarantined: source disputed\n"
    _, out, _ = run("ask", "Who created Batman?", "--json")
    assert json.loads(out)["hit"] is False and json.loads(out)["revision"] == 2
    code, _, err = run("record", "show", "xyz")  # neither a key nor a turn of the latest session
    assert code == 1 and err.count("\n") == 1 and "no turn 'xyz'" in err


def test_providence_is_the_record_group_under_its_former_name_and_hidden(docs: Path) -> None:
    run("ingest", str(docs))
    _, out, _ = run("ask", "Who created Batman?", "--json")
    key = json.loads(out)["cache_key"]
    assert run("providence", "show", key) == run("record", "show", key)
    assert run("providence", "list", "--json") == run("record", "list", "--json")
    _, listed, _ = run("--help")
    assert "record " in listed and "providence" not in listed


def test_evict_rehydrate_and_derive(docs: Path) -> None:
    run("ingest", str(docs))
    code, out, _ = run("evict", str(docs / "spider.md"), "--tier", "cold")
    assert code == 0 and out.startswith("1 chunk(s) of file://") and out.endswith("moved to cold\n")
    code, out, _ = run("search", "Spider")
    assert "[VISUAL] Spider-Man  (title only)" in out
    code, out, _ = run("rehydrate", str(docs / "spider.md"))
    assert code == 0 and "back to hot, every leaf verified" in out
    _, out, _ = run("ask", "Who created Spider-Man?", "--json")
    key = json.loads(out)["cache_key"]
    code, out, _ = run("derive", "snippet", "--from", key)
    assert code == 0 and out.startswith("saved snippet core:snippet:")
    code, out, _ = run("search", "Ditko")
    assert "[HYBRID]" in out


def test_verify_is_clean_then_names_each_problem(docs: Path, home: Path) -> None:
    run("ingest", str(docs))
    code, out, _ = run("verify")
    assert code == 0 and out.startswith(
        "store.db     ok  2 documents, 2 chunks, 0 cached answers; checkpoint 2:"
    )
    conn = sqlite3.connect(home / "store.db")
    conn.execute(
        "UPDATE chunks SET text = 'Spider-Man was created by nobody.' WHERE chunk_index = 0 AND document_id = 2"
    )
    conn.commit()
    conn.close()
    code, out, _ = run("verify")
    assert code == 1
    assert (
        out.splitlines()[0]
        == f"store.db: chunk 0 of {(docs / 'spider.md').resolve().as_uri()}: text does not match its leaf"
    )


def test_verify_against_a_checkpoint(docs: Path) -> None:
    run("ingest", str(docs))
    _, out, _ = run("chain-check", "--json")
    head = json.loads(out)["databases"][0]["checkpoint"]
    assert run("verify", "--checkpoint", head)[0] == 0
    code, out, _ = run("verify", "--checkpoint", "9:" + "a" * 64)
    assert code == 1 and "truncated" in out


def test_stats(docs: Path) -> None:
    run("ingest", str(docs))
    code, out, _ = run("stats", "--json")
    data = json.loads(out)
    assert code == 0 and data["documents"]["surface"] == 2 and data["chunks"]["hot"] == 2
    code, out, _ = run("stats")
    assert out.splitlines()[0] == "documents      2 surface, 0 core, 0 superseded"
