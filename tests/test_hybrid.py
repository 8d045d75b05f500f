"""Hybrid retrieval: the embeddings client on a real loopback server, vectors in store.db,
the vector lane fused with BM25, and what it changes (and does not) in keys and records.

The server (tests/chat_server.py) embeds deterministically: hashed character
n-grams, normalized. Without an embedding model configured nothing may change:
the keys below were computed by arborist before the vector lane existed.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from arborist._errors import BadInput, ModelError
from arborist._facade.app import Arborist
from arborist._faces.cli import cli
from arborist._proofs import keys
from arborist._proofs.keys import policy_hash
from arborist._qa import extractive, nearness, policy, runner
from arborist._qa.check import check_record
from arborist._qa.embeddings import EmbeddingsClient, select_embedder
from arborist._qa.http import HttpSettings
from arborist._qa.models import select_client
from arborist._qa.nearness import vector_query
from arborist._qa.policy import retrieval_policy
from arborist._store import documents
from arborist._store.memo import generation
from arborist._store.passages import PASSAGES
from arborist._store.search import retrieve
from arborist._store.vectors import nearest, pack, profile_key, unpack, vector_count
from arborist._views.results import answer_text
from tests.chat_server import ChatServer, embeddings, error_reply, ngram_vector
from tests.chat_server import chat_server as chat_server_fixture  # noqa: F401 - the fixture

KEY = "sk-embed-secret-0123456789abcdef"

# Computed by arborist before hybrid retrieval existed (main at 286e960: retrieval v3, extractive-v3).
LEXICAL_POLICY_HASH = "cd6d772cb4e219efd3dd1056fe6b2b3ebea84cb69f9f5a32e70c065ed70662cb"
LEXICAL_TIDES_KEY = "f7a19059b43ad0492ca184590c33ff8a359229128db64be5b4de32d47d43461b"
TIDES = "# Tides\n\nTides rise and fall twice a day because the moon pulls the oceans.\n"

DOCS = {
    "bisect.md": "# bisect\n\ninsort(a, x): Insert item x in list a, and keep it sorted "
    "assuming a is sorted.\n\n# other\n\nbisect_left(a, x): Locate the insertion point.\n",
    "tides.md": TIDES,
    "volcano.md": "# Volcanoes\n\nA volcano erupts when magma rises through the crust.\n\n"
    "# Lava\n\nLava is magma that reached the surface of the earth.\n",
}


def one_line(error: pytest.ExceptionInfo[Exception]) -> str:
    message = str(error.value)
    assert "\n" not in message and message.strip() == message
    return message


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def embedded(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch, home: Path) -> ChatServer:
    """An embedding model configured through the environment, served on loopback."""
    monkeypatch.setenv("ARBORIST_EMBED_BASE_URL", chat_server.url)
    monkeypatch.setenv("ARBORIST_EMBED_MODEL", "ngram")
    monkeypatch.setenv("ARBORIST_EMBED_API_KEY", KEY)
    return chat_server


def client(server: ChatServer, **options: object) -> EmbeddingsClient:
    no_sleep = HttpSettings(sleep=lambda s: None)
    return EmbeddingsClient(server.url, "ngram", http=no_sleep, **options)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the client


def test_the_client_batches_normalizes_and_keeps_order(chat_server: ChatServer) -> None:
    texts = [f"text number {i} about tides" for i in range(70)]
    vectors = client(chat_server, batch_size=32, api_key=KEY).embed(texts)
    assert vectors.shape == (70, 384) and vectors.dtype == np.float32
    assert chat_server.embed_requests == 3 and chat_server.embedded == 70
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert np.allclose(vectors[5], ngram_vector(texts[5]), atol=1e-6)
    first = chat_server.received[0]
    assert first.body == {"model": "ngram", "input": texts[:32], "encoding_format": "float"}
    assert first.headers["authorization"] == f"Bearer {KEY}"


def test_the_profile_names_model_dimensions_and_server_never_the_key(
    chat_server: ChatServer,
) -> None:
    embedder = EmbeddingsClient(
        chat_server.url.replace("http://", "http://user:pw@") + "?key=x", "ngram",
        api_key=KEY, dimensions=384,
    )  # fmt: skip
    profile = embedder.profile()
    assert profile == {
        "kind": "embeddings",
        "provider": "openai",
        "server": chat_server.url,
        "model": "ngram",
        "dimensions": 384,
        "passages": PASSAGES,
        "query_prefix": "",
        "document_prefix": "",
    }
    assert KEY not in repr(embedder) and "pw" not in json.dumps(profile)


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        (embeddings([[1.0, 0.0]]), "asked for 2 vectors, the server answered 1"),
        (embeddings([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), "has 3 dimensions, expected 2"),
        (embeddings([[1.0, math.nan], [0.0, 1.0]]), "not a finite number"),
        (embeddings([[0.0, 0.0], [0.0, 1.0]]), "a vector of zeros"),
        (error_reply(400, "bad model"), "HTTP 400: bad model"),
    ],
    ids=["fewer", "dimensions", "nan", "zeros", "refused"],
)
def test_a_bad_reply_is_one_line(chat_server: ChatServer, reply: object, says: str) -> None:
    chat_server.script(reply)  # type: ignore[arg-type]
    with pytest.raises(ModelError) as error:
        client(chat_server, dimensions=2).embed(["one", "two"])
    assert says in one_line(error) and "'embeddings' (ngram at http://127.0.0.1" in str(error.value)


def test_a_server_that_is_down_is_one_line_after_its_retries() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = EmbeddingsClient(
        f"http://127.0.0.1:{port}/v1", "ngram", http=HttpSettings(sleep=lambda s: None)
    )
    with pytest.raises(ModelError) as error:
        down.embed(["one"])
    assert "gave up after 4 attempts" in one_line(error)


def test_busy_is_retried(chat_server: ChatServer) -> None:
    chat_server.script(error_reply(503, "busy"))
    assert client(chat_server).embed(["one"]).shape == (1, 384)
    assert chat_server.embed_requests == 2


# --------------------------------------------------------------------------- configuration


def test_configuration_from_config_toml_and_the_environment() -> None:
    assert select_embedder({}, {}) is None
    table = {"embeddings": {"base_url": "http://127.0.0.1:9/v1", "model": "m", "batch_size": 8}}
    made = select_embedder(table, {})
    assert made is not None and made.batch_size == 8 and made.profile()["model"] == "m"
    named = {"models": {"e5": {"kind": "embeddings", "base_url": "http://h/v1", "model": "e5"}}}
    chosen = select_embedder(named, {})
    assert chosen is not None and chosen.name == "e5"
    env = {"ARBORIST_EMBED_BASE_URL": "http://h:1/v1", "ARBORIST_EMBED_MODEL": "x"}
    from_env = select_embedder(table, env)
    assert from_env is not None and from_env.model == "x"
    with pytest.raises(BadInput, match="set ARBORIST_EMBED_BASE_URL too"):
        select_embedder({}, {"ARBORIST_EMBED_MODEL": "x"})
    with pytest.raises(BadInput, match="unknown setting 'colour'"):
        select_embedder({"embeddings": {**table["embeddings"], "colour": 1}}, {})
    with pytest.raises(BadInput, match="batch_size must be a whole number"):
        select_embedder({"embeddings": {**table["embeddings"], "batch_size": 0}}, {})
    with pytest.raises(BadInput, match=r"reads its API key from \$NOPE"):
        select_embedder({"embeddings": {**table["embeddings"], "api_key_env": "NOPE"}}, {})
    with pytest.raises(BadInput, match="does not answer questions"):
        select_client("e5", config=named, env={})


# --------------------------------------------------------------------------- nothing changes


def test_without_embeddings_policy_keys_and_records_are_as_before(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The extractive answerer's version is in every key and has moved on since (v4 leaves
    # pydoc's listings of names out of its answers), and so has retrieval's name (v4 reads a
    # question's own pronouns); under their old names the key is as before.
    monkeypatch.setattr(extractive, "EXTRACTIVE_MODEL", "extractive-v3")
    monkeypatch.setattr(nearness, "RETRIEVAL", "fts5-bm25f-any-term-v3")  # the memo's name
    monkeypatch.setattr(policy, "RETRIEVAL", "fts5-bm25f-any-term-v3")  # the policy's
    # And so have chunking (k2: a form feed per PDF page) and canonicalization (c2: HTML
    # headings keep their ids), which every key names.
    monkeypatch.setattr(runner, "CHUNKING_VERSION", "k1")
    monkeypatch.setattr(documents, "CHUNKING_VERSION", "k1")
    monkeypatch.setattr(keys, "CANONICALIZATION_VERSION", "c1")
    assert policy_hash(retrieval_policy()) == LEXICAL_POLICY_HASH
    (tmp_path / "tides.md").write_text(TIDES, encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "tides.md")])
        result = app.ask("why do tides rise")
    assert result.cache_key == LEXICAL_TIDES_KEY
    assert "hybrid" not in result.record.policy
    assert "retrieval_lanes" not in result.record.response
    assert "lane" not in result.record.as_json()["evidence"][0]
    assert "[lexical]" not in answer_text(result)


# --------------------------------------------------------------------------- storage


def test_vectors_are_content_addressed_and_ingest_embeds_as_it_goes(
    embedded: ChatServer, corpus: Path, home: Path
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        assert embedded.embed_requests == 1 and embedded.embedded == 5
        profile = profile_key(app.embedder_profile())
        assert vector_count(app.store_conn, profile) == 5
        app.ingest([str(corpus)])  # unchanged: no request
        (corpus / "copy.md").write_text(TIDES, encoding="utf-8")  # the same chunk elsewhere
        app.ingest([str(corpus / "copy.md")])
        assert embedded.embed_requests == 1
        report = app.embed()
        assert (report.embedded, report.requests, report.held) == (0, 0, 5)
        blob = app.store_conn.execute("SELECT vector FROM chunk_vectors LIMIT 1").fetchone()[0]
    assert len(blob) == 2 * 384  # float16
    assert KEY not in (home / "store.db").read_bytes().decode("latin-1")


def test_a_bad_embeddings_setting_refuses_ingest_before_anything_is_written(
    corpus: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBORIST_EMBED_MODEL", "ngram")  # no server named
    with Arborist(home) as app:
        with pytest.raises(BadInput, match="set ARBORIST_EMBED_BASE_URL too"):
            app.ingest([str(corpus)])
        assert app.stats()["documents"]["surface"] == 0


def test_pack_is_float16_and_unpacks_close() -> None:
    vector = np.asarray(ngram_vector("insert sorted"), dtype=np.float32)
    assert np.allclose(unpack(pack(vector)), vector, atol=1e-3)


def test_a_failing_batch_writes_nothing_and_moves_no_generation(
    embedded: ChatServer, corpus: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARBORIST_EMBED_BASE_URL")
    monkeypatch.delenv("ARBORIST_EMBED_MODEL")
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        before = generation(app.store_conn)
        monkeypatch.setenv("ARBORIST_EMBED_BASE_URL", embedded.url)
        monkeypatch.setenv("ARBORIST_EMBED_MODEL", "ngram")
        for bad in (embeddings([[1.0] * 384] * 4), embeddings([[math.nan] * 384] * 5)):
            embedded.script(bad)
            with pytest.raises(ModelError) as error:
                app.embed()
            one_line(error)
            assert app.store_conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == 0
            assert generation(app.store_conn) == before
        (home / "config.toml").write_text(
            f'[embeddings]\nbase_url = "{embedded.url}"\nmodel = "ngram"\n', encoding="utf-8"
        )
        assert app.embed().embedded == 5  # the environment still wins; now it answers
        assert generation(app.store_conn) > before


def test_a_reply_of_other_dimensions_than_the_stored_ones_is_refused(
    embedded: ChatServer, corpus: Path, home: Path
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus / "tides.md")])
        embedded.script(embeddings([[1.0, 0.0], [0.0, 1.0]]))  # volcano.md has two chunks
        with pytest.raises(ModelError, match="answered 2 dimensions, but its vectors"):
            app.ingest([str(corpus / "volcano.md")])


def test_evicted_chunks_leave_the_vector_lane_and_come_back_without_a_request(
    embedded: ChatServer, corpus: Path, home: Path
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        embedder = app.embedder()
        query = vector_query(embedder, "magma erupts lava")
        assert query is not None
        uris = {
            row[0]
            for row in app.store_conn.execute(
                "SELECT d.uri FROM chunks c JOIN documents d ON d.id = c.document_id "
                f"WHERE c.id IN ({','.join(str(i) for i, _ in nearest(app.store_conn, query.profile, query.vector, 10))})"
            )
        }
        assert any(u.endswith("volcano.md") for u in uris)
        at = generation(app.store_conn)
        app.evict(str(corpus / "volcano.md"), "warm")
        assert generation(app.store_conn) > at
        near = nearest(app.store_conn, query.profile, query.vector, 10)
        assert len(near) == 3
        requests = embedded.embed_requests
        app.rehydrate(str(corpus / "volcano.md"))
        assert len(nearest(app.store_conn, query.profile, query.vector, 10)) == 5
        assert app.embed().embedded == 0 and embedded.embed_requests == requests


# --------------------------------------------------------------------------- asking


def test_a_hybrid_ask_records_its_lanes_proves_its_evidence_and_keys_its_profile(
    embedded: ChatServer, corpus: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "How do I keep a list sorted while inserting?"
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        requests = embedded.embed_requests
        first = app.ask(question)
        # the question's vector, then the sentences the answerer might quote (measured by
        # the lane's model too, in batches)
        assert embedded.embed_requests > requests + 1
        requests = embedded.embed_requests
        record = first.record
        assert record.policy["hybrid"]["embedding"] == app.embedder_profile()
        lanes = record.response["retrieval_lanes"]
        assert len(lanes) == len(record.evidence) and set(lanes) <= {"lexical", "vector", "both"}
        assert "vector" in lanes or "both" in lanes
        assert [e["lane"] for e in record.as_json()["evidence"]] == lanes
        assert re.search(r"E1\*? .*\[(lexical|vector|both)\]", answer_text(first))
        assert check_record(record)  # every item proves, whichever lane found it
        again = app.ask(question)
        assert again.hit and again.cache_key == first.cache_key
        assert embedded.embed_requests == requests  # a memo hit embeds nothing
        monkeypatch.setenv("ARBORIST_EMBED_MODEL", "another-model")
        other = app.ask(question)
        assert not other.hit and other.cache_key != first.cache_key
        monkeypatch.delenv("ARBORIST_EMBED_BASE_URL")
        monkeypatch.delenv("ARBORIST_EMBED_MODEL")
        lexical = app.ask(question)
        assert not lexical.hit and lexical.cache_key not in {first.cache_key, other.cache_key}
        assert "hybrid" not in lexical.record.policy


def test_the_vector_lane_finds_what_the_words_do_not(
    embedded: ChatServer, corpus: Path, home: Path
) -> None:
    with Arborist(home) as app:
        app.ingest([str(corpus)])
        embedder = app.embedder()
        question = "unsorted"  # no word of any text, stemmed or not; n-grams of "sorted"
        assert not retrieve(app.store_conn, question)
        found = retrieve(app.store_conn, question, vectors=vector_query(embedder, question))
    assert found[0].uri.endswith("bisect.md") and found[0].lane == "vector"


def test_arborist_embed_reports_and_refuses_without_a_model(
    embedded: ChatServer, corpus: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARBORIST_EMBED_BASE_URL")
    monkeypatch.delenv("ARBORIST_EMBED_MODEL")
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(corpus)]).exit_code == 0
    refused = runner.invoke(cli, ["embed"])
    assert refused.exit_code == 2 and "no embedding model is configured" in refused.output
    monkeypatch.setenv("ARBORIST_EMBED_MODEL", "ngram")
    half = runner.invoke(cli, ["embed"])
    assert half.exit_code == 2 and "set ARBORIST_EMBED_BASE_URL too" in half.output
    monkeypatch.setenv("ARBORIST_EMBED_BASE_URL", embedded.url)
    done = runner.invoke(cli, ["embed", "--json"])
    assert done.exit_code == 0, done.output
    figures = json.loads(done.stdout)
    assert (figures["embedded"], figures["requests"], figures["held"]) == (5, 1, 5)
    assert figures["profile"]["model"] == "ngram" and KEY not in done.output
    text = runner.invoke(cli, ["embed"])
    assert "embedded 0 chunk(s) in 0 request(s); 5 vector(s) held for ngram" in text.output


@pytest.mark.slow
def test_ten_thousand_chunks_cost_ten_thousand_over_batch_size_requests(
    chat_server: ChatServer, tmp_path: Path, home: Path
) -> None:
    text = "\n\n".join(
        f"# Part {i}\n\nEntry {i} holds the word w{i * 7919 % 100003}." for i in range(10_000)
    )
    (tmp_path / "big.md").write_text(text, encoding="utf-8")
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[embeddings]\nbase_url = "{chat_server.url}"\nmodel = "ngram"\nbatch_size = 100\n',
        encoding="utf-8",
    )
    with Arborist(home) as app:
        app.ingest([str(tmp_path / "big.md")])
        assert chat_server.embedded == 10_000
        assert chat_server.embed_requests == 10_000 // 100
        assert app.embed().held == 10_000


def test_the_notebook_and_repl_embed_command_tracks_its_batches(
    embedded: ChatServer, corpus: Path, home: Path
) -> None:
    from arborist._commands import table
    from arborist._commands.desk import Desk

    assert "embed" in table.commands()  # the faces load the table; a Desk made here must too
    tracked: list[int] = []

    def track(items: object) -> object:
        batches = list(items)  # type: ignore[call-overload]
        tracked.append(len(batches))
        return batches

    with Arborist(home) as app:
        app.ingest([str(corpus / "tides.md")])
        app.store_conn.execute("DELETE FROM chunk_vectors")
        app.store_conn.commit()
        outcome = Desk(app, track=track).run(["embed"])  # type: ignore[arg-type]
        assert outcome.text.startswith("embedded 1 chunk(s) in 1 request(s); 1 vector(s) held")
        assert tracked == [1] and outcome.changed
        shown = Desk(app).run(["embed", "--json"])
        assert shown.json is not None and json.loads(shown.json)["embedded"] == 0
