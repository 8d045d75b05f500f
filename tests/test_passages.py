"""What the vector lane embeds of a prose chunk: windows that fit the model (arborist/_store/passages.py)."""

from __future__ import annotations

from arborist._store.passages import WINDOW, passage_definitions, passages, windows

CLONE = """## Shallow clones

A shallow clone has a truncated history. It is cheap
to make. Use --depth to ask for one.

The depth can later be changed with git fetch --depth."""


def test_a_prose_text_is_cut_at_sentence_ends_into_even_windows() -> None:
    assert windows(CLONE, 60) == [
        "## Shallow clones A shallow clone has a truncated history.",
        "It is cheap to make. Use --depth to ask for one.",
        "The depth can later be changed with git fetch --depth.",
    ]


def test_a_text_that_fits_is_one_window_its_whitespace_collapsed() -> None:
    assert windows(CLONE, 1000) == [
        "## Shallow clones A shallow clone has a truncated history. It is cheap to make. "
        "Use --depth to ask for one. The depth can later be changed with git fetch --depth."
    ]
    assert windows("  \n\n ") == []


def test_lines_without_sentence_ends_are_cut_at_line_ends_then_words() -> None:
    assert windows("line one of code\nline two of code\nline three of code", 20) == [
        "line one of code",
        "line two of code",
        "line three of code",
    ]
    assert windows("alpha beta gamma delta epsilon", 12) == ["alpha beta", "gamma delta", "epsilon"]
    assert windows("x" * 25 + " yy", 10) == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx yy"]


def test_a_long_prose_chunk_is_embedded_as_windows_each_led_by_the_title() -> None:
    sentence = "Each stash entry records the state of the working tree and of the index. "
    text = "## DESCRIPTION\n\n" + sentence * 12
    found = passages(text, "git-stash(1) — Stash the changes")
    assert WINDOW == 500  # 890 characters: two windows, the heading and six sentences in the first
    assert found == [
        "git-stash(1): ## DESCRIPTION " + " ".join([sentence.strip()] * 6),
        "git-stash(1): " + " ".join([sentence.strip()] * 6),
    ]
    assert passage_definitions(text) == [None, None]  # one per window, neither a definition
    assert len(passages(text)) == len(found)  # how many never depends on the title


def test_a_pydoc_chunk_of_definitions_keeps_its_definition_passages() -> None:
    pydoc = """FUNCTIONS
    insort(a, x)
        Insert item x in list a, and keep it sorted.

    choose(seq)
        Choose a random element from a non-empty sequence.
"""
    assert passages(pydoc, "tinylib — helpers") == [
        "tinylib: insort(a, x)\nInsert item x in list a, and keep it sorted.",
        "tinylib: choose(seq)\nChoose a random element from a non-empty sequence.",
    ]
