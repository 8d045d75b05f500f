"""Where a demonstrative in a question points, read for :mod:`arborist._standalone.rule`.
Pure: no I/O.

Whether "that" is a determiner or a pronoun rather than a conjunction ("Explain that formula",
"rephrase that more formally"), and whether a demonstrative's own clause or a name in the
question says what it is ("That thing where your ears pop", "this timestamp 1700000000"); the
rule that reads these, and the demonstrative that points back, is in
:mod:`arborist._standalone.rule`, and docs/retrieval.md ("Follow-ups") gives it in full.
"""

from __future__ import annotations

import bisect

from arborist._standalone.said import Said
from arborist._standalone.words import (
    ADVERBIAL,
    ASKER,
    AUXILIARIES,
    CONDITIONS,
    INTRODUCERS,
    OWNED,
    PREPOSITIONS,
    PRONOUNS,
)

__all__ = [
    "BELIEVED",
    "COORDINATORS",
    "adverbs_after",
    "bare_plural",
    "defined_by_clause",
    "determiner",
    "named_in",
    "object_of_subject",
]


def named_in(said: Said) -> bool:
    """The question holds a name or a literal outside a condition, which a demonstrative may be
    ("this timestamp 1700000000", "This CSV file uses semicolons; how do I tell csv.reader?";
    not "what happens to those numbers if the rate goes up to 7 percent": the number is the
    condition's, from "if" to the clause's end, and says not what the numbers are)."""
    if "named_in" not in said.memo:  # found once
        conditioned, named = False, False
        for k, kind in enumerate(said.kinds):
            if kind == "mark":
                conditioned = False
            elif said.texts[k] in CONDITIONS:
                conditioned = True
            elif kind in ("name", "literal") and not conditioned:
                named = True
                break
        said.memo["named_in"] = named
    return said.memo["named_in"]


def adverbs_after(said: Said, i: int) -> bool:
    """After the "that" at ``i``, up to the end of its clause, only adverbs: words of
    :data:`ADVERBIAL` or in -ly ("Could you rephrase that more formally?", "say that again
    slowly"). A conjunction opens a clause, which has a subject and a verb: "that" is the
    object ("so that only admins can log in" is a clause)."""
    texts, k = said.texts, i + 1
    while not said.ends_clause(k) and k < i + 4:
        if said.kinds[k] != "word" or not (texts[k] in ADVERBIAL or texts[k].endswith("ly")):
            return False
        k += 1
    return k > i + 1 and said.ends_clause(k)


def defined_by_clause(said: Said, i: int) -> bool:
    """The demonstrative at ``i`` is a determiner before one noun and "where" or "when", which
    opens a clause with a subject of its own, a new noun phrase: what it points at is what
    that clause says ("That thing where your ears pop on a plane, what causes it?", "this
    feeling when your foot falls asleep"; not "that thing where you ..." with no new noun
    phrase: "that step where you reset HEAD"). A question for its name, "called" between the
    noun and "when" or "where", asks what the clause describes, whatever its subject ("What's
    that thing called when you feel you've lived a moment before?")."""
    texts = said.texts
    if not said.content(i + 1):
        return False
    if texts[i + 2 : i + 4] in (["called", "when"], ["called", "where"]):
        return True
    if texts[i + 2 : i + 3] not in (["where"], ["when"]):
        return False
    return said.new_within(i + 3, min(i + 6, len(texts)))


COORDINATORS = frozenset({"but", "and", "or"})
"""Right after "that", these make it a pronoun, the object ended ("redo that but in Python 3"):
a conjunction is followed by its clause."""
BELIEVED = frozenset(
    {"think", "guess", "believe", "suspect", "sure", "know", "say", "feel", "doubt"}
)
"""Before "that" and an auxiliary, these make "that" the subject, not a conjunction: a clause
after a conjunction opens with its own subject ("I don't think that's correct"; "I think that
Python is slow" opens a clause)."""


def determiner(said: Said, i: int) -> bool:
    """The "that" at ``i`` is a determiner, not a conjunction: right after a request's verb
    ("Explain that ...", "Can you explain that ..."), before a noun phrase with no verb in it
    that ends its clause or a preposition follows ("Can you explain that formula step by
    step?", "Could you rewrite that paragraph more formally?"; not "Explain that water expands
    when frozen", a clause); or after the verb of a condition's "I" or "we" that takes no
    clause ("If I ran that query on a big table, ..."; not "if I read that people in Japan
    ...")."""
    texts = said.texts
    verb = i - 1
    asked = verb >= 2 and texts[verb - 1] in ASKER and texts[verb - 2] in AUXILIARIES
    supposed = verb >= 2 and texts[verb - 1] in ("i", "we") and texts[verb - 2] in CONDITIONS
    if supposed and (texts[verb] in BELIEVED | CLAUSAL or said.kinds[verb] != "word"):
        return False  # "if I read that people in Japan live longer": a clause follows
    if not (verb == 0 or asked or supposed):
        return False
    span = said.phrase(i + 1)
    if not span or any(texts[k] in AUXILIARIES or _verb_like(texts[k]) for k in span):
        return False  # "that water expands", "that prices rose": a clause
    if said.ends_clause(span.stop):
        return True
    after = texts[span.stop]  # an adverb, not a verb: "that paragraph more formally"
    return after in PREPOSITIONS | ADVERBIAL or after.endswith("ly")


CLAUSAL = frozenset(
    {"thought", "knew", "said", "heard", "read", "found", "felt", "noticed", "learned", "learnt"}
    | {"saw", "see", "realized", "realised", "told", "hear", "find", "notice", "learn", "mean"}
    | {"meant", "assume", "assumed", "claim", "claimed", "show", "showed", "prove", "proved"}
)
"""Verbs that take a clause after "that" ("if I read that ...", "when we found that ..."): after
a condition's "I", "that" after them is a conjunction, not a determiner."""


def _verb_like(word: str) -> bool:
    """``word`` may be a verb in the past or the present's third person: in -ed, or in -s but
    not -ss, -is, -us ("expands", "converged"; not "process", "analysis", "status")."""
    return word.endswith("ed") or (word.endswith("s") and not word.endswith(("ss", "is", "us")))


def object_of_subject(said: Said, i: int) -> bool:
    """The pronoun or demonstrative at ``i`` is the object of a verb whose subject is the
    question's first new noun phrase, right after an auxiliary: a noun phrase of one to three
    words, its verb, then the pronoun. An object cannot stand for its own clause's subject, so
    it is something said before ("How would a Bayesian approach handle this differently?", "Can
    a dog eat it?"; not "Can a dog eat chocolate, and is it toxic?", "a library for that")."""
    texts, noun = said.texts, said.first_new
    opener = next((j for j in range(noun, max(noun - 4, -1), -1) if texts[j] in INTRODUCERS), None)
    if opener is None or opener == 0 or texts[opener - 1] not in AUXILIARIES:
        return False
    between = range(noun, i)
    if not 2 <= len(between) <= 4:
        return False  # a noun phrase of one to three words, then its verb
    return all(
        said.kinds[k] == "word" and said.content(k) and texts[k] not in PREPOSITIONS
        for k in between
    )


def bare_plural(said: Said, i: int) -> bool:
    """A plural noun with no determiner comes before the "their" at ``i`` in its sentence: a kind
    of thing of the question's own, which "their" may stand for ("loop over files with spaces
    in their names", "sort dicts by their values"; not "the files", "these files", "more
    details": what those are is said before)."""
    if "bare_plural" not in said.memo_at:
        said.memo_at["bare_plural"] = [k for k in range(len(said.texts)) if _plural_kind(said, k)]
    found = said.memo_at["bare_plural"]
    k = bisect.bisect_left(found, i) - 1  # the last one before "their"
    return k >= 0 and found[k] >= said.sentence(i).start


def _plural_kind(said: Said, k: int) -> bool:
    """The word at ``k`` is a plural noun with no determiner, read by :func:`bare_plural`."""
    word = said.texts[k]
    if not (said.content(k) and said.kinds[k] == "word" and not said.proper[k]):
        return False
    if not word.endswith("s") or word.endswith(("ss", "us", "is")) or word in OWNED:
        return False
    before = said.texts[k - 1] if k else ""
    return before not in DETERMINED and before not in PRONOUNS


DETERMINED = frozenset({"the", "these", "those", "more", "other", "such", "both", "all"})
"""Before a plural noun, these say it is one the last answer gave or a set said before ("the
files", "more details"): not a kind of the question's own that "their" could stand for."""
