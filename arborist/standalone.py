"""Whether a question stands alone or follows up the turn above it. Pure: no I/O.

A question that does not stand alone is filed under the turn above it and borrows that
turn's words (:mod:`arborist.qa.followups`); one that does is read as at the root. The
rule reads the question as tokens (names, literals, words, punctuation) and the word
lists below; docs/retrieval.md ("Follow-ups") gives it in full with its measurement.
:mod:`arborist.analysis` re-exports :func:`stands_alone`, where its callers import it.
"""

from __future__ import annotations

import re

from arborist.text_words import IDENTIFIER, STOPWORDS, fold

__all__ = ["stands_alone"]


def _wordset(listed: str) -> frozenset[str]:
    """The words of ``listed``, separated by spaces: how the word lists below are written."""
    return frozenset(listed.split())


_PRONOUNS = _wordset("it its itself they them their theirs themselves he him his she her hers")
"""Personal pronouns: a back-reference unless a noun phrase before them in the question
can be what they stand for (or ``it`` is the empty subject of "is it possible to")."""
_DEMONSTRATIVES = _wordset("this that these those")
"""``this``/``these``/``those`` always point; ``that`` only where it cannot be a conjunction
or a relative pronoun (first, after a preposition, or last in its clause)."""
_INTRODUCERS = _wordset("a an my your our each every several multiple two three")
"""Determiners that bring a new thing into the conversation ("a list", "my function", "two
threads"); the nouns after them can be what a later pronoun of the same question refers
to. ``the`` is not one: a definite noun phrase may itself point back."""
_BE = _wordset("is s was be isn wasn")
_EXPLETIVE_VERBS = _wordset("mean means take takes matter matters seem seems")
_SUBORDINATORS = _wordset("to that when if whether")
"""``it`` next to one of :data:`_BE` or :data:`_EXPLETIVE_VERBS` and followed in its clause
by one of these stands for the clause ("Is it possible to ...", "What does it mean when ...")."""
_ACKNOWLEDGEMENTS = _wordset("ok okay alright thanks thank cool great hmm")
"""Replies to the turn above, skipped before reading the opener ("ok but for IPv6")."""
_CONTINUATIONS = (
    "and",
    "also",
    "but",
    "so",
    "then",
    "or",
    "what about",
    "how about",
    "what else",
    "same",
    "likewise",
    "instead",
)
"""Openers that carry on from the turn above ("and for sets?", "same for csv")."""
_PREPOSITIONS = _wordset(
    "in with without for on using by via from at as into inside within through under over to"
)
"""A question opening with one of these and holding no clause is a modifier of the last
one ("with a custom separator", "in UTC instead")."""
_CLAUSE_WORDS = _wordset(
    "what how why when where which who whom whose is are was were am do does did can "
    "could should would will shall may might must has have had isn aren doesn don didn "
    "won wouldn shouldn couldn"
)
_ADDITIVES = _wordset("too either")
"""Last in a clause, these presuppose something said before ("with generators too?")."""
_ALTERNATIVES = _wordset("or vs versus between than compared compare")
_COMPARATIVES = _wordset(
    "faster slower simpler easier better worse shorter cleaner quicker safer smaller "
    "bigger larger cheaper clearer nicer"
)
"""A comparison with nothing to compare to ("faster way?") is against the last answer."""
_RELATIVE = _COMPARATIVES | _wordset("different similar other")
"""After "a"/"an", these make a noun phrase relative to one given ("a different way"): it
brings nothing new."""
_DEPENDENT = _wordset("example examples alternative alternatives")
"""Nouns that are of something: "an example" with nothing after it is of the last answer."""
_ANAPHORIC_MODIFIERS = _wordset(
    "first second third last next previous other same former latter full whole complete "
    "entire rest remaining above opposite"
)
"""After ``the``, these pick from or complete something already given ("the second
argument", "the full code")."""
_RELATIONAL = _wordset("difference")
"""Nouns that need two things: without ``between``/``of`` they are the last answer's."""
_REPEATS = _wordset("also again another")
"""Words that ask for more of what was just given ("another example", "also", "again")."""
_MORE = _wordset("more further elaborate")
"""Ending a clause, these ask for more of what was just said ("tell me more", "Can you
elaborate?"); with something after them they bring it ("more about asyncio")."""
_FILLERS = _wordset("please pls plz kindly")
"""Politeness, read as if absent wherever it stands ("an example please" is "an example")."""
_OWNED = _DEPENDENT | _wordset(
    "detail details output outputs result results value values default defaults error errors "
    "syntax complexity signature purpose meaning reason answer code summary overview year "
    "sequel prequel author plot ending reception budget license price cost"
)
"""Nouns that are of something ("the output", "the default value", "more details", "the
sequel"): with no owner after them and no proper name in the question, they are of what
the last answer was about."""
_MODIFYING = _wordset("default defaults")
"""Of :data:`_OWNED`, the ones that also modify the noun after them ("the default recursion
limit" is a limit, of the recursion): of something only last, or before another one."""
_SEEKERS = _wordset("the more any some what which")
"""Before a noun phrase of :data:`_OWNED`, these ask for it ("the output", "more details")."""
_OWNERS = _PREPOSITIONS | _wordset("of between about")
"""After a noun phrase, these bring what it is of ("the output of ls", "the default for
dict.get", "the default encoding in Python")."""
_KINDS = _wordset(
    "module modules function functions method methods class classes library package "
    "operator statement keyword decorator command protocol language format algorithm"
)
"""A definite noun phrase with one of these names its thing by the word before it ("the
json module", "the walrus operator"): it needs nothing said before."""
_DEFINING = _wordset("is are s")
"""After an opening "what", the bare noun after these is the new thing asked about."""
_NOT_PROPER = _wordset("I None True False")
"""Capitalised inside a sentence, yet naming no thing a question could be about."""
_WH = _wordset("what how why when where which who whom whose")
_AUXILIARIES = (_CLAUSE_WORDS | _BE) - _WH
_PAST = _wordset("was were did had wasn weren didn hadn")
"""A question in the past about "the N" asks about one particular N: the one the last
answer was about ("Was the comic successful?", "When was the book published?"). The
present is also the generic ("How does the garbage collector work?") and is not read so."""
_DEGREES = _wordset("many much long often far old")
"""After "how", part of the question word ("How many pages?", "How long?")."""
_CONDITIONS = _wordset("if unless whenever when even")
"""A question opening with one of these and holding no main clause is a condition on the
last answer ("even when the list is empty?", "if the file is huge?")."""
_EVEN_BEFORE = _SUBORDINATORS | _PREPOSITIONS | _wordset("though after before so")
"""After an opening "even", these make it a concession ("even with a timeout?"), not the
adjective of "even numbers"."""
_TOKEN = re.compile(
    r"(?P<name>@[A-Za-z_]\w*|" + IDENTIFIER.pattern + r"|[^\W\d_]+\d\w*)"
    r"|(?P<literal>\d[\w.:/+-]*|\"[^\"]*\"|`[^`]*`|(?<!\w)'[^']*'(?!\w)"
    r"|(?<![\w*+/%=<>!&|^~:-])(?::=|!=|->|[*+/%=<>&|^~]+)(?![\w*+/%=<>!&|^~-]))"
    r"|(?P<word>[^\W\d_]+)"
    r"|(?P<mark>[?!.;:,])"
)


def stands_alone(question: str) -> bool:
    """Whether ``question`` can be answered without the turns above it.

    It cannot when it

    * continues another: it opens with a continuation ("And for an even number?",
      "What about dumps?", "ok but for IPv6", "same for csv"), or with a preposition and
      holds no clause ("with a custom separator", "Without using a loop?");
    * has no word of its own left after the stop words ("Why?", "how so");
    * presupposes something said: "too" or "either" ending a clause, "instead" not
      followed by "of";
    * refers back: a pronoun ("Who created him?", "Does it work with generators?") with
      no noun phrase before it in the question that it can stand for ("a list ... into
      it", "json.dumps ... its keys"; a new noun phrase is a name, a literal, or a noun
      after "a", "my", "each" ...: "the" introduces nothing), "it" as the empty subject of
      "Is it possible to ..." excepted; a demonstrative pronoun ("Can I do that ...?")
      likewise; "this"/"that" before a noun ("this timestamp", "That regex") unless the
      question names what it points at (a name or literal, "that regex I wrote");
    * is only a condition on the last answer: "even when the list is empty?", "if the file
      is huge" (no main clause after it);
    * asks about "the N" in the subject of a yes/no question, of one in the past or after
      "who is", with nothing saying which N ("Was the comic successful?", "When was the
      book published?", "Who is the villain?"; "Is the GIL ...", "Can the json module
      ...", "the order of keys" say which);
    * has no subject of its own (no name, literal or new noun phrase) and leans on the
      last one: "what if ...", a comparison with nothing to compare ("which one is
      faster"), "the second/other/full ...", "the difference" between nothing, "also",
      "again", "another", "tell me more", "Can you elaborate?", a question word with no
      verb and at most one word ("What year?", "How many pages?"), a noun that is of
      something with nothing it is of ("What's the default value?", "Give more details",
      "Who wrote the sequel?", "the function" with no name before it; a proper name in the
      question may be it), "which is more ...", or is a phrase with a question mark and no
      clause ("thread-safe?").

    "please" is read as absent. A phrase without a question mark ("heapq", "decimal
    rounding half up", "git rebase vs merge") is a search.
    """
    said = _Said.read(question)
    if said.continues() or not said.has_content() or said.refers_back():
        return False
    if said.introduced(len(said.texts)) and not said.definite_subject():
        return True
    return not (said.leans() or (question.rstrip().endswith("?") and not said.has_clause))


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
        self.has_clause = bool(self.plain & _CLAUSE_WORDS)
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
        self.first_and_after_new = next(
            (j for j in range(self.first_new + 1, len(texts)) if texts[j] == "and"), len(texts)
        )

    @classmethod
    def read(cls, question: str) -> _Said:
        tokens = [(str(m.lastgroup), m.group(0)) for m in _TOKEN.finditer(question)]
        tokens = [(k, t) for k, t in tokens if k != "word" or fold(t) not in _FILLERS]
        kinds = [kind for kind, _ in tokens]
        texts = [fold(text) if kind == "word" else text for kind, text in tokens]
        start = 0
        while start < len(texts) and (kinds[start] == "mark" or texts[start] in _ACKNOWLEDGEMENTS):
            start += 1
        proper = [
            j > start and kind == "word" and text[:1].isupper() and text not in _NOT_PROPER
            and tokens[j - 1][1] not in ".?!;:"
            for j, (kind, text) in enumerate(tokens)
        ]  # fmt: skip
        return cls(kinds[start:], texts[start:], proper[start:])

    def continues(self) -> bool:
        """It opens with a continuation, or is a bare modifier ("with a custom separator")."""
        if self.lowered in _CONTINUATIONS:
            return True
        if self.lowered.startswith(tuple(c + " " for c in _CONTINUATIONS)):
            return True
        if self.texts and self.texts[0] in _PREPOSITIONS and not self.has_clause:
            return True
        return self.conditions()

    def conditions(self) -> bool:
        """It is only a condition, with no main clause: "even when the list is empty?", "if the
        file is huge" ("If ..., what happens?" and "When is ...?" have one)."""
        texts = self.texts
        if not texts or texts[0] not in _CONDITIONS:
            return False
        if texts[0] == "even":
            return texts[1:2] != [] and texts[1] in _EVEN_BEFORE
        if texts[0] == "when" and texts[1:2] != [] and texts[1] in _AUXILIARIES:
            return False  # "When should I use a tuple?": a question
        return not any(
            texts[k] in _WH or self.kinds[k - 1] == "mark"
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
        if not (set(before) & _BE or set(after) & (_BE | _EXPLETIVE_VERBS)):
            return False
        for k in range(i + 1, min(i + 7, len(self.texts))):
            if self.kinds[k] == "mark":
                return False
            if self.texts[k] in _SUBORDINATORS:
                return True
        return False

    def points_within(self, i: int) -> bool:
        """The demonstrative at ``i`` is a conjunction, or points at something in the question."""
        texts = self.texts
        if texts[i] == "that" and not (
            i == 0
            or texts[i - 1] in _PREPOSITIONS | _AUXILIARIES
            or self.ends_clause(i + 1)
            or texts[i + 1] in _PREPOSITIONS | _ADDITIVES
        ):
            return True  # a conjunction or a relative pronoun: "so that", "a list that"
        if self.content(i + 1) and (self.named or texts[i + 2 : i + 3] in (["i"], ["we"], [":"])):
            return True  # "this timestamp 1700000000", "That regex I wrote", "these two: ..."
        return self.introduced(i)

    def refers_back(self) -> bool:
        """A pronoun or demonstrative with nothing in the question to stand for, or a word
        that presupposes something said ("too" ending a clause, "instead" without "of")."""
        for i, word in enumerate(self.texts):
            if self.kinds[i] != "word":
                continue
            if word in _PRONOUNS:
                if not (word == "it" and self.expletive(i)) and not self.introduced(i):
                    return True
            elif word in _DEMONSTRATIVES:
                if not self.points_within(i):
                    return True
            elif (word in _ADDITIVES and self.ends_clause(i + 1) and not self.coordinated(i)) or (
                word == "instead" and self.texts[i + 1 : i + 2] != ["of"]
            ):
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
        if k == j or (texts[j] in _INTRODUCERS and not self.relative(j)):
            return True
        if texts[j] == "the" and k < len(texts):  # "the GIL", "the json module": named
            return (k <= j + 2 and self.proper[k]) or (k == j + 2 and texts[k] in _KINDS)
        return k == j + 1 == 2 and texts[0] == "what" and texts[1] in _DEFINING

    def relative(self, j: int) -> bool:
        """The determiner at ``j`` opens a noun phrase that is relative to something given:
        "a better way", "a different approach", or "an example" with nothing after it (but
        "explain recursion with an example": what came before it is what it is of)."""
        after = self.texts[j + 1 : j + 2]
        if set(after) & _RELATIVE:
            return True
        of_before = self.texts[j - 1 : j] == ["with"] and self.first_content < j - 1
        return bool(set(after) & _OWNED) and self.ends_clause(j + 2) and not of_before

    def leans(self) -> bool:
        """Without a subject of its own, it leans on the last turn: "what if ...", a comparison
        with nothing to compare, "a different way", "the second/full/other ...", "the
        difference", "also", "tell me more", a noun of something with nothing it is of, a
        question word with no verb, "the N" asked about in the past."""
        plain, texts = self.plain, self.texts
        alternatives = bool(plain & _ALTERNATIVES)
        if self.lowered.startswith("what if ") or plain & _REPEATS:
            return True
        if self.asks_more() or self.fragment() or self.owned() or self.definite_subject():
            return True
        if any(texts[j] in _INTRODUCERS and self.relative(j) for j in range(len(texts))):
            return True
        if not alternatives and (
            plain & _COMPARATIVES
            or ("which" in plain and plain & {"one", "ones"})
            or self.lowered.startswith(("which is more ", "which is less ", "which is most "))
        ):
            return True
        return any(
            texts[i] == "the"
            and (
                (texts[i + 1] in _ANAPHORIC_MODIFIERS and not self.of_a_name(self.phrase(i + 1)))
                or (
                    texts[i + 1] in _RELATIONAL
                    and texts[i + 2 : i + 3] not in (["between"], ["of"])
                )
            )
            for i in range(len(texts) - 1)
        )

    def asks_more(self) -> bool:
        """Asks for more of what was said: "tell me more", "explain further", "Can you
        elaborate?"."""
        return any(w in _MORE and self.ends_clause(i + 1) for i, w in enumerate(self.texts))

    def fragment(self) -> bool:
        """A question word and at most one word, with no verb: "What year?", "How many pages?",
        "Where exactly?" ask something of the thing the last answer was about."""
        texts = self.texts
        if not texts or texts[0] not in _WH or self.plain & (_AUXILIARIES | {"to"}):
            return False
        degree = texts[0] == "how" and texts[1:2] != [] and texts[1] in _DEGREES
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
        return named or bool(set(after) & _OWNERS)

    def of_a_name(self, span: range) -> bool:
        """What the noun phrase at ``span`` is of follows it and is named ("the first president
        of the United States", "the last commit in Git"; not "the rest of the code")."""
        owner = self.texts[span.stop : span.stop + 1]
        return bool(set(owner) & _OWNERS) and self.last_proper >= span.stop

    def owned(self) -> bool:
        """A noun of something asked for with nothing it is of ("What's the default value?",
        "what would the output look like", "Give more details"), and no proper name."""
        texts = self.texts
        if any(self.proper):
            return False  # "What year did World War II end?": the name is what it is of
        spans = [self.phrase(j + 1) for j in range(len(texts) - 1) if texts[j] in _SEEKERS]
        return any(any(self.of_something(k, s) for k in s) and not self.anchored(s) for s in spans)

    def of_something(self, k: int, span: range) -> bool:
        """The word at ``k``, in the noun phrase ``span``, is a noun of something: one of
        :data:`_OWNED` ("the output", "more details", "the default value"), or a kind with no
        name before it ("the function", not "the json module")."""
        texts = self.texts
        if texts[k] in _MODIFYING:
            return k == span[-1] or texts[k + 1] in _OWNED
        if texts[k] in _KINDS:
            kinds = [m for m in span if texts[m] in _KINDS]
            return k == span.start and texts[k - 1] == "the" and kinds == [k]
        return texts[k] in _OWNED

    def definite_subject(self) -> bool:
        """A yes/no question, one in the past, or "who is", about "the N" where nothing says
        which N: "Was the comic successful?", "Is the output sorted?", "When was the book
        published?", "Who is the villain?" ("Can the json module ...?" says which: a name
        before a kind; "Who is the author of Dune?": what it is of)."""
        texts = self.texts
        for i in range(1, min(len(texts) - 1, 4)):
            asked = (
                (i == 1 and texts[0] in _AUXILIARIES)
                or (texts[i - 1] in _PAST and texts[0] in _WH)
                or (i == 2 and texts[0] == "who" and texts[1] in _DEFINING | _PAST)
            )
            if texts[i] != "the" or not asked:
                continue
            span = self.phrase(i + 1)
            if span and not self.anchored(span) and not any(texts[k] in _KINDS for k in span[1:]):
                return True
        return False
