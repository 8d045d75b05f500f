"""The question read as tokens for :mod:`arborist._standalone.rule`: names, literals, words and
punctuation, and where its noun phrases are. Pure: no I/O.

:class:`Said` says what a question holds (which words are its own, where a new noun phrase
opens, whether a noun phrase says which thing it is); :mod:`arborist._standalone.rule` decides,
from that, whether the question stands alone.
"""

from __future__ import annotations

import re

from arborist._standalone.foreign import english
from arborist._standalone.words import (
    ACKNOWLEDGEMENTS,
    AUXILIARIES,
    CLAUSE_WORDS,
    CONDITIONS,
    DEFINING,
    EVALUATIVE,
    FILLERS,
    GREETINGS,
    INTRODUCERS,
    JOINTS,
    KINDS,
    MODIFIERS,
    NEGATED,
    NOT_PROPER,
    ORDINALS,
    OWNED,
    OWNERS,
    PAST,
    PREPOSITIONS,
    RECIPIENTS,
    RELATIVE,
    RELATIVES,
    TEXTED,
    TOKEN,
    TRANSPOSED,
    UNAPOSTROPHED,
    UNIQUE,
    WH,
)
from arborist._text.text_words import STOPWORDS, fold

__all__ = ["Said"]

ENDS = frozenset(".!?;")
"""Marks that end a sentence: a second one may be about what the first says."""
PRESENT = (AUXILIARIES - PAST) | frozenset({"to"})
"""Before a word in -ed in its clause, these carry the tense: the word is a participle."""
STANDARDS = frozenset({"than", "compared"})
"""After a comparative, these bring what it compares with ("faster than recursion")."""


class Said:
    """A question as tokens (a name, a literal, a folded word or a punctuation mark), read
    for :func:`arborist._standalone.stands_alone`; a reply's acknowledgement ("ok",
    "thanks"), a "really?" and a greeting ("Hi there!") opening it left out."""

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
        self.completed, self.shown = _ahead(kinds, texts)
        """For each place, whether what a comparative there is compared to follows it in its
        clause, and whether a colon follows it in its sentence with something after it."""
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
        self.first_joint = len(texts)
        said = 0
        for j, text in enumerate(texts):
            if (text in JOINTS or (kinds[j] == "mark" and text in ENDS)) and said >= 2:
                self.first_joint = j
                break
            said += self.content(j)
        """Where a second clause is joined to a first of two words of its own or more ("and",
        "so", "when", ...) or a second sentence follows it: a pronoun after it may stand for
        the first clause's subject, a demonstrative for what the first sentence says."""
        self.but = next(
            (j for j in range(2, len(texts)) if texts[j] == "but" and texts[j - 1] != "and"),
            len(texts),
        )
        """Where "but" opens a second clause, about which the first may be ("A dumb question but")."""
        self.contrast = next(
            (j for j in range(1, len(texts)) if texts[j] == "not" and texts[j - 1] == ","),
            len(texts),
        )
        """Where a contrast opens (", not just a sketch"): what it names is set against what
        the question asks for, not a subject of its own."""
        self.memo: dict[str, bool] = {}
        self.memo_at: dict[str, list[int]] = {}
        """What the rule has worked out about the whole question (and where), worked out once."""
        self._relative_end: int | None = None
        self._sentences: tuple[list[int], list[int]] | None = None
        self.first_named = next(
            (j for j, k in enumerate(kinds) if k in ("name", "literal") or proper[j]), len(texts)
        )
        """Where the first name, literal or proper name is: a place "there" may be."""
        self.first_condition = next((j for j, t in enumerate(texts) if t in CONDITIONS), len(texts))
        self.first_and_after_new = next(
            (j for j in range(self.first_new + 1, len(texts)) if texts[j] == "and"), len(texts)
        )

    @classmethod
    def read(cls, question: str) -> Said:
        tokens = _compounded(list(TOKEN.finditer(question)), question)
        tokens = [(k, t) for k, t in tokens if k != "word" or fold(t) not in FILLERS]
        kinds = [kind for kind, _ in tokens]
        texts = [fold(text) if kind == "word" else text for kind, text in tokens]
        texts = [  # "ur answer", "doesnt work", "exmaple": the words they spell; not the city of Ur
            TRANSPOSED.get(t)
            or UNAPOSTROPHED.get(t, TEXTED.get(t, t) if tokens[j][1].islower() else t)
            if kinds[j] == "word"
            else t
            for j, t in enumerate(texts)
        ]
        start = 0
        while start < len(texts) and (
            kinds[start] == "mark"
            or texts[start] in ACKNOWLEDGEMENTS | GREETINGS
            or (texts[start] == "there" and start and texts[start - 1] in GREETINGS)
            or (texts[start] == "really" and kinds[start + 1 : start + 2] == ["mark"])
        ):
            start += 1  # "Hi there! ...": a greeting, to no place
        proper = [
            j > start
            and kind == "word"
            and text[:1].isupper()
            and text not in NOT_PROPER
            and tokens[j - 1][1] not in ".?!;:"
            for j, (kind, text) in enumerate(tokens)
        ]
        texts = english(question, texts, [text for _, text in tokens], proper)
        for j in range(start, len(texts) - 1):
            if texts[j] == "won" and texts[j + 1] == "t":
                texts[j] = "will"  # "won't"; "won" alone is the verb ("Who won?")
        kept = [  # "isn't" read as "isn", the auxiliary: its "t" is no word of its own
            j
            for j in range(start, len(texts))
            if not (texts[j] == "t" and j > start and texts[j - 1] in NEGATED)
            and not (texts[j] == "ever" and j > start and texts[j - 1] in ORDINALS)
        ]  # "the first ever world cup" is "the first world cup": "ever" adds nothing to say which
        return cls([kinds[j] for j in kept], [texts[j] for j in kept], [proper[j] for j in kept])

    def contents(self) -> int:
        """How many words of its own (names, literals, words not stop words) it holds."""
        return sum(self.content(i) for i in range(len(self.texts)))

    def has_content(self) -> bool:
        return any(self.content(i) for i in range(len(self.texts)))

    def content(self, i: int) -> bool:
        """Token ``i`` is a name, a literal or a word that is not a stop word (nor the "s" of a
        possessive: "my partner's income" has two words of its own)."""
        return (
            0 <= i < len(self.texts)
            and self.kinds[i] != "mark"
            and self.texts[i] not in STOPWORDS
            and not (self.texts[i] == "s" and self.kinds[i] == "word")
        )

    def ends_clause(self, i: int) -> bool:
        return i >= len(self.texts) or (self.kinds[i] == "mark" and self.texts[i] != ":")

    def introduced(self, before: int) -> bool:
        """A new noun phrase (a name, a literal, "a"/"my"/... and a noun) starts before ``before``."""
        return self.first_new < before

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

    def sentence(self, i: int) -> range:
        """The sentence the token at ``i`` is in: from after the mark of :data:`ENDS` before it
        to its own mark (or the end), worked out for the whole question once."""
        if self._sentences is None:
            starts, ends = [0] * len(self.texts), [len(self.texts)] * len(self.texts)
            for j in range(1, len(self.texts)):
                ended = self.kinds[j - 1] == "mark" and self.texts[j - 1] in ENDS
                starts[j] = j if ended else starts[j - 1]
            for j in range(len(self.texts) - 2, -1, -1):
                ended = self.kinds[j] == "mark" and self.texts[j] in ENDS
                ends[j] = j if ended else ends[j + 1]
            self._sentences = (starts, ends)
        return range(self._sentences[0][i], self._sentences[1][i])

    def new_within(self, start: int, stop: int) -> bool:
        """A new noun phrase (a name, a literal, "a", "my", ...) starts in ``start:stop``, in the
        clause ``start`` is in."""
        for j in range(start, stop):
            if self.kinds[j] == "mark":
                return False
            if self.kinds[j] != "word" or self.texts[j] in INTRODUCERS:
                return True
        return False

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
        "explain recursion with an example": what came before it is what it is of; not the
        noun "what (exactly) is" defines)."""
        after = self.texts[j + 1 : j + 2]
        if set(after) & RELATIVE:
            return not self.completed[j]  # "a faster way than recursion" says to what
        of_before = self.texts[j - 1 : j] == ["with"] and self.first_content < j - 1
        span = range(j + 1, min(j + 2, len(self.texts)))
        defining = self.texts[:1] == ["what"] and j in (2, 3) and self.texts[j - 1] == "is"
        defining = defining and not set(self.texts[j + 1 : j + 2]) & EVALUATIVE
        if self.texts[j] in ("a", "an") and not defining:
            span = self.phrase(j + 1)  # "a vegetarian version", not "What is a p-value"
        owned = bool(span) and self.texts[span[-1]] in OWNED
        owned = owned and (self.ends_clause(span.stop) or self.anchored(span))
        return owned and not self.owner_says(span) and not of_before

    def phrase(self, i: int) -> range:
        """The run of content words from ``i`` (at most three): a noun phrase, read roughly; a
        word in -ed after its first is the verb ("after the war ended"), and a preposition
        ends it ("the calculation using 5% interest")."""
        end = i
        while end < min(i + 3, len(self.texts)) and self.content(end):
            if end > i and len(self.texts[end]) > 4 and self.texts[end].endswith("ed"):
                break
            if end > i and self.texts[end] in PREPOSITIONS:
                break  # "the calculation using 5%": "using" opens what follows it
            end += 1
        return range(i, end)

    def anchored(self, span: range) -> bool:
        """The noun phrase at ``span`` says which thing it is: it holds a name, a literal or a
        proper name ("the GIL"), or what it is of follows it ("the output of ls"; not a
        preposition left at the end of its clause: "what the acronym stood for"; nor, for a noun
        of something, whom it is for: "the dosage for children")."""
        after = self.texts[span.stop : span.stop + 2]
        named = any(self.kinds[k] != "word" or self.proper[k] for k in span)
        if after[:1] == ["for"] and after[1:] and after[1] in RECIPIENTS:
            return named or not any(self.texts[k] in OWNED for k in span)  # "dosage for kids"
        return named or (bool(set(after[:1]) & OWNERS) and not self.ends_clause(span.stop + 1))

    def owner_says(self, span: range) -> bool:
        """The noun phrase at ``span`` says which thing it is, as :meth:`anchored` reads it,
        and what it is of, when that is "the N", says which too: "the p-value for the
        interaction term" and "a newer edition of the book" are of the last answer's thing,
        "the author of the book about Dune" and "the purpose of the liver" are not."""
        texts = self.texts
        while self.anchored(span):
            if any(self.kinds[k] != "word" or self.proper[k] for k in span):
                return True
            if texts[span.stop + 1 : span.stop + 2] != ["the"]:
                return True
            span = self.phrase(span.stop + 2)
            if not span or any(
                texts[k] in UNIQUE or (k > span[0] and texts[k] in KINDS) for k in span
            ):
                return True  # "the purpose of the liver", "the syntax of the walrus operator"
        return False

    def in_past(self, k: int) -> bool:
        """The word at ``k``, in -ed, is a verb in the past ("how many people died", "after
        the war ended"), not a participle that a present auxiliary before it in its clause
        makes an adjective ("how long does cooked chicken keep", "is it safe to freeze cooked
        rice?", where "does" and "is" carry the tense)."""
        texts = self.texts
        if not (self.content(k) and texts[k].endswith("ed")):
            return False
        for j in range(k - 1, -1, -1):
            if self.kinds[j] == "mark" and texts[j] != ",":
                break
            if texts[j] in PRESENT:
                return False
        return True

    def of_a_name(self, span: range) -> bool:
        """What the noun phrase at ``span`` is of follows it and is named ("the first president
        of the United States", "the last commit in Git"; not "the rest of the code")."""
        owner = self.texts[span.stop : span.stop + 1]
        return bool(set(owner) & OWNERS) and self.last_proper >= span.stop

    def said_after(self, k: int) -> int:
        """How many words of its own the clause holds from ``k`` ("What steps should I take to
        start a business?": a question word's noun of something has its owner there)."""
        said = 0
        for j in range(k, min(k + 12, len(self.texts))):  # two are enough to know
            if self.ends_clause(j) or said == 2:
                break
            said += self.content(j)
        return said


def _compounded(found: list[re.Match[str]], question: str) -> list[tuple[str, str]]:
    """The tokens as (kind, text), two words joined by a hyphen read as one word when either is
    a stop word: a compound that is one modifier or one noun ("the same-origin policy", "a
    built-in function", "an up-to-date list"), whose parts play no part of their own ("same"
    is no pick there, "in" no preposition). Two words of their own keep apart ("p-value",
    "pre-commit"), each read as before."""
    tokens: list[tuple[str, str]] = []
    joined = False  # the last token holds a stop word joined in
    for j, m in enumerate(found):
        kind, text = str(m.lastgroup), m.group(0)
        before = found[j - 1] if j else None
        if (
            before is not None
            and kind == "word"
            and tokens[-1][0] == "word"
            and before.end() + 1 == m.start()
            and question[before.end()] == "-"
            and (joined or fold(text) in STOPWORDS or fold(before.group(0)) in STOPWORDS)
        ):
            tokens[-1] = ("word", tokens[-1][1] + "-" + text)
            joined = True
            continue
        tokens.append((kind, text))
        joined = False
    return tokens


def _ahead(kinds: list[str], texts: list[str]) -> tuple[list[bool], list[bool]]:
    """For each place of a question read backwards once: whether "than" or "compared" follows
    it in its clause (a comparative there brings what it compares with: "a faster way to sort
    than bubble sort"), and whether a colon follows it in its sentence with something after
    it (what a "this" there is: "Does this line have a bug: x = [1, 2,]?")."""
    completed, shown = [False] * len(texts), [False] * len(texts)
    standard = colon = False
    for j in range(len(texts) - 1, -1, -1):
        standard = texts[j] in STANDARDS or (standard and kinds[j] != "mark")
        if kinds[j] == "mark" and texts[j] in ENDS:
            colon = False
        elif texts[j] == ":" and kinds[j + 1 : j + 2] not in ([], ["mark"]):
            colon = True
        completed[j], shown[j] = standard, colon
    return completed, shown
