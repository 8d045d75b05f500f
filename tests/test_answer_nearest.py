"""Where the offline answerer looks first among sentences that share the question's words:
the section whose heading names what was asked, and the prose window retrieval measured
nearest the question in meaning (arborist/_qa/extractive.py, ``extractive-v23``). The texts
are written as a manual's HTML page is read (headings marked ``##``)."""

from __future__ import annotations

from arborist._qa.client import EvidenceText, make_request
from arborist._qa.extractive import ExtractiveClient
from arborist._qa.sentences import read_items, window_nearness
from arborist._store.passages import windows


def answer(question: str, *evidence: tuple[str, str, tuple[float, ...]], most: int = 1) -> str:
    items = [
        EvidenceText(f"E{i}", title, f"doc:{i}", text, nearness)
        for i, (title, text, nearness) in enumerate(evidence, 1)
    ]
    return ExtractiveClient(max_sentences=most).complete(make_request(question, items)).text


READLINE = (
    "## Killing and yanking\n\n"
    "The size of the kill ring is limited by the history setting of the editor.\n"
)
SHELL = (
    "## History file size limit\n\n"
    "Set HISTFILESIZE to the number of lines the file keeps; older lines are truncated when "
    "the shell exits.\n"
)


def test_a_heading_that_names_the_question_counts_as_its_sentence_saying_it() -> None:
    # The kill ring's sentence holds three of the question's words, the sentence under
    # "History file size limit" one: the heading says what that section is about.
    question = "how do I limit the size of the history file"
    found = answer(question, ("Readline", READLINE, ()), ("Shell behaviour", SHELL, ()))
    assert found.startswith("History file size limit: Set HISTFILESIZE"), found
    assert "kill ring" not in found
    # Both are still quoted when there is room, the section first.
    both = answer(question, ("Readline", READLINE, ()), ("Shell behaviour", SHELL, ()), most=4)
    assert both.index("HISTFILESIZE") < both.index("kill ring"), both


HOOKS = (
    "## Hooks\n\n"
    "Hooks are programs run at points of the commit workflow.\n\n"
    "## pre-commit\n\n"
    "This hook can be bypassed with the --no-verify option.\n"
    "It takes no parameters.\n"
)
FILTER = (
    "## Examples\n\nTo skip a commit in the rewritten history, call skip_commit from the filter.\n"
)
SKIP = "how do I skip the pre-commit hook for one commit"


def test_the_passage_nearest_in_meaning_is_quoted_before_one_that_shares_more_words() -> None:
    near = answer(SKIP, ("git-filter-branch(1)", FILTER, (0.5,)), ("githooks(5)", HOOKS, (0.99,)))
    assert "--no-verify" in near and "skip_commit" not in near, near


def test_without_nearness_the_words_decide() -> None:
    # The lexical lane measures no meaning: the sentence holding "skip" and "commit" wins,
    # and so it does when the filter's passage is the nearer one.
    words = answer(SKIP, ("git-filter-branch(1)", FILTER, ()), ("githooks(5)", HOOKS, ()))
    assert "skip_commit" in words, words
    nearer = answer(SKIP, ("git-filter-branch(1)", FILTER, (0.99,)), ("githooks(5)", HOOKS, (0.5,)))
    assert "skip_commit" in nearer, nearer


TRANSACTIONS = (
    "Transactions may be deferred, immediate or exclusive: each kind starts taking its locks "
    "at a different time. A transaction starts when a statement first reads the database, and "
    "it holds a shared lock from then on. A write lock is taken when the database is first "
    "written, and kept until the transaction commits or rolls back. An immediate transaction "
    "takes the write lock at once, so that no other connection can start writing before it "
    "has committed.\n\n"
    "The default transaction behavior is DEFERRED, as for BEGIN with no keyword. Nothing is "
    "locked until the database is first read.\n"
)
KIND = "what kind of transaction does a plain BEGIN start"


def test_within_a_chunk_the_nearer_window_is_quoted_first() -> None:
    assert len(windows(TRANSACTIONS)) == 2
    second = answer(KIND, ("Transaction", TRANSACTIONS, (0.42, 1.15)))
    assert second.startswith("The default transaction behavior is DEFERRED"), second
    first = answer(KIND, ("Transaction", TRANSACTIONS, (1.15, 0.42)))
    assert first.startswith("Transactions may be deferred"), first


def test_each_sentence_is_given_its_own_windows_nearness() -> None:
    items = read_items(TRANSACTIONS)
    near = window_nearness(TRANSACTIONS, (0.42, 1.15), items)
    said = {item.sentence.split(",")[0]: n for item, n in zip(items, near, strict=True)}
    assert said["Transactions may be deferred"] == 0.42
    assert said["A write lock is taken when the database is first written"] == 0.42
    assert said["The default transaction behavior is DEFERRED"] == 1.15
    assert said["Nothing is locked until the database is first read."] == 1.15
    # Nearness that does not fit the chunk's passages (another rule's, none measured)
    # places nothing.
    assert window_nearness(TRANSACTIONS, (0.42,), items) == [None] * len(items)
    assert window_nearness(TRANSACTIONS, (), items) == [None] * len(items)


STATUS = (
    "## Exit status\n\n"
    "Each command of a pipeline runs in a subshell of its own, and the whole pipeline waits "
    "for every grep or other command in it. The shell then reads its next line of input and "
    "goes on as before, with the same variables, traps and options set as they were. Its own "
    "status is what the special parameter of the last status holds, until another one "
    "replaces it.\n\n"
    "## Pipefail\n\n"
    "Set the pipefail option so that the status is that of the rightmost command that fails. "
    "A trap on ERR runs when it fails. It is off when the shell starts, and the set builtin "
    "turns it on or off again.\n"
)
WHOLE = "how do I make the whole pipeline fail when a grep command in it fails"


def test_a_sentence_of_the_nearest_window_is_quoted_however_few_words_it_shares() -> None:
    # The first window's sentence holds "command", "pipeline", "whole" and "grep"; the
    # pipefail sentence "command" and "fail", under a heading the question does not say:
    # under half as much, the words alone leave it out.
    assert len(windows(STATUS)) == 2, windows(STATUS)
    words_alone = answer(WHOLE, ("Shell", STATUS, ()), most=4)
    assert words_alone.startswith("Each command of a pipeline"), words_alone
    assert "rightmost" not in words_alone, words_alone
    # Measured nearest in meaning, it is quoted; the trap's sentence, which says one word of
    # the question ("fails"), is not.
    near = answer(WHOLE, ("Shell", STATUS, (0.3, 1.1)), most=4)
    assert "the rightmost command that fails" in near, near
    assert "trap on ERR" not in near, near
    # Measured the farther, it is not.
    far = answer(WHOLE, ("Shell", STATUS, (1.1, 0.3)), most=4)
    assert "rightmost" not in far, far
