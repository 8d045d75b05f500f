"""Follow-up detection: reactions to the last answer (bare requests, verdicts, reports, counts
of more), what the world gives (a thing done in time, a part of data that says what it is
of, a participle, a kind in the plural) and questions in other languages, each class both
ways.

Every question here is written for its class, none taken from the label sets in bench/; the
classes of tests/test_standalone_grammar.py are read by the same rule.
"""

from __future__ import annotations

import pytest

from arborist._standalone.rule import stands_alone
from tests.test_standalone_grammar import cases

STANDALONE = {
    "a participle after a present auxiliary is no past": [
        "How long do boiled eggs last in the fridge?",
        "And is it safe to reheat cooked pasta?",
    ],
    "this before but with no comma": [
        "This may sound silly but why do cats purr?",
    ],
    "a demonstrative its where-clause says": [
        "That feeling when your foot falls asleep, what causes it?",
        "this thing where my laptop fan spins up at night, why does it happen?",
    ],
    "their standing for a bare plural": [
        "sort dicts by their values in python",
        "rename photos by their creation date",
    ],
    "an ordinal before a thing done in time": [
        "how do I revert the last commit",
        "rerun the previous command with sudo",
        "When is the next election?",
    ],
    "an ordinal before a part of data that says what it is of": [
        "remove the last character of the string",
        "delete the first row in excel",
        "the last line of the log file",
    ],
    "a question in another language with a subject of its own": [
        "¿Cuánto cuesta un billete de tren a Madrid?",
        "Wie funktioniert ein Kühlschrank?",
        "Comment faire une pâte à crêpes ?",
        "Was ist der Unterschied zwischen Weizen und Dinkel?",
        "Quelle est la capitale du Canada ?",
        "¿Dónde está el museo del Prado?",
    ],
    "as well before a contrast that names what it adds to": [
        "how do I delete remote branches as well, not just local ones",
    ],
    "instead after a clause that names what it replaces": [
        "pip is slow on my laptop, what should I use instead?",
        "my script prints a tuple, how do I get a list instead",
    ],
    "one N and another N, a pair of its own": [
        "check whether one string is longer than another string",
    ],
    "a length of time is of nothing said": [
        "What is the tax on shares sold within a year?",
    ],
    "the rows a where-clause says": [
        "delete the rows where status is null",
    ],
    "texting's u before a request": [
        "can u explain how a heat pump works",
    ],
    "the same across occasions or things its clause names": [
        "Why do I always get the same error from pip?",
        "Does the same law apply in Canada as in France?",
        "Can I use the same key on every server?",
    ],
    "an ordinal in time before a compound noun ending in a thing that happens": [
        "When was the last lunar eclipse?",
        "When was the last total solar eclipse seen in Europe?",
    ],
    "the other, with what it is other than named": [
        "What is the other main gas in air besides nitrogen?",
        "Which are the other official languages of Belgium apart from French?",
    ],
    "it before a colon that carries the question": [
        "Put it simply: how do vaccines work?",
        "Explain it like I'm five: what is a blockchain?",
    ],
    "a demonstrative in a second question after a first that stands alone": [
        "Do bulls really hate the color red, or is that just a myth?",
        "Is it true that sharks never sleep, or is that a myth?",
    ],
    "that a conjunction before a clause with an adverb in it": [
        "How do I set up sudo so that only admins can install packages?",
        "Is it true that usually cats sleep sixteen hours a day?",
    ],
    "a texting spelling or a slip read as its word, with a subject of its own": [
        "wat is a monad",
        "Can you give an exmaple of a closure in Python?",
    ],
    "a preposition before a question word, with a clause of its own": [
        "Since when is Pluto not a planet?",
        "Really? How many hearts does an octopus have?",
        "really good books about Rust?",
    ],
    "something like, with what it is like named": [
        "Is there anything similar to Docker for Windows?",
        "Is there something better than Excel for budgeting?",
        "And now for something different: what causes tides?",
    ],
    "the asker's own also, naming what it adds": [
        "I also want to learn Italian, what's the best app for beginners?",
        "We also have a cat. Are lilies toxic to cats?",
    ],
    "a dash ends a clause: the question word after it asks": [
        "The quote 'float like a butterfly' - who said it?",
        'The line "I think therefore I am" — who wrote it?',
    ],
    "a demonstrative and a name or literal outside any condition": [
        "How do I parse this timestamp 1700000000 in Python?",
        "What date is this timestamp 1700000000 if I am in UTC?",
    ],
    "an ordinal in words before a listed item, with its owner, its clause or its list": [
        "How do I sort my array of pairs by the second element?",
        "What is the third step to take after a car accident?",
    ],
    "a pronoun that is not its own clause's subject's object": [
        "How do I make a cake and freeze it?",
        "Why does a magnet attract iron but not repel it?",
        "Can a dog eat grapes, or are they toxic to it?",
    ],
    "it after a person's pronoun, with a thing left in the first clause": [
        "Why did Caesar cross the Rubicon and what did he gain from it?",
        "How did Einstein react when he heard about relativity?",
        "How did Napoleon Bonaparte lose Waterloo and what did he learn from it?",
    ],
    "a demonstrative whose name is asked, what the clause describes": [
        "What is that feeling called when you can't remember a word?",
        "What's that thing called where you see shapes in clouds?",
    ],
    "they, the people of a place, using its language": [
        "How do they say thank you in Japan?",
        "what language do they speak in peru",
    ],
    "what the asker believed, after a question that stands alone": [
        "Do cats see in color? I read the opposite somewhere.",
        "Why do onions make you cry? I always assumed it was the smell.",
    ],
    "that a conjunction after a condition's verb that takes a clause": [
        "If we learn that our data leaked, what should we do?",
        "If I notice that my dog limps after walks, should I see a vet?",
    ],
    "and before a question of its own that opens with no setting": [
        "And how does a heat pump work in winter?",
        "So in Python, how do I reverse a list?",
    ],
    "the same across both, its pair named by a but between two clauses": [
        "Why is ice slippery but glass is not? Explain both with the same idea.",
        "Why does bread go stale but crackers go soft? Do both happen for the same reason?",
    ],
    "a count in the past with a setting, or in the present perfect": [
        "How many people died in the 1918 flu pandemic?",
        "How many people have died of measles?",
    ],
    "a reaction that names the occasion, or a question in the present after one": [
        "The Eiffel Tower. How long did the construction take?",
        "Interesting. Why is the sky blue?",
    ],
    "why not with a subject of its own asks of the world": [
        "Why can't we just print more money?",
        "Why don't airlines simply board from the back?",
    ],
    "also in a claim put to the test after is it true that or I heard that": [
        "Is it true that the new tax rule also applies to freelancers?",
        "I read that octopuses also dream when they sleep - is it true?",
    ],
    "a hyphened compound with a function word is one word, its parts no function": [
        "What does the same-sex marriage ruling say?",
        "What problem does the same-site cookie attribute solve?",
    ],
}
FOLLOW_UP = {
    "an ordinal before a part of an answer or of data with no owner": [
        "explain the last line",
        "Could you expand on the last example?",
        "What does the first line of the code do?",
        "How did the market react the next day?",
    ],
    "a request's verb with no object": [
        "rewrite without a loop",
        "explain like I'm a child",
        "Can you translate into German?",
    ],
    "a demonstrative before but": [
        "Could you put that but in a table",
    ],
    "the answer's N made more or less something": [
        "Can you make the wording more casual?",
        "make the summary shorter",
    ],
    "a verdict on the last answer": [
        "way too technical",
        "hmm not exactly what I asked for",
        "yeah but how",
        "nah",
        "the source is outdated",
    ],
    "here with only numbers before it": [
        "why 3 and not 4 here?",
    ],
    "the difference with nothing saying between what": [
        "Is the difference still significant with n = 30?",
    ],
    "as well ending a clause": [
        "Should I add the optional flag as well?",
        "Is honey fine as well?",
    ],
    "a question in another language that leans on the turn above": [
        "und auf Englisch?",
        "¿y para niños?",
        "et avec du beurre ?",
        "¿Hay otra opción?",
        "Und was kostet das?",
        "¿Es eso seguro?",
    ],
    "a count of more": [
        "give me 3 more like that",
    ],
    "a point the last answer made": [
        "Can you say more on the point about taxes?",
    ],
    "texting's u and a past act": [
        "u skipped the units",
    ],
    "what if, whatever it names": [
        "What if the loan is only 10000?",
        "what if I run it on Python 3.8",
    ],
    "instead with nothing replaced before it": [
        "That's too slow, what should I use instead?",
        "Can I use a pan instead?",
    ],
    "it done to by an agent is a thing": [
        "Is it protected by copyright if I change the colors?",
    ],
    "another with no one before it": [
        "give me another network",
    ],
    "the same with nothing in its clause to be the same across": [
        "Would the same trick work on Windows?",
        "Is the same true as well?",
    ],
    "an ordinal before a part of an answer, in the past": [
        "Was the last step necessary?",
        "When was the second experiment run?",
    ],
    "the other, compared but not excepted": [
        "Is the other approach faster than a loop?",
        "What about the other method?",
    ],
    "it before a colon with no question of its own after it": [
        "Explain it again: I still don't get it.",
        "Can you say it differently: the second part?",
    ],
    "a demonstrative in a second question after a first that leans": [
        "Nice, or is that wrong?",
        "Does the recipe need eggs, or is that optional?",
    ],
    "that an object before only adverbs": [
        "Could you put that more simply?",
        "Can you write that more concisely?",
    ],
    "a texting spelling or a slip read as its word, leaning on the answer": [
        "wat about dogs",
        "can u give an exmaple",
        "could you transalte the intro into French",
    ],
    "a preposition and a question word with nothing else": [
        "really? since when",
        "for how long?",
        "From where?",
    ],
    "something like, with nothing it is like, whatever else it names": [
        "Do other languages have something similar?",
        "Did the Incas build anything similar, or was it unique to Egypt?",
    ],
    "also adding to the last answer, naming nothing of its own": [
        "I also need the totals",
        "Can you also show the median?",
    ],
    "no dash: the question word opens a relative clause, or the pronoun is in one": [
        "The quote 'float like a butterfly' who said it?",
        "I want a recipe that uses them - any ideas?",
    ],
    "a demonstrative whose only literal is a condition's": [
        "What happens to these values if I set x to 5?",
        "what happens to those totals if the rate rises to 4 percent",
    ],
    "an ordinal in words before a listed item, with nothing saying whose": [
        "Could you break down the second step with an example using real numbers?",
        "Can you illustrate the fourth option with a diagram of a house?",
        "the second point I made",
    ],
    "an object pronoun after its clause's subject, the only new noun phrase": [
        "Would a linked list make this faster?",
        "Would a binary search tree handle this better?",
        "Can a dog eat it?",
        "Does a hash map store them in order?",
    ],
    "it after a person's pronoun has taken the first clause's only subject": [
        "How did Darwin react when he read about it?",
        "How did Marie Curie feel when she won it?",
        "Why did Gandhi refuse when she offered it?",
    ],
    "a demonstrative whose name is asked, with no clause to describe it": [
        "What's that thing called?",
        "What is that method called again?",
    ],
    "they with no place, or a place that is a thing said": [
        "What language do they speak in the film?",
        "What do they speak?",
        "what do they call it in spain",
    ],
    "what the asker believed, after a question that leans": [
        "Is this safe? I thought so.",
        "Why did you use a set? I thought a list was better.",
    ],
    "that a determiner after a condition's verb that takes no clause": [
        "If we deploy that build on Friday, what could go wrong?",
        "If I ran that query on a bigger table, would it still be fast?",
    ],
    "and before a setting, a case added to the question above": [
        "And in Python, how do I reverse a list?",
        "And with a mortgage, can I still deduct the interest?",
    ],
    "the same across both, the pair the last answer's": [
        "Explain both using the same principle.",
        "Can both use the same key?",
    ],
    "a count in the past of an occasion not named": [
        "How many people died?",
        "how many passengers were rescued",
    ],
    "the N in the past after a short reaction that names nothing": [
        "fair enough. how long did the construction take?",
        "interesting! when did the trial start?",
        "Interesting. How many soldiers survived?",
    ],
    "why not and no subject, a suggestion set against the answer's": [
        "why not just restart the server?",
        "Why not simply use a set instead of a list?",
    ],
    "also in a claim put to the test after is it true that or I heard that": [
        "Is it also true that honey never spoils?",
        "Does the new tax rule also apply to freelancers?",
    ],
    "a hyphened compound with a function word is one word, its parts no function": [
        "Is there a cross-platform library for this?",
        "is there a built-in function for that",
    ],
}


@pytest.mark.parametrize("question", cases(STANDALONE))
def test_a_question_of_a_class_that_stands_alone(question: str) -> None:
    assert stands_alone(question)


@pytest.mark.parametrize("question", cases(FOLLOW_UP))
def test_a_question_of_a_class_that_leans_on_the_turn_above(question: str) -> None:
    assert not stands_alone(question)


def test_the_new_classes_read_a_long_question_in_linear_time() -> None:
    assert stands_alone("loop over files with spaces in their " * 10_000)
    assert stands_alone("one x another x " * 10_000)
    assert not stands_alone("one x another y " * 10_000)  # no pair: each "another" read once
    assert not stands_alone("the files in their " * 10_000)  # no bare plural, found once
    assert not stands_alone("x, y instead " * 10_000)
    assert not stands_alone("5 more " * 10_000)
    assert not stands_alone("und das " * 10_000)
    assert stands_alone("how long does cooked rice keep " * 10_000)
    assert stands_alone("how do I undo the last commit " * 10_000)
    assert stands_alone("explain it " * 20_000 + ": what is inflation?")
    assert not stands_alone("the same " * 20_000)
    assert not stands_alone("the other " * 20_000)
    assert stands_alone("do bulls hate red" + ", or is that a myth" * 10_000)
    assert not stands_alone("how did napoleon react when he heard " + "about it " * 20_000)
    assert stands_alone("is it true that the rule " + "also applies " * 10_000)  # one pass
    assert not stands_alone("explain " + "both with the same idea " * 10_000)  # pair found once
