"""When the offline answerer refuses: names the evidence never says (a version of what the
documents are about, a possessive, a name of several capitalised words, the tool a question
closes by asking in), and how many of the question's words the evidence holds. Each rule
on a few passages written as a real manual writes them, then end to end over a small
corpus ingested into a real store."""

from __future__ import annotations

import time
from pathlib import Path

from arborist import Arborist
from arborist._qa.client import EvidenceText, make_request
from arborist._qa.extractive import ExtractiveClient
from arborist._qa.grounding import (
    ABOUT_FLOOR,
    CLOSE_FLOOR,
    absent_names,
    act_said,
    covered,
    said_in_passing,
)
from arborist._qa.support import asked_words
from arborist._text.text_words import words

REFUSAL = "The documents do not answer this question."

BASH = (
    "This text is a brief description of the features that are present in the Bash shell "
    "(version 5.2, 19 September 2022). BASH_VERSINFO is a readonly array variable whose "
    "members hold version information for this instance of Bash. BASH_VERSINFO[0] is the "
    "major version number (the release)."
)
COLORMAPS = (
    "Colormaps are used to map gray values to colors. The default colormap of pm3d is "
    "rgbformulae 7,5,15. A colormap can be saved with save colormap and used again."
)
CONNECTIONS = (
    "The core of SQLite opens a connection to a database file. The connection string is a "
    "URI filename. An entity in the schema is a table, an index, a view or a trigger, and "
    "the framework of virtual tables lets an application define new ones."
)
SMOOTHING = (
    "##### Mcsplines\n\nThe smooth mcsplines option connects consecutive points by cubic "
    "splines constrained such that the smoothed function preserves the monotonicity and "
    "convexity of the original data points. This reduces the effect of outliers."
)


def ask(question: str, text: str, title: str) -> str:
    evidence = [EvidenceText("E1", title, "file:///manual.pdf", text)]
    return ExtractiveClient().complete(make_request(question, evidence)).text


def names(question: str, text: str, title: str) -> list[str]:
    request = make_request(question, [EvidenceText("E1", title, "file:///m.pdf", text)])
    return absent_names(request)


def test_a_version_of_what_the_documents_are_about_that_no_passage_says_is_refused() -> None:
    answer = ask("When is bash 6.0 going to be released?", BASH, "Bash Reference Manual")
    assert answer.startswith(REFUSAL) and "No passage mentions bash 6.0" in answer
    # the version the passages say is answered
    answer = ask("which features are in bash 5.2?", BASH, "Bash Reference Manual")
    assert not answer.startswith(REFUSAL)
    # a number after a word no title holds is a value, not a version ("convert 0.75")
    assert names("what does round 0.75 give for the major version", BASH, "Bash Manual") == []
    # "6.0" is no "16.0", and a version ending a sentence is read without its full stop
    assert names("is there a bash 6.0.", "Bash 16.0 and 6.05.", "Bash") == ["bash 6.0"]
    assert names("is there a bash 6.0.", "Bash 6.0.1 is out.", "Bash") == []


def test_a_name_written_as_a_possessive_that_no_passage_says_is_refused() -> None:
    answer = ask("what is matplotlib's default colormap", COLORMAPS, "gnuplot documentation")
    assert answer.startswith(REFUSAL) and "No passage mentions matplotlib" in answer
    # the documents' own subject as a possessive is answered
    answer = ask("what is gnuplot's default colormap", COLORMAPS, "gnuplot documentation")
    assert answer.startswith("The default colormap of pm3d is rgbformulae 7,5,15.")
    # after a determiner it is a common noun ("my program's"), and "what's" is no name
    assert names("what's my program's default colormap", COLORMAPS, "gnuplot") == []


READLINE = (
    "A vi-style line editing interface is also available. Readline offers completion of "
    "the word being typed, and history expansion like the C shell's."
)


def test_words_joined_by_hyphens_that_no_passage_says_name_what_it_lacks() -> None:
    question = "how do I enable fish-style autosuggestions in bash?"
    answer = ask(question, READLINE, "Bash Reference Manual")
    assert answer.startswith(REFUSAL) and "No passage mentions fish-style" in answer
    # the passages say it, or say every part of it apart ("line-editing"): not missing
    assert names("how do I enable vi-style editing", READLINE, "Bash") == []
    assert names("which line-editing interface is available", READLINE, "Bash") == []
    # a word written with a prefix and a hyphen is a word, not a name: left to the share
    assert names("how do I re-bind the editing keys", READLINE, "Bash") == []
    assert names("how do I vim-bind the editing keys", READLINE, "Bash") == ["vim-bind"]


def test_a_name_of_several_capitalised_words_must_be_said_together() -> None:
    question = "Entity Framework Core connection string for sqlite"
    answer = ask(question, CONNECTIONS, "SQLite C Interface")
    assert answer.startswith(REFUSAL) and "No passage mentions Entity Framework Core" in answer
    # the same words said together name it
    said = CONNECTIONS + " Entity Framework Core reads the connection string from a file."
    assert names(question, said, "SQLite C Interface") == []
    # a title-cased question names nothing by its capitals, and words of no meaning of their
    # own split a run ("Pride and Prejudice" is two names, each of one word)
    assert names("Where Core Opens The Connection String", CONNECTIONS, "SQLite") == []
    # a word that opens with a digit is a measure, not a name ("2D", "64MB")
    assert names("how is a 2D index stored", CONNECTIONS, "SQLite") == []
    assert names("how is a Geo index stored", CONNECTIONS, "SQLite") == ["Geo"]
    assert names("which one is Core and Framework", CONNECTIONS, "SQLite") == []


def test_a_capital_that_opens_a_later_sentence_names_nothing() -> None:
    # "Also" after a question mark is capitalised because it opens a sentence, as the
    # question's first word is: reading it as a name refused "... Also, what does -s do?"
    question = "What opens a connection? Also, what is the connection string?"
    assert names(question, CONNECTIONS, "SQLite C Interface") == []
    assert not ask(question, CONNECTIONS, "SQLite C Interface").startswith(REFUSAL)
    for opened in ("Done. Which", "ok: Where", 'fine?  "Which', "so!\n(Which"):
        assert names(f"{opened} table holds the schema", CONNECTIONS, "SQLite") == []
    # a name inside a sentence is still one, and a word with an inner capital anywhere
    assert names("What opens a connection? Also in Bitbucket?", CONNECTIONS, "SQLite") == [
        "Bitbucket"
    ]
    assert names("Is it slow? DevOps says so.", CONNECTIONS, "SQLite") == ["DevOps"]


ATTRIBUTES = (
    "You do not want any end-of-line conversions applied to, nor textual diffs produced for, "
    "any binary file you track. You can explicitly tell Git that a large file is binary with "
    "the binary attribute in .gitattributes, and Git will handle the file appropriately."
)


def test_the_tool_a_question_closes_by_asking_in_must_be_said() -> None:
    question = "how do i track large binary files with git lfs"
    answer = ask(question, ATTRIBUTES, "gitattributes(5)")
    assert answer.startswith(REFUSAL) and "No passage mentions lfs" in answer
    answer = ask("how do i track large binary files with gitattributes", ATTRIBUTES, "git")
    assert "tell Git that a large file is binary" in answer
    # a word said in another inflection is said; a quantity is no tool ("in one go")
    assert names("mark a binary file in the attributes", ATTRIBUTES, "git") == []
    assert names("mark every binary file in one go", ATTRIBUTES, "git") == []
    # one word after "in" or "on" and a determiner is a kind of place, which an answer
    # names one of ("in a comic": "Amazing Fantasy"); two words, or none, name one
    assert names("which binary file diffs in a commit", ATTRIBUTES, "git") == []
    assert names("which binary file diffs in a merge commit", ATTRIBUTES, "git") == [
        "merge",
        "commit",
    ]
    assert names("which binary file diffs in mercurial", ATTRIBUTES, "git") == ["mercurial"]
    # a tool whose name is hyphenated is said when a passage (or its title) says its parts:
    # a refusal that reads "No passage mentions pytest-timeout; the passages found are from
    # pytest-timeout" contradicts itself
    usage = "Set the timeout for a single test with the timeout marker."
    assert names("how do i set a timeout with pytest-timeout", usage, "pytest-timeout") == []
    assert names("how do i set a timeout with pytest-xdist", usage, "pytest-timeout") == [
        "pytest-xdist"
    ]
    # a passage near the question in meaning says it in other words: not refused for it
    near = EvidenceText("E1", "git", "file:///g.html", ATTRIBUTES, nearness=(CLOSE_FLOOR + 0.1,))
    request = make_request("track large binary files in a repository folder", [near])
    assert absent_names(request) == []
    far = EvidenceText("E1", "git", "file:///g.html", ATTRIBUTES, nearness=(CLOSE_FLOOR - 0.4,))
    request = make_request("track large binary files in a repository folder", [far])
    assert absent_names(request) == ["repository", "folder"]
    # a tool named in words of its own, with no determiner, is said as it is named: no
    # nearness stands in for a word of it ("lfs" of "git lfs")
    request = make_request("how do i track large binary files with git lfs", [near])
    assert absent_names(request) == ["lfs"]
    request = make_request("track large binary files with a git filter", [near])
    assert absent_names(request) == []


def test_the_system_a_question_opens_by_asking_in_must_be_said() -> None:
    near = EvidenceText("E1", "git", "file:///g.html", ATTRIBUTES, nearness=(ABOUT_FLOOR,))
    for question in ("in mercurial how do i track binary files", "In Mercurial, can I mark a file"):
        assert absent_names(make_request(question, [near])) in (["mercurial"], ["Mercurial"])
    answer = ask("in mercurial how do i track large binary files", ATTRIBUTES, "git")
    assert answer.startswith(REFUSAL) and "No passage mentions mercurial" in answer
    # the system the documents say, a manner or a quantity is no system it lacks
    assert names("in git how do i track large binary files", ATTRIBUTES, "git") == []
    assert names("in general, what is a binary file", ATTRIBUTES, "git") == []
    assert names("with several files, how do i mark them binary", ATTRIBUTES, "git") == []
    # only at the opening, before the question: "in" elsewhere is no system asked in
    assert names("mark in mercurial which file is binary", ATTRIBUTES, "git") == []


RELATIONAL = (
    "SQLite is a relational database engine. A table in the relational model of data is a "
    "set of rows; auxiliary columns provide a cleaner model and reduce the need for joins."
)


def test_a_question_for_who_did_something_needs_a_passage_that_says_it_was_done() -> None:
    answer = ask("who invented the relational model of data", RELATIONAL, "SQLite")
    assert answer.startswith(REFUSAL) and "No passage mentions invented" in answer
    said = RELATIONAL + " The relational model was invented by Edgar Codd in 1970."
    assert "invented by Edgar Codd" in ask("who invented the relational model", said, "SQL")
    # "who is", "who can": no act of its own
    assert names("who can read the relational model of data", RELATIONAL, "SQLite") == []


SPIDER = "Spider-Man was created by writer Stan Lee and artist Steve Ditko in 1962."


def test_a_passage_may_say_the_act_in_other_words_or_as_who_does_it() -> None:
    # "artist" says who drew him, "writer" who wrote him: answered, quoting it
    for question in ("Who drew Spider-Man?", "who illustrated Spider-Man", "Who wrote Spider-Man?"):
        assert ask(question, SPIDER, "Spider-Man") == f"{SPIDER} [E1]", question
    # an act no word of the passage says is still refused, named
    answer = ask("Who founded Spider-Man?", SPIDER, "Spider-Man")
    assert answer.startswith(REFUSAL) and "No passage mentions founded" in answer
    said = set(words(SPIDER))
    assert [act_said(a, said) for a in ("drew", "penciled", "authored", "painted")] == [True] * 4
    assert [act_said(a, said) for a in ("founded", "invented", "sang", "murdered")] == [False] * 4
    # who does it, by its ending ("inventor", "founders", "winner"), and a past no ending
    # gives, in the question or the passage ("drew", "wrote": draw, write)
    assert act_said("invented", set(words("Its inventor was Edgar Codd.")))
    assert act_said("founded", set(words("The founders met in 1984.")))
    assert act_said("won", set(words("The winner of the cup.")))
    assert act_said("illustrated", set(words("Ditko drew the first issues.")))
    assert act_said("authored", set(words("Stan Lee wrote the first issues.")))
    # words that fill technical prose say no other act: "create" is not "invent"
    assert not act_said("invented", set(words("Create a table with CREATE TABLE.")))
    assert not act_said("wrote", set(words("Run the script from the shell.")))


NOTEBOOKS = (
    "Quillpad keeps every notebook in a folder on the server. The server reads the folder "
    "once at startup. A notebook is sent to the server each time it is saved."
)
PASSWORDS = (
    "A password is stored as a hash. Use a utility such as mkpasswd, or encrypt in "
    "OpenBSD, to make one. Then paste it into the users file."
)


def ask_all(question: str, *texts: str, nearness: float | None = None) -> str:
    near = () if nearness is None else (nearness,)
    evidence = [
        EvidenceText(f"E{i}", "Quillpad manual", f"file:///q{i}.html", text, nearness=near)
        for i, text in enumerate(texts, 1)
    ]
    return ExtractiveClient().complete(make_request(question, evidence)).text


def test_what_the_question_asks_to_do_said_once_apart_from_it_is_refused() -> None:
    question = "can i encrypt the notebooks so the server can't read them"
    # "notebooks", "server" and "read" are said together; "encrypt" once, where no other
    # word of the question is, nor in the sentences around it: about something else
    request = make_request(
        question,
        [
            EvidenceText("E1", "Quillpad manual", "file:///q1.html", NOTEBOOKS),
            EvidenceText("E2", "Quillpad manual", "file:///q2.html", PASSWORDS),
        ],
    )
    assert covered(request) and said_in_passing(request) == ["encrypt"]
    answer = ask_all(question, NOTEBOOKS, PASSWORDS)
    assert answer.startswith(REFUSAL) and "no sentence about it" in answer
    # said once, but with a word of the question: answered, quoting it
    said = "A notebook can be encrypted so that the server cannot read it."
    answer = ask_all(question, NOTEBOOKS, said)
    assert not answer.startswith(REFUSAL) and said in answer
    # said once, in the sentence after one that says a word of the question: answered
    beside = "The users file lists who may read each notebook. Keys encrypt it on disk."
    assert not ask_all(question, NOTEBOOKS, beside).startswith(REFUSAL)
    # said in two sentences (not in passing), or never (other words may say it): the
    # share of the question's words decides, as before
    twice = PASSWORDS + " Quillpad does not encrypt anything itself."
    assert said_in_passing(make_request(question, [EvidenceText("E1", "Q", "q:", twice)])) == []
    # a passage near the question in its other words does not say the word better: refused;
    # one about the question by itself is (ABOUT_FLOOR): not refused for it
    near = ask_all(question, NOTEBOOKS, PASSWORDS, nearness=ABOUT_FLOOR - 0.1)
    assert near.startswith(REFUSAL) and CLOSE_FLOOR < ABOUT_FLOOR - 0.1
    assert not ask_all(question, NOTEBOOKS, PASSWORDS, nearness=ABOUT_FLOOR).startswith(REFUSAL)


MIRRORS = (
    "The maximum size of a pack is set by pack.sizeLimit. Clone the repository from a "
    "mirror; one is hosted on Codeberg. A pack larger than the maximum size is split."
)


def test_a_name_said_once_with_few_of_the_questions_words_is_refused() -> None:
    question = "what is the maximum repository size Codeberg allows"
    # "Codeberg" is said once, with "repository" alone of maximum, repository, size, allows
    answer = ask_all(question, MIRRORS)
    assert answer.startswith(REFUSAL) and "no sentence about it" in answer
    # a sentence that says it with half the question's words answers it
    allowed = MIRRORS + " Codeberg allows a repository of at most 4 GiB."
    answer = ask_all(question, allowed)
    assert not answer.startswith(REFUSAL) and "at most 4 GiB" in answer


GEOPOLY = (
    "JSON is stored as ordinary text. Geopoly stores polygons in a binary format: a BLOB. "
    "Details of the binary format are given below."
)


def test_a_variant_of_a_word_the_evidence_says_that_no_passage_says_is_refused() -> None:
    answer = ask("store json in the binary jsonb format", GEOPOLY, "Geopoly")
    assert answer.startswith(REFUSAL) and "No passage mentions jsonb" in answer
    said = GEOPOLY + " The jsonb function stores JSON in a binary format."
    answer = ask("store json in the binary jsonb format", said, "Geopoly")
    assert not answer.startswith(REFUSAL) and "jsonb function" in answer
    # a digit added is a variant; an inflection, a longer ending or a short word is not
    assert names("store polygons with geopoly2 not geopoly", GEOPOLY, "Geopoly") == ["geopoly2"]
    assert names("store polygons as json texts in a binary format", GEOPOLY, "Geopoly") == []
    assert names("can a polygon store jsonify the binary format", GEOPOLY, "G") == []


def test_the_question_words_counted_are_those_the_support_label_counts() -> None:
    question = (
        "which smoothing option keeps the data monotonic and doesn't overshoot between points"
    )
    request = make_request(question, [EvidenceText("E1", "gnuplot", "file:///g.pdf", SMOOTHING)])
    # smoothing, option, data and points: four of seven words. The "doesn" and "t" of
    # "doesn't" are not asked for, nor "between" (a preposition places what is asked), and
    # "smoothing" is held by "smooth" (extractive-v16 counted ten words, "smoothing" not
    # held: three of ten, refused)
    assert covered(request) and "between" not in asked_words(question)
    answer = ExtractiveClient().complete(request).text
    assert not answer.startswith(REFUSAL) and "preserves the monotonicity" in answer
    assert asked_words("whats the difference between ${var^} and ${var^^}") == ["var"]
    # two of eight words held (smoothing, option): under half, refused
    question = "which smoothing option keeps the sky blue and the sea green and calm"
    request = make_request(question, [EvidenceText("E1", "gnuplot", "file:///g.pdf", SMOOTHING)])
    assert not covered(request)


HEREDOCS = (
    "Here Documents: this type of redirection reads input until a line holding only the "
    "delimiter. If the redirection operator is '<<-', then all leading tab characters are "
    "stripped from input lines and the line containing delimiter."
)


def test_a_sentence_of_a_passage_about_the_question_engages_it_with_one_word() -> None:
    # one word of five held ("tab"): under ANSWERED_SHARE, but the passage is near enough in
    # meaning (CLOSE_FLOOR) to answer; its best sentence holds one word, not two
    question = "how do I indent the body of a heredoc with tabs so they get removed"
    answer = ask_all(question, HEREDOCS, nearness=ABOUT_FLOOR)
    assert answer.startswith("If the redirection operator is '<<-', then all leading tab")
    # a passage near the question, but not about it by itself: one word is a coincidence
    assert ask_all(question, HEREDOCS, nearness=ABOUT_FLOOR - 0.1).startswith(REFUSAL)
    # about it, but holding none of its words: nothing engages it
    assert ask_all("how do I nest quotes", HEREDOCS, nearness=ABOUT_FLOOR).startswith(REFUSAL)


EXPORTS = "The export job waits while the disk is full. It goes on once space is freed."


def test_a_long_question_needs_a_smaller_share_of_its_words_held() -> None:
    # nine words, four held (export, job, disk, full): a long question tells the trouble
    # around what it asks, words no answer need say; 0.44 is over LONG_SHARE
    question = "my nightly export job halts whenever the backup disk is full, how do i resume it"
    evidence = [EvidenceText("E1", "Exporter manual", "file:///e.html", EXPORTS)]
    assert covered(make_request(question, evidence))
    answer = ExtractiveClient().complete(make_request(question, evidence)).text
    assert answer == "The export job waits while the disk is full. [E1]"
    # five words, two held (export, full): 0.4 of a short question is under ANSWERED_SHARE
    question = "nightly export halts when backup full"
    assert not covered(make_request(question, evidence))
    answer = ExtractiveClient().complete(make_request(question, evidence)).text
    assert answer.startswith(REFUSAL)


def test_each_rule_holds_over_a_small_corpus_ingested_into_a_real_store(
    home: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bash.md").write_text(f"# Bash Reference Manual\n\n{BASH}\n", encoding="utf-8")
    (docs / "colors.md").write_text(f"# gnuplot colormaps\n\n{COLORMAPS}\n", encoding="utf-8")
    (docs / "sqlite.md").write_text(f"# SQLite connections\n\n{CONNECTIONS}\n", encoding="utf-8")
    with Arborist(home) as app:
        app.ingest([str(docs)])
        asked = {
            "bash 6.0": "When is bash 6.0 going to be released?",
            "matplotlib": "what is matplotlib's default colormap",
            "Entity Framework Core": "Entity Framework Core connection string for sqlite",
            "jupyter, notebook": "how to use gnuplot colormaps in a jupyter notebook",
        }
        for name, question in asked.items():
            answer = app.ask(question).answer
            assert answer.startswith(REFUSAL) and f"No passage mentions {name}" in answer
        answer = app.ask("what is gnuplot's default colormap").answer
        assert "rgbformulae 7,5,15" in answer


def test_a_long_question_is_read_in_time_linear_in_its_length() -> None:
    """A possessive is read back from each ``'s`` over a bounded reach: a search from every
    character took time in the square of a long word's length (a REPL line of one long
    word hung the refusal)."""
    from arborist._qa.grounding import _possessives, _versions

    assert _possessives("what is matplotlib's default colormap") == ["matplotlib"]
    assert _possessives("what's in my program's log") == []
    started = time.perf_counter()
    for question in ("a" * 200_000, "a-" * 100_000, "a " * 100_000 + "x's"):
        _possessives(question)
        _versions(question)  # a version's name is read from a word's start, not every letter
    assert _versions("When is bash 6.0 going to be released?") == [("bash", "6.0")]
    assert time.perf_counter() - started < 5  # was minutes; a bound no machine here misses
