"""What the turn above asked to be done, read with a question asked under it, for
:mod:`arborist._standalone.above`. Pure: no I/O.

A turn that asked for a text to be written, for a sum to be worked out or for advice, leaves the
next question room to say only what to put in: "mention that I led the migration" under "draft
a note to my manager", "62 kg and 1.70 m" under "how do I work out my BMI", "my budget is 900"
under "recommend a road bike". Asked afresh, none says what it is for; the turn above does. docs/retrieval.md ("Follow-ups") gives each with its
examples and the look-alike it leaves alone.
"""

from __future__ import annotations

from arborist._standalone.said import Said
from arborist._standalone.words import AUXILIARIES, WH

__all__ = ["fills_in"]

WRITING = frozenset({"write", "draft", "compose", "rewrite", "redraft", "edit", "polish"})
"""Verbs of the turn above that ask for a text the next question may say what to put in."""
PUTTING = frozenset({"mention", "include", "say", "add", "stress", "emphasize", "emphasise"})
"""Opening the question, verbs that put something into the text the turn above asked for."""
ASKERS_OWN = frozenset({"that", "i", "my", "me", "we", "our", "us"})
"""After a verb of :data:`PUTTING`, these make what is put in the asker's own news."""
WORKING_OUT = frozenset({"calculate", "compute", "convert", "estimate", "work", "figure"})
"""Verbs of the turn above that ask for a sum the next question may give the values of."""


def fills_in(said: Said, above: Said) -> bool:
    """``said`` says what to put into what ``above`` asked to be done: content for a text it
    asked for, values for a sum, or the asker's figures for advice."""
    return _puts_in(said, above) or _values_for(said, above) or _situation(said, above)


def _asks(above: Said, verbs: frozenset[str]) -> bool:
    """A verb of ``verbs`` is among the first four words of the turn above ("Draft a ...", "how
    do I calculate ...", "can you write ...")."""
    return bool(set(above.texts[:4]) & verbs)


def _puts_in(said: Said, above: Said) -> bool:
    """The question opens with a verb of :data:`PUTTING` and, right after it, "that" or the
    asker ("mention that I ...", "include my ..."), under a turn that asked for a text to be
    written: what the text should say ("say that we met at the fair" under "write a thank-you
    card"; not "add my name to a mailing list" asked afresh, nor "include that file in a
    build" under "how do I fix a leaky tap")."""
    texts = said.texts
    if texts[:1] == [] or texts[0] not in PUTTING or texts[1:2] == []:
        return False
    return texts[1] in ASKERS_OWN and _asks(above, WRITING)


def _values_for(said: Said, above: Said) -> bool:
    """A question with no clause whose words of its own are two numbers or more and at most two
    other words, none a verb of :data:`WORKING_OUT`, under a turn that asked for a sum to be
    worked out: its values ("80 kg and 1.8 m" under "how do I calculate my BMI"; not "convert
    80 kg to lb", which says what to do, nor "80 kg and 1.8 m" under "what is a healthy
    weight")."""
    if said.has_clause or set(said.texts) & WORKING_OUT or not _asks(above, WORKING_OUT):
        return False
    own = [k for k in range(len(said.texts)) if said.content(k)]
    numbers = [k for k in own if said.kinds[k] == "literal" and said.texts[k][:1].isdigit()]
    return len(numbers) >= 2 and len(own) - len(numbers) <= 2


ADVICE = frozenset({"recommend", "suggest", "best", "which", "should", "good", "worth"})
"""Words of a turn above that asks for advice, which the asker's own figures may then narrow."""
ASKER = frozenset({"my", "i", "we", "our"})
"""Opening a statement, these make it the asker's own situation."""


def _situation(said: Said, above: Said) -> bool:
    """A statement (no question mark, no question word or auxiliary opening it) opening with
    the asker ("my", "I", "we") and holding a number, under a turn that asked for advice: the
    asker's figures, which narrow the advice ("my budget is 900" under "recommend a road bike",
    "I have a 2016 golf" under "which winter tyres are best"; not "my budget is 900" under "how
    do rainbows form", nor "my son is 7, what should he read?", which asks)."""
    texts = said.texts
    if "?" in texts or texts[:1] == [] or texts[0] not in ASKER or set(texts) & WH:
        return False  # "my fan runs at 90 C, how do I ...": a question of its own
    if said.contents() > 5 or any(
        said.kinds[k - 1] == "mark" and texts[k] in AUXILIARIES for k in range(1, len(texts))
    ):
        return False  # "my 4yo still wets the bed, is that normal": it asks
    if not any(
        kind == "literal" and said.texts[k][:1].isdigit() for k, kind in enumerate(said.kinds)
    ):
        return False
    return bool(set(above.texts) & ADVICE)
