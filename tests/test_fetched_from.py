"""A fetch that redirects says where its bytes came from.

The document keeps the URL as given (its identity: the same URL again is the same
document), and the URL the body was fetched from after the redirects is shown on the
ingest line and in its JSON, and committed by the document's ``document_add`` event
(whose hash the chain covers, so ``arborist verify`` sees it edited), through the
admission gate as the URI is. A real loopback server redirects to itself.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._faces.cli import cli
from arborist._store.fetch import fetch_url
from tests.loopback_site import serving

TOKEN = "tok9876zyxw"
PAGE = b"<html><head><title>Moved page</title></head><body><p>Alder cones.</p></body></html>"


class _Site(BaseHTTPRequestHandler):
    """``/old`` redirects to ``/docs/page.html?access_token=TOKEN``, which is the page,
    as is ``/direct``."""

    def do_GET(self) -> None:
        path = self.path.partition("?")[0]
        if path == "/old":
            self.send_response(302)
            self.send_header("Location", f"/docs/page.html?access_token={TOKEN}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        found = path in ("/docs/page.html", "/direct")
        body = PAGE if found else b"not here"
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def site() -> Iterator[str]:
    with serving(_Site) as url:
        yield url


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def _document_add_bodies(home: Path) -> list[dict[str, object]]:
    conn = sqlite3.connect(home / "store.db")
    try:
        rows = conn.execute(
            "SELECT body FROM audit_events WHERE event_type = 'document_add' ORDER BY seq"
        ).fetchall()
    finally:
        conn.close()
    return [json.loads(body) for (body,) in rows]


def test_a_fetch_names_the_url_its_redirects_led_to(site: str) -> None:
    moved = fetch_url(f"{site}/old")
    assert moved.uri == f"{site}/old" and moved.title == "Moved page"
    assert moved.fetched_from == f"{site}/docs/page.html?access_token={TOKEN}"
    assert fetch_url(f"{site}/direct").fetched_from is None


def test_ingest_shows_and_commits_the_final_url_through_the_gate(site: str, home: Path) -> None:
    stored_from = f"{site}/docs/page.html?access_token=[REDACTED:secret]"
    code, out, err = run("ingest", f"{site}/old")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        f"added      Moved page  (1 chunk)  {site}/old  (redirected: fetched from {stored_from})"
    )
    [body] = _document_add_bodies(home)
    assert body["uri"] == f"{site}/old" and body["fetched_from"] == stored_from
    assert {"field": "fetched_from", "kind": "secret"} in body["metadata_redactions"]  # type: ignore[operator]
    assert all(TOKEN.encode() not in p.read_bytes() for p in home.iterdir() if p.is_file())
    code, out, _ = run("ingest", f"{site}/old", "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "unchanged"
    assert json.loads(out)[0]["fetched_from"] == stored_from
    code, out, err = run("verify")
    assert code == 0, out + err


def test_a_fetch_without_a_redirect_records_no_other_url(site: str, home: Path) -> None:
    code, out, _ = run("ingest", f"{site}/direct", "--json")
    assert code == 0 and json.loads(out)[0]["fetched_from"] is None
    code, out, _ = run("ingest", f"{site}/direct")
    assert "redirected" not in out
    [body] = _document_add_bodies(home)
    assert "fetched_from" not in body


def test_an_edited_final_url_fails_verify(site: str, home: Path) -> None:
    """The final URL is in the event's body, which its hash covers: an edit of it alone
    breaks the chain."""
    assert run("ingest", f"{site}/old")[0] == 0
    conn = sqlite3.connect(home / "store.db")
    with conn:
        edited = conn.execute(
            "UPDATE audit_events SET body = replace(body, '/docs/page.html', '/elsewhere.html') "
            "WHERE event_type = 'document_add'"
        ).rowcount
    conn.close()
    assert edited == 1
    code, out, _ = run("verify")
    assert code == 1 and "audit chain: seq 1: modified" in out
