"""The empty pronouns of a question, read for :mod:`arborist._standalone.rule`. Pure: no I/O.

An "it" that stands for nothing said before is no back-reference: it stands for a clause after
it ("Is it possible to ...", "What does it mean when ..."), for the weather or the time ("It's
been snowing for days", "when it snows") or for a program's output ("it says 'divergent
branches'"); so is a "they" that is the people of a place ("what language do they speak in
brazil"). docs/retrieval.md ("Follow-ups") gives the rule in full.
"""

from __future__ import annotations

from arborist._standalone.said import Said
from arborist._standalone.words import (
    AMBIENT,
    AUXILIARIES,
    BE,
    EXPLETIVE_VERBS,
    SAYING,
    SUBORDINATORS,
    TIMES,
    WEATHER,
)

__all__ = ["SPOKEN", "expletive"]


def expletive(said: Said, i: int) -> bool:
    """The pronoun at ``i`` stands for nothing said: an empty "it" (:func:`_empty_it`) or the
    people of a place (:func:`_people_of`)."""
    if said.texts[i] == "they":
        return _people_of(said, i)
    return said.texts[i] == "it" and _empty_it(said, i)


SPOKEN = frozenset({"speak", "say", "call", "spell", "pronounce", "write"})
"""After "they", verbs of a language's use: with a place after them, "they" is its people."""


def _people_of(said: Said, i: int) -> bool:
    """The "they" at ``i`` is the subject after an auxiliary, before a verb of :data:`SPOKEN`,
    and "in" and a word with no determiner follows in its clause: the people of a place, no one
    said before ("what language do they speak in brazil", "How do they say thank you in
    Japan?"; not "What language do they speak in the film?", "What do they speak?")."""
    texts = said.texts
    if i == 0 or texts[i - 1] not in AUXILIARIES or texts[i + 1 : i + 2] == []:
        return False
    if texts[i + 1] not in SPOKEN:
        return False
    for k in range(i + 2, min(i + 10, len(texts) - 1)):
        if said.ends_clause(k):
            return False
        if texts[k] == "in" and said.content(k + 1) and said.kinds[k + 1] == "word":
            return said.ends_clause(k + 2) or said.proper[k + 1]
    return False


MADE = frozenset({"make", "makes", "made", "making"})
"""Before "it so" and a clause, these make "it" stand for that clause ("make it so that")."""
CLAUSE_OPENERS = frozenset({"that", "i", "we", "you", "my", "our", "the", "every", "each"})
"""After "make it so", these open the clause "it" stands for ("make it so the tests fail")."""


def _empty_it(said: Said, i: int) -> bool:
    """The ``it`` at ``i`` stands for a clause after it ("Is it possible to ...", "Is it worth
    salting ...", "make it so the tests fail fast"), or for the weather or the time
    (:func:`_ambient`, "when it snows")."""
    before, after = said.texts[i - 1 : i], said.texts[i + 1 : i + 2]
    made = set(before) & MADE and after == ["so"] and said.texts[i + 2 : i + 3] != []
    made = made and said.texts[i + 2] in CLAUSE_OPENERS  # not "make it so small"
    claimed = set(before) & BE and (_claim_after(said, i) or _forms_after(said, i))
    if made or claimed or (set(before + after) & BE and _ambient(said, i)) or _impersonal(said, i):
        return True  # "make it so that ...", "is it true you can ...", "It's been raining all week"
    if set(after) & SAYING:  # "it says 'divergent branches'": what it says is there
        return said.new_within(i + 2, min(i + 9, len(said.texts)))
    if not (set(before) & BE or set(after) & (BE | EXPLETIVE_VERBS)):
        return False
    for k in range(i + 1, min(i + 8, len(said.texts))):
        if said.kinds[k] == "mark" or _agent(said, k):
            return False  # "Is it covered by insurance if ...": "it" is done to, a thing
        if said.texts[k] in SUBORDINATORS:
            return True
    return False


CLAIMANTS = frozenset({"i", "you", "we", "they", "people", "everyone", "my", "our"})
"""After "is it" and one word, these open the clause "it" stands for, its "that" left out."""


def _claim_after(said: Said, i: int) -> bool:
    """After "is it", one word and then a subject of :data:`CLAIMANTS` with a verb after it: a
    clause whose "that" is left out, which "it" stands for ("is it true you can see ...", "is it
    normal my dog sheds so much"; not "is it true?", "is it you?")."""
    texts = said.texts
    if not said.content(i + 1) or texts[i + 2 : i + 3] == [] or texts[i + 2] not in CLAIMANTS:
        return False
    return said.kinds[i + 3 : i + 4] == ["word"]


def _forms_after(said: Said, i: int) -> bool:
    """After "is it", a quoted form, "or" and another: the choice between the two is what "it"
    stands for ("is it 'fewer' or 'less'"; not "is it a bug or a feature")."""
    kinds, texts = said.kinds, said.texts
    quoted = kinds[i + 1 : i + 2] == ["literal"] and kinds[i + 3 : i + 4] == ["literal"]
    return quoted and texts[i + 2] == "or"


def _agent(said: Said, k: int) -> bool:
    """A verb in -ed at ``k`` with "by" after it: a passive with its agent, whose subject is a
    thing ("Is it still covered by insurance if I wait?"; not "Is it recommended to ...")."""
    return said.texts[k].endswith("ed") and said.texts[k + 1 : k + 2] == ["by"]


def _impersonal(said: Said, i: int) -> bool:
    """The "it" at ``i`` is the weather's, right before a verb of :data:`WEATHER` ("when it
    snows"), or next to "is" and "worth" before an -ing clause, which it stands for ("Is it
    worth salting a new driveway?"; not "Is it worth it?", "Is it worth reading?", where "it"
    is what is read)."""
    texts = said.texts
    if set(texts[i + 1 : i + 2]) & WEATHER:
        return True
    worth = next((k for k in range(i + 1, i + 3) if texts[k : k + 1] == ["worth"]), None)
    if worth is None or not set(texts[i - 1 : i] + texts[i + 1 : i + 2]) & BE:
        return False
    ing = texts[worth + 1 : worth + 2] != [] and texts[worth + 1].endswith("ing")
    return ing and not said.ends_clause(worth + 2)  # "Is it worth reading?": "it" is read


def _ambient(said: Said, i: int) -> bool:
    """The "it" at ``i``, next to "is" or "was", is the weather's or the time's: a word of
    :data:`AMBIENT` within three words ("It's been snowing for days"), or "been" and a length
    of time ("It's been two weeks since my flu shot")."""
    texts = said.texts
    if set(texts[i + 1 : i + 4]) & AMBIENT:
        return True
    return texts[i + 2 : i + 3] == ["been"] and any(
        t in TIMES or t.removesuffix("s") in TIMES for t in texts[i + 3 : i + 6]
    )
