"""The eight-dimension cache key and the hashes of what the store's records commit to. Pure.

Built on the primitives of :mod:`arborist._proofs.hashing`: the hashes here say
which fields a cache record and a derivation commit to, and the store
(which writes and verifies them) and the ask (which computes a key) share
them, so neither imports the other for a hash rule.

A cached answer may serve a question only when all eight dimensions match
(docs/design.md section 3)::

    source_root              the evidence root: Merkle root over the retrieved evidence
                             (the one name that predates "evidence_root": see below)
    question_hash            the normalized question
    model_profile_hash       provider, model, sampling options, system prompt (never the key)
    conversation_hash        what of earlier turns was threaded into the prompt ("" if nothing)
    governance_policy_hash   retrieval and prompting policy
    schema_version           shape of the cache record
    canonicalization_version text normalization rules
    chunking_version         chunking rules

Words a follow-up borrows from the turns above it steer retrieval only; they
enter no hash here. They matter anyway through the evidence root: different evidence,
different key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arborist._proofs.hashing import (
    canonical_json,
    leaf_hash,
    question_hash,
    sha256_hex,
)
from arborist._proofs.merkle import merkle_root

__all__ = [
    "CANONICALIZATION_VERSION",
    "DIMENSION_WORDS",
    "EVIDENCE_ROOT_DIMENSION",
    "Encode",
    "EvidenceRef",
    "SCHEMA_VERSION",
    "answer_hash",
    "cache_dimensions",
    "conversation_hash",
    "derivation_hash",
    "evidence_leaf",
    "evidence_root",
    "policy_hash",
    "profile_hash",
    "record_hash",
]

EVIDENCE_ROOT_DIMENSION = "source_root"
"""The dimension that holds the evidence root, by its name in the hashed dimensions.

Everywhere else (the ``cache_records`` column, the ``cache_write`` event) it is
``evidence_root``; the hashed name is kept because changing it would change every
cache key and the test vectors (docs/design.md section 3)."""

DIMENSION_WORDS = {
    EVIDENCE_ROOT_DIMENSION: ("evidence", "Merkle root over the evidence the model was shown"),
    "question_hash": ("question", "hash of the normalized question"),
    "model_profile_hash": ("model", "hash of the model's profile (name, server, options)"),
    "conversation_hash": ("conversation", "hash of the earlier turns put into the prompt"),
    "governance_policy_hash": ("policy", "hash of the retrieval and answer policy"),
    "schema_version": ("schema", "version of the store's schema"),
    "canonicalization_version": ("canonicalization", "version of the text canonicalization"),
    "chunking_version": ("chunking", "version of the chunker"),
}
"""Each dimension of the key, in the order it is hashed in, as a reader names it and what it
binds: the words of every face that lists a key's dimensions (the ``%%ask`` output's fold,
the widget's proof section, sent them by :func:`arborist._facts.vocabulary`)."""

SCHEMA_VERSION = "s1"
CANONICALIZATION_VERSION = "c2"
"""The rules that turn a document into its text: ``c2`` since an HTML heading keeps its
id as a trailing ``{#id}`` (:mod:`arborist._store.html_text`), where ``c1`` kept none."""


@dataclass(frozen=True)
class EvidenceRef:
    """Where one piece of evidence sits: its document's root and size, its index and leaf."""

    source_root: str
    chunk_count: int
    chunk_index: int
    leaf: str


Encode = Callable[[Any], bytes]
"""How the hashes below write a value: :func:`~arborist._proofs.hashing.canonical_json` (the default),
or an encoder that writes the same bytes without its checks, for values already held to
them (a bundle, whose whole text :mod:`arborist._bundles.shape` proved canonical)."""


def evidence_leaf(ref: EvidenceRef, encode: Encode = canonical_json) -> bytes:
    """``leaf_hash(canonical_json({source_root, chunk_index, leaf}))`` of one evidence item."""
    return leaf_hash(
        encode({"source_root": ref.source_root, "chunk_index": ref.chunk_index, "leaf": ref.leaf})
    )


def evidence_root(evidence: Sequence[EvidenceRef], encode: Encode = canonical_json) -> str:
    """Merkle root over the evidence in rank order (``sha256("")`` when there is none)."""
    return merkle_root([evidence_leaf(ref, encode) for ref in evidence]).hex()


def profile_hash(profile: Mapping[str, object]) -> str:
    """model_profile_hash: the hash of a chat client's profile (it never holds an API key)."""
    return sha256_hex(canonical_json(dict(profile)))


def policy_hash(policy: Mapping[str, object]) -> str:
    """governance_policy_hash: the hash of the retrieval and prompting policy."""
    return sha256_hex(canonical_json(dict(policy)))


def conversation_hash(threaded: Sequence[Mapping[str, str]] = ()) -> str:
    """Empty unless earlier turns were threaded into the prompt; then the hash of exactly those."""
    return sha256_hex(canonical_json([dict(turn) for turn in threaded])) if threaded else ""


def cache_dimensions(
    *,
    evidence: Sequence[EvidenceRef],
    question: str,
    profile: Mapping[str, object],
    policy: Mapping[str, object],
    chunking_version: str,
    threaded: Sequence[Mapping[str, str]] = (),
) -> dict[str, str]:
    """The eight dimensions of an ask, by name."""
    return {
        EVIDENCE_ROOT_DIMENSION: evidence_root(evidence),
        "question_hash": question_hash(question),
        "model_profile_hash": profile_hash(profile),
        "conversation_hash": conversation_hash(threaded),
        "governance_policy_hash": policy_hash(policy),
        "schema_version": SCHEMA_VERSION,
        "canonicalization_version": CANONICALIZATION_VERSION,
        "chunking_version": chunking_version,
    }


def answer_hash(answer_text: str) -> str:
    """Hash of an answer's exact text."""
    return sha256_hex(answer_text.encode("utf-8"))


def record_hash(
    *,
    cache_key: str,
    revision: int,
    question: str,
    answer_text: str,
    audit_mode: str,
    evidence: Sequence[tuple[EvidenceRef, bool]],
    created_at: str,
    encode: Encode = canonical_json,
) -> str:
    """What a cache record commits to; its ``cache_write`` audit event carries this hash."""
    return sha256_hex(
        encode(
            {
                "cache_key": cache_key,
                "revision": revision,
                "question": question,
                "answer_hash": answer_hash(answer_text),
                "audit_mode": audit_mode,
                "evidence": [
                    {
                        "source_root": ref.source_root,
                        "chunk_count": ref.chunk_count,
                        "chunk_index": ref.chunk_index,
                        "leaf": ref.leaf,
                        "cited": cited,
                    }
                    for ref, cited in evidence
                ],
                "created_at": created_at,
            }
        )
    )


def derivation_hash(
    kind: str, core_source_root: str, derived_from: str, sources: Sequence[EvidenceRef]
) -> str:
    """What a derivation commits to: its kind, its text's root, its origin, its source leaves."""
    return sha256_hex(
        canonical_json(
            {
                "kind": kind,
                "core_source_root": core_source_root,
                "derived_from": derived_from,
                "sources": [
                    {
                        "source_root": ref.source_root,
                        "chunk_count": ref.chunk_count,
                        "chunk_index": ref.chunk_index,
                        "leaf": ref.leaf,
                    }
                    for ref in sources
                ],
            }
        )
    )
