"""A question in the past about an occasion it does not name, read for
:mod:`arborist._standalone.rule`. Pure: no I/O.

A question in the past asks about one occasion; when nothing in it says which, the occasion is
the one the last answer was about. Two shapes say so by their grammar alone: a count of those
who took part, with nothing after its verb ("How many people died?"), and "the N" in the past
after a short reaction that names nothing ("fair enough. how long did the construction take?"),
which :func:`arborist._standalone.leans.definite_subject` reads as it would at the start.
docs/retrieval.md ("Follow-ups") gives the rule with its examples.
"""

from __future__ import annotations

from arborist._standalone.leans import definite_subject
from arborist._standalone.said import ENDS, Said
from arborist._standalone.words import CLAUSE_WORDS, INTRODUCERS, PAST

__all__ = ["unnamed_occasion"]


def unnamed_occasion(said: Said) -> bool:
    """It counts those who took part in an occasion it does not name, or asks about "the N" in
    the past after a reaction that names nothing (see the module's docstring)."""
    return _counted_in_past(said) or _after_reaction(said)


def _counted_in_past(said: Said) -> bool:
    """ "how many" or "how much", at most two words of its own, and a verb in the past (in -ed,
    or after "was"/"were"/"did") that ends the question: a count of what happened at one
    occasion, with no setting, time or object to say which ("How many people died?", "How many
    soldiers were wounded?"; not "How many people died in the 1918 flu pandemic?", nor "How
    many people have died of measles?", in the present perfect, nor "How many bones does a
    shark have?", in the present)."""
    texts = said.texts
    if texts[:2] not in (["how", "many"], ["how", "much"]):
        return False
    end = next((k for k in range(len(texts)) if said.ends_clause(k)), len(texts))
    if end < 4 or any(not said.ends_clause(k) for k in range(end, len(texts))):
        return False  # one clause, nothing after it
    own = [k for k in range(2, end - 1) if said.content(k)]
    verb = end - 1
    past = said.in_past(verb) or (texts[verb].endswith("ed") and texts[verb - 1] in PAST)
    if not past or len(own) > 2 or said.named or any(said.proper):
        return False
    return not any(texts[k] in INTRODUCERS | {"the"} for k in range(2, end))


REACTION_WORDS = 2
"""At most this many words of its own make a first sentence a reaction ("fair enough.", "makes
sense.", "interesting!"): a longer one may name what the question is about."""


def _after_reaction(said: Said) -> bool:
    """The first sentence ends with "." or "!", has no clause (no question word, no auxiliary),
    no name, literal, proper name or determiner and at most :data:`REACTION_WORDS` words of its
    own, and what follows it asks about "the N" in the past as
    :func:`~arborist._standalone.leans.definite_subject` reads it at the start, or counts in the
    past as :func:`_counted_in_past` does ("fair enough. how long did the construction take?";
    not "The Eiffel Tower. How long did the construction
    take?", which names it)."""
    texts = said.texts
    end = next((k for k in range(len(texts)) if said.kinds[k] == "mark" and texts[k] in ENDS), None)
    if end is None or texts[end] not in (".", "!") or end + 1 >= len(texts):
        return False
    first = range(end)
    if any(said.kinds[k] != "word" or said.proper[k] for k in first):
        return False
    if set(texts[:end]) & (CLAUSE_WORDS | INTRODUCERS | {"the", "this", "that"}):
        return False
    if sum(said.content(k) for k in first) > REACTION_WORDS:
        return False
    rest = Said(said.kinds[end + 1 :], texts[end + 1 :], [False, *said.proper[end + 2 :]])
    return definite_subject(rest) or _counted_in_past(rest)
