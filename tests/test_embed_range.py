"""An embedding server whose vectors are out of range is refused in one line, quietly.

A vector of ``1e308``s is finite, component by component, but its length overflows a
float: numpy warned of the overflow (a ``RuntimeWarning`` on the user's terminal) and
the refusal then called it "a vector of zeros". An integer of 400 digits is no float
at all (``OverflowError``). Each is now one line naming the vector, no warning, and no
vector stored. A real OpenAI-compatible server on loopback answers them.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from arborist._errors import ModelError
from arborist._faces.cli import cli
from arborist._qa.embeddings import EmbeddingsClient
from arborist._qa.http import HttpSettings
from tests.chat_server import ChatServer, ngram_embedder

ROOT = Path(__file__).resolve().parents[1]
DIMENSIONS = 384


def _all(value: float) -> Callable[[list[str]], list[list[float]]]:
    return lambda texts: [[value] * DIMENSIONS for _ in texts]


def _second_huge(texts: list[str]) -> list[list[float]]:
    vectors = ngram_embedder(texts)
    vectors[1] = [1e200, *vectors[1][1:]]  # one component: its square overflows
    return vectors


def _huge_integer(texts: list[str]) -> list[list[float]]:
    return [[10**400] + [0.0] * (DIMENSIONS - 1) for _ in texts]  # type: ignore[list-item]


@contextmanager
def _serving(embed: Callable[[list[str]], list[list[float]]]) -> Iterator[ChatServer]:
    server = ChatServer(embed)
    server.start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.errors, server.errors


@pytest.fixture
def huge() -> Iterator[ChatServer]:
    with _serving(_all(1e308)) as server:
        yield server


@pytest.mark.parametrize(
    ("embed", "says"),
    [
        (_all(1e308), "vector 0 is out of range: its length overflows a float"),
        (_all(-1e300), "vector 0 is out of range: its length overflows a float"),
        (_second_huge, "vector 1 is out of range: its length overflows a float"),
        (_all(1e-320), "vector 0 is out of range: too small to normalize"),
        (_huge_integer, "vector 0 holds an integer past 1e308, not a finite number"),
    ],
    ids=["1e308", "-1e300", "one-of-two", "subnormal", "huge-integer"],
)
def test_vectors_out_of_range_are_one_line_and_no_warning(
    embed: Callable[[list[str]], list[list[float]]], says: str
) -> None:
    with _serving(embed) as server:
        client = EmbeddingsClient(server.url, "big", http=HttpSettings(sleep=lambda s: None))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(ModelError) as error:
                client.embed(["one text", "another text"])
        message = str(error.value)
        assert "\n" not in message and says in message, message
        assert message.startswith(f"model 'embeddings' (big at {server.url})")
        assert [str(w.message) for w in caught] == []


def test_arborist_embed_says_one_line_prints_no_warning_and_stores_nothing(
    huge: ChatServer, tmp_path: Path, home: Path
) -> None:
    """The command in a process of its own, as a terminal shows it: stderr is one line."""
    (tmp_path / "tides.md").write_text("# Tides\n\nThe moon pulls the sea.\n", encoding="utf-8")
    assert CliRunner().invoke(cli, ["ingest", str(tmp_path / "tides.md")]).exit_code == 0
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ARBORIST_EMBED_BASE_URL": huge.url,
        "ARBORIST_EMBED_MODEL": "big",
        "PYTHONWARNINGS": "default",  # a warning numpy raises is printed, as a user sees it
    }
    done = subprocess.run(
        [sys.executable, "-m", "arborist", "--home", str(home), "embed"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"arborist: error: model 'embeddings' (big at {huge.url}): vector 0 is out of range: "
        "its length overflows a float (components past about 1e154)\n"
    )
    assert huge.embed_requests == 1
    conn = sqlite3.connect(home / "store.db")
    try:
        assert conn.execute("SELECT count(*) FROM chunk_vectors").fetchone() == (0,)
    finally:
        conn.close()
