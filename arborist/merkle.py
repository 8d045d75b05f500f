"""Merkle trees of RFC 6962 shape with inclusion proofs (RFC 9162 section 2.1.3). Pure.

The functions work on already-hashed leaves (32 raw bytes each) and are
generic over the interior function: arborist uses
:func:`arborist.hashing.hash_combine` (prefix 0x03); passing the RFC 6962
interior (prefix 0x01) reproduces the published Certificate Transparency
vectors, which is how the tests prove the shape and the proof algorithm.

Everything is iterative: a level-by-level fold that carries an odd last node
up unchanged builds exactly the RFC tree (split at the largest power of two
below n), and a proof is the sibling at each level where one exists.

A root does not fix its size. :func:`verify_inclusion` takes the size as an
explicit argument; callers must pass the size stored beside the root (a
document's ``chunk_count``), never one that arrived with the proof.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from arborist.hashing import DIGEST_SIZE, hash_combine

__all__ = [
    "EMPTY_ROOT",
    "Interior",
    "inclusion_proof",
    "inclusion_proofs",
    "merkle_root",
    "verify_inclusion",
]

Interior = Callable[[bytes, bytes], bytes]
"""An interior-node function: ``(left, right) -> 32-byte digest``."""

EMPTY_ROOT = hashlib.sha256(b"").digest()
"""Root of the empty tree: ``sha256(b"")``."""


def _next_level(level: Sequence[bytes], interior: Interior) -> list[bytes]:
    """Pair adjacent nodes; an odd last node moves up unchanged."""
    paired = [interior(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
    if len(level) % 2:
        paired.append(level[-1])
    return paired


def merkle_root(hashes: Sequence[bytes], interior: Interior = hash_combine) -> bytes:
    """Root over ``hashes`` (leaf hashes, in order). One leaf is its own root."""
    if not hashes:
        return EMPTY_ROOT
    level = list(hashes)
    while len(level) > 1:
        level = _next_level(level, interior)
    return level[0]


def inclusion_proof(
    hashes: Sequence[bytes], index: int, interior: Interior = hash_combine
) -> list[bytes]:
    """Audit path for leaf ``index`` (zero-based), leaf-most sibling first."""
    return inclusion_proofs(hashes, [index], interior)[0]


def inclusion_proofs(
    hashes: Sequence[bytes], indices: Sequence[int], interior: Interior = hash_combine
) -> list[list[bytes]]:
    """Audit paths for several leaves of one tree, hashing the tree once (not once per leaf)."""
    for index in indices:
        if not 0 <= index < len(hashes):
            raise IndexError(f"leaf index {index} is outside a tree of size {len(hashes)}")
    proofs: list[list[bytes]] = [[] for _ in indices]
    positions = list(indices)
    level = list(hashes)
    while len(level) > 1:
        for proof, position in zip(proofs, positions, strict=True):
            sibling = position ^ 1
            if sibling < len(level):
                proof.append(level[sibling])
        level = _next_level(level, interior)
        positions = [position // 2 for position in positions]
    return proofs


def verify_inclusion(
    leaf: bytes,
    index: int,
    size: int,
    proof: Sequence[bytes],
    root: bytes,
    interior: Interior = hash_combine,
) -> bool:
    """True iff ``proof`` shows ``leaf`` at ``index`` in the tree of ``size`` with ``root``.

    RFC 9162 section 2.1.3.2, step for step. Never raises on malformed input:
    a wrong type, a negative or out-of-range index, an element that is not 32
    bytes, or a proof of the wrong length all verify as False.
    """
    if type(index) is not int or type(size) is not int or not 0 <= index < size:
        return False  # also refuses bool, which is an int subclass
    if not _is_digest(leaf) or not _is_digest(root):
        return False
    fn, sn = index, size - 1
    acc = leaf
    for element in proof:
        if not _is_digest(element) or sn == 0:
            return False
        if fn & 1 or fn == sn:
            acc = interior(element, acc)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            acc = interior(acc, element)
        fn >>= 1
        sn >>= 1
    return sn == 0 and acc == root


def _is_digest(value: object) -> bool:
    return isinstance(value, bytes) and len(value) == DIGEST_SIZE
