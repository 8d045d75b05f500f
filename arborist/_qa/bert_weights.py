"""A BERT encoder's weights as arborist's two runtimes read them: the numpy forward pass
(:mod:`arborist._qa.local_embed`, which loads them) and the ONNX graph built from them
(:mod:`arborist._qa.onnx_embed`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["BertLayer", "BertWeights"]


@dataclass(frozen=True)
class BertLayer:
    """One encoder layer's weights, each matrix transposed for ``x @ w``."""

    qkv: NDArray[np.float32]  # (hidden, 3 * hidden), transposed for x @ w
    qkv_bias: NDArray[np.float32]
    out: NDArray[np.float32]
    out_bias: NDArray[np.float32]
    norm1: tuple[NDArray[np.float32], NDArray[np.float32]]
    up: NDArray[np.float32]
    up_bias: NDArray[np.float32]
    down: NDArray[np.float32]
    down_bias: NDArray[np.float32]
    norm2: tuple[NDArray[np.float32], NDArray[np.float32]]


@dataclass(frozen=True)
class BertWeights:
    """A BERT encoder's weights and tokenizer, as both runtimes read them (``digest``: the
    weights' hash, which names the ONNX graph built from them)."""

    words: NDArray[np.float32]
    positions: NDArray[np.float32]
    types: NDArray[np.float32]
    norm: tuple[NDArray[np.float32], NDArray[np.float32]]
    layers: tuple[BertLayer, ...]
    heads: int
    eps: float
    tokenizer: Any
    digest: str

    @property
    def dimensions(self) -> int:
        return int(self.words.shape[1])
