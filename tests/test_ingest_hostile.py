"""Hostile sources at ingest (issue #11): a refusal in a batch writes nothing, no secret in
a title, a file name or a URL reaches the store or the audit log, and a big plain text file
costs about twice its size in memory."""

from __future__ import annotations

import http.server
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist import Arborist
from arborist._errors import BadInput, ModelError
from arborist._faces.cli import cli
from arborist._qa.client import EvidenceText, make_request
from arborist._qa.http import HttpSettings
from arborist._qa.openai import OpenAIClient
from arborist._qa.runner import ask
from arborist._store.documents import ingest_document, resolve_document
from arborist._store.fetch import fetch_url
from arborist._store.loaders import LoadedDocument
from arborist._store.uris import admit_uri, redact_uri
from tests.chat_server import ChatServer, stream_reply
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401 - the fixture

# Built by concatenation so this file does not itself look like a leaked key.
API_KEY = "sk-" + "proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
GITHUB_TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
PASSWORD = "hunter2"
QUERY_KEY = "abcd1234efgh"
QUERY_TOKEN = "tok9876zyxw"
NAME_TOKEN = "n4m3t0k3n5ecr3t77"
SECRETS = (API_KEY, GITHUB_TOKEN, PASSWORD, QUERY_KEY, QUERY_TOKEN, NAME_TOKEN)

BODY = "The deploy script reads its credentials from the vault before it runs.\n"


def _db_bytes(home: Path) -> bytes:
    """Every byte of every file the store keeps (store.db, its -wal and -shm)."""
    return b"".join(p.read_bytes() for p in sorted(home.iterdir()) if p.is_file())


def _counts(home: Path) -> list[int]:
    """How many documents, chunks and audit events ``store.db`` holds."""
    conn = sqlite3.connect(home / "store.db")
    try:
        return [
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("documents", "chunks", "audit_events")
        ]
    finally:
        conn.close()


# --- 3. all or nothing ------------------------------------------------------------------------


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``notes/good.txt`` and ``notes/secret.txt`` (all keys), with the cwd above them."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "good.txt").write_text("Knead the dough for ten minutes.\n", encoding="utf-8")
    (folder / "secret.txt").write_text(
        "\n".join(f"{API_KEY}{i}" for i in range(20)) + "\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return folder


@pytest.mark.parametrize(
    "sources", [["notes/good.txt", "notes/secret.txt"], ["notes"]], ids=["files", "folder"]
)
def test_a_refused_file_stops_the_batch_before_anything_is_written(
    home: Path, notes: Path, sources: list[str]
) -> None:
    with Arborist(home) as app:
        app.store_conn  # noqa: B018  (open and migrate: the schema's own events come first)
        before = _counts(home)
        with pytest.raises(BadInput) as refused:
            app.ingest(sources)
    message = str(refused.value)
    assert message.startswith("notes/secret.txt is mostly secret material ("), message
    assert "file:" not in message
    assert API_KEY not in message
    assert before[:2] == [0, 0]
    assert _counts(home) == before, "no document, no chunk, no audit event"


def test_the_cli_names_the_refused_file_by_the_path_given(home: Path, notes: Path) -> None:
    result = CliRunner().invoke(cli, ["ingest", "notes/good.txt", "notes/secret.txt"])
    assert result.exit_code != 0, result.output
    assert "notes/secret.txt is mostly secret material" in result.stderr
    assert "file:" not in result.stderr
    with Arborist(home) as app:
        assert app.store_conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0


# --- 4. no secret in a document's metadata -----------------------------------------------------


def test_no_secret_in_a_title_file_name_or_url_reaches_the_store(
    home: Path, tmp_path: Path
) -> None:
    keyed_name = tmp_path / f"{GITHUB_TOKEN}.md"
    keyed_name.write_text(f"# Deploy key {API_KEY}\n\n{BODY}", encoding="utf-8")
    assigned_name = tmp_path / f"token={NAME_TOKEN}.txt"  # '=' is %3D in its file: URI
    assigned_name.write_text(BODY, encoding="utf-8")
    url = (
        f"https://deploy:{PASSWORD}@example.org/x?api_key={QUERY_KEY}&page=2"
        f"#access_token={QUERY_TOKEN}"
    )
    fetched = LoadedDocument(
        uri=url,
        title=f"Deploy notes (token={QUERY_TOKEN})",
        text="# Deploy\n\n" + BODY,
        media_type="text/markdown",
        content_sha256="0" * 64,
    )
    with Arborist(home) as app:
        first = app.ingest([str(keyed_name), str(assigned_name)])
        added = ingest_document(app.store_conn, fetched, allowlist=app.allowlist)
        # The redacted URI is the identity: the same sources again are the same documents.
        again = app.ingest([str(keyed_name), str(assigned_name)])
        assert [r.status for r in again] == ["unchanged", "unchanged"]
        assert [r.document.id for r in again] == [r.document.id for r in first]
        assert ingest_document(app.store_conn, fetched).status == "unchanged"
        # The documents are still found by the path they came from.
        assert resolve_document(app.store_conn, str(keyed_name)).id == first[0].document.id

        keyed = first[0].document
        assert "[REDACTED:openai_key]" in keyed.title
        assert "[REDACTED:github_token]" in keyed.uri
        assert keyed.uri.startswith("file://") and keyed.uri.endswith(".md")
        assert added.document.uri == (
            "https://example.org/x?api_key=[REDACTED:secret]&page=2#access_token=[REDACTED:secret]"
        )
        assert QUERY_TOKEN not in added.document.title
        events = [
            json.loads(body)
            for (body,) in app.store_conn.execute(
                "SELECT body FROM audit_events WHERE event_type = 'document_add' ORDER BY seq"
            )
        ]
        recorded = [e.get("metadata_redactions") for e in events]
        assert all(recorded), "every document records what was taken out of its metadata"
        assert (home / "store.db-wal").exists()
        for secret in SECRETS:  # while open: store.db and its WAL
            assert secret.encode() not in _db_bytes(home), f"{secret[:6]}… is in the files"
    assert Arborist(home).verify().ok
    blob = _db_bytes(home)
    for secret in SECRETS:
        assert secret.encode() not in blob, f"{secret[:6]}… is in the database files"
    conn = sqlite3.connect(home / "store.db")
    audit = json.dumps(conn.execute("SELECT * FROM audit_events").fetchall())
    conn.close()
    for secret in SECRETS:
        assert secret not in audit


def test_an_allowlisted_url_credential_stays(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[admission]\nallowlist = ["public-demo-key-1"]\n', encoding="utf-8"
    )
    loaded = LoadedDocument(
        uri="https://example.org/api?key=public-demo-key-1",
        title="Demo",
        text=BODY,
        media_type="text/plain",
        content_sha256="1" * 64,
    )
    with Arborist(home) as app:
        stored = ingest_document(app.store_conn, loaded, allowlist=app.allowlist).document
    assert stored.uri == loaded.uri


# --- 2. memory ------------------------------------------------------------------------------


def test_a_big_plain_text_file_costs_about_twice_its_size(home: Path, tmp_path: Path) -> None:
    """Peak traced memory while ingesting a 10 MiB text file stays under 2.5x its size (the
    bytes and their text, then the text and the gate's case-folded copy; never a list of
    lines, of blocks or of chunks beside them). It was 4.2x."""
    paragraph = " ".join(["Stones and rivers shape the valley floor."] * 12)
    path = tmp_path / "big.txt"
    with path.open("w", encoding="ascii") as out:
        size = 0
        while size < 10 * 1024 * 1024:
            size += out.write(f"{paragraph} Part {size}.\n\n")
    with Arborist(home) as app:
        app.store_conn  # noqa: B018  (opened and migrated before measuring)
        tracemalloc.start()
        try:
            app.ingest([str(path)])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 2.5 * size, f"peak {peak / size:.2f}x the file"


# --- the URI a document is stored under ---------------------------------------------------------


@pytest.mark.parametrize(
    "uri",
    [
        "file:///home/me/notes/a%20b%5B1%5D.md",
        "https://example.org/docs/page.html?page=2&sort=asc#section-3",
        "https://example.org/search?q=monkey+keyboard&keyboard=us&donkey=1",
        "https://user@example.org/x",  # a user name alone is still userinfo
        "pydoc:json",
        "core:summary:0123456789abcdef",
        "http://[::1]:8080/a?b",
        "https://example.org/?token=",
    ],
)
def test_a_uri_without_secrets_is_stored_byte_for_byte(uri: str) -> None:
    stored, kinds = admit_uri(uri)
    if "@" in uri:
        assert (stored, kinds) == ("https://example.org/x", ["url_credentials"])
    else:
        assert (stored, kinds) == (uri, [])


@pytest.mark.parametrize(
    ("uri", "stored"),
    [
        (
            f"https://deploy:{PASSWORD}@example.org:8443/x?y=1",
            "https://example.org:8443/x?y=1",
        ),
        (
            f"postgres://app:{PASSWORD}@db.internal/prod",
            "postgres://db.internal/prod",
        ),
        (
            f"https://s3.example/b/k?X-Amz-Credential=AK%2F1&X-Amz-Signature={QUERY_KEY}&v=1",
            "https://s3.example/b/k?X-Amz-Credential=[REDACTED:secret]"
            "&X-Amz-Signature=[REDACTED:secret]&v=1",
        ),
        (
            f"https://example.org/cb?code=42&accessToken={QUERY_TOKEN};sig=ab1",
            "https://example.org/cb?code=42&accessToken=[REDACTED:secret];sig=[REDACTED:secret]",
        ),
        (
            f"https://example.org/login?user=me&password={PASSWORD}",
            "https://example.org/login?user=me&password=[REDACTED:password]",
        ),
        (
            f"https://example.org/app#state=1&access_token={QUERY_TOKEN}",
            "https://example.org/app#state=1&access_token=[REDACTED:secret]",
        ),
        (f"file:///keys/{API_KEY}.txt", "file:///keys/[REDACTED:openai_key].txt"),
        (
            f"file:///keys/my%20{GITHUB_TOKEN}.md",
            "file:///keys/my%20[REDACTED:github_token].md",
        ),
        (
            f"file:///keys/token%3D{NAME_TOKEN}.txt",
            "file:///keys/token=[REDACTED:secret]",
        ),
    ],
)
def test_a_uri_is_stored_without_its_secrets(uri: str, stored: str) -> None:
    redacted, kinds = admit_uri(uri)
    assert redacted == stored
    assert kinds
    assert admit_uri(redacted) == (redacted, []), "admitting the stored URI changes nothing"


def test_redact_uri_leaves_what_is_allowlisted() -> None:
    uri = "https://demo:public@example.org/api?key=public-demo-key-1"
    assert redact_uri(uri, allowlist=["demo:public", "public-demo-key-1"]) == (uri, [])
    assert redact_uri(uri)[0] == "https://example.org/api?key=[REDACTED:secret]"


# --- a URL that never finishes (issue #22) -----------------------------------------------------


class _Drip(http.server.BaseHTTPRequestHandler):
    """A server that drips: ``/body`` sends its headers, then a byte every 0.2 s; ``/headers``
    sends its status line, then a header byte every 0.2 s; ``/redirect`` sends to ``/body``.
    It stops when the client hangs up (or after a minute: nothing outlives the test)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/body")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/body":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            drip = b"a"
        else:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            drip = b"X"
        self.wfile.flush()
        ends = time.monotonic() + 60
        try:
            while time.monotonic() < ends and not _DRIP_STOP.is_set():
                self.wfile.write(drip)
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:  # the client hung up: what the deadline is for
            return

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


_DRIP_STOP = threading.Event()


@pytest.fixture
def dripping() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Drip)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    _DRIP_STOP.clear()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        _DRIP_STOP.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.mark.parametrize("path", ["/body", "/headers", "/redirect"])
def test_a_dripping_url_ends_at_the_fetch_deadline_in_one_line(
    home: Path, dripping: str, path: str
) -> None:
    """Each wait for bytes is short (a byte every 0.2 s never meets a read timeout), so only
    an overall deadline ends it: ``arborist ingest``, a real process, stops at 1 s with one
    line and stores nothing. Without the deadline it would run until the server's minute."""
    url = dripping + path
    env = {**os.environ, "ARBORIST_HOME": str(home), "ARBORIST_FETCH_DEADLINE": "1"}
    done = subprocess.run(  # the timeout only keeps a regression from hanging the run
        [sys.executable, "-m", "arborist", "ingest", url],
        env=env,
        capture_output=True,
        text=True,
        timeout=50,
        check=False,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"cannot fetch URL: {url}: not fetched within the 1 s deadline" in lines[0]
    assert "ARBORIST_FETCH_DEADLINE" in lines[0]
    if (home / "store.db").exists():
        assert _counts(home)[:2] == [0, 0]


def test_fetch_url_takes_its_deadline_as_a_parameter(dripping: str) -> None:
    with pytest.raises(BadInput, match=r"not fetched within the 0\.5 s deadline") as slow:
        fetch_url(dripping + "/body", deadline=0.5)
    assert "\n" not in str(slow.value)


@pytest.mark.parametrize("value", ["0", "-1", "soon", "1e9", "nan"])
def test_a_bad_fetch_deadline_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ARBORIST_FETCH_DEADLINE", value)
    with pytest.raises(BadInput, match=r"^ARBORIST_FETCH_DEADLINE must be a number of seconds"):
        fetch_url("http://127.0.0.1:9/x.txt")


# --- a streamed answer: bounded, and kept once (issue #22) ----------------------------------


def _streamed(chat_server: ChatServer, chars: int, token: str = "abcdefg ") -> str:
    """Script a streamed answer of about ``chars`` characters in tokens of ``token``, sent
    in 64 KiB writes (fast); the answer text the client should return."""
    deltas = ["See [E1]. "] + [token] * (chars // len(token))
    chat_server.script(stream_reply(deltas, split=65536, pause=0))
    return "".join(deltas)


def test_a_streamed_answer_is_kept_once_in_the_client(chat_server: ChatServer) -> None:
    """The client's traced peak while streaming a 250 kB answer of 8-character tokens stays
    under 3.5x the answer (2.5x measured: the long strings and their final join): its
    text is kept once, not as a list of every delta beside a list of every shown piece
    (12.3x here before, 20.5x for 4-character tokens). The ratio is per character, so it
    does not depend on the size once a first, untraced answer has paid for what the
    client loads once (its lazy imports: 1 MB, which made a small first answer read 6.7x);
    a 1 MB answer measured the same ratio in 31 s under tracemalloc instead of 2."""
    client = OpenAIClient(chat_server.url, "test-model", http=HttpSettings(max_retries=0))
    request = make_request("q", [EvidenceText("E1", "t", "u", "text")])
    _streamed(chat_server, 10_000)
    client.complete(request, on_token=lambda piece: None)
    expected = _streamed(chat_server, 250_000)
    shown = [0]  # characters handed to on_token (a counter: a list of them would be traced)

    def count(piece: str) -> None:
        shown[0] += len(piece)

    tracemalloc.start()
    try:
        result = client.complete(request, on_token=count)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.text == expected
    assert shown[0] == len(expected)
    assert peak < 3.5 * len(expected), f"peak {peak / len(expected):.2f}x the answer"


def test_a_streamed_answer_past_the_cap_is_one_line_and_stores_nothing(
    home: Path, tmp_path: Path, chat_server: ChatServer
) -> None:
    doc = tmp_path / "zebra.md"
    doc.write_text("# Zebra\n\nThe zebra marker stands for a test.\n", encoding="utf-8")
    _streamed(chat_server, 300_000)
    client = OpenAIClient(chat_server.url, "test-model", http=HttpSettings(max_retries=0))
    client.max_reply_bytes = 100_000
    with Arborist(home) as app:
        app.ingest([str(doc)])
        before = _counts(home)
        with pytest.raises(ModelError) as refused:
            ask(app.store_conn, client, "What is the zebra marker?", on_token=lambda p: None)
        assert app.store_conn.execute("SELECT count(*) FROM cache_records").fetchone()[0] == 0
    message = str(refused.value)
    assert "\n" not in message
    assert "the streamed reply is larger than 100000 bytes; nothing was kept" in message
    assert _counts(home) == before
