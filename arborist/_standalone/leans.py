"""Whether a question leans on the last answer for want of a subject of its own, read for
:mod:`arborist._standalone.rule`. Pure: no I/O.

A question leans when what it asks is of something it does not name: "what if ...", a
comparison with nothing to compare, "the second ...", a noun of something with nothing it is
of ("What's the default value?"), a question word with no verb, or "the N" asked about where
nothing says which N ("Was the comic successful?"). Each rule reads a
:class:`~arborist._standalone.said.Said`; docs/retrieval.md ("Follow-ups") gives them with
their examples.
"""

from __future__ import annotations

from arborist._standalone.replies import in_time, says_which
from arborist._standalone.said import ENDS, Said
from arborist._standalone.words import (
    ALTERNATIVES,
    ANAPHORIC_MODIFIERS,
    ANSWERED,
    AUXILIARIES,
    BE,
    COMPARATIVES,
    CONTESTED,
    COUNTERPARTS,
    CREATED,
    DEFINING,
    DEGREES,
    FAILING,
    FAILS,
    GENERIC,
    INTRODUCERS,
    KINDS,
    LINKING,
    MODIFIERS,
    MODIFYING,
    MORE,
    NEGATED,
    OWNED,
    OWNERS,
    PAST,
    PICKS,
    PRECISE,
    PREPOSITIONS,
    RELATIONAL,
    REPEATS,
    SEEKERS,
    SOMEONE,
    TIMED,
    TIMES,
    UNIQUE,
    WH,
    WHEN,
    wordset,
)

__all__ = ["definite_subject", "leans", "owned_subject", "reports", "stands_in", "which_one"]


def leans(said: Said) -> bool:
    """Without a subject of its own, it leans on the last turn: "what if ...", a comparison
    with nothing to compare, "a different way", "the second/full/other ...", "the
    difference", "also", "tell me more", a noun of something with nothing it is of, a
    question word with no verb, "the N" asked about in the past."""
    plain, texts = said.plain, said.texts
    alternatives = bool(plain & ALTERNATIVES)
    if any(
        texts[j : j + 2] == ["one", "another"] and not said.content(j + 2)
        for j in range(len(texts))
    ) or _one_and_another(said):
        plain = plain - {"another"}  # "Why do magnets repel one another?": each other
    if _asker_also(said) or _claimed_also(said):
        plain = plain - {"also"}  # "I also want to learn Spanish": the asker's own wish
    if said.lowered.startswith("what if ") or plain & REPEATS or _asks_else(said):
        return True
    if _asks_more(said) or _fragment(said) or _owned(said) or definite_subject(said):
        return True
    if _only_owned(said) or _precise(said):
        return True
    numbered = INTRODUCERS | {"one"}  # "in one serving": a serving of what was said
    if any(
        texts[j] in numbered and said.relative(j) and not set(texts[j + 1 : j + 2]) & TIMES
        for j in range(len(texts))
    ):  # not "for assets held over a year": a length of time, of nothing said
        return True
    if not alternatives and (
        (plain & COMPARATIVES and not _self_compared(said))
        or ("which" in plain and plain & {"one", "ones"} and not any(said.shown))
        or said.lowered.startswith(("which is more ", "which is less ", "which is most "))
    ):
        return True
    return any(
        texts[i] == "the"
        and (
            (texts[i + 1] in ANAPHORIC_MODIFIERS - COUNTERPARTS and not says_which(said, i))
            or (texts[i + 1] in RELATIONAL and texts[i + 2 : i + 3] not in (["between"], ["of"]))
        )
        for i in range(len(texts) - 1)
    )


def _asker_also(said: Said) -> bool:
    """ "I also" or "we also" opening a sentence, then a verb and a name, a proper name or a new
    noun phrase in its clause: the asker adds to what they do or want, and names it ("I also
    want to learn Spanish this year - what's the fastest way?"; not "I also need the totals",
    the last answer's, nor "Can you also ...", asked of it)."""
    texts = said.texts
    for k in range(1, len(texts) - 1):
        if texts[k] != "also" or texts[k - 1] not in ("i", "we"):
            continue
        if k > 1 and not (said.kinds[k - 2] == "mark" and texts[k - 2] in ENDS):
            continue
        for j in range(k + 2, min(k + 8, len(texts))):
            if said.ends_clause(j):
                break
            if said.kinds[j] != "word" or said.proper[j] or texts[j] in INTRODUCERS:
                return True
    return False


HEARD = frozenset({"true", "heard", "read", "claim", "claims", "say", "says", "said"})
"""Before "that", these open a claim the asker heard or read and puts to the test ("Is it true
that ...", "I heard that ..."): what the claim adds to is the claim's own."""


def _claimed_also(said: Said) -> bool:
    """Every "also" is in a claim put to the test: after "that" and a word of :data:`HEARD` before
    it in its clause, with a word of its own between ("Is it true that this year's flu vaccine
    also protects against covid?": the vaccine also protects against what it is for; not "Is it
    also true that ...", which adds to a claim before it)."""
    texts, found = said.texts, False
    claimed = own = False  # in a claim after "that" in this clause, a word of its own since
    for k, word in enumerate(texts):
        if said.ends_clause(k):
            claimed = own = False
        elif word == "that":
            claimed, own = k > 0 and texts[k - 1] in HEARD, False
        elif word == "also":
            if not (claimed and own):
                return False
            found = True
        else:
            own = own or said.content(k)
    return found


def _one_and_another(said: Said) -> bool:
    """ "one" and a noun, then "another" and the same noun: a pair the question names itself
    ("check if one network is inside another network", "test if one file is newer than another
    file"; not "give me another example")."""
    texts, ones = said.texts, set()
    for j in range(len(texts) - 1):
        if texts[j] == "one" and said.content(j + 1):
            ones.add(texts[j + 1])
        elif texts[j] == "another" and texts[j + 1] in ones:
            return True
    return False


def _self_compared(said: Said) -> bool:
    """Each comparative follows the bare subject of a question's clause (a question word of
    :data:`ADVERBIAL_WH`, or none opening the question, an auxiliary, then a noun with no
    determiner; after "which would" the noun is a verb: "Which would work better for me?") and a preposition,
    "when", "during", ... follows it: the subject is compared with itself in another setting, a
    standard the world gives ("why does bread go stale faster in the fridge?", "Do plants grow
    faster with music?", "Why do plants grow faster during spring?"; not "Is it faster on
    Windows?", "Why is the second approach better?", "What if the sample size is smaller?")."""
    texts = said.texts
    if _gerund_subject(said):
        return True  # "does adding salt make water boil faster": than without adding it
    subjects = [
        k + 2
        for k in range(-1, len(texts) - 2)
        if (texts[k] in ADVERBIAL_WH if k >= 0 else True)
        and texts[k + 1] in AUXILIARIES
        and said.content(k + 2)
        and said.kinds[k + 2] == "word"
        and texts[k + 2] not in OWNED
    ]  # "Do plants grow faster with music?": k = -1, the opening auxiliary
    compared = [k for k, t in enumerate(texts) if t in COMPARATIVES]
    return bool(subjects) and all(
        subjects[0] < k and texts[k + 1 : k + 2] != [] and texts[k + 1] in SETTINGS
        for k in compared
    )


def _gerund_subject(said: Said) -> bool:
    """The subject after the opening auxiliary (or a question word of :data:`ADVERBIAL_WH` and
    one) is an act in -ing with its object, before "make" or "makes": a comparative after it
    sets doing it against not doing it ("does stretching your calves make you run faster?"; not
    "Is it faster?")."""
    texts = said.texts
    k = 1 if texts[:1] != [] and texts[0] in AUXILIARIES else 2
    if k == 2 and not (texts[:1] != [] and texts[0] in ADVERBIAL_WH and texts[1:2] != []):
        return False
    if k == 2 and texts[1] not in AUXILIARIES:
        return False
    gerund = texts[k : k + 1] != [] and texts[k].endswith("ing") and said.content(k)
    return gerund and bool(set(texts[k + 1 : k + 6]) & {"make", "makes"})


ADVERBIAL_WH = wordset("why how when where")
"""Question words that are no subject nor object: the auxiliary after them is followed by the
clause's subject ("why does bread ..."), as it is after an opening auxiliary."""
SETTINGS = PREPOSITIONS | TIMED | wordset("when while if")
"""After a comparative on a bare subject, these open where or when it holds ("faster in the
fridge", "faster when they are happy")."""


def _precise(said: Said) -> bool:
    """ "the exact N" or "the precise N" of one word ending its clause: the one the last
    answer gave, asked for again more exactly ("Give me the precise figure"; not "the exact
    speed of light", where what it is of follows)."""
    texts = said.texts
    return any(
        texts[i] == "the"
        and texts[i + 1] in PRECISE
        and said.content(i + 2)
        and said.ends_clause(i + 3)
        for i in range(len(texts) - 2)
    )


def _asks_else(said: Said) -> bool:
    """ "else" after a question word or "anything", "someone", ...: more than was said
    ("Who else was involved?", "anything else?"; not "an if else statement")."""
    texts = said.texts
    return any(w == "else" and texts[k - 1] in WH | SOMEONE for k, w in enumerate(texts) if k)


def _only_owned(said: Said) -> bool:
    """Its words of its own are all nouns of something, with no name: "Examples please",
    "sources?" (not "Examples of decorators")."""
    if said.named or any(said.proper) or not said.has_content():
        return False
    return all(said.texts[k] in OWNED for k in range(len(said.texts)) if said.content(k))


def _asks_more(said: Said) -> bool:
    """Asks for more of what was said: "tell me more", "explain further", "Can you
    elaborate?"."""
    return any(w in MORE and said.ends_clause(i + 1) for i, w in enumerate(said.texts))


def _fragment(said: Said) -> bool:
    """A question word and at most one word, with no verb: "What year?", "How many pages?",
    "Where exactly?" ask something of the thing the last answer was about; so does a
    question word before a passive with no agent and nothing else ("Who was involved?",
    "How many were arrested?", "What was decided?": of the event said). A preposition before
    the question word is part of it ("since when", "for how long", "from where")."""
    texts = said.texts
    if texts and texts[0] in AUXILIARIES and not said.named and not any(said.proper):
        return said.contents() <= 1  # "Should I be worried?", "Can you show me?"
    lead = int(texts[1:2] != [] and texts[0] in LEADING and texts[1] in WH)
    if not texts or texts[lead] not in WH:
        return False
    degree = (
        texts[lead] == "how" and texts[lead + 1 : lead + 2] != [] and texts[lead + 1] in DEGREES
    )
    k = lead + 1 + degree
    if texts[k : k + 1] and texts[k] in BE | PAST and said.ends_clause(k + 2):
        done = texts[k + 1 : k + 2]
        return done != [] and len(done[0]) > 4 and done[0].endswith("ed")
    if said.plain & (AUXILIARIES | {"to"}):
        return False
    return sum(said.content(j) for j in range(k, len(texts))) <= 1


LEADING = PREPOSITIONS | wordset("since until")
"""Before a question word, these make one with it ("since when", "for how long")."""


def _owned(said: Said) -> bool:
    """A noun of something asked for with nothing it is of ("What's the default value?",
    "what would the output look like", "Give more details"), and no proper name."""
    texts = said.texts
    if any(said.proper):
        return False  # "What year did World War II end?": the name is what it is of
    spans = [said.phrase(j + 1) for j in range(len(texts) - 1) if texts[j] in SEEKERS]
    return any(
        any(_of_something(said, k, s) for k in s)
        and not said.owner_says(s)
        and (texts[s.start - 1] not in WH or said.said_after(s.stop) < 2)
        for s in spans
    )


def owned_subject(said: Said) -> bool:
    """A noun of something as the subject after an auxiliary, before the question's own noun
    phrase, with nothing it is of: what follows is a condition on it, not its owner ("What
    would the result be for a negative number?", "Why is the output empty when I pass a
    dict?"; not "Why is the output of ls sorted?"). The noun phrase ends at its noun of
    something ("the output look like for ...": "look" is its verb), and one coordinated with
    another is read no further ("the pros and cons of ...")."""
    texts = said.texts
    for k in range(1, min(said.first_new, len(texts) - 1)):
        if texts[k] != "the" or texts[k - 1] not in AUXILIARIES:
            continue
        span = said.phrase(k + 1)
        head = next((m for m in span if _of_something(said, m, span)), None)
        if head is None or any(said.kinds[m] != "word" or said.proper[m] for m in span):
            continue  # "the error 'No module named numpy'": named
        end = head + 1
        while end < span.stop and texts[end] in OWNED:
            end += 1  # "the default value": one noun phrase
        if texts[end : end + 1] in (["and"], ["or"]):
            continue
        if not said.owner_says(range(k + 1, end)):
            return True
    return False


def _of_something(said: Said, k: int, span: range) -> bool:
    """The word at ``k``, in the noun phrase ``span``, is a noun of something: one of
    :data:`OWNED` ("the output", "more details", "the default value"), or a kind with no
    name before it ("the function", not "the json module")."""
    texts = said.texts
    if texts[k] in MODIFYING:
        return k == span[-1] or texts[k + 1] in OWNED
    if texts[k] in KINDS:
        kinds = [m for m in span if texts[m] in KINDS]
        return k == span.start and texts[k - 1] == "the" and kinds == [k]
    return texts[k] in OWNED


def definite_subject(said: Said) -> bool:
    """A yes/no question, one in the past, or "who is", about "the N" where nothing says
    which N: "Was the comic successful?", "Is the output sorted?", "When was the book
    published?", "Who is the villain?", "Who won the rematch?": one contest, "Who funded the
    study?": one thing done to (:func:`_did_to_one`) ("Can the json module ...?" says which: a
    name before a kind; "Who is the author of Dune?": what it is of; "Who won the most
    medals?" is generic)."""
    texts = said.texts
    for i in range(1, min(len(texts) - 1, 6)):
        asked = (
            (i == 1 and texts[0] in AUXILIARIES)
            or (texts[i - 1] in PAST and texts[0] in WH)
            or (i == 2 and texts[0] == "who" and texts[1] in DEFINING | PAST | CONTESTED)
            or (i == 2 and texts[0] == "who" and _did_to_one(said))
        )
        if texts[i] != "the" or not asked or texts[i + 1] in GENERIC or in_time(said, i):
            continue  # "When was the last solar eclipse?": the world's last, in time
        if _unsaid(said, i):
            return True
    return _subject_unsaid(said)


def _did_to_one(said: Said) -> bool:
    """ "Who" and a verb in -ed that is done to one thing, then "the N" of one word ending
    the clause: the one the last answer was about ("Who funded the survey?", "Who directed
    the film?"); a verb of :data:`CREATED` makes the N a kind ("Who invented the telephone?")."""
    texts = said.texts
    verb = texts[1]
    if len(verb) <= 4 or not verb.endswith("ed") or verb in CREATED:
        return False
    return said.content(3) and said.ends_clause(4)


def _subject_unsaid(said: Said) -> bool:
    """With no name, proper name or new noun phrase of its own (a number is a value, not a
    subject), "the N" of one word that says not which, and is not a unique thing ("the
    sky") or a generic one ("the best way"), as the subject of a question word's clause
    that asks of one thing in particular, by a number or a preposition left at its end
    ("Why does the loop start at 1?", "What key is the song in?", "What is the film
    about?"; "Why does the kettle whistle?" asks of a kind, and so do "What is the N?" and
    "What does the N do?") or after a preposition in the past (*was*, *did*, a verb in -ed:
    "Who was president at the time?", "What happened after the war ended?", where the noun
    phrase ends at its verb). A noun phrase of two words or more names a kind ("How does
    the garbage collector work?")."""
    texts, kinds = said.texts, said.kinds
    if not texts or texts[0] not in WH or any(said.proper) or "name" in kinds:
        return False
    new = said.first_new
    if new < len(texts) and (kinds[new] != "literal" or texts[new - 1 : new] in (["a"], ["an"])):
        return False  # "in a 2000 word essay": a number in a new noun phrase
    past = bool(said.plain & PAST) or any(
        len(t) > 4 and said.in_past(k) for k, t in enumerate(texts)
    )
    end = next((k for k in range(len(texts)) if said.ends_clause(k)), len(texts))
    stranded = end > 0 and texts[end - 1] in PREPOSITIONS | MODIFIERS  # "What key is it in?"
    for i in range(2, len(texts) - 1):
        subject = texts[i - 1] in AUXILIARIES and (i == 2 or (i == 3 and said.content(1)))
        if texts[i] != "the" or not (subject or (past and texts[i - 1] in WHEN)):
            continue
        if subject and not (stranded or "literal" in kinds):
            continue  # "Why does the kettle whistle?": a kind, asked of in general
        if i == 2 and texts[0] == "what" and texts[1] in DEFINING and not stranded:
            continue  # "What is the cloud?": a definition
        if said.lowered.endswith(" do") and texts[i - 1] in ("do", "does", "did"):
            continue  # "What does the liver do?": what a kind does
        words = said.phrase(i + 1).stop  # "the war ended": the noun phrase ends at its verb
        noun = texts[i + 1]
        if words - (i + 1) > (2 if subject else 1) or noun in UNIQUE | GENERIC | PICKS:
            continue  # "the first ...": a pick, read by what says which
        if says_which(said, i):
            continue  # "the N to ...", "the N that ..."
        stop = i + 2 if texts[i - 1] in ("do", "does", "did") else words  # then the verb
        if texts[stop : stop + 1] and texts[stop] in OWNERS and not said.ends_clause(stop + 1):
            continue  # "the N of ...", "the N in Python"; not "the loop start at 1"
        if said.content(i + 1):
            return True
    return False


def _unsaid(said: Said, i: int) -> bool:
    """The "the" at ``i`` opens a noun phrase that says not which thing it is, or one of
    another that does not ("the name of the ship"; not "the author of Dune")."""
    texts = said.texts
    while True:
        span = said.phrase(i + 1)
        if not span or any(texts[k] in KINDS for k in span[1:]) or texts[span[0]] in UNIQUE:
            return False  # "Is the earth flat?", "the first man on the moon": one there is
        if not said.anchored(span):
            return True
        owner = texts[span.stop : span.stop + 2]
        if len(owner) < 2 or owner[0] not in OWNERS or owner[1] != "the":
            return False
        i = span.stop + 1


def stands_in(said: Said) -> bool:
    """A pro-form with nothing in the question to stand in for: "one" after "the" and at most
    two words ("the 2nd one", "the cheaper one"), or after "I"/"you"/"we"/"to" and a verb
    ("How do I write one to a file?", "Where can I buy one?"), ending its clause or before a
    preposition, with no new noun phrase before it, nor a name or literal after it and not
    before "to" ("the first one to walk on the moon", "the fastest one in Python 3"); or "both" ending a clause or before an auxiliary or a
    verb of :data:`LINKING`, with no pair joined by "and"/"or" or new noun phrase before it
    ("Both sound good", "Should I learn both?"). Not "one of the ...", "no one", "one
    another", "one-liner", "one big list": a number or a determiner."""
    texts = said.texts
    joined = next((j for j, t in enumerate(texts) if t in JOINED), len(texts))
    for i, word in enumerate(texts):
        if said.kinds[i] != "word" or (said.introduced(i) and word == "both"):
            continue
        if word == "both" and joined > i:
            after = texts[i + 1 : i + 2]
            if said.ends_clause(i + 1) or set(after) & (AUXILIARIES | LINKING):
                return True
        if word != "one" or not (said.ends_clause(i + 1) or set(texts[i + 1 : i + 2]) & PLACES):
            continue
        if i >= 2 and texts[i - 2] in STANDERS and not said.introduced(i):
            return True  # "How do I write one to a file?"
        the = next((j for j in range(max(i - 3, 0), i) if texts[j] == "the"), None)
        if the is None or said.introduced(the) or texts[i + 1 : i + 2] == ["to"]:
            continue  # "the first one to walk on the moon"
        if not any(said.kinds[k] != "word" for k in range(i + 1, len(texts))):
            return True  # "the 2nd one"; not "the cheaper one in Python 3"
    return False


OWNING = wordset("i we my our that which who")
"""In the subject of :func:`reports`, these say whose or which it is ("the code I wrote")."""
JOINED = wordset("and or vs versus between")
"""Before "both", these name the pair it is ("Python or Ruby, are both ...")."""
STANDERS = wordset("i you we to")
"""Two words before "one", these make the word between a verb and "one" its object."""
PLACES = PREPOSITIONS - wordset("of")


def reports(said: Said) -> bool:
    """A statement opening with "the" and a thing an answer gives (:data:`ANSWERED`: "the
    formula", "the code") that says not which, before a negated auxiliary and a verb of
    :data:`FAILING` or a verb of :data:`FAILS`: a report that what the last answer gave fails
    ("the formula doesn't work, gives #VALUE!", "The script crashes on line 3"; not "The
    printer doesn't work after the update": no answer gives a printer; not "the code I wrote
    fails": the asker's)."""
    texts = said.texts
    stop = next((k for k in range(1, min(len(texts), 5)) if texts[k] in NEGATED | FAILS), 0)
    subject = range(1, stop)
    if texts[:1] != ["the"] or not subject or not set(texts[1:stop]) & ANSWERED:
        return False
    if any(said.kinds[k] != "word" or said.proper[k] or texts[k] in OWNING for k in subject):
        return False  # "The Python code fails on Windows", "the code I wrote": which is said
    return texts[stop] in FAILS or (texts[stop + 1 : stop + 2] != [] and texts[stop + 1] in FAILING)


def which_one(said: Said) -> bool:
    """ "which one" or "which ones", or "which" and an auxiliary and "I", "you" or "we", with
    no set named to choose from, whatever else the question names ("Which one would you
    recommend for a beginner?", "Which would you pick for a small team?"). A set is named by
    "of" after it ("Which one of the planets is largest?"), "or", "vs", "between", ... in the
    question ("tabs or spaces, which one is better?"), new noun phrases joined by "and" before
    it ("I have a Mac and a PC; which one ...") or a colon after it ("Which one is the odd one
    out: apple, banana, carrot?") or "is the" and a noun after it ("Which do you think is the
    best programming language?"); "Which is the largest planet?" chooses from no set."""
    texts = said.texts
    return not said.plain & ALTERNATIVES and any(
        texts[k] == "which"
        and (
            (texts[k + 1] in ("one", "ones") and texts[k + 2 : k + 3] != ["of"])
            or (texts[k + 1] in AUXILIARIES - BE and texts[k + 2 : k + 3] in CHOOSERS)
        )
        and said.first_and_after_new > k
        and not said.shown[k]  # "Which one is the odd one out: apple, banana, carrot?"
        and not _predicate_names(said, k)
        for k in range(len(texts) - 1)
    )


def _predicate_names(said: Said, k: int) -> bool:
    """After the "which" at ``k``, "is the" or "are the" names the set in its predicate ("Which
    do you think is the best programming language for beginners?")."""
    texts = said.texts
    return any(
        texts[j] in ("is", "are", "s") and texts[j + 1] == "the" and said.content(j + 2)
        for j in range(k + 2, min(k + 8, len(texts) - 2))
    )


CHOOSERS = (["i"], ["you"], ["we"])
"""After "which" and an auxiliary, these choose from a set ("Which would you pick ...?"): with
none named in the question, the last answer's ("Which is the largest planet?" defines)."""
