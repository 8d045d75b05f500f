"""Replies to the last answer, read for :mod:`arborist._standalone.rule`. Pure: no I/O.

A reply is a question only the last answer makes sense of, whatever else it names: a
correction of it ("No, I meant Celsius", "That's wrong, ..."), an edit of it ("Translate
the answer into French", "Can I substitute the eggs?", "Use a dict instead"), or a pick
from what it gave ("the first method", "the two approaches", "the original": read in
:mod:`arborist._standalone.picks` with what here says which thing "the N" is); so is one
about a part of the user's documents that says not whose ("the figure on page 4"). Each rule
reads a :class:`~arborist._standalone.said.Said`; docs/retrieval.md ("Follow-ups") gives them
with their examples.
"""

from __future__ import annotations

from arborist._standalone.said import Said
from arborist._standalone.words import (
    ADDED,
    ANSWERED,
    ASKER,
    AUXILIARIES,
    CONDITIONS,
    COUNTERPARTS,
    DESTINATIONS,
    DOCUMENTED,
    EDITS,
    ELEMENTS,
    ENUMERATED,
    EVENTS,
    EXCHANGED,
    IN_TIME,
    INTRODUCERS,
    OMITTED,
    ORDINAL_FIGURE,
    ORDINALS,
    OWNED,
    OWNERS,
    PARTS,
    PAST,
    PAST_DONE,
    PICKS,
    PLACES,
    PRONOUNS,
    RECALLED,
    RELATIVES,
    REPLACED,
    SUBSTITUTES,
    TIMED,
    UNIQUE,
    WH,
)

__all__ = [
    "adds",
    "corrects",
    "documented",
    "edits",
    "exchanges",
    "in_time",
    "names_its_subject",
    "recalls_act",
    "recalls_answer",
    "says_which",
    "substitutes",
]


def corrects(said: Said) -> bool:
    """It corrects the last answer: "I meant ..." anywhere ("Actually I meant Celsius"), "I
    mean" opening a clause and saying what (not the filler of "I mean, what is ..."), "you"
    and a verb in the past opening a clause or after "I think" ("I think you swapped the
    axes"; not "Have you heard of ...", "if you mixed ..."). A
    "no" before a mark is read by :mod:`arborist._standalone.rule`, by what follows it."""
    texts = said.texts
    for j in range(len(texts) - 1):
        if texts[j] == "i" and texts[j + 1] == "meant":
            return True
        opens = j == 0 or said.kinds[j - 1] == "mark"
        said_what = said.kinds[j + 2 : j + 3] not in ([], ["mark"])  # not "I mean, what ..."
        if opens and texts[j] == "i" and texts[j + 1] == "mean" and said_what:
            return True
        if texts[j] == "you" and (opens or texts[j - 1] in TOLD) and _did(texts[j + 1]):
            return True  # "I think you swapped the x and y axes", "You forgot the salt"
    return False


TOLD = frozenset({"think", "guess", "believe", "suspect", "but", "and"})
"""Before "you" and a verb in the past, these make it a claim about what the last answer did."""


def recalls_act(said: Said, i: int) -> bool:
    """The "you" at ``i`` is the one answering, asked about what it did in the last answer:
    "did you" and a verb ("Why did you pick a set?"; not "Did you know ...?"), or a verb in the
    past after it, "just", "already", ... between them or nothing ("the formula you used",
    "from where you stopped"); not after another auxiliary ("Were you trained on ...?",
    "Have you heard of ...?"), nor in a condition or a time clause, whose "you" is anyone
    ("What happens if you mixed ...?", "Is it bad to swim after you ate?")."""
    texts = said.texts
    before = texts[i - 1] if i else ""
    if before == "did":
        return said.kinds[i + 1 : i + 2] == ["word"] and texts[i + 1] not in RHETORICAL
    if before in AUXILIARIES:
        return False
    k = i + 2 if texts[i + 1 : i + 2] != [] and texts[i + 1] in SINCE_SAID else i + 1
    if k >= len(texts) or said.kinds[k] != "word" or not (texts[k] in RECALLED or _did(texts[k])):
        return False
    for j in range(i - 1, max(i - 12, -1), -1):  # its clause, read back a little way
        if said.kinds[j] == "mark":
            break
        if texts[j] in ANYONE:
            return False
    return True


RHETORICAL = frozenset({"know", "hear", "ever"})
"""After "did you", these open a question that asks nothing of the last answer ("Did you know
that octopuses have three hearts?")."""
SINCE_SAID = frozenset(
    {"just", "already", "earlier", "previously", "originally", "first", "also", "have", "ve", "had"}
)
"""Between "you" and a verb in the past, these place it in the last answer ("you just listed",
"the examples you've shown")."""
ANYONE = CONDITIONS | TIMED | frozenset({"once", "until", "while", "since"})
"""Before "you" in its clause, these make it anyone: a condition or a time ("if you mixed ...")."""


def _did(word: str) -> bool:
    """``word`` is a verb in the past: in -ed, or one of :data:`PAST_DONE`."""
    return word in PAST_DONE or (len(word) > 4 and word.endswith("ed"))


def edits(said: Said) -> bool:
    """A request that changes the last answer: an opening verb of :data:`EDITS` (after "now",
    or "can you", "could I", ...) whose object is "the N" that says not which, followed by
    what it becomes, "but" and how, or nothing ("Translate the answer into French", "Can you
    double the quantities?", "Redo the SQL query but skip refunds": a name before a thing
    answers give says its kind, not which), or an opening verb with "instead of the N" that says not which ("Use a
    dictionary instead of the list"). Not when the question holds the text it edits, quoted
    or after a colon ("Rewrite the following paragraph ...: \"...\"": the text is here); a
    question that leaves out "the N" of the last answer's recipe (:func:`_omits`) edits it."""
    if _quoted(said) or ":" in said.texts:
        return False
    return _omits(said) or _requests_edit(said)


def _quoted(said: Said) -> bool:
    """It holds a quoted literal: text of its own."""
    kinds, texts = said.kinds, said.texts
    return any(
        k == "literal" and t[:1] in ("'", '"', "`") for k, t in zip(kinds, texts, strict=True)
    )


def _requests_edit(said: Said) -> bool:
    """:func:`edits` read from the request's verb on."""
    texts = said.texts
    start = _request(said)
    if start is None:
        return False
    if start == 0 and texts[0] not in WH | AUXILIARIES | PRONOUNS | ASKER:
        for j in range(len(texts) - 3):  # "Use a dictionary instead of the list"
            if texts[j : j + 3] == ["instead", "of", "the"] and not says_which(said, j + 2):
                return True
    if texts[start] not in EDITS or texts[start + 1 : start + 2] not in (["the"], ["your"]):
        return False
    span = said.phrase(start + 2)
    if not span or (
        span[0] + 1 < len(texts) and _in_time(said, start + 1, said.phrase(span[0] + 1))
    ):
        return False  # "rerun the previous command with sudo": the world's, in time
    head = span.stop - 1  # "the SQL query": a name before what answers give says its kind
    kind = texts[head] in ANSWERED and said.kinds[head] == "word" and not said.proper[head]
    if any(said.kinds[k] != "word" or said.proper[k] for k in span) and not kind:
        return False
    return said.ends_clause(span.stop) or texts[span.stop] in DESTINATIONS | {"but"}


def _omits(said: Said) -> bool:
    """ "I" or "we", a verb of :data:`OMITTED` or "leave out", and "the N" that says not which
    and ends its clause: "What happens if I leave out the eggs?" changes the last answer's
    recipe ("if I leave out eggs in a cake" brings its own)."""
    texts = said.texts
    for j in range(len(texts) - 3):
        if texts[j] not in ("i", "we"):
            continue
        k = j + 3 if texts[j + 1 : j + 3] == ["leave", "out"] else j + 2
        if k == j + 2 and texts[j + 1] not in OMITTED:
            continue
        span = said.phrase(k + 1)
        if texts[k : k + 1] == ["the"] and span and said.ends_clause(span.stop):
            return not says_which(said, k)
    return False


def adds(said: Said) -> bool:
    """A request to "you" to add or include something with nothing saying where: the last
    answer is where ("Can you add type hints?", "Could you include sources?"; not "Can you
    add a column to a DataFrame?", "Can you add 17 and 25?")."""
    texts = said.texts
    start = _request(said)
    if start is None or start < 2 or texts[start - 1] != "you" or texts[start] not in ADDED:
        return False
    end = next(j for j in range(start, len(texts) + 1) if said.ends_clause(j))
    rest = range(start + 1, end)
    if not rest or any(said.kinds[j] != "word" or said.proper[j] for j in rest):
        return False  # something named: what is added or where
    return not any(texts[j] in PLACES for j in rest)


def _request(said: Said) -> int | None:
    """Where a request's verb is: first, after "now", "then" or "just", or after an
    auxiliary and its asker ("Can you ...", "Could I ..."); None when it asks otherwise."""
    texts = said.texts
    start = 1 if texts[:1] in (["now"], ["then"], ["just"]) else 0
    if texts[start : start + 1] and texts[start] in AUXILIARIES:
        if not (texts[start + 1 : start + 2] and texts[start + 1] in ASKER):
            return None
        start += 2
    if start >= len(texts) or said.kinds[start] != "word":
        return None
    return start


def substitutes(said: Said) -> bool:
    """A verb of exchange with one side of it only: "substitute" or "swap" and an object,
    with nothing in its clause saying for what or with what ("Can I substitute yogurt?",
    "Could we swap tofu?"; not "Can I substitute yogurt for sour cream?", "How do I swap
    two variables?")."""
    texts = said.texts
    exchanged = False  # read back from the end: an exchange's word later in the clause
    for k in range(len(texts) - 1, -1, -1):
        if said.kinds[k] == "mark" and said.ends_clause(k):
            exchanged = False
        elif texts[k] in EXCHANGED:
            exchanged = True
        elif (texts[k] in SUBSTITUTES and not exchanged) and (
            k == 0 or texts[k - 1] in ASKER | AUXILIARIES | {"to", "just", "then", "now"}
        ):
            return True  # the verb, not "a substitute"
    return False


def exchanges(said: Said) -> bool:
    """A verb of exchange with both its sides named, a bare noun as its object and "with" or
    "for" and a word of its own after it in its clause, and no "the" in the question: the
    exchange is a subject of its own ("Can I replace butter with coconut oil in a shortbread
    recipe?"; not "Can I replace the butter with oil?", an edit, nor "... in the recipe?")."""
    texts = said.texts
    if "the" in said.plain:
        return False
    for k in range(len(texts) - 3):
        if texts[k] not in REPLACED or not said.content(k + 1) or said.kinds[k + 1] != "word":
            continue
        for j in range(k + 2, min(k + 6, len(texts) - 1)):
            if said.ends_clause(j):
                break
            if texts[j] in ("with", "for") and said.content(j + 1):
                return True
    return False


def _stage(said: Said, i: int) -> bool:
    """The "the" at ``i`` opens a stage of what the question's own clause names: after "for",
    ending the question, with three words of its own or more before it in its clause and no
    name and no noun of something ("How long should I rest bread dough for the second
    proof?"; not "How do I do it in Python for the second case?", nor "Is the first one
    faster for large lists?", nor "Show example code for the second method")."""
    if said.texts[i - 1 : i] != ["for"] or said.last_proper >= 0 or said.named:
        return False
    if not said.ends_clause(said.phrase(i + 1).stop if said.content(i + 1) else i + 2):
        return False
    said_before, k = 0, i - 2
    while k >= 0 and said_before < 3 and said.kinds[k] != "mark":
        if said.texts[k] in OWNED:
            return False  # "example code for the last method": of the pick, not its stage
        said_before += said.content(k)  # the clause before "for", read back to three words
        k -= 1
    return said_before == 3


def _in_time(said: Said, i: int, span: range) -> bool:
    """The "the" at ``i`` opens an ordinal ("the last", "the next") before a compound noun of
    two words or more (``span``) that is no part of an answer, not as the subject after an
    auxiliary (where the run of words may hold its verb: "Why is the last term negative?"):
    the world's things of that kind, in time ("How do I undo the last git commit?", "my fan
    has been loud since the last windows update"); or before a thing done or that happens of
    :data:`EVENTS`, first or last in the run of words ("How do I undo the last commit?", "the
    last total solar eclipse"), or a part of data of :data:`ELEMENTS` that says what it is of
    (:func:`_of_data`: "delete the last row in pandas")."""
    texts = said.texts
    if texts[i + 1] not in ORDINALS or not span:
        return False
    if texts[i + 1] in IN_TIME and {texts[span[0]], texts[span[-1]]} & EVENTS:
        return True
    if texts[span[0]] in ELEMENTS and _of_data(said, span[0] + 1):
        return True
    if texts[i - 1 : i] == [] or texts[i - 1] in AUXILIARIES or len(span) < 2:
        return False
    return not any(texts[k] in ANSWERED | OWNED | DOCUMENTED | PARTS for k in span)


def in_time(said: Said, i: int) -> bool:
    """The "the" at ``i`` opens an ordinal that picks the world's thing in time, as
    :func:`_in_time` reads it ("When was the last total solar eclipse?"): it says which."""
    return i + 2 < len(said.texts) and _in_time(said, i, said.phrase(i + 2))


def _of_data(said: Said, k: int) -> bool:
    """ "of", "in" or "from" at ``k``, then a noun phrase that is no part of an answer: a name,
    a new noun phrase or a word of its own ("of the data file", "in pandas", "of a string";
    not "of the code", "in your answer", "of it")."""
    texts = said.texts
    if texts[k : k + 1] not in (["of"], ["in"], ["from"]):
        return False
    j = k + 1
    if texts[j : j + 1] in (["the"], ["a"], ["an"], ["each"], ["every"], ["my"], ["our"]):
        j += 1
    if not said.content(j):
        return False
    owner = said.phrase(j)
    return said.kinds[j] != "word" or not any(
        texts[m] in ANSWERED | OWNED | PARTS | DOCUMENTED | ENUMERATED for m in owner
    )


def says_which(said: Said, i: int) -> bool:
    """The noun phrase opened by the "the" at ``i`` says which thing it is: a name, literal
    or proper name in it ("the two World Wars"), an owner with a name after it ("the first
    president of the United States"), a clause ("the first person to walk on the moon", "the
    last thing that ...", "the list I built"), an owner that is a new noun phrase or a word
    of its own ("the second largest number in a list", "the second law of thermodynamics";
    not "the rest of the code"), a unique thing after a preposition ("the first man on the
    moon"), or a stage of what the question's own clause names (:func:`_stage`)."""
    texts = said.texts
    if _stage(said, i) or _other_than(said, i):
        return True  # "for the second proof", after a clause of its own
    picked = texts[i + 1 : i + 2] != [] and texts[i + 1] in PICKS | COUNTERPARTS
    start = i + 2 if picked or not said.content(i + 1) else i + 1  # "the other name"
    span = said.phrase(start)
    stop = span.stop if span else (i + 2 if picked else start + 1)
    if any(said.kinds[k] != "word" or said.proper[k] for k in range(i + 1, stop)) or (
        picked and _in_time(said, i, span)  # "undo the last git commit": the world's, in time
    ):
        return True
    after = texts[stop : stop + 3]
    if after[:1] and (after[0] in RELATIVES | ASKER or after[0] == "to"):
        return True  # "the first person to walk ...", "the list I built"
    owner = texts[stop + 1 : stop + 2]
    opens = owner != [] and (said.kinds[stop + 1] == "name" or owner[0] in INTRODUCERS)
    if after[:1] and after[0] in OWNERS and opens:
        return True  # "the second largest number in a list"
    if len(after) >= 2 and after[0] == "of" and said.content(stop + 1):
        return True  # "the second law of thermodynamics"; not "the rest of the code"
    return said.of_a_name(range(i + 1, stop)) or (
        len(after) == 3 and after[1] == "the" and after[2] in UNIQUE
    )


EXCEPTING = frozenset({"besides", "except", "apart", "aside", "beside"})
"""After "the other", these name what it is other than ("the other ingredient besides butter",
"the other planets apart from Earth")."""


def _other_than(said: Said, i: int) -> bool:
    """The "the" at ``i`` opens "the other" and a word of :data:`EXCEPTING` follows in its clause:
    what it is other than is named ("What is the other main ingredient in hollandaise besides
    butter?"; not "the other method", other than the one the last answer gave, nor "Is the other
    approach faster than a loop?": "than" compares)."""
    texts = said.texts
    if texts[i + 1 : i + 2] != ["other"]:
        return False
    for k in range(i + 2, min(i + 12, len(texts))):
        if said.ends_clause(k):
            return False
        if texts[k] in EXCEPTING:
            return True
    return False


def recalls_answer(said: Said, i: int) -> bool:
    """The "your" at ``i`` is the last answer's: before a noun an answer is made of or a part
    of a text ("What's the time complexity of your solution?", "in your snippet", "in your
    last sentence"; not "What is your name?", "your opinion", "in your experience"), or
    before an ordinal and a noun an answer numbers its items by ("your second point", "your
    3rd step"; not "your first language": the one answering's own)."""
    texts, span = said.texts, said.phrase(i + 1)
    if any(texts[k] in ANSWERED | PARTS for k in span):
        return True
    ordinal = texts[i + 1 : i + 2] != [] and (
        texts[i + 1] in ORDINALS or bool(ORDINAL_FIGURE.fullmatch(texts[i + 1]))
    )
    return ordinal and texts[i + 2 : i + 3] != [] and texts[i + 2] in ENUMERATED


def names_its_subject(said: Said) -> bool:
    """What follows an opener says what it is about, or is in the present: a question in the
    past ("was", "did", a verb in -ed: "ok and how many people died") asks about one
    occasion, so it needs a name, a literal, a proper name, a new noun phrase, a unique
    thing, a kind's name of two words ("And who invented the light bulb?") or "the N" that
    says which ("And who was the first person to walk on the moon?")."""
    texts = said.texts
    past = any(t in PAST or said.in_past(k) for k, t in enumerate(texts))
    if not past or said.named or any(said.proper) or said.introduced(len(texts)):
        return True
    return any(
        t == "the"
        and (
            says_which(said, k)
            or bool(set(texts[k + 1 : k + 2]) & UNIQUE)
            or len(said.phrase(k + 1)) >= 2  # "the light bulb": a kind's name
        )
        for k, t in enumerate(texts)
    )


def documented(said: Said) -> bool:
    """It asks about a part of a document or of its data with nothing saying whose: "the"
    before a word of :data:`DOCUMENTED` ("What does the figure on page 4 show?", "what's the
    page number", "Turn the bullet points into a paragraph"; a page or a participant's
    number says where in it, not which document), or a step taken on it ("after the
    filtering"). A name, a proper name, a quoted literal, a new noun phrase it is of ("the
    page limit for a college essay"), "of" and a word of its own ("the figure of speech") or
    a clause ("the transcripts I added") says whose."""
    texts = said.texts
    if any(said.proper) or "name" in said.kinds or _quoted(said):
        return False
    for i in range(len(texts) - 1):
        if texts[i] != "the":
            continue
        step = i > 0 and texts[i - 1] in TIMED and texts[i + 1].endswith("ing")
        if texts[i + 1] in DOCUMENTED or (step and said.ends_clause(i + 2)):
            return not _whose(said, i)
    return False


def _whose(said: Said, i: int) -> bool:
    """What follows the noun phrase the "the" at ``i`` opens says whose it is: a clause ("the
    transcripts I added", "the rows where status is active"), a new noun phrase it is of ("the page limit for a college essay";
    not "into a paragraph"), or "of" and a word of its own ("the figure of speech")."""
    texts = said.texts
    stop = said.phrase(i + 1).stop
    owner = texts[stop : stop + 2]
    if owner[:1] and owner[0] in RELATIVES | ASKER | {"where"}:
        return True  # "the rows where status is active": the clause says which
    if owner[:1] == ["of"] and said.content(stop + 1):
        return True
    return len(owner) == 2 and owner[0] in OWNERS - {"into", "to", "as"} and owner[1] in INTRODUCERS
