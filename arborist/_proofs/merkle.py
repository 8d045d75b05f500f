"""Merkle trees of RFC 6962 shape with inclusion proofs (RFC 9162 section 2.1.3). Pure.

The functions work on already-hashed leaves (32 raw bytes each) and are
generic over the interior function: arborist uses
:func:`arborist._proofs.hashing.hash_combine` (prefix 0x03); passing the RFC 6962
interior (prefix 0x01) reproduces the published Certificate Transparency
vectors, which is how the tests prove the shape and the proof algorithm.

Everything is iterative: a level-by-level fold that carries an odd last node
up unchanged builds exactly the RFC tree (split at the largest power of two
below n), and a proof is the sibling at each level where one exists.

Proofs need not refold a tree. :func:`tree_levels` keeps every level of one
fold and :func:`proof_from_levels` cuts a proof from them in O(log n). A
store can keep only the levels from some ``floor`` up (:func:`upper_nodes`):
level-``k`` node ``p`` covers exactly leaves ``[p * 2**k, min((p + 1) * 2**k, n))``
(an odd last node moves up unchanged, so a short last block folds as its own
small tree), hence a proof is the proof within the leaf's aligned block of
``2**floor`` leaves (:func:`block_span`, folded locally) followed by the
stored siblings above it (:func:`sibling_positions`), byte for byte the proof
:func:`inclusion_proof` gives.

A root does not fix its size. :func:`verify_inclusion` takes the size as an
explicit argument; callers must pass the size stored beside the root (a
document's ``chunk_count``), never one that arrived with the proof.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from arborist._proofs.hashing import DIGEST_SIZE, hash_combine

__all__ = [
    "EMPTY_ROOT",
    "Interior",
    "block_span",
    "inclusion_proof",
    "inclusion_proofs",
    "merkle_root",
    "proof_from_levels",
    "sibling_positions",
    "tree_levels",
    "upper_nodes",
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
    levels = tree_levels(hashes, interior)
    return [proof_from_levels(levels, index) for index in indices]


def tree_levels(hashes: Sequence[bytes], interior: Interior = hash_combine) -> list[list[bytes]]:
    """Every level of the tree over ``hashes``: the leaves first, the root's level (one
    node) last. The empty tree is one empty level; its root is :data:`EMPTY_ROOT`."""
    levels = [list(hashes)]
    while len(levels[-1]) > 1:
        levels.append(_next_level(levels[-1], interior))
    return levels


def proof_from_levels(levels: Sequence[Sequence[bytes]], index: int) -> list[bytes]:
    """The audit path of leaf ``index`` cut from :func:`tree_levels`, in O(log n)."""
    if not 0 <= index < len(levels[0]):
        raise IndexError(f"leaf index {index} is outside a tree of size {len(levels[0])}")
    proof = []
    for level in levels[:-1]:
        sibling = index ^ 1
        if sibling < len(level):
            proof.append(level[sibling])
        index >>= 1
    return proof


def upper_nodes(levels: Sequence[Sequence[bytes]], floor: int) -> list[tuple[int, int, bytes]]:
    """``(level, position, node)`` of every node at level ``floor`` or above that can be a
    sibling (all but the root's level): what a store keeps so that a proof never refolds
    more than one block of ``2**floor`` leaves. Nothing for a tree of up to ``2**floor``."""
    return [
        (height, position, node)
        for height in range(floor, len(levels) - 1)
        for position, node in enumerate(levels[height])
    ]


def block_span(size: int, index: int, floor: int) -> tuple[int, int]:
    """``[start, stop)``: the leaves under the level-``floor`` node above leaf ``index``."""
    if not 0 <= index < size:
        raise IndexError(f"leaf index {index} is outside a tree of size {size}")
    start = index >> floor << floor
    return start, min(start + (1 << floor), size)


def sibling_positions(size: int, index: int, floor: int) -> list[tuple[int, int]]:
    """``(level, position)`` of each sibling on leaf ``index``'s path from level ``floor``
    up, leaf-most first: the rest of its proof after the part within its block."""
    if not 0 <= index < size:
        raise IndexError(f"leaf index {index} is outside a tree of size {size}")
    positions = []
    height, width, position = floor, -(-size >> floor), index >> floor
    while width > 1:
        if position ^ 1 < width:
            positions.append((height, position ^ 1))
        height, width, position = height + 1, (width + 1) >> 1, position >> 1
    return positions


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
    for element in proof:  # _is_digest, inline: a call per element is a tenth of the loop
        if not isinstance(element, bytes) or len(element) != DIGEST_SIZE or sn == 0:
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
