"""An API key is never quoted in an error line, whatever its last character.

A key read from a file with Windows line ends ends in ``\\r``: no HTTP header may
carry it, and the refusal of the header quoted the key whole (escaped, so the
redaction of the key as given missed it), in an error line a notebook saves.
"""

from __future__ import annotations

import pytest

from arborist._errors import ArboristError
from arborist._qa.client import ChatRequest, Message
from arborist._qa.embeddings import EmbeddingsClient
from arborist._qa.http import HttpSettings
from arborist._qa.openai import OpenAIClient
from tests.chat_server import ChatServer, error_reply
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401

CORE = "sk-proj-Zq8vT4mN2pL7xR9wK3bY6cF1hJ5dG0sA"


def _ask(url: str, key: str) -> str:
    settings = HttpSettings(sleep=lambda s: None, max_retries=0)
    with pytest.raises(ArboristError) as caught:
        client = OpenAIClient(url, "test-model", api_key=key, http=settings)
        client.complete(ChatRequest("q", (), (Message("user", "q"),)))
    return str(caught.value)


@pytest.mark.parametrize("last", ["\r", "\n", "\r\n", "\t", " ", "\x00", "\x7f", "\x1b"])
def test_a_key_ending_in_a_control_character_is_never_echoed_in_the_error_line(
    chat_server: ChatServer, last: str
) -> None:
    message = _ask(chat_server.url, CORE + last)
    assert "\n" not in message
    assert "Zq8vT4mN2pL7xR9wK3bY6cF1hJ5dG0sA"[:12] not in message
    assert "API key" in message
    assert chat_server.requests == 0  # refused before anything was sent


def test_a_key_with_a_control_character_inside_is_never_echoed_either(
    chat_server: ChatServer,
) -> None:
    message = _ask(chat_server.url, CORE[:20] + "\r\n" + CORE[20:])
    assert CORE[:12] not in message and CORE[22:] not in message
    assert chat_server.requests == 0


def test_the_embeddings_client_refuses_such_a_key_the_same_way(chat_server: ChatServer) -> None:
    with pytest.raises(ArboristError) as caught:
        EmbeddingsClient(chat_server.url, "embed", api_key=CORE + "\r")
    assert CORE[:12] not in str(caught.value)


def test_a_clean_key_still_reaches_the_server_in_its_header(chat_server: ChatServer) -> None:
    client = OpenAIClient(chat_server.url, "test-model", api_key=CORE)
    client.complete(ChatRequest("q", (), (Message("user", "q"),)))
    assert chat_server.requests == 1
    assert chat_server.received[0].headers.get("authorization") == f"Bearer {CORE}"


def test_a_credential_quoted_in_a_servers_error_is_redacted_in_the_error_line(
    chat_server: ChatServer,
) -> None:
    other = "gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    chat_server.script(error_reply(401, f"invalid api key '{other}'\r"))
    client = OpenAIClient(chat_server.url, "test-model", http=HttpSettings(max_retries=0))
    with pytest.raises(ArboristError) as caught:
        client.complete(ChatRequest("q", (), (Message("user", "q"),)))
    message = str(caught.value)
    assert other not in message and "[REDACTED:github_token]" in message
    assert "\r" not in message and "\n" not in message


@pytest.mark.parametrize(
    "url",
    [
        "http://user:" + CORE + "@[::1/v1",
        "http://user:DB_PASSWORD=" + CORE + "?x@127.0.0.1:8080/v1",
        "ftp://admin:" + CORE + "@127.0.0.1/v1",
    ],
)
def test_a_base_url_refused_never_echoes_its_password(url: str) -> None:
    with pytest.raises(ArboristError) as caught:
        OpenAIClient(url, "test-model")
    assert CORE not in str(caught.value) and CORE[8:20] not in str(caught.value)
