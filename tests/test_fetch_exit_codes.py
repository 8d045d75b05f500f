"""``arborist ingest URL`` exits as README's "Command line" says, alike for a path and a URL.

Input that can never be valid exits 2: a page over the fetch cap is refused as a file
over the file cap is. What the server or the network did exits 1: a 404 and a refused
connection did, and now so does every other HTTP error status and the fetch deadline
(they exited 2). A real loopback server serves each case.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._faces.cli import cli
from arborist._store.fetch import MAX_FETCH_BYTES
from tests.loopback_site import serving

_PIECE = b"<p>" + b"rowan " * 10_000 + b"</p>\n"


class _Site(BaseHTTPRequestHandler):
    """``/declared`` says a length one byte over the cap; ``/streamed`` sends a body over
    the cap with no length; ``/status/N`` answers N; ``/drip`` sends a byte every 0.1 s."""

    def do_GET(self) -> None:
        if self.path.startswith("/status/"):
            self.send_response(int(self.path.rsplit("/", 1)[1]))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if self.path == "/declared":
            self.send_header("Content-Length", str(MAX_FETCH_BYTES + 1))
        self.end_headers()
        try:
            if self.path == "/streamed":
                for _ in range(MAX_FETCH_BYTES // len(_PIECE) + 2):
                    self.wfile.write(_PIECE)
            elif self.path == "/drip":
                for _ in range(100):  # ten seconds at most: the client hangs up long before
                    self.wfile.write(b"a")
                    self.wfile.flush()
                    time.sleep(0.1)
        except OSError:  # the client refused the rest and hung up
            pass

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def site() -> Iterator[str]:
    with serving(_Site) as url:
        yield url


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_page_over_the_cap_exits_2_as_a_file_over_the_cap_does(
    site: str, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusals = {}
    for path in ("declared", "streamed"):
        code, out, err = run("ingest", f"{site}/{path}")
        refusals[path] = code
        assert out == "" and err.count("\n") == 1
        assert err.startswith(f"arborist: error: {site}/{path}: too large (")
    monkeypatch.setenv("ARBORIST_MAX_FILE_BYTES", "1000")
    big = tmp_path / "big.txt"
    big.write_text("r" * 1001, encoding="ascii")
    code, out, err = run("ingest", str(big))
    assert out == "" and err.startswith(f"arborist: error: {big}: too large (1001 bytes")
    assert refusals == {"declared": code, "streamed": code} and code == 2
    assert not (home / "store.db").exists()


@pytest.mark.parametrize("status", [403, 404, 429, 500, 503])
def test_an_http_error_status_exits_1_as_a_404_and_no_connection_do(
    site: str, status: int, home: Path
) -> None:
    code, out, err = run("ingest", f"{site}/status/{status}")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert err.startswith(f"arborist: error: {site}/status/{status}: HTTP {status}")
    assert not (home / "store.db").exists()


def test_a_fetch_past_its_deadline_exits_1(
    site: str, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBORIST_FETCH_DEADLINE", "1")
    for _ in range(3):  # the deadline is met between two reads or cuts one: alike
        code, out, err = run("ingest", f"{site}/drip")
        assert (code, out) == (1, "")
        assert err == (
            f"arborist: error: cannot fetch URL: {site}/drip: not fetched within the 1 s "
            "deadline (set ARBORIST_FETCH_DEADLINE to wait longer)\n"
        )
