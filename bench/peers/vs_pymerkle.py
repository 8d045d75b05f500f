"""pymerkle's root and inclusion proofs against ``arborist._proofs.merkle``, on the same N entries.

Both build the RFC 6962 tree shape with leaves ``sha256(0x00 || entry)``;
pymerkle's interior prefix is RFC 6962's 0x01 and ours is 0x03 (docs/design.md
section 2), so before timing the run checks that our functions, given the
RFC 6962 interior, reproduce pymerkle's root and leaves exactly. The timed
code is each side's own default.

* **root**: from raw entries, leaves hashed included. pymerkle:
  ``InmemoryTree()``, ``append_entries(entries)``, ``get_root()`` (its
  ``get_state`` is a deprecated alias since 7.0). Ours:
  ``merkle_root([leaf_hash(e) for e in entries])``. Best of R.
* **proof**: an inclusion proof for K random leaves. pymerkle:
  ``tree.prove_inclusion(i + 1)`` on the tree built above (it counts from
  one), whose subroots are cached. Ours: the in-memory path
  ``bench/merkle_paths.py`` finds: ``proof_from_levels`` over levels built
  once (untimed, as pymerkle's tree is) once ``arborist._proofs.merkle`` has
  ``tree_levels``; until then the public ``inclusion_proof(leaves, i)``, a
  pure function that refolds the whole leaf list for each proof. The row's
  note names the path that ran.
* **verify**: pymerkle ``verify_inclusion(leaf, root, proof, index=i + 1,
  size=N)``; ours ``verify_inclusion(leaf, i, N, proof, root)``. Best of R
  over the K proofs, per proof.
"""

from __future__ import annotations

import hashlib
import random

import pymerkle
from common import Row, best_of

from arborist._proofs.hashing import leaf_hash
from arborist._proofs.merkle import merkle_root, verify_inclusion
from bench.merkle_paths import REFOLD, in_memory_prover


def rfc6962_interior(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _pymerkle_tree(entries: list[bytes]) -> pymerkle.InmemoryTree:
    tree = pymerkle.InmemoryTree()
    tree.append_entries(entries)
    return tree


def _pymerkle_root(entries: list[bytes]) -> bytes:
    root: bytes = _pymerkle_tree(entries).get_root()
    return root


def _our_root(entries: list[bytes]) -> bytes:
    return merkle_root([leaf_hash(e) for e in entries])


def run(sizes: list[int], repeat: int, n_proofs: int, seed: int) -> list[Row]:
    return [row for size in sizes for row in _rows_for(size, repeat, n_proofs, seed)]


def _rows_for(size: int, repeat: int, n_proofs: int, seed: int) -> list[Row]:
    rows = []
    rng = random.Random(f"peers-merkle:{seed}:{size}")
    entries = [rng.randbytes(rng.randint(200, 800)) for _ in range(size)]
    leaves = [leaf_hash(e) for e in entries]

    tree = _pymerkle_tree(entries)
    peer_root = tree.get_root()
    assert merkle_root(leaves, rfc6962_interior) == peer_root, "tree shapes differ"
    assert all(tree.get_leaf(i + 1) == leaves[i] for i in rng.sample(range(size), 50))

    peer_times, our_times = [], []
    for _ in range(repeat):  # interleaved
        peer_times.append(best_of(1, lambda: _pymerkle_root(entries)))
        our_times.append(best_of(1, lambda: _our_root(entries)))
    rows.append(
        Row(
            f"Merkle root, {size:,} entries",
            "pymerkle InmemoryTree append_entries + get_root",
            f"best of {repeat}",
            min(peer_times),
            min(our_times),
            notes=[
                f"{size:,} entries of 200-800 random bytes; leaves hashed and the tree "
                "folded, from scratch each repeat. pymerkle builds and keeps a node object "
                "per leaf (its tree is an in-memory log you append to); ours folds a list of "
                "leaf hashes level by level and keeps nothing. Before timing, our functions "
                "with the RFC 6962 interior (0x01) reproduced pymerkle's root and leaves "
                "bit for bit; the timed runs use each side's own interior (ours is 0x03)."
            ],
        )
    )

    our_root = merkle_root(leaves)
    indices = rng.sample(range(size), n_proofs)
    path, prove = in_memory_prover(leaves)
    peer_proof_s = best_of(repeat, lambda: [tree.prove_inclusion(i + 1) for i in indices])
    our_proof_s = best_of(repeat, lambda: [prove(i) for i in indices])
    if path == REFOLD:
        how = (
            "Ours is the public `inclusion_proof`, a pure function of the leaf list that "
            "refolds all N leaves per proof, O(N) (`arborist._proofs.merkle.tree_levels` is not there "
            "yet; once it is, this row times `proof_from_levels` over levels built once)."
        )
    else:
        how = (
            "Ours: `proof_from_levels` over the levels `tree_levels` built once (untimed, as "
            "pymerkle's tree is): O(log N) per proof."
        )
    rows.append(
        Row(
            f"inclusion proof, {size:,} leaves",
            "pymerkle prove_inclusion",
            f"per proof, best of {repeat} x {n_proofs}",
            peer_proof_s / n_proofs,
            our_proof_s / n_proofs,
            notes=[
                f"{n_proofs} random leaves. pymerkle answers from its live tree with its "
                "subroot cache warm (the root above filled it): O(log N) per proof. " + how
            ],
        )
    )

    peer_proofs = [tree.prove_inclusion(i + 1) for i in indices]
    our_proofs = [prove(i) for i in indices]
    for i, proof in zip(indices, peer_proofs, strict=True):
        pymerkle.verify_inclusion(leaves[i], peer_root, proof, index=i + 1, size=size)
    assert all(
        verify_inclusion(leaves[i], i, size, p, our_root)
        for i, p in zip(indices, our_proofs, strict=True)
    )

    def verify_peer() -> None:
        for i, proof in zip(indices, peer_proofs, strict=True):
            pymerkle.verify_inclusion(leaves[i], peer_root, proof, index=i + 1, size=size)

    def verify_ours() -> None:
        for i, proof in zip(indices, our_proofs, strict=True):
            verify_inclusion(leaves[i], i, size, proof, our_root)

    rounds = max(repeat, 5)
    rows.append(
        Row(
            f"verify inclusion, {size:,} leaves",
            "pymerkle verify_inclusion",
            f"per proof, best of {rounds} x {n_proofs}",
            best_of(rounds, verify_peer) / n_proofs,
            best_of(rounds, verify_ours) / n_proofs,
            notes=[
                "Both are stateless checks of a proof against a leaf, an index, a size "
                "and a root given by the caller. pymerkle raises `InvalidProof` (and "
                "rebuilds the proof's expected shape from index and size first); ours "
                "returns a bool (RFC 9162 section 2.1.3.2, step for step)."
            ],
        )
    )
    return rows
