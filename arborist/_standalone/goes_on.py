"""Whether a question goes on from the turn above by how it is put, read for
:mod:`arborist._standalone.rule`. Pure: no I/O.

Some questions say by their opening or their close that they go on from an answer: a fact
the asker forgot to give ("forgot to mention I might move in 3 yrs"), a turn back to it ("ok
but how do I ...", "wait, why do you take ln of both sides"), a comparison with only one side
("compared to a can of red bull?"), numbers put into a formula given before ("plug in 5000 at
4%"), a request for the same for each of things named before ("3 example sentences for
each"), the last answer asked again, changed ("shorter, like 3 bullet points", "simpler
please"), a difference with nothing to hold it against ("how is meiosis different"), or the
asker's own of what the answer spoke of ("here's mine: ..."). These are read on the question as typed: the reading of
:class:`~arborist._standalone.said.Said` drops the "ok" a turn back opens with. docs/retrieval.md
("Follow-ups") gives each with its look-alikes.
"""

from __future__ import annotations

import re

__all__ = ["goes_on"]

_SUBJECT = r"(?:i|i'm|im|it|it's|its|we|we're|he|she|they|there|this|that|the|our)"
_FORGOT = re.compile(
    rf"^(?:(?:oh|also|sorry|btw|ah)[\s,]+)*(?:i\s+)?forgot\s+to\s+(?:mention|say|add|tell\s+you)"
    rf"(?:\s*[,:;-]|\s+(?:that\b|{_SUBJECT}\s))"
)
"""A fact the asker forgot to give, then a clause of it ("forgot to say it's going to be
indoors", "I forgot to mention: we have two kids"; not "I forgot to say thank you to my host,
what now?", whose object is what was forgotten)."""
_TURN_BACK = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|right|hmm+)[\s,]+but\b|wait\b\s*(?:[,.!?-]|(?:so|but|what|why|how"
    r"|then|is|are|do|does|did|you)\b)|hold\s+on\b)"
)
"""A turn back to the answer ("ok but how do i ...", "wait, why ...", "hold on, ..."; not "wait
times at the DMV?", whose "wait" is a noun, nor "ok so I have a question about ...", which
may open a conversation)."""
_ONE_SIDE = re.compile(r"^(?:and\s+)?(?:compared\s+(?:to|with)|versus|vs\.?)\s")
"""A comparison that opens with its second side and asks nothing of its own (:data:`_ASKS`:
"compared to a can of red bull?"; not "compared to coffee, is tea healthier?")."""
_ASKS = re.compile(
    r",|(?<!\ba )\b(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|what|which"
    r"|why|how|who)\b"
)
"""A comma or a verb that asks, not a noun ("a can of red bull")."""
_PLUG = re.compile(r"^(?:(?:now|ok(?:ay)?|so|can\s+you|could\s+you|please|pls)[\s,]+)*plug\s+in\b")
"""Numbers put into a formula given before ("plug in 5000 at 4% for 10 years")."""
_EACH = re.compile(
    r"\b(?:for|with|of|to|in|on|from|about|using)\s+each(?:\s+(?:one|of\s+them))?\s*[?.!]*\s*$"
)
"""The same for each of things named before, at the close ("3 example sentences for each")."""
_BESIDE = r"and|or|vs|versus|between"
"""Words that set one named thing beside another."""
_COORDINATED = re.compile(rf"\b(?:{_BESIDE})\b|[,&/]")
"""Things named in the question itself, which "each" may stand for ("the difference between a
list and a tuple, with an example of each")."""
_AGAIN_CHANGED = re.compile(
    r"^(?:(?:make\s+it|a\s+(?:bit|little)|bit|much|even|way)\s+)?"
    r"(?:shorter|simpler|longer|clearer|briefer|more\s+(?:concise|formal|casual|detailed)"
    r"|less\s+(?:formal|technical|wordy))\s*(?:[,.!?]|$|please\b|pls\b|like\b|and\b|with\b)"
)
"""The last answer asked again, changed ("shorter, like 3 bullet points", "simpler please";
not "shorter skis or longer ones for a beginner?", which names what is shorter)."""


_UNCOMPARED = re.compile(r"\b(?:different|similar|alike)\s*[?.!]*$")
"""A difference or a likeness at the close with nothing to hold it against (:data:`_AGAINST`:
"how is meiosis different"; not "how is a crocodile different from an alligator")."""
_SINGULAR = re.compile(r"\b(?:is|was|isn't|wasn't)\b|\w's\b")
"""A singular subject's verb: a plural one may differ among itself ("are identical twins'
fingerprints different")."""
_AGAINST = re.compile(rf"\b(?:from|than|to|with|{_BESIDE})\b|[,&/]")
_MINE = re.compile(r"^(?:ok(?:ay)?[\s,]+)?here(?:'s|\s+is)\s+(?:mine|ours)\b")
"""The asker's own of what the answer spoke of ("here's mine: '...' too vague?")."""


def goes_on(question: str) -> bool:
    """Whether ``question`` goes on from the turn above by how it opens or closes (see the
    module)."""
    text = " ".join(question.lower().replace("’", "'").split())
    if _FORGOT.search(text) or _TURN_BACK.search(text) or _PLUG.search(text):
        return True
    if (_ONE_SIDE.search(text) and _ASKS.search(text) is None) or _AGAIN_CHANGED.search(text):
        return True
    if _MINE.search(text):
        return True
    each = _EACH.search(text)
    if each is not None and _COORDINATED.search(text, 0, each.start()) is None:
        return not text.startswith("one of", max(0, each.start() - 4))  # not "keep one of each"
    one = _SINGULAR.search(text) is not None  # "are twins' fingerprints different": each other
    return one and _UNCOMPARED.search(text) is not None and _AGAINST.search(text) is None
