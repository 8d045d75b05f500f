"""The prompt fits the server (issue #23): a server's error inside a stream is its own
message, in one line.

The server is real, on loopback: :class:`ContextServer` is the tests' chat server playing a
llama.cpp ``llama-server`` with a 4,096-token context. It says so at ``GET /props`` (or, as
vLLM does, ``max_model_len`` at ``GET /v1/models``), counts a prompt's tokens at 3 bytes a
token (Llama 2's tokenizer reads the built-in corpus at 3.1 to 3.9), and refuses a prompt
that leaves less than ``max_tokens`` of its context with llama.cpp's HTTP 400.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arborist.app import Arborist
from arborist.cli import cli
from arborist.errors import ModelError
from arborist.qa.client import make_request
from arborist.qa.openai import OpenAIClient
from arborist.qa.sse import SSEEvent, iter_sse_data, iter_sse_events
from tests.chat_server import (
    ROUTE,
    ChatServer,
    RecordedRequest,
    Reply,
    error_reply,
    json_reply,
    sse_reply,
    stream_reply,
)

N_CTX = 4096
MAX_TOKENS = 2048
QUESTION = "Where does the quokka feed at dawn?"
TOO_BIG = "the request exceeds the available context size, try increasing it"
HEADER = re.compile(r"\[(E[0-9]+) \| ([^|\]]*) \| ([^\]]*)\]")
PLANTS = ["saltbush", "sedge", "acacia", "grevillea", "banksia", "melaleuca", "wattle", "heath"]


def llama_error(prompt_tokens: int, n_ctx: int) -> dict[str, object]:
    """llama.cpp's error object for a prompt larger than its context (server.cpp, 2025)."""
    return {
        "code": 400,
        "message": TOO_BIG,
        "type": "exceed_context_size_error",
        "n_prompt_tokens": prompt_tokens,
        "n_ctx": n_ctx,
    }


def server_tokens(body: Any) -> int:
    """The emulated server's tokenizer: 3 bytes a token, 4 a message of template, 3 more."""
    messages = body.get("messages", []) if isinstance(body, dict) else []
    return 3 + sum(math.ceil(len(str(m.get("content", "")).encode()) / 3) + 4 for m in messages)


class ContextServer(ChatServer):
    """A chat server with a context: ``n_ctx`` tokens, said at ``/props`` (``props``) or at
    ``/v1/models`` (``models``), and llama.cpp's HTTP 400 for a prompt that does not fit."""

    def __init__(self) -> None:
        super().__init__()
        self.n_ctx = N_CTX
        self.props = True
        self.models = False

    def _keep(self, request: RecordedRequest) -> None:
        with self._lock:
            self.received.append(request)

    def answer(self, request: RecordedRequest) -> Reply:
        if request.method == "GET" and request.path in ("/props", "/v1/models"):
            self._keep(request)
            if request.path == "/props" and self.props:
                settings = {"n_ctx": self.n_ctx, "n_predict": -1, "temperature": 0.8}
                return json_reply({"default_generation_settings": settings, "total_slots": 1})
            if request.path == "/v1/models" and self.models:
                card = {"id": "test-model", "object": "model", "max_model_len": self.n_ctx}
                return json_reply({"object": "list", "data": [card]})
            return error_reply(404, "File Not Found")
        if request.path == ROUTE and isinstance(request.body, dict):
            needed = server_tokens(request.body) + int(request.body.get("max_tokens") or 0)
            if needed > self.n_ctx:
                self._keep(request)
                error = llama_error(server_tokens(request.body), self.n_ctx)
                return json_reply({"error": error}, status=400)
        return super().answer(request)

    @property
    def chats(self) -> list[RecordedRequest]:
        """The chat completions asked for, in order."""
        with self._lock:
            return [r for r in self.received if r.path == ROUTE]

    @property
    def probes(self) -> list[str]:
        """The paths asked with GET, in order."""
        with self._lock:
            return [r.path for r in self.received if r.method == "GET"]


@pytest.fixture
def server() -> Any:
    chat = ContextServer()
    chat.start()
    try:
        yield chat
    finally:
        chat.stop()
    assert not chat.errors, chat.errors


def _section(number: int) -> str:
    """A chunk of about 1,180 characters on the quokka (one heading, one paragraph)."""
    sentences = []
    step = 0
    while sum(len(s) + 1 for s in sentences) < 1120:
        plant = PLANTS[(number + step) % len(PLANTS)]
        sentences.append(
            f"On plot {number} the quokka was seen feeding on {plant} leaves near marker "
            f"{step} at dawn, then resting in the shade of the thicket until dusk."
        )
        step += 1
    return f"## Plot {number}\n\n" + " ".join(sentences)[:1150] + "."


@pytest.fixture
def app(home: Path, tmp_path: Path, server: ContextServer) -> Arborist:
    """A home of six quokka field notes (each its own chunk), and two model profiles on
    the server: ``local`` (max_tokens 2048, the context left to the server to say) and
    ``sized`` (the same, with ``context_tokens = 4096``)."""
    notes = tmp_path / "notes.md"
    sections = [_section(number) for number in range(1, 7)]
    notes.write_text("# Quokka field notes\n\n" + "\n\n".join(sections) + "\n", encoding="utf-8")
    assert CliRunner().invoke(cli, ["ingest", str(notes)]).exit_code == 0
    home.mkdir(exist_ok=True)
    profile = f'provider = "openai"\nbase_url = "{server.url}"\nmodel = "test-model"\n'
    (home / "config.toml").write_text(
        f"[models.local]\n{profile}max_tokens = {MAX_TOKENS}\n\n"
        f"[models.sized]\n{profile}max_tokens = {MAX_TOKENS}\ncontext_tokens = {N_CTX}\n\n"
        f"[models.roomy]\n{profile}max_tokens = {MAX_TOKENS}\ncontext_tokens = 16384\n",
        encoding="utf-8",
    )
    return Arborist(home)


def _headers(request: RecordedRequest) -> list[tuple[str, str, str]]:
    """The evidence headers of the prompt the server received: (label, title, uri)."""
    return HEADER.findall(request.body["messages"][-1]["content"])


def _written(app: Arborist) -> tuple[int, int]:
    conn = app.store_conn
    return (
        conn.execute("SELECT count(*) FROM cache_records").fetchone()[0],
        conn.execute("SELECT count(*) FROM audit_events").fetchone()[0],
    )


# --------------------------------------------------------------------------- errors in a stream


def _error_line(error: dict[str, object], *, done: bool) -> Reply:
    """A 200 stream whose one event is llama.cpp's ``error: {...}`` line (before 2025-10)."""
    chunks = [f"error: {json.dumps(error)}\n\n".encode()]
    if done:
        chunks.append(b"data: [DONE]\n\n")
    return Reply(200, (("Content-Type", "text/event-stream"),), tuple(chunks), chunked=True)


@pytest.mark.parametrize("done", [True, False])
def test_llama_cpps_error_line_is_reported_as_its_message(
    app: Arborist, server: ContextServer, done: bool
) -> None:
    server.n_ctx = 16384  # the prompt is taken: the stream is scripted to fail anyway
    server.script(_error_line(llama_error(4231, N_CTX), done=done))
    before = _written(app)
    shown: list[str] = []
    with pytest.raises(ModelError) as error:
        app.ask(QUESTION, llm="local", on_token=shown.append)
    message = str(error.value)
    assert "\n" not in message and "cut short" not in message and "no choices" not in message
    assert message.endswith(f"the stream reported an error: {TOO_BIG}"), message
    assert shown == [] and _written(app) == before


def test_an_error_event_mid_stream_is_reported_as_its_message(
    app: Arborist, server: ContextServer
) -> None:
    """``data: {"error": ...}`` after some tokens: the reader saw them, the error is one line
    in the server's words (its newlines collapsed), and no answer is written."""
    events: list[object] = [
        {"choices": [{"index": 0, "delta": {"content": "The quokka "}, "finish_reason": None}]},
        {"error": {"message": "slot 0:\nKV cache\tfull", "type": "server_error", "code": 500}},
    ]
    server.n_ctx = 16384
    server.script(sse_reply(events, done=False))
    before = _written(app)
    shown: list[str] = []
    with pytest.raises(ModelError) as error:
        app.ask(QUESTION, llm="local", on_token=shown.append)
    assert str(error.value).endswith("the stream reported an error: slot 0: KV cache full")
    assert "".join(shown) == "The quokka "  # shown before the error came
    assert _written(app) == before


def test_a_standard_error_event_carries_the_servers_message(server: ContextServer) -> None:
    body = b'event: error\ndata: {"message": "overloaded", "type": "server_error"}\n\n'
    server.script(Reply(200, (("Content-Type", "text/event-stream"),), (body,), chunked=True))
    client = OpenAIClient(server.url, "test-model")
    with pytest.raises(ModelError) as error:
        client.complete(make_request("q", []), on_token=lambda piece: None)
    assert str(error.value).endswith("the stream reported an error: overloaded")


def test_a_servers_error_is_cleaned_like_all_its_text(server: ContextServer) -> None:
    """The API key the server echoes is redacted, and a lone surrogate made U+FFFD."""
    key = "sk-test-0123456789abcdef"
    error = {"message": f"bad key {key} \udc9b here", "type": "invalid_request_error"}
    server.script(_error_line(error, done=True))
    client = OpenAIClient(server.url, "test-model", api_key=key)
    with pytest.raises(ModelError) as raised:
        client.complete(make_request("q", []), on_token=lambda piece: None)
    message = str(raised.value)
    assert key not in message and "[REDACTED:api_key]" in message and "\ufffd" in message


def test_a_400_before_the_stream_is_the_servers_message(
    app: Arborist, server: ContextServer
) -> None:
    """A newer llama.cpp refuses a streamed ask before streaming: HTTP 400, its JSON body."""
    server.props = False
    with pytest.raises(ModelError) as error:
        app.ask(QUESTION, llm="local", on_token=lambda piece: None)
    assert str(error.value).endswith(f"HTTP 400: {TOO_BIG}")


def test_the_cli_prints_the_servers_refusal_in_one_line(
    app: Arborist, server: ContextServer
) -> None:
    server.props = False
    result = CliRunner().invoke(cli, ["ask", QUESTION, "--llm", "local"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].endswith(TOO_BIG), result.output


def test_a_good_stream_still_streams(app: Arborist, server: ContextServer) -> None:
    server.n_ctx = 16384
    server.script(stream_reply(["The quokka ", "feeds at dawn. ", "[E1]"]))
    shown: list[str] = []
    result = app.ask(QUESTION, llm="local", on_token=shown.append)
    assert "".join(shown) == result.answer == "The quokka feeds at dawn. [E1]"


def test_sse_events_keep_error_fields_and_data_stays_as_it_was() -> None:
    stream = [
        b"data: one\n\n",
        b'error: {"message": "x"}\n\n',
        b"event: error\ndata: two\n\n",
        b"event: delta\ndata: three\n\n",
    ]
    assert list(iter_sse_events(stream)) == [
        SSEEvent("message", "one"),
        SSEEvent("message", None, '{"message": "x"}'),
        SSEEvent("error", "two"),
        SSEEvent("delta", "three"),
    ]
    assert [e.is_error for e in iter_sse_events(stream)] == [False, True, True, False]
    assert list(iter_sse_data(stream)) == ["one", "two", "three"]
