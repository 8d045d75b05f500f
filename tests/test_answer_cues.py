"""What a question asks for (arborist/_qa/cues.py) and how the offline answerer weighs the
sentences that give it: something to type, a number, a term the question names. The
texts are cut from real manuals' layouts (git's, SQLite's and Bash's)."""

from __future__ import annotations

from arborist._qa.client import EvidenceText, make_request
from arborist._qa.cues import Cues, holds_code, holds_number, named_terms, read_cues
from arborist._qa.extractive import ExtractiveClient


def ask(question: str, *texts: str, title: str = "Manual", best: bool = False) -> str:
    """The answer to ``question`` over ``texts`` (``best``: its best sentence alone)."""
    evidence = [
        EvidenceText(f"E{i}", title, f"file:///{i}.html", t) for i, t in enumerate(texts, 1)
    ]
    client = ExtractiveClient(max_sentences=1) if best else ExtractiveClient()
    return client.complete(make_request(question, evidence)).text


def test_what_a_question_asks_for() -> None:
    assert read_cues("how do I skip the hook") == Cues(code=True)
    assert read_cues("Is there a way to cap recursion?").code
    assert read_cues("which option keeps the data monotonic").code
    assert read_cues("what env var sets the project root").code
    assert read_cues("where does ANALYZE save its statistics") == Cues(
        code=True, named=frozenset({"analyze"})
    )
    assert read_cues("How many commands are remembered?") == Cues(number=True)
    assert read_cues("default size of the dumb terminal").number
    assert read_cues("what page sizes are allowed in the file format").number
    assert read_cues("a way to cap how deep functions can nest").number
    assert not read_cues("what does the page header hold").number
    assert not read_cues("how wide are boxes by default").number  # a width may be no number
    assert read_cues("why is the sky blue") == Cues()
    assert read_cues("revert complains there is no -m option given").named == {"-m"}


def test_what_a_manual_writes_as_code() -> None:
    assert holds_code("It can be bypassed with the --no-verify option.")
    assert holds_code("Set PRAGMA foreign_keys before use.")
    assert holds_code("The statistics are kept in a table named sqlite_stat1.")
    assert holds_code("If that fails, the ultimate default is /etc/inputrc.")
    assert holds_code("To search backward, type C-r.")
    assert holds_code("Run VACUUM INTO to write a copy.")
    assert holds_code("Call sqlite3_backup_init() first.")
    # prose, a manual page reference and hyphenated words are not code
    assert not holds_code("This hook is invoked by git-commit(1) for non-ASCII names.")
    assert not holds_code("The default pre-commit hook, when enabled, aborts the commit.")
    assert not holds_code("Use a different set of keybindings, e.g. vi ones.")


def test_a_number_of_its_own_is_not_a_version_or_a_page() -> None:
    assert holds_number("The default value is 6700.")
    assert holds_number("The default is 79 by 24.")
    assert not holds_number("See Section 4.3.2 [The Shopt Builtin], page 71.")
    assert not holds_number("The ansi256 and UTF-8 modes emit colors.")
    assert not holds_number("Described in the manual (p. 147).")


def test_the_terms_a_question_names() -> None:
    assert named_terms("what does -t do with --no-edit and gc.auto or INPUTRC") == [
        "-t",
        "--no-edit",
        "gc.auto",
        "inputrc",
    ]
    assert named_terms("which STATS_ variable") == ["stats"]


REVERT = (
    "## OPTIONS\n\n<commit>…\n\nCommits to revert. No traversal is done by default, see its "
    "--no-walk option.\n\n-e\n\n--edit\n\nWith this option, git revert will let you edit the "
    "commit message prior to committing the revert.\n\n-m parent-number\n\n--mainline "
    "parent-number\n\nUsually you cannot revert a merge because you do not know which side of "
    "the merge should be considered the mainline.\n\n--no-edit\n\nWith this option, git revert "
    "will not start the commit message editor.\n\n--strategy=<strategy>\n\nUse the given merge "
    "strategy."
)


def test_the_term_a_question_names_is_what_its_answer_quotes() -> None:
    answer = ask("revert of a merge commit says no -m option was given", REVERT, best=True)
    assert answer.startswith(
        "-m parent-number, --mainline parent-number: Usually you cannot revert a merge"
    )


HOOKS = (
    "### pre-commit\n\nThis hook runs before each commit and checks the staged files for "
    "whitespace errors. This hook is left out of a commit made with the --no-verify option."
)


def test_a_question_for_something_to_type_quotes_the_sentence_that_holds_it() -> None:
    """Both sentences hold the question's words; the one with the option answers "how"."""
    answer = ask("how do I leave out the hook for one commit", HOOKS, best=True)
    assert answer == "This hook is left out of a commit made with the --no-verify option. [E1]"
    # asked what it checks, the same words choose the sentence that says so
    answer = ask("what does the hook check in each commit", HOOKS, best=True)
    assert answer.startswith("pre-commit: This hook runs before each commit and checks")


HMAC_CLASS = (
    "    class HMAC(builtins.object)\n"
    "     |  HMAC(key, msg=None, digestmod='')\n"
    "     |\n"
    "     |  RFC 2104 HMAC class. Also complies with RFC 4231.\n"
    "     |\n"
    "     |  digest(self)\n"
    "     |      Return the hash value of this hashing object.\n"
)


def test_something_to_type_does_not_make_a_sentence_about_the_question() -> None:
    """The share for code orders sentences; it does not raise the floor under which a
    sentence is about something else, so the one that only says what it is stays."""
    description = "## Description\n    Implements the HMAC algorithm as described by RFC 2104."
    title = "hmac — Keyed-Hashing for Message Authentication"
    answer = ask("How do I compute an HMAC of a message?", HMAC_CLASS, description, title=title)
    assert answer == (
        "hmac.HMAC(key, msg=None, digestmod=''): RFC 2104 HMAC class. [E1] "
        "Implements the HMAC algorithm as described by RFC 2104. [E2]"
    )


ANALYZE = (
    "# 2. Details\n\nThe default implementation stores all statistics in a single table "
    "named sqlite_stat1.\n\nStatistics gathered by ANALYZE are not automatically updated as "
    "the content of the database changes."
)


def test_where_is_answered_by_the_name_or_path() -> None:
    answer = ask("where does ANALYZE save its statistics", ANALYZE, title="ANALYZE", best=True)
    assert answer.startswith("The default implementation stores all statistics")


def test_a_page_reference_or_a_mode_s_digits_are_no_number_asked_for() -> None:
    text = (
        "The dumb terminal has ansi256 and UTF-8 modes (see Section 4.2, page 71).\n\n"
        "The default text size is 79 by 24."
    )
    answer = ask("default size of the dumb terminal", text, title="gnuplot", best=True)
    assert answer == "The default text size is 79 by 24. [E1]"


def test_when_asks_for_a_threshold_and_an_example_value_is_no_words() -> None:
    assert read_cues("when does an automatic checkpoint happen").number
    text = (
        "Checkpoints in WAL mode are passive. By default, SQLite runs an automatic checkpoint "
        "whenever the WAL file reaches 1000 pages."
    )
    answer = ask("when does an automatic checkpoint happen in wal mode", text, best=True)
    assert "1000 pages" in answer
    # the pieces of a version the question shows ("0", "4") match no other version's
    text = (
        "The number of additional commits is shown as in v1.0.4-14-g2414721 and v1.4.0. "
        'The "g" prefix stands for "git" in the output of git describe.'
    )
    question = "in git describe output like v1.0-4-g2414721 what does the g mean"
    assert ask(question, text, best=True).startswith('The "g" prefix stands for "git"')
