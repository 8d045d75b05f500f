"""The remote vector lane (arborist/_qa/embeddings.py) against the local one, its roles, and
an embed run against slow and untrusted servers, on real loopback servers.

The model served is the in-process embedder (arborist/_qa/local_embed.py) run on the tiny
BERT tests/test_local_embed.py writes: the same code and weights in process and behind
``/v1/embeddings``, so whatever differs is the lane's, not the model's.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from arborist._errors import BadInput, ModelError
from arborist._facade.app import Arborist
from arborist._qa.embeddings import EmbeddingsClient, select_embedder
from arborist._qa.http import HttpSettings
from arborist._qa.local_embed import LocalEmbedder
from arborist._qa.nearness import vector_query
from arborist._qa.roles import BGE_INSTRUCTION, family_roles
from arborist._store.passages import PASSAGES
from arborist._store.search import retrieve
from arborist._store.vectors import embed_missing, passage_nearness, profile_key, vector_count
from tests import test_local_embed as tiny
from tests.chat_server import ChatServer, drip, embeddings, json_reply

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", name="tiny_model")
def _tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny BERT of tests/test_local_embed.py, written as its three files."""
    folder = tmp_path_factory.mktemp("tiny-bert")
    tokenizer = tiny._tokenizer_json()
    vocab_size = len(json.loads(tokenizer)["model"]["vocab"])
    config = {"hidden_size": tiny.HIDDEN, "num_attention_heads": tiny.HEADS,
              "num_hidden_layers": tiny.LAYERS, "intermediate_size": tiny.INTERMEDIATE,
              "max_position_embeddings": tiny.POSITIONS, "vocab_size": vocab_size}  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "tokenizer.json").write_text(tokenizer)
    (folder / "model.safetensors").write_bytes(tiny._safetensors(tiny._weights(vocab_size)))
    return folder


def _served(embedder: LocalEmbedder, **options: object) -> ChatServer:
    """A running loopback server embedding with ``embedder`` (stopped by the caller)."""
    server = ChatServer(embed=lambda texts: embedder.embed(texts).tolist(), **options)  # type: ignore[arg-type]
    server.start()
    return server


def _corpus(folder: Path, files: int = 4) -> Path:
    """A few documents: the pydoc text the local tests use, and notes of prose."""
    folder.mkdir()
    (folder / "tinylib.txt").write_text(tiny.PYDOC)
    for i in range(files):
        paragraphs = [
            f"Note {i}.{j}: keep the list sorted and read the json file." for j in range(3)
        ]
        (folder / f"notes{i}.md").write_text(f"# Notes {i}\n\n" + "\n\n".join(paragraphs) + "\n")
    return folder


def _vectors(conn: sqlite3.Connection, key: str) -> dict[str, bytes]:
    rows = conn.execute(
        "SELECT v.leaf, v.vector FROM chunk_vectors AS v JOIN vector_profiles AS p "
        "ON p.id = v.profile_id WHERE p.profile = ?",
        (key,),
    )
    return dict(rows.fetchall())


QUESTIONS = ["keep the list sorted", "What does insort() do?", "read json file", "median"]


def test_a_served_local_model_gives_the_local_lanes_passages_vectors_and_evidence(
    tiny_model: Path, tmp_path: Path
) -> None:
    local = LocalEmbedder(tiny_model)
    server = _served(local)
    try:
        remote = EmbeddingsClient(server.url, "tiny-bert", batch_size=5)
        with Arborist(tmp_path / "home") as app:
            app.ingest([_corpus(tmp_path / "docs")])
            conn = app.store_conn
            embed_missing(conn, local)
            embed_missing(conn, remote)
            here, there = profile_key(local.profile()), profile_key(remote.profile())
            mine, served = _vectors(conn, here), _vectors(conn, there)
            assert sorted(mine) == sorted(served) and len(mine) > 6  # keyed the same way
            for key, blob in mine.items():
                a, b = (
                    np.frombuffer(v, dtype="<f2").astype(np.float32) for v in (blob, served[key])
                )
                assert float(np.abs(a - b).max()) <= 2e-3  # float16's rounding, at most
            for question in QUESTIONS:
                near, far = vector_query(local, question), vector_query(remote, question)
                assert near is not None and far is not None
                a, b = retrieve(conn, question, vectors=near), retrieve(conn, question, vectors=far)
                assert [(e.chunk_id, e.lane) for e in a] == [(e.chunk_id, e.lane) for e in b]
                for e in a:
                    assert passage_nearness(conn, here, near.vector, e.leaf) == pytest.approx(
                        passage_nearness(conn, there, far.vector, e.leaf), abs=2e-3
                    )
    finally:
        server.stop()
    assert server.errors == []


@pytest.mark.parametrize(
    ("model", "query", "document"),
    [
        ("intfloat/multilingual-e5-small", "query: ", "passage: "),
        ("e5-small-v2", "query: ", "passage: "),
        ("nomic-embed-text:v1.5", "search_query: ", "search_document: "),
        ("BAAI/bge-small-en-v1.5", BGE_INSTRUCTION, ""),
        ("bge-m3", "", ""),
        ("thenlper/gte-small", "", ""),
        ("all-MiniLM-L6-v2", "", ""),
        ("some-new-model", "", ""),
    ],
)
def test_known_families_have_their_roles_by_name(model: str, query: str, document: str) -> None:
    roles = family_roles(model)
    assert (roles.query, roles.document) == (query, document)
    assert (roles.family == "") == (model == "some-new-model")


def test_documents_and_questions_are_sent_with_their_roles_and_a_new_prefix_embeds_again(
    tmp_path: Path,
) -> None:
    server = ChatServer()
    server.start()
    try:
        with Arborist(tmp_path / "home") as app:
            app.ingest([_corpus(tmp_path / "docs", files=1)])
            conn = app.store_conn
            e5 = EmbeddingsClient(server.url, "intfloat/e5-small-v2")
            first = embed_missing(conn, e5)
            sent = [t for r in server.received for t in r.body["input"]]
            assert sent and all(t.startswith("passage: ") for t in sent)
            query = vector_query(e5, "read json")
            assert server.received[-1].body["input"] == ["query: read json"]
            assert query is not None and query.profile == profile_key(e5.profile())
            config = {"embeddings": {"base_url": server.url, "model": "intfloat/e5-small-v2",
                                     "document_prefix": "doc: "}}  # fmt: skip
            mine = select_embedder(config, env={})
            assert mine is not None and profile_key(mine.profile()) != query.profile
            again = embed_missing(conn, mine)  # another prefix, other vectors: all again
            assert again.embedded == first.embedded
            assert server.received[-1].body["input"][0].startswith("doc: ")
            assert mine.profile()["query_prefix"] == "query: "  # the family's, kept
    finally:
        server.stop()


def test_roles_are_set_by_config_or_environment_and_bad_ones_refused_in_one_line() -> None:
    url = "http://127.0.0.1:9/v1"
    env = {"ARBORIST_EMBED_BASE_URL": url, "ARBORIST_EMBED_MODEL": "my-model",
           "ARBORIST_EMBED_QUERY_PREFIX": "q: ", "ARBORIST_EMBED_BATCH_SIZE": "7"}  # fmt: skip
    chosen = select_embedder({}, env=env)
    assert isinstance(chosen, EmbeddingsClient) and chosen.batch_size == 7
    assert (chosen.roles.query, chosen.roles.document, chosen.roles.family) == ("q: ", "", "config")
    named = select_embedder({}, env={**env, "ARBORIST_EMBED_QUERY_PREFIX": "", "ARBORIST_EMBED_FAMILY": "nomic"})  # fmt: skip
    assert isinstance(named, EmbeddingsClient) and named.roles.document == "search_document: "
    for settings, says in [
        ({"family": "e6"}, "family must be one of"),
        ({"query_prefix": 3}, "query_prefix must be a string"),
        ({"document_prefix": "x\x1b[2J"}, "printable characters"),
        ({"batch_size": 0}, "batch_size must be a whole number from 1"),
    ]:
        with pytest.raises(BadInput, match=says) as caught:
            select_embedder({"embeddings": {"base_url": url, "model": "m", **settings}}, env={})
        assert "\n" not in str(caught.value)
    with pytest.raises(BadInput, match="ARBORIST_EMBED_BATCH_SIZE"):
        select_embedder({}, env={**env, "ARBORIST_EMBED_BATCH_SIZE": "lots"})


def test_arborist_models_shows_the_roles_and_the_profile_key(tmp_path: Path) -> None:
    env = {**os.environ, "ARBORIST_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT),
           "ARBORIST_EMBED_BASE_URL": "http://127.0.0.1:9/v1",
           "ARBORIST_EMBED_MODEL": "nomic-embed-text"}  # fmt: skip
    shown = subprocess.run([sys.executable, "-m", "arborist", "models"], env=env,
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "roles: query 'search_query: ', document 'search_document: ' (nomic default)" in shown
    data = json.loads(subprocess.run([sys.executable, "-m", "arborist", "models", "--json"],
                                     env=env, capture_output=True, text=True, check=True).stdout)  # fmt: skip
    facts = data["embeddings"]
    assert facts["profile"]["passages"] == PASSAGES
    assert facts["profile_key"] == profile_key(facts["profile"]) and facts["timeout"] == 60


# --------------------------------------------------------------------------- slow servers


def _client(server: ChatServer, *, batch: int = 8, timeout: float = 0.5) -> EmbeddingsClient:
    http = HttpSettings(read_timeout=timeout, max_retries=0, deadline=timeout * 4)
    return EmbeddingsClient(server.url, "ngram", batch_size=batch, http=http)


def test_a_batch_that_times_out_is_split_and_the_run_goes_on(tmp_path: Path) -> None:
    server = ChatServer(stall=lambda texts: 2.0 if texts > 3 else 0.0)  # more than 3: too slow
    server.start()
    try:
        with Arborist(tmp_path / "home") as app:
            app.ingest([_corpus(tmp_path / "docs", files=6)])
            client = _client(server)
            report = embed_missing(app.store_conn, client)
            held = vector_count(app.store_conn, profile_key(client.profile()))
            assert report.embedded == held > 8
            assert client.working_size <= 3  # the size that answered in time, kept
            sizes = [len(r.body["input"]) for r in server.received]
            assert sizes[0] > 3 and max(sizes[1:]) <= 3
    finally:
        server.stop()


def test_a_server_too_slow_for_one_text_stops_the_run_and_a_rerun_resumes(tmp_path: Path) -> None:
    asked = {"n": 0}

    def stall(texts: int) -> float:
        asked["n"] += 1
        return 0.0 if asked["n"] <= 2 else 5.0  # two good batches, then nothing in time

    server = ChatServer(stall=stall)
    server.start()
    try:
        with Arborist(tmp_path / "home") as app:
            app.ingest([_corpus(tmp_path / "docs", files=6)])
            conn = app.store_conn
            client = _client(server, batch=2)
            with pytest.raises(
                ModelError, match=r"one text took longer than the 0\.5 s timeout"
            ) as caught:
                embed_missing(conn, client)
            assert "\n" not in str(caught.value)
            key = profile_key(client.profile())
            kept = vector_count(conn, key)
            assert kept == 4  # the two batches answered, each written whole
            server.stall = None
            before = server.embedded
            rest = embed_missing(conn, _client(server, batch=2))
            assert rest.held == kept + rest.embedded and server.embedded - before == rest.embedded
    finally:
        server.stop()


def test_an_embed_killed_mid_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    """``arborist embed`` in a real process, killed (SIGKILL) once some batches are written;
    the rerun asks only for what is missing and ends with every vector."""
    server = ChatServer(stall=lambda texts: 0.15)
    server.start()
    home = tmp_path / "home"
    env = {**os.environ, "ARBORIST_HOME": str(home), "PYTHONPATH": str(ROOT),
           "ARBORIST_EMBED_BASE_URL": server.url, "ARBORIST_EMBED_MODEL": "ngram",
           "ARBORIST_EMBED_BATCH_SIZE": "2"}  # fmt: skip
    try:
        with Arborist(home) as app:
            app.ingest([_corpus(tmp_path / "docs", files=12)])
            total = sum(1 for _ in app.store_conn.execute("SELECT 1 FROM chunks"))
        command = [sys.executable, "-m", "arborist", "embed"]
        run = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        store = home / "store.db"
        held = 0
        for _ in range(600):  # until some batches are written, at most a minute
            time.sleep(0.1)
            with contextlib.closing(sqlite3.connect(store)) as conn:
                held = conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
            if held >= 4:
                break
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        assert run.returncode == -signal.SIGKILL and 4 <= held < total
        asked = server.embedded
        done = subprocess.run(
            [*command, "--json"], env=env, capture_output=True, text=True, check=True
        )
        report = json.loads(done.stdout)
        assert report["held"] >= total and report["embedded"] <= report["held"] - held
        assert server.embedded - asked == report["embedded"]  # nothing asked twice
        assert re.search(r"^embed: \d+/\d+ batches \(100%\), .* elapsed, about 0:00 left$",
                         done.stderr, re.M)  # plain lines: stderr is no terminal  # fmt: skip
    finally:
        server.stop()


# --------------------------------------------------------------------------- untrusted servers


@pytest.mark.parametrize(
    "bad",
    [
        lambda r: embeddings([[float("nan")] * 4] * len(r.body["input"])),
        lambda r: embeddings([[1.0] * 8] * len(r.body["input"])),
        lambda r: json_reply({"data": [{"embedding": [1.0] * 100_000}] * 8}),
        lambda r: drip(embeddings([[1.0, 0.0]] * len(r.body["input"])), 40, 0.1),
    ],
    ids=["nan", "dimensions", "huge", "drip"],
)
def test_an_untrusted_server_gets_one_line_and_nothing_wrong_is_written(
    bad: object, tmp_path: Path
) -> None:
    """The first batch is good; the second is bad: one line, the first batch kept whole,
    nothing of the bad one."""
    server = ChatServer()
    server.start()
    try:
        with Arborist(tmp_path / "home") as app:
            app.ingest([_corpus(tmp_path / "docs", files=3)])
            conn = app.store_conn
            client = _client(server, batch=2, timeout=1.0)
            client.max_reply_bytes = 2**20
            server.script(lambda r: embeddings([[0.0, 1.0, 0.0, 0.0]] * len(r.body["input"])))
            server.script(*[bad] * 8)  # type: ignore[list-item]
            with pytest.raises(ModelError) as caught:
                embed_missing(conn, client)
            assert "\n" not in str(caught.value) and len(str(caught.value)) < 400
            kept = _vectors(conn, profile_key(client.profile()))
            assert len(kept) == 2
            for blob in kept.values():
                assert np.frombuffer(blob, dtype="<f2").tolist() == [0.0, 1.0, 0.0, 0.0]
    finally:
        server.stop()


def test_two_replies_of_one_batch_in_other_dimensions_are_one_line_and_nothing_written(
    tmp_path: Path,
) -> None:
    """A batch asked in two requests (the client's size is smaller than the store's batch),
    each reply consistent in itself, the two of different sizes: refused whole."""
    server = ChatServer()
    server.start()
    try:
        with Arborist(tmp_path / "home") as app:
            app.ingest([_corpus(tmp_path / "docs", files=3)])
            client = _client(server, batch=4)
            client.working_size = 2
            server.script(
                lambda r: embeddings([[1.0, 0.0]] * len(r.body["input"])),
                lambda r: embeddings([[1.0, 0.0, 0.0]] * len(r.body["input"])),
            )
            with pytest.raises(ModelError, match="2 dimensions for some texts and 3 for others"):
                embed_missing(app.store_conn, client)
            assert _vectors(app.store_conn, profile_key(client.profile())) == {}
    finally:
        server.stop()
