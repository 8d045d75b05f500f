"""Whether a question stands alone or follows up the turn above it. Pure: no I/O.

A question that does not stand alone is filed under the turn above it and borrows that
turn's words (:mod:`arborist._qa.followups`); one that does is read as at the root. The
rule reads the question as :mod:`arborist._standalone.said` gives it (names, literals, words,
punctuation, and where its noun phrases are) with the word lists of
:mod:`arborist._standalone.words`, what continues the question above by how it opens in
:mod:`arborist._standalone.continues`, what replies to the last answer in
:mod:`arborist._standalone.replies`, what leans for want of a subject of its own in
:mod:`arborist._standalone.leans`, the empty "it" in :mod:`arborist._standalone.expletive`,
where a demonstrative points in :mod:`arborist._standalone.points` and a question in the past about
an occasion it does not name in :mod:`arborist._standalone.occasion`; docs/retrieval.md
("Follow-ups") gives it in full with its measurement.
:mod:`arborist._text.analysis` re-exports :func:`stands_alone`, where its callers import it.
"""

from __future__ import annotations

from arborist._standalone.above import follows_above
from arborist._standalone.continues import confirms, continues, subordinate_only
from arborist._standalone.expletive import expletive
from arborist._standalone.goes_on import goes_on
from arborist._standalone.leans import (
    definite_subject,
    leans,
    owned_subject,
    reports,
    stands_in,
    which_one,
)
from arborist._standalone.marks import marked
from arborist._standalone.occasion import unnamed_occasion
from arborist._standalone.picks import numbered, picks
from arborist._standalone.points import (
    BELIEVED,
    COORDINATORS,
    adverbs_after,
    bare_plural,
    defined_by_clause,
    determiner,
    named_in,
    object_of_subject,
)
from arborist._standalone.reacts import names_replaced, reacts
from arborist._standalone.replies import (
    adds,
    corrects,
    documented,
    edits,
    exchanges,
    names_its_subject,
    recalls_act,
    recalls_answer,
    substitutes,
)
from arborist._standalone.said import ENDS, Said
from arborist._standalone.words import (
    ADDITIVES,
    AUXILIARIES,
    CLAUSE_WORDS,
    DEMONSTRATIVES,
    LIFTED,
    OBJECTS,
    ORDINALS,
    PARTS,
    POSSESSIVES,
    PREPOSITIONS,
    PRONOUNS,
    RESPONSES,
    SEQUELS,
    TIMES,
)

__all__ = ["stands_alone"]


def stands_alone(question: str, above: str | None = None) -> bool:
    """Whether ``question`` (asked under the turn that asked ``above``) needs no turn above it.

    It cannot when it (docs/retrieval.md, "Follow-ups", gives each rule with its examples)

    * continues another: a continuation opener with too little of its own after it ("And
      for sets?", "What about dumps?"; "And what is a closure?" has a subject of its own),
      "go on", "now" before a verb ("Now add error handling"), a bare modifier or condition
      ("with a custom separator", "even when the list is empty?"), or "so" before a
      statement put back to confirm ("So the dosage is the same for adults?");
    * has no word of its own ("Why?"), or presupposes something said ("too", "instead",
      "next" ending a clause, "in reply") or recalls the last answer ("the part about ...",
      "the formula you used", "Why did you choose a heap?", "there" ending a clause);
    * refers back: a pronoun or demonstrative with no noun phrase in the question that it
      can stand for (a name, a literal, a noun after "a"/"my"/..., a first clause's
      subject, a first sentence that stands alone for a demonstrative: "Octopuses have
      three hearts. How does that work?", what follows a colon for "this"; not the head of
      the relative clause it is the object of: "a recipe that uses them"), "it" standing
      for a clause ("Is it possible to ..."), the weather or the time ("It's been snowing
      for days") or a program's output ("it says 'divergent branches'") excepted;
    * replies to the last answer, whatever else it names: corrects it ("No, I meant ...",
      "That's wrong, ..."), edits it ("Translate the answer into French", "Can I substitute
      the eggs?", "Use a dict instead of the list", "Continue.", "What happens if I leave out
      the eggs?"), picks from it ("the first method", "the two approaches", "the original",
      "your solution", "step 3", "option B"; not "the last git commit"), exchanges with one
      side of it ("Can I substitute yogurt?"), adds to it ("Can you add type hints?"), or
      asks of a part of a document that says not whose ("What does the figure on page 4
      show?", "after the filtering");
    * asks about "the N" with nothing saying which N, as the subject of a yes/no question,
      one in the past or after "who is", "who won" or "who" and a verb in -ed ("Was the comic
      successful?", "Who won the rematch?", "Who funded the study?"), or, with no name or new noun phrase of its own, as a question word's
      subject ("What does the acronym stand for?") or placed in the past ("Who was
      president at the time?"); a unique thing ("the sky") or a kind's name of two words
      ("the garbage collector") says which;
    * leans on the last answer with no subject of its own: "what if ...", a comparison
      with nothing to compare, "the second/other/full ...", "also", "another", "tell me
      more", a question word or auxiliary with at most one word ("What year?", "Who won?",
      "Should I be worried?"), a noun that is of something with nothing it is of ("What's
      the default value?", "Examples please", "Is there a vegetarian version?", "the
      p-value for the interaction term": what it is of says not which; "What would the result
      be for a negative number?": a subject's condition is not its owner), or a phrase with
      a question mark, no clause and fewer than three words of its own. A comparison
      completed by "than" has something to compare ("a faster way ... than recursion"), and
      so has one on a bare subject before a setting ("Why does bread go stale faster in the
      fridge?");
    * changes or chooses from the last output: "now in French", "try again but with ...",
      "Which one would you recommend?" with no set named;
    * carries a mark of :mod:`arborist._standalone.marks` ("what size though?"), goes on as
      :mod:`arborist._standalone.goes_on` reads ("wait, why ...?") or relates to ``above``.

    A greeting ("Hi there!") and "please" are read as absent, and so is what the asker
    believed after the question ("Why ...? I always thought it was the other way round."). A
    phrase without a question mark ("heapq", "decimal rounding half up", "git rebase vs merge")
    is a search."""
    said = Said.read(question)
    follows = above is not None and follows_above(said, Said.read(above))
    if follows or marked(said, question) or goes_on(question):
        return False
    first = _belief_after(said)  # "Why ...? I always thought it was the other way round."
    return _stands(first or said, first is not None or question.rstrip().endswith("?"))


def _stands(said: Said, asked: bool) -> bool:
    """:func:`stands_alone` of a question read, ``asked`` when it ends with a question mark.
    "No," opening it answers the last answer: what follows stands alone only with a clause
    of its own that does ("No, seriously, how do I fix a leaky faucet?"; "No, the other
    Batman, the Keaton one" corrects)."""
    if corrects(said) or confirms(said, asked):
        return False
    if said.texts[:1] in (["no"], ["nope"]) and said.kinds[1:2] == ["mark"]:
        start = 1
        while start < len(said.texts) and (
            said.kinds[start] == "mark" or said.texts[start] in ("no", "nope")
        ):
            start += 1  # "No, no, ...": read once
        rest = Said(said.kinds[start:], said.texts[start:], [False, *said.proper[start + 1 :]])
        return rest.has_clause and _stands(rest, asked)  # "No, the other Batman" corrects
    lifted = _lifted(said)
    if lifted is not None:
        said = lifted
    elif continues(said):
        return False
    if not said.has_content() or _refers_back(said) or _replies(said) or which_one(said):
        return False
    named = said.introduced(said.contrast) or exchanges(said)
    if named and not (definite_subject(said) or owned_subject(said)):
        return True
    bare = asked and not said.has_clause and said.contents() < 3
    return not (leans(said) or bare or owned_subject(said))


BELIEVED_ONCE = frozenset({"thought", "believed", "assumed", "figured", "heard", "read"})
"""After "I" (and an adverb) opening a sentence, what the asker believed of the question before
it: a comment on that question, no question of its own."""


def _belief_after(said: Said) -> Said | None:
    """The question before the first question mark, with a clause, when the only sentence after
    it opens with "I", at most one adverb and a verb of :data:`BELIEVED_ONCE` ("Why does bread go
    stale faster in the fridge? I always thought it was the other way round."): what the asker
    believed comments on that question, which is all it asks (not "Is this safe? I thought so."
    when the question itself refers back). None otherwise."""
    texts = said.texts
    mark = next((k for k, t in enumerate(texts) if t == "?" and said.kinds[k] == "mark"), None)
    if mark is None or texts[mark + 1 : mark + 2] != ["i"] or "?" in texts[mark + 1 :]:
        return None
    verb = mark + 2 if texts[mark + 2 : mark + 3] and texts[mark + 2] in BELIEVED_ONCE else mark + 3
    if texts[verb : verb + 1] == [] or texts[verb] not in BELIEVED_ONCE:
        return None
    first = Said(said.kinds[:mark], texts[:mark], said.proper[:mark])
    return first if first.has_clause else None


def _replies(said: Said) -> bool:
    """It edits the last answer, picks from it, or asks of a part of a document with nothing
    saying whose (:mod:`arborist._standalone.replies`)."""
    if edits(said) or picks(said) or documented(said) or numbered(said):
        return True
    if substitutes(said) or adds(said) or stands_in(said) or reports(said):
        return True
    return reacts(said) or unnamed_occasion(said)


def _lifted(said: Said) -> Said | None:
    """What follows an opener of :data:`LIFTED`, when it has a subject of its own: a clause
    with two words of its own or more ("And what is a closure?", "So how does compound
    interest work?"), or three words of its own or more ("How about a good substitute for
    buttermilk in pancakes?"), not itself a continuation, and not a setting after "and" ("And in
    Python, how do I ...?" adds a case to the question above). None otherwise."""
    opener = next((c for c in LIFTED if said.lowered.startswith(c + " ")), None)
    if opener is None:
        return None
    words = [j for j, kind in enumerate(said.kinds) if kind != "mark"]
    start = words[len(opener.split())]
    while start < len(said.texts) and said.kinds[start] == "mark":
        start += 1
    proper = [False, *said.proper[start + 1 :]]
    rest = Said(said.kinds[start:], said.texts[start:], proper)
    if continues(rest) or subordinate_only(rest) or rest.contents() < (2 if rest.has_clause else 3):
        return None
    if opener == "and" and rest.texts[0] in PREPOSITIONS:
        return None  # "And in the case of a tenant of ten years, does ...": a case added
    if not names_its_subject(rest):
        return None
    return rest


def _points_within(said: Said, i: int) -> bool:
    """The demonstrative at ``i`` is a conjunction, or points at something in the question."""
    texts = said.texts
    particle = texts[i + 1 : i + 2] != [] and texts[i + 1] in PARTICLES  # "speed that up"
    if (
        texts[i] == "that"
        and not (particle and said.ends_clause(i + 2) and said.content(i - 1))
        and not (
            i == 0
            or (said.kinds[i - 1] == "mark" and texts[i - 1] in ENDS)  # "Are you sure? That seems"
            or (texts[i - 1] == "," and texts[i + 1 : i + 2] != [] and texts[i + 1] in SEEMING)
            or determiner(said, i)
            or (
                texts[i - 1] in BELIEVED
                and texts[i + 1 : i + 2] != []
                and texts[i + 1] in AUXILIARIES
            )
            or texts[i - 1] in PREPOSITIONS | AUXILIARIES
            or said.ends_clause(i + 1)
            or texts[i + 1] in PREPOSITIONS | ADDITIVES | COORDINATORS
            or (said.content(i + 1) and said.ends_clause(i + 2))  # "put that line?"
            or adverbs_after(said, i)  # "rephrase that more formally": no clause follows
        )
    ):
        return True  # a conjunction or a relative pronoun: "so that", "a list that"
    if texts[i] == "this" and (_forward(said, i) or set(texts[i + 1 : i + 2]) & TIMES):
        return True  # "this year": now
    if texts[i] in ("this", "these") and said.shown[i]:
        return True  # "Is this a valid date format: 2024-13-01?": what follows the colon
    if texts[i] in ("this", "that") and defined_by_clause(said, i):
        return True  # "That thing where your ears pop on a plane": its clause says which
    named = texts[i + 1 : i + 2] != [] and texts[i + 1] not in AUXILIARIES and named_in(said)
    fresh = texts[i] == "those" and said.content(i + 1)  # "'EACCES' after those steps"
    if fresh:  # only a name after it or its noun before it says what "those" N are
        named = named and any(said.kinds[k] != "word" for k in range(i + 1, len(texts)))
        fresh = texts[i + 1].rstrip("s") not in {t.rstrip("s") for t in texts[:i]}
    if i > 0 and texts[i - 1] in AUXILIARIES:  # "Does that work for Python 2?": the subject
        near = range(i + 1, min(i + 5, len(texts)))
        named = any(  # "this regex match 'abc'", not "that work for Python 2"
            (said.kinds[k] in ("name", "literal") or said.proper[k])
            and texts[k - 1] not in PREPOSITIONS
            for k in near[:3]
        )
        named = named or any(texts[k] == ":" for k in near)  # "this error mean: ..."
    owned = i == 0 and set(texts[i + 2 : i + 4]) & {"my", "our"}  # "that rattle my car makes"
    if said.content(i + 1) and (named or owned or texts[i + 2 : i + 3] in (["i"], ["we"], [":"])):
        return True  # "this timestamp 1700000000", "That regex I wrote", "these two: ..."
    return (
        not fresh
        and said.introduced(i)
        and not (  # "a library for that"
            i < said.relative_end()
            or object_of_subject(said, i)  # not "a Bayesian approach handle this"
        )
    )


def _introduces(said: Said, i: int) -> bool:
    """The demonstrative at ``i`` is in the first sentence, where the asker says how they are
    ("I'm new to all this.", "I am confused by this!"), not a question, and a question that
    stands alone follows it: what it points at is that question's subject ("Hello! I'm new to all
    this. Could you explain what a Bloom filter is?"; not "I'm confused by this. Why?")."""
    texts = said.texts
    start, end = said.sentence(i).start, said.sentence(i).stop
    if start or end >= len(texts) or texts[end] == "?" or texts[:2] not in STATED:
        return False
    return _alone_after(said, end)


PARTICLES = frozenset({"up", "down", "out", "off", "back", "away"})
"""Between a verb and one of these ending its clause, a demonstrative is the verb's object."""
SEEMING = frozenset({"sounds", "seems", "looks", "feels"})
"""After a comma, "that" before these is a subject ("shorter, that sounds like a memo")."""
PLACED = PREPOSITIONS | {"about"}
"""After "that" and a part of a text, these say where it is ("that bit about escrow")."""
STATED = (["i", "m"], ["i", "am"])
"""Opening a sentence, these say how the asker is ("I'm new to all this")."""


def _forward(said: Said, i: int) -> bool:
    """The "this" at ``i`` is the question itself, which follows "but" and stands alone
    ("This might be a dumb question, but why is the sky blue?", "This might be a dumb question
    but what's the difference between RAM and storage?")."""
    but = said.but
    if i >= but:
        return False
    if "forward" not in said.memo:
        rest = Said(said.kinds[but + 1 :], said.texts[but + 1 :], [False, *said.proper[but + 2 :]])
        rest.memo["forward"] = False  # read once: its own "this" does not look further
        said.memo["forward"] = _stands(rest, asked=True)
    return said.memo["forward"]


def _refers_back(said: Said) -> bool:
    """A pronoun or demonstrative with nothing in the question to stand for, or a word
    that presupposes something said ("too" ending a clause, "instead" without "of")."""
    for i, word in enumerate(said.texts):
        if said.kinds[i] != "word":
            continue
        if word in PRONOUNS:
            if not (expletive(said, i) or _stands_for(said, i)):
                shown = said.shown[i] and _shown_after(said, i)  # "Explain it: why ...?"
                return not (word == "it" and (shown or _tags_before(said, i)))
        elif word in DEMONSTRATIVES:
            if not (_points_within(said, i) or _says_before(said, i) or _introduces(said, i)):
                return not _tags_before(said, i)
        elif (
            (word in ADDITIVES and _ends_term(said, i) and not _coordinated(said, i))
            or (
                word == "instead"
                and said.texts[i + 1 : i + 2] != ["of"]
                and not names_replaced(said, i)
            )
            or _as_well(said, i)
            or _recalls(said, i)
        ):
            return True
    return False


def _ends_term(said: Said, i: int) -> bool:
    """The word at ``i`` ends a clause, or a term before "or" ("takeaway too or only dine-in")."""
    return said.ends_clause(i + 1) or said.texts[i + 1 : i + 2] == ["or"]


def _as_well(said: Said, i: int) -> bool:
    """The "well" at ``i`` ends "as well" at the end of a clause, which adds to something said,
    like "too": not to an earlier clause of the question ("copy a file and keep its mode as
    well"), nor before a contrast that names what it adds to ("stash untracked files as well,
    not just modified ones")."""
    if said.texts[i] != "well" or said.texts[i - 1 : i] != ["as"] or not said.ends_clause(i + 1):
        return False
    return not _coordinated(said, i) and said.texts[i + 2 : i + 3] != ["not"]


def _recalls(said: Said, i: int) -> bool:
    """The word at ``i`` recalls the last answer: "next" ending a clause ("What happened
    next"; not after a first clause that names what it follows: "Who won the Battle of
    Hastings, and what changed afterward?"), "the part about ...", "that last bit about ...", "the formula you used",
    "in response" or "as a result"
    ending a clause (to what was said), "there" ending a clause with no place named before
    it ("Why not use a mutex there?"; not "Is there ...", "Total beginner here. ...")."""
    texts, word = said.texts, said.texts[i]
    before = texts[i - 1 : i]
    if word in SEQUELS:  # "Who won the Battle of Hastings, and what changed afterward?"
        anchored = said.first_joint < i and min(said.first_named, said.first_new) < said.first_joint
        return said.ends_clause(i + 1) and said.first_condition > i and not anchored
    if word in PARTS:
        return _part(said, i)
    if word in ("you", "your"):  # "the formula you used", "your solution"
        return recalls_act(said, i) if word == "you" else recalls_answer(said, i)
    if word in RESPONSES and said.ends_clause(i + 1):  # "What did she say in reply?"
        return before == ["in"] or (word == "result" and texts[i - 2 : i] == ["as", "a"])
    if word not in ("there", "here") or not said.ends_clause(i + 1) or _introduced_here(said, i):
        return False
    return not set(before) & AUXILIARIES and not _placed_before(said, i)


def _placed_before(said: Said, i: int) -> bool:
    """A name, a proper name or a literal that is not a number comes before ``i``: a place
    "there" or "here" may be ("Is Python slow there?" is not read so; "why 0.05 and not 0.01
    here?" names no place: numbers are values)."""
    return any(
        said.proper[k]
        or said.kinds[k] == "name"
        or (said.kinds[k] == "literal" and not said.texts[k][:1].isdigit())
        for k in range(min(i, said.first_named), i)
    )


def _part(said: Said, i: int) -> bool:
    """The part of a text at ``i`` is the last answer's: after "the" or "that" (and an ordinal:
    "that last bit about escrow") and not of something ("the part about ..."; not "the
    sentence \"The old man the boats\"": it is quoted; not "Is it true that bits are ...",
    where "that" is a conjunction)."""
    texts = said.texts
    before, after = texts[i - 1 : i], texts[i + 1 : i + 2]
    named = any(said.kinds[k] != "word" for k in said.phrase(i))
    if set(before) & ORDINALS:
        before = texts[i - 2 : i - 1]
    if before == ["that"] and not (said.ends_clause(i + 1) or set(after) & PLACED):
        return False
    return before in (["the"], ["that"]) and after != ["of"] and not named


def _introduced_here(said: Said, i: int) -> bool:
    """The "here" at ``i`` ends the first sentence, which has no clause (no question word, no
    auxiliary), before a question with a clause that stands alone: the asker saying who they
    are ("Total beginner here. What is a REST API?"; not "Why did you use a set here?",
    "Stuck here. Any ideas?")."""
    sentence = said.sentence(i)
    if said.texts[i] != "here" or sentence.start or sentence.stop != i + 1:
        return False
    if sentence.stop + 1 >= len(said.texts):
        return False
    if set(said.texts[sentence.start : sentence.stop]) & CLAUSE_WORDS:
        return False
    return _alone_after(said, sentence.stop)


def _alone_after(said: Said, end: int) -> bool:
    """What follows the mark at ``end``, the first sentence's, has a clause and stands alone
    (read once, and its own first sentence not read so again)."""
    if "alone_after" not in said.memo:
        rest = Said(said.kinds[end + 1 :], said.texts[end + 1 :], [False, *said.proper[end + 2 :]])
        rest.memo["alone_after"] = False
        said.memo["alone_after"] = rest.has_clause and _stands(rest, asked=True)
    return said.memo["alone_after"]


def _shown_after(said: Said, i: int) -> bool:
    """What follows the colon after ``i`` is a question with a clause that stands alone: what
    an "it" before the colon stands for ("Explain it to me like I'm ten: why do we have leap
    years?"; not "Explain it again: I still don't get it")."""
    if "shown_after" not in said.memo:
        colon = next(k for k in range(i, len(said.texts)) if said.texts[k] == ":")
        rest = Said(said.kinds[colon + 1 :], said.texts[colon + 1 :], said.proper[colon + 1 :])
        said.memo["shown_after"] = rest.has_clause and _stands(rest, asked=True)
    return said.memo["shown_after"]


def _tags_before(said: Said, i: int) -> bool:
    """The demonstrative or "it" at ``i`` is the subject of a second question after an
    auxiliary, joined by a comma, "or" or both to a first clause that stands alone with two
    words of its own or more: it stands for that clause or its subject ("Is it true that you
    shouldn't swim after eating, or is that a myth?", "does cold water boil faster or is that a
    myth", "why is snow white, is it the air in it"; not "Nice, or is that wrong?"). The first
    clause is read once."""
    texts = said.texts
    if i < 3 or texts[i - 1] not in AUXILIARIES or said.sentence(i).start:
        return False
    joint = i - 2 if texts[i - 2] in ("or", ",") else None
    if texts[i - 2] == "and" or (joint is not None and texts[i - 3] == ","):
        joint = i - 3 if texts[i - 3] == "," else None  # ", or is that ...", ", and is it ..."
    if joint is None:
        return False
    if "tags_before" not in said.memo:
        clause = Said(said.kinds[:joint], said.texts[:joint], said.proper[:joint])
        alone = clause.contents() >= 2 and clause.has_clause
        said.memo["tags_before"] = alone and _stands(clause, asked=True)
    return said.memo["tags_before"]


def _says_before(said: Said, i: int) -> bool:
    """The demonstrative at ``i`` follows a first sentence that stands alone with three words
    of its own or more, and is what it says ("Some say goldfish remember for three seconds.
    Is that so?"; not "Nice answer. Why is that?")."""
    end = said.first_joint
    if not (end < i and said.texts[end] in ENDS and _first_clause_alone(said)):
        return False
    return sum(said.content(k) for k in range(end)) >= 3  # not "Great answer. Why is that?"


def _stands_for(said: Said, i: int) -> bool:
    """A noun phrase before the pronoun at ``i`` can be what it stands for: a new one not
    the head of a relative clause the pronoun is the object of ("a recipe that uses
    them"), or the subject of a clause that stands alone before "and" ("how do index
    funds work and why do people say they ...")."""
    if said.introduced(i) and not (
        said.texts[i] in OBJECTS and (i < said.relative_end() or object_of_subject(said, i))
    ):
        return True
    if said.texts[i] in POSSESSIVES and said.bare_subject() < i:
        return True  # "Why do cats land on their feet?"
    if said.texts[i] == "their" and bare_plural(said, i):
        return True  # "bash loop over files with spaces in their names"
    if said.texts[i] in THING and _person_taken(said, i):
        return False  # "How did Napoleon react when he heard about it?": he is Napoleon
    return said.first_joint < i and _first_clause_alone(said)


THING = frozenset({"it", "its", "itself"})
PERSON = frozenset({"he", "him", "his", "she", "her", "hers"})


def _person_taken(said: Said, i: int) -> bool:
    """The first clause has only its subject and its verb as words of its own (two words, or a
    proper name and its verb after it), and a pronoun of a person after it takes that subject: the
    thing pronoun at ``i`` has nothing left to stand for ("How did Napoleon react when he heard
    about it?", "How did Marie Curie feel when she won it?"; not "How did Napoleon lose the
    battle of Waterloo and why did he regret it?", where the battle is left)."""
    end = said.first_joint
    if "person" not in said.memo_at:  # found once: where the first person after the joint is
        own = [k for k in range(end) if said.content(k)]
        named = own[:-1] != [] and all(said.proper[k] for k in own[:-1])  # "Marie Curie feel"
        two = len(own) == 2 or (named and not said.proper[own[-1]])
        texts = said.texts
        said.memo_at["person"] = [
            next((k for k in range(end, len(texts)) if two and texts[k] in PERSON), len(texts))
        ]
    return end < said.memo_at["person"][0] < i


def _first_clause_alone(said: Said) -> bool:
    """The words before the first "and" have two words of their own or more, nothing that
    refers back and nothing that leans: a clause whose subject a later pronoun may be."""
    if "first_clause_alone" not in said.memo:
        end = said.first_joint
        clause = Said(said.kinds[:end], said.texts[:end], said.proper[:end])
        alone = clause.contents() >= 2 and not _refers_back(clause) and not leans(clause)
        said.memo["first_clause_alone"] = alone
    return said.memo["first_clause_alone"]


def _coordinated(said: Said, i: int) -> bool:
    """An earlier clause of the question, joined by "and", is what the "too" at ``i`` adds
    to ("copy a file and keep its timestamps too")."""
    return said.first_and_after_new < i
