"""Follow-up detection, round seventeen: each reading added this round with sentences written for
this file, and a look-alike it must leave alone (``stands_alone(question, above)``)."""

from __future__ import annotations

import pytest

from arborist._standalone.goes_on import goes_on
from arborist._standalone.rule import stands_alone

# (question, the turn above or None): read as standing alone.
STANDS = [
    # what was forgotten is the object, not a fact given after
    ("I forgot to say thank you to my host, what should I do?", None),
    ("how do I tell my boss I forgot to mention a deadline", None),
    # "wait" a noun, "ok so" opening a conversation
    ("wait times at the DMV on a saturday?", None),
    ("ok so I have a question about sourdough hydration", None),
    # a comparison that asks of its own
    ("compared to coffee, is green tea healthier?", None),
    ("compared to python is rust faster for parsing json", None),
    # "each" standing for things the question names
    ("what's the difference between a list and a tuple, with an example of each", None),
    ("SQL: delete duplicate rows but keep one of each", None),
    ("how many calories in an apple and a banana, and the sugar in each", None),
    # a comparative that names what it is of
    ("shorter skis or longer ones for a beginner?", None),
    ("simpler way to reverse a string in python", None),
    # "plug" not "plug in": a plug
    ("which plug in the UK has three pins", None),
    # a difference held against something, a plural that is the question's own
    ("how is a crocodile different from an alligator", None),
    ("are identical twins' fingerprints different", None),
    # "mine" after a verb: no opener
    ("here is a photo of mine from the trip, what bird is this", None),
    # a Dutch or German question that names what it asks of
    ("Wat is de hoofdstad van Nederland?", None),
    ("Wie lange hält gekochter Reis im Kühlschrank?", None),
]

# (question, the turn above or None): read as following up.
FOLLOWS = [
    # a fact the asker forgot to give
    ("forgot to mention I might move in 3 yrs", "should I buy or rent"),
    ("oh I forgot to say it's going to be indoors", "ideas for a 6 year old's party"),
    ("I forgot to add, we have two cats", "best robot vacuum for a small flat"),
    # a turn back to the answer
    ("ok but how do i get rid of one mid-race", "what causes a side stitch"),
    ("wait why do you take ln of both sides", "solve 2^x = 10"),
    ("wait, so the tax is paid twice?", "how are dividends taxed"),
    ("hold on, isn't that illegal", "can my landlord enter without notice"),
    # one side of a comparison
    ("compared to a can of red bull?", "how much caffeine is in an espresso"),
    ("vs a roth ira?", "what is a 401k"),
    # numbers put into a formula given before
    ("plug in 5000 at 4% for 10 years compounded monthly", "what's the compound interest formula"),
    ("can you plug in my numbers: 70kg, 180cm", "how do I work out my BMI"),
    # the same for each of things named before
    ("can you give me 3 example sentences for each", "affect vs effect"),
    ("give me 5 example sentences with each", "difference between who and whom"),
    # the last answer again, changed
    ("shorter, like 3 bullet points", "summarise the causes of WW1"),
    ("simpler please", "explain quantum entanglement"),
    ("a bit more formal?", "write a reply declining the invitation"),
    # a difference with nothing to hold it against
    ("how is meiosis different", "what is mitosis"),
    ("are they similar", "what is a crocodile"),
    # the asker's own of what the answer spoke of
    ("here's mine: 'Social media is bad.' too vague?", "how do I write a thesis statement"),
]


@pytest.mark.parametrize(("question", "above"), STANDS)
def test_a_question_that_says_what_it_asks_of_stands_alone(
    question: str, above: str | None
) -> None:
    assert stands_alone(question, above)


@pytest.mark.parametrize(("question", "above"), FOLLOWS)
def test_a_question_put_as_going_on_from_an_answer_follows_up(
    question: str, above: str | None
) -> None:
    assert not stands_alone(question, above)
    assert not stands_alone(question)  # read by how it is put, whatever was above


def test_going_on_is_read_on_the_question_as_typed() -> None:
    """Curly apostrophes and runs of spaces are read as typed ones."""
    assert goes_on("forgot  to say it’s going to be indoors")
    assert not goes_on("")
