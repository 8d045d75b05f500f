"""The governance policy of an ask: every rule that chooses and cites its evidence, named so
that a changed rule is a new ``governance_policy_hash`` (one of the cache key's dimensions,
:mod:`arborist._proofs.keys`) and old answers miss instead of being served under rules they were
not retrieved by. Pure."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

from arborist._gate.admission import admit
from arborist._store.fusion import (
    HYBRID,
    LEXICAL_HEAD,
    LEXICAL_WEIGHT,
    PASSAGE_FUSION,
    RRF_K,
    VECTOR_POOL,
    VECTOR_WEIGHT,
    WORDED_MIN_WORDS,
    WORDED_RRF_K,
    WORDED_SHARE,
)
from arborist._store.search import (
    DEFINITION_BONUS,
    MAX_CONTEXT_WORDS,
    POOL,
    RETRIEVAL,
    RETRIEVAL_LIMIT,
    SOURCE_BONUS,
    TITLE_WEIGHT,
)
from arborist._store.vectors import embeds_passages

__all__ = [
    "KEYWORDS",
    "POLICY",
    "POLICY_VERSION",
    "retrieval_keywords",
    "retrieval_policy",
    "with_keywords",
]

POLICY_VERSION = "p2"

KEYWORDS = "retrieval_keywords"
"""The policy's entry for the words ``--retrieval-keywords`` added to retrieval (absent when
none were): they choose the evidence, so they are in the key, and the record says them."""


def retrieval_policy(
    limit: int = RETRIEVAL_LIMIT, embedding: Mapping[str, object] | None = None
) -> dict[str, object]:
    """The governance policy of an ask: how evidence is chosen and cited.

    Every rule that can change which chunks are retrieved is named here
    (the algorithm, its field weights, pool and bonus), so a changed rule is a
    new ``governance_policy_hash`` and old answers miss instead of being
    served under rules they were not retrieved by. With an ``embedding``
    profile (hybrid retrieval) the policy also holds that profile (model,
    dimensions, server; never a credential) and the fusion's parameters, so
    switching the embedding model, or hybrid on or off, is a miss; an embedder of
    passages adds the passage fusion's rule (:data:`arborist._store.fusion.PASSAGE_FUSION`)
    and its constants. Without one the policy is exactly what it was before hybrid
    retrieval existed.
    """
    policy = _lexical_policy(limit)
    if embedding is not None:
        hybrid: dict[str, object] = {
            "fusion": HYBRID,
            "embedding": dict(embedding),
            "rrf_k": RRF_K,
            "vector_pool": VECTOR_POOL,
            "lexical_weight": str(LEXICAL_WEIGHT),
            "vector_weight": str(VECTOR_WEIGHT),
        }
        if embeds_passages(dict(embedding)):  # a passage lane is fused by its own rule
            hybrid["passage_fusion"] = {
                "name": PASSAGE_FUSION,
                "lexical_head": LEXICAL_HEAD,
                "worded_min_words": WORDED_MIN_WORDS,
                "worded_share": str(WORDED_SHARE),
                "worded_rrf_k": WORDED_RRF_K,
            }
        policy["hybrid"] = hybrid
    return policy


def _lexical_policy(limit: int) -> dict[str, object]:
    return {
        "policy_version": POLICY_VERSION,
        "retrieval": RETRIEVAL,
        "retrieval_limit": limit,
        "retrieval_params": {
            "pool": POOL,
            "title_weight": str(TITLE_WEIGHT),
            "tokenizer": "porter unicode61",
            "definition_bonus": str(DEFINITION_BONUS),
            "source_bonus": str(SOURCE_BONUS),
            "context_words": MAX_CONTEXT_WORDS,
        },
        "citation_format": "[E#] (short) or [E# | <title> | <uri>]",
    }


def admitted_keywords(keywords: str, allowlist: Sequence[str] = ()) -> str:
    """The words added to retrieval by hand, through the admission gate (a secret typed
    among them is a placeholder before it is retrieved with, hashed or stored), spaced
    singly: one spelling, one key."""
    text = unicodedata.normalize("NFC", keywords.replace("\x00", ""))
    return " ".join(admit(text, allowlist=allowlist).text.split())


def with_keywords(policy: dict[str, object], words: str) -> dict[str, object]:
    """``policy`` with ``words`` (admitted, whitespace made single spaces) as the words added
    to retrieval by hand: the same question with other words, or none, is another key."""
    return {**policy, KEYWORDS: words} if words else policy


def retrieval_keywords(policy: Mapping[str, object]) -> str | None:
    """The words a record's ask added to retrieval (``--retrieval-keywords``), or None."""
    words = policy.get(KEYWORDS)
    return words if isinstance(words, str) and words else None


POLICY = retrieval_policy()
