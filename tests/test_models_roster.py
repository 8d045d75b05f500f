"""``models`` lists every configured chat and embedding model and says whether each answers
now: the same command in the CLI and in a notebook (``%arborist models``), over real
loopback servers (one that answers, one that is silent, a port that takes no connection).
No key is ever shown, even when a server echoes it."""

from __future__ import annotations

import contextlib
import io
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from IPython.core.interactiveshell import InteractiveShell

from arborist._faces.cli import cli
from arborist._qa.roster import model_roster
from tests.chat_server import (
    ChatServer,
    RecordedRequest,
    Reply,
    completion,
    embeddings,
    error_reply,
    ngram_vector,
    silent,
)
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

KEY = "sk-roster0123456789abcdefghijklmnopqrstuvwx"  # a key the server echoes back
URL_KEY = "sk-inurl0123456789abcdefghijklmnopqrstuvw"  # a key pasted into a base URL


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def configured(home: Path, chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home whose config.toml names: ``good`` on the loopback server, ``down`` on a port
    that takes no connection, ``keyed`` (its key in $ROSTER_KEY) on the same server, ``nokey``
    whose key variable is unset, and ``e5`` an embeddings model on the server."""
    for name in ("ARBORIST_LLM", "ARBORIST_BASE_URL", "ARBORIST_MODEL", "NOKEY_VARIABLE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("ARBORIST_EMBED_BASE_URL", "ARBORIST_EMBED_MODEL", "ARBORIST_EMBED_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ROSTER_KEY", KEY)
    home.mkdir(parents=True, exist_ok=True)
    down = f"http://127.0.0.1:{closed_port()}/v1"
    (home / "config.toml").write_text(
        f'[models.good]\nbase_url = "{chat_server.url}"\nmodel = "good-model"\n\n'
        f'[models.down]\nbase_url = "{down}"\nmodel = "down-model"\n\n'
        f'[models.userinfo]\nbase_url = "{down.replace("//", f"//bob:{URL_KEY}@")}"\n'
        'model = "m"\n\n'
        f'[models.keyed]\nbase_url = "{chat_server.url}"\nmodel = "keyed-model"\n'
        'api_key_env = "ROSTER_KEY"\n\n'
        f'[models.nokey]\nbase_url = "{chat_server.url}"\nmodel = "m"\n'
        'api_key_env = "NOKEY_VARIABLE"\n\n'
        f'[models.e5]\nkind = "embeddings"\nbase_url = "{chat_server.url}"\n'
        'model = "intfloat/e5-small-v2"\n',
        encoding="utf-8",
    )
    (home / "config.toml").chmod(0o600)
    return home


def _echo_key(request: RecordedRequest) -> Reply:
    """The keyed model's probe is refused with the key quoted back; the others answer."""
    body = request.body if isinstance(request.body, dict) else {}
    if body.get("model") == "keyed-model":
        return error_reply(401, f"bad key {KEY} for this server")
    if "input" in body:
        return embeddings([ngram_vector(text) for text in body["input"]])
    return completion("OK")


def _lines(text: str) -> dict[str, str]:
    """Each listed model's line, by its name."""
    return {line.split(":")[0].split(" (")[0].strip(): line for line in text.splitlines()
            if line.startswith("  ") and not line.startswith("   ")}  # fmt: skip


def test_models_lists_chat_and_embedding_models_and_which_answer_now(
    configured: Path, chat_server: ChatServer
) -> None:
    chat_server.script(*[_echo_key] * 3)  # good, keyed, e5: in any order
    result = CliRunner().invoke(cli, ["models"])
    assert result.exit_code == 0, result.output
    shown = _lines(result.stdout)
    assert shown["extractive"].endswith(": answers") and "(default)" in shown["extractive"]
    assert "offline" in shown["extractive"]
    assert shown["good"] == f"  good: good-model (openai at {chat_server.url}): answers"
    assert "not answering: ConnectError" in shown["down"] and "refused" in shown["down"]
    assert shown["nokey"] == (
        "  nokey: not answering: model profile 'nokey' reads its API key from "
        "$NOKEY_VARIABLE, which is not set"
    )
    assert "not answering: HTTP 401: bad key [REDACTED" in shown["keyed"]
    assert shown["e5"] == (
        f"  e5 (in use): intfloat/e5-small-v2 (openai at {chat_server.url}): answers"
    )
    for name in ("qwen", "hermes"):  # the seeds' local models are listed too
        assert name in shown
    assert KEY not in result.output and KEY[3:20] not in result.output
    assert "not answering" in shown["userinfo"] and URL_KEY[3:20] not in result.output
    probes = [r.body for r in chat_server.received if r.path.endswith("/chat/completions")]
    assert {p["model"] for p in probes} == {"good-model", "keyed-model"}
    assert all(p["max_tokens"] == 1 and len(p["messages"]) == 1 for p in probes)
    [embedded] = [r.body for r in chat_server.received if r.path.endswith("/embeddings")]
    assert embedded["input"] == ["ping"]


def test_models_json_says_the_same_and_holds_no_key(
    configured: Path, chat_server: ChatServer
) -> None:
    chat_server.script(*[_echo_key] * 3)
    result = CliRunner().invoke(cli, ["models", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    chat = {m["name"]: m for m in data["chat"]}
    assert chat["extractive"]["answers"] and chat["extractive"]["chosen"]
    assert chat["good"]["answers"] and chat["good"]["server"] == chat_server.url
    assert not chat["down"]["answers"] and chat["down"]["reason"].startswith("ConnectError")
    assert chat["nokey"]["provider"] is None and not chat["nokey"]["answers"]
    [e5] = data["embedding_models"]
    assert e5["answers"] and e5["chosen"] and e5["model"] == "intfloat/e5-small-v2"
    assert data["embeddings"]["profile"]["model"] == "intfloat/e5-small-v2"
    assert KEY not in result.output and URL_KEY[3:20] not in result.output


def test_a_silent_server_is_not_answering_within_the_timeout(
    configured: Path, chat_server: ChatServer
) -> None:
    chat_server.script(silent(), silent(), silent())
    statuses = model_roster(
        {"models": {"slow": {"base_url": chat_server.url, "model": "slow-model"}}},
        env={},
        seconds=0.3,
    )
    slow = {s.name: s for s in statuses}["slow"]
    # The read waits 0.3 s, or what is left of the probe's deadline (a connect and a read)
    # when a loaded machine was slow to connect: the reason names the wait it made.
    waited = re.fullmatch(r"no answer within ([0-9.]+) s \(read timeout\)", slow.reason or "")
    assert not slow.answers and waited and 0 < float(waited[1]) <= 0.3, slow.reason
    assert chat_server.requests == 1  # asked once, never again


def test_the_default_chat_model_is_the_faces_and_is_listed_even_if_unknown(
    configured: Path,
) -> None:
    statuses = model_roster({}, env={}, default="gpt-9")
    by_name = {s.name: s for s in statuses}
    assert by_name["gpt-9"].chosen and not by_name["extractive"].chosen
    assert "unknown model 'gpt-9'" in by_name["gpt-9"].reason
    assert [s.name for s in statuses if s.kind == "embeddings"] == []


@pytest.fixture
def shell(configured: Path) -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext arborist_nb").success
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "arborist_nb")
        InteractiveShell.clear_instance()


def test_the_magic_lists_the_same_models(shell: InteractiveShell, chat_server: ChatServer) -> None:
    chat_server.script(*[_echo_key] * 3)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        value = shell.run_line_magic("arborist", "models")
    shown = buffer.getvalue() + (str(value) if value is not None else "")
    lines = _lines(shown)
    assert lines["good"] == f"  good: good-model (openai at {chat_server.url}): answers"
    assert "not answering" in lines["down"] and "(in use)" in lines["e5"]
    assert KEY not in shown


def test_two_embedding_models_none_chosen_are_both_listed_and_none_is_in_use(
    configured: Path, chat_server: ChatServer
) -> None:
    body = (configured / "config.toml").read_text(encoding="utf-8")
    (configured / "config.toml").write_text(
        body + f'\n[models.nomic]\nkind = "embeddings"\nbase_url = "{chat_server.url}"\n'
        'model = "nomic-embed-text"\n',
        encoding="utf-8",
    )
    chat_server.script(*[_echo_key] * 4)
    result = CliRunner().invoke(cli, ["models"])
    assert result.exit_code == 0, result.output
    shown = _lines(result.stdout)
    assert shown["e5"].endswith(": answers") and shown["nomic"].endswith(": answers")
    assert "(in use)" not in shown["e5"] + shown["nomic"]
    assert "embeddings: none in use (retrieval is lexical): config.toml: several" in result.stdout
