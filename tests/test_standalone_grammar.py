"""Follow-up detection, the grammar of leaning on a turn before: each class both ways.

Every question here is written for its class, none taken from the label sets in bench/: a
class that reads one way must leave the other way's questions alone. The label sets and
their floor are tested in tests/test_followup_labels.py.
"""

from __future__ import annotations

import pytest

from arborist._standalone.rule import stands_alone

STANDALONE = {
    "a negated auxiliary is an auxiliary": [
        "Isn't it dangerous to mix bleach and ammonia?",
        "Why doesn't Python have a switch statement?",
    ],
    "the one answering's own past act": [
        "Did you know that honey never spoils?",
        "What happens if you heated a magnet past its Curie point?",
        "Were you trained on Wikipedia?",
        "Is it bad to swim right after you ate a big meal?",
        "What do you recommend for learning Rust?",
    ],
    "a demonstrative standing for an earlier sentence": [
        "Many people claim cracking knuckles causes arthritis. Is that a myth?",
        "Bananas are slightly radioactive. Is this true?",
        "Octopuses have three hearts. How does that work?",
        "I read that Vikings wore horned helmets. Was that really the case?",
    ],
    "the weather's it": [
        "It's freezing outside, how long should I warm up my car?",
        "It's been two weeks since my flu shot; am I protected yet?",
        "It's been snowing for three days; how do I keep my pipes from freezing?",
        "It is really humid in the basement, what helps against mold?",
        "Is it snowing in Denver right now?",
    ],
    "a comparative completed in the question": [
        "Is there a cheaper way to heat a house than electric radiators?",
        "Is there a simpler approach to parsing dates than regular expressions?",
    ],
    "an ordinal before a compound noun of the world": [
        "how do i amend the last commit message",
        "My printer stopped working after the last driver update, what should I do?",
        "Who discovered the first exoplanet around a sun-like star?",
    ],
    "this before a colon that shows it": [
        "Is this a valid date format: 2024-13-01?",
        'Does this phrase sound natural: "I look forward to hear from you"?',
        "Are these two sums equal: 0.1 + 0.2 and 0.3?",
    ],
    "a noun of something as a subject, its owner given": [
        'What does the error "KeyError: 0" mean in pandas?',
        "What are the pros and cons of option 2 in a 401k rollover?",
        "Why is the output of ls not sorted by date?",
        "What would the cost of a kitchen remodel be in a big city?",
    ],
    "an item numbered by its list": [
        "What is step 1 of the scientific method?",
        "How do I open port 8080 on a firewall?",
        "Is vitamin D safe to take in winter?",
        "What is line 2 of the Gettysburg Address?",
    ],
    "an exchange with both its sides": [
        "Can I substitute yogurt for sour cream in a cake?",
        "How do I swap two variables in Python?",
        "Can you substitute baking soda with baking powder?",
        "What is a good substitute for eggs?",
    ],
    "a stage of the question's own clause": [
        "How many minutes should I knead dough for the first proof?",
    ],
    "a counterpart or a dependent noun with its owner": [
        "What's the inverse function of the natural logarithm?",
        "What is the inverse of a 2x2 matrix?",
        "What's the reverse of a string in Python?",
        "Give me a counterexample to the claim that every continuous function is differentiable.",
    ],
    "an answer to something said before": [
        "What happens to the body in response to stress?",
        "What does an investor get in return for buying a bond?",
    ],
    "'so' before a statement put back to confirm": [
        "So how do tides work?",
        "So is coffee bad for you?",
        "So I'm learning Spanish - which app should I use?",
        "So I just got a puppy, should I crate train it?",
    ],
    "'now' before a verb: the next step": [
        "Now that I have Python installed, how do I create a virtual environment?",
        "Now Python 3.13 is out, what changed in the GIL?",
    ],
    "'who' and a verb done to one thing": [
        "Who invented the telephone?",
        "Who discovered the electron?",
        "Who painted the ceiling of the Sistine Chapel?",
        "Who directed the film Jaws?",
    ],
    "a passive with no agent and nothing else": [
        "When was penicillin discovered?",
        "Who was assassinated in Dallas in 1963?",
        "How is cheese made?",
    ],
    "an addition with nothing saying where": [
        "Can you add a column to a pandas DataFrame?",
        "Can you add 17 and 25?",
        "Can you insert a row into a SQLite table from Python?",
    ],
    "the exact one, asked again": [
        "What is the exact speed of light?",
        "What's the exact time in Tokyo?",
    ],
    "'your' before a part of the answer": [
        "What is your favourite book?",
        "In your experience, is Vim faster than Emacs?",
        "What's your opinion on tabs versus spaces?",
        "What was your first programming language?",
        "What's your phone number?",
        "What's your favorite number?",
    ],
    "an ordinal in figures before a listed item": [
        "What happened in the 19th century?",
        "What's the 2nd step of the scientific method?",
        "Who finished 3rd in the 2018 World Cup?",
    ],
    "'that' after a request's verb": [
        "Explain that water expands when it freezes.",
        "Can you show that the square root of 2 is irrational?",
        "Can you confirm that Python 3.8 is end of life?",
        "Prove that a square has four sides.",
        "Can you show that x is even when n is odd?",
        "Do you think that AI will replace programmers?",
        "How do I know that a number is prime?",
        "Explain that gas expands when heated.",
    ],
    "a bare change of the last output": [
        "Now in Python 3.12, is the GIL optional?",
        "Why does my build fail again?",
        "Now that I have a job, how do I budget?",
    ],
    "'which one' with no set named": [
        "Tabs or spaces, which one is better?",
        "I have a Mac and a PC; which one is better for gaming?",
        "Between Rust and Go, which one compiles faster?",
        "Which would you choose, Vim or Emacs?",
        "Which is the largest planet?",
        "Which one is the odd one out: apple, banana, carrot?",
        "Which do you think is the best programming language for beginners?",
        "Which would you say is the tallest mountain in Europe?",
    ],
    "a sequel anchored in the question": [
        "When did Rome fall and what came next?",
        "Who won the Battle of Waterloo, and what happened afterwards?",
    ],
    "a comparative against its subject elsewhere": [
        "Why do bananas ripen faster in a paper bag?",
        "Why does ice melt faster on metal?",
        "why does my laptop run slower on battery",
        "Why do runners go faster at altitude?",
        "Why do plants grow faster during spring?",
        "Why is my code slower when I use threads?",
        "Do plants grow faster with music?",
    ],
    "an exchange with both sides named": [
        "Can I swap sugar for honey in a cake recipe?",
        "Can I replace butter with coconut oil?",
    ],
    "the asker's state before a question": [
        "Hi! I'm new to this. What's the best way to learn Rust?",
        "I'm lost with all this. What is a monad?",
        "Hi there! I'm a teacher. How can I make fractions fun for kids?",
        "Hello there, what is a monad?",
        "Newbie here. How do I center a div?",
        "Python dev here. Why is the GIL a thing?",
    ],
    "a spelling typed short, an interjection skipped": [
        "lol how do cats always land on their feet?",
        "why doesnt my sourdough starter bubble after two days?",
        "How many people lived in the city of Ur?",
        "wow, what is the tallest mountain in Africa?",
    ],
    "an impersonal it: the weather's verb, worth and an -ing clause": [
        "Does it snow in Tokyo in January?",
        "Does it rain much in Lima in May?",
        "Is it worth learning Latin as an adult?",
        "Is it really worth upgrading a 2015 laptop to an SSD?",
    ],
    "the same across a set the question names": [
        "Is boiling point the same at every altitude, and why?",
        "Is a kilogram of feathers the same in every country?",
        "Is the speed of sound the same in all gases?",
    ],
    "a request to redo or repeat the last answer's part": [
        "How do I repeat a string n times in Python?",
        "Repeat the header row on every printed page in Excel",
        "Is it true that bits are faster than bytes?",
        "I heard that sections of the Great Wall are visible from space. Is that right?",
    ],
    "a pro-form 'one' or 'both' with something of its own to stand for, or none": [
        "Who was the first one to walk on the moon?",
        "Is one of the Great Lakes saltwater?",
        "Why does no one use COBOL anymore?",
        "Give me a one-liner to reverse a string in Python",
        "How do I merge two lists into one in Python?",
        "If I want a sourdough starter, how do I make one?",
        "Why do magnets repel one another?",
        "Is one egg a day healthy?",
        "Do Python and Ruby both have garbage collection?",
        "Is it better to learn Spanish or French, or both?",
        "Both of my parents have brown eyes; can I have blue eyes?",
        "Why do both my knees hurt after running?",
    ],
    "a report that what the last answer gave fails": [
        "The printer doesn't work after the update, what can I do?",
        "The Python code fails on Windows",
        "The code I wrote fails on Windows, why?",
        "The VLOOKUP formula doesn't work across sheets, why?",
    ],
    "a name before a thing answers give says its kind in an edit": [
        "Translate the Gettysburg Address into French",
        "Summarize the Harry Potter books",
        "Translate the Lord's Prayer into Latin",
    ],
}

FOLLOW_UP = {
    "a negated auxiliary is an auxiliary": [
        "Doesn't that break on Windows?",
        "Wasn't this deprecated years ago?",
    ],
    "the one answering's own past act": [
        "Why did you choose a heap here?",
        "Go back to the point where you left off.",
        "Which library did you import?",
        "Explain the regex you wrote.",
        "Which of the examples you've shown is fastest?",
        "How did you get 37?",
        "Why did you skip the base case?",
        "Pick up where you stopped.",
    ],
    "a demonstrative standing for an earlier sentence": [
        "Wow. Is that true?",
        "Interesting point. Why is that?",
        "Nice answer. But is that always the case?",
        "That makes sense. Why is that?",
    ],
    "the weather's it": [
        "It's been slow since the update.",
        "Is it sunny enough for that?",
        "It's still not working after the update.",
    ],
    "a comparative completed in the question": [
        "Is there a cheaper way?",
        "Is there a simpler approach?",
    ],
    "an ordinal before a compound noun of the world": [
        "Explain the second code example again.",
        "Is the first sorting method stable?",
        "Why is the last term positive?",
        "What does the third parameter do?",
    ],
    "this before a colon that shows it": [
        "Is this valid?",
        "Does this work on a Mac?",
        "Why is this so slow? I expected better.",
    ],
    "a noun of something as a subject, its owner given": [
        "What would the output look like for a sorted array?",
        "Would the answer change for a married couple?",
        "What would the result be for a negative number?",
        "Why is the output empty when I pass a dict?",
        "Would the answer be different for a married couple?",
    ],
    "an item numbered by its list": [
        "Go into more detail on step 5.",
        "Go through step 2 again.",
        "Is option C cheaper?",
        "What does line 14 do?",
        "Can you expand on point 4?",
        "Why is approach 2 slower?",
    ],
    "an exchange with both its sides": [
        "Can I substitute yogurt?",
        "Could we swap tofu?",
        "What can I substitute?",
    ],
    "an edit of the last answer, and how": [
        "Recompute the total using the new tax rate.",
        "Redo the estimate at 4% growth.",
        "Rewrite the loop using a comprehension.",
        "Rewrite the function without recursion.",
    ],
    "a stage of the question's own clause": [
        "Show example code for the second method.",
        "Give sample output for the first approach.",
    ],
    "a counterpart or a dependent noun with its owner": [
        "What's the inverse?",
        "And the converse?",
        "Can you show a counterexample?",
    ],
    "an answer to something said before": [
        "What did the minister say in reply?",
        "And how did the market move as a result?",
        "What do I get in return?",
    ],
    "'so' before a statement put back to confirm": [
        "So the dosage is the same for adults?",
        "So I should use a set instead?",
        "So you're saying the loop never ends?",
    ],
    "'now' before a verb: the next step": [
        "Now add error handling.",
        "Now make the function generic.",
        "ok now sort the output by date",
    ],
    "'who' and a verb done to one thing": [
        "Who funded the survey?",
        "Who directed the film?",
        "Who signed the agreement?",
    ],
    "a passive with no agent and nothing else": [
        "Who was involved?",
        "How many were arrested?",
        "What was decided?",
    ],
    "an addition with nothing saying where": [
        "Can you add type hints?",
        "Could you include sources?",
        "Would you add error handling please?",
    ],
    "the exact one, asked again": [
        "Give me the precise figure.",
        "What was the exact date?",
    ],
    "'your' before a part of the answer": [
        "Could you clarify your third point?",
        "What did you mean in your last paragraph?",
        "Does your snippet handle empty input?",
        "Can you shorten your first step?",
        "What's your point?",
        "Is your claim backed by studies?",
        "Can you recheck your numbers?",
    ],
    "an ordinal in figures before a listed item": [
        "Why is the 2nd step necessary?",
        "Can you redo the 3rd option with numbers?",
        "and at the 4th step, how hot should the oven be?",
    ],
    "'that' after a request's verb": [
        "Could you simplify that function?",
        "Explain that diagram in plain words.",
        "Can you explain that line?",
        "Could you rewrite that paragraph more formally?",
        "Can you rephrase that sentence more simply?",
        "Can you explain that process in detail?",
    ],
    "'that' as a subject, opening a sentence or after belief": [
        "Really? That sounds too low.",
        "Are you certain? that seems off",
        "I don't think that's correct.",
        "I'm not sure that's right.",
    ],
    "a bare change of the last output": [
        "now in German",
        "now as a bulleted list",
        "try again but with a smaller font",
        "Run it again with a bigger batch size",
        "Do it again but slower",
    ],
    "'which one' with no set named": [
        "Which one should I buy for a small kitchen?",
        "Which ones are safe for a dog to eat?",
        "So which one would you pick for a startup?",
        "Which would you pick for a small team?",
        "Which do you prefer?",
        "Which would work better for me?",
    ],
    "a sequel anchored in the question": [
        "And what happened afterwards?",
        "The treaty was signed, and what happened next?",
    ],
    "a comparative against its subject elsewhere": [
        "Why is it faster on Windows?",
        "Is the loop faster in Rust?",
        "Why does the code run faster in PyPy?",
        "Why is the second approach better?",
        "Is the loop faster with numpy?",
    ],
    "an exchange with both sides named": [
        "Can I replace butter with oil in the recipe?",
        "Can I replace the butter with oil?",
        "Can I replace it with oil?",
    ],
    "the asker's state before a question": [
        "I'm confused by this. Why?",
        "I'm stuck on this. Can you explain it again?",
        "I'm new to this. Is that normal?",
        "Hello there, why?",
        "Stuck here. Any ideas?",
        "Same error here. Why?",
    ],
    "a noun of something": [
        "What's the takeaway?",
        "Key takeaways?",
    ],
    "a spelling typed short, an interjection skipped": [
        "haha that's way too formal, can you loosen it up?",
        "can you make ur answer shorter?",
        "can u repeat ur last sentence",
        "ugh this doesnt compile",
        "i dont get it",
    ],
    "an impersonal it: the weather's verb, worth and an -ing clause": [
        "Is it worth reading?",
        "Is it worth the money?",
        "Does it snow less than it used to there?",
    ],
    "the same across a set the question names": [
        "Is it the same for all of them?",
        "Would the result be the same in every case?",
        "Is the answer the same for each?",
        "Is the same true in Canada?",
    ],
    "a request to redo or repeat the last answer's part": [
        "Can you repeat that bit about the deposit?",
        "Repeat the last step.",
        "Could you reformulate the answer in simpler words?",
        "Redo the chart but with a log scale",
        "Can you redo the table but sort it by date?",
    ],
    "a pro-form 'one' or 'both' with something of its own to stand for, or none": [
        "the third one",
        "Is the cheaper one any good?",
        "What about the red one?",
        "Where can I buy one?",
        "How do I make one without a blender?",
        "Should we get one for the office?",
        "Can you recommend one?",
        "Both look fine, which is faster?",
        "Both seem reasonable, how should I choose?",
        "the 10th one please",
        "Should I learn both?",
    ],
    "a report that what the last answer gave fails": [
        "The script crashes on line 3",
        "the code didnt run",
        "The query fails with a syntax error",
        "the explanation doesn't help",
    ],
    "a name before a thing answers give says its kind in an edit": [
        "Rewrite the Python script to use async",
        "Rewrite the JSON example in YAML",
        "Simplify the Bash script",
        "Could you redo the Excel formula but skip blank cells?",
    ],
}


def cases(table: dict[str, list[str]]) -> list[object]:
    return [pytest.param(q, id=f"{kind}: {q}") for kind, qs in table.items() for q in qs]


@pytest.mark.parametrize("question", cases(STANDALONE))
def test_a_question_of_a_class_that_stands_alone(question: str) -> None:
    assert stands_alone(question)


@pytest.mark.parametrize("question", cases(FOLLOW_UP))
def test_a_question_of_a_class_that_leans_on_the_turn_above(question: str) -> None:
    assert not stands_alone(question)


def test_the_new_classes_read_a_long_question_in_linear_time() -> None:
    assert not stands_alone("Is this valid? " * 20_000)
    assert stands_alone("Is this valid: " + "x = 1, " * 20_000)
    assert not stands_alone("did you " * 30_000)
    assert not stands_alone("where you stopped " * 20_000)
    assert stands_alone("a faster way " * 10_000 + "than recursion")
    assert not stands_alone("would the result be " * 10_000 + "for a list")
    assert not stands_alone("step 3 " * 20_000)
    assert not stands_alone("can I substitute " * 20_000)
    assert stands_alone("can I substitute " * 20_000 + "honey for sugar")
    assert not stands_alone("so the " + "loop " * 20_000 + "never ends?")
    assert not stands_alone("what did they say in reply " * 10_000)
    assert not stands_alone("can you add " + "comments " * 30_000)
    assert not stands_alone("I'm new to this. " * 20_000)
    assert not stands_alone("Really? That " * 20_000)
    assert not stands_alone("which one " * 20_000)
    assert not stands_alone("the one " * 20_000)
    assert not stands_alone("both " * 40_000)
    assert stands_alone("do magnets repel one another " * 10_000)
    assert not stands_alone("try again " * 20_000)
    assert stands_alone("can I replace butter with oil " * 10_000)
    assert not stands_alone("your 3rd step " * 20_000)
    assert not stands_alone("hi there " * 20_000 + "why?")
    assert not stands_alone("newbie here. " * 20_000 + "What is a monad?")
    assert not stands_alone("I'm new to this. " * 5_000 + "What is a monad?")
