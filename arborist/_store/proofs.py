"""Does a piece of evidence hold? Its text re-hashes to its leaf, and its inclusion proof
binds that leaf to its document's root. Pure.

Every reader decides it here and nowhere else: an ask before it pays for a
miss, a cache hit before it is served, ``Answer.verify()``, the audit mode a
search hit declares, and ``arborist verify``. Each reader says in its own
words which half failed; what counts as holding is this module's.

The proof is verified against the size stored beside the root (a document's
``chunk_count``, carried by the :class:`~arborist._proofs.keys.EvidenceRef`), never
one that came with the proof (docs/design.md section 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arborist._proofs.hashing import leaf_hash
from arborist._proofs.keys import EvidenceRef
from arborist._proofs.merkle import verify_inclusion

__all__ = ["EvidenceCheck", "text_matches", "verify_evidence"]


@dataclass(frozen=True)
class EvidenceCheck:
    """What was checked of one evidence item, and whether it held.

    Each half is None when it was not checked: no text given (a cold chunk
    keeps none, or the caller checks only the proof), or no proof given.
    """

    text_matches: bool | None
    proof_verifies: bool | None

    @property
    def holds(self) -> bool:
        """Both halves checked, and both hold."""
        return bool(self.text_matches) and bool(self.proof_verifies)


def verify_evidence(
    ref: EvidenceRef, *, text: str | None = None, proof: Sequence[str] | None = None
) -> EvidenceCheck:
    """Check ``text`` against ``ref.leaf`` and ``proof`` (hex, leaf-most first) from that
    leaf to ``ref.source_root`` at ``ref.chunk_index`` of ``ref.chunk_count``.

    Never raises: a malformed leaf, root or proof (an edited file) does not verify.
    """
    return EvidenceCheck(
        None if text is None else text_matches(text, ref.leaf),
        None if proof is None else _proof_verifies(ref, proof),
    )


def text_matches(text: object, leaf: object) -> bool:
    """Whether ``text`` is text whose leaf hash is ``leaf`` (lowercase hex, as stored)."""
    return isinstance(text, str) and leaf_hash(text.encode("utf-8")).hex() == leaf


def _proof_verifies(ref: EvidenceRef, proof: Sequence[str]) -> bool:
    try:
        return verify_inclusion(
            bytes.fromhex(ref.leaf),
            ref.chunk_index,
            ref.chunk_count,
            [bytes.fromhex(p) for p in proof],
            bytes.fromhex(ref.source_root),
        )
    except (TypeError, ValueError):
        return False
