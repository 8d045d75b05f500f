"""What the question of the turn above says of a question asked under it, read for
:mod:`arborist._standalone.rule`. Pure: no I/O.

The question alone cannot always tell a follow-up: "why does the proof need a prime?" is whole
as it stands, but asked under "walk me through the proof that sqrt 2 is irrational" its "the
proof" is that one. Each reading here needs a relation between the two questions' words that
a question on the same topic asked afresh does not have: a definite noun phrase whose noun
the turn above brought in with what says which (an owner after it, "a" or a modifier before
it), a noun of an act as a whole under a turn that asked how to do something, a pick
("the second one") from a pair the turn above named, an item by its number from a count the
turn above asked for ("day 2" of "a 4 day plan"), a clause-less fragment that repeats a run of
the turn above's words and restricts it ("... but only at night?"), a clause-less choice
between words ("fresh or frozen?") under a turn it can qualify, what to put into a text, a sum
or advice the turn above asked for (:mod:`arborist._standalone.asked`), or "what is the N" of
a part of an act the turn above asked how to do. A question that shares the turn above's words
inside a clause of its own ("What year did the war end?" under "Who fought in the war?") is
read by the question alone. docs/retrieval.md ("Follow-ups") gives each with its examples.
"""

from __future__ import annotations

from arborist._standalone.asked import fills_in
from arborist._standalone.said import Said
from arborist._standalone.words import (
    GENERIC,
    INTRODUCERS,
    OWNERS,
    PREPOSITIONS,
    RELATIVES,
    SUBJECTS,
    UNIQUE,
)

__all__ = ["follows_above"]

PAIRING = frozenset({"between", "vs", "versus", "or", "and"})
"""Words that name two things to choose from; "or" and "and" only between words of their own."""
PICKED_ONE = frozenset({"first", "second", "third", "last", "other", "latter", "former"})
"""After "the", these pick one side of a pair ("the second one", "the latter")."""
COUNTED_ITEMS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5}
"""Ordinals in words that number an item of a count the turn above asked for ("the second
day" of "a 3 day plan"); "first" and "last" order things in the world too ("the last
commit")."""
ACTS = frozenset(
    {"process", "procedure", "application", "paperwork", "installation", "setup", "surgery"}
    | {"treatment", "recovery", "operation", "repair", "renewal", "registration"}
)
"""Nouns of an act as a whole: after "the" with nothing they are of, under a turn that asked
how to do something, that act ("how long does the process last" under "how do I get a
passport")."""
RESTRICTING = frozenset({"but", "only", "except", "without", "just", "instead", "even"})
"""In a fragment that repeats the turn above's words, these change what it asked."""


def follows_above(said: Said, above: Said) -> bool:
    """``said`` reads as a follow-up of ``above`` by one of the relations of this module."""
    return (
        _elided_owner(said, above)
        or _picks_from_pair(said, above)
        or _numbered_from_count(said, above)
        or _refragment(said, above)
        or _choice(said, above)
        or _act_asked(said, above)
        or fills_in(said, above)
        or _part_of_act(said, above)
    )


def _stem(word: str) -> str:
    """``word`` without a plural's "s" ("letters" and "letter" are one noun here)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _qualified_nouns(above: Said) -> set[str]:
    """The nouns (stems) the turn above brings in with what says which: the head of a noun
    phrase opened by "a"/"an"/"my"/... ("a cover letter"), by "the" before an owner with a
    word of its own ("the construction of the reals"), or with a word of its own before it
    ("the pizza dough", "make pizza dough")."""
    found = set()
    for det, run in _noun_phrases(above):
        head = _head(above, det, run)
        owned = above.texts[det] == "the" and _owned(above, head)
        if above.texts[det] in INTRODUCERS or owned or head > run[0]:
            found.add(_stem(above.texts[head]))
    return found | _bare_compounds(above)


def _bare_compounds(above: Said) -> set[str]:
    """The last noun of each run of three words of its own or more with no determiner before
    it, a verb (or, after an auxiliary of :data:`SUPPORTED`, a subject's verb, left out) and a
    noun with its modifier ("how do I make pizza dough": "dough"; "how do solar panels work":
    "panels"; not "keep changes" or "define inflation", a verb and its object)."""
    found, texts, k = set(), above.texts, 0
    while k < len(texts):
        end = k
        while end < len(texts) and _word(above, end):
            end += 1
        opened = k == 0 or not (texts[k - 1] == "the" or texts[k - 1] in INTRODUCERS)
        supported = k > 0 and texts[k - 1] in SUPPORTED  # a subject, its verb last
        if end - k >= 3 and opened:  # a verb, a modifier and its noun ("make pizza dough")
            last = end - 2 if supported else end - 1
            if _noun(above, last):
                found.add(_stem(texts[last]))
        k = end + 1
    return found


def _noun_phrases(said: Said) -> list[tuple[int, range]]:
    """Each determiner ("the", "a", "my", ...) and the run of words of its own after it (at
    most three, up to an owner or a relative)."""
    found = []
    for det, text in enumerate(said.texts):
        if text == "the" or text in INTRODUCERS:
            end = det + 1
            while end < min(det + 4, len(said.texts)) and _word(said, end):
                end += 1
            if end > det + 1:
                found.append((det, range(det + 1, end)))
    return found


SUPPORTED = frozenset({"do", "does", "did", "can", "could", "will", "would", "should", "might"})
"""Just before a noun phrase, these make it a subject whose verb may end its run ("how does
a pressure cooker work", "why does the proof need ...")."""


def _head(said: Said, det: int, run: range) -> int:
    """The noun of the run after the determiner at ``det``: its last word, or the one before
    it when the phrase is a subject after an auxiliary of :data:`SUPPORTED` and its last word
    is then the verb ("how does a pressure cooker work": "cooker")."""
    if len(run) > 1 and det and said.texts[det - 1] in SUPPORTED:
        return run[-2]
    return run[-1]


def _owned(said: Said, k: int) -> bool:
    """An owner with a word of its own follows ``k`` ("construction of the reals")."""
    owner = said.texts[k + 1 : k + 2] != [] and said.texts[k + 1] in OWNERS
    return owner and (said.content(k + 2) or _det(said, k + 2))


def _word(said: Said, k: int) -> bool:
    """A word of its own at ``k`` that is no owner ("between" and "about" end a noun)."""
    return said.content(k) and said.kinds[k] == "word" and said.texts[k] not in OWNERS


def _noun(said: Said, k: int) -> bool:
    """A word of its own at ``k`` of three letters or more, no part of a name or a literal."""
    return _word(said, k) and len(said.texts[k]) >= 3 and said.texts[k].isalpha()


def _det(said: Said, k: int) -> bool:
    """A determiner at ``k`` with a word of its own after it ("of the reals")."""
    return said.texts[k : k + 1] in (["the"], ["a"], ["an"]) and said.content(k + 1)


def _elided_owner(said: Said, above: Said) -> bool:
    """A definite noun phrase of one noun ("the N", not followed by what it is of, a relative
    clause or a name, no new noun phrase or colon before it that it may be of) whose noun the turn
    above brought in with what says which: the question drops what the turn above said of it
    ("why does the construction need ..." under "explain the construction of the real
    numbers"; "how long should the letter be" under "how do I write a cover letter"; not "the
    construction of a bridge", which says its own)."""
    qualified = _qualified_nouns(above)
    if not qualified:
        return False
    texts, colon = said.texts, said.texts.index(":") if ":" in said.texts else len(said.texts)
    for det, run in _noun_phrases(said):
        if texts[det] != "the" or said.introduced(det) or colon < det:
            continue  # "my bands are smeared, what's the cause?": its own thing's
        head = _head(said, det, run)
        if head > run[0] or said.proper[head] or texts[head] in PICKED_ONE:
            continue  # "the offside rule": a kind's name of two words says which
        after = texts[head + 1 : head + 2]
        if said.kinds[head + 1 : head + 2] in (["name"], ["literal"]):
            continue  # "the error 'KeyError: 0'": named
        if set(after) & (OWNERS | RELATIVES) and not said.ends_clause(head + 2):
            continue  # "the construction of a bridge": what it is of is said here
        if set(after) & SUBJECTS:
            continue  # "the paper I uploaded": a relative clause says which
        if _stem(texts[head]) in qualified:
            return True
    return False


def _picks_from_pair(said: Said, above: Said) -> bool:
    """ "the" and an ordinal or "other" before "one" or at the end of its clause, or "the
    latter"/"the former", when the turn above named a pair ("between", "vs", "or", "and" between
    words of its own) and the question names none of its own: one side of that pair ("do I need
    a lawyer for the second one" under "a will or a trust?")."""
    texts = said.texts
    if set(texts) & (PAIRING - {"and"}) or not _pairs(above):
        return False
    for i in range(len(texts) - 1):
        if texts[i] != "the" or texts[i + 1] not in PICKED_ONE:
            continue
        after = i + 2
        if "one" in texts[:i] or _owned(said, i + 2 if texts[i + 2 : i + 3] == ["one"] else i + 1):
            return False  # "one side ... than the other", "the last one from the loop"
        if texts[i + 1] in ("latter", "former") or said.ends_clause(after):
            return True
        if texts[after : after + 1] in (["one"], ["ones"]):
            return True
    return False


def _pairs(above: Said) -> bool:
    """The turn above names two things or more to choose from."""
    texts = above.texts
    if set(texts) & (PAIRING - {"or", "and"}):
        return True
    return any(
        texts[k] in ("or", "and")
        and above.content(k - 1)
        and (above.content(k + 1) or _det(above, k + 1))
        for k in range(1, len(texts) - 1)
    )


def _numbered_from_count(said: Said, above: Said) -> bool:
    """An item by its number ("day 2", "the second day"), no greater than the count, whose noun
    the turn above counted in a compound whose answer lists them ("a 3 day itinerary", "a 6
    week plan"): an item of the list its answer gave ("swap day 2 for a museum" under "plan me a
    3 day trip"; not "jump to line 40" under "delete a 3 line block", past the count, nor under
    "delete 3 lines", lines to delete being no list of the answer's)."""
    counted = {
        _stem(above.texts[k + 1]): int(above.texts[k])
        for k in range(len(above.texts) - 1)
        if above.kinds[k] == "literal"
        and above.texts[k].isdigit()
        and _noun(above, k + 1)
        and _noun(above, k + 2)  # "a 3 day plan": a plan of days, each an item of its answer
    }
    if not counted:
        return False
    texts, kinds = said.texts, said.kinds
    for k in range(len(texts) - 1):
        if not _noun(said, k) or _stem(texts[k]) not in counted:
            continue
        count = counted[_stem(texts[k])]
        if kinds[k + 1] == "literal" and texts[k + 1].isdigit() and int(texts[k + 1]) <= count:
            return True  # "day 2"
        if k and texts[k - 1] in COUNTED_ITEMS and texts[k - 2 : k - 1] == ["the"]:
            return COUNTED_ITEMS[texts[k - 1]] <= count  # "the second day"
    return False


def _refragment(said: Said, above: Said) -> bool:
    """A question with no clause (no question word, no auxiliary) that repeats a run of two
    tokens or more of the turn above, a word of its own among them, and restricts it with a
    word of :data:`RESTRICTING`: the turn above's question asked again with a slot changed
    ("every 5 minutes but only on weekdays?" under "how do I run a cron job every 5 minutes";
    not "how do I run a cron job every hour?", which has a clause of its own, nor "difference
    between sets and lists?" under "difference between tuples and lists", a new pair)."""
    if said.has_clause or said.texts[-1:] != ["?"] or not set(said.texts) & RESTRICTING:
        return False
    runs = {
        tuple(above.texts[k : k + 2])
        for k in range(len(above.texts) - 1)
        if above.content(k) or above.content(k + 1)
    }
    texts = said.texts
    shared = [k for k in range(len(texts) - 1) if tuple(texts[k : k + 2]) in runs]
    return bool(shared) and said.contents() > sum(said.content(k) for k in _covered(shared))


def _covered(starts: list[int]) -> set[int]:
    """The places a run of two tokens starting at each of ``starts`` covers."""
    return {k for s in starts for k in (s, s + 1)}


def _choice(said: Said, above: Said) -> bool:
    """A question with no clause and no preposition that offers a choice ("X or Y?") of
    at most four words of its own: a choice within what the turn above asked ("fresh or
    frozen?" under "how much spinach for a lasagne"; not "vim or emacs for writing Go?", which
    says what the choice is for). ``above`` is read only as being there."""
    del above
    texts = said.texts
    if said.has_clause or texts[-1:] != ["?"] or "or" not in texts[1:-2]:
        return False
    return not (set(texts) & PREPOSITIONS or said.contents() > 4)


def _act_asked(said: Said, above: Said) -> bool:
    """ "the" and a noun of :data:`ACTS` with no owner after it and no new noun phrase before it,
    under a turn that asked how to do something ("how do I ...", "how to ...", "how can I
    ..."): the act it asked about ("is the procedure painful?" under "how do I get a tooth
    pulled"; not "how long does the process of photosynthesis take", nor under "what is a
    passport", which asked no act)."""
    if not _how_to(above):
        return False
    texts = said.texts
    return any(
        texts[k] in ACTS
        and texts[k - 1] == "the"
        and not said.introduced(k - 1)
        and not _owned(said, k)
        and said.kinds[k + 1 : k + 2] not in (["name"], ["literal"])
        for k in range(1, len(texts))
    )


def _part_of_act(said: Said, above: Said) -> bool:
    """ "what", "when", "how long" or "how much" and a form of "be" before "the" and one word
    (an adverb at most after it) ending the question, under a turn that asked how to do
    something: a part of that act ("what is the deadline" under "how do I apply for a
    scholarship", "how long is the wait usually" under "how do I book a driving test"; not "what
    is the internet", a thing there is one of, nor under "what is a scholarship")."""
    if not _how_to(above):
        return False
    texts = said.texts
    k = 2 if texts[:2] in (["how", "long"], ["how", "much"]) else 1
    if texts[:1] not in (["what"], ["when"], ["how"]) or (k == 1 and texts[0] == "how"):
        return False
    if texts[k : k + 2] not in (["is", "the"], ["s", "the"], ["are", "the"]):
        return False
    noun = k + 2
    if not _noun(said, noun) or texts[noun] in UNIQUE | GENERIC:
        return False
    end = noun + 1 + (texts[noun + 1 : noun + 2] != [] and texts[noun + 1].endswith("ly"))
    return said.ends_clause(end)


def _how_to(above: Said) -> bool:
    """The turn above asked how to do something ("how do I ...", "how to ...", "how can I ...")."""
    return above.texts[:1] == ["how"] and above.texts[1:2] != [] and above.texts[1] in HOW_TO


HOW_TO = frozenset({"to", "do", "can", "should", "would"})
"""After "how" opening the turn above, these make it ask how to do something."""
