"""The offline answerer on manuals' layouts other than pydoc's: a definition list's terms
(options, settings, a function's forms) over their descriptions, headings over sections,
and questions that ask for a number."""

from __future__ import annotations

from arborist._qa.client import EvidenceText, make_request
from arborist._qa.extractive import ExtractiveClient
from arborist._qa.sentences import Item, is_term, read_items, read_sentences

OPTIONS = (
    "## OPTIONS\n\n-a\n\n--all\n\nAll ignored and untracked files are also stashed.\n\n"
    "-u\n\n--include-untracked\n\nWhen used with the push command, all untracked files are "
    "also stashed and then cleaned up.\n\nWhen used with the show command, show them.\n\n"
    "$ git stash push -u\n\nwhich stashes them.\n\n--index\n\nTries to reinstate the index."
)


def test_a_term_line_names_what_the_paragraphs_after_it_describe() -> None:
    items = read_items(OPTIONS)
    assert items[0] == Item(
        "All ignored and untracked files are also stashed.", "-a, --all", "", "OPTIONS"
    )
    first = (
        "When used with the push command, all untracked files are also stashed and then cleaned up."
    )
    assert items[1] == Item(first, "-u, --include-untracked", "", "OPTIONS")
    assert items[2] == Item(
        "When used with the show command, show them.", "-u, --include-untracked", first, "OPTIONS"
    )
    # a command after a prompt is code, not a term: the prose after it has none
    assert items[3] == Item("which stashes them.", "", "", "OPTIONS")
    assert items[4].term == "--index"
    assert [i.sentence for i in items] == read_sentences(OPTIONS)


def test_what_is_no_term() -> None:
    assert is_term("--no-include-untracked") and is_term("gc.auto") and is_term("count(*)")
    assert is_term("-c <new-branch>") and is_term("key")
    assert not is_term("Branch to switch to.")  # a sentence
    assert not is_term("the new branch")  # function words: prose
    assert not is_term("3.1. Automatic Checkpoint")  # a table of contents
    assert not is_term("OPTIONS")  # a header in capitals
    assert not is_term("[user@host dir]$ git describe")  # a command after a prompt
    assert not is_term("__all__ = ['groupby']")  # an assignment
    # a list item is never a term, nor is a function's two forms once code follows them
    assert read_items("- cats climb\n- dogs dig")[0] == Item("cats climb.")
    text = "count(X)\ncount(*)\n\n>>> count(t)\n\nCounts rows."
    assert read_items(text) == [Item("Counts rows.")]
    assert read_items("# 6. Large WAL Files\n\nThe WAL grows.")[0].heading == "Large WAL Files"


def ask(question: str, text: str, title: str = "git-stash(1)") -> str:
    evidence = [EvidenceText("E1", title, "file:///doc.html", text)]
    return ExtractiveClient().complete(make_request(question, evidence)).text


def test_an_option_is_quoted_with_its_name() -> None:
    answer = ask("stash untracked files on push", OPTIONS)
    assert answer.startswith(
        "-u, --include-untracked: When used with the push command, all untracked files"
    )


def test_a_question_for_a_number_quotes_the_sentence_that_gives_it() -> None:
    text = (
        "gc.auto\n\nWhen there are approximately more than this many loose objects in the "
        "repository, git gc --auto will pack them. Some commands use this command to perform "
        "a light-weight garbage collection from time to time. The default value is 6700.\n\n"
        "gc.autoDetach\n\nMake git gc --auto return immediately and run in the background."
    )
    answer = ask("how many loose objects before gc --auto packs them", text, "git-gc(1)")
    assert answer == (
        "gc.auto: When there are approximately more than this many loose objects in the "
        "repository, git gc --auto will pack them. The default value is 6700. [E1]"
    )


def test_a_product_the_evidence_never_names_is_not_answered() -> None:
    text = "Branch permissions are not a git feature. git branch lists the branches."
    answer = ask("how to enable branch permissions in Bitbucket", text, "git-branch(1)")
    assert answer.startswith("The documents do not answer") and "Bitbucket" in answer
    # a capital opening the question, "I", and a name a word of the evidence opens with
    # ("URL": "urllib") are no product's name
    text = "The urllib module parses a query string into a dictionary of lists."
    answer = ask("How do I parse a URL query string into a dictionary?", text, "urllib.parse")
    assert answer.startswith("The urllib module parses a query string")


def test_a_long_list_of_names_with_a_label_is_no_sentence() -> None:
    names = " ".join(f"name{i}-stmt" for i in range(14))
    assert read_sentences(f"Used by: {names}") == []
    long = "The checkpoint runs when the WAL file reaches about a thousand pages in size."
    assert read_sentences(long) == [long]


def test_a_question_for_a_number_whose_words_only_the_title_holds() -> None:
    """No sentence holds a word of the question (no word has a weight), the title does: a
    number under a term is still weighed, not a crash."""
    text = "gc.auto\n\nSome unrelated remark here. The default value is 6700."
    answer = ask("how many zebras fit", text, "Zebras fit")
    assert answer == "gc.auto: Some unrelated remark here. The default value is 6700. [E1]"


def test_an_option_with_its_argument_alone_on_its_line_is_a_term() -> None:
    text = "-c <new-branch>\n\n--create <new-branch>\n\nCreate a new branch.\n\n-n N: how many."
    items = read_items(text)
    assert items[0] == Item("Create a new branch.", "-c <new-branch>, --create <new-branch>")
    assert items[1] == Item("-n N: how many.")  # a row that says what it is: its own item


def test_a_pdf_definition_list_without_blank_lines_still_has_its_terms() -> None:
    """A PDF's text runs a term into its description: a term line over the sentence that
    describes it, a name in capitals run into its first sentence, a section's heading
    repeated ahead of its first sentence."""
    text = (
        "--enable-static-link\nThis causes Bash to be linked statically, if gcc is being used.\n"
        "This could be used to build a version to use as root’s shell.\n\n"
        "FUNCNEST If set to a numeric value greater than 0, defines a maximum function nesting\n"
        "level. Function invocations that exceed this nesting level abort.\n\n"
        "##### Mcsplines\n\nMcsplines The smooth mcsplines option connects consecutive points "
        "by cubic splines."
    )
    static = "This causes Bash to be linked statically, if gcc is being used."
    assert read_items(text) == [
        Item(static, "--enable-static-link"),
        Item(
            "This could be used to build a version to use as root’s shell.",
            "--enable-static-link",
            static,
        ),
        Item(
            "If set to a numeric value greater than 0, defines a maximum function nesting level.",
            "FUNCNEST",
        ),
        Item(
            "Function invocations that exceed this nesting level abort.",
            "FUNCNEST",
            "If set to a numeric value greater than 0, defines a maximum function nesting level.",
        ),
        Item(
            "The smooth mcsplines option connects consecutive points by cubic splines.",
            heading="Mcsplines",
        ),
    ]
    # a name in capitals on its own line is read so too, and "A" opens a sentence
    assert read_items("GLOBIGNORE\nA colon-separated list of patterns.") == [
        Item("A colon-separated list of patterns.", "GLOBIGNORE")
    ]
    # a short line over a sentence's lowercase rest is that sentence's start, not a term,
    # and a line that ends with a dash goes on into the next
    assert read_sentences("Enable support\nfor large files.") == ["Enable support for large files."]
    assert read_sentences("git-rerere -\nReuse recorded resolution.") == [
        "git-rerere - Reuse recorded resolution."
    ]
    answer = ask("configure option to link bash statically", text, "Bash Reference Manual")
    assert answer.startswith("--enable-static-link: This causes Bash to be linked statically")


def test_a_command_after_a_prompt_and_a_synopsis_are_not_quoted() -> None:
    text = (
        "[torvalds@g5 git]$ git describe parent\n\nsqlite> PRAGMA foreign_keys = ON;\n\n"
        "set terminal dumb {size <xchars>,<ychars>} {[no]feed}\n{[no]enhanced}\n\n"
        "where <xchars> and <ychars> set the size of the text block. The default is 79 by 24."
    )
    assert read_sentences(text) == [
        "where <xchars> and <ychars> set the size of the text block.",
        "The default is 79 by 24.",
    ]


def test_a_heading_anchor_is_no_word_and_in_this_case_goes_on_from_before() -> None:
    text = (
        "### Pause mouse close {#_pause_mouse_close}\n\nThe command pause mouse close waits "
        "for an external event. In this case the program waits for a close event from the "
        "plot window."
    )
    items = read_items(text)
    assert {i.heading for i in items} == {"Pause mouse close"}
    # "In this case" says nothing without the sentence it goes on from: both are quoted
    answer = ask("script should wait until the user closes the plot window", text, "gnuplot")
    assert answer == (
        "The command pause mouse close waits for an external event. In this case the program "
        "waits for a close event from the plot window. [E1]"
    )


def test_a_section_s_first_sentence_is_quoted_under_its_heading_when_that_is_what_was_asked() -> (
    None
):
    text = (
        "# 5. ALTER TABLE DROP COLUMN {#alter_table_drop_column}\n\nThe DROP COLUMN syntax is "
        "used to remove an existing column from a table. The DROP COLUMN command removes the "
        "named column from the table.\n\n# 6. Compatibility\n\nOlder versions of a table "
        "keep every column."
    )
    answer = ask("can I remove a column from an existing table?", text, "ALTER TABLE")
    assert answer.startswith(
        "ALTER TABLE DROP COLUMN: The DROP COLUMN syntax is used to remove an existing column"
    )
    # a heading's closing stop is not quoted before the colon
    backup = "## Online Backup API.\n\nThe backup API copies one database into another."
    answer = ask("copy a database with the backup API", backup, "Backup")
    assert answer == "Online Backup API: The backup API copies one database into another. [E1]"
    # a heading that names nothing asked is not quoted
    answer = ask("do older versions keep every column", text, "ALTER TABLE")
    assert answer == "Older versions of a table keep every column. [E1]"


PSUTIL_CPU = (
    "CPU\n---\n\n.. code-block:: python\n\n    >>> import psutil\n    >>>\n"
    "    >>> for x in range(3):\n    ...     psutil.cpu_percent(interval=1)\n    ...\n"
    "    4.0\n    5.9\n    >>>\n    >>> psutil.cpu_percent(interval=1, percpu=True)\n"
    "    [4.0, 6.9, 3.7, 9.2]\n\n"
    ".. _marker: https://docs.pytest.org/en/latest/mark.html\n\n"
    "Use cpu_percent with percpu set to get the usage of every CPU.\n"
)


def test_restructuredtext_markup_is_no_term_and_no_sentence() -> None:
    """A directive (``.. code-block:: python``), a target or a comment of a README in
    reStructuredText states nothing: it names no term of what follows and is never quoted
    (it read ".. code-block:: python: psutil.cpu_percent(interval=1) ...")."""
    items = read_items(PSUTIL_CPU)
    assert [(i.term, i.sentence) for i in items] == [
        ("", "Use cpu_percent with percpu set to get the usage of every CPU.")
    ]
    answer = ask("How do I get CPU usage for every CPU?", PSUTIL_CPU, "psutil")
    assert ".." not in answer and "code-block" not in answer and "marker" not in answer
    assert "Use cpu_percent with percpu set" in answer


EXAMPLES = (
    "#### Circles\n\n"
    "The circles style plots a circle at each data point.\n"
    "Examples:\n"
    "# draws circles whose area is proportional to the value in column 3\n"
    "plot 'data' using 1:2:(sqrt($3)) with circles\n"
    "# draw a pie chart with inline data\n"
    "set style fill transparent solid 0.9 noborder\n"
    "plot '-' using 1:2:3:4:5:6 with circles lc var\n\n"
    "The result is similar to using a points plot with variable size points."
)


def test_an_example_s_comment_says_what_the_command_under_it_does() -> None:
    # a '#' line run straight into code is a comment of an example, not a heading: it is
    # quoted (the command under it as its term), and the section keeps its own heading
    items = read_items(EXAMPLES)
    assert (
        Item(
            "draw a pie chart with inline data.",
            "set style fill transparent solid 0.9 noborder",
            "",
            "Circles",
        )
        in items
    )
    assert items[-1] == Item(
        "The result is similar to using a points plot with variable size points.", "", "", "Circles"
    )
    answer = ask("how do you draw a pie chart", EXAMPLES, "gnuplot documentation")
    assert "draw a pie chart" in answer
    # a heading over its section (a blank line under it) is still a heading
    assert read_items("# Pie charts\n\nset style fill solid\n\nThey are drawn.")[0].heading == (
        "Pie charts"
    )
    # more lines of comment than a command's description takes are commented-out text
    todo = "# Commands:\n# p, pick = use commit\n# r, reword = use commit\n# e, edit = stop\npick c0ffee"
    assert read_items(todo) == []
    # pydoc's margin under a method's comment is a blank line: that is no example
    assert read_items(" |  f(self)\n |      # Internal -- parse a thing fully\n |  \n") == []
