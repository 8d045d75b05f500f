"""Which in-memory inclusion-proof path arborist offers, for the benches that time one.

Issue #14 adds proofs made from a tree's stored levels (built once, then
O(log n) per proof): ``arborist._proofs.merkle.tree_levels(leaves)`` and
``proof_from_levels(levels, index)``. Until those exist, the only in-memory
proof is the public ``inclusion_proof(leaves, index)``, which refolds all n
leaves per proof. :func:`in_memory_prover` returns whichever is there, checked
against ``inclusion_proof`` on a few leaves before anything is timed, and says
which one it is: the tables name it beside the figure.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from arborist._proofs import merkle
from arborist._proofs.merkle import inclusion_proofs

__all__ = ["LEVELS", "REFOLD", "in_memory_prover"]

LEVELS = "tree_levels + proof_from_levels (levels built once, untimed)"
REFOLD = "inclusion_proof (refolds all n leaves per proof: tree_levels is not there yet)"

Prover = Callable[[int], list[bytes]]


def in_memory_prover(leaves: Sequence[bytes]) -> tuple[str, Prover]:
    """``(name, prove)``: ``prove(i)`` is leaf ``i``'s audit path, leaf-most sibling first."""
    build = getattr(merkle, "tree_levels", None)
    from_levels = getattr(merkle, "proof_from_levels", None)
    if build is not None and from_levels is not None:
        try:
            levels = build(leaves)

            def prove(index: int) -> list[bytes]:
                return list(from_levels(levels, index))

            probe = sorted({0, len(leaves) // 2, len(leaves) - 1})
            expected = inclusion_proofs(leaves, probe)
            if [prove(i) for i in probe] == expected:
                return LEVELS, prove
            print("merkle_paths: proof_from_levels disagrees with inclusion_proof", file=sys.stderr)
        except (TypeError, ValueError, IndexError) as exc:  # another signature than guessed
            print(f"merkle_paths: tree_levels/proof_from_levels unusable: {exc}", file=sys.stderr)
    return REFOLD, lambda index: merkle.inclusion_proof(leaves, index)
