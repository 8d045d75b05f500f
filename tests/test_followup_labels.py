"""Follow-up detection: ``stands_alone`` agrees with blind labels, and reads pronouns in place.

The floor is measured by bench/followup_labels.py on the dev part of the labels in
bench/natural_questions.json (the held-out part is not run here: it is scored once,
by hand, with ``--holdout``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arborist.analysis import stands_alone

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
    assert len(items) >= 50
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
        "Why is Python slow?",
        # "the N" that says which N: a proper name, a kind after a name, what it is of
        "How does the garbage collector work?",  # the present is also the generic
        "Is the GIL going away?",
        "Can the json module serialize sets?",
        "Does the order of keyword arguments matter?",
        "Who was the first president of the United States?",
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
        "When should I use a tuple?",
        "Even numbers in a list: how do I filter them?",
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
        # "the N" in a yes/no question or one in the past, nothing saying which
        "Is the output sorted?",
        "Is the function pure?",  # a kind with no name before it
        "When was the book published?",
        "What year did the comic come out?",
        "Was the book a bestseller?",  # "a bestseller" is said of it, not a new subject
        # more of the same, a condition on the last answer
        "tell me more",
        "Can you elaborate?",
        "explain further",
        "even when the list is empty?",
        "even with a timeout?",
        "if the file is huge?",
        "Is that true?",  # "that" after a verb is a pronoun, not a conjunction
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
