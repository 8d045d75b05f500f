"""Loaders turn real files, folders and URLs (fixtures made here) into normalized documents."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import re
import socket
import sys
import threading
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

from arborist._errors import ArboristError, BadInput, NotFound
from arborist._store import normalize, text_titles
from arborist._store.documents import prepare_document
from arborist._store.fetch import fetch_url, refetch
from arborist._store.loaders import (
    MEDIA_TYPES,
    SUPPORTED_SUFFIXES,
    LoadedDocument,
    discover,
    load_bytes,
    load_path,
)
from arborist._store.normalize import normalize_text
from tests.hypothesis_sizes import scaled_examples
from tests.pdfs import is_paged_text


def make_pdf(
    pages: list[list[str]], *, title: str | None = None, encrypt: str | None = None
) -> bytes:
    """A real PDF from reportlab: one list of lines per page (an empty list is a blank page)."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1, encrypt=encrypt)
    if title is not None:
        pdf.setTitle(title)
    for lines in pages:
        for row, line in enumerate(lines):
            pdf.drawString(72, 720 - 16 * row, line)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


@cache
def sample_pdf() -> bytes:
    return make_pdf([["Quarterly report", "Revenue grew."], ["Second page text"]], title="Q3")


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def one_line_error(excinfo: pytest.ExceptionInfo[ArboristError]) -> str:
    message = str(excinfo.value)
    assert message
    assert "\n" not in message
    return message


# --- formats ---------------------------------------------------------------------------------


def test_plain_text_loads_with_its_file_uri_raw_hash_and_file_name_as_title(tmp_path: Path) -> None:
    data = b"Just some notes.\n\nA second paragraph.\n"
    path = write(tmp_path / "notes.txt", data)
    doc = load_path(path)
    assert doc == LoadedDocument(
        uri=path.resolve().as_uri(),
        title="notes.txt",
        text="Just some notes.\n\nA second paragraph.",
        media_type="text/plain",
        content_sha256=hashlib.sha256(data).hexdigest(),
    )


def test_same_bytes_load_to_the_same_document(tmp_path: Path) -> None:
    path = write(tmp_path / "a.md", "# Same\n\nbody\n")
    assert load_path(path) == load_path(path)


def test_markdown_title_is_the_first_h1_outside_code_fences_and_front_matter(
    tmp_path: Path,
) -> None:
    text = (
        "---\ntitle: ignored\n---\n"
        "## Preface\n\n```bash\n# install it\npip install x\n```\n\n"
        "# Real Title #\n\nBody text.\n"
    )
    doc = load_path(write(tmp_path / "guide.md", text))
    assert doc.title == "Real Title"
    assert doc.media_type == "text/markdown"
    assert "# Real Title #" in doc.text.split("\n")  # markdown headings are kept as written


def test_markdown_title_falls_back_to_setext_then_any_heading_then_file_name(
    tmp_path: Path,
) -> None:
    assert load_path(write(tmp_path / "s.md", "Setext Title\n============\n\nx\n")).title == (
        "Setext Title"
    )
    assert (
        load_path(write(tmp_path / "h.md", "intro\n\n### Deep heading\n")).title == "Deep heading"
    )
    assert load_path(write(tmp_path / "none.md", "no heading at all\n")).title == "none.md"


def test_markdown_title_reads_a_readme_as_its_reader_sees_it(tmp_path: Path) -> None:
    """A README that opens with a generator's comment (whose ``# ...`` lines are no
    heading) or with an HTML ``<h1>`` (as GitHub shows it) is titled by its heading."""
    generated = (
        "<!-- [[[cog\n# README.md is generated from docs/index.md\nimport cog\n]]] -->\n"
        "<!-- one line -->\n# LLM\n\nA CLI tool.\n"
    )
    assert load_path(write(tmp_path / "llm.md", generated)).title == "LLM"
    centred = (
        '<h1 align="center">Charset Detection, for <em>Everyone</em> &amp; you</h1>\n\n'
        "## Changelog\n"
    )
    assert load_path(write(tmp_path / "c.md", centred)).title == (
        "Charset Detection, for Everyone & you"
    )
    # a second-level HTML heading is a heading like "## x", and an empty one none
    assert load_path(write(tmp_path / "h2.md", "<h1></h1>\n<h2>Usage</h2>\n")).title == "Usage"
    # inside a fence, "<!--" opens nothing
    fenced = "```html\n<!--\n```\n# Shown\n"
    assert load_path(write(tmp_path / "f.md", fenced)).title == "Shown"


def test_rst_title_is_the_first_underlined_line(tmp_path: Path) -> None:
    text = ".. note:: a directive\n\n==========\n Overlined\n==========\n\nSection\n-------\n"
    doc = load_path(write(tmp_path / "doc.rst", text))
    assert doc.title == "Overlined"
    assert doc.media_type == "text/x-rst"
    plain = load_path(write(tmp_path / "other.rst", "Install\n*******\n\nRun it.\n"))
    assert plain.title == "Install"


HOSTILE_HTML = """<!doctype html>
<html><head><title>  Caf&eacute; &amp; Co  </title>
<style>p { color: red }</style><script>var tracking = 1;</script></head>
<body>
<nav><ul><li>Home</li><li><a href="/">About</a></li></ul></nav>
<h1>Main <em>heading</em></h1>
<p>First   para with <b>bold</b> &lt;tag&gt; text.<br>Second line</p>
<div>Block <span>inline</span></div>
<h3>Sub<br>title</h3>
<pre>  code  line 1
    indented</pre>
<script>alert(1)</script><noscript>enable js</noscript><template><p>hidden template</p></template>
<!-- a comment --> tail text
</body></html>"""


def test_html_renders_paragraphs_and_prefixed_headings_and_drops_scripts(tmp_path: Path) -> None:
    doc = load_path(write(tmp_path / "page.html", HOSTILE_HTML))
    assert doc.title == "Café & Co"
    assert doc.media_type == "text/html"
    assert doc.text == (  # the <nav> is the page's chrome, not its text
        "# Main heading\n\n"
        "First para with bold <tag> text.\nSecond line\n\n"
        "Block inline\n\n### Sub title\n\n"
        "  code  line 1\n    indented\n\n"
        "tail text"
    )
    absent_words = ("alert(1)", "tracking", "color: red", "enable js", "hidden template")
    for absent in (*absent_words, "comment", "Home", "About"):
        assert absent not in doc.text


def test_html_title_falls_back_to_the_first_h1_and_htm_is_html(tmp_path: Path) -> None:
    doc = load_path(write(tmp_path / "x.htm", "<body><p>intro</p><h1>The <i>H1</i></h1></body>"))
    assert doc.title == "The H1"
    assert doc.media_type == "text/html"


def test_html_decodes_the_charset_its_meta_declares(tmp_path: Path) -> None:
    page = '<html><head><meta charset="iso-8859-1"><title>Ni\xf1o</title></head><body>\u201cquoted\u201d ma\xf1ana</body></html>'
    doc = load_path(write(tmp_path / "latin.html", page.encode("cp1252")))
    assert doc.title == "Niño"
    assert doc.text == "\u201cquoted\u201d mañana"


def test_html_with_nothing_but_scripts_has_no_text(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="has no text") as excinfo:
        load_path(write(tmp_path / "empty.html", "<script>alert(1)</script><style>x{}</style>"))
    one_line_error(excinfo)


def notebook(cells: Sequence[Mapping[str, object]], **metadata: object) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells})


def test_notebook_keeps_markdown_and_code_cells_in_order_and_skips_outputs(tmp_path: Path) -> None:
    cells: list[dict[str, object]] = [
        {"cell_type": "markdown", "source": ["# Analysis\n", "\n", "We load data."]},
        {
            "cell_type": "code",
            "source": "import csv\nrows = list(csv.reader(open('x')))",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["SECRET OUTPUT\n"]}],
        },
        {"cell_type": "raw", "source": "RAW CELL"},
        {"cell_type": "markdown", "source": ""},
        {"cell_type": "markdown", "source": "## Results\nAll good."},
    ]
    doc = load_path(write(tmp_path / "analysis.ipynb", notebook(cells)))
    assert doc.title == "Analysis"
    assert doc.media_type == "application/x-ipynb+json"
    assert doc.text == (
        "# Analysis\n\nWe load data.\n\n"
        "import csv\nrows = list(csv.reader(open('x')))\n\n"
        "## Results\nAll good."
    )
    assert "SECRET OUTPUT" not in doc.text
    assert "RAW CELL" not in doc.text


def test_notebook_title_falls_back_to_metadata_then_file_name(tmp_path: Path) -> None:
    code = [{"cell_type": "code", "source": ["x = 1"]}]
    assert load_path(write(tmp_path / "m.ipynb", notebook(code, title="Meta"))).title == "Meta"
    assert load_path(write(tmp_path / "n.ipynb", notebook(code))).title == "n.ipynb"


def test_pdf_text_opens_each_page_after_the_first_with_a_form_feed_and_has_the_metadata_title(
    tmp_path: Path,
) -> None:
    doc = load_path(write(tmp_path / "report.pdf", sample_pdf()))
    assert doc.title == "Q3"
    assert doc.media_type == "application/pdf"
    assert doc.text == "Quarterly report\nRevenue grew.\n\n\fSecond page text"
    assert doc.content_sha256 == hashlib.sha256(sample_pdf()).hexdigest()


def test_pdf_without_a_title_is_titled_by_its_first_line(tmp_path: Path) -> None:
    doc = load_path(write(tmp_path / "untitled.pdf", make_pdf([["", "Opening line"]])))
    assert doc.title == "Opening line"


def test_python_source_is_kept_whole_and_titled_by_its_docstring(tmp_path: Path) -> None:
    source = '#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"""\nTools for frobbing.\n\nMore.\n"""\n\ndef f():\n    return 1\n'
    doc = load_path(write(tmp_path / "frob.py", source))
    assert doc.title == "Tools for frobbing."
    assert doc.media_type == "text/x-python"
    assert doc.text == source.rstrip("\n")
    assert load_path(write(tmp_path / "bare.py", "x = 1\n")).title == "bare.py"


def test_text_is_nfc_without_bom_crlf_trailing_spaces_or_control_characters(
    tmp_path: Path,
) -> None:
    decomposed = "Cafe\u0301"
    raw = "\ufeff" + f"{decomposed}  \r\nline\ttwo\t\r\n\x1b[31mred\rend\x07\r\n\r\n"
    doc = load_path(write(tmp_path / "messy.txt", raw))
    assert doc.text == "Café\nline\ttwo\n[31mred\nend"
    assert unicodedata.is_normalized("NFC", doc.text)
    assert doc.content_sha256 == hashlib.sha256(raw.encode("utf-8")).hexdigest()


def test_uppercase_suffixes_are_supported(tmp_path: Path) -> None:
    assert load_path(write(tmp_path / "README.MD", "# Up\n")).media_type == "text/markdown"


# --- errors ----------------------------------------------------------------------------------


def test_an_unsupported_suffix_is_bad_input(tmp_path: Path) -> None:
    path = write(tmp_path / "data.csv", "a,b\n")
    with pytest.raises(BadInput, match=r"data\.csv: unsupported file type '\.csv'") as excinfo:
        load_path(path)
    one_line_error(excinfo)
    with pytest.raises(BadInput, match="unsupported file type"):
        discover([path])
    with pytest.raises(BadInput, match=r"unsupported media type 'image/png'"):
        load_bytes(b"x", uri="mem:", name="x.txt", media_type="image/png")


def test_a_missing_path_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="no such file") as excinfo:
        load_path(tmp_path / "gone.md")
    one_line_error(excinfo)
    with pytest.raises(NotFound, match="gone: no such file or folder"):
        discover([tmp_path / "gone"])


def test_a_folder_given_to_load_path_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(BadInput, match="is a folder"):
        load_path(tmp_path / "dir.md")


def test_undecodable_bytes_are_bad_input_naming_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "latin.txt", "caf\xe9".encode("latin-1"))
    with pytest.raises(BadInput, match=r"latin\.txt: not UTF-8 text.*0xe9 at offset 3") as excinfo:
        load_path(path)
    one_line_error(excinfo)


def test_nul_bytes_mark_a_text_file_as_binary(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="NUL bytes"):
        load_path(write(tmp_path / "bin.md", b"# x\x00\x01"))


@pytest.mark.parametrize("content", ["", "  \n\t\n", "\ufeff"])
def test_an_empty_file_has_no_text(tmp_path: Path, content: str) -> None:
    with pytest.raises(BadInput, match="has no text") as excinfo:
        load_path(write(tmp_path / "empty.txt", content))
    one_line_error(excinfo)


def test_a_truncated_pdf_is_bad_input(tmp_path: Path) -> None:
    data = sample_pdf()
    path = write(tmp_path / "half.pdf", data[: len(data) // 2])
    with pytest.raises(BadInput, match="corrupt or unreadable PDF") as excinfo:
        load_path(path)
    one_line_error(excinfo)


def test_random_bytes_named_pdf_are_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="not a PDF") as excinfo:
        load_path(write(tmp_path / "noise.pdf", os.urandom(2048)))
    one_line_error(excinfo)
    with pytest.raises(BadInput, match="corrupt or unreadable PDF"):
        load_path(write(tmp_path / "header.pdf", b"%PDF-1.7\n" + os.urandom(2048)))


def test_an_encrypted_pdf_is_bad_input(tmp_path: Path) -> None:
    path = write(tmp_path / "locked.pdf", make_pdf([["top secret"]], encrypt="hunter2"))
    with pytest.raises(BadInput, match="encrypted") as excinfo:
        load_path(path)
    one_line_error(excinfo)


def test_a_pdf_without_text_is_refused_as_probably_scanned(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"has no extractable text \(scanned\?\)") as excinfo:
        load_path(write(tmp_path / "blank.pdf", make_pdf([[]])))
    one_line_error(excinfo)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"cells": [', "malformed notebook JSON"),
        ("[1, 2]", "not a Jupyter notebook"),
        ('{"cells": [1]}', "cell 0 is not an object"),
        ('{"cells": [{"cell_type": "code", "source": [1]}]}', "neither text nor a list"),
    ],
)
def test_a_malformed_notebook_is_bad_input(tmp_path: Path, content: str, message: str) -> None:
    with pytest.raises(BadInput, match=message) as excinfo:
        load_path(write(tmp_path / "bad.ipynb", content))
    one_line_error(excinfo)


# --- discover --------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for rel in (
        "b.md",
        "a.txt",
        "docs/intro.md",
        "docs/api/ref.rst",
        "docs/private.md",
        "drafts/wip.md",
        "nb/analysis.ipynb",
        "z.py",
        "image.png",
        "data.csv",
        ".hidden.md",
        ".git/HEAD.txt",
        ".venv/lib/site.py",
        "node_modules/pkg/readme.md",
        "__pycache__/cached.py",
    ):
        write(root / rel, "text")
    return root


def rels(paths: list[Path], root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_discover_walks_folders_sorted_keeping_supported_files_and_skipping_hidden_ones(
    tree: Path,
) -> None:
    assert rels(discover([tree]), tree) == [
        "a.txt",
        "b.md",
        "docs/api/ref.rst",
        "docs/intro.md",
        "docs/private.md",
        "drafts/wip.md",
        "nb/analysis.ipynb",
        "z.py",
    ]


def test_discover_globs_match_the_relative_path_or_the_file_name(tree: Path) -> None:
    assert rels(discover([tree], include=["*.md"]), tree) == [
        "b.md",
        "docs/intro.md",
        "docs/private.md",
        "drafts/wip.md",
    ]
    assert rels(discover([tree], include=["docs/*"], exclude=["private.md"]), tree) == [
        "docs/api/ref.rst",
        "docs/intro.md",
    ]
    # an exclude matching a folder's name prunes it; '*' crosses '/' in relative paths
    assert rels(discover([tree], exclude=["drafts", "docs/*.rst", "*.py"]), tree) == [
        "a.txt",
        "b.md",
        "docs/intro.md",
        "docs/private.md",
        "nb/analysis.ipynb",
    ]


def test_discover_keeps_explicit_files_in_argument_order_once(tree: Path) -> None:
    found = discover([tree / "z.py", tree / ".hidden.md", tree / "docs", tree / "z.py"])
    assert found == [
        tree / "z.py",
        tree / ".hidden.md",
        tree / "docs/api/ref.rst",
        tree / "docs/intro.md",
        tree / "docs/private.md",
    ]
    assert discover([tree / "z.py"], exclude=["*.py"]) == []


def test_discover_survives_symlink_loops(tree: Path) -> None:
    (tree / "docs" / "loop").symlink_to(tree, target_is_directory=True)
    (tree / "docs" / "self").symlink_to(tree / "docs", target_is_directory=True)
    (tree / "broken.md").symlink_to(tree / "nowhere.md")
    found = discover([tree])
    assert len(found) == len({p.resolve() for p in found}) == 8


# --- HTTP ------------------------------------------------------------------------------------

ESCAPED_SLASH_KEY = "npg_gvQ7kPRfzl5U"
ESCAPED_SLASH_PATH = f"/view/psql%20%27postgresql%3A%2F%2Fowner%3A{ESCAPED_SLASH_KEY}"
"""A path whose last segment holds a whole connection string, its ``/`` escaped."""

ROUTES: dict[str, tuple[int, dict[str, str], bytes]] = {
    "/page.html": (200, {"Content-Type": "text/html; charset=utf-8"}, HOSTILE_HTML.encode()),
    "/plain": (200, {"Content-Type": "text/plain"}, b"plain words\n"),
    "/raw/readme.md": (200, {"Content-Type": "text/plain; charset=utf-8"}, b"# Raw\n\nbody\n"),
    "/latin": (
        200,
        {"Content-Type": "text/plain; charset=ISO-8859-1"},
        "ni\xf1o".encode("latin-1"),
    ),
    "/missing": (404, {"Content-Type": "text/plain"}, b"nope"),
    "/boom": (500, {"Content-Type": "text/plain"}, b"oops"),
    "/moved": (302, {"Location": "/page.html"}, b""),
    "/doc.pdf": (200, {"Content-Type": "application/pdf"}, b""),  # body filled in below
    "/image": (200, {"Content-Type": "image/png"}, b"\x89PNG"),
    "/nb.ipynb": (
        200,
        {"Content-Type": "application/json"},
        notebook([{"cell_type": "markdown", "source": "# NB"}]).encode(),
    ),
    "/big": (200, {"Content-Type": "text/plain"}, b"x" * 5000),
    ESCAPED_SLASH_PATH: (200, {"Content-Type": "text/plain"}, b"meeting notes\n"),
}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, headers, body = ROUTES.get(self.path, (404, {}, b""))
        if self.path == "/doc.pdf":
            body = sample_pdf()
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        if self.path != "/big":  # /big streams until the connection closes
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the tests read responses, not the access log."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_fetch_html_keeps_the_url_as_given(server: str) -> None:
    doc = fetch_url(f"{server}/page.html")
    assert doc.uri == f"{server}/page.html"
    assert doc.title == "Café & Co"
    assert doc.media_type == "text/html"
    assert "# Main heading" in doc.text
    assert "alert(1)" not in doc.text


def test_fetch_follows_redirects_but_records_the_url_asked_for(server: str) -> None:
    doc = fetch_url(f"{server}/moved")
    assert doc.uri == f"{server}/moved"
    assert doc.title == "Café & Co"


def test_fetch_plain_text_and_declared_charsets(server: str) -> None:
    plain = fetch_url(f"{server}/plain")
    assert (plain.text, plain.title, plain.media_type) == ("plain words", "plain", "text/plain")
    assert fetch_url(f"{server}/latin").text == "niño"


def test_fetch_generic_content_types_defer_to_the_url_suffix(server: str) -> None:
    md = fetch_url(f"{server}/raw/readme.md")
    assert (md.media_type, md.title) == ("text/markdown", "Raw")
    nb = fetch_url(f"{server}/nb.ipynb")
    assert (nb.media_type, nb.title) == ("application/x-ipynb+json", "NB")


def test_fetch_pdf_with_a_client_of_our_own(server: str) -> None:
    with httpx.Client() as client:
        doc = fetch_url(f"{server}/doc.pdf", client=client)
    assert doc.text == "Quarterly report\nRevenue grew.\n\n\fSecond page text"
    assert doc.content_sha256 == hashlib.sha256(sample_pdf()).hexdigest()


def test_fetch_404_is_not_found_and_500_is_bad_input_with_the_status(server: str) -> None:
    with pytest.raises(NotFound, match="HTTP 404 Not Found") as missing:
        fetch_url(f"{server}/missing")
    one_line_error(missing)
    with pytest.raises(BadInput, match="HTTP 500 Internal Server Error") as boom:
        fetch_url(f"{server}/boom")
    one_line_error(boom)


def test_fetch_refuses_unsupported_content_and_oversized_bodies(server: str) -> None:
    with pytest.raises(BadInput, match="unsupported content type 'image/png'"):
        fetch_url(f"{server}/image")
    with pytest.raises(BadInput, match="too large"):
        fetch_url(f"{server}/big", max_bytes=1000)  # no Content-Length: stopped while streaming
    with pytest.raises(BadInput, match=r"too large \(12 bytes"):
        fetch_url(f"{server}/plain", max_bytes=10)  # Content-Length says so up front


def closed_port() -> int:
    """A loopback port nothing listens on: bound by us a moment ago, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_fetch_network_errors_and_other_schemes_are_one_line_bad_input(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    with pytest.raises(BadInput, match=re.escape(f"cannot fetch URL: {url}")) as excinfo:
        fetch_url(url, timeout=5)
    one_line_error(excinfo)
    for url in ("ftp://example.com/x.txt", (tmp_path / "a.txt").as_uri(), "http://"):
        with pytest.raises(BadInput):
            fetch_url(url)


# --- refetch ---------------------------------------------------------------------------------


def test_refetch_reloads_file_uris_even_with_escaped_characters(tmp_path: Path) -> None:
    path = write(tmp_path / "with space é.md", "# Spaced\n")
    doc = load_path(path)
    assert "%20" in doc.uri
    assert refetch(doc.uri) == doc
    path.write_text("# Changed\n", encoding="utf-8")
    assert refetch(doc.uri).title == "Changed"
    path.unlink()
    with pytest.raises(NotFound):
        refetch(doc.uri)


def test_refetch_http_and_pydoc_and_refuses_other_schemes(server: str) -> None:
    assert refetch(f"{server}/plain").text == "plain words"
    doc = refetch("pydoc:json")
    assert doc.uri == "pydoc:json"
    assert doc.title.startswith("json — ")
    for uri in ("mailto:x@example.com", "no-scheme", "file://otherhost/etc/passwd"):
        with pytest.raises(BadInput):
            refetch(uri)


# --- properties ------------------------------------------------------------------------------


def mutated_pdfs() -> st.SearchStrategy[bytes]:
    """A valid PDF with a few bytes overwritten, maybe cut short: reaches deep into pypdf's parser."""
    pdf = sample_pdf()
    edit = st.tuples(st.integers(0, len(pdf) - 1), st.binary(min_size=1, max_size=8))
    length = st.one_of(st.just(len(pdf)), st.integers(len(pdf) // 3, len(pdf)))
    return st.builds(_apply_edits, st.lists(edit, max_size=3), length)


def _apply_edits(edits: list[tuple[int, bytes]], length: int) -> bytes:
    data = bytearray(sample_pdf())
    for at, patch in edits:
        data[at : at + len(patch)] = patch
    return bytes(data[:length])


def json_values() -> st.SearchStrategy[object]:
    scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    )


def notebooks() -> st.SearchStrategy[bytes]:
    """Notebook-shaped JSON with arbitrary cells, so the cell walker sees more than parse errors."""
    source = st.text(max_size=40) | st.lists(st.text(max_size=20), max_size=3) | json_values()
    cell = st.fixed_dictionaries(
        {"cell_type": st.sampled_from(["markdown", "code", "raw", "other"]), "source": source}
    )
    cells = st.lists(cell | json_values(), max_size=5)
    return st.fixed_dictionaries({"cells": cells, "metadata": json_values()}).map(
        lambda nb: json.dumps(nb).encode("utf-8", "surrogatepass")
    )


def check_loaded(media_type: str, data: bytes) -> None:
    """load_bytes either refuses with one line or returns normalized, encodable text."""
    try:
        doc = load_bytes(data, uri="mem:fuzz", name="fuzz", media_type=media_type)
    except ArboristError as exc:  # anything else escapes and fails the test
        refusal = str(exc)
    else:
        refusal = ""
    if refusal:
        assert "\n" not in refusal
        return
    assert doc.text.strip()
    assert "\x00" not in doc.text
    assert unicodedata.is_normalized("NFC", doc.text)
    assert (
        is_paged_text(doc.text)
        if media_type == "application/pdf"
        else (normalize_text(doc.text) == doc.text)
    )
    assert doc.title
    doc.text.encode("utf-8")  # no lone surrogates: every leaf hash can encode it
    doc.title.encode("utf-8")


@settings(max_examples=scaled_examples(150), deadline=None)
@given(
    media_type=st.sampled_from(sorted(set(MEDIA_TYPES.values()))),
    data=st.one_of(
        st.binary(max_size=512),
        st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
    ),
)
def test_load_bytes_on_random_bytes_raises_only_arborist_errors(
    media_type: str, data: bytes
) -> None:
    check_loaded(media_type, data)


@settings(
    max_examples=scaled_examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data=mutated_pdfs())
def test_load_bytes_on_damaged_pdfs_raises_only_arborist_errors(data: bytes) -> None:
    check_loaded("application/pdf", data)


@settings(max_examples=scaled_examples(100), deadline=None)
@given(data=notebooks())
def test_load_bytes_on_odd_notebooks_raises_only_arborist_errors(data: bytes) -> None:
    check_loaded("application/x-ipynb+json", data)


@given(st.text())
def test_normalize_text_is_idempotent_and_nfc(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once
    assert unicodedata.is_normalized("NFC", once)
    assert "\r" not in once
    assert "\x00" not in once


def test_every_supported_suffix_has_a_media_type() -> None:
    assert set(SUPPORTED_SUFFIXES) == set(MEDIA_TYPES)


# --- normalization and titles as first written: loading in pieces must not change them --------
# Verbatim copies of loaders.py before issue #11 bounded memory (it split the whole text into
# lines to strip them, and every title rule split the whole file into lines). Chunk leaves are
# hashed from the normalized text, so the rewrite may change how much memory loading takes,
# never what it gives.

_K1_SURROGATES = re.compile("[\ud800-\udfff]")
_K1_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def k1_normalize_text(text: str) -> str:
    text = _K1_SURROGATES.sub("\ufffd", text)
    text = text.replace("\ufeff", "").replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", _K1_CONTROLS.sub("", text))
    lines = [line.rstrip() for line in text.split("\n")]
    start = 0
    while start < len(lines) and not lines[start]:
        start += 1
    end = len(lines)
    while end > start and not lines[end - 1]:
        end -= 1
    return "\n".join(lines[start:end])


def k1_markdown_title(text: str) -> str:
    lines = text.split("\n")
    if lines and lines[0] == "---":
        close = next((i for i in range(1, len(lines)) if lines[i] in ("---", "...")), None)
        if close is not None:
            lines = lines[close + 1 :]
    first_any = ""
    in_fence = ""
    in_comment = False
    previous = ""
    for line in lines:
        if in_comment or (not in_fence and text_titles._COMMENT_OPEN.match(line)):
            in_comment = "-->" not in (line if in_comment else line.split("<!--", 1)[1])
            previous = ""
            continue
        fence = text_titles._FENCE.match(line)
        if fence:
            if not in_fence:
                in_fence = fence.group(1)
            elif fence.group(1) == in_fence:
                in_fence = ""
            previous = ""
            continue
        if in_fence:
            continue
        atx = text_titles._ATX.match(line)
        heading = text_titles._HTML_HEADING.match(line)
        if atx:
            if len(atx.group(1)) == 1:
                return atx.group(2)
            first_any = first_any or atx.group(2)
        elif heading and text_titles.html_text(heading.group(2)):
            if heading.group(1) == "1":
                return text_titles.html_text(heading.group(2))
            first_any = first_any or text_titles.html_text(heading.group(2))
        elif (
            text_titles._SETEXT_H1.match(line)
            and previous.strip()
            and not previous.startswith("    ")
        ):
            return previous
        previous = line
    return first_any


def k1_rst_title(text: str) -> str:
    lines = text.split("\n")
    for i in range(len(lines) - 1):
        line, below = lines[i], lines[i + 1].strip()
        title = line.strip()
        overlined = i > 0 and bool(text_titles._RST_ADORNMENT.match(lines[i - 1].strip()))
        if (
            title
            and (overlined or not line[0].isspace())
            and not title.startswith(".. ")
            and not text_titles._RST_ADORNMENT.match(title)
            and text_titles._RST_ADORNMENT.match(below)
        ):
            return title
    return ""


def k1_python_title(text: str) -> str:
    start = 0
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        start += len(line) + 1
    match = text_titles._PY_DOCSTRING.match(text, start)
    if not match:
        return ""
    return next((line.strip() for line in match.group(2).split("\n") if line.strip()), "")


# Everything the rules turn on: CR/LF, BOM, controls, combining marks and Hangul jamo (NFC),
# lone surrogates, whitespace strip() knows, and the marks of titles, fences and docstrings.
_PARTS = [
    "a", "Title", " ", "\t", "\n", "\n\n", "\r", "\r\n", "\ufeff", "\x00", "\x1f", "\x7f",
    "e\u0301", "\u0301", "\u1100\u1161", "\u11a8", "\ud800", "\u00a0", "\u3000", "\u2028",
    "\x85", "#", "# T", "## S", "=", "===", "---", "...", "```", "~~~", "'''", '"""', "#!x",
    ".. ", "    ", "-", "<!--", "-->", "<h1>", "</h1>", "<h2 x>", "</h2>", "&amp;",
]  # fmt: skip
_loader_texts = st.lists(st.sampled_from(_PARTS), max_size=60).map("".join)


@settings(max_examples=scaled_examples(300), deadline=None)
@given(_loader_texts, st.sampled_from([1, 2, 3, 7, 1 << 20]))
def test_normalize_text_in_pieces_is_normalize_text_whole(text: str, piece: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(normalize, "_PIECE_CHARS", piece)
        assert normalize_text(text) == k1_normalize_text(text)


@pytest.mark.parametrize(
    "line",
    [
        "Ca\u0301fe\u0301 \t\r\n\ufeff  \n\x00x  \r",  # every rule has work
        "Plain ASCII prose, no trailing space.\n",
        "Plain ASCII prose with a trailing tab.\t\n",
        "Caf\u00e9 \u2014 already NFC.\n",
        "Caf\u00e9 with a trailing ideographic space\u3000\n",
        "Caf\u00e9 with a control\x07 inside.\n",
        "Cafe\u0301 not NFC.\n",
    ],
)
def test_normalize_text_of_a_text_longer_than_a_piece(line: str) -> None:
    body = line * (3 * (1 << 20) // len(line))
    for text in (body, "\n\n" + body + "\n\n", "\n\n  \n" + body + "\n \n"):
        assert normalize_text(text) == k1_normalize_text(text)
    clean = body.strip("\n")
    if k1_normalize_text(clean) == clean:
        assert normalize_text(clean) is clean, "a normalized text is not copied"


def test_line_end_spaces_are_every_space_but_newline() -> None:
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert "".join(c for c in every if c.isspace() and c != "\n") == normalize._LINE_END_SPACES


@settings(max_examples=scaled_examples(300), deadline=None)
@given(_loader_texts)
def test_titles_read_line_by_line_are_the_titles_of_the_whole_split(text: str) -> None:
    for given_text in (text, k1_normalize_text(text)):
        assert text_titles.markdown_title(given_text) == k1_markdown_title(given_text)
        assert text_titles._rst_title(given_text) == k1_rst_title(given_text)
        assert text_titles._python_title(given_text) == k1_python_title(given_text)


def test_a_fetched_name_is_the_last_segment_split_before_decoding(server: str) -> None:
    """An escaped ``%2F`` belongs to its segment: the name is the whole connection
    string (which the gate knows by its scheme), not its tail after the decoded ``//``
    (a bare ``owner:password`` no gate could tell from a ratio or a time)."""
    doc = fetch_url(server + ESCAPED_SLASH_PATH)
    assert doc.title == "psql 'postgresql://owner:" + ESCAPED_SLASH_KEY
    prepared = prepare_document(doc)
    stored = (prepared.uri, prepared.title, prepared.text)
    assert not any(ESCAPED_SLASH_KEY in field for field in stored), stored
