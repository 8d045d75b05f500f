"""The prompt fits the server (issue #23): evidence budgeted to the model's context, weakest
first, recorded as sent; and a server's error inside a stream is its own message, in one line.

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

from arborist._errors import BadInput, ModelError
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._proofs.keys import evidence_root
from arborist._qa.budget import (
    DEFAULT_ANSWER_TOKENS,
    MIN_TRIMMED_CHARS,
    TRIM_MARK,
    ContextWindow,
    answer_reserve,
    estimate_tokens,
    fit_evidence,
)
from arborist._qa.check import check_record
from arborist._qa.client import EvidenceText, Message, make_request
from arborist._qa.models import select_client
from arborist._qa.openai import OpenAIClient, _models_context
from arborist._qa.sse import SSEEvent, iter_sse_data, iter_sse_events
from arborist._views.results import answer_text
from tests.chat_server import (
    ROUTE,
    ChatServer,
    RecordedRequest,
    Reply,
    error_reply,
    json_reply,
    silent,
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
    # The notes' URI goes into every prompt, so its length moves where the budget cuts: a
    # folder named to make the path 200 characters whatever the temporary folder's length
    # (under pytest-xdist it is longer by the worker's folder).
    padding = "p" * (200 - len(str(tmp_path / "x" / "notes.md")) + 1)
    (tmp_path / padding).mkdir()
    notes = tmp_path / padding / "notes.md"
    assert len(str(notes)) == 200
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
    (home / "config.toml").chmod(0o600)  # `arborist verify` refuses a config others may read
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


# --------------------------------------------------------------------------- the ask fits


def test_unfitted_the_five_chunk_prompt_is_refused_in_the_servers_words(
    app: Arborist, server: ContextServer
) -> None:
    """Today's failure, reproduced: a server that says nothing of its context gets all five
    chunks and refuses them; the error is one line with its message, and nothing is kept."""
    server.props = False
    before = _written(app)
    with pytest.raises(ModelError) as error:
        app.ask(QUESTION, llm="local")
    message = str(error.value)
    assert "\n" not in message
    assert message.endswith(f"HTTP 400: {TOO_BIG}"), message
    assert [len(_headers(chat)) for chat in server.chats] == [5]
    assert server.probes == ["/props", "/v1/models"]  # asked, found nothing, asked anyway
    assert _written(app) == before


def test_a_4096_token_server_read_from_props_gets_a_prompt_that_fits(
    app: Arborist, server: ContextServer
) -> None:
    """The weakest chunk is dropped, the next cut to the room left: the server accepts, and
    the record holds exactly the evidence the prompt carried, each item proving."""
    result = app.ask(QUESTION, llm="local")
    assert not result.hit and server.probes == ["/props"]
    (chat,) = server.chats
    assert server_tokens(chat.body) + MAX_TOKENS <= N_CTX
    prompt = chat.body["messages"][-1]["content"]
    record = result.record
    budget = record.response["prompt_budget"]
    assert budget["context_tokens"] == N_CTX and budget["context_from"] == "server: GET /props"
    assert budget["reserved_tokens"] == MAX_TOKENS
    assert budget["evidence_retrieved"] == 5
    sent = budget["evidence_sent"]
    assert 1 <= sent < 5
    # the record's evidence is the prompt's: the same labels, titles and uris, in order
    assert [(e.label, e.title, e.uri) for e in record.evidence] == _headers(chat)
    assert len(record.evidence) == sent
    # every item sent but the last is whole in the prompt; the last is cut where it says
    trimmed = budget["trimmed"]
    assert trimmed is not None and trimmed["label"] == f"E{sent}"
    *whole, last = record.evidence
    assert all(item.text is not None and item.text.strip() in prompt for item in whole)
    assert last.text is not None and last.text.strip() not in prompt
    shown = last.text[: trimmed["chars_sent"]].strip()
    assert len(shown) >= MIN_TRIMMED_CHARS and shown + TRIM_MARK in prompt
    assert trimmed["chars"] == len(last.text)
    assert record.policy["evidence_trimmed"]["label"] == f"E{sent}"
    assert record.policy["evidence_trimmed"]["chars"] == trimmed["chars_sent"]
    # the proofs and the key's evidence root cover what was sent, and nothing else
    assert check_record(record).ok
    assert record.dimensions["source_root"] == evidence_root([e.ref for e in record.evidence])
    assert app.check_answer(record.id)
    verified = CliRunner().invoke(cli, ["verify"])  # the stored policy re-hashes to its key
    assert verified.exit_code == 0, verified.output
    # and the answer says so where it is read, not only in record show --json
    assert answer_text(result).splitlines()[-1] == (
        f"fitted  {sent} passage(s) sent, E{sent} cut to its first {trimmed['chars_sent']:,} "
        f"characters (the record notes 5 found, a {N_CTX:,}-token context)"
    )


def test_what_was_dropped_is_in_neither_the_prompt_nor_the_record(
    app: Arborist, server: ContextServer
) -> None:
    """The chunks left out are retrieved (a window as large as the prompt sends them all)
    and yet absent from the fitted prompt and from its record's evidence and proofs."""
    fitted = app.ask(QUESTION, llm="local").record
    server.n_ctx = 16384
    roomy = app.ask(QUESTION, llm="roomy").record
    assert "prompt_budget" in roomy.response and roomy.response["prompt_budget"]["trimmed"] is None
    assert len(roomy.evidence) == 5 and "evidence_trimmed" not in roomy.policy
    first, second = server.chats
    leaves = {e.leaf for e in fitted.evidence}
    dropped = [e for e in roomy.evidence if e.leaf not in leaves]
    assert len(dropped) == 5 - len(fitted.evidence) > 0
    for item in dropped:
        assert item.text is not None
        assert item.text.strip()[:80] not in first.body["messages"][-1]["content"]
        assert item.text.strip() in second.body["messages"][-1]["content"]


def test_a_different_budget_that_sends_other_evidence_is_another_key(
    app: Arborist, server: ContextServer
) -> None:
    """The fitted answer is not served to an ask that sends more (nor the reverse); a
    window that sends the same prompt shares the answer, wherever it was learned."""
    fitted = app.ask(QUESTION, llm="local")
    server.n_ctx = 16384
    roomy = app.ask(QUESTION, llm="roomy")
    assert not roomy.hit and roomy.cache_key != fitted.cache_key
    assert len(server.chats) == 2
    server.n_ctx = N_CTX
    again = app.ask(QUESTION, llm="local")  # a new client: asks the server again, then hits
    assert again.hit and again.cache_key == fitted.cache_key
    sized = app.ask(QUESTION, llm="sized")  # told 4096 by its profile: the same prompt
    assert sized.hit and sized.cache_key == fitted.cache_key
    assert len(server.chats) == 2
    assert server.probes == ["/props", "/props"]  # never for roomy or sized


def test_a_profiles_context_tokens_is_used_without_asking_the_server(
    app: Arborist, server: ContextServer
) -> None:
    result = app.ask(QUESTION, llm="sized")
    assert server.probes == [] and len(server.chats) == 1
    budget = result.record.response["prompt_budget"]
    assert budget["context_from"] == "profile" and budget["context_tokens"] == N_CTX
    assert budget["evidence_sent"] < 5


def test_a_vllm_server_says_its_context_as_max_model_len(
    app: Arborist, server: ContextServer
) -> None:
    server.props, server.models = False, True
    result = app.ask(QUESTION, llm="local")
    assert server.probes == ["/props", "/v1/models"]
    assert result.record.response["prompt_budget"]["context_from"] == "server: GET /models"
    assert result.record.response["prompt_budget"]["evidence_sent"] < 5


def test_a_llama_cpp_training_context_is_not_taken_for_the_servers() -> None:
    """``meta.n_ctx_train`` is what the model was trained with (32k), not the server's ``-c``."""
    body: dict[str, object] = {"data": [{"id": "test-model", "meta": {"n_ctx_train": 32768}}]}
    assert _models_context(body, "test-model") is None
    body = {"data": [{"id": "other", "max_model_len": 4096}, {"id": "test-model"}]}
    assert _models_context(body, "test-model") is None
    body = {"data": [{"id": "other", "max_model_len": 4096}]}
    assert _models_context(body, "test-model") == 4096


def test_a_silent_props_never_fails_the_ask(app: Arborist, server: ContextServer) -> None:
    """A server that accepts ``GET /props`` and never answers costs the probe's short
    timeout; the prompt then goes unfitted and, the server taking it, is answered."""
    server.n_ctx = 16384
    server.props = False
    original = server.answer

    def hang_props(request: RecordedRequest) -> Reply:
        if request.path == "/props":
            server._keep(request)
            return silent()
        return original(request)

    server.answer = hang_props  # type: ignore[method-assign]
    result = app.ask(QUESTION, llm="local")
    assert "prompt_budget" not in result.record.response
    assert len(result.record.evidence) == 5 and server.probes == ["/props", "/v1/models"]


def test_a_small_prompt_is_sent_without_asking(app: Arborist, server: ContextServer) -> None:
    """No probe for a prompt any server takes: the requests are what they always were."""
    client = select_client("local", config=app.config)
    assert isinstance(client, OpenAIClient)
    client.max_tokens = 16
    small = make_request("Where?", [EvidenceText("E1", "t", "u", "The quokka feeds at dawn.")])
    assert client.context_window(small) is None
    assert server.probes == []


def test_a_question_too_long_for_the_context_is_refused_before_sending(
    app: Arborist, server: ContextServer
) -> None:
    before = _written(app)
    with pytest.raises(ModelError) as error:
        app.ask("quokka " + "why " * 3000, llm="sized")
    assert "\n" not in str(error.value) and "model 'sized'" in str(error.value)
    assert "nothing was sent" in str(error.value)
    assert server.chats == [] and _written(app) == before


# --------------------------------------------------------------------------- the fit itself


def _items(*sizes: int) -> list[EvidenceText]:
    text = " ".join(["quokka", "saltbush", "sedge", "wattle", "heath", "thicket"] * 300)
    return [
        EvidenceText(f"E{i + 1}", f"doc {i}", f"file:///{i}", text[:size])
        for i, size in enumerate(sizes)
    ]


def _count(request: Any) -> int:
    return estimate_tokens(request.messages)


def test_the_weakest_evidence_is_dropped_first() -> None:
    items = _items(1000, 1000, 1000)
    build = lambda shown: make_request("Where?", shown)  # noqa: E731
    two = _count(build(items[:2]))
    fit = fit_evidence(build, items, ContextWindow(two + 200 + 50, 200, "profile"), _count)
    assert fit.sent == 2 and fit.trimmed_chars is None  # 50 tokens: less than MIN_TRIMMED_CHARS
    assert [e.label for e in fit.request.evidence] == ["E1", "E2"]
    everything = _count(build(items))
    fit = fit_evidence(build, items, ContextWindow(everything + 200, 200, "profile"), _count)
    assert fit.sent == 3 and not fit.cut


def test_the_first_chunk_that_does_not_fit_whole_is_cut_at_a_word() -> None:
    items = _items(1000, 1000, 1000)
    build = lambda shown: make_request("Where?", shown)  # noqa: E731
    room = _count(build(items[:1])) + 250
    fit = fit_evidence(build, items, ContextWindow(room + 100, 100, "profile"), _count)
    assert fit.sent == 2 and fit.trimmed_chars is not None
    assert MIN_TRIMMED_CHARS <= fit.trimmed_chars < 1000 and fit.estimated <= room
    shown = fit.request.evidence[1].text
    assert shown.endswith(TRIM_MARK) and items[1].text.startswith(shown[: -len(TRIM_MARK)])
    assert items[1].text[fit.trimmed_chars] == " "  # the cut fell between two words
    more = fit_evidence(build, items, ContextWindow(room + 140, 100, "profile"), _count)
    assert more.trimmed_chars is not None and more.trimmed_chars > fit.trimmed_chars


def test_the_answer_keeps_max_tokens_but_never_more_than_half_the_window() -> None:
    assert answer_reserve(N_CTX, MAX_TOKENS) == MAX_TOKENS
    assert answer_reserve(N_CTX, 8192) == 2048  # llama.cpp stops it at the window's end
    assert answer_reserve(N_CTX, None) == DEFAULT_ANSWER_TOKENS
    assert answer_reserve(2048, None) == 512


def test_the_estimate_counts_every_digit_and_grows_with_the_text() -> None:
    words = estimate_tokens([Message("user", "a" * 1000)])
    digits = estimate_tokens([Message("user", "7" * 1000)])
    assert digits - words == 1000 - 400
    assert estimate_tokens([Message("user", "a" * 1001)]) >= words


def test_context_tokens_is_checked_in_the_profile(app: Arborist, server: ContextServer) -> None:
    base = {"provider": "openai", "base_url": server.url, "model": "m"}
    for bad in ("4096", 0, True, 4.5):
        with pytest.raises(BadInput, match="context_tokens"):
            select_client("x", config={"models": {"x": {**base, "context_tokens": bad}}})
    with pytest.raises(BadInput, match=r"max_tokens \(4096\) must be less than context_tokens"):
        select_client(
            "x", config={"models": {"x": {**base, "context_tokens": 4096, "max_tokens": 4096}}}
        )
    client = select_client("x", config={"models": {"x": {**base, "context_tokens": 8192}}})
    assert isinstance(client, OpenAIClient) and client.context_tokens == 8192
    assert "context_tokens" not in client.profile()  # the key covers what is sent instead


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
