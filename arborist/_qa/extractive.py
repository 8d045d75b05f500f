"""The default model: answers offline by quoting the evidence sentences that answer the question.

Deterministic, so a fresh install answers (and caches) with no model at all; how
it picks and cites sentences is :class:`ExtractiveClient`'s docstring, and the
rules for reading questions and documents it shares with retrieval are
:mod:`arborist._text.analysis`. Its profile names :data:`EXTRACTIVE_MODEL`, so a change
to what it answers must bump that version (a new cache key for every answer).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from arborist._errors import BadInput
from arborist._proofs.citations import defang_citations
from arborist._qa.client import ChatRequest, ChatResult, word_pieces
from arborist._qa.cues import read_cues
from arborist._qa.described import call_signature, described, qualified
from arborist._qa.grounding import ABOUT_FLOOR, absent_names, grounded
from arborist._qa.meant import SENTENCE_KEEP, measured
from arborist._qa.sentences import (
    Item,
    continues,
    cut_at_start,
    near_duplicate,
    read_items,
    read_sentences,
    short_signature,
    shorten,
    window_places,
)
from arborist._qa.support import NOT_ANSWERED_OPENING, REQUEST_WORDS, asked_words, root
from arborist._store.passages import passage_definitions
from arborist._text.analysis import QuestionTerms, read_question
from arborist._text.definitions import (
    best_named,
    joined_name,
    named_definitions,
    names_another,
    plain_name_fits,
    subject_named,
)
from arborist._text.text_words import STOPWORDS, fold, stem, stems, words

__all__ = ["EXTRACTIVE_MODEL", "ExtractiveClient", "NO_EVIDENCE_ANSWER"]

NO_EVIDENCE_ANSWER = NOT_ANSWERED_OPENING
"""How the extractive answer opens when no evidence sentence shares a word with the question
(it goes on to say what was searched and what was found)."""

EXTRACTIVE_MODEL = "extractive-v29"
"""Version of the extractive algorithm: bump it whenever its output could change."""


@dataclass(frozen=True)
class _Pick:
    rank: int  # which evidence item
    order: int  # position in its text (sentences of a definition come first, in order)
    text: str
    score: float
    sentence: str = ""
    """The quoted sentence alone, when ``text`` opens with the name it describes (what the
    check for repeats compares: two sentences are not alike for naming one thing)."""
    lead: str = ""
    """The sentence quoted ahead of this one for it to be understood (what it goes on from,
    or its description's first): quoted once in an answer, never again ahead of another."""
    alone: tuple[int, str] | None = None
    """Where this sentence is and what it says by itself, without its lead: what is quoted
    when the lead is quoted already (it then follows its lead, in order)."""
    worded: float = 0.0
    """``score`` less what it earns for holding something to type that the question asks
    for (:data:`~arborist._qa.cues.CODE_SHARE`): that orders sentences, but does not make
    one about the question, so :data:`RELATIVE_FLOOR` compares this."""
    nearest: bool = False  # in the nearest window, engaged: RELATIVE_FLOOR keeps it
    meant: float = 0.0  # how near the lane's model measures it: orders those scored alike


class ExtractiveClient:
    """The default client: answers by quoting the evidence that answers the question.

    Offline and deterministic, so a fresh install answers (and caches) with no
    model at all. How it composes an answer:

    1. **A definition first.** When the question names something (``json.loads``,
       ``groupby``, ``median_low``) and the evidence defines it (a signature line
       with its description below, :func:`arborist._text.definitions.definitions`), the
       answer opens with that definition: the name as asked, its parameters
       shortened, and the description's first sentences, in order.
    2. **Or the definitions nearest in meaning.** When retrieval was hybrid over passages
       it measured how near the question each passage of the evidence is
       (:attr:`~arborist._qa.client.EvidenceText.nearness`). Then a definition opens the
       answer only when the question names it strongly; otherwise the answer opens with
       the definitions nearest the question (:meth:`_followed`), so "pick a random item
       from a list" is answered by ``random.choice``, whatever words it shares. Evidence
       whose nearest passage is under :data:`NEAR_FLOOR`, and that defines nothing the
       question names, is refused.
    3. **Then the sentences that match.** Every other prose sentence is scored
       by the question's words it holds, each weighted by how rare it is among
       the evidence's sentences; the evidence's title counts as context for a
       sentence that holds a word of its own ("He was created by Stan Lee" in a
       chunk titled "Spider-Man"). Code, tables, doctests and signatures are
       never quoted, and a sentence that repeats one already chosen is skipped. A
       manual's term line (an option, a setting) is quoted ahead of its description's
       sentences; a question word in the heading a sentence is under counts as fully as
       one it says (:data:`HEADING_SHARE`). What the question asks for counts too
       (:mod:`arborist._qa.cues`: code, a number, a term), and so, when retrieval measured
       it, does being in the prose window nearest the question (:data:`NEAREST_MARGIN`).
    4. **Short and cited once per run.** At most ``max_sentences`` sentences and
       ``max_chars`` characters (the first always fits, shortened if need be),
       grouped by the evidence they came from; each group ends with one short
       citation ``[E#]``, whose title and URI the evidence list shows.

    When the evidence holds nothing about the question, the answer says so and
    names what was searched and what was found.
    """

    def __init__(
        self, *, name: str = "extractive", max_sentences: int = 4, max_chars: int = 600
    ) -> None:
        if max_sentences < 1 or max_chars < 1:
            raise BadInput("the extractive model needs max_sentences and max_chars of at least 1")
        self.name = name
        self.max_sentences = max_sentences
        self.max_chars = max_chars

    def __repr__(self) -> str:
        return f"ExtractiveClient(name={self.name!r}, max_sentences={self.max_sentences}, max_chars={self.max_chars})"

    def profile(self) -> dict[str, object]:
        """Provider, algorithm version and its limits (all strings)."""
        return {
            "provider": "extractive",
            "model": EXTRACTIVE_MODEL,
            "max_sentences": str(self.max_sentences),
            "max_chars": str(self.max_chars),
        }

    def _definition(
        self, request: ChatRequest, asked: QuestionTerms, *, strong_only: bool = False
    ) -> list[_Pick]:
        """The opening sentences from the best definition of a name the question names
        (``strong_only``: named strongly, :func:`arborist._text.definitions.named_definitions`)."""
        found = []
        for rank, item in enumerate(request.evidence):
            text = defang_citations(item.text)
            for definition, strong in named_definitions(text, asked, item.title):
                name = fold(definition.name.split(".")[-1])
                sentences = read_sentences(definition.doc)
                if not sentences or (strong_only and not strong):
                    continue
                if not strong and not plain_name_fits(name, asked, definition.doc, item.title):
                    continue
                found.append((strong, rank, definition))
        subject = [subject_named(item.title, asked) for item in request.evidence]
        if (best := best_named(found, subject)) is None:
            return []
        strong, rank, definition = best
        plain = not strong
        shown = next(
            (i for i in asked.identifiers if fold(i.split(".")[-1]) == fold(definition.name)),
            definition.name,
        )
        sentences = read_sentences(definition.doc)
        if shown == definition.name and not definition.nested:
            shown = qualified(definition.name, request.evidence[rank].title)
        call = call_signature(definition)
        if definition.is_class and call == definition.signature:
            call = ""  # a class header lists its bases, not how to call it
        lead = f"{shown}{short_signature(call)}: {sentences[0]}"
        picks = [_Pick(rank, 0, lead, math.inf, sentences[0] if plain else "")]
        picks += [
            _Pick(rank, i, s, math.inf) for i, s in enumerate(sentences[1:DEFINITION_SENTENCES], 1)
        ]
        return picks

    def _followed(self, request: ChatRequest) -> list[_Pick]:
        """The definitions the question is nearest (:attr:`EvidenceText.nearness`), when
        retrieval measured it: those within :data:`FOLLOWED_MARGIN` of the nearest, at most
        :data:`FOLLOWED_DEFINITIONS`, each as its head and first sentence, nearest first."""
        near = []
        for rank, item in enumerate(request.evidence):
            text = defang_citations(item.text)
            held = passage_definitions(text)
            if len(held) != len(item.nearness):
                continue  # not the passages embedded: nothing to follow
            for definition, cosine in zip(held, item.nearness, strict=True):
                if definition is None or cosine < NEAR_FLOOR:
                    continue
                if sentences := read_sentences(definition.doc):
                    lower = RANK_SHARE * rank + (MEMBER_SHARE if definition.nested else 0.0)
                    score = round(cosine - lower, 4)
                    near.append((-score, rank, definition.line, definition, sentences[0]))
        if not near:
            return []
        near.sort(key=lambda entry: entry[:3])
        best = -near[0][0]
        picks: list[_Pick] = []
        for score, rank, _, definition, sentence in near:
            if -score < best - FOLLOWED_MARGIN or len(picks) == FOLLOWED_DEFINITIONS:
                break
            title = request.evidence[rank].title
            shown = definition.name if definition.nested else qualified(definition.name, title)
            call = call_signature(definition)
            if definition.is_class and call == definition.signature:
                call = ""
            head = f"{shown}{short_signature(call)}: {sentence}"
            picks.append(_Pick(rank, definition.line, head, math.inf, sentence))
        return picks

    def _matching(self, request: ChatRequest, asked: QuestionTerms) -> list[_Pick]:
        """Every prose sentence holding a word of the question, scored (see the class docstring)."""
        wanted = _wanted(request.question, asked)
        texts = [defang_citations(item.text) for item in request.evidence]
        items = [read_items(text) for text in texts]
        table = [
            (rank, order, found.sentence, stems(found.sentence), found)
            for rank, item in enumerate(request.evidence)
            for order, found in enumerate(items[rank])
            if order > 0 or not cut_at_start(item.text, found.sentence)
        ]
        near = window_places(texts, [i.nearness for i in request.evidence], items, NEAREST_MARGIN)
        counts: dict[str, int] = {}
        for *_, found, _ in table:
            for word in found & wanted:
                counts[word] = counts.get(word, 0) + 1
        weight = {w: math.log(1 + len(table) / n) for w, n in counts.items()}
        titles = [wanted & stems(item.title) for item in request.evidence]
        about = [described(item.text, item.title) for item in request.evidence]
        before = {(rank, order): sentence for rank, order, sentence, *_ in table}
        place_of = {(rank, sentence): order for rank, order, sentence, *_ in table}
        opens = {(rank, read.heading): order for rank, order, *_, read in reversed(table)}
        picks = []
        cues = read_cues(request.question)
        top = max(weight.values(), default=0.0)
        for rank, order, sentence, found, read in table:
            own = found & wanted
            cued = cues.shares(sentence, read.term, about[rank].heads.get(sentence, ""))
            counted = (cued.number and read.first) or cued.named  # a term's number, or named
            if not (own or counted) or sentence in about[rank].private:
                continue
            lead, place, alone = "", order, None
            if continues(sentence):  # "However, ..." is quoted after what it goes on from
                if (rank, order - 1) not in before:
                    continue
                lead, place = before[(rank, order - 1)], order - 1
            elif sentence in about[rank].leads:  # "This function uses ..." after what it is
                lead = about[rank].leads[sentence]
                place = place_of.get((rank, lead), order)
            elif read.first:  # "The default value is 6700." after what the term is
                lead, place = read.first, place_of.get((rank, read.first), order)
                alone = (order + 1000, sentence)  # or alone, once that is quoted
            opening = lead or sentence
            score = _weighed(weight, own, wanted - own, titles[rank], read)
            if opening in about[rank].names:  # "a deep copy" says ``deepcopy``'s name
                joined = joined_name(about[rank].names[opening], asked)
                score += math.fsum(weight.get(stem(w), 0.0) for w in joined)
            score += cued.total * top  # "how many ...": "The default is 6700."
            worded = score - cued.typed * top
            score += NEAREST_SHARE * top * ((rank, order) in near[0])  # nearest in meaning
            said = f"{lead} {sentence}" if lead else sentence
            head = about[rank].heads.get(opening) or read.term
            if not head and opens[(rank, read.heading)] == place:
                head = _heading_head(read.heading, wanted, said)
            text = f"{head}: {said}" if head else said
            kept = (rank, order) in near[1] and len(own) >= min(ENGAGED_WORDS, len(wanted))
            picks.append(_Pick(rank, place + 1000, text, score, said, lead, alone, worded, kept))
        picks = _ranked(request, picks)
        floor = RELATIVE_FLOOR * max((p.worded for p in picks), default=0.0)
        return [p for p in picks if p.worded >= floor or p.nearest]

    def _select(self, request: ChatRequest) -> list[_Pick]:
        """The chosen sentences, grouped by evidence item (best group first), each group in order."""
        asked = read_question(request.question)
        chosen: list[_Pick] = []
        seen: list[set[str]] = []
        used = 0
        near = [score for item in request.evidence for score in item.nearness]
        opening = self._definition(request, asked, strong_only=bool(near))
        rest = self._matching(request, asked)
        if opening and not near and _outmatched(request, asked, opening[0], rest):
            opening = []  # a plain word named it, and another sentence answers better
        if near and not opening:  # by meaning: what is nearest, or what a plain word names
            opening = self._followed(request) or self._definition(request, asked)
            if not opening and max(near) < NEAR_FLOOR:
                return []  # nothing near the question, nothing it names
        elif opening:  # the definition says what it is; other chunks only add what names it
            rest = [] if len(opening) >= 2 else [p for p in rest if _names(p.text, opening[0])]
            rest = [p for p in rest if not names_another(p.text, asked, _name(opening[0]))]
        quoted: set[str] = set()  # sentences quoted so far, each at most once
        for candidate in [*opening, *rest]:
            if len(chosen) == self.max_sentences:
                break
            pick = _unled(candidate) if candidate.lead in quoted else candidate
            if pick is None:
                continue
            found = set(words(pick.sentence or pick.text))
            if any(near_duplicate(found, other) for other in seen):
                continue
            if chosen and used + len(pick.text) > self.max_chars:
                continue
            text = pick.text if chosen else shorten(pick.text, self.max_chars)
            seen.append(found)
            quoted.update(filter(None, (pick.lead, pick.sentence)))
            used += len(text)
            chosen.append(_Pick(pick.rank, pick.order, text, pick.score))
        first_seen = {p.rank: i for i, p in reversed(list(enumerate(chosen)))}
        return sorted(chosen, key=lambda p: (first_seen[p.rank], p.order))

    def _nothing(self, request: ChatRequest) -> str:
        """The refusal: what was searched for (the question's content words, as the support
        label counts them: not "way" or the "s" of "what's") and what was found."""
        searched = ", ".join(asked_words(request.question)) or request.question.strip()
        if not request.evidence:
            return f"{NO_EVIDENCE_ANSWER} No passage mentions any of: {searched}."
        titles = "; ".join(dict.fromkeys(" ".join(item.title.split()) for item in request.evidence))
        absent = absent_names(request)
        one = len(request.evidence) == 1
        found = "the passage found" if one else f"the {len(request.evidence)} passages found"
        if absent:
            return (
                f"{NO_EVIDENCE_ANSWER} No passage mentions {', '.join(absent)}; "
                f"{found} {'is' if one else 'are'} from {titles}."
            )
        return (
            f"{NO_EVIDENCE_ANSWER} Searched for: {searched}. {found.capitalize()} (from "
            f"{titles}) {'holds' if one else 'hold'} no sentence about it."
        )

    def complete(
        self, request: ChatRequest, *, on_token: Callable[[str], None] | None = None
    ) -> ChatResult:
        """Compose the answer from the evidence; stream it in word pieces when asked."""
        chosen = self._select(request) if grounded(request) else []
        if not _engages(request, chosen):
            chosen = []
        parts = []
        for index, pick in enumerate(chosen):
            parts.append(pick.text)
            if index + 1 == len(chosen) or chosen[index + 1].rank != pick.rank:
                parts[-1] += f" [{request.evidence[pick.rank].label}]"
        text = " ".join(parts) if parts else self._nothing(request)
        if on_token is not None:
            for piece in word_pieces(text):
                on_token(piece)
        raw: dict[str, object] = {
            "provider": "extractive",
            "model": EXTRACTIVE_MODEL,
            "sentences": [
                {"label": request.evidence[p.rank].label, "sentence": p.order} for p in chosen
            ],
        }
        return ChatResult(text, EXTRACTIVE_MODEL, "stop", raw)


DEFINITION_SENTENCES = 3
"""How many sentences of a definition's description the answer opens with, at most."""

FOLLOWED_DEFINITIONS = 4
"""How many of the definitions nearest the question an answer that follows them opens with."""

FOLLOWED_MARGIN = 0.135
"""How much less near than the nearest a definition may be and still be quoted beside it (on
the calibrated scale of :data:`NEAR_FLOOR`, as every nearness here)."""

RANK_SHARE = 0.0135
"""How much nearer a definition must be, for each place its evidence is ranked lower, to be
quoted first."""

MEMBER_SHARE = 0.068
"""How much nearer a member (a method) must be than a module-level definition to be quoted
first: a task is most often done by a module's own function."""

RELATIVE_FLOOR = 0.5
"""A matching sentence scoring under this share of the best one is about something else
("Batman was created by ..." for "who created Spider-Man?") and is left out, unless it says
:data:`ENGAGED_WORDS` of the question's words in the window the vector lane measured nearest
of all (``extractive-v24``; docs/retrieval.md)."""

TITLE_SHARE = 0.5
"""How much a question word in the evidence's title, or in the term a sentence describes,
counts for that sentence."""

HEADING_SHARE = 1.0
"""How much a question word in the heading a sentence is under counts for that sentence: as
much as one it says. A section's heading names what its every sentence is about ("The
default mode is serialized." under "Overview" of the threading page; "Views are read-only
in SQLite." under CREATE VIEW's "Description"), so a sentence there engages the question
as fully as one elsewhere that repeats the word. Until ``extractive-v23`` it counted
:data:`TITLE_SHARE`, as a document's title does (a title is a page's topic, wider)."""

NEAREST_SHARE = 1.0
NEAREST_MARGIN = 0.1
"""A sentence in a prose window the vector lane measured within ``NEAREST_MARGIN`` of the
evidence's nearest (:attr:`~arborist._qa.client.EvidenceText.nearness`, calibrated) earns
``NEAREST_SHARE`` of the question's weightiest word (``extractive-v23``): the words say what
a sentence is about, the window's nearness where the answer is ("The default transaction
behavior is DEFERRED." for "does plain BEGIN start a deferred or immediate transaction")."""

_NOT_ASKED = REQUEST_WORDS | {"s", "t", "d", "m", "ll", "re", "ve"}
"""Words no sentence is chosen for: those that shape a request, and what contractions leave
("what's", "don't"); a letter asked about ("the q key") counts."""


ENGAGED_WORDS = 2
"""How many of the question's words the best sentence quoted (with its passage's title) must
hold when no definition the question names opens the answer (all of them, for a question of
fewer): one shared word ("population" in ``sample``'s parameters for "What is the population
of Tokyo?", "1998" in a changelog for a World Cup, "list" in ``traceback.format_list`` for
"flaten a list of lists") is a coincidence, not an answer. The words counted are those the
support label asks for (:func:`arborist._qa.support.asked_words`: not "make", "best" or
"python", which shape a request), so "Make a file called targetpath" does not answer "how
do I make a temporary file". The sentence holds a word in any inflection, by the support
label's :func:`~arborist._qa.support.root` ("raised" holds "raise": ``extractive-v11``; before,
only the plural folded, and "If data is empty, StatisticsError will be raised." did not
answer "What does it raise on an empty list?"); its passage's title lends only the words it
names, in either number (a title is a topic: the "creating" of "Functions creating
iterators" is no "create" a sentence says, and read as one it let ``islice`` answer "How do
I create a 3x3 numpy array of zeros?"). Before ``extractive-v10`` a question of under three
words was exempt and every content word counted, so the Tokyo question this names was
answered."""


def _engages(request: ChatRequest, chosen: Sequence[_Pick]) -> bool:
    """Whether the sentences chosen answer the question rather than share a word with it: a
    definition the question names always does; otherwise the best-matching sentence must
    hold :data:`ENGAGED_WORDS` of its words, or all of a shorter question's (see there), or
    one when its passage's evidence holds a passage :data:`ABOUT_FLOOR` near the question."""
    if not chosen or any(p.score == math.inf for p in chosen):
        return True
    wanted = {root(w): stem(w) for w in asked_words(request.question)}

    def held(pick: _Pick) -> int:  # the sentence says a word in any inflection; a title, named
        said = {root(w) for w in words(pick.text)}
        topic = stems(request.evidence[pick.rank].title)
        count = sum(1 for r, s in wanted.items() if r in said or s in topic)
        near = request.evidence[pick.rank].nearness  # a passage about it: one word engages
        return count + (count > 0 and bool(near) and max(near) >= ABOUT_FLOOR)

    return max(map(held, chosen)) >= min(ENGAGED_WORDS, len(wanted))


NEAR_FLOOR = 0.355
"""How near the question the nearest passage of the evidence must be, when retrieval measured
it, for the evidence to be about the question at all: on the calibrated scale of
:mod:`arborist._store.calibration` (0 as near as the question's noise in the corpus, 1 as far
above it as a passage's nearest thousandth of the corpus is above its own), the same for
every model. Chosen with all-MiniLM-L6-v2 and multilingual-e5-small on the whole built-in
corpus (bench/remote_lane.py) as 0.55 on the scale of ``spread-p99-v1`` (a passage's nearest
hundredth), from 0.45 to 0.7 of which no figure moved (:data:`CLOSE_FLOOR` decides). On the
scale of ``spread-p999-v2`` MiniLM's spread is 1.48 times as wide, e5's 1.69: 0.355 is 0.96
of MiniLM's 0.55 / 1.48, the 0.96 leaving e5 the room it had (at 1.0 it wrongly refused 13
of 196 answerable questions, not 9; :data:`~arborist._qa.grounding.CLOSE_FLOOR`); the margins
above are MiniLM's own divided by 1.48 (0.2, 0.02, 0.1 before: at 0.96 of that, MiniLM's
answer to "the current exception's traceback as a string" lost ``format_exc``). Until the spread was calibrated this was
0.3 of ``1 - floor``, which put e5's answers too near its noise: it wrongly refused 31 of
196 answerable questions."""


def _weighed(
    weight: dict[str, float], own: set[str], other: set[str], title: set[str], read: Item
) -> float:
    """What a sentence's words score: those of the question it holds (``own``) at their
    weight; the ``other`` words of the question its section's heading names at
    :data:`HEADING_SHARE` of it, those its evidence's ``title`` or the term it describes
    names at :data:`TITLE_SHARE`."""
    headed = (other & stems(read.heading)) - title  # the section it is in
    topic = ((title | stems(f"{read.term} {read.first}")) & other) - headed
    lent = TITLE_SHARE * math.fsum(weight.get(w, 0.0) for w in topic)
    return (
        math.fsum(weight[w] for w in own)
        + lent
        + HEADING_SHARE * math.fsum(weight.get(w, 0.0) for w in headed)
    )


def _ranked(request: ChatRequest, picks: list[_Pick]) -> list[_Pick]:
    """``picks`` best first: by score, then by how near the lane's model measures each (those
    near enough kept past the floor, :mod:`arborist._qa.meant`), then by place."""
    near = measured(request, [(p.rank, p.sentence) for p in picks])
    if near:
        cut, kept = max(near) - SENTENCE_KEEP, zip(picks, near, strict=True)
        picks = [replace(p, meant=n, nearest=p.nearest or n >= cut) for p, n in kept]
    return sorted(picks, key=lambda p: (-p.score, -p.meant, p.rank, p.order))


_EXAMPLE = re.compile(r"(?<!\S)(?=\S*\d)\S+(?:[.-]\S+){2,}")
"""A value the question shows as an example (``v1.0-4-g2414721``, ``192.168.0.1``): three
parts or more, a digit among them. Its pieces ("0", "4") are no words a sentence should
hold: they match every other version."""


def _heading_head(heading: str, wanted: set[str], said: str) -> str:
    """The heading a section's first sentence is quoted under ("ALTER TABLE DROP COLUMN: The
    DROP COLUMN syntax is used to remove ..."): it names what was asked (a word of the
    question) and says more than the sentence (a word the sentence does not)."""
    named = stems(heading) - STOPWORDS
    return heading.rstrip(" .:;") if named & wanted and named - stems(said) else ""


def _wanted(question: str, asked: QuestionTerms) -> set[str]:
    """The stems a sentence is chosen for: the question's words, less those that shape a
    request and the pieces of a value it shows as an example."""
    quoted = {w for token in _EXAMPLE.findall(question) for w in words(token)}
    return {stem(w) for w in asked.words if w not in _NOT_ASKED | quoted} - STOPWORDS


def _outmatched(
    request: ChatRequest, asked: QuestionTerms, opening: _Pick, rest: Sequence[_Pick]
) -> bool:
    """Whether the definition ``opening``, named by a plain word of the question (its
    ``sentence`` is its description's first), holds fewer of the question's words than the
    best-scored other sentence: "read" names configparser's ``read`` ("Read and parse a
    filename ...") in "read a json file into a dict", but ``json.load``'s "Deserialize
    ``fp`` (a ``.read()``-supporting file-like object containing a JSON document) ..."
    holds "json", "file" and "read". Each counts the words its evidence's title names, and
    the definition its name (what named it). A kind of it never outmatches it (its name and
    a word the question does not say: "... compute the mean?" and ``geometric_mean``)."""
    if not opening.sentence or not rest or opening.sentence in rest[0].text:
        return False
    if names_another(rest[0].text, asked, _name(opening)):
        return False
    wanted = _wanted(request.question, asked)

    def held(pick: _Pick) -> int:
        return len(wanted & (stems(pick.text) | stems(request.evidence[pick.rank].title)))

    return max(held(p) for p in rest if p.score == rest[0].score) > held(opening)  # ties alike


def _unled(pick: _Pick) -> _Pick | None:
    """``pick`` without its lead, which is quoted already: the sentence alone, in its own
    place (so after its lead); None when it cannot be read without what it goes on from."""
    if pick.alone is None:
        return None
    order, sentence = pick.alone
    return _Pick(pick.rank, order, sentence, pick.score, sentence)


def _name(lead: _Pick) -> str:
    """The name the opening definition defines (``mean`` of ``statistics.mean(data): ...``)."""
    return lead.text.split("(", 1)[0].split(":", 1)[0].split(".")[-1]


def _names(sentence: str, lead: _Pick) -> bool:
    """Whether ``sentence`` mentions the name the opening definition defines."""
    name = _name(lead)
    return fold(name) in set(words(sentence)) or name in sentence
