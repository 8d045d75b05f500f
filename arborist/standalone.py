"""Whether a question stands alone or follows up the turn above it. Pure: no I/O.

A question that does not stand alone is filed under the turn above it and borrows that
turn's words (:mod:`arborist.qa.followups`); one that does is read as at the root. The
rule reads the question as tokens (names, literals, words, punctuation) and the word
lists of :mod:`arborist.standalone_words`; docs/retrieval.md ("Follow-ups") gives it in full with its measurement.
:mod:`arborist.analysis` re-exports :func:`stands_alone`, where its callers import it.
"""

from __future__ import annotations

from arborist.standalone_words import (
    ACKNOWLEDGEMENTS,
    ADDITIVES,
    ALTERNATIVES,
    ANAPHORIC_MODIFIERS,
    AUXILIARIES,
    BE,
    CLAUSE_WORDS,
    COMPARATIVES,
    CONDITIONS,
    CONTINUATIONS,
    DEFINING,
    DEGREES,
    DEMONSTRATIVES,
    EVALUATIVE,
    EVEN_BEFORE,
    EXPLETIVE_VERBS,
    FILLERS,
    INTRODUCERS,
    KINDS,
    LIFTED,
    MODIFIERS,
    MODIFYING,
    MORE,
    NOT_PROPER,
    OBJECTS,
    OWNED,
    OWNERS,
    PARTS,
    PAST,
    POSSESSIVES,
    PREPOSITIONS,
    PROCEED,
    PRONOUNS,
    RECALLED,
    RELATIONAL,
    RELATIVE,
    RELATIVES,
    REPEATS,
    SAYING,
    SEEKERS,
    SEQUELS,
    SOMEONE,
    SUBORDINATORS,
    TOKEN,
    WH,
)
from arborist.text_words import STOPWORDS, fold

__all__ = ["stands_alone"]


def stands_alone(question: str) -> bool:
    """Whether ``question`` can be answered without the turns above it.

    It cannot when it (docs/retrieval.md, "Follow-ups", gives each rule with its examples)

    * continues another: a continuation opener with too little of its own after it ("And
      for sets?", "What about dumps?"; "And what is a closure?" has a subject of its own),
      "go on", or a bare modifier or condition ("with a custom separator", "even when
      the list is empty?");
    * has no word of its own ("Why?"), or presupposes something said ("too", "instead",
      "next" ending a clause) or recalls the last answer ("the part about ...", "the
      formula you used", "there" ending a clause);
    * refers back: a pronoun or demonstrative with no noun phrase in the question that it
      can stand for (a name, a literal, a noun after "a"/"my"/..., a first clause's
      subject; not the head of the relative clause it is the object of: "a recipe that
      uses them"), "it" standing for a clause ("Is it possible to ...") or for a program's
      output ("it says 'divergent branches'") excepted;
    * asks about "the N" with nothing saying which N, as the subject of a yes/no question,
      one in the past or after "who is" ("Was the comic successful?");
    * leans on the last answer with no subject of its own: "what if ...", a comparison
      with nothing to compare, "the second/other/full ...", "also", "another", "tell me
      more", a question word or auxiliary with at most one word ("What year?", "Who won?",
      "Should I be worried?"), a noun that is of something with nothing it is of ("What's
      the default value?", "Examples please", "Is there a vegetarian version?"), or a
      phrase with a question mark, no clause and fewer than three words of its own.

    "please" is read as absent. A phrase without a question mark ("heapq", "decimal
    rounding half up", "git rebase vs merge") is a search.
    """
    said = _Said.read(question)
    lifted = said.lifted()
    if lifted is not None:
        said = lifted
    elif said.continues():
        return False
    if not said.has_content() or said.refers_back():
        return False
    if said.introduced(len(said.texts)) and not said.definite_subject():
        return True
    bare = question.rstrip().endswith("?") and not said.has_clause and said.contents() < 3
    return not (said.leans() or bare)


class _Said:
    """A question as tokens (a name, a literal, a folded word or a punctuation mark), read
    for :func:`stands_alone`; a reply's acknowledgement ("ok", "thanks") left out."""

    def __init__(self, kinds: list[str], texts: list[str], proper: list[bool]) -> None:
        self.kinds = kinds
        self.texts = texts
        self.proper = proper
        """Which words are capitalised inside a sentence ("the GIL", "World War II"): proper
        names, which say what a question is about as a name does."""
        self.last_proper = max((j for j, p in enumerate(proper) if p), default=-1)
        self.plain = set(texts)
        self.has_clause = bool(self.plain & CLAUSE_WORDS)
        self.named = any(k in ("name", "literal") for k in kinds)
        self.first_content = next((k for k in range(len(texts)) if self.content(k)), len(texts))
        self.lowered = " ".join(fold(t) for k, t in zip(kinds, texts, strict=True) if k != "mark")
        self.first_new = next(
            (
                k
                for j, kind in enumerate(kinds)
                for k in ([j] if kind in ("name", "literal") else range(j + 1, j + 4))
                if self.opens(j, k) and self.content(k)
            ),
            len(texts),
        )
        """Where the first new noun phrase's noun (or name, or literal) is: a pronoun after it
        may stand for it."""
        self.first_and = next((j for j, t in enumerate(texts) if t == "and"), len(texts))
        self._first_clause_alone: bool | None = None
        self._relative_end: int | None = None
        self.first_named = next(
            (j for j, k in enumerate(kinds) if k in ("name", "literal") or proper[j]), len(texts)
        )
        """Where the first name, literal or proper name is: a place "there" may be."""
        self.first_condition = next((j for j, t in enumerate(texts) if t in CONDITIONS), len(texts))
        self.first_and_after_new = next(
            (j for j in range(self.first_new + 1, len(texts)) if texts[j] == "and"), len(texts)
        )

    @classmethod
    def read(cls, question: str) -> _Said:
        tokens = [(str(m.lastgroup), m.group(0)) for m in TOKEN.finditer(question)]
        tokens = [(k, t) for k, t in tokens if k != "word" or fold(t) not in FILLERS]
        kinds = [kind for kind, _ in tokens]
        texts = [fold(text) if kind == "word" else text for kind, text in tokens]
        start = 0
        while start < len(texts) and (kinds[start] == "mark" or texts[start] in ACKNOWLEDGEMENTS):
            start += 1
        proper = [
            j > start and kind == "word" and text[:1].isupper() and text not in NOT_PROPER
            and tokens[j - 1][1] not in ".?!;:"
            for j, (kind, text) in enumerate(tokens)
        ]  # fmt: skip
        for j in range(start, len(texts) - 1):
            if texts[j] == "won" and texts[j + 1] == "t":
                texts[j] = "will"  # "won't"; "won" alone is the verb ("Who won?")
        return cls(kinds[start:], texts[start:], proper[start:])

    def lifted(self) -> _Said | None:
        """What follows an opener of :data:`LIFTED`, when it has a subject of its own: a clause
        with two words of its own or more ("And what is a closure?", "So how does compound
        interest work?"), or three words of its own or more ("How about a good substitute for
        buttermilk in pancakes?"), not itself a continuation. None otherwise."""
        opener = next((c for c in LIFTED if self.lowered.startswith(c + " ")), None)
        if opener is None:
            return None
        words = [j for j, kind in enumerate(self.kinds) if kind != "mark"]
        start = words[len(opener.split())]
        while start < len(self.texts) and self.kinds[start] == "mark":
            start += 1
        proper = [False, *self.proper[start + 1 :]]
        rest = _Said(self.kinds[start:], self.texts[start:], proper)
        if rest.continues() or rest.contents() < (2 if rest.has_clause else 3):
            return None
        return rest

    def contents(self) -> int:
        """How many words of its own (names, literals, words not stop words) it holds."""
        return sum(self.content(i) for i in range(len(self.texts)))

    def continues(self) -> bool:
        """It opens with a continuation, or is a bare modifier ("with a custom separator")."""
        if self.lowered in CONTINUATIONS or self.lowered in PROCEED:
            return True
        if self.lowered.startswith(tuple(c + " " for c in CONTINUATIONS)):
            return True
        if self.texts and self.texts[0] in PREPOSITIONS and not self.has_clause:
            return True
        return self.conditions()

    def conditions(self) -> bool:
        """It is only a condition, with no main clause: "even when the list is empty?", "if the
        file is huge" ("If ..., what happens?" and "When is ...?" have one)."""
        texts = self.texts
        if not texts or texts[0] not in CONDITIONS:
            return False
        if texts[0] == "even":
            return texts[1:2] != [] and texts[1] in EVEN_BEFORE
        if texts[0] == "when" and texts[1:2] != [] and texts[1] in AUXILIARIES:
            return False  # "When should I use a tuple?": a question
        return not any(
            texts[k] in WH or self.kinds[k - 1] == "mark"
            for k in range(1, len(texts))
            if self.kinds[k] != "mark"
        )

    def has_content(self) -> bool:
        return any(self.content(i) for i in range(len(self.texts)))

    def content(self, i: int) -> bool:
        """Token ``i`` is a name, a literal or a word that is not a stop word."""
        return (
            0 <= i < len(self.texts) and self.kinds[i] != "mark" and self.texts[i] not in STOPWORDS
        )

    def ends_clause(self, i: int) -> bool:
        return i >= len(self.texts) or (self.kinds[i] == "mark" and self.texts[i] != ":")

    def introduced(self, before: int) -> bool:
        """A new noun phrase (a name, a literal, "a"/"my"/... and a noun) starts before ``before``."""
        return self.first_new < before

    def expletive(self, i: int) -> bool:
        """The ``it`` at ``i`` stands for a clause after it ("Is it possible to ...")."""
        before, after = self.texts[i - 1 : i], self.texts[i + 1 : i + 2]
        if set(after) & SAYING:  # "it says 'divergent branches'": what it says is there
            return self.new_within(i + 2, min(i + 9, len(self.texts)))
        if not (set(before) & BE or set(after) & (BE | EXPLETIVE_VERBS)):
            return False
        for k in range(i + 1, min(i + 7, len(self.texts))):
            if self.kinds[k] == "mark":
                return False
            if self.texts[k] in SUBORDINATORS:
                return True
        return False

    def points_within(self, i: int) -> bool:
        """The demonstrative at ``i`` is a conjunction, or points at something in the question."""
        texts = self.texts
        if texts[i] == "that" and not (
            i == 0
            or texts[i - 1] in PREPOSITIONS | AUXILIARIES
            or self.ends_clause(i + 1)
            or texts[i + 1] in PREPOSITIONS | ADDITIVES
            or (self.content(i + 1) and self.ends_clause(i + 2))  # "put that line?"
        ):
            return True  # a conjunction or a relative pronoun: "so that", "a list that"
        named = self.named
        if i > 0 and texts[i - 1] in AUXILIARIES:  # "Does that work for Python 2?": the subject
            near = range(i + 1, min(i + 5, len(texts)))
            named = any(  # "this regex match 'abc'", not "that work for Python 2"
                (self.kinds[k] in ("name", "literal") or self.proper[k])
                and texts[k - 1] not in PREPOSITIONS
                for k in near[:3]
            )
            named = named or any(texts[k] == ":" for k in near)  # "this error mean: ..."
        if self.content(i + 1) and (named or texts[i + 2 : i + 3] in (["i"], ["we"], [":"])):
            return True  # "this timestamp 1700000000", "That regex I wrote", "these two: ..."
        return self.introduced(i) and not i < self.relative_end()  # "a library for that"

    def refers_back(self) -> bool:
        """A pronoun or demonstrative with nothing in the question to stand for, or a word
        that presupposes something said ("too" ending a clause, "instead" without "of")."""
        for i, word in enumerate(self.texts):
            if self.kinds[i] != "word":
                continue
            if word in PRONOUNS:
                if not (word == "it" and self.expletive(i)) and not self.stands_for(i):
                    return True
            elif word in DEMONSTRATIVES:
                if not self.points_within(i):
                    return True
            elif (
                (word in ADDITIVES and self.ends_clause(i + 1) and not self.coordinated(i))
                or (word == "instead" and self.texts[i + 1 : i + 2] != ["of"])
                or self.recalls(i)
            ):
                return True
        return False

    def recalls(self, i: int) -> bool:
        """The word at ``i`` recalls the last answer: "next" ending a clause ("What happened
        next"), "the part about ...", "the formula you used", "there" ending a clause with no
        place named before it ("Why not use a mutex there?"; not "Is there ...")."""
        texts, word = self.texts, self.texts[i]
        before, after = texts[i - 1 : i], texts[i + 1 : i + 2]
        if word in SEQUELS:
            return self.ends_clause(i + 1) and self.first_condition > i
        if word in PARTS:
            return before == ["the"] and after != ["of"]
        if word == "you":
            return bool(set(after) & RECALLED)
        if (
            word not in ("there", "here")
            or not self.ends_clause(i + 1)
            or set(before) & AUXILIARIES
        ):
            return False
        return self.first_named > i

    def stands_for(self, i: int) -> bool:
        """A noun phrase before the pronoun at ``i`` can be what it stands for: a new one not
        the head of a relative clause the pronoun is the object of ("a recipe that uses
        them"), or the subject of a clause that stands alone before "and" ("how do index
        funds work and why do people say they ...")."""
        if self.introduced(i) and not (self.texts[i] in OBJECTS and i < self.relative_end()):
            return True
        if self.texts[i] in POSSESSIVES and self.bare_subject() < i:
            return True  # "Why do cats land on their feet?"
        return self.first_and < i and self.first_clause_alone()

    def bare_subject(self) -> int:
        """Where the subject of a question is, when it is a noun with no determiner right after
        the opening auxiliary ("Do cats ...", "Why do cats ..."); past the end otherwise."""
        texts = self.texts
        k = 1 if texts[:1] and texts[0] in AUXILIARIES else 2
        if k == 2 and not (texts[:1] and texts[0] in WH and texts[1:2] and texts[1] in AUXILIARIES):
            return len(texts)
        if self.content(k) and texts[k] not in OWNED and not texts[k].endswith("ing"):
            return k
        return len(texts)

    def first_clause_alone(self) -> bool:
        """The words before the first "and" have two words of their own or more, nothing that
        refers back and nothing that leans: a clause whose subject a later pronoun may be."""
        if self._first_clause_alone is None:
            end = self.first_and
            clause = _Said(self.kinds[:end], self.texts[:end], self.proper[:end])
            self._first_clause_alone = (
                clause.contents() >= 2 and not clause.refers_back() and not clause.leans()
            )
        return self._first_clause_alone

    def relative_end(self) -> int:
        """Where a relative clause on the first new noun phrase ("a recipe that uses them")
        ends: at a mark, a conjunction, a question word or a new noun phrase."""
        if self._relative_end is None:
            texts, head = self.texts, self.phrase(self.first_new).stop
            self._relative_end = head
            opens = RELATIVES | (MODIFIERS if self.kinds[self.first_new] == "word" else set())
            if texts[head : head + 1] and texts[head] in opens:
                ends = WH | CONDITIONS | INTRODUCERS | {"and", "but", "or"}
                self._relative_end = next(
                    (
                        k
                        for k in range(head + 1, len(texts))
                        if self.kinds[k] != "word" or texts[k] in ends
                    ),
                    len(texts),
                )
        return self._relative_end

    def new_within(self, start: int, stop: int) -> bool:
        """A new noun phrase (a name, a literal, "a", "my", ...) starts in ``start:stop``, in the
        clause ``start`` is in."""
        for j in range(start, stop):
            if self.kinds[j] == "mark":
                return False
            if self.kinds[j] != "word" or self.texts[j] in INTRODUCERS:
                return True
        return False

    def coordinated(self, i: int) -> bool:
        """An earlier clause of the question, joined by "and", is what the "too" at ``i`` adds
        to ("copy a file and keep its timestamps too")."""
        return self.first_and_after_new < i

    def opens(self, j: int, k: int) -> bool:
        """A new noun phrase opened at ``j`` (a name, a literal, "a", "my", ...) may have its
        noun at ``k``; so does the bare noun a question defines ("What is memoization and why
        is it useful?")."""
        texts = self.texts
        if k == j or (texts[j] in INTRODUCERS and not self.relative(j)):
            return True
        if texts[j] == "the" and k < len(texts):  # "the GIL", "the json module": named
            return (k <= j + 2 and self.proper[k]) or (k == j + 2 and texts[k] in KINDS)
        return k == j + 1 == 2 and texts[0] == "what" and texts[1] in DEFINING

    def relative(self, j: int) -> bool:
        """The determiner at ``j`` opens a noun phrase that is relative to something given:
        "a better way", "a different approach", or "an example" with nothing after it (but
        "explain recursion with an example": what came before it is what it is of)."""
        after = self.texts[j + 1 : j + 2]
        if set(after) & RELATIVE:
            return True
        of_before = self.texts[j - 1 : j] == ["with"] and self.first_content < j - 1
        span = range(j + 1, min(j + 2, len(self.texts)))
        defining = j == 2 and self.texts[:2] == ["what", "is"]
        defining = defining and not set(self.texts[j + 1 : j + 2]) & EVALUATIVE
        if self.texts[j] in ("a", "an") and not defining:
            span = self.phrase(j + 1)  # "a vegetarian version", not "What is a p-value"
        owned = bool(span) and self.texts[span[-1]] in OWNED and self.ends_clause(span.stop)
        return owned and not self.anchored(span) and not of_before

    def leans(self) -> bool:
        """Without a subject of its own, it leans on the last turn: "what if ...", a comparison
        with nothing to compare, "a different way", "the second/full/other ...", "the
        difference", "also", "tell me more", a noun of something with nothing it is of, a
        question word with no verb, "the N" asked about in the past."""
        plain, texts = self.plain, self.texts
        alternatives = bool(plain & ALTERNATIVES)
        if self.lowered.startswith("what if ") or plain & REPEATS or self.asks_else():
            return True
        if self.asks_more() or self.fragment() or self.owned() or self.definite_subject():
            return True
        if self.only_owned():
            return True
        if any(texts[j] in INTRODUCERS and self.relative(j) for j in range(len(texts))):
            return True
        if not alternatives and (
            plain & COMPARATIVES
            or ("which" in plain and plain & {"one", "ones"})
            or self.lowered.startswith(("which is more ", "which is less ", "which is most "))
        ):
            return True
        return any(
            texts[i] == "the"
            and (
                (texts[i + 1] in ANAPHORIC_MODIFIERS and not self.of_a_name(self.phrase(i + 1)))
                or (
                    texts[i + 1] in RELATIONAL and texts[i + 2 : i + 3] not in (["between"], ["of"])
                )
            )
            for i in range(len(texts) - 1)
        )

    def asks_else(self) -> bool:
        """ "else" after a question word or "anything", "someone", ...: more than was said
        ("Who else was involved?", "anything else?"; not "an if else statement")."""
        texts = self.texts
        return any(w == "else" and texts[k - 1] in WH | SOMEONE for k, w in enumerate(texts) if k)

    def only_owned(self) -> bool:
        """Its words of its own are all nouns of something, with no name: "Examples please",
        "sources?" (not "Examples of decorators")."""
        if self.named or any(self.proper) or not self.has_content():
            return False
        return all(self.texts[k] in OWNED for k in range(len(self.texts)) if self.content(k))

    def asks_more(self) -> bool:
        """Asks for more of what was said: "tell me more", "explain further", "Can you
        elaborate?"."""
        return any(w in MORE and self.ends_clause(i + 1) for i, w in enumerate(self.texts))

    def fragment(self) -> bool:
        """A question word and at most one word, with no verb: "What year?", "How many pages?",
        "Where exactly?" ask something of the thing the last answer was about."""
        texts = self.texts
        if texts and texts[0] in AUXILIARIES and not self.named and not any(self.proper):
            return self.contents() <= 1  # "Should I be worried?", "Can you show me?"
        if not texts or texts[0] not in WH or self.plain & (AUXILIARIES | {"to"}):
            return False
        degree = texts[0] == "how" and texts[1:2] != [] and texts[1] in DEGREES
        return sum(self.content(k) for k in range(1 + degree, len(texts))) <= 1

    def phrase(self, i: int) -> range:
        """The run of content words from ``i`` (at most three): a noun phrase, read roughly."""
        end = i
        while end < min(i + 3, len(self.texts)) and self.content(end):
            end += 1
        return range(i, end)

    def anchored(self, span: range) -> bool:
        """The noun phrase at ``span`` says which thing it is: it holds a name, a literal or a
        proper name ("the GIL"), or what it is of follows it ("the output of ls")."""
        after = self.texts[span.stop : span.stop + 1]
        named = any(self.kinds[k] != "word" or self.proper[k] for k in span)
        return named or bool(set(after) & OWNERS)

    def of_a_name(self, span: range) -> bool:
        """What the noun phrase at ``span`` is of follows it and is named ("the first president
        of the United States", "the last commit in Git"; not "the rest of the code")."""
        owner = self.texts[span.stop : span.stop + 1]
        return bool(set(owner) & OWNERS) and self.last_proper >= span.stop

    def owned(self) -> bool:
        """A noun of something asked for with nothing it is of ("What's the default value?",
        "what would the output look like", "Give more details"), and no proper name."""
        texts = self.texts
        if any(self.proper):
            return False  # "What year did World War II end?": the name is what it is of
        spans = [self.phrase(j + 1) for j in range(len(texts) - 1) if texts[j] in SEEKERS]
        return any(
            any(self.of_something(k, s) for k in s)
            and not self.anchored(s)
            and (texts[s.start - 1] not in WH or self.said_after(s.stop) < 2)
            for s in spans
        )

    def said_after(self, k: int) -> int:
        """How many words of its own the clause holds from ``k`` ("What steps should I take to
        start a business?": a question word's noun of something has its owner there)."""
        said = 0
        for j in range(k, min(k + 12, len(self.texts))):  # two are enough to know
            if self.ends_clause(j) or said == 2:
                break
            said += self.content(j)
        return said

    def of_something(self, k: int, span: range) -> bool:
        """The word at ``k``, in the noun phrase ``span``, is a noun of something: one of
        :data:`OWNED` ("the output", "more details", "the default value"), or a kind with no
        name before it ("the function", not "the json module")."""
        texts = self.texts
        if texts[k] in MODIFYING:
            return k == span[-1] or texts[k + 1] in OWNED
        if texts[k] in KINDS:
            kinds = [m for m in span if texts[m] in KINDS]
            return k == span.start and texts[k - 1] == "the" and kinds == [k]
        return texts[k] in OWNED

    def definite_subject(self) -> bool:
        """A yes/no question, one in the past, or "who is", about "the N" where nothing says
        which N: "Was the comic successful?", "Is the output sorted?", "When was the book
        published?", "Who is the villain?" ("Can the json module ...?" says which: a name
        before a kind; "Who is the author of Dune?": what it is of)."""
        texts = self.texts
        for i in range(1, min(len(texts) - 1, 6)):
            asked = (
                (i == 1 and texts[0] in AUXILIARIES)
                or (texts[i - 1] in PAST and texts[0] in WH)
                or (i == 2 and texts[0] == "who" and texts[1] in DEFINING | PAST)
            )
            if texts[i] == "the" and asked and self.unsaid(i):
                return True
        return False

    def unsaid(self, i: int) -> bool:
        """The "the" at ``i`` opens a noun phrase that says not which thing it is, or one of
        another that does not ("the name of the ship"; not "the author of Dune")."""
        texts = self.texts
        while True:
            span = self.phrase(i + 1)
            if not span or any(texts[k] in KINDS for k in span[1:]):
                return False
            if not self.anchored(span):
                return True
            owner = texts[span.stop : span.stop + 2]
            if len(owner) < 2 or owner[0] not in OWNERS or owner[1] != "the":
                return False
            i = span.stop + 1
