"""Follow-up detection with the turn above: ``stands_alone(question, above)`` reads the question
of the turn a question is asked under (arborist._standalone.above), the marks only a
conversation has (arborist._standalone.marks), and the product paths that pass the turn above
(followups.read_above/context/sources, retrieve). Every sentence here is written for this file;
each rule has a look-alike it must leave alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from arborist._facade.app import Arborist
from arborist._forest.nodes import Node
from arborist._qa import followups
from arborist._standalone.rule import stands_alone
from arborist._store.search import retrieve

# (question, the turn above it): a follow-up only when read under that turn.
FOLLOWS_ABOVE = [
    # a definite noun the turn above brought in with what says which
    (
        "why does the proof need an odd prime?",
        "walk me through the proof of Fermat's little theorem",
    ),
    ("how long should the letter be?", "how do I write a cover letter for a museum job"),
    ("how long does the tart keep in the fridge?", "give me a recipe for a lemon tart"),
    ("does the dough need to rest overnight", "how do I make pizza dough from scratch"),
    # a noun of an act as a whole under a turn that asked how to do something
    ("how long does the recovery last?", "how do I get a tooth pulled"),
    # a pick from a pair the turn above named
    (
        "is there a monthly fee for the second one?",
        "what's the difference between a debit card and a credit card",
    ),
    ("can I cancel a booking with the latter?", "compare trains vs buses from Porto to Faro"),
    # an item by its number of a count the turn above asked for
    ("replace week 3 with something lighter", "make me a 6 week running plan for a 10k"),
    ("move the fourth stop to the morning", "plan a 5 stop walking tour of Bruges"),
    # a clause-less fragment repeating a run of the turn above with a restricting word
    ("every 10 minutes but only at night?", "how do I run a backup every 10 minutes"),
    # a clause-less choice under a turn it can qualify
    ("smoked or sweet paprika?", "how much paprika goes in a goulash for six"),
]

# The same questions under a turn that gives no such relation, or look-alikes under the same
# turn: each stands alone.
STANDS_UNDER = [
    ("why does the proof need an odd prime?", "what is a prime number"),
    ("why does the cake sink?", "give me a recipe for a lemon tart"),
    ("how does the electoral college work", "how does a voting machine work"),
    ("does the offside rule apply to a goal kick?", "explain the offside rule in football"),
    ("why does the construction of a bridge take years?", "explain the construction of a pyramid"),
    ("my radiator hisses all night, what's usually the cause?", "list the causes of a cold house"),
    ("is there a monthly fee for the second one?", "what is a debit card"),
    (
        "why is one side of a coin heavier than the other?",
        "what's the difference between a dime and a nickel",
    ),
    ("is the first one in a queue served first?", "compare a stack and a queue"),
    ("how do I rename the last commit I made?", "how to squash the last 4 commits"),
    ("replace line 3 of a file with sed", "how do I count the lines in a file"),
    ("how do I jump to line 40 in vim", "how do I delete 3 lines in vim"),
    ("why are the changes lost?", "how to keep changes after a reset"),
    ("does the dough need to rest overnight", "what is sourdough"),
    ("how long does the recovery last?", "what is a wisdom tooth"),
    ("how long does the process of photosynthesis take?", "how do plants make sugar"),
    ("how do I jump to line 40 in vim", "how do I delete a 3 line block in vim"),
    ("how should the essay I drafted end?", "how do I write an essay about Kant"),
    ("what does the pattern \\d{3}-\\d{4} match?", "explain the pattern \\d{2}-\\d{5}"),
    ("difference between a lake and a pond?", "difference between a river and a stream"),
    ("vim or emacs for writing Go?", "what is a good editor"),
]

# Marks only a conversation has, read from the question alone, each with a look-alike.
MARKED = [
    ("what size though?", "why do I feel tired even though I sleep nine hours?"),
    ("and which brand though", "Though I sleep a lot, why am I always tired?"),
    ("I'm left-handed btw", "btw, what's the boiling point of ethanol?"),
    ("Shorter pls", "a regex for a UK postcode please"),
    ("ELI5 please", "ELI5 quantum tunnelling please"),
    ("any under $50?", "any tips for a long flight?"),
    ("any cheaper?", "any good books on Roman history?"),
    ("mine always sinks in the middle, why?", "what does a salt mine look like inside?"),
    ("where does the salt come in?", "where does the salt go in a brine?"),
    ("can you expand on the key exchange part", "what is the hardest part of learning Rust?"),
    ("I don't follow, why the minus sign?", "I don't follow football, who won the league in 2019?"),
    ("do cheap ones break easily?", "are red ones sweeter than green apples?"),
    ("can I use frozen ones", "how do I delete every file except the ones ending in .log?"),
]

# Question-only readings mended in this round, each with a look-alike.
MENDED = [
    ("who won the first ever chess olympiad", True),
    ("who won the first one", False),
    ("how do I make it so that cron mails me on failure", True),
    ("how do I make it so small", False),
    ("when my cat scratches the sofa should I spray her with water", True),
    ("when the cat scratches the sofa", False),
    ("and a do-while loop, since Rust has none?", False),
    ("And since Rust has no do-while loop, how do I loop at least once?", True),
    ("I get 'EACCES: permission denied' after following those steps", False),
    ("I have a list of dicts; how do I sort those dicts by key?", True),
    ("and my partner's income?", False),
    ("and what's my partner's tax rate in Ohio?", True),
    ("hm, that seems low", False),
    ("hm, what's the capital of Chile?", True),
    ("warmer, that sounds like a complaint", False),
    ("do whales sing loudly, so that sounds travel far?", True),
]


@pytest.mark.parametrize(("question", "above"), FOLLOWS_ABOVE)
def test_a_question_that_reads_the_turn_above_is_a_follow_up(question: str, above: str) -> None:
    assert stands_alone(question)  # alone it is whole
    assert not stands_alone(question, above)  # under that turn it is not


@pytest.mark.parametrize(("question", "above"), STANDS_UNDER)
def test_a_question_with_no_relation_to_the_turn_above_stands_alone(
    question: str, above: str
) -> None:
    assert stands_alone(question, above)


def test_the_same_topic_asked_afresh_stays_standalone() -> None:
    """A complete question that shares the turn above's words is no follow-up for them."""
    pairs = [
        ("how do I descale a kettle with vinegar?", "how often should I descale a kettle"),
        ("what year did the eiffel tower open?", "who designed the eiffel tower"),
        ("how many moons does Jupiter have?", "how big is Jupiter compared to Earth"),
    ]
    for question, above in pairs:
        assert stands_alone(question, above) == stands_alone(question), question


@pytest.mark.parametrize(("marked", "look_alike"), MARKED)
def test_a_mark_only_a_conversation_has_makes_a_follow_up(marked: str, look_alike: str) -> None:
    assert not stands_alone(marked)
    assert stands_alone(look_alike)


@pytest.mark.parametrize(("question", "alone"), MENDED)
def test_question_only_readings(question: str, alone: bool) -> None:
    assert stands_alone(question) is alone


def test_without_the_turn_above_the_reading_is_the_question_alone() -> None:
    """``above=None`` (unknown) reads as before: no relation to a turn is looked for."""
    for question, _ in FOLLOWS_ABOVE:
        assert stands_alone(question, None) is stands_alone(question) is True
    for question in ("Why?", "And for sets?", "What does json.loads do?", "Who created him?"):
        assert stands_alone(question, None) is stands_alone(question)
    assert not stands_alone("Why?", "what does json.loads do")  # a follow-up stays one


def _node(
    seq: int, bates: str, parent: str | None, question: str, cited: tuple[str, ...] = ()
) -> Node:
    return Node(
        id=seq, bates=bates, sid="s", seq=seq, parent_bates=parent, question=question,
        answer_text="", cache_key="", audit_mode="STRICT", cited_titles=cited, created_at="",
        created_label=None, label=None, node_hash="", subtree_hash="",
    )  # fmt: skip


def test_followups_read_each_turn_under_the_one_above_it() -> None:
    """A turn that is whole alone but elides what the turn above said ("the letter" of "a cover
    letter") continues the thread: the context reaches the turn above it, and read_above reads
    that far (and the turn above the one that stands alone, which its reading needs)."""
    root = _node(0, "B0", None, "")
    first = _node(1, "B1", "B0", "how do I write a cover letter for a museum job", ("Letters",))
    second = _node(2, "B2", "B1", "how long should the letter be?", ("Length",))
    third = _node(3, "B3", "B2", "And him?")
    nodes = {n.bates: n for n in (root, first, second, third)}
    path = followups.read_above(third, False, nodes.__getitem__)
    assert [n.bates for n in path] == ["B3", "B2", "B1", "B0"]
    assert followups.context(path) == [
        "And him?",
        "how long should the letter be?",
        "Length",
        "how do I write a cover letter for a museum job",
        "Letters",
    ]
    assert followups.sources(path) == ["Length", "Letters"]
    # Under another first turn the second question stands alone: the context ends there.
    other = _node(1, "B1", "B0", "what is a museum", ("Museums",))
    nodes["B1"] = other
    path = followups.read_above(third, False, nodes.__getitem__)
    assert followups.context(path) == ["And him?", "how long should the letter be?", "Length"]
    assert followups.stands_under(second, other) and not followups.stands_under(second, first)
    assert followups.stands_under(first, root) == stands_alone(
        first.question
    )  # a root asks nothing


def test_retrieval_reads_the_question_under_the_nearest_turn(tmp_path: Path) -> None:
    """retrieve reads context[0] as the turn above: "the second one" of a pair it named
    borrows the thread's words; under a turn that names no pair the same question stands
    alone and its own words (which no document holds) find nothing."""
    (tmp_path / "spider-man.md").write_text(
        "# Spider-Man\n\nSpider-Man was created by Stan Lee and Steve Ditko in 1962.\n",
        encoding="utf-8",
    )
    (tmp_path / "batman.md").write_text(
        "# Batman\n\nBatman was created by Bob Kane and Bill Finger.\n", encoding="utf-8"
    )
    app = Arborist(tmp_path / "home")
    app.ingest([str(tmp_path / "spider-man.md"), str(tmp_path / "batman.md")])
    question = "Was there a film about the second one?"
    paired = retrieve(app.store_conn, question, context=["Who created Spider-Man and Batman?"])
    single = retrieve(app.store_conn, question, context=["Who is Spider-Man?"])
    assert {e.title for e in paired} == {"Spider-Man", "Batman"}
    assert single == []
