"""Turns of a conversation that the question alone shows, read for
:mod:`arborist._standalone.marks`. Pure: no I/O.

Each is a sentence that only answers or reacts to the turn above, for want of a subject or of
what it is compared to: a verdict on the last answer ("too formal."), a fact given "if it
matters", a requirement with its subject left out ("needs to fit in a backpack"), a report of
what was tried ("already tried rebooting, didn't help"), "a/the ... one" with no noun of the
question's own, a day of something under way ("day 3 and ..."), "something" and a comparative
with nothing compared ("anything quieter?"), "is it different if ...", "how much is the N"
ending the question, an example "from" a field, "how long does the N take", and "how many"
with no noun before "should I". docs/retrieval.md ("Follow-ups") gives each with its examples and the
look-alike it leaves alone.
"""

from __future__ import annotations

from arborist._standalone.said import Said
from arborist._standalone.words import (
    AUXILIARIES,
    BE,
    CLAUSE_WORDS,
    COMPARATIVES,
    FAILING,
    NEGATED,
    PREPOSITIONS,
    SOMEONE,
)

__all__ = ["turned"]


def turned(said: Said) -> bool:
    """``said`` is one of the turns of this module."""
    return (
        _verdict(said)
        or _if_it_matters(said)
        or _required(said)
        or _tried(said)
        or _one_elided(said)
        or _day_of(said)
        or _something_more(said)
        or _different_if(said)
        or _priced(said)
        or _example_from(said)
        or _takes(said)
        or _count_elided(said)
    )


def _opens(said: Said, k: int) -> bool:
    """``k`` opens a sentence or a clause after a mark."""
    return k == 0 or said.kinds[k - 1] == "mark"


AMOUNTS = frozenset({"many", "much", "few", "little", "late", "early", "far"})
"""After "too", these measure a thing of the question's own ("too many open files")."""
DEGREES = frozenset(
    {"way", "bit", "little", "much", "far", "a", "kinda", "still", "just", "slightly"}
)
"""Before "too", these grade it ("a bit too long", "way too formal")."""


def _verdict(said: Said) -> bool:
    """A sentence of "too" (graded or not) and one word of its own, and nothing after it in
    its sentence: a verdict on the last answer ("too formal.", "a bit too long, shorten it";
    not "too many open files", "too late to apply for a visa?", which say of what)."""
    texts = said.texts
    for k in range(len(texts) - 1):
        if texts[k] != "too" or texts[k + 1] in AMOUNTS or not said.content(k + 1):
            continue
        start = k
        while start and texts[start - 1] in DEGREES:
            start -= 1
        if _opens(said, start) and said.ends_clause(k + 2) and texts[k + 2 : k + 3] != [":"]:
            return True
    return False


MATTERING = frozenset({"matters", "helps", "counts"})
"""After "if that" or "if it" ending a statement, these offer a fact for the question above."""


def _if_it_matters(said: Said) -> bool:
    """A statement (no question word or auxiliary opening it) ending "if that matters", "if it
    helps": a fact the asker adds to the question above ("I'm on a Mac if it matters"; not "does
    it matter if the pan is cold", which asks)."""
    texts = said.texts
    words = [t for k, t in enumerate(texts) if said.kinds[k] != "mark"]
    if (
        len(words) < 4
        or words[-1] not in MATTERING
        or words[-3:-1] not in (["if", "that"], ["if", "it"])
    ):
        return False
    return words[0] not in CLAUSE_WORDS and words[0] not in AUXILIARIES


REQUIRING = frozenset({"needs", "has", "must", "should", "gotta"})
"""Opening the question before "to" or "be", these put a requirement on the thing asked about
above, its subject left out ("needs to be quiet")."""


def _required(said: Said) -> bool:
    """The question opens with a verb of :data:`REQUIRING` and then "to" or "be": a requirement
    whose subject, left out, is what the turn above asked about ("needs to run on battery",
    "must be under 2 kg"; not "should I be worried", whose subject is said, nor "needs vs wants
    in a budget")."""
    texts = said.texts
    if texts[:1] == [] or texts[0] not in REQUIRING or texts[1:2] not in (["to"], ["be"]):
        return False
    if set(texts[2:3]) & {"or", "vs", "versus", "and"}:
        return False  # "should be or should have been": forms set side by side
    return texts[0] != "has" or texts[1] == "to"  # not "has be"


TRIED = frozenset({"tried", "did", "done", "checked", "followed", "restarted"})
"""After "already" opening a sentence, or opening it alone, what the asker did on the advice
above ("already tried that")."""


def _tried(said: Said) -> bool:
    """A sentence or clause that reports what was tried with its subject left out: opening with
    "already" and a verb of :data:`TRIED`, with "tried" not before "and" or "to", or with a
    negated auxiliary before a verb of :data:`FAILING` ("already tried vinegar, didn't work",
    "tried restarting it"; not "tried and tested recipes", "tried to log in but ...", "tried
    everything for hiccups", whose goal is its own, "already paid my taxes, ...", nor "why didn't
    the build work", whose subject is said)."""
    texts = said.texts
    for k in range(len(texts) - 1):
        if not _opens(said, k):
            continue
        after = texts[k + 1]
        if texts[k] == "already" and after in TRIED:
            return True
        if texts[k] == "tried" and after not in ("and", "to") and not _goal_said(said, k):
            return True
        if texts[k] in NEGATED - {"can", "will"} and after in FAILING:
            return True
    return False


def _goal_said(said: Said, k: int) -> bool:
    """ "for" follows the "tried" at ``k`` in its clause: what it was tried for is said
    ("tried everything for hiccups, what else is there")."""
    end = next((j for j in range(k, len(said.texts)) if said.ends_clause(j)), len(said.texts))
    return "for" in said.texts[k:end]


def _one_elided(said: Said) -> bool:
    """ "a", "an" or "the", one or two words of its own and "one" not before "of" or "from", with
    no new noun phrase before it and at most three words of its own in the question: the one of
    what the turn above asked about ("a big one", "is a used one ok?"; not "I want a laptop, is a
    used one ok?", which says one of what, nor "the last one of its kind")."""
    texts = said.texts
    if "one" not in texts or said.contents() > 3:
        return False
    k = texts.index("one")
    if texts[k + 1 : k + 2] in (["of"], ["from"]) or said.introduced(k - 1):
        return False  # "the last one of its kind": one of what it says
    start = next((j for j in (k - 2, k - 3) if j >= 0 and texts[j] in ("a", "an", "the")), None)
    if start is None:
        return False
    return all(said.content(j) and said.kinds[j] == "word" for j in range(start + 1, k))


SPANS = frozenset({"day", "week", "month", "hour", "night"})
"""Opening a sentence before a number, these count time into something under way."""


def _day_of(said: Said) -> bool:
    """A sentence opening with a word of :data:`SPANS` and a number, then "and", "now", "in" or
    the end of its clause: that far into what the turn above set going ("day 3 and the dough
    smells sour", "week 2, no sprouts yet"; not "day 3 of a juice cleanse, is that normal",
    which says of what, nor "day 1 patch notes for a game")."""
    texts = said.texts
    for k in range(len(texts) - 1):
        if texts[k] in SPANS and _opens(said, k) and said.kinds[k + 1] == "literal":
            joined = said.ends_clause(k + 2) or texts[k + 2] in ("and", "now", "in")
            return joined and texts[k + 1].isdigit()
    return False


def _something_more(said: Said) -> bool:
    """ "something", "anything" opening a sentence before a comparative that ends its clause:
    something more than what the last answer gave ("anything quieter?", "something cheaper, I'm
    a student"; not "something lighter than aluminium?", which says what it is compared to)."""
    texts = said.texts
    for k in range(len(texts) - 1):
        if texts[k] not in SOMEONE or not _opens(said, k) or not said.ends_clause(k + 2):
            continue
        word = texts[k + 1]
        if word in COMPARATIVES or (word.endswith(("er", "ier")) and len(word) > 5):
            return word not in PREPOSITIONS | UNCOMPARED
    return False


UNCOMPARED = frozenset({"other", "either", "whether", "together", "rather", "never", "ever"})
"""Words in -er that compare nothing."""


def _different_if(said: Said) -> bool:
    """ "it" after "is" or "would it be", then "different" or "any different", before "if",
    "when", "for" or "with": the case asked above set against a new one ("is it different if
    the flat is furnished?"; not "is it different from a latte", which says from what)."""
    texts = said.texts
    for k in range(1, len(texts) - 2):
        if texts[k] != "it" or not (texts[k - 1] in BE or texts[k + 1 : k + 2] == ["be"]):
            continue
        j = k + 2 if texts[k + 1] == "be" else k + 1
        j += texts[j : j + 1] == ["any"]
        if texts[j : j + 1] == ["different"] and texts[j + 1 : j + 2] != []:
            return texts[j + 1] in ("if", "when", "for", "with")
    return False


def _priced(said: Said) -> bool:
    """ "how much" and a form of "be" before "the" and one word ending the question: the price of
    a thing of what the turn above asked about ("how much are the tickets"; not "how much is the
    ticket to Lisbon", nor "how much are the new AirPods")."""
    texts = said.texts
    for k in range(len(texts) - 4):
        if texts[k : k + 2] != ["how", "much"] or texts[k + 2] not in BE | {"are", "were"}:
            continue
        if texts[k + 3] == "the" and said.content(k + 4) and said.ends_clause(k + 5):
            return said.kinds[k + 4] == "word" and not said.proper[k + 4]
    return False


DOMAINS = frozenset({"from", "in"})
"""After "example", these give the field it is taken from, not what it is an example of."""


def _example_from(said: Said) -> bool:
    """ "example" or "examples" before "from" or "in", with no "of" in the question: an example
    of what the turn above asked about, taken from a field ("give me an example from sport",
    "examples in everyday life?"; not "an example of irony in a film", which says of what)."""
    texts = said.texts
    if "of" in texts:
        return False
    return any(
        texts[k] in ("example", "examples") and texts[k + 1] in DOMAINS
        for k in range(len(texts) - 1)
    )


LASTING = frozenset({"long", "many", "much"})
"""After "how", these ask how long something lasts ("how long", "how many days")."""


def _takes(said: Said) -> bool:
    """ "how long" (or "how many N", "how much time") and an auxiliary before "the" and one
    word, then adverbs at most and "take" ending the question: how long the act the turn above
    asked about takes ("how long does the ferry take", "how many days does the trek usually
    take"; not "how long does the moon take to orbit the earth", which says what it takes
    to do, nor "how long does the average marathon take", a kind of two words)."""
    texts = said.texts
    if texts[:1] != ["how"] or texts[1:2] == [] or texts[1] not in LASTING:
        return False
    k = next((j for j in range(2, min(5, len(texts))) if texts[j] in AUXILIARIES), None)
    if k is None or texts[k + 1 : k + 2] != ["the"] or not said.content(k + 2):
        return False
    end = k + 3
    while (
        end < len(texts)
        and texts[end] != "take"
        and said.content(end)
        and texts[end].endswith("ly")
    ):
        end += 1  # "usually", "normally"
    return texts[end : end + 1] == ["take"] and said.ends_clause(end + 1)


COUNTERS = frozenset({"do", "does", "did", "should", "can", "could", "will", "would", "must"})
"""After "how many", these and a subject leave out the noun counted ("how many should I ...")."""


def _count_elided(said: Said) -> bool:
    """ "how many" right before an auxiliary of :data:`COUNTERS` and "I" or "we": the things
    counted are the turn above's ("how many should I take", "how many do we need?"; not "how
    many eggs should I use", "how many are there in a dozen", nor "how many do you need to start
    a company", whose generic "you" asks of the world)."""
    texts = said.texts
    return any(
        texts[k : k + 2] == ["how", "many"]
        and texts[k + 2] in COUNTERS
        and texts[k + 3] in ("i", "we")
        for k in range(len(texts) - 3)
    )
