"""How the vector lane's order joins the lexical one (hybrid retrieval). Pure: chunk ids in,
chunk ids out; :mod:`arborist._store.search` reads the chunks and the vectors.

Two fusions, chosen by what the vector lane embeds:

* a lane of whole chunks (:data:`HYBRID`): reciprocal rank fusion, the lexical lane's
  first :data:`LEXICAL_HEAD` chunks keeping their places (:func:`rrf_order`);
* a lane of passages (:data:`PASSAGE_FUSION`, every embedder since issue #38): chosen by
  how the question is worded (:func:`passage_order`). A question that names a definition
  the lexical lane's first chunks make keeps the lexical head; one asked in the documents'
  own words (the best lexical chunk holds :data:`WORDED_SHARE` of its words,
  :func:`in_documents_words`) is fused by reciprocal rank with a small constant
  (:data:`WORDED_RRF_K`), so each lane's first chunks come first; one in other words is led by the vector lane, the lexical lane filling what it leaves.

Each rule's name and constants are in the retrieval policy (:mod:`arborist._qa.policy`), so
a changed rule is a new policy hash and a new memo key.
"""

from __future__ import annotations

from collections.abc import Sequence

from arborist._text.text_words import stem, stems

__all__ = [
    "HYBRID",
    "LEXICAL_HEAD",
    "LEXICAL_WEIGHT",
    "PASSAGE_FUSION",
    "RRF_K",
    "VECTOR_POOL",
    "VECTOR_WEIGHT",
    "WORDED_MIN_WORDS",
    "WORDED_RRF_K",
    "WORDED_SHARE",
    "fusion_name",
    "in_documents_words",
    "passage_order",
    "rrf_order",
    "words_held",
]

HYBRID = "rrf-v1"
"""The fusion's name in the governance policy (with an embedding model configured only)."""

PASSAGE_FUSION = "named-lexical-worded-rrf-else-vector-v3"
"""The fusion of a vector lane over passages (see :func:`passage_order`). v2: a question in
the documents' own words is fused by reciprocal rank (v1 let the vector lane lead it, and on
manuals no one tuned for that lost a fifth of the answers words alone found). v3: a question
is named also when one of the first :data:`LEXICAL_HEAD` lexical chunks strongly defines a
name it names, told by :mod:`arborist._store.search` where the bonuses are given (v2 read it
from the best lexical score alone, so ``json.loads``, defined second under a chunk of
examples that only use it, was not named)."""

RRF_K = 60
"""Reciprocal rank fusion: a chunk at rank r of a lane gains weight / (RRF_K + r)."""

VECTOR_POOL = 40
"""How many nearest chunks the vector lane offers to the fusion."""

LEXICAL_HEAD = 3
"""The lexical lane's first chunks keep their places at the head of the fused list (BM25 with
the definition bonus is most often right at its top); the fusion orders the rest."""

LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
"""Each lane's weight in the fusion."""

WORDED_SHARE = 0.6
"""A question is in the documents' own words when the best lexical chunk holds at least this
share of its content words (:func:`words_held`)."""

WORDED_MIN_WORDS = 3
"""A question of fewer content words is never taken as in the documents' words: one or two
words are held whole by many chunks, and say little about the wording."""

WORDED_RRF_K = 3
"""The reciprocal rank fusion constant for a question in the documents' own words: small, so
a chunk first in either lane (1/4) outranks one both lanes hold in their middle (2/13 at
rank 10 of each), and chunks both lanes hold near their tops lead. 3, not 5, since the
vector lane embeds prose in windows (passages v3): its second and third chunks are worth
more than chunks both lanes hold lower (git 0.733 to 0.767 recall@5, no set lower)."""


def fusion_name(*, passages: bool) -> str:
    """The fusion's name in the retrieval memo's key: a passage lane's rule, or :data:`HYBRID`."""
    return PASSAGE_FUSION if passages else HYBRID


def in_documents_words(words: Sequence[str], best: str) -> bool:
    """Whether a question of content words ``words`` is asked in the documents' own words: it
    has :data:`WORDED_MIN_WORDS` of them or more, and ``best`` (the text and title of the best
    lexical chunk) holds :data:`WORDED_SHARE` of them."""
    return len(words) >= WORDED_MIN_WORDS and words_held(words, best) >= WORDED_SHARE


def words_held(words: Sequence[str], text: str) -> float:
    """The share of ``words`` (a question's content words, folded) that ``text`` holds,
    each compared stemmed (:func:`arborist._text.text_words.stem`); 0.0 for no words."""
    if not words:
        return 0.0
    held = stems(text)
    return sum(stem(w) in held for w in words) / len(words)


def rrf_order(
    lexical: Sequence[int], vector: Sequence[int], *, k: int = RRF_K, head: int = 0
) -> list[tuple[int, float]]:
    """Reciprocal rank fusion of two orders of chunk ids (best first): each chunk scores
    ``weight / (k + rank)`` summed over the lanes that hold it, the first ``head`` lexical
    chunks keep the head in lexical order, the rest by score, ties by lexical rank, then id.
    Every chunk of either lane, with its score, best first."""
    lexical_rank = {chunk_id: rank for rank, chunk_id in enumerate(lexical, start=1)}
    vector_rank = {chunk_id: rank for rank, chunk_id in enumerate(vector, start=1)}
    past = len(lexical_rank) + 1
    ranked = []
    for chunk_id in dict.fromkeys([*lexical, *vector]):
        at_l, at_v = lexical_rank.get(chunk_id), vector_rank.get(chunk_id)
        score = round(
            (LEXICAL_WEIGHT / (k + at_l) if at_l else 0.0)
            + (VECTOR_WEIGHT / (k + at_v) if at_v else 0.0),
            9,
        )
        if at_l is not None and at_l <= head:
            ranked.append(((0, 0.0, at_l, chunk_id), chunk_id, score))
        else:
            ranked.append(((1, -score, at_l or past, chunk_id), chunk_id, score))
    ranked.sort(key=lambda entry: entry[0])
    return [(chunk_id, score) for _, chunk_id, score in ranked]


def passage_order(
    lexical: Sequence[int], vector: Sequence[int], *, named: bool, worded: bool, limit: int
) -> list[int]:
    """The fused order of a passage lane, at most ``limit`` chunk ids.

    ``lexical``: chunk ids best first (BM25 relative to the best plus the bonuses);
    ``vector``: chunk ids nearest first; ``named``: whether the question names what it asks
    about (the best lexical chunk had a definition or source bonus, or one of the first
    :data:`LEXICAL_HEAD` strongly defines a name it names), as :mod:`arborist._store.search`
    decides where the bonuses are given; ``worded``: whether the question is in the
    documents' own words (:func:`in_documents_words`).

    1. **Named** (``named``): the first :data:`LEXICAL_HEAD` lexical chunks, then the
       vector lane's, then the rest.
    2. **In the documents' words** (``worded``): reciprocal rank fusion with
       :data:`WORDED_RRF_K`; both lanes are good at their tops, and a chunk both hold high
       is the likeliest answer.
    3. **In other words**: the vector lane's order, the lexical lane filling what it leaves.
    """
    if named:
        order = [*lexical[:LEXICAL_HEAD], *vector, *lexical]
    elif worded:
        order = [chunk_id for chunk_id, _ in rrf_order(lexical, vector, k=WORDED_RRF_K)]
    else:
        order = [*vector, *lexical]
    return list(dict.fromkeys(order))[:limit]
