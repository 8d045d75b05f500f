"""Picks from the last answer's items, read for :mod:`arborist._standalone.rule`. Pure: no I/O.

A pick names one of the things the last answer gave without saying which thing that is: "the"
and an ordinal or a counterpart ("the first method", "the two approaches", "the original", "the
same"), or an item by its number ("step 3", "option B", "the 3rd step", "the third step"). What
the question says itself (an owner, a clause, a set it compares across) makes it no pick;
docs/retrieval.md ("Follow-ups") gives the rule with its examples.
"""

from __future__ import annotations

from arborist._standalone.replies import says_which
from arborist._standalone.said import Said
from arborist._standalone.words import (
    COUNTERPARTS,
    DISTRIBUTIVE,
    ENUMERATED,
    INTRODUCERS,
    ORDINAL_FIGURE,
    PICKS,
    PREPOSITIONS,
    RELATIVES,
)

__all__ = ["numbered", "picks"]


def picks(said: Said) -> bool:
    """ "the" before a word of :data:`PICKS` or :data:`COUNTERPARTS` that says not which,
    before the contrast, if any ("Give me the full proof, not just a sketch"): a pick from
    what the last answer gave, whatever else the question names after it ("is the first
    method thread-safe", "Compare the two approaches ...", "Now do the same for 2019"); a new
    noun phrase before it may be what it picks from or is relative to ("my list of tuples by
    the second item", "a phone call without telling the other person", "a copy of a
    dictionary ... the original"); "the same" before a preposition and "all"/"every"/"each"
    compares across a set the question names ("Is the speed of light the same in all
    reference frames?")."""
    texts = said.texts
    for i in range(min(len(texts), said.contrast) - 1):
        if texts[i] != "the":
            continue
        word, after = texts[i + 1], texts[i + 2 : i + 3]
        if said.introduced(i):
            break  # "a copy of a dictionary ... the original": what it is relative to
        if word in COUNTERPARTS:
            compared = any(t in ("and", "or", "between", "vs", "versus") for t in texts[:i])
            stop = said.phrase(i + 1).stop if said.content(i + 1) else i + 2
            after = texts[stop : stop + 1]  # "the inverse function of ln", "the same as"
            across = bool(
                set(texts[stop + 1 : stop + 2]) & DISTRIBUTIVE and set(after) & PREPOSITIONS
            )
            if texts[stop + 1 : stop + 2] == ["well"]:
                after = []  # "the original paper as well": "as well" is "too", no standard
            across = across or (word == "same" and _same_across(said, i))
            if not (compared or across or after in (["of"], ["to"], ["as"])):
                return True  # not "the same in all reference frames": across a set of its own
        elif word in PICKS and not says_which(said, i):
            return True
    return False


def _same_across(said: Said, i: int) -> bool:
    """The "the same" at ``i`` is the same across occasions or things its own clause names:
    "always" or "both" with its pair named before it (:func:`_paired`), or "every"/"each"/"all"
    or a standard's "as" after it in its clause
    ("the same random numbers every time I run it", "run the same command on every file", "the
    moon always shows the same face", "Do the same rules apply in Japan as in the US?"; not
    "Now do the same for 2019", the same as what the last answer did)."""
    texts = said.texts
    for k in range(i - 1, max(i - 8, -1), -1):  # its clause, read back a little way
        if said.ends_clause(k):
            break
        if texts[k] == "always" or (texts[k] == "both" and _paired(said, k)):
            return True
    for k in range(i + 2, min(i + 14, len(texts))):
        if said.ends_clause(k):
            return False
        if texts[k] in DISTRIBUTIVE or (texts[k] == "as" and texts[k + 1 : k + 2] != ["well"]):
            return True
    return False


PAIRING = frozenset({"and", "or", "vs", "versus", "between"})


def _paired(said: Said, k: int) -> bool:
    """The "both" at ``k`` has its pair before it: two things joined by "and", "or", "vs" or
    "between", or two clauses by "but" ("Why is the sky blue but sunsets are red? Explain both
    using the same principle."; not "Explain both using the same principle.", whose pair is the
    last answer's)."""
    if "paired" not in said.memo_at:  # found once: where the first pairing word is
        texts = said.texts
        said.memo_at["paired"] = [
            next((j for j, t in enumerate(texts) if t in PAIRING), len(texts))
        ]
    return said.but < k or said.memo_at["paired"][0] < k


def numbered(said: Said) -> bool:
    """An item of an answer's list named by its number or letter with nothing saying whose:
    a noun of :data:`ENUMERATED` before a number or a capital letter ("Go through step 2
    again", "Is option C cheaper?"); "of", "in", "from" or "on" and a word of its own after it
    says whose ("step 1 of the scientific method"). An ordinal in figures before such a noun
    numbers it the same way ("for the 3rd step"; not "the 19th century"), and so does one in
    words after "the", whatever follows but an owner, "to" or a relative clause ("break down the
    third step with an example"; not "the second step in making bread", "the second step to
    take"), with no new noun phrase before it that it may number ("sort my list of tuples by the
    second item")."""
    texts, kinds = said.texts, said.kinds
    for k in range(len(texts) - 1):
        figure = kinds[k] == "literal" and ORDINAL_FIGURE.fullmatch(texts[k])
        counted = texts[k] in COUNTED and texts[k - 1 : k] == ["the"]
        if figure or (counted and not said.introduced(k - 1)):
            if texts[k + 1] not in ENUMERATED or kinds[k + 1] != "word":
                continue
            owner = texts[k + 2 : k + 3]  # "the 2nd step of the method": whose is said
            if owner and owner[0] in ("of", "in", "from", "on") and _owner_named(said, k + 3):
                continue
            if not figure and owner and owner[0] in RELATIVES | {"to"}:
                continue  # "the second step to take", "the third option that works"
            return True
        if texts[k] not in ENUMERATED or kinds[k] != "word" or said.proper[k]:
            continue
        label = texts[k + 1]
        if not (
            (kinds[k + 1] == "literal" and label.rstrip(".").isdigit() and len(label) <= 4)
            or (kinds[k + 1] == "word" and len(label) == 1 and said.proper[k + 1])
        ):
            continue
        owner = texts[k + 2 : k + 3]
        if owner and owner[0] in ("of", "in", "from", "on") and _owner_named(said, k + 3):
            continue
        return True
    return False


COUNTED = frozenset({"second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"})
"""Ordinals in words that number an answer's items: after "the" and before a noun of
:data:`ENUMERATED` they name one ("the third step"); "first", "last" and "next" also order
things in the world, in time, and are read by :func:`picks`."""


def _owner_named(said: Said, k: int) -> bool:
    """A word of its own, a name or a new noun phrase opens at ``k`` (after "the", too)."""
    if said.texts[k : k + 1] == ["the"]:
        k += 1
    return said.content(k) or (said.texts[k : k + 1] != [] and said.texts[k] in INTRODUCERS)
