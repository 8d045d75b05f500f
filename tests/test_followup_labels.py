"""Follow-up detection: ``stands_alone`` agrees with blind labels, and reads pronouns in place.

The floor is measured by bench/followup_labels.py on all the labels in
bench/natural_questions.json (the part once held out has been seen: it is dev now).
The blind sets, bench/followup_holdout2.json to bench/followup_holdout18.json (each
seen once, dev since), are never read here: their flags are tried on files of their shape written in a
temporary folder; tests/test_standalone_grammar.py tries the grammar's classes both ways. The
repo's ordinary questions (bench/quality_questions.json and the others ``--ordinary`` reads),
standalone by construction, are read as follow-ups no more often than the bench's ceiling.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arborist._standalone.rule import stands_alone

BENCH = Path(__file__).resolve().parent.parent / "bench" / "followup_labels.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arborist_bench_followup_labels", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_dev_agreement_with_the_blind_labels_stays_above_the_floor() -> None:
    bench = load_bench()
    items = bench.load_labels()
    assert len(items) >= 79
    assert len(bench.load_labels(holdout=True)) >= 22  # the once held-out part is in
    assert {item["label"] for item in items} == {"standalone", "followup"}
    figures = bench.score(items)
    assert figures.rate >= bench.FLOOR >= 0.95, bench.report(figures, items)


def test_the_bench_reports_both_kinds_of_disagreement(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench()
    assert bench.main(["--floor"]) == 0
    out = capsys.readouterr().out
    assert "agreement" in out
    assert "standalone called follow-up" in out and "follow-up called standalone" in out
    flipped = [{"id": "x", "question": "and for sets?", "label": "standalone"}]
    assert bench.score(flipped).standalone_called_followup == ["x"]


def test_ordinary_questions_are_read_as_follow_ups_no_more_than_the_ceiling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = load_bench()
    items = bench.load_ordinary()
    assert len(items) >= 480 and {item["label"] for item in items} == {"standalone"}
    assert any(item["id"].startswith("git:") for item in items)  # the other corpora's too
    figures = bench.score(items, "ordinary")
    assert len(figures.standalone_called_followup) <= bench.ORDINARY_CEILING, bench.report(
        figures, items
    )
    assert bench.main(["--ordinary", "--floor"]) == 0
    assert "standalone called follow-up" in capsys.readouterr().out


def write_labels(path: Path, items: object) -> Path:
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


BLIND_SETS = pytest.mark.parametrize(
    "part",
    [
        "holdout2",
        "holdout3",
        "holdout4",
        "holdout5",
        "holdout6",
        "holdout7",
        "holdout8",
        "holdout9",
        "holdout10",
        "holdout11",
        "holdout12",
        "holdout13",
        "holdout14",
        "holdout15",
        "holdout16",
        "holdout17",
        "holdout18",
    ],
)


@BLIND_SETS
def test_a_blind_set_says_plainly_when_its_file_is_absent(
    part: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench()
    assert BENCH.parent / "followup_holdout2.json" == bench.HOLDOUT2 == bench.BLIND["holdout2"]
    assert BENCH.parent / "followup_holdout3.json" == bench.HOLDOUT3 == bench.BLIND["holdout3"]
    assert BENCH.parent / "followup_holdout4.json" == bench.HOLDOUT4 == bench.BLIND["holdout4"]
    assert BENCH.parent / "followup_holdout5.json" == bench.HOLDOUT5 == bench.BLIND["holdout5"]
    assert BENCH.parent / "followup_holdout6.json" == bench.HOLDOUT6 == bench.BLIND["holdout6"]
    assert BENCH.parent / "followup_holdout7.json" == bench.HOLDOUT7 == bench.BLIND["holdout7"]
    assert BENCH.parent / "followup_holdout8.json" == bench.HOLDOUT8 == bench.BLIND["holdout8"]
    assert BENCH.parent / "followup_holdout9.json" == bench.HOLDOUT9 == bench.BLIND["holdout9"]
    assert BENCH.parent / "followup_holdout10.json" == bench.HOLDOUT10 == bench.BLIND["holdout10"]
    assert BENCH.parent / "followup_holdout11.json" == bench.HOLDOUT11 == bench.BLIND["holdout11"]
    assert BENCH.parent / "followup_holdout12.json" == bench.HOLDOUT12 == bench.BLIND["holdout12"]
    assert BENCH.parent / "followup_holdout13.json" == bench.HOLDOUT13 == bench.BLIND["holdout13"]
    assert BENCH.parent / "followup_holdout14.json" == bench.HOLDOUT14 == bench.BLIND["holdout14"]
    assert BENCH.parent / "followup_holdout15.json" == bench.HOLDOUT15 == bench.BLIND["holdout15"]
    assert BENCH.parent / "followup_holdout16.json" == bench.HOLDOUT16 == bench.BLIND["holdout16"]
    assert BENCH.parent / "followup_holdout17.json" == bench.HOLDOUT17 == bench.BLIND["holdout17"]
    assert BENCH.parent / "followup_holdout18.json" == bench.HOLDOUT18 == bench.BLIND["holdout18"]
    missing = tmp_path / f"followup_{part}.json"
    assert bench.main([f"--{part}", "--labels", str(missing)]) == 1
    out = capsys.readouterr().out
    assert out.strip() == f"follow-up labels ({part}): {missing} is absent; nothing scored"
    assert "agreement" not in out and not missing.exists()


@BLIND_SETS
def test_a_blind_set_is_scored_when_its_file_is_present(
    part: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench()
    items = [
        {"id": "h1", "question": "What year?", "label": "followup"},
        {"id": "h2", "question": "What is a monad?", "label": "standalone"},
        {"id": "h3", "question": "Define entropy", "label": "followup"},  # a misreading
    ]
    path = write_labels(tmp_path / "labels.json", items)
    assert bench.main([f"--{part}", "--labels", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"follow-up labels ({part}): 1 standalone, 2 follow-up" in out
    assert "agreement                    2/3 = 0.667" in out
    assert "follow-up called standalone: h3: Define entropy" in out
    assert bench.main([f"--{part}", "--labels", str(path), "--floor"]) == 1  # 0.667 < 0.95
    capsys.readouterr()
    assert bench.main([f"--{part}", "--labels", str(path), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["part"] == part and figures["followup_called_standalone"] == ["h3"]


def test_an_item_with_the_question_above_is_read_under_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An item's ``above`` reaches ``stands_alone``: whole alone, the question is a follow-up
    under the turn whose cover letter it calls "the letter"; an item without one is read alone."""
    bench = load_bench()
    asked = "how long should the letter be?"
    items = [
        {
            "id": "a1",
            "question": asked,
            "label": "followup",
            "above": "how do I write a cover letter",
        },
        {"id": "a2", "question": asked, "label": "standalone", "above": "what is a museum"},
        {"id": "a3", "question": asked, "label": "standalone"},
    ]
    path = write_labels(tmp_path / "labels.json", items)
    assert bench.main(["--holdout15", "--labels", str(path)]) == 0
    assert "agreement                    3/3 = 1.000" in capsys.readouterr().out
    assert bench.verdict(asked) == "standalone"
    assert bench.verdict(asked, "how do I write a cover letter") == "followup"


@pytest.mark.parametrize(
    "flags",
    [
        ["--holdout2", "--holdout3"],
        ["--holdout4", "--holdout5"],
        ["--holdout9", "--holdout10"],
        ["--holdout10", "--holdout11"],
        ["--holdout11", "--holdout12"],
        ["--holdout12", "--holdout13"],
        ["--holdout13", "--holdout14"],
        ["--holdout14", "--holdout15"],
        ["--holdout15", "--holdout16"],
        ["--holdout16", "--holdout17"],
        ["--holdout17", "--holdout18"],
    ],
)
def test_the_blind_flags_are_one_or_another(flags: list[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        load_bench().main(flags)
    assert raised.value.code == 2


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps({"followup_labels": []}),
        json.dumps([]),
        json.dumps([{"id": "h1", "question": "What year?", "label": "follow-up"}]),
        json.dumps([{"id": "h1", "label": "followup"}]),
    ],
)
@BLIND_SETS
def test_a_blind_set_of_another_shape_is_refused_in_one_line(
    content: str, part: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench()
    path = tmp_path / "labels.json"
    path.write_text(content, encoding="utf-8")
    assert bench.main([f"--{part}", "--labels", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"follow-up labels: {path}: ") and captured.err.count("\n") == 1


def test_labels_without_a_blind_flag_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        load_bench().main(["--labels", str(tmp_path / "labels.json")])
    assert raised.value.code == 2


@pytest.mark.parametrize(
    "question",
    [
        # the two: "it" stands for a noun phrase before it in the same question
        "How do I keep a list sorted while inserting new items into it without sorting it "
        "again every time?",
        "How do I read a file and split it into lines?",
        "Does json.dumps sort its keys?",  # a name before the pronoun
        "Can sqlite3 store dates, and how do I get them back?",
        "What does the @property decorator do and when would I use it?",
        "Why does my program hang at exit, and how do I stop that?",  # "that": the clause
        # "it" standing for the clause after it
        "Is it possible to pickle a lambda?",
        "What does it mean when a regex is greedy?",
        "How long does it take to sort a million items?",
        # a demonstrative that names what it points at
        "How do I convert this timestamp 1700000000 into a date?",
        "That regex I wrote fails on a leading space; why?",
        "What's the difference between these two: re.search and re.match?",
        # "that" as a conjunction or a relative pronoun
        "How do I check that the file exists?",
        "How do I write a function that returns two values?",
        # "too" and "instead" with what they add to in the question
        "copy a file and keep its timestamps too",
        "Why does list.sort() return None instead of the list?",
        # a comparison or a choice between things the question names
        "Which is faster, a list or a deque?",
        "timeit vs time.perf_counter, which one should I use?",
        "Is there a faster way to sort a list?",
        "Is there a different way to merge two dicts?",
        "Can you show me an example of using a deque?",
        # a search, not a question
        "heapq",
        "decimal rounding half up",
        "OK, how do I reverse a list?",
        "In Python, how do I reverse a list?",
        "What does itertools.groupby do?",
        # short questions with a subject of their own
        "What is a monad?",
        "Define entropy",
        "git rebase vs merge",
        "Explain closures",
        "Who invented calculus?",
        "What causes rain?",
        "How to pickle lambdas?",
        "What is memoization and why is it useful?",  # "it": the noun the question defines
        "What is the GIL and why does it matter?",  # "it": a definite that names its thing
        "what does the * operator do in function calls",  # an operator names its subject
        "what's the default recursion limit",  # "default" modifies: a limit, of recursion
        "Why is Python slow?",
        # "the N" that says which N: a proper name, a kind after a name, what it is of
        "How does the garbage collector work?",  # the present is also the generic
        "Is the GIL going away?",
        "Can the json module serialize sets?",
        "Does the order of keyword arguments matter?",
        "Who was the first president of the United States?",
        "Who is the author of Dune?",
        "When did the Berlin Wall fall?",
        # a noun of something, and what it is of
        "What is the default encoding in Python?",
        "How do I get the output of a subprocess?",
        "What is the syntax of a Python lambda?",
        "What year did World War II end?",
        "Tell me more about asyncio",
        "Give me more examples of list comprehensions",
        "explain recursion with an example",
        # a condition with its main clause
        "If I delete a key while iterating, what happens?",
        "If I delete a key, what happens then?",  # "then": after the condition
        "When should I use a tuple?",
        "Even numbers in a list: how do I filter them?",
        # an opener followed by a subject of its own: what follows decides, not the opener
        "And how does a hash table handle collisions?",
        "So what causes inflation in an economy?",
        "Also, what is the capital of Australia?",
        "How about a quick recipe for banana bread?",  # three words of its own, no clause
        "What about the French Revolution led to Napoleon?",
        # a pronoun standing for the subject of a first clause that stands alone
        "How do vaccines work and why do they need boosters?",
        "How do I sort dictionaries and print them?",
        # "it says" with what it says quoted or named: the program's output
        "When I run make it says 'no rule to make target', why?",
        "When it says my disk is full, what does that mean?",
        # a phrase with three words of its own and no clause
        "Difference between RAM and ROM?",
        # a relative clause's pronoun that is its own, or a later clause's
        "I wrote a function that calls itself; why does it overflow?",
        # nouns of something with what they are of; a question "what is a N" defines
        "Is there a free version of Photoshop?",
        "What are the side effects of ibuprofen?",
        "Examples of Python decorators",
        "What is a null value?",
        # "won" the verb, "won't" the auxiliary; "did N sell" with a name
        "Who won the 1998 World Cup?",
        "Why won't my car start?",
        "How many copies did Thriller sell?",
        # "there" after "is": nothing pointed at
        "Is there a place to park near the Louvre?",
        "How do I write an if else statement in bash?",  # "else" after no question word
        # a question word's noun of something with its owner later in the clause
        "What steps should I take to start a business?",
        "What ingredients do I need for pancakes?",
        "What is a good substitute for eggs in baking?",
        # a possessive standing for a bare subject; a demonstrative naming its thing
        "Do cats like their owners?",
        "So why do cats always land on their feet?",
        "Does this regex match 'abc'?",
        # a yes/no question with two words of its own
        "Does caching help?",
        # "this" before ", but" is the question after it, when that stands alone
        "This is probably a silly question, but how do magnets work?",
        "This may sound dumb, but what is a mortgage?",
        # a pronoun after "so", "when", ... standing for the first clause's subject
        "What's the best way to keep bread fresh so it doesn't go stale?",
        "Why do cats purr when you pet them?",
        "How does it work when a bank lends money?",  # "it": the clause after "when"
        # a part of a text that is quoted, not the last answer's
        'In the paragraph "Call me Ishmael", what is the subject?',
        # not corrections: "no" before a word, "actually" alone, "I mean" inside a clause
        "No worries. What's the capital of Peru?",
        "Actually, what is the tallest mountain in the world?",
        "What do I mean by 'idempotent'?",
        "No, seriously, how do I fix a leaky faucet?",  # after "no," a clause that stands alone
        "What's the other name for a groundhog?",  # a pick whose owner opens a noun phrase
        # not edits: the edit brings its own object, or says which
        'Translate "thank you" into Spanish.',
        "Summarize the plot of Hamlet.",
        "Use Python to compute the factorial of 10.",
        "Continue the sequence 2, 4, 8, 16",
        # "your" before what is not an answer's
        "What does your name mean?",
        "What is your favorite book?",
        # a pick or a counterpart that says which, or is of the question's own noun phrase
        "Who was the first woman to win a Nobel Prize?",
        "Who was the first man on the moon?",
        "Is it legal to record a call without telling the other person?",
        "How do I make a copy of a list without changing the original?",
        "Are lists and tuples the same?",
        "What is the equivalent of a switch statement in Python?",
        # "the N" a unique thing, a kind's name, a definition, or beside a name of its own
        "Why is the sky blue?",
        "Is the earth flat?",
        "Why does the moon change shape?",
        "What does the liver do?",
        "What is the cloud?",
        "What is the best way to learn Spanish?",
        "How does the immune system fight viruses?",
        "How does the compiler handle std::move?",
        "Why does the kettle whistle?",  # a question word's "the N" asked of a kind
        "Why does the flu spread in winter?",
        "What does the fox say?",
        # "I mean" as a filler; an edit with its text in the question; a pick that says which
        "I mean, what even is consciousness?",
        'Rewrite the following paragraph to be more formal: "hey guys, meeting is at 5"',
        "Double the recipe for 8 people: 2 eggs, 1 cup flour.",
        "How do I find the second largest number in a list?",
        "What is the second law of thermodynamics?",
        "What's the difference between the two main types of diabetes?",
        # in the past after an opener, with something named
        "Who invented the telephone?",
        "And who invented the light bulb?",
        "Who was president during the Civil War?",
        # "what (exactly) is a N" defines it, a noun of something or not; "this year" is now
        "What exactly is a default value, in plain words?",
        "And what exactly is a p-value, in simple terms?",
        "Is it this year or next year that the World Cup is held in the United States?",
        # a noun of something whose owner says which, a unique thing included
        "What's the counterargument to Pascal's wager?",
        "Is there a newer edition of Clean Code?",
        "What's the purpose of the appendix in the human body?",
        "Who is the author of the book about Dune?",
        "What's a good dosage of vitamin D for adults?",
        "Is the flu vaccine safe for children?",  # not a noun of something: the vaccine's own
        # a document's word that is not a part of one, or whose owner says whose
        "What is the periodic table?",
        'What does the figure of speech "raining cats and dogs" mean?',
        "What is the page limit for a college application essay?",
        "In the interview transcripts I added, what themes come up?",
        "What happens to the body after the fasting period?",
        "What happened after the Cold War ended?",
        # "you" and a past verb after an auxiliary or a condition; a contest that says which
        "Have you heard of the Voynich manuscript?",
        "What happens if you mixed bleach and ammonia?",
        "Who won the war of 1812?",
        "Who won the most gold medals ever?",
        # leaving out what the question names; a pick that is a stage of its own clause
        "What happens if I omit baking powder from a cake?",
        "How long should pizza dough rest for the first rise?",
        "How long should I rest bread dough for the second proof?",
    ],
)
def test_a_question_with_its_own_subject_stands_alone(question: str) -> None:
    assert stands_alone(question)


@pytest.mark.parametrize(
    "question",
    [
        "Who created him?",
        "How do I read it?",  # a verb before the pronoun is not what it stands for
        "Does it work with generators?",
        "Why does it raise KeyError?",  # a name after the pronoun says nothing of "it"
        "Is it thread-safe?",  # "is it" with no clause after
        "Is it safe to call it twice?",  # the second "it"
        "Can I do that with json.dumps?",  # "do that": a pronoun, whatever else is named
        "Does this work on Windows?",
        "What is the time complexity of it?",
        # continuations and bare modifiers
        "And for an even number?",
        "What about dumps?",
        "ok but for IPv6",
        "same question for tarfile",
        "with a custom separator",
        "Without using a loop?",
        # words that presuppose something said
        "Can I use a tuple as a dict key too?",
        "in UTC instead",
        # leaning on the last answer, with no subject of its own
        "what if the key is missing",
        "which one is faster",
        "faster way?",
        "What does the second argument mean?",
        "can you show the full code",
        "What is the difference?",
        "Give me another example",
        "Is there a better way?",  # "a better way": relative to the one given, nothing new
        "Is there a different way?",
        "Can you give an example?",  # an example of what the last answer was about
        "thread-safe?",
        # no word of its own
        "Why?",
        "how so",
        "thanks!",
        # the issue's: short questions that lean on the turn above (about a comic)
        "What year?",
        "Give more details",
        "And the sequel?",
        "Was the comic successful?",
        # a question word with no verb
        "How many pages?",
        "Where exactly?",
        # a noun that is of something, with nothing it is of
        "an example please",  # "please" read as absent
        "What's the default value?",
        "what would the output look like",
        "What is the time complexity?",
        "Who wrote the sequel?",
        "Is there a sequel?",
        "More details please",
        "Give me a summary",
        "Why does the function return None?",  # a kind with no name; None names nothing
        "Which is more popular?",
        # "the N" in a yes/no question or one in the past, nothing saying which
        "Is the output sorted?",
        "Is the function pure?",  # a kind with no name before it
        "When was the book published?",
        "What year did the comic come out?",
        "Was the book a bestseller?",  # "a bestseller" is said of it, not a new subject
        "Who is the villain?",
        # more of the same, a condition on the last answer
        "tell me more",
        "Can you elaborate?",
        "explain further",
        "even when the list is empty?",
        "even with a timeout?",
        "if the file is huge?",
        "Is that true?",  # "that" after a verb is a pronoun, not a conjunction
        # an opener followed by too little of its own, or "or" (always a continuation)
        "And how do I install?",
        "But what about memory?",
        "What about the sequel?",
        "How about a smaller one?",
        "Or should I use a set?",
        # asking the answer to go on, or what came after it
        "Go ahead",
        "carry on",
        "What came next?",
        "And what happens to the file handle then?",
        # recalling the last answer: its part, what "you" did in it, a place in it
        "the part where you sort the keys, why?",
        "what does the code you showed return",
        "Why did you use a dict there?",
        # nouns of something with nothing they are of
        "Is there a gluten free version?",  # "a ... version": its last noun decides
        "Any drawbacks?",
        "Benefits?",
        "Summary please",
        "What are the pros and cons?",
        # "the N of the M" where nothing says which M; "else" after a question word
        "What was the name of the ship?",
        "Who is the author of the book?",
        "Who else was involved?",
        # a verb and a question word ("won" is the verb here), "the N" in the past
        "Who lost?",
        "How long did the war last?",
        # the object of a relative clause on the only noun phrase, "it says" with nothing said
        "Can you write a function that calls them in order?",
        "Is there a book about it?",  # a pronoun in the only new noun phrase's modifier
        "Is there a library for that?",  # a demonstrative likewise
        "Why did you use a set here?",  # "here" ending a clause, like "there"
        # a yes/no question with at most one word of its own
        "Should I be worried?",
        "Can you show me?",
        # a recommendation of a noun of something; "the N PREP the M" with nothing saying which M
        "What's a good substitute?",
        "What's the recipe?",
        "Which version should I install?",
        "Who was the king at the time?",
        # a demonstrative subject, whatever is named after a preposition; "that" + noun ending
        "Does that work for Python 2?",
        "Where do I put that line?",
        "Why does it say permission denied?",
        # corrections of the last answer
        "No, I meant the other one.",
        "I meant Python 3, not Python 2.",
        "Actually I meant the first one.",
        "No, the blue one.",
        "That's not right, it should be 42.",  # "that" before a verb: a pronoun, 42 or not
        "That is wrong, the total is 40.",
        # edits of the last answer
        "Translate the answer into German.",
        "Rewrite the answer as a table.",
        "Summarize your answer in one sentence.",
        "Can I skip the eggs?",
        "Can you halve the recipe?",
        "Use a set instead of the list.",
        "Continue.",
        # "your" before what an answer is made of
        "Is your solution O(n)?",
        "Can you explain your code?",
        # picks from the last answer, and counterparts of what it was about
        "Now do the same for Germany.",
        "Compare the two.",
        "Which of the two is faster?",
        "Is the second method faster?",
        "What's the difference between the two approaches?",
        "Explain the first method again.",
        "Who directed the original?",
        "What's the equivalent in JavaScript?",
        "Give me the whole script, not just the loop.",  # the contrast names no subject
        # "the N" that says not which as a question word's subject, or placed in the past
        "What does the abbreviation mean?",
        "Why does the count start at 2 and not 1?",  # numbers are values, not a subject
        "What tempo is the piece in?",
        "What is the film about?",  # a preposition left at the end: not a definition
        "Who was mayor at the time?",
        "What did people eat during the siege?",
        # an opener before a question in the past that names nothing
        "ok and how many people survived",
        "And how many soldiers died?",
        # a noun of something after "one"; what "you just said"
        "How much sugar is in one portion?",
        "Is there a TL;DR of what you just said?",
        # a preposition left at the end owns nothing; a verb in -ed ends the noun phrase
        "Remind me what the abbreviation stood for.",
        "And what happened after the strike ended?",
        "What happened after the war ended?",
        # nouns of an argument or a document; owners that say not which, or only for whom
        "What's the rebuttal?",
        "Is there a second edition of the report?",
        "Is there a newer version of the paper?",
        "What is the p-value for the age term?",
        "What is the standard error for the slope?",
        "What's the dosage for kids?",
        "Is the dose safe for kids?",
        # a part of a document or of its data, or a step taken on it, that says not whose
        "what's the chapter number",
        "What does the chart on page 7 show?",
        "Turn the table into a list.",
        "What about the interview with respondent 12?",
        "How many patients dropped out after the screening?",
        # a contest's outcome; what the last answer did; leaving out its recipe's N
        "Who lost the playoff?",
        "I think you mixed up the rows and columns.",
        "You forgot the garlic.",
        "What happens if I leave out the onions?",
        "What if we omit the cream?",
    ],
)
def test_a_question_that_leans_on_the_turn_above_is_a_follow_up(question: str) -> None:
    assert not stands_alone(question)


def test_a_long_question_is_read_in_linear_time() -> None:
    assert not stands_alone("it " * 50_000)
    assert stands_alone("a list " + "it " * 50_000)
    assert not stands_alone("the first " * 20_000)
    assert not stands_alone("if the list is empty " * 20_000)
    assert not stands_alone("Was the comic successful? " * 20_000)
    assert not stands_alone("a recipe that " + "them " * 50_000)
    assert stands_alone("how do index funds work and " + "they " * 50_000)
    assert not stands_alone("it says " * 30_000)
    assert not stands_alone("and so " * 30_000)
    assert not stands_alone("what then? " * 30_000)
    assert not stands_alone("Was the name " + "of the name " * 20_000)
    assert not stands_alone("what details " * 30_000)
    assert not stands_alone("use a mutex there? " * 20_000)
    assert not stands_alone("this , but " * 20_000)
    assert not stands_alone("no, " * 30_000 + "is it?")
    assert not stands_alone("why does the loop start at 1 " * 10_000)
    assert not stands_alone("and how many people died " * 10_000)
    assert not stands_alone("use a instead of the " * 10_000)
    assert stands_alone("how do cats purr so they " * 10_000)
    assert stands_alone("is there a newer edition of the " * 5_000 + "json.loads")
    assert not stands_alone("what does the figure on page " * 10_000)
    assert not stands_alone("if I leave out the eggs, " * 10_000)
    assert not stands_alone("I think you swapped " * 10_000)
    assert stands_alone("how long should I rest dough for the second proof? " * 5_000)
