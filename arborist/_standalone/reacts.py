"""Reactions to the last answer, read for :mod:`arborist._standalone.rule`. Pure: no I/O.

A reaction judges or redoes what the last answer gave without naming it: a request whose verb
wants an object and has none ("rewrite without recursion", "explain like I'm 5"), one that
makes "the N" of the answer more or less something ("Can you make the tone less formal?"), a
verdict on it ("too long", "not quite what I wanted", "nope"), a report that a thing it gave
is broken ("the link is dead"), or a question after something like what it gave ("anything
similar"). Each rule reads a :class:`~arborist._standalone.said.Said`; docs/retrieval.md
("Follow-ups") gives them with their examples.
"""

from __future__ import annotations

from arborist._standalone.said import Said
from arborist._standalone.words import (
    ANSWERED,
    AUXILIARIES,
    BE,
    COMPARATIVES,
    DEMONSTRATIVES,
    DESTINATIONS,
    EDITS,
    INTRODUCERS,
    PRONOUNS,
    RELATIVE,
    SOMEONE,
    WH,
    wordset,
)

__all__ = ["names_replaced", "reacts"]


def reacts(said: Said) -> bool:
    """It judges or redoes the last answer without naming it (see the module's docstring), or
    supposes it otherwise: "what if" opening it, whatever it names ("What if the sample size is
    only 10?")."""
    if _bare_request(said) or _made_more(said) or _verdict(said) or _broken(said):
        return True
    if said.lowered.startswith("what if "):
        return True  # "What if the sample size is only 10?": the last answer, supposed otherwise
    if said.lowered.startswith("why not ") and said.texts[2] not in SUBJECTS:
        return True  # "why not just use a mutex?": a course set against the one the answer took
    return _counted_more(said) or _difference(said) or _point_about(said) or _like_said(said)


SUBJECTS = frozenset({"i", "you", "we", "they", "he", "she", "it", "everyone", "people"})
"""After "why not", these open a clause of its own, a subject ("Why not everyone can see it"):
with none, "why not" and a verb or a noun phrase is a suggestion with no subject, set against
what was done or proposed ("Why not just use a mutex?", "Why not the first option?")."""


def _like_said(said: Said) -> bool:
    """ "anything", "something", ... and a word of :data:`RELATIVE` with nothing it is relative
    to, whatever else the question names: no "to", "from", "as" or "than" after it and no colon
    that shows it ("Did the Romans have anything similar?", "Is there something different I
    could try?"; not "anything similar to Docker", "something better than Excel", "And now for
    something different: what causes tides?")."""
    texts = said.texts
    return any(
        texts[k] in SOMEONE
        and texts[k + 1] in RELATIVE
        and not (said.completed[k + 1] or said.shown[k + 1])
        and texts[k + 2 : k + 3] not in (["to"], ["from"], ["as"], ["than"])
        for k in range(len(texts) - 1)
    )


def _counted_more(said: Said) -> bool:
    """A number, then "more" not before "than": more of what the last answer gave, counted
    ("give me 5 more like these", "3 more examples"; not "what is 5 more than 3?")."""
    texts = said.texts
    return any(
        said.kinds[k] == "literal"
        and texts[k][:1].isdigit()
        and texts[k + 1] == "more"
        and "than" not in texts[k + 2 :]
        for k in range(len(texts) - 1)
    )


def _difference(said: Said) -> bool:
    """ "the difference" with nothing saying between what: no "between" or "of" after it, and
    no pair joined by "and", "or" or "vs" in the question, whatever else it names ("Is the
    difference still significant at 0.01?": the difference the last answer found)."""
    texts = said.texts
    if said.plain & wordset("between and or vs versus of"):
        return False
    return any(texts[k : k + 2] == ["the", "difference"] for k in range(len(texts) - 1))


POINTED = wordset("point points remark comment")
"""After "the", before "about" or "you", a point the last answer made ("the point about
inflation", "the point you made"; not "the point of unit tests")."""


def _point_about(said: Said) -> bool:
    """ "the" and a word of :data:`POINTED` before "about" or "you": a point the last answer
    made ("Could you go back to the point about inflation?")."""
    texts = said.texts
    return any(
        texts[k] == "the" and texts[k + 1] in POINTED and texts[k + 2] in ("about", "you")
        for k in range(len(texts) - 2)
    )


EXPLAINS = wordset("explain clarify describe justify illustrate")
"""Verbs of explaining: like those of :data:`EDITS`, they want an object, and with none the
object is the last answer ("explain like I'm 5", "explain in simpler terms")."""
MANNERS = DESTINATIONS | wordset("like again differently simply more less better step")
"""Right after a request's verb, these say how, not what: the verb has no object of its own."""


def _bare_request(said: Said) -> bool:
    """A request opening with a verb of :data:`EDITS` or :data:`EXPLAINS` ("Can you ..." or
    none before it), then how and no object: a word of :data:`MANNERS` or the end of its clause,
    with no question word, no "the" or demonstrative and no colon after it ("rewrite without
    recursion", "explain like im 5", "translate into French"; not "explain in detail how
    vaccines work", "describe in detail the process of photosynthesis", "translate a sentence
    into French", where the object follows the verb)."""
    texts = said.texts
    start = 0
    if texts[:1] and texts[0] in AUXILIARIES:
        if texts[1:2] != ["you"]:
            return False
        start = 2
    if texts[start : start + 1] == [] or texts[start] not in EDITS | EXPLAINS:
        return False
    if said.kinds[start] != "word" or said.proper[start]:
        return False
    after = texts[start + 1 : start + 2]
    if not (said.ends_clause(start + 1) or set(after) & MANNERS):
        return False
    rest = range(start + 1, len(texts))
    return not any(
        texts[k] in WH | {"the", "this", "that", "these", "those"}
        or (said.kinds[k] == "mark" and texts[k] == ":")
        for k in rest
    )


def _made_more(said: Said) -> bool:
    """ "make" after "can you" (or first), then "the N" of one or two words, then "more",
    "less" or a comparative of :data:`COMPARATIVES`: the last answer's N, changed ("Can you
    make the tone less formal?", "make the intro shorter"; not "How do I make the font bigger
    in VS Code?", where the asker's own thing is meant)."""
    texts = said.texts
    start = 2 if texts[:1] and texts[0] in AUXILIARIES and texts[1:2] == ["you"] else 0
    if texts[start : start + 2] != ["make", "the"]:
        return False
    for k in range(start + 3, min(start + 5, len(texts))):
        if said.kinds[k] != "word" or said.proper[k]:
            return False
        if texts[k] in ("more", "less") or texts[k] in COMPARATIVES:
            return k > start + 2
    return False


ANSWERS = wordset("no nope nah yes yep yeah yea")
"""Alone, these answer the last answer's question or reject it ("nope")."""
EXPECTED = wordset("wanted meant asked expected needed looking")
"""After "not (quite) what I", what the asker wanted of the last answer ("not quite what I
wanted")."""
JUDGED = wordset("long short complicated complex vague technical formal wordy verbose basic")
"""After "too", a verdict on the last answer's text ("too long", "way too technical")."""


def _verdict(said: Said) -> bool:
    """A verdict on the last answer with no clause of its own: a bare "nope" or "yes", "too"
    and a word of :data:`JUDGED` ending it ("too long", "way too technical"), or "not", at most
    "quite"/"exactly"/"really", "what", "I" or "we" and a verb of :data:`EXPECTED` ("not quite
    what I wanted"; not "What do you do when you're not sure what you want?")."""
    texts = [t for k, t in enumerate(said.texts) if said.kinds[k] != "mark"]
    if texts and all(t in ANSWERS for t in texts):
        return True
    if not said.has_clause and len(texts) <= 3 and texts[-1:] != [] and texts[-1] in JUDGED:
        return texts[-2:-1] == ["too"]
    for k in range(len(texts) - 3):
        if texts[k] != "not":
            continue
        j = k + 2 if texts[k + 1] in ("quite", "exactly", "really") else k + 1
        if texts[j : j + 2] in (["what", "i"], ["what", "we"]) and texts[j + 2 : j + 3] != []:
            return texts[j + 2] in EXPECTED and (k == 0 or texts[k - 1] in ("s", "is", "eh"))
    return False


BROKEN = wordset("dead broken wrong incorrect outdated invalid down")
"""After "the N is", a verdict that a thing the last answer gave fails ("the link is dead")."""
GIVEN = ANSWERED | wordset("link links url urls source sources reference references citation")
"""What an answer gives that can be found broken."""


def _broken(said: Said) -> bool:
    """A statement opening with "the" and a thing an answer gives (:data:`GIVEN`), "is" or
    "are" and a word of :data:`BROKEN`: a report that what the last answer gave fails ("the
    link is dead", "The formula is wrong"; not "the printer is broken": no answer gives one)."""
    texts = said.texts
    if texts[:1] != ["the"] or texts[1:2] == [] or texts[1] not in GIVEN:
        return False
    return (
        texts[2:3] != [] and texts[2] in BE | {"are"} and texts[3:4] != [] and (texts[3] in BROKEN)
    )


def names_replaced(said: Said, i: int) -> bool:
    """Before the "instead" at ``i``, a clause ended by a mark names what it replaces: a new noun
    phrase (a name, a literal, "a", "my", ...) or two words of its own, and no pronoun or
    demonstrative ("df.groupby(...).sum() gives me a Series, how do i get a DataFrame instead",
    "filter-branch is slow, what should I use instead"; not "Use a dict instead", "What if I
    use butter instead?", "That's too slow, what should I use instead?")."""
    texts = said.texts
    mark = max((j for j in range(i) if said.kinds[j] == "mark"), default=-1)
    before = range(mark)
    if any(texts[j] in PRONOUNS | DEMONSTRATIVES for j in before):
        return False
    opened = any(
        said.kinds[j] in ("name", "literal") or (texts[j] in INTRODUCERS and said.content(j + 1))
        for j in before
    )
    return opened or sum(said.content(j) for j in before) >= 2
