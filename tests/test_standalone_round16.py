"""Follow-up detection, round sixteen: each reading added this round with sentences written for
this file, and a look-alike it must leave alone (``stands_alone(question, above)``)."""

from __future__ import annotations

import pytest

from arborist._standalone.rule import stands_alone

# (question, the turn above or None): read as standing alone.
STANDS = [
    # "is it" + a word + a clause whose "that" is left out: "it" stands for that clause
    ("is it normal you get a headache after giving blood", None),
    ("is it true we only use ten percent of our brains", "how many neurons are in a brain"),
    # "is it" + two quoted forms: the choice between them
    ("is it 'fewer' or 'less' with countable nouns", None),
    # a number inside a new noun phrase says of what the definite subject is
    ("how long should the abstract be in a 6 page paper", "how do I cite a website in APA"),
    # a second question after a comma or "or" whose subject is the first clause or its subject
    ("why do cats purr, is it always a sign they are happy", None),
    ("do bananas ripen sooner in a paper bag or is that a myth", None),
    # "that" and a noun before a clause of the asker's ("my ... makes") that says which
    ("that humming sound my fridge makes at night, is it normal", None),
    # a particle after "that" with a noun of the question's own before it
    ("I wrote a long essay, can you sum that up", None),
    # look-alikes of the turns of arborist._standalone.turns, each saying what it is about
    ("too many redirects error in chrome", None),
    ("too late to plant garlic in december?", None),
    ("does it matter if the rice is rinsed", None),
    ("should I be worried about a dry cough", None),
    ("tried and true ways to fall asleep", None),
    ("why didn't my printer work after the update", None),
    ("I need a tent, is a used one ok?", None),
    ("day 2 of a water fast, is dizziness normal", None),
    ("anything heavier than lead?", None),
    ("is it different to drive in Ireland than in France", None),
    ("how much is the ticket to Vienna", None),
    ("now do I need a visa for Chile?", None),
    ("give me an example of irony in a novel", None),
    ("how long does the moon take to circle the earth", None),
    ("how long does the average marathon take", None),
    ("is it 'too' or 'to' after 'me'", None),
    # a comparative after an act in -ing: doing it set against not doing it
    ("does salting the water make pasta cook faster", None),
    ("why does chilling dough make cookies spread less or is that a myth", None),
    # what to put in or values given, each under a turn that asked for no text and no sum
    ("include my cousin in the group chat", "how do I make a group chat on Signal"),
    ("80 kg and 1.8 m", "what is a healthy weight for a man"),
    ("convert 80 kg and 1.8 m to pounds and feet", "how do I calculate my BMI"),
    # "how many" with its noun said, or a generic "you"; what was tried with its own goal
    ("how many eggs should I use for a sponge cake", None),
    ("how many do you need to form a quorum", None),
    ("tried to renew my passport online but the site crashes, what now", None),
    ("already submitted my thesis, can I still fix a typo in it", None),
    ("day 1 patch notes for a video game", None),
    ("tried everything for hiccups, is holding my breath safe?", None),
    ("is it normal my dog sheds so much in winter", None),
    # the asker's figures under a turn that asked no advice, or with a question of their own
    ("my budget is 900", "how do rainbows form"),
    ("my son is 7, what should he read?", "recommend some adventure books"),
    ("my kettle is 10 years old, is that why it's loud", "which kettle is best"),
    # "what is the N" under a turn that asked no act, of a unique thing, or saying of what
    ("what is the deadline", "what is a bursary"),
    ("what is the internet", "how do I set up a mesh router"),
    ("what is the deadline for tax returns", "how do I file a tax return"),
]

# (question, the turn above or None): read as a follow-up.
FOLLOWS = [
    ("is it true?", None),  # "it" with no clause after it
    ("is it a scam or a real offer", None),  # no quoted forms: "it" is what was said
    ("how long should the abstract be at 6 pages", None),  # a bare number: a value of its N
    ("sure, is it safe?", None),  # no first clause for "it" to stand for
    ("great, or is that too slow?", None),
    ("that is my main worry", None),  # no noun after "that": it points back
    ("can we hurry that up?", None),  # "that" between a verb and its particle
    ("how do I write this down", None),
    # a verdict on the last answer, a fact offered "if it matters", a requirement or a report of
    # what was tried with its subject left out
    ("too casual. it's for a bank", "write me a bio for a conference"),
    ("way too long", None),
    ("still too sweet", "give me a lemonade recipe"),
    ("I use a gas stove if it matters", "how do I season a wok"),
    ("has to fit in a carry-on", "suggest a travel guitar"),
    ("already tried resetting it, still blinking", "my router keeps dropping wifi"),
    ("doesn't help, the squeak is back", "how do I fix a squeaky door"),
    # the one of what was asked above, a day into it, something more, a case set against it
    ("a cheap one", "how much does a passport photo cost"),
    ("is a refurbished one ok?", "which road bike should I get"),
    ("day 3 and the kombucha has no fizz, why", "how do I brew kombucha"),
    ("week 2, still no sprouts", "how do I grow chives from seed"),
    ("anything smaller?", "recommend a tent for two people"),
    ("is it any different if I rent the flat out?", "how is capital gains tax worked out"),
    ("how much are the lessons", "where can I learn to sail in Brighton"),
    # "now do" before what to do next
    ("now do the same for the second list", "sort this list of names"),
    # an example from a field, how long the act above takes, an additive before "or"
    ("an example from sport?", "what is a false dichotomy"),
    ("how long does the ferry normally take", "how do I get from Split to Hvar"),
    ("delivery too or only collection", "do supermarkets in Oslo take cash"),
    ("how many should I plant per pot", "how do I grow garlic indoors"),
    ("does soaking them make it quicker", None),  # "them", "it": said before
    # what to put into a text the turn above asked for, values for a sum it asked for
    ("say that we met at the book fair", "write a thank-you card to a publisher"),
    ("mention my five years at the bank", "draft a cover letter for a fintech role"),
    ("80 kg and 1.8 m", "how do I calculate my BMI"),
    ("use 3000 at 5% over 6 years", "how can I work out simple interest"),
    # the asker's figures under a turn that asked for advice
    ("my budget is 900", "recommend a road bike for commuting"),
    ("I have a 2016 golf", "which winter tyres are best"),
    # a part of the act the turn above asked how to do
    ("what is the deadline", "how do I apply for a bursary"),
    ("how long is the wait usually", "how can I book a driving test"),
    ("when is the interview", "how do I get a job at a bank"),
]


@pytest.mark.parametrize(("question", "above"), STANDS)
def test_stands_alone(question: str, above: str | None) -> None:
    assert stands_alone(question, above)


@pytest.mark.parametrize(("question", "above"), FOLLOWS)
def test_follows(question: str, above: str | None) -> None:
    assert not stands_alone(question, above)
