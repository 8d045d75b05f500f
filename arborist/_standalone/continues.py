"""Whether a question continues the one above it by how it opens, read for
:mod:`arborist._standalone.rule`. Pure: no I/O.

A question continues another when it opens with a continuation ("And for sets?", "What about
dumps?"), is "go on" or a verb after "now" ("Now add error handling"), does the last output
again, changed ("now in French", "try again but with a log scale"), is only a modifier or a
condition with no main clause ("with a custom separator", "even when the list is empty?"), or
puts a statement back to the last answer to confirm it ("So the dosage is the same for
adults?"). Each rule reads a :class:`~arborist._standalone.said.Said`; docs/retrieval.md
("Follow-ups") gives them with their examples.
"""

from __future__ import annotations

from arborist._standalone.said import Said
from arborist._standalone.words import (
    AUXILIARIES,
    CLAUSE_WORDS,
    CONDITIONS,
    CONTINUATIONS,
    EVEN_BEFORE,
    PREPOSITIONS,
    PROCEED,
    SUBJECTS,
    WH,
)

__all__ = ["conditions", "confirms", "continues", "redone", "subordinate_only"]


def confirms(said: Said, asked: bool) -> bool:
    """ "So" before a statement asked with a question mark, with no question word and no
    auxiliary before its subject: what the last answer said, put back to it to confirm ("So
    the vaccine is safe for kids?", "So I should use a set?"; not "So how does ...?", "So
    is coffee bad?", "So I got a puppy, should I crate train it?")."""
    texts = said.texts
    if not asked or texts[:1] != ["so"] or said.kinds[1:2] != ["word"] or said.plain & WH:
        return False
    asks = any(  # "So I just got a puppy, should I crate train it?": a question of its own
        texts[k] in AUXILIARIES and texts[k + 1] in SUBJECTS for k in range(1, len(texts) - 1)
    )
    return not (asks or texts[1] in AUXILIARIES)


def continues(said: Said) -> bool:
    """It opens with a continuation, or is a bare modifier ("with a custom separator"), or
    "now" before a verb: a next step on what was just done ("Now add error handling", "now do
    the same for tuples"; "do" then a subject asks: "now do I need a visa?")."""
    if said.lowered in CONTINUATIONS or said.lowered in PROCEED:
        return True
    if said.texts[:1] == ["now"] and said.kinds[1:2] == ["word"] and said.content(1):
        return not said.proper[1]  # not "Now that ...", "Now I ...", "Now Python 3.13 ..."
    done = said.texts[:2] == ["now", "do"] and said.texts[2:3] not in ([], *([s] for s in SUBJECTS))
    if done or redone(said):
        return True  # "now do the same for tuples"; not "now do I ..."
    if said.lowered.startswith(tuple(c + " " for c in CONTINUATIONS)):
        return True
    if said.texts and said.texts[0] in PREPOSITIONS and not said.has_clause:
        return True
    return conditions(said)


def redone(said: Said) -> bool:
    """With no clause, "now" before a preposition ("now in French", "now as a table"), or an
    opening verb with "again" and no object of its own, then "but" or a preposition: the last
    output or act done again, changed ("try again but with a log scale", "Run it again with 10
    epochs"; not "Why does my build fail again?", "Now in Python 3.12, is the GIL optional?")."""
    texts = said.texts
    if texts[:1] == ["now"] and texts[1:2] != [] and texts[1] in PREPOSITIONS:
        return not said.has_clause  # "now in French": the last output, changed
    k = 2 if texts[1:2] in (["it"], ["that"], ["this"]) else 1
    if said.has_clause or texts[:1] == [] or texts[0] in PREPOSITIONS | CONDITIONS:
        return False
    if said.kinds[0] != "word" or texts[k : k + 1] != ["again"]:
        return False
    rest = texts[k + 1 : k + 3]
    return rest[:1] == ["but"] or (rest[:1] != [] and rest[0] in PREPOSITIONS)


def conditions(said: Said) -> bool:
    """It is only a condition, with no main clause: "even when the list is empty?", "if the
    file is huge" ("If ..., what happens?" and "When is ...?" have one)."""
    texts = said.texts
    if not texts or texts[0] not in CONDITIONS:
        return False
    if texts[0] == "even":
        return texts[1:2] != [] and texts[1] in EVEN_BEFORE
    if texts[0] == "when" and texts[1:2] != [] and texts[1] in AUXILIARIES:
        return False  # "When should I use a tuple?": a question
    return not any(
        texts[k] in WH
        or said.kinds[k - 1] == "mark"
        or (texts[k] in AUXILIARIES and texts[k + 1 : k + 2] in (["i"], ["we"], ["you"]))
        for k in range(1, len(texts))
        if said.kinds[k] != "mark"
    )  # "when my dog barks at night should I ignore it": "should I" opens the main clause


REASONS = frozenset({"since", "because", "as", "although", "though", "unless", "while", "if"})
"""After a noun phrase and a comma, these open a clause that only gives a reason or a case."""


def subordinate_only(said: Said) -> bool:
    """A noun phrase, a comma and a clause of :data:`REASONS`, with no clause before the comma:
    its only clause gives a reason, and what it asks of the noun phrase is the question above's
    ("and a do-while loop, since Rust has none?"; not "And since Rust has no do-while loop, how
    do I loop at least once?", whose main clause follows)."""
    texts = said.texts
    comma = next((k for k, t in enumerate(texts) if t == ","), None)
    if comma is None or comma == 0 or texts[comma + 1 : comma + 2] == []:
        return False
    if set(texts[:comma]) & CLAUSE_WORDS or texts[comma + 1] not in REASONS:
        return False
    return not any(
        said.kinds[k] == "mark" and texts[k] in ".!;" for k in range(comma + 1, len(texts))
    )
