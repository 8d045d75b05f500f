"""Marks of a follow-up that the question alone shows, read for :mod:`arborist._standalone.rule`.
Pure: no I/O.

Each is a word or a construction that only a turn in a conversation has: "though" ending a
clause (a contrast with what was said), "btw" ending a statement (something added to the
question above), a request of one word of its own with "please" (what to do with the last
answer), "any" with no noun after it ("any under $50?"), "mine" as a subject (the asker's
one of what was asked about), "where does X come in" (the place of X in what was explained),
"the ... part" with nothing it is a part of (the last answer's part), "I don't follow" (what
was explained), "ones" with no plural noun of the question's own, and the turns of
:mod:`arborist._standalone.turns` (a verdict, a requirement, "a big one", ...); docs/retrieval.md
("Follow-ups") gives each with its examples and the look-alike it leaves alone.
"""

from __future__ import annotations

import re

from arborist._standalone.said import Said
from arborist._standalone.turns import turned
from arborist._standalone.words import (
    AUXILIARIES,
    CLAUSE_WORDS,
    COMPARATIVES,
    NEGATED,
    OWNERS,
    PARTS,
    PREPOSITIONS,
    RELATIVES,
)

__all__ = ["marked"]

REQUESTED = re.compile(r"\b(?:please|pls|plz)\b", re.IGNORECASE)
"""A request's politeness, which the question's reading drops (:data:`FILLERS`)."""
ASIDES = frozenset({"btw", "fyi"})
"""Ending a statement, these add it to the question above ("i'm on windows btw")."""
CONTRASTED = frozenset({"even", "as"})
"""Before "though", these make it a conjunction ("even though", "as though"), no contrast."""
OWN_ONES = frozenset({"mine", "ours"})
"""As a subject, the asker's one of the thing asked about above ("mine keeps cracking")."""
HABITS = frozenset({"always", "never", "still", "keeps", "just", "usually", "often", "also"})
"""After "mine" opening a clause, these say it is a subject ("mine always sinks")."""
PLACED_IN = frozenset({"come", "comes", "fit", "fits", "factor", "play"})
"""Before a stranded "in" after "where", the place of a thing in something explained."""


def marked(said: Said, question: str) -> bool:
    """``said`` (the reading of ``question``) carries a mark of this module."""
    return (
        _though(said)
        or _aside(said)
        or _bare_request(said, question)
        or _any_elided(said)
        or _own_one(said)
        or _comes_in(said)
        or _named_part(said)
        or _lost(said)
        or _ones(said)
        or turned(said)
    )


def _though(said: Said) -> bool:
    """ "though" ending a clause, not after "even" or "as": a contrast with what was said
    ("what size though?"; not "why does it rain even though", nor "Though it rains, ...")."""
    texts = said.texts
    return any(
        texts[k] == "though" and said.ends_clause(k + 1) and texts[k - 1] not in CONTRASTED
        for k in range(1, len(texts))
    )


def _aside(said: Said) -> bool:
    """ "btw" or "fyi" ending a statement, with no question mark and no question word or
    auxiliary opening it: a fact added to the question above ("I'm left-handed btw"; not
    "btw, what's the boiling point of ethanol?")."""
    texts = [t for k, t in enumerate(said.texts) if said.kinds[k] != "mark"]
    if not texts or texts[-1] not in ASIDES or "?" in said.texts:
        return False
    return texts[0] not in CLAUSE_WORDS - AUXILIARIES and texts[0] not in AUXILIARIES


def _bare_request(said: Said, question: str) -> bool:
    """ "please" (or "pls") with at most one word of its own and no clause: something to do
    with the last answer ("Shorter pls", "ELI5 please"; not "regex for a UK postcode please",
    which says what it wants)."""
    return said.contents() <= 1 and not said.has_clause and bool(REQUESTED.search(question))


def _any_elided(said: Said) -> bool:
    """ "any" opening the question before a preposition, a comparative or nothing: its noun is
    the turn above's ("any under $50?", "any cheaper?"; not "any tips for a long flight?")."""
    texts = said.texts
    if texts[:1] != ["any"]:
        return False
    after = texts[1:2]
    return not after or said.ends_clause(1) or bool(set(after) & (PREPOSITIONS | COMPARATIVES))


def _own_one(said: Said) -> bool:
    """ "mine" or "ours" opening a sentence before an auxiliary or a word of habit: the asker's
    one of what the turn above asked about ("mine always sinks in the middle, why?"; not "how
    do they mine lithium")."""
    texts = said.texts
    for k in range(len(texts) - 1):
        opens = k == 0 or said.kinds[k - 1] == "mark"
        if opens and texts[k] in OWN_ONES and texts[k + 1] in AUXILIARIES | HABITS:
            return True
    return False


def _comes_in(said: Said) -> bool:
    """ "where" and a verb of :data:`PLACED_IN` before an "in" that ends its clause: where a
    thing has its place in what was explained ("where does the salt come in?"; not "where does
    the salt go in a brine", which names the whole)."""
    texts = said.texts
    if "where" not in texts:
        return False
    return any(
        texts[k] == "in" and texts[k - 1] in PLACED_IN and said.ends_clause(k + 1)
        for k in range(texts.index("where") + 2, len(texts))
    )


def _named_part(said: Said) -> bool:
    """ "the", one or two words of its own and a word of :data:`PARTS`, with no owner or
    relative clause after it and no new noun phrase before it: a part of the last answer named
    by what it is about ("the key exchange part", "the tax bit"; not "the hardest part of
    learning Rust", which says what it is a part of, nor "my essay's intro: is the thesis part
    clear?", whose part is the essay's)."""
    texts = said.texts
    for k in range(2, len(texts)):
        if texts[k] not in PARTS or said.kinds[k] != "word":
            continue
        start = next((j for j in range(k - 1, max(k - 4, -1), -1) if texts[j] == "the"), None)
        if start is None or start == k - 1:
            continue  # "the part": read by the rule's own reading of parts
        if not all(said.content(j) and said.kinds[j] == "word" for j in range(start + 1, k)):
            continue
        if said.introduced(start):
            continue  # "I'm writing a proposal. What should the budget section say?": its part
        after = texts[k + 1 : k + 2]
        if not (set(after) & (OWNERS | RELATIVES)) or said.ends_clause(k + 1):
            return True
    return False


def _lost(said: Said) -> bool:
    """ "follow" after a negation with at most a determiner or a demonstrative, or nothing, after
    it: the asker does not follow what was explained ("I don't follow, why the minus sign?",
    "not following the last step"; not "I don't follow football, who won the league?", whose
    object is a thing of its own)."""
    texts = said.texts
    for k in range(1, len(texts)):
        if texts[k] not in ("follow", "following"):
            continue
        negated = texts[k - 1] in NEGATED | {"not"} or texts[k - 2 : k] == ["not", "really"]
        after = texts[k + 1 : k + 2]
        if negated and (said.ends_clause(k + 1) or set(after) & FOLLOWED):
            return True
    return False


FOLLOWED = frozenset({"the", "that", "this", "you", "your", "why", "how", "what"})
"""After "don't follow", these say it is something said that is not followed."""


def _ones(said: Said) -> bool:
    """ "ones" standing for a noun the question does not hold (no new noun phrase before it, no
    other word of its own in -s): the things the turn above was about ("can I use frozen
    ones?", "do cheap ones break easily?"; not "I have two cats; are older ones calmer?", "every
    file except the ones matching a pattern", nor "are red ones sweeter than green apples?")."""
    texts = said.texts
    if "ones" not in texts or said.introduced(texts.index("ones")):
        return False  # "every file except the ones matching ...": its own noun before it
    return not any(
        said.content(k) and said.kinds[k] == "word" and t != "ones" and len(t) > 3 and t[-1] == "s"
        for k, t in enumerate(texts)
    )
