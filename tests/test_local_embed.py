"""The in-process embedder (arborist/_qa/local_embed.py) on a tiny BERT the test writes.

The real weights (all-MiniLM-L6-v2, the ``local`` extra) are 90 MB and not part of the
dev install; ``bench/quality.py`` checks them against sentence-transformers' published
similarities and measures retrieval with them. Here a two-layer BERT with random weights,
written as the same three files (config.json, tokenizer.json, model.safetensors), is
run by :class:`LocalEmbedder` and by a naive reference written apart (one token and one
head at a time, :func:`math.erf`), and the vector lane stores and searches its passages.
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from arborist._errors import BadInput
from arborist._facade.app import Arborist
from arborist._qa import local_embed
from arborist._qa.embeddings import select_embedder
from arborist._qa.local_embed import AUTO_RUNTIME, RUNTIMES, LocalEmbedder, _load
from arborist._qa.nearness import vector_query
from arborist._qa.onnx_embed import INT8_RECIPE, RECIPE, OnnxEncoder, graph_file
from arborist._store.fusion import in_documents_words
from arborist._store.passages import PASSAGES, passages
from arborist._store.search import retrieve
from arborist._store.vectors import embed_missing, missing_chunks, nearest, profile_key

HIDDEN, HEADS, LAYERS, INTERMEDIATE, POSITIONS = 16, 4, 2, 32, 40
WORDS = [
    *("the", "a", "of", "to", "is", "and", "in", "list", "sorted", "insert", "item"),
    *("keep", "random", "choose", "element", "sequence", "json", "file", "read"),
    *("parse", "object", "median", "data", "value", "return", "number", "text"),
]


def _tokenizer_json() -> str:
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
    for word in WORDS:
        vocab.setdefault(word, len(vocab))
    for letter in "abcdefghijklmnopqrstuvwxyz0123456789().,:_=*":
        vocab.setdefault(f"##{letter}", len(vocab))
        vocab.setdefault(letter, len(vocab))
    tokenizer = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    return str(tokenizer.to_str())


def _weights(vocab_size: int, seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def w(*shape: int) -> np.ndarray:
        return rng.normal(0.0, 0.3, shape).astype(np.float32)

    out = {
        "embeddings.word_embeddings.weight": w(vocab_size, HIDDEN),
        "embeddings.position_embeddings.weight": w(POSITIONS, HIDDEN),
        "embeddings.token_type_embeddings.weight": w(2, HIDDEN),
        "embeddings.LayerNorm.weight": 1 + w(HIDDEN),
        "embeddings.LayerNorm.bias": w(HIDDEN),
    }
    for i in range(LAYERS):
        at = f"encoder.layer.{i}"
        for part in ("query", "key", "value"):
            out[f"{at}.attention.self.{part}.weight"] = w(HIDDEN, HIDDEN)
            out[f"{at}.attention.self.{part}.bias"] = w(HIDDEN)
        out[f"{at}.attention.output.dense.weight"] = w(HIDDEN, HIDDEN)
        out[f"{at}.attention.output.dense.bias"] = w(HIDDEN)
        out[f"{at}.attention.output.LayerNorm.weight"] = 1 + w(HIDDEN)
        out[f"{at}.attention.output.LayerNorm.bias"] = w(HIDDEN)
        out[f"{at}.intermediate.dense.weight"] = w(INTERMEDIATE, HIDDEN)
        out[f"{at}.intermediate.dense.bias"] = w(INTERMEDIATE)
        out[f"{at}.output.dense.weight"] = w(HIDDEN, INTERMEDIATE)
        out[f"{at}.output.dense.bias"] = w(HIDDEN)
        out[f"{at}.output.LayerNorm.weight"] = 1 + w(HIDDEN)
        out[f"{at}.output.LayerNorm.bias"] = w(HIDDEN)
    return out


def _safetensors(tensors: dict[str, np.ndarray]) -> bytes:
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    data, offset = [], 0
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        data.append(raw)
        offset += len(raw)
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)
    return struct.pack("<Q", len(encoded)) + encoded + b"".join(data)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a tiny BERT sentence encoder's three files."""
    folder = tmp_path_factory.mktemp("tiny-bert")
    tokenizer = _tokenizer_json()
    vocab_size = len(json.loads(tokenizer)["model"]["vocab"])
    config = {
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "intermediate_size": INTERMEDIATE,
        "max_position_embeddings": POSITIONS,
        "layer_norm_eps": 1e-12,
        "vocab_size": vocab_size,
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "tokenizer.json").write_text(tokenizer)
    (folder / "model.safetensors").write_bytes(_safetensors(_weights(vocab_size)))
    return folder


def _reference(folder: Path, text: str, max_tokens: int) -> np.ndarray:
    """BERT's sentence vector, naively: one token and one head at a time, erf from math."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids = tokenizer.encode(text).ids
    if len(ids) > max_tokens:
        ids = [*ids[: max_tokens - 1], ids[-1]]
    blob = (folder / "model.safetensors").read_bytes()
    (size,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + size])
    t = {
        k: np.frombuffer(
            blob[8 + size + v["data_offsets"][0] : 8 + size + v["data_offsets"][1]], "<f4"
        )
        .reshape(v["shape"])
        .astype(np.float64)
        for k, v in header.items()
        if k != "__metadata__"
    }

    def norm(x: np.ndarray, name: str) -> np.ndarray:
        mean, var = x.mean(), x.var()
        return (x - mean) / math.sqrt(var + 1e-12) * t[f"{name}.LayerNorm.weight"] + t[
            f"{name}.LayerNorm.bias"
        ]

    def dense(x: np.ndarray, name: str) -> np.ndarray:
        return t[f"{name}.weight"] @ x + t[f"{name}.bias"]

    e = "embeddings"
    states = [
        norm(
            t[f"{e}.word_embeddings.weight"][i]
            + t[f"{e}.position_embeddings.weight"][p]
            + t[f"{e}.token_type_embeddings.weight"][0],
            e,
        )
        for p, i in enumerate(ids)
    ]
    size_head = HIDDEN // HEADS
    for layer in range(LAYERS):
        at = f"encoder.layer.{layer}"
        q = [dense(s, f"{at}.attention.self.query") for s in states]
        k = [dense(s, f"{at}.attention.self.key") for s in states]
        v = [dense(s, f"{at}.attention.self.value") for s in states]
        new = []
        for i, state in enumerate(states):
            context = np.zeros(HIDDEN)
            for h in range(HEADS):
                part = slice(h * size_head, (h + 1) * size_head)
                scores = [
                    float(q[i][part] @ k[j][part]) / math.sqrt(size_head)
                    for j in range(len(states))
                ]
                top = max(scores)
                weights = [math.exp(s - top) for s in scores]
                total = sum(weights)
                for j, weight in enumerate(weights):
                    context[part] += weight / total * v[j][part]
            attended = norm(
                dense(context, f"{at}.attention.output.dense") + state, f"{at}.attention.output"
            )
            up = dense(attended, f"{at}.intermediate.dense")
            up = np.array([x * 0.5 * (1 + math.erf(x / math.sqrt(2))) for x in up])
            new.append(norm(dense(up, f"{at}.output.dense") + attended, f"{at}.output"))
        states = new
    pooled = np.mean(states, axis=0)
    return pooled / np.linalg.norm(pooled)


TEXTS = [
    "Keep the list sorted: insert item.",
    "Choose a random element of a sequence",
    "read json file and parse object",
    "median(data) return the median value of data",
]


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
def test_the_vectors_are_bert_s_mean_pooled_normalized_ones(tiny_model: Path, runtime: str) -> None:
    """Both float32 forward passes, numpy's and ONNX Runtime's graph built from the same
    weights, give the reference's vectors."""
    embedder = LocalEmbedder(tiny_model, runtime=runtime)
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), HIDDEN)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    for text, vector in zip(TEXTS, vectors, strict=True):
        assert np.allclose(vector, _reference(tiny_model, text, 256), atol=2e-5), text


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
def test_a_text_s_vector_does_not_depend_on_its_batch(tiny_model: Path, runtime: str) -> None:
    """Padding is masked: a short text batched with long ones gets its own vector."""
    embedder = LocalEmbedder(tiny_model, runtime=runtime, rows=3)
    together = embedder.embed(TEXTS)
    alone = np.concatenate([LocalEmbedder(tiny_model, runtime=runtime).embed([t]) for t in TEXTS])
    assert np.allclose(together, alone, atol=1e-6)
    again = LocalEmbedder(tiny_model, runtime=runtime, rows=3).embed(TEXTS)
    assert np.array_equal(again, together)  # deterministic


def test_a_long_text_is_cut_at_max_tokens_keeping_its_closing_sep(tiny_model: Path) -> None:
    text = " ".join(WORDS * 3)
    embedder = LocalEmbedder(tiny_model, max_tokens=12, runtime="numpy")
    assert np.allclose(embedder.embed([text])[0], _reference(tiny_model, text, 12), atol=2e-5)


def test_the_profile_names_the_weights_not_where_they_are(tiny_model: Path, tmp_path: Path) -> None:
    zipped = tmp_path / "model.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for name in ("config.json", "tokenizer.json", "model.safetensors"):
            archive.write(tiny_model / name, f"tiny/{name}")
    from_zip, from_folder = LocalEmbedder(zipped), LocalEmbedder(tiny_model)
    assert from_zip.profile() == from_folder.profile()
    assert from_zip.profile()["passages"] == PASSAGES
    assert str(tiny_model) not in json.dumps(from_folder.profile())
    assert np.array_equal(from_zip.embed(TEXTS), from_folder.embed(TEXTS))
    assert LocalEmbedder(tiny_model, max_tokens=64).profile() != from_folder.profile()


def test_provider_local_is_chosen_by_config_or_environment(tiny_model: Path) -> None:
    chosen = select_embedder({"embeddings": {"provider": "local", "path": str(tiny_model)}}, env={})
    assert isinstance(chosen, LocalEmbedder)
    assert chosen.profile()["provider"] == "local"
    with pytest.raises(BadInput, match="unknown setting 'base_url'"):
        select_embedder({"embeddings": {"provider": "local", "base_url": "http://x"}}, env={})
    with pytest.raises(BadInput, match="ARBORIST_EMBED_PROVIDER must be local"):
        select_embedder({}, env={"ARBORIST_EMBED_PROVIDER": "torch"})
    with pytest.raises(BadInput, match="does not exist"):
        select_embedder({"embeddings": {"provider": "local", "path": "/nonexistent/x"}}, env={})
    with pytest.raises(BadInput, match=r"no config\.json"):
        LocalEmbedder(tiny_model.parent).profile()


PYDOC = """Help on module tinylib:

NAME
    tinylib - Helpers for keeping a list sorted.

FUNCTIONS
    insort(a, x)
        Insert item x in list a, and keep it sorted.

    choose(seq)
        Choose a random element from a non-empty sequence.

    __getattr__(name)
        Return getattr(self, name).
"""


def test_a_chunk_is_embedded_as_its_public_definitions() -> None:
    assert passages(PYDOC, "tinylib — helpers") == [f"tinylib: {p}" for p in passages(PYDOC)]
    found = passages(PYDOC)
    assert "insort(a, x)\nInsert item x in list a, and keep it sorted." in found
    assert "choose(seq)\nChoose a random element from a non-empty sequence." in found
    assert not any(p.startswith("__getattr__") for p in found)  # no passage of its own
    assert passages("Plain prose, no definitions at all.") == [
        "Plain prose, no definitions at all."
    ]


def test_the_vector_lane_stores_and_searches_passages(tiny_model: Path, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "tinylib.txt").write_text(PYDOC)
    (tmp_path / "docs" / "notes.md").write_text("# Notes\n\nThe median of data is a value.\n")
    embedder = LocalEmbedder(tiny_model)
    with Arborist(tmp_path / "home") as app:
        app.ingest([tmp_path / "docs"])
        conn = app.store_conn
        report = embed_missing(conn, embedder)
        chunks = conn.execute("SELECT leaf, text FROM chunks ORDER BY id").fetchall()
        assert report.embedded == sum(len(passages(text)) for _, text in chunks)
        keys = {row[0] for row in conn.execute("SELECT leaf FROM chunk_vectors")}
        assert {f"{leaf}#0" for leaf, _ in chunks} <= keys
        key = profile_key(embedder.profile())
        assert missing_chunks(conn, key, by_passage=True) == []
        assert embed_missing(conn, embedder).embedded == 0  # nothing twice
        # A passage's own text (led by its document's subject) is nearest its chunk: cosine 1,
        # and each chunk once.
        owner, text, title = conn.execute(
            "SELECT c.id, c.text, d.title FROM chunks AS c JOIN documents AS d "
            "ON d.id = c.document_id WHERE c.text LIKE '%Choose a random element%'"
        ).fetchone()
        (target,) = [p for p in passages(text, title) if p.split("\n")[0].endswith("choose(seq)")]
        assert target.endswith("choose(seq)\nChoose a random element from a non-empty sequence.")
        near = nearest(conn, key, embedder.embed([target])[0], 5)
        assert near[0] == (owner, pytest.approx(1.0, abs=1e-3))
        assert len({chunk_id for chunk_id, _ in near}) == len(near) == len(chunks)
        evidence = retrieve(conn, target, vectors=vector_query(embedder, target))
        assert evidence[0].chunk_id == owner
        assert {e.lane for e in evidence} <= {"lexical", "vector", "both"}


def test_a_passage_lane_leads_unless_the_question_names_a_definition(
    tiny_model: Path, tmp_path: Path
) -> None:
    """The passage fusion: a question that names a definition keeps the lexical head; one
    in other words (the best lexical chunk holds under ``WORDED_SHARE`` of its words) follows
    the vector lane's order (tests/test_fusion.py has the question in the documents' words)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        body = "\n\n".join(
            f"    f{i}_{j}(x)\n        Return item {j} of the list." for j in range(3)
        )
        (docs / f"m{i}.txt").write_text(f"FUNCTIONS\n{body}\n")
    (docs / "tinylib.txt").write_text(PYDOC)
    embedder = LocalEmbedder(tiny_model)
    with Arborist(tmp_path / "home") as app:
        app.ingest([docs])
        conn = app.store_conn
        embed_missing(conn, embedder)
        key = profile_key(embedder.profile())
        named = "What does insort() do?"
        lexical = retrieve(conn, named)
        hybrid = retrieve(conn, named, vectors=vector_query(embedder, named))
        assert lexical[0].score > 1.0  # the definition bonus: the question names insort
        assert [e.chunk_id for e in hybrid[:1]] == [e.chunk_id for e in lexical[:1]]
        plain = "keep the bag ordered"
        near = nearest(conn, key, embedder.embed([plain])[0], 40)
        best = retrieve(conn, plain)[0]
        assert best.score <= 1.0
        assert not in_documents_words(["keep", "bag", "ordered"], f"{best.text}\n{best.title}")
        found = retrieve(conn, plain, vectors=vector_query(embedder, plain))
        assert [e.chunk_id for e in found] == [c for c, _ in near][: len(found)]
        assert found[0].lane in {"vector", "both"}


def test_int8_vectors_stay_near_the_float32_ones(tiny_model: Path) -> None:
    """The quantized graph's vectors point where numpy's do (bench/embed_speed.py holds the
    real model to a cosine of 0.99 on every passage of the built-in corpus)."""
    texts = [*TEXTS, " ".join(WORDS), "json"]
    exact = LocalEmbedder(tiny_model, runtime="numpy").embed(texts)
    quantized = LocalEmbedder(tiny_model, runtime="onnx-int8").embed(texts)
    assert quantized.dtype == np.float32
    assert np.allclose(np.linalg.norm(quantized, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(exact * quantized, axis=1)) >= 0.99
    assert not np.allclose(exact, quantized, atol=1e-5)  # it is another runtime's vector


def test_the_profile_names_the_runtime_so_vectors_never_mix(tiny_model: Path) -> None:
    profiles = {rt: LocalEmbedder(tiny_model, runtime=rt).profile() for rt in RUNTIMES}
    assert "runtime" not in profiles["numpy"]  # the numpy pass's vectors keep their key
    assert profiles["onnx"]["runtime"] == f"onnxruntime-fp32-{RECIPE}"
    assert profiles["onnx-int8"]["runtime"] == f"onnxruntime-int8-{INT8_RECIPE}"
    assert profiles["auto"] == profiles[AUTO_RUNTIME]
    assert len({profile_key(p) for p in profiles.values()}) == 3
    with pytest.raises(BadInput, match="runtime must be one of auto, numpy, onnx, onnx-int8"):
        LocalEmbedder(tiny_model, runtime="torch")


def test_without_onnxruntime_the_numpy_pass_runs(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_embed, "onnx_available", lambda: False)
    assert LocalEmbedder(tiny_model).runtime == "numpy"
    with pytest.raises(BadInput, match="the onnx-int8 runtime needs onnxruntime"):
        LocalEmbedder(tiny_model, runtime="onnx-int8")


def test_the_graph_is_built_once_into_the_cache(tiny_model: Path, tmp_path: Path) -> None:
    """The graph file is named by the weights and the recipe, and read, not rebuilt."""
    cache = tmp_path / "graphs"
    LocalEmbedder(tiny_model, runtime="onnx-int8", cache=cache).embed(TEXTS)
    (built,) = cache.iterdir()
    assert built == graph_file(_load(tiny_model.resolve()), True, cache)
    assert built.stat().st_size > 0 and not list(cache.glob("*.part"))
    stamp = built.stat().st_mtime_ns
    again = OnnxEncoder(_load(tiny_model.resolve()), quantize=True, cache=cache)
    assert built.stat().st_mtime_ns == stamp and list(cache.iterdir()) == [built]
    ids = np.array([[2, 7, 3]], dtype=np.int64)
    assert again.hidden(ids, np.ones((1, 3), np.float32)).shape == (1, 3, HIDDEN)
    built.write_bytes(b"damaged")  # a cached file ONNX Runtime cannot read: built again
    OnnxEncoder(_load(tiny_model.resolve()), quantize=True, cache=cache)
    assert built.stat().st_size > len(b"damaged") and list(cache.iterdir()) == [built]
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")  # a cache that cannot be written: built in memory
    vectors = LocalEmbedder(tiny_model, runtime="onnx", cache=blocked).embed(TEXTS)
    assert np.allclose(vectors, LocalEmbedder(tiny_model, runtime="numpy").embed(TEXTS), atol=1e-5)


def test_a_text_seen_again_is_run_once(tiny_model: Path) -> None:
    ran: list[int] = []

    def track(batches: list[list[int]]) -> list[list[int]]:
        ran.append(sum(len(b) for b in batches))
        return batches

    embedder = LocalEmbedder(tiny_model, runtime="numpy")
    first = embedder.embed([TEXTS[0], TEXTS[1], TEXTS[0]], track=track)
    assert np.array_equal(first[0], first[2]) and ran == [2]
    second = embedder.embed([TEXTS[1], TEXTS[2]], track=track)
    assert ran == [2, 1] and np.array_equal(second[0], first[1])
    assert embedder.embed([TEXTS[2]], track=track).shape == (1, HIDDEN) and ran == [2, 1]
